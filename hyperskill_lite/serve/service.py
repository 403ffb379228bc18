"""What each MCP tool does, over a served folder: recall, learn, forget, maintain,
explain, skill, stats, and the data of the two resources (the skill list and the
memory's health).

The operations are the ones the toolkit's own agent loop runs (methods.HyperSkillMemory:
``begin`` = decomposition + retrieval, ``end`` = extraction + update), split at the
client's agent: ``recall`` decomposes the task (P_0) and retrieves (Eqs. 4-9), keeps
what clears the relevance floor (relevance.py) and returns it as framed context with
the ids it used and a handle; the client's agent works; ``learn`` extracts skills and
lesson from its trajectory, adds the hyperedge (§3.4) and credits the ids the client
used (Eq. 3 stats). The P_0 of a recall becomes the subtask nodes of the learn of the
same task (through its handle, or a bounded table by task text), as in the paper; a
learn whose recall this process did not serve decomposes anew.

An agent that knows what it learned hands it over: ``learn(plan=..., skills=...)``
takes its subtask steps and its skills (bounded and checked, bounds.py) in place of the
decomposition and the extraction, and records them as the agent's (``source: "agent"``
in the skill's and the hyperedge's meta). Without a memory model that is the only way
skills enter the memory.

``forget`` removes skills and trajectories for good (forget.py); ``scope`` keeps
memories apart inside one folder (scopes.py), and a caller bound to a scope (a bearer
token, httpd.py) reaches that scope only.

Where we differ from the toolkit's run loop (our additions): an extraction that fails
stores nothing and credits nothing (the client may call learn again; crediting first
would count that retry twice); a learn without a model and without the agent's skills
stores the trajectory on the trajectory path alone (models.py); a learn without a step
count is counted as the middle of the step counts seen so far (`_typical_steps`); the
relevance floor, forget and scopes.

Not here: MCP itself (httpd.py), the files (shared.py), which model (models.py), the
maintenance cycle (cycle.py).
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass
from typing import Any

import anyio.to_thread

from hyperskill_lite.agent.framing import defuse
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.text import clip_middle
from hyperskill_lite.runner.health import memory_health
from hyperskill_lite.serve import bounds
from hyperskill_lite.serve.cycle import Cycles
from hyperskill_lite.serve.models import CallModels, ModelConfig
from hyperskill_lite.serve.records import LearnItem
from hyperskill_lite.serve.relevance import Relevant, default_floor, keep_relevant
from hyperskill_lite.serve.scopes import MAX_SCOPES, Handles, Recalled, Scopes
from hyperskill_lite.serve.shared import SharedMemory

__all__ = ["MemoryService", "OperationError", "Caller", "ANYONE"]

PLAN_CACHE = 1024
"""Recall plans kept by task text for the learn of the same task (the oldest dropped)."""
SKILL_LIST = 1000
"""Skills the skill-list resource shows (those of highest utility)."""


class OperationError(ValueError):
    """A tool call that could not be done (the message says why and what to do)."""


@dataclass(frozen=True)
class Caller:
    """Who calls: `name` (a bearer token's label, "" without one) and the `scope` a
    token is bound to (None: any scope)."""

    name: str = ""
    scope: str | None = None


ANYONE = Caller()


def _task_key(scope: str | None, task: str) -> str:
    return hashlib.sha256(f"{scope}\x00{task}".encode("utf-8", "replace")).hexdigest()


class MemoryService:
    """The tools' operations (module docstring).

    Parameters
    ----------
    shared
        The served folder's memory, opened for writing; scopes live beside it.
    models
        Which model the memory's operations use.
    maintain_every
        Learned tasks between maintenance cycles (per scope); 0 turns the schedule off.
    k
        Default retrieval budget for k_u = k_e = k_s (None: the memory's config).
    min_score
        Default relevance floor (None: the one measured for the memory's encoder).
    max_scopes
        Scopes the folder may hold.
    """

    def __init__(self, shared: SharedMemory, models: ModelConfig, maintain_every: int = 10,
                 k: int | None = None, *, min_score: float | None = None,
                 max_scopes: int = MAX_SCOPES) -> None:
        self.shared, self.models = shared, models
        self.scopes = Scopes(shared, max_scopes)
        self.maintain_every = int(maintain_every)
        self.k = k
        encoder = getattr(shared.memory.encoder, "name", "")
        self.floor = default_floor(encoder) if min_score is None else float(min_score)
        self.handles = Handles()
        self.cycles = Cycles()
        self._plans: OrderedDict[str, list[str]] = OrderedDict()
        self._plans_lock = threading.Lock()

    # ------------------------------------------------------------------ scopes
    def _scope(self, requested: Any, caller: Caller) -> str | None:
        scope = bounds.check_scope(requested)
        if caller.scope is not None:
            if scope not in (None, caller.scope):
                raise OperationError(f"scope {scope!r}: this client's token is bound to scope "
                                     f"{caller.scope!r} and may use no other")
            scope = caller.scope
        return scope

    async def _memory(self, scope: str | None, create: bool = True) -> SharedMemory | None:
        """The memory of `scope`; made when missing if `create`, else None then."""
        return self.shared if scope is None else await anyio.to_thread.run_sync(
            self.scopes.get, scope, create)

    def _existing(self, scope: str | None) -> SharedMemory:
        shared = self.scopes.get(scope, create=False)
        if shared is None:
            raise OperationError(f"scope {scope!r} holds nothing yet (a learn in it makes it)")
        return shared

    def _source(self, scope: str | None) -> str:
        name = f"hyperskill memory {self.shared.path.name}"
        return name if scope is None else f"{name}, scope {scope}"

    # ------------------------------------------------------------------ recall
    def _remember_plan(self, scope: str | None, task: str, plan: list[str]) -> None:
        key = _task_key(scope, task)
        with self._plans_lock:
            self._plans[key] = list(plan)
            self._plans.move_to_end(key)
            while len(self._plans) > PLAN_CACHE:
                self._plans.popitem(last=False)

    def _recalled_plan(self, scope: str | None, task: str) -> list[str] | None:
        with self._plans_lock:
            plan = self._plans.get(_task_key(scope, task))
        return None if plan is None else list(plan)

    def _retrieve(self, shared: SharedMemory, task: str, plan: list[str], k: int | None
                  ) -> Any:
        budget = k if k is not None else self.k
        ks = {} if budget is None else {"k_u": budget, "k_e": budget, "k_s": budget}
        with shared.read() as memory:
            return retrieve(memory, task, plan, **ks)

    def _relevant(self, shared: SharedMemory, task: str, plan: list[str], k: int | None,
                  floor: float, source: str) -> Any:
        r = self._retrieve(shared, task, plan, k)
        with shared.read() as memory:
            return keep_relevant(memory, r, floor, source)

    async def recall(self, task: Any, k: Any = None, ctx: Any = None, *, scope: Any = None,
                     min_score: Any = None, caller: Caller = ANYONE) -> dict[str, Any]:
        """Decompose `task` (P_0) and retrieve (Eqs. 4-9); keep what clears the floor
        (relevance.py): the framed context, the skills, the ids used (R_u + S_q + E*,
        credited by the learn that passes them back) and a handle for that learn."""
        task = bounds.check_task(task)
        k = None if k is None else bounds.check_k(k)
        floor = self.floor if min_score is None else bounds.check_min_score(min_score)
        scope = self._scope(scope, caller)
        shared = await self._memory(scope, create=False)
        models = CallModels(self.models, ctx)
        plan = await models.decompose(task)
        if plan:
            self._remember_plan(scope, task, plan)
        rel = Relevant() if shared is None else await anyio.to_thread.run_sync(
            self._relevant, shared, task, plan, k, floor, self._source(scope))
        notes = models.notes
        if rel.best is None:
            notes.append("the memory holds no trajectory yet" + (f" in scope {scope!r}"
                                                                if scope else ""))
        elif not rel.edges:
            notes.append(f"nothing relevant: the closest trajectory scores {rel.best:.3f}, "
                         f"under the relevance floor {floor:.2f}; no skill returned "
                         "(min_score sets another floor)")
        elif rel.dropped_edges:
            notes.append(f"{rel.dropped_edges} trajectory(ies) under the relevance floor "
                         f"{floor:.2f} left out, with {rel.dropped_skills} skill(s) only they "
                         "held")
        handle = self.handles.new(Recalled(scope, task, list(plan), list(rel.used_ids),
                                           caller.name))
        return {"context": rel.context, "skills": rel.skills,
                "trajectories": rel.trajectories, "used_ids": rel.used_ids,
                "handle": handle, "plan": plan, "scope": scope,
                "relevance": {"best": None if rel.best is None else round(rel.best, 4),
                              "floor": floor},
                "model": models.kind, "notes": notes}

    async def explain(self, task: Any, k: Any = None, ctx: Any = None, *, scope: Any = None,
                      caller: Caller = ANYONE) -> dict[str, Any]:
        """How a recall of `task` comes about: both paths, E*, each skill's kappa and
        cosine (`Retrieval.explain`), before the floor; nothing is credited."""
        task = bounds.check_task(task)
        k = None if k is None else bounds.check_k(k)
        scope = self._scope(scope, caller)
        shared = await anyio.to_thread.run_sync(self._existing, scope)
        models = CallModels(self.models, ctx)
        plan = await models.decompose(task)
        r = await anyio.to_thread.run_sync(self._retrieve, shared, task, plan, k)
        return {"explanation": defuse(r.explain()), "used_ids": r.retrieved_ids,
                "edge_scores": {e: round(float(s), 4) for e, s in r.edge_scores.items()},
                "floor": self.floor, "scope": scope, "model": models.kind,
                "notes": models.notes}

    # ------------------------------------------------------------------ learn
    async def learn(self, task: Any, trajectory: Any, outcome: Any, steps: Any = None,
                    used_ids: Any = None, ctx: Any = None, client: str = "", *,
                    handle: Any = None, plan: Any = None, skills: Any = None,
                    lesson: Any = None, scope: Any = None, caller: Caller = ANYONE
                    ) -> dict[str, Any]:
        """Store one finished task as a hyperedge over its subtask steps and skills
        (§3.4), crediting the ids its recall used (Eq. 3 stats). The steps and skills
        are the agent's (`plan`, `skills`) when given, else the memory model's
        (decomposition, extraction). Runs a maintenance cycle when the schedule says
        so."""
        trajectory = bounds.check_trajectory(trajectory)
        success = bounds.check_outcome(outcome)
        n_steps = None if steps is None else bounds.check_steps(steps)
        recalled = self._handle(bounds.check_handle(handle), caller)
        requested = bounds.check_scope(scope)
        if recalled is not None:
            if requested not in (None, recalled.scope):
                raise OperationError(f"learn: the handle belongs to scope {recalled.scope!r}, "
                                     f"not {requested!r}")
            requested = recalled.scope
        scope = self._scope(requested, caller)
        if task is None:
            if recalled is None:
                raise OperationError("learn needs the task (or the handle its recall returned)")
            task = recalled.task
        task = bounds.check_task(task)
        used = (bounds.check_ids(used_ids) if used_ids is not None
                else list(recalled.used_ids) if recalled is not None else [])
        given = (bounds.check_plan(plan), bounds.check_skills(skills, success),
                 bounds.check_lesson(lesson))
        shared = await self._memory(scope)
        models = CallModels(self.models, ctx)
        if n_steps is None:
            n_steps = self._typical_steps(shared)
            models.notes.append(f"steps not given: counted as {n_steps}, the middle of the "
                                "step counts seen so far (T_i of the utility, Eq. 3)")
        result = models.progress.get("learned")
        if result is None:  # not stored in an earlier round of this call
            if recalled is not None and recalled.task == task and recalled.plan:
                from_recall: list[str] | None = recalled.plan
            else:
                from_recall = self._recalled_plan(scope, task)
            result = await self._learn(shared, models, task, trajectory, success, n_steps,
                                       used, client, given, from_recall)
            result["scope"] = scope
            models.progress["learned"] = result
        due = self.maintain_every and shared.since_maintain >= self.maintain_every
        if due and not models.progress.get("maintained"):
            result["maintenance"] = await self.cycles.run(shared, models, "schedule")
        result["notes"] = models.notes
        return result

    def _handle(self, handle: str | None, caller: Caller) -> Recalled | None:
        if handle is None:
            return None
        recalled = self.handles.get(handle)
        if recalled is None or recalled.caller != caller.name:
            raise OperationError(f"learn: unknown handle {handle} (a handle lives in the server "
                                 f"process whose recall made it, the newest "
                                 f"{self.handles.size}); pass task and used_ids instead")
        return recalled

    @staticmethod
    def _typical_steps(shared: SharedMemory) -> int:
        """T_i for a learn whose client gave no step count (our addition): the middle of
        [T_min, T_max] so far, 1 for the first; 0 would claim a perfectly efficient
        episode and stretch the efficiency term (Eq. 3) of everything else."""
        with shared.read() as memory:
            t = memory.t_range
        return 1 if t is None else int(round((t[0] + t[1]) / 2))

    async def _learn(self, shared: SharedMemory, models: CallModels, task: str,
                     trajectory: str, success: bool, steps: int, used: list[str],
                     client: str, given: tuple[Any, Any, Any],
                     from_recall: list[str] | None) -> dict[str, Any]:
        plan, skills, lesson = given
        plan_from = "agent" if plan is not None else "recall" if from_recall else None
        plan = plan if plan is not None else from_recall
        extraction: Any = None
        if plan is None and skills is None:
            plan, extraction = await models.decompose_and_extract(task, trajectory, success)
        elif plan is None:
            plan = await models.decompose(task)
        elif skills is None:
            extraction = await models.extract(task, trajectory, success)
        plan_from = plan_from or ("decomposition" if plan else "none")
        if isinstance(extraction, LLMError):
            raise OperationError(f"learn: {extraction}; nothing was stored (call learn again, "
                                 "or pass your own skills)")
        if skills is not None:
            skills_from = "agent"
            for s in skills:
                s.meta.update({"client": client} if client else {})
        elif extraction is not None:
            skills_from, skills = models.kind, list(extraction.skills)
        else:
            skills_from, skills = "none", []
        if lesson is None:
            lesson = (extraction.lesson if extraction is not None and skills_from != "agent"
                      else clip_middle(trajectory, bounds.LIMITS.lesson_chars))
        meta = {"source": "mcp", "model": models.kind, "plan_from": plan_from,
                "skills_from": skills_from, **({"client": client} if client else {})}
        item = LearnItem(task, list(plan), skills, lesson, success, steps, 0, used, meta)
        out = await anyio.to_thread.run_sync(shared.learn, item)
        update = out["update"]
        return {
            "edge": out["edge"],
            "plan": list(plan),
            "plan_from": plan_from,
            "skills": [{"id": p["node"], "name": s.name, "polarity": s.polarity,
                        "dedup": p["dedup"], "source": skills_from}
                       for s, p in zip(skills, update["skills"])],
            "lesson": lesson,
            "credited_ids": len(used),
            "model": models.kind,
        }

    # ------------------------------------------------------------------ forget, maintain
    async def forget(self, ids: Any, *, scope: Any = None, caller: Caller = ANYONE
                     ) -> dict[str, Any]:
        """Remove skills and trajectories for good (forget.py), as one journal record
        every server on the folder applies, then a checkpoint."""
        ids = bounds.check_forget_ids(ids)
        scope = self._scope(scope, caller)
        shared = await anyio.to_thread.run_sync(self._existing, scope)
        out = await anyio.to_thread.run_sync(shared.forget, ids)
        notes = []
        if out["missing"]:
            notes.append(f"not in the memory (forgotten or pruned already, or never there): "
                         f"{', '.join(out['missing'][:20])}")
        if not out["checkpointed"]:
            notes.append("the folder was being saved by another program: the texts leave it "
                         "at the next checkpoint (the journal records the forget already)")
        return {"removed": out["removed"], "missing": out["missing"],
                "sizes": out["sizes_after"], "scope": scope, "notes": notes}

    async def maintain(self, ctx: Any = None, *, scope: Any = None, caller: Caller = ANYONE
                       ) -> dict[str, Any]:
        """One maintenance cycle now: pruning and merging (Eqs. 11-14)."""
        scope = self._scope(scope, caller)
        shared = await anyio.to_thread.run_sync(self._existing, scope)
        models = CallModels(self.models, ctx)
        report = models.progress.get("maintenance")
        if report is None:
            report = await self.cycles.run(shared, models, "call")
        return {**report, "scope": scope, "notes": models.notes}

    # ------------------------------------------------------------------ inspection
    def skill(self, id: Any, scope: Any = None, caller: Caller = ANYONE) -> dict[str, Any]:
        """A node (skill or subtask) or hyperedge, with its Eq. 3 stats; a skill also
        lists the hyperedges (trajectories) it belongs to. Stored texts come back with
        tokens and role lines defused."""
        id = bounds.check_id(id)
        scope = self._scope(scope, caller)
        shared = self._existing(scope)
        with shared.read() as memory:
            try:
                if id.startswith("e"):
                    return {"kind": "hyperedge", "scope": scope, **_plain(memory.edge(id))}
                v = memory.node(id)
                out = {**_plain(v), "scope": scope}
                if v.kind == "skill":
                    out["hyperedges"] = [
                        {"id": e, "task": defuse(clip_middle(memory.edge(e).task, 300)),
                         "success": memory.edge(e).success}
                        for e in memory.shared_edges(id, id)[-20:]]
                return out
            except KeyError as exc:
                where = f" in scope {scope!r}" if scope else ""
                raise OperationError(f"skill: {exc.args[0]}{where}") from None

    def stats(self, scope: Any = None, caller: Caller = ANYONE) -> dict[str, Any]:
        """Sizes, T range, the journal's state, the model path, the schedule, the floor
        and the folder's scopes (a caller bound to a scope sees only its own)."""
        scope = self._scope(scope, caller)
        shared = self._existing(scope)
        with shared.read() as memory:
            sizes, t = memory.stats(), memory.t_range
        scopes = self.scopes.names() if caller.scope is None else [caller.scope]
        return {"sizes": sizes, "t_range": list(t) if t else None, **shared.info(),
                "model": self.models.describe(), "maintain_every": self.maintain_every,
                "relevance_floor": self.floor, "scope": scope, "scopes": scopes}

    def skills_list(self, scope: str | None = None, limit: int = SKILL_LIST
                    ) -> list[dict[str, Any]]:
        """The live skill nodes of `scope` of highest utility (Eq. 3), at most `limit`,
        highest first (ties: more retrievals, then older)."""
        shared = self.scopes.get(scope, create=False)
        if shared is None:
            return []
        with shared.read() as memory:
            views = memory.nodes(memory.node_ids(kind="skill"))
        views.sort(key=lambda v: (-v.gamma, -v.nu, int(v.id[1:])))
        return [{"id": v.id, "name": defuse(v.name), "polarity": v.polarity,
                 "gamma": round(v.gamma, 4), "nu": v.nu, "sigma": v.sigma,
                 "content": defuse(v.content)} for v in views[:limit]]

    def health(self, scope: str | None = None) -> dict[str, Any]:
        """The run loop's health figures (runner/health.py) over the records this
        process applied since it started, and the memory's own figures."""
        shared = self._existing(scope)
        figures = memory_health(shared.history)
        with shared.read() as memory:
            ids, gamma, nu = memory.node_stats()
            cfg = memory.config
            low = int(((nu >= cfg.n_min) & (gamma < cfg.tau_prune)).sum())
            sizes = memory.stats()
        return {"since_start": {k: (None if v != v else v) for k, v in figures.items()},
                "learned_since_start": sum("update" in r for r in shared.history),
                "sizes": sizes, "low_utility_nodes": low, "nodes": len(ids),
                "scope": scope, **shared.info()}

    def close(self) -> None:
        """Checkpoint and close every memory this service opened."""
        self.scopes.close()


def _plain(view: Any) -> dict[str, Any]:
    """A NodeView / EdgeView as JSON-ready data, its texts defused."""
    out = asdict(view)
    for key in ("gamma", "sigma", "mean_steps"):
        if key in out:
            out[key] = round(float(out[key]), 6)
    for key in ("name", "content", "task", "lesson"):
        if isinstance(out.get(key), str):
            out[key] = defuse(out[key])
    return out
