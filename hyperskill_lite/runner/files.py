"""The files of a run folder: records, the resumable state, run.json, checkpoints, and
putting a damaged folder back to a checkpoint.

``OUT/episodes.jsonl`` holds one JSON line per finished episode; ``OUT/state/`` the whole
state after the last one (memory + ``progress.json``), replaced by renames only;
``OUT/run.json`` the run's settings (a resume with other settings is refused) and, under
``observed``, one entry per invocation of what it found about its model server (the
preflight and the probes: facts, never compared, so a resume after a fixed key works);
``OUT/checkpoints/maint-NNNN/`` the memory after the maintenance that followed episode
NNNN, and ``OUT/checkpoints/frozen-NNNN/`` the memory a frozen evaluated part starting
after episode NNNN reads; ``OUT/inflight.json`` the episode running now and how many
processes died running it (`mark_inflight`: a rerun gives up on an episode that killed
the process `CRASH_LIMIT` times instead of replaying the crash forever).

Every `RunError` says what is wrong and how to go on: rerun with the same arguments, use
a new ``--out``, or put the folder back to its last good checkpoint with
`restore_checkpoint` (``python -m hyperskill_lite.runner restore OUT``), after which the
same command resumes from there and ends in the state an uninterrupted run reaches.

Not here: the episode loop (loop.py), summaries (summary.py), the in-flight marker and the
crash injection points (inflight.py).
"""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.settings import ToolSettings
from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.confined import (
    check_tree,
    entries,
    leads_out,
    open_append,
    read_bytes,
    write_bytes,
    write_text,
)
from hyperskill_lite.core.dirlock import fsync_dir
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.identity import write_identity
from hyperskill_lite.runner.inflight import (
    crash_point,
)

__all__ = ["RunError", "StorageError", "read_records", "restore_checkpoint", "checkpoints",
           "RECORDS", "STATE", "RUN_FILE", "FORMAT", "CHECKPOINTS", "RESTORE_COMMAND",
           "OBSERVED", "kept",
           "kept_text", "settings_problem", "check_out_folder"]

RECORDS = "episodes.jsonl"
STATE = "state"
RUN_FILE = "run.json"
CHECKPOINTS = "checkpoints"
FORMAT = "hyperskill_lite.run/1"
OBSERVED = "observed"
"""run.json's list of what each invocation observed (never compared on resume)."""
LEGACY_OBSERVED = ("structured_mode", "structured_probe", "protocol_used", "protocol_probe")
"""Probe answers that run.json files written before `OBSERVED` kept among the settings."""
RUN_FILE_BYTES = 16 * 2**20
"""A run.json larger than this is not one this project wrote; it is refused unread."""
RESTORE_COMMAND = "python -m hyperskill_lite.runner restore"
"""How a user puts a run folder back to a checkpoint (named in RunError messages)."""
_CHECKPOINT = re.compile(r"^(maint|frozen)-(\d+)$")


class RunError(RuntimeError):
    """A run directory that cannot be resumed (different arguments, inconsistent files);
    the message says how to recover."""


class StorageError(RunError):
    """The run folder could not be written (a full disk, a quota, permissions); the
    message names the file, what is kept and how to go on. `errno` and `filename` are
    those of the OSError."""

    def __init__(self, message: str, errno: int | None = None,
                 filename: str | None = None) -> None:
        super().__init__(message)
        self.errno, self.filename = errno, filename


def kept(out: Path | str) -> tuple[int, int | None]:
    """(intact records, episodes in the saved state or None) of a run folder, read
    without changing anything (a torn last line is not counted, nor truncated)."""
    out = Path(out)
    try:
        records = _parse(read_bytes(out, out / RECORDS))[0] if (out / RECORDS).is_file() \
            else []
    except OSError:
        records = []
    state = find_state(out) if out.is_dir() else None
    done = None
    if state is not None:
        try:
            done = int(json.loads((state / "progress.json").read_text())["next_index"])
        except (OSError, ValueError, KeyError, TypeError):
            done = None
    return len(records), done


def kept_text(out: Path | str) -> str:
    """What a run folder keeps, in words, for a line that says why a run stopped.

    >>> kept_text("/nonexistent/run")
    'nothing was written yet (/nonexistent/run does not exist)'
    """
    out = Path(out)
    if not out.is_dir():
        return f"nothing was written yet ({out} does not exist)"
    n, done = kept(out)
    done = max(n, done or 0)
    if done == 0:
        return f"{out} holds no finished episode yet"
    return (f"{out} keeps {done} finished episode(s) (episodes.jsonl and the saved state "
            f"after episode {done}, intact)")


def check_out_folder(out: Path | str) -> None:
    """Refuse, in one line, an ``--out`` that exists and is not a folder, or whose
    parent is a file (instead of ``[Errno 17]`` / ``[Errno 20]`` later)."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"--out {out}: exists and is not a folder (the command keeps "
                              "its runs, records and state there); choose another --out")
    for parent in out.parents:
        if parent.exists():
            if not parent.is_dir():
                raise NotADirectoryError(f"--out {out}: {parent} is a file, not a folder; "
                                         "choose another --out")
            return


def fsync_write(path: Path, text: str) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(text)
        f.flush()
        os.fsync(f.fileno())


def checkpoints(out: Path | str) -> dict[int, Path]:
    """The run's checkpoints by the number of episodes they follow (a maintenance and a
    freeze at the same episode hold the same memory; the maintenance one is listed). A
    link leading out of the run folder is skipped with a warning (core/confined.py)."""
    found: dict[int, Path] = {}
    d = Path(out) / CHECKPOINTS
    if not d.is_dir() or leads_out(out, d):
        return found
    for p in entries(out, d, "checkpoints"):
        m = _CHECKPOINT.match(p.name)
        if m and p.is_dir() and (m.group(1) == "maint" or int(m.group(2)) not in found):
            found[int(m.group(2))] = p
    return dict(sorted(found.items()))


def recovery_hint(out: Path, good: int) -> str:
    """What to do with a run folder whose first `good` episodes are intact and the rest
    is not: restore the last checkpoint at or before `good`, or start a new --out."""
    usable = [k for k in checkpoints(out) if 0 < k <= good]
    if not usable:
        return (f"no checkpoint of {out} is at or before episode {good}, so start afresh "
                "with a new --out")
    k = usable[-1]
    return (f"to keep episodes 1-{k}, restore checkpoint {checkpoints(out)[k]} with "
            f"`{RESTORE_COMMAND} {out}` and rerun the same command (it resumes at episode "
            f"{k + 1}); or start afresh with a new --out")


def _parse(raw: bytes) -> tuple[list[dict[str, Any]], list[bytes], str | None, int]:
    """(records of the intact prefix, their raw lines, what is wrong after it or None,
    and for a torn last line the byte length of the intact part, else -1)."""
    lines = raw.split(b"\n")
    records: list[dict[str, Any]] = []
    kept: list[bytes] = []
    good_bytes = 0
    for i, line in enumerate(lines):
        if not line.strip():
            good_bytes += len(line) + 1
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as exc:
            torn = good_bytes if i == len(lines) - 1 else -1
            return records, kept, f"line {i + 1} is not valid JSON ({exc.msg})", torn
        if not isinstance(rec, dict) or rec.get("index") != len(records):
            got = rec.get("index") if isinstance(rec, dict) else rec
            return records, kept, (f"line {i + 1} has index {got}, expected "
                                   f"{len(records)}"), -1
        records.append(rec)
        kept.append(line)
        good_bytes += len(line) + 1
    return records, kept, None, -1


def read_records(out: Path | str, repair: bool = True) -> list[dict[str, Any]]:
    """The finished episodes of a run directory, in order.

    A final line cut off by a crash (no newline, not JSON) is dropped and, with `repair`,
    truncated away (without, the file is only read: a complete run in a read-only
    folder); a corrupt line elsewhere raises `RunError` naming the file and line and how
    to recover (`recovery_hint`).
    """
    out = Path(out)
    path = out / RECORDS
    if not os.path.lexists(path):
        return []
    raw = read_bytes(out, path)
    records, kept, problem, torn = _parse(raw)
    if problem is None:
        return records
    if torn >= 0:  # the write the crash interrupted
        if not repair:
            return records
        with open(path, "r+b") as f:
            f.truncate(min(torn, len(raw)))
        return records
    raise RunError(f"{path}: {problem}; {recovery_hint(out, len(records))}")


def append_record(out: Path, record: dict[str, Any], durable: bool = True) -> None:
    with open_append(out, out / RECORDS) as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
        if durable:
            f.flush()
            os.fsync(f.fileno())


def save_state(system: Any, out: Path, progress: dict[str, Any],
               saved: Path | None = None) -> None:
    """Write memory + progress to OUT/state.new, then swap it in by renames.

    `saved`: a folder the same memory was just saved to (the maintenance checkpoint of
    this episode; nothing changed the memory since). Its files are hard-linked instead
    of written and fsynced a second time: saved files are never modified in place (a
    save writes new files and renames), so the link is a snapshot. Where links are not
    possible (another file system, no link support) the memory is saved as usual."""
    new = out / (STATE + ".new")
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir(parents=True)
    if saved is None or not _link_tree(saved, new / "memory"):
        system.save(new / "memory")
    write_identity(new, system)
    crash_point("state_written", int(progress.get("next_index", 0)) - 1)
    fsync_write(new / "progress.json", json.dumps(progress, sort_keys=True))  # written last
    _swap_in(new, out)


def _link_tree(src: Path, dst: Path) -> bool:
    """Hard-link the saved folder `src` as `dst` (its folders made and fsynced, so the
    names are on disk); False, with nothing left at `dst`, where that fails."""
    try:
        shutil.copytree(src, dst, copy_function=os.link)
        for folder in [dst, *(p for p in dst.rglob("*") if p.is_dir())]:
            fsync_dir(folder)
        fsync_dir(dst.parent)
    except OSError:
        shutil.rmtree(dst, ignore_errors=True)
        return False
    return True


def _swap_in(new: Path, out: Path) -> None:
    cur, old = out / STATE, out / (STATE + ".old")
    shutil.rmtree(old, ignore_errors=True)
    fsync_dir(out)
    if cur.exists():
        cur.rename(old)
    new.rename(cur)
    fsync_dir(out)
    shutil.rmtree(old, ignore_errors=True)


def find_state(out: Path) -> Path | None:
    """The newest complete state directory (a crash mid-swap leaves .new or .old); one
    that is, or holds, a link leading out of the run folder is not a state of it."""
    for name in (STATE, STATE + ".new", STATE + ".old"):
        d = out / name
        if (d / "progress.json").exists() and not leads_out(out, d / "progress.json"):
            try:
                json.loads(read_bytes(out, d / "progress.json"))
            except (json.JSONDecodeError, UnicodeDecodeError, OSError):
                continue
            return d
    return None


def _normalised(info: dict[str, Any]) -> dict[str, Any]:
    """run.json contents compared on resume: a file written before evaluation protocols
    existed ran the paper's protocol, a config written before a field existed means
    what `HyperSkillConfig.from_dict` says it meant, and a tool setting written before it
    existed (the limits on what the tools read) has its default."""
    info = json.loads(json.dumps(info))
    info["protocol"] = EvalProtocol.from_dict(info.get("protocol")).to_dict()
    if "world" not in info and "profile" in info and "backend" not in info:
        # compare's runs before issue 38 wrote a shorter run.json: a SkillWorld run with
        # the default configuration, scored by the world's truth
        info["world"] = "skillworld"
        info.setdefault("config", HyperSkillConfig().to_dict())
        if info.get("learn_judge") == "self":
            info.setdefault("score_judge", "world")
    if isinstance(info.get("tools"), dict):  # a tool setting added later has its default
        info["tools"] = {**ToolSettings().to_dict(), **info["tools"]}
    if isinstance(info.get("config"), dict):
        try:
            info["config"] = HyperSkillConfig.from_dict(info["config"]).to_dict()
        except (TypeError, ValueError):
            pass  # compared as written
    return info


def _read_run_file(path: Path, info: dict[str, Any]) -> tuple[dict[str, Any], list[Any]]:
    """(settings normalised for comparison, the ``observed`` history) of a run.json
    checked against the settings `info` (read inside its folder: core/confined.py)."""
    try:
        old = json.loads(read_bytes(path.parent, path, limit=RUN_FILE_BYTES))
        if not isinstance(old, dict):
            raise ValueError("not a JSON object")
        history = list(old.pop(OBSERVED, []))
        old.pop("health", None)  # the run's health figures: a result (health.py)
        legacy = {k: old.pop(k) for k in LEGACY_OBSERVED if k in old and k not in info}
        if legacy:
            history.append(legacy)
        if "retrieval" not in old and isinstance(info.get("retrieval"), dict):
            # written before run.json recorded the retrieval counts: HyperSkill's were the
            # config's (compared there), a baseline's "k" counts were always 3
            old["retrieval"] = {k: 3 if k in ("k", "insights_k") else v
                                for k, v in info["retrieval"].items()}
        return _normalised(old), history
    except (ValueError, UnicodeDecodeError) as exc:
        raise RunError(
            f"{path} is not a run description ({exc}); if this folder holds the run "
            "these arguments describe, delete that file and rerun the same command (it "
            "is written again), or start afresh with a new --out") from None


def settings_problem(out: Path | str, run_info: dict[str, Any]) -> str | None:
    """Why the run folder `out` cannot hold the run `run_info` describes (a different
    run's settings in its run.json), or None; reads only (`check_run_file` writes)."""
    out = Path(out)
    path = out / RUN_FILE
    if not path.exists():
        return None
    info = {"format": FORMAT, **run_info}
    old, _ = _read_run_file(path, info)
    new = _normalised(info)
    if old == new:
        return None
    diff = _differences(old, new)
    shown = "; ".join(f"{k}: {_short(a)} there, {_short(b)} now" for k, a, b in diff[:3])
    more = f" (and {len(diff) - 3} more)" if len(diff) > 3 else ""
    return (f"{out} holds a run with different settings ({shown}{more}); "
            "use a new --out directory or the same arguments to resume")


def _differences(old: dict[str, Any], new: dict[str, Any],
                 prefix: str = "") -> list[tuple[str, Any, Any]]:
    """(dotted key, old value, new value) of every difference, into nested objects."""
    out = []
    for k in sorted(set(old) | set(new)):
        a, b = old.get(k), new.get(k)
        if a == b:
            continue
        if isinstance(a, dict) and isinstance(b, dict):
            out += _differences(a, b, f"{prefix}{k}.")
        else:
            out.append((f"{prefix}{k}", a, b))
    return out


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str)
    return text if len(text) <= 60 else text[:57] + "..."


def check_run_file(out: Path, run_info: dict[str, Any],
                   observed: dict[str, Any] | None = None) -> None:
    """Write OUT/run.json, or check that the one there has the same settings. `observed`
    (what this invocation found about the model server) is appended to the file's
    ``observed`` list and never compared."""
    path = out / RUN_FILE
    info = {"format": FORMAT, **run_info}
    history: list[Any] = []
    if path.exists():
        problem = settings_problem(out, run_info)
        if problem is not None:
            raise RunError(problem)
        _, history = _read_run_file(path, info)
        if not observed:
            return
    if observed:
        history.append(json.loads(json.dumps(observed)))
    doc = {**info, OBSERVED: history} if history else info
    write_text(out, path, json.dumps(doc, sort_keys=True, indent=1))


def restore_checkpoint(out: Path | str, checkpoint: str | None = None) -> int:
    """Put run folder `out` back to a checkpoint, so that rerunning the same command
    resumes after it; returns the number of episodes kept.

    `checkpoint` names one (``maint-0010``; default: the last one whose episodes are
    all intact in ``episodes.jsonl``). The records after it are cut (the whole file is
    first copied to ``episodes.jsonl.before-restore``), and the state becomes the
    checkpoint's memory with the progress of its last episode (the previous state is
    kept as ``state.before-restore``). A checkpoint holds the whole state of the memory
    system after its episode, so the resumed run ends exactly where an uninterrupted
    one does.
    """
    out = Path(out)
    path = out / RECORDS
    if not out.is_dir():
        raise RunError(f"{out}: no such run folder")
    check_tree(out)  # nothing is read or copied through a link leading out of it
    raw = read_bytes(out, path) if os.path.lexists(path) else b""
    records, kept, _, _ = _parse(raw)
    found = checkpoints(out)
    if checkpoint is not None:
        m = _CHECKPOINT.match(checkpoint)
        ck = out / CHECKPOINTS / checkpoint
        if not m or not ck.is_dir():
            raise RunError(f"{out}: no checkpoint {checkpoint!r}; it has "
                           f"{', '.join(p.name for p in found.values()) or 'none'}")
        k = int(m.group(2))
    else:
        usable = [k for k in found if 0 < k <= len(records)]
        if not usable:
            raise RunError(f"{out}: no checkpoint is at or before episode {len(records)} "
                           "(the last intact record); start afresh with a new --out")
        k, ck = usable[-1], found[usable[-1]]
    if not 0 < k <= len(records):
        raise RunError(f"{out}: checkpoint {ck.name} follows episode {k}, but only "
                       f"{len(records)} record(s) are intact; choose an earlier one")
    backup = out / (RECORDS + ".before-restore")
    if path.exists():
        write_bytes(out, backup, raw)
    write_text(out, path, "".join(line.decode("utf-8") + "\n" for line in kept[:k]))
    new = out / (STATE + ".new")
    shutil.rmtree(new, ignore_errors=True)
    new.mkdir(parents=True)
    shutil.copytree(ck, new / "memory")
    fsync_write(new / "progress.json",
                json.dumps({"next_index": k, "record": records[k - 1]}, sort_keys=True))
    aside = out / (STATE + ".before-restore")
    shutil.rmtree(aside, ignore_errors=True)
    if (out / STATE).exists():
        (out / STATE).rename(aside)
    _swap_in(new, out)
    return k
