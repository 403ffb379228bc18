"""Rank a class's capstone methods on SkillWorld: `rank_class`.

Every submission (submission.py) runs contained (remote.py) on the same SkillWorld
tasks, in the order of an order seed the students never saw (drawn here unless the
instructor gives one; recorded in ranking.json, not on the public page), for each world
seed; so do HyperSkill and no memory, through the very same path. The loop is the
runner's own episode step (runner.one_episode) with maintenance every ceil(0.1 N) tasks
(Appendix A); the world (tasks, simulated model, executor, outcomes) runs only in the
grader's process.

Each method's success rate is compared with HyperSkill's and with no memory's, paired by
(world seed, task) with a bootstrap 95 % interval (stats.py, "within-cell"); the ranking
is by success rate. An episode whose memory call failed counts as a failure. A
submission that will not start, dies, hangs, or exceeds its budget costs itself only: it
is listed unranked with one line saying why, and flagged. The references must run: when
one fails the ranking stops (`RankingError`).

SkillWorld numbers are a simulation, never the paper's.

Not here: one contained method (remote.py), the page (leaderboard.py), the command
(course/__main__.py).
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperskill_lite.core.config import maintenance_period
from hyperskill_lite.course.capstone.remote import (
    ContainedMemory,
    Limits,
    MethodFailed,
    WorldDesk,
    process_isolation_note,
)
from hyperskill_lite.course.capstone.submission import find_submissions, scan_submission
from hyperskill_lite.launch import skillworld_parts
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.episode import one_episode
from hyperskill_lite.stats import PairedDifference, pair_rng, paired_differences

__all__ = ["REFERENCES", "Entry", "Ranking", "RankingError", "rank_class"]

REFERENCES = ("hyperskill", "no-memory")
"""The methods every submission is compared with."""


class RankingError(RuntimeError):
    """The ranking cannot be made (a reference failed, nothing to rank); one line."""


@dataclass
class Entry:
    """One method's runs: who submitted it (`student`, from the file name), the method's
    own `name` and `description` (both the student's strings), its `outcomes` per world
    seed ({(index, task id): 0/1}), and `problem` (one line) when it could not be ranked."""

    student: str
    name: str = ""
    description: str = ""
    outcomes: dict[int, dict[tuple[int, str], float]] = field(default_factory=dict)
    errored: int = 0
    context_tokens: float = 0.0
    seconds: float = 0.0
    problem: str = ""
    flags: list[str] = field(default_factory=list)
    diffs: dict[str, PairedDifference] = field(default_factory=dict)

    @property
    def ranked(self) -> bool:
        return not self.problem and bool(self.outcomes)

    @property
    def sr(self) -> float:
        values = [v for cell in self.outcomes.values() for v in cell.values()]
        return 100.0 * sum(values) / len(values) if values else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"student": self.student, "name": self.name, "description": self.description,
                "sr": round(self.sr, 3), "errored": self.errored,
                "context_tokens": round(self.context_tokens, 1), "seconds": round(self.seconds, 1),
                "problem": self.problem, "flags": self.flags,
                "vs": {r: d.to_dict() for r, d in self.diffs.items()},
                "outcomes": {str(s): [[i, t, v] for (i, t), v in sorted(cell.items())]
                             for s, cell in self.outcomes.items()}}


@dataclass
class Ranking:
    """The references, the ranked entries (best first), the unranked ones, and the
    settings (the order seed among them: the instructor's, not for the public page)."""

    references: dict[str, Entry]
    entries: list[Entry]
    failed: list[Entry]
    settings: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return {"settings": self.settings,
                "references": {k: v.to_dict() for k, v in self.references.items()},
                "ranked": [e.to_dict() for e in self.entries],
                "failed": [e.to_dict() for e in self.failed]}


def _run(entry: Entry, seed: int, submission: Path | None, builtin: str | None, profile: str,
         episodes: int, order_seed: int, isolation: str, limits: Limits, encoder: str) -> None:
    """One world seed of one method, into `entry` (or its `problem`)."""
    tasks, llm, executor, _ = skillworld_parts(profile, seed, episodes,
                                               evaluation=EvalProtocol(order_seed=order_seed))
    desk = WorldDesk(llm)
    t0 = time.monotonic()
    memory = ContainedMemory.start(submission, desk, builtin=builtin, isolation=isolation,
                                   limits=limits, encoder=encoder)
    try:
        entry.name = entry.name or memory.name
        entry.description = entry.description or memory.description
        period = maintenance_period(len(tasks))
        cell, tokens = {}, 0
        for i, task in enumerate(tasks):
            record, _ = one_episode(i, task, memory, executor, None, None, None)
            failed = bool(record.errored)
            entry.errored += failed
            cell[(i, task.id)] = 0.0 if failed else float(bool(record.success))
            tokens += record.context_tokens
            if memory.failure:  # a call that hung, died or broke the protocol
                raise MethodFailed(f"{memory.failure} (episode {i + 1})")
            if memory.proc.poll() is not None:
                raise MethodFailed(f"it died at episode {i + 1}")
            if period and (i + 1) % period == 0:
                try:
                    memory.maintain()
                except RuntimeError as e:
                    if isinstance(e, MethodFailed):
                        raise
                    entry.flags.append(f"maintenance failed after episode {i + 1}: {e}"[:200])
        entry.outcomes[seed] = cell
        entry.context_tokens += tokens / max(1, len(tasks)) / 1.0
    finally:
        memory.close()
        entry.seconds += time.monotonic() - t0
        if desk.refused:
            entry.flags.append(f"the world refused {len(desk.refused)} model operation(s), "
                               f"e.g. {desk.refused[0]}")
        if desk.forged:
            entry.flags.append(f"handed back {desk.forged} metadata token(s) the world never "
                               "issued (forged metadata earns nothing)")


def _runs(entry: Entry, seeds: Sequence[int], **kw: Any) -> None:
    for seed in seeds:
        try:
            _run(entry, seed, **kw)
        except MethodFailed as e:
            entry.problem = f"world seed {seed}: {e}"[:300]
            entry.flags.append(entry.problem)
            entry.outcomes.clear()
            return
    if entry.outcomes:
        entry.context_tokens /= len(entry.outcomes)
    runs = sum(len(c) for c in entry.outcomes.values())
    if runs and entry.errored > runs // 2:
        entry.flags.append(f"{entry.errored} of {runs} episodes failed in its own code")


def rank_class(submissions: Sequence[Path] | Path, *, profile: str = "gaia",
               episodes: int = 100, seeds: Sequence[int] = (0, 1, 2),
               order_seed: int | None = None, isolation: str = "bwrap",
               limits: Limits | None = None, encoder: str = "hashing", stats_seed: int = 0,
               n_boot: int = 2000, log: Callable[[str], None] | None = None) -> Ranking:
    """Rank the submissions (a folder of them, or the files) against the references
    (module docstring)."""
    say = log or (lambda line: None)
    limits = limits or Limits()
    files = find_submissions(submissions) if isinstance(submissions, Path) else \
        [Path(p) for p in submissions]
    if order_seed is None:
        order_seed = secrets.randbelow(2**31)
    note = process_isolation_note() if isolation == "process" else ""
    if note:
        say(f"warning: {note}")
    kw = dict(profile=profile, episodes=int(episodes), order_seed=int(order_seed),
              isolation=isolation, limits=limits, encoder=encoder)
    refs = {}
    for name in REFERENCES:
        say(f"reference {name} ...")
        entry = Entry(student=f"({name})", name=name)
        _runs(entry, seeds, submission=None, builtin=name, **kw)
        if not entry.ranked:
            raise RankingError(f"the reference {name} could not run: {entry.problem}")
        refs[name] = entry
    entries, failed = [], []
    for path in files:
        entry = Entry(student=path.stem[:80])
        entry.flags += scan_submission(path)
        say(f"{entry.student} ...")
        _runs(entry, seeds, submission=path, builtin=None, **kw)
        (entries if entry.ranked else failed).append(entry)
        say(f"{entry.student}: " + (f"SR {entry.sr:.1f} %" if entry.ranked else entry.problem))
    outcomes = {name: e.outcomes for name, e in refs.items()}
    for e in entries:
        key = f"submission:{e.student}"
        data = {**outcomes, key: e.outcomes}
        for ref in REFERENCES:
            d = paired_differences(data, ref, pair_rng(stats_seed, ref, key), methods=[key],
                                   n_boot=n_boot)[0]
            e.diffs[ref] = d
    refs["hyperskill"].diffs["no-memory"] = paired_differences(
        outcomes, "no-memory", pair_rng(stats_seed, "no-memory", "hyperskill"),
        methods=["hyperskill"], n_boot=n_boot)[0]
    entries.sort(key=lambda e: (-e.sr, e.student))
    settings = {"profile": profile, "episodes": int(episodes), "seeds": [int(s) for s in seeds],
                "order_seed": int(order_seed), "isolation": isolation, "encoder": encoder,
                "call_seconds": limits.call_seconds, "total_seconds": limits.total_seconds,
                "memory_mb": limits.memory_mb, "stats_seed": stats_seed, "n_boot": n_boot,
                "submissions": len(files), "isolation_note": note}
    return Ranking(refs, entries, failed, settings)
