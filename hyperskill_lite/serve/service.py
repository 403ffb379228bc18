"""What each MCP tool does, over a `SharedMemory`: recall, learn, maintain, explain, skill,
stats, and the data of the two resources (the skill list and the memory's health).

The operations are the ones the toolkit's own agent loop runs (methods.HyperSkillMemory:
``begin`` = decomposition + retrieval, ``end`` = extraction + update), split at the
client's agent: ``recall`` decomposes the task (P_0) and retrieves (Eqs. 4-9), and
returns the context the paper's agent gets with the ids it used; the client's agent
works; ``learn`` extracts skills and lesson from its trajectory, adds the hyperedge
(§3.4) and credits the ids the client used (Eq. 3 stats). The P_0 of a recall is kept
(a bounded table by task text) and becomes the subtask nodes of the learn of the same
task, as in the paper; a learn whose recall this process did not serve decomposes anew.

Maintenance, pruning and merging (Eqs. 11-14), runs on the paper's schedule, every ceil(0.1 N) learned tasks
(Appendix A; a server has no fixed N: it is `--expected-tasks`, 100 by default, so every
10), inside the learn that completes the period and after that learn is stored; or on a
``maintain`` call. The cycle is planned on a snapshot with core.maintenance (pruning,
then Eqs. 12-14's candidate pairs), its merges asked of the model concurrently, and the
result committed as one journal record.

Where we differ from the toolkit's run loop (our additions): an extraction that fails
stores nothing and credits nothing (the client may call learn again; crediting first
would count that retry twice); a learn without a model stores the trajectory on the
trajectory path alone (models.py); a learn without a step count is counted as the
middle of the step counts seen so far (`_typical_steps`).

Not here: MCP itself (app.py), the files (shared.py), which model (models.py).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import asdict
from typing import Any

import anyio.to_thread

from hyperskill_lite.core.maintenance import maintain as core_maintain
from hyperskill_lite.core.records import Fragment, Skill
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.runner.health import memory_health
from hyperskill_lite.serve import bounds
from hyperskill_lite.serve.models import CallModels, ModelConfig
from hyperskill_lite.serve.records import LearnItem, MergeItem
from hyperskill_lite.serve.shared import SharedMemory

__all__ = ["MemoryService", "OperationError"]

PLAN_CACHE = 1024
"""Recall plans kept for the learn of the same task (the oldest dropped first)."""
SKILL_LIST = 1000
"""Skills the skill-list resource shows (those of highest utility)."""


class OperationError(ValueError):
    """A tool call that could not be done (the message says why and what to do)."""


class _Collector:
    """A merger that records what each merge would be asked (the pair and its shared
    fragments) and answers with a placeholder, so a cycle can be planned on a snapshot
    before any model is called. The placeholder is `a` itself, whose text is embedded
    already (planning embeds nothing new)."""

    def __init__(self) -> None:
        self.calls: list[tuple[Skill, Skill, list[Fragment]]] = []

    def merge(self, a: Skill, b: Skill, fragments: Sequence[Fragment] = ()) -> Skill:
        self.calls.append((a, b, list(fragments)))
        return Skill(a.name, a.content, a.polarity)


def _task_key(task: str) -> str:
    return hashlib.sha256(task.encode("utf-8", "replace")).hexdigest()


class MemoryService:
    """The tools' operations (module docstring).

    Parameters
    ----------
    shared
        The memory folder, opened for writing.
    models
        Which model the memory's operations use.
    maintain_every
        Learned tasks between maintenance cycles; 0 turns the schedule off.
    k
        Default retrieval budget for k_u = k_e = k_s (None: the memory's config).
    """

    def __init__(self, shared: SharedMemory, models: ModelConfig, maintain_every: int = 10,
                 k: int | None = None) -> None:
        self.shared, self.models = shared, models
        self.maintain_every = int(maintain_every)
        self.k = k
        self._plans: OrderedDict[str, list[str]] = OrderedDict()
        self._plans_lock = threading.Lock()
        self._maintaining = threading.Lock()

    # ------------------------------------------------------------------ recall
    def _remember_plan(self, task: str, plan: list[str]) -> None:
        with self._plans_lock:
            self._plans[_task_key(task)] = list(plan)
            self._plans.move_to_end(_task_key(task))
            while len(self._plans) > PLAN_CACHE:
                self._plans.popitem(last=False)

    def _recalled_plan(self, task: str) -> list[str] | None:
        with self._plans_lock:
            plan = self._plans.get(_task_key(task))
        return None if plan is None else list(plan)

    def _retrieve(self, task: str, plan: list[str], k: int | None) -> Any:
        budget = k if k is not None else self.k
        ks = {} if budget is None else {"k_u": budget, "k_e": budget, "k_s": budget}
        with self.shared.read() as memory:
            return retrieve(memory, task, plan, **ks)

    async def recall(self, task: Any, k: Any = None, ctx: Any = None) -> dict[str, Any]:
        """Decompose `task` (P_0) and retrieve (Eqs. 4-9): the context text for the
        agent, the ids used (R_u + S_q + E*, to pass back to `learn`), and how."""
        task = bounds.check_task(task)
        k = None if k is None else bounds.check_k(k)
        models = CallModels(self.models, ctx)
        plan = await models.decompose(task)
        if plan:
            self._remember_plan(task, plan)
        r = await anyio.to_thread.run_sync(self._retrieve, task, plan, k)
        return {
            "context": r.context,
            "used_ids": r.retrieved_ids,
            "skills": [{"id": s, "label": r.skill_labels.get(s, ""), "kappa": r.kappa.get(s)}
                       for s in r.skill_ids],
            "hyperedges": r.edge_ids,
            "plan": plan,
            "model": models.kind,
            "notes": models.notes,
        }

    async def explain(self, task: Any, k: Any = None, ctx: Any = None) -> dict[str, Any]:
        """How a recall of `task` comes about: both paths, E*, each skill's kappa and
        cosine (`Retrieval.explain`); nothing is credited."""
        task = bounds.check_task(task)
        k = None if k is None else bounds.check_k(k)
        models = CallModels(self.models, ctx)
        plan = await models.decompose(task)
        r = await anyio.to_thread.run_sync(self._retrieve, task, plan, k)
        return {"explanation": r.explain(), "used_ids": r.retrieved_ids,
                "model": models.kind, "notes": models.notes}

    # ------------------------------------------------------------------ learn
    async def learn(self, task: Any, trajectory: Any, outcome: Any, steps: Any = None,
                    used_ids: Any = None, ctx: Any = None, client: str = "") -> dict[str, Any]:
        """Extract skills (after a success) or mistakes (after a failure) and the lesson
        from `trajectory`, and store them as one hyperedge over P_0's subtask nodes and
        the skills (§3.4), crediting `used_ids` (Eq. 3 stats). Runs a maintenance cycle
        when the schedule says so."""
        task = bounds.check_task(task)
        trajectory = bounds.check_trajectory(trajectory)
        success = bounds.check_outcome(outcome)
        n_steps = None if steps is None else bounds.check_steps(steps)
        used = bounds.check_ids(used_ids)
        models = CallModels(self.models, ctx)
        if n_steps is None:
            n_steps = self._typical_steps()
            models.notes.append(f"steps not given: counted as {n_steps}, the middle of the "
                                "step counts seen so far (T_i of the utility, Eq. 3)")
        result = models.progress.get("learned")
        if result is None:  # not stored in an earlier round of this call
            result = await self._learn(models, task, trajectory, success, n_steps, used, client)
            models.progress["learned"] = result
        due = self.maintain_every and self.shared.since_maintain >= self.maintain_every
        if due and not models.progress.get("maintained"):
            result["maintenance"] = await self._maintenance(models, "schedule")
        result["notes"] = models.notes
        return result

    def _typical_steps(self) -> int:
        """T_i for a learn whose client gave no step count (our addition): the middle of
        [T_min, T_max] so far, 1 for the first; 0 would claim a perfectly efficient
        episode and stretch the efficiency term (Eq. 3) of everything else."""
        with self.shared.read() as memory:
            t = memory.t_range
        return 1 if t is None else int(round((t[0] + t[1]) / 2))

    async def _learn(self, models: CallModels, task: str, trajectory: str, success: bool,
                     steps: int, used: list[str], client: str) -> dict[str, Any]:
        recalled = self._recalled_plan(task)
        if recalled is None:
            plan, extraction = await models.decompose_and_extract(task, trajectory, success)
        else:
            plan, extraction = recalled, await models.extract(task, trajectory, success)
        if isinstance(extraction, LLMError):
            raise OperationError(f"learn: {extraction}; nothing was stored (call learn again)")
        if extraction is None:
            skills, lesson = [], clip_middle(trajectory, bounds.LIMITS.lesson_chars)
        else:
            skills, lesson = list(extraction.skills), extraction.lesson
        meta = {"source": "mcp", "model": models.kind, **({"client": client} if client else {})}
        item = LearnItem(task, plan, skills, lesson, success, steps, 0, used, meta)
        out = await anyio.to_thread.run_sync(self.shared.learn, item)
        update = out["update"]
        return {
            "edge": out["edge"],
            "plan": plan,
            "plan_from": "recall" if recalled is not None else (
                "decomposition" if plan else "none"),
            "skills": [{"id": p["node"], "name": p["name"], "polarity": s.polarity,
                        "dedup": p["dedup"]} for s, p in zip(skills, update["skills"])],
            "lesson": lesson,
            "credited_ids": len(used),
            "model": models.kind,
        }

    # ------------------------------------------------------------------ maintain
    async def maintain(self, ctx: Any = None) -> dict[str, Any]:
        """One maintenance cycle now: pruning and merging (Eqs. 11-14)."""
        models = CallModels(self.models, ctx)
        report = models.progress.get("maintenance")
        if report is None:
            report = await self._maintenance(models, "call")
        report["notes"] = models.notes
        return report

    async def _maintenance(self, models: CallModels, reason: str) -> dict[str, Any]:
        if not self._maintaining.acquire(blocking=False):
            return {"ran": False, "why": "a cycle is already running in this server"}
        try:
            snap, base = await anyio.to_thread.run_sync(self.shared.snapshot)
            collector = _Collector()
            merge = models.kind != "none"
            planned = await anyio.to_thread.run_sync(
                lambda: core_maintain(snap, collector if merge else None, merge=merge))
            prune = [p["id"] for p in planned.pruned]
            merged = await models.merge(collector.calls) if merge else None
            if not merge:
                models.skip("merge")
            items: list[MergeItem] = []
            for row, got in zip(planned.merged, merged or []):
                if isinstance(got, LLMError):
                    models.notes.append(f"merge of {row['a']} and {row['b']} failed ({got}); "
                                        "both kept")
                    continue
                meta = {"merged_from": [row["a_name"], row["b_name"]],
                        "merged_by": models.kind}
                items.append(MergeItem(row["a"], row["b"], Skill(
                    got.name, got.content, row["polarity"], meta), row["cross_polarity"]))
            applied = await anyio.to_thread.run_sync(
                self.shared.commit_maintenance, base, prune, items)
        finally:
            self._maintaining.release()
        if applied is None:
            return {"ran": False, "why": "another process committed a cycle meanwhile; this "
                    "plan was dropped"}
        report = {"ran": True, "reason": reason, **applied,
                  "candidates": len(planned.merged)}
        models.progress["maintenance"] = report
        models.progress["maintained"] = True
        return report

    # ------------------------------------------------------------------ inspection
    def skill(self, id: Any) -> dict[str, Any]:
        """A node (skill or subtask) or hyperedge, with its Eq. 3 stats; a skill also
        lists the hyperedges (trajectories) it belongs to."""
        id = bounds.check_id(id)
        with self.shared.read() as memory:
            try:
                if id.startswith("e"):
                    v = memory.edge(id)
                    return {"kind": "hyperedge", **_plain(v)}
                v = memory.node(id)
                out = {**_plain(v)}
                if v.kind == "skill":
                    out["hyperedges"] = [
                        {"id": e, "task": clip_middle(memory.edge(e).task, 300),
                         "success": memory.edge(e).success}
                        for e in memory.shared_edges(id, id)[-20:]]
                return out
            except KeyError as exc:
                raise OperationError(f"skill: {exc.args[0]}") from None

    def stats(self) -> dict[str, Any]:
        """Sizes, T range, the journal's state, the model path and the schedule."""
        with self.shared.read() as memory:
            sizes, t = memory.stats(), memory.t_range
        return {"sizes": sizes, "t_range": list(t) if t else None,
                **self.shared.info(), "model": self.models.describe(),
                "maintain_every": self.maintain_every}

    def skills_list(self, limit: int = SKILL_LIST) -> list[dict[str, Any]]:
        """The live skill nodes of highest utility (Eq. 3), at most `limit`, highest
        first (ties: more retrievals, then older)."""
        with self.shared.read() as memory:
            views = memory.nodes(memory.node_ids(kind="skill"))
        views.sort(key=lambda v: (-v.gamma, -v.nu, int(v.id[1:])))
        return [{"id": v.id, "name": v.name, "polarity": v.polarity, "gamma": round(v.gamma, 4),
                 "nu": v.nu, "sigma": v.sigma, "content": v.content} for v in views[:limit]]

    def health(self) -> dict[str, Any]:
        """The run loop's health figures (runner/health.py) over the records this
        process applied since it started, and the memory's own figures."""
        figures = memory_health(self.shared.history)
        with self.shared.read() as memory:
            ids, gamma, nu = memory.node_stats()
            cfg = memory.config
            low = int(((nu >= cfg.n_min) & (gamma < cfg.tau_prune)).sum())
            sizes = memory.stats()
        return {"since_start": {k: (None if v != v else v) for k, v in figures.items()},
                "learned_since_start": sum("update" in r for r in self.shared.history),
                "sizes": sizes, "low_utility_nodes": low, "nodes": len(ids),
                **self.shared.info()}


def _plain(view: Any) -> dict[str, Any]:
    """A NodeView / EdgeView as JSON-ready data."""
    out = asdict(view)
    for key in ("gamma", "sigma", "mean_steps"):
        if key in out:
            out[key] = round(float(out[key]), 6)
    return out
