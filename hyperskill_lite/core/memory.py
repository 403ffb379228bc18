"""The hypergraph skill memory G = (V, E) and its update (paper §3.2 and §3.4).

Nodes are subtask steps ("u" ids) and skills ("s" ids; polarity "success" for strategies,
"failure" for mistakes); each hyperedge ("e" ids) is one trajectory over the subtask
nodes of its plan and the skills extracted from it, with its task, lesson, outcome,
steps and calls. Every element carries the stats of Eq. 3 (sigma successes, nu
retrievals, running mean steps T_bar); gamma is derived from them and the global
T_min / T_max on every access, never stored.

Storage is columnar per kind (store.py): embeddings in preallocated float32 arrays that
double when full, removed rows tombstoned by an `alive` mask; membership as (node row,
edge row) pairs kept sorted by edge, from which a scipy.sparse incidence matrix is built
lazily and cached until the next change.

Retrieval, maintenance and files are functions over a memory, not methods of it, so the
modules depend one way (retrieval/, maintenance.py, io/ and views.py import this module;
it imports none of them): ``retrieve(memory, task, plan)``, ``maintain(memory,
merger)``, ``save_memory(memory, path)``, ``load_memory(path)``, ``nodes_frame(memory)``.

The snapshots `NodeView` / `EdgeView`, `POLARITIES` and the `Retrieved` protocol are
defined in elements.py; the maintenance-side reads and edits (`skill_incidence`,
`remove_nodes`, `merge_nodes`, ...) in edits.py and the vectorised public reads by row
(`columns`, `row_gammas`, `memberships`, `incidence`: what every reader outside core/
uses) in reads.py, both of which `HypergraphMemory` inherits.

Not here: retrieval (retrieval/), pruning and merging policy (maintenance.py), files
(io/), DataFrame / HyperNetX views (views.py), and any LLM call.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from numbers import Integral
from typing import Any

import numpy as np
import scipy.sparse as sp

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.edits import MemoryEdits
from hyperskill_lite.core.elements import POLARITIES, EdgeView, NodeView, Retrieved
from hyperskill_lite.core.embed import Encoder, default_encoder
from hyperskill_lite.core.reads import MemoryReads
from hyperskill_lite.core.records import Skill, skill_text
from hyperskill_lite.core.store import Incidence, Rows
from hyperskill_lite.core.utility import utility

__all__ = ["HypergraphMemory"]


class HypergraphMemory(MemoryEdits, MemoryReads):
    """HyperSkill's memory: subtask and skill nodes, trajectory hyperedges, Eq. 3 stats.

    >>> from hyperskill_lite.core.embed import HashingEncoder
    >>> mem = HypergraphMemory(HashingEncoder(dim=64))
    >>> e = mem.add_trajectory("Find the 2020 GDP of France", ["search the statistics office"],
    ...                        [Skill("Official Source First", "Prefer the statistics office.")],
    ...                        "Official tables beat news.", success=True, steps=4)
    >>> e, mem.edge(e).node_ids, mem.node("s1").gamma
    ('e1', ['u1', 's1'], 0.5)
    """

    def __init__(self, encoder: Encoder | None = None, config: HyperSkillConfig | None = None):
        self._encoder = encoder if encoder is not None else default_encoder()
        self._config = config if config is not None else HyperSkillConfig()
        d = int(self._encoder.dim)
        self._sub = Rows("u", d, ("content",), {})
        self._skl = Rows("s", d, ("name", "content"), {"polarity": np.int8})
        self._edg = Rows(
            "e", d, ("task", "lesson"), {"success": bool, "steps": np.int64, "calls": np.int64}
        )
        self._inc = {"subtask": Incidence(), "skill": Incidence()}
        self._t_min: float | None = None  # T_min over all episodes (Eq. 3)
        self._t_max: float | None = None
        self.last_update: dict[str, Any] = {}
        """What the last `add_trajectory` did: {"edge": id, "skills": one dict per
        extracted skill {"name", "node" (the node it went into), "dedup" (True when that
        node existed), "cosine", "cross_polarity" (True when that node's polarity differs
        from the skill's)}, "dedup": how many were deduplicated}; {} before any."""

    # ---------------------------------------------------------------- accessors
    @property
    def encoder(self) -> Encoder:
        return self._encoder

    @property
    def config(self) -> HyperSkillConfig:
        return self._config

    @property
    def t_range(self) -> tuple[float, float] | None:
        """(T_min, T_max) over all episodes added so far (Eq. 3), None before the first."""
        return None if self._t_min is None else (self._t_min, self._t_max)

    def _store(self, id: str) -> Rows:
        store = {"u": self._sub, "s": self._skl, "e": self._edg}.get(id[:1] if id else "")
        if store is None or id not in store.row:
            raise KeyError(f"no node or hyperedge with id {id!r} in this memory")
        return store

    def _incidence(self, kind: str) -> sp.csc_matrix:
        """B_u or B_s over all rows (tombstoned rows are empty): (n_rows, n_edges) CSC."""
        store = self._sub if kind == "subtask" else self._skl
        return self._inc[kind].csc(store.n, self._edg.n)

    def _gamma(self, store: Rows, rows: np.ndarray) -> np.ndarray:
        cfg = self._config
        return utility(
            store.sigma[rows],
            store.nu[rows],
            store.tbar[rows],
            self._t_min,
            self._t_max,
            beta=cfg.beta,
            prior=cfg.prior,
        )

    def _members(self, j: int) -> list[str]:
        out: list[str] = []
        for kind, store in (("subtask", self._sub), ("skill", self._skl)):
            B = self._incidence(kind)
            out += [store.ids[r] for r in B.indices[B.indptr[j] : B.indptr[j + 1]]]
        return out

    def node(self, id: str) -> NodeView:
        """The node `id` (KeyError naming it if absent or a hyperedge id)."""
        return self.nodes([id])[0]

    def nodes(self, ids: Sequence[str]) -> list[NodeView]:
        """Snapshots of many nodes, gamma computed once per kind (KeyError naming the
        first id absent or a hyperedge id)."""
        ids = list(ids)
        out: list[NodeView | None] = [None] * len(ids)
        for store, pos, rows in self._groups(ids):
            if store is self._edg:
                raise KeyError(f"{ids[pos[0]]!r} is a hyperedge id, not a node id")
            skill = store is self._skl
            gamma = self._gamma(store, rows).tolist()
            sigma, nu, tbar = store.sigma[rows].tolist(), store.nu[rows].tolist(), store.tbar[rows]
            for k, (i, r) in enumerate(zip(pos.tolist(), rows.tolist())):
                out[i] = NodeView(
                    id=ids[i],
                    kind="skill" if skill else "subtask",
                    polarity=POLARITIES[store.polarity[r]] if skill else None,
                    name=store.text["name"][r] if skill else "",
                    content=store.text["content"][r],
                    sigma=sigma[k],
                    nu=nu[k],
                    mean_steps=float(tbar[k]),
                    gamma=gamma[k],
                    meta=copy.deepcopy(store.meta[r]),
                )
        return out  # type: ignore[return-value]

    def edge(self, id: str) -> EdgeView:
        """The hyperedge `id` (KeyError naming it if absent or a node id)."""
        store = self._store(id)
        if store is not self._edg:
            raise KeyError(f"{id!r} is a node id, not a hyperedge id")
        r = store.row[id]
        return EdgeView(
            id=id,
            node_ids=self._members(r),
            task=store.text["task"][r],
            lesson=store.text["lesson"][r],
            success=bool(store.success[r]),
            steps=int(store.steps[r]),
            calls=int(store.calls[r]),
            sigma=float(store.sigma[r]),
            nu=int(store.nu[r]),
            mean_steps=float(store.tbar[r]),
            gamma=float(self._gamma(store, np.array([r]))[0]),
            meta=copy.deepcopy(store.meta[r]),
        )

    def node_ids(self, kind: str | None = None, polarity: str | None = None) -> list[str]:
        """Ids of live nodes: subtask ids then skill ids, each in insertion order.
        `kind` "subtask" | "skill"; `polarity` "success" | "failure" selects skills."""
        if kind not in (None, "subtask", "skill"):
            raise ValueError(f"node_ids: kind must be 'subtask', 'skill' or None, got {kind!r}")
        if polarity not in (None, *POLARITIES):
            raise ValueError(
                f"node_ids: polarity must be 'success', 'failure' or None, got {polarity!r}"
            )
        out: list[str] = []
        if kind in (None, "subtask") and polarity is None:
            out += map(self._sub.ids.__getitem__, self._sub.live().tolist())
        if kind in (None, "skill"):
            rows = self._skl.live()
            if polarity is not None:
                rows = rows[self._skl.polarity[rows] == POLARITIES.index(polarity)]
            out += map(self._skl.ids.__getitem__, rows.tolist())
        return out

    def node_stats(self) -> tuple[list[str], np.ndarray, np.ndarray]:
        """Every live node at once, in `node_ids()` order: (ids, gamma (n,) float64 by
        Eq. 3, nu (n,) int64). One vectorised read per kind and no id lookups: what
        pruning (Eq. 11) reads."""
        ids: list[str] = []
        gamma, nu = [], []
        for st in (self._sub, self._skl):
            rows = st.live()
            ids += map(st.ids.__getitem__, rows.tolist())
            gamma.append(self._gamma(st, rows))
            nu.append(st.nu[rows])
        return ids, np.concatenate(gamma), np.concatenate(nu)

    def edge_ids(self) -> list[str]:
        """Ids of all hyperedges, in insertion order."""
        return list(self._edg.ids)

    def edge_ids_where(self, key: str, value: Any) -> list[str]:
        """Ids of the hyperedges whose meta has ``meta[key] == value``, in insertion order
        (e.g. the hyperedges one task id wrote, for own-task exclusion). One pass over
        the meta column, no copies."""
        meta = self._edg.meta
        return [self._edg.ids[j] for j in range(self._edg.n) if meta[j].get(key) == value]

    def embedding(self, id: str) -> np.ndarray:
        """phi of a node's text or a hyperedge's task + "\\n" + lesson: (d,) float32 copy."""
        store = self._store(id)
        return store.emb[store.row[id]].copy()

    def stats(self) -> dict[str, int]:
        """Sizes: subtask/skill nodes, success/failure skills, hyperedges, incidences."""
        pol = self._skl.polarity[self._skl.live()]
        return {
            "subtask_nodes": len(self._sub.row),
            "skill_nodes": len(self._skl.row),
            "success_skills": int(np.sum(pol == 0)),
            "failure_skills": int(np.sum(pol == 1)),
            "hyperedges": len(self._edg.row),
            "incidences": self._inc["subtask"].n + self._inc["skill"].n,
        }

    def __repr__(self) -> str:
        s = self.stats()
        return (
            f"HypergraphMemory(subtasks={s['subtask_nodes']}, skills={s['skill_nodes']}, "
            f"hyperedges={s['hyperedges']}, encoder={getattr(self._encoder, 'name', '?')})"
        )

    # ---------------------------------------------------------------- update (§3.4)
    def add_trajectory(
        self,
        task: str,
        plan: Sequence[str],
        skills: Sequence[Skill],
        lesson: str,
        success: bool,
        steps: int,
        calls: int = 0,
        retrieval: Retrieved | None = None,
        meta: dict[str, Any] | None = None,
    ) -> str:
        """Add one finished trajectory (paper §3.4 "Execution and memory update").

        One new subtask node per plan step (never deduplicated: a plan step is a place
        in one task's decomposition, and merging steps would corrupt it, §3.5); each
        skill goes into its nearest live skill node when cosine >= delta_dedup (that node
        keeps its name, content and meta; earlier skills of this call count), else a new
        node. "Nearest" is over all skill nodes (``config.dedup_scope="all"``, the
        paper's "all existing skill nodes") or over those of the skill's own polarity
        ("same_polarity"). When a new strategy lands on an existing mistake, or the
        reverse, the existing node keeps its polarity: it is the node whose nu, sigma and
        hyperedges were earned as what it is, and the new text, by delta_dedup, says the
        same thing; the placement is reported in ``last_update`` ("cross_polarity").
        One hyperedge over them with embedding phi(task + "\\n" + lesson) and `meta`.
        Then for every element `retrieval` used (R_u, S_q, E*) still present: nu += 1,
        sigma += success, T_bar running mean of steps (Eq. 3 inputs); T_min / T_max
        include this episode. Returns the new hyperedge id.
        """
        if not isinstance(task, str) or not isinstance(lesson, str):
            raise TypeError("add_trajectory: task and lesson must be str")
        if isinstance(plan, str) or not all(isinstance(p, str) for p in plan):
            raise TypeError("add_trajectory: plan must be a list of str (one per subtask step)")
        for s in skills:
            if not isinstance(s, Skill):
                raise TypeError(
                    f"add_trajectory: skills must be Skill objects, got {type(s).__name__}"
                )
            if s.polarity not in POLARITIES:
                raise ValueError(f"add_trajectory: skill {s.name!r} has polarity {s.polarity!r}")
        if success not in (True, False):
            raise TypeError(f"add_trajectory: success must be a bool, got {success!r}")
        for name, v in (("steps", steps), ("calls", calls)):
            if not isinstance(v, Integral) or isinstance(v, bool) or v < 0:
                raise ValueError(f"add_trajectory: {name} must be an int >= 0, got {v!r}")
        plan, skills = list(plan), list(skills)
        vecs = self._encoder.encode(
            [f"{task}\n{lesson}", *plan, *(skill_text(s.name, s.content) for s in skills)]
        )
        t = self._episode_steps(steps)
        if retrieval is not None:
            self._record(retrieval.retrieved_ids, bool(success), t)

        u_rows = [self._sub.add(v, {}, content=p) for p, v in zip(plan, vecs[1 : 1 + len(plan)])]
        s_rows, placed = self._place_skills(skills, vecs[1 + len(plan) :])
        e = self._edg.add(
            vecs[0],
            copy.deepcopy(meta or {}),
            task=task,
            lesson=lesson,
            success=bool(success),
            steps=int(steps),
            calls=int(calls),
        )
        self._inc["subtask"].extend(u_rows, e)
        self._inc["skill"].extend(s_rows, e)
        self.last_update = {"edge": self._edg.ids[e], "skills": placed,
                            "dedup": sum(p["dedup"] for p in placed)}
        return self._edg.ids[e]

    def record_use(self, retrieval: Any, success: bool, steps: int,
                   steps_observed: bool = True) -> int:
        """The stats update of a finished episode without its hyperedge, for when its
        extraction failed: every element `retrieval` used (R_u, S_q, E*) still present
        gets nu += 1, sigma += success, the running mean T_bar (Eq. 3 inputs), and T_min /
        T_max include the episode, exactly as `add_trajectory` would have done. Returns
        how many elements were updated.

        ``steps_observed=False`` is for an episode that errored before its first step (an
        API failure: its T_i = 0 says nothing about efficiency). It then enters neither
        T_min / T_max nor any T_bar (each element's T_bar stays its mean: the missing
        step count is imputed as that mean), while nu and sigma still count the retrieval
        and the failed outcome. Our addition: the paper has no errored episodes."""
        if success not in (True, False):
            raise TypeError(f"record_use: success must be a bool, got {success!r}")
        if not isinstance(steps, Integral) or isinstance(steps, bool) or steps < 0:
            raise ValueError(f"record_use: steps must be an int >= 0, got {steps!r}")
        t = self._episode_steps(steps) if steps_observed else None
        return self._record(retrieval.retrieved_ids, bool(success), t)

    def _place_skills(
        self, skills: Sequence[Skill], vecs: np.ndarray
    ) -> tuple[list[int], list[dict[str, Any]]]:
        """Dedup at insertion (§3.4): each skill into its nearest live skill node when
        cosine >= delta_dedup (``_nearest_skill``; earlier skills of this call count), else
        a new node. Returns (the distinct skill rows, in order; one ``last_update["skills"]``
        entry per skill)."""
        s_rows: list[int] = []
        placed: list[dict[str, Any]] = []
        for s, v in zip(skills, vecs):
            code = POLARITIES.index(s.polarity)
            r, cos = self._nearest_skill(v, code)
            if r is None:
                r = self._skl.add(
                    v, copy.deepcopy(s.meta), name=s.name, content=s.content, polarity=code
                )
            placed.append({"name": s.name, "node": self._skl.ids[r], "dedup": cos is not None,
                           "cosine": None if cos is None else round(cos, 6),
                           "cross_polarity": bool(self._skl.polarity[r] != code)})
            if r not in s_rows:
                s_rows.append(r)
        return s_rows, placed

    def _episode_steps(self, steps: int) -> float:
        """T_i as a float, with T_min / T_max widened to include it."""
        t = float(steps)
        self._t_min = t if self._t_min is None else min(self._t_min, t)
        self._t_max = t if self._t_max is None else max(self._t_max, t)
        return t

    def _nearest_skill(self, vec: np.ndarray, code: int) -> tuple[int | None, float | None]:
        """(row, cosine) of the live skill (of polarity `code` when
        ``config.dedup_scope`` is "same_polarity") with the highest cosine to `vec` if it
        is >= delta_dedup, else (None, None) (dedup at insertion, §3.4)."""
        n = self._skl.n
        ok = self._skl.alive[:n].copy()
        if self._config.dedup_scope == "same_polarity":
            ok &= self._skl.polarity[:n] == code
        if not ok.any():
            return None, None
        sims = self._skl.emb[:n] @ vec  # (n,) cosines
        sims[~ok] = -np.inf
        r = int(np.argmax(sims))
        return (r, float(sims[r])) if sims[r] >= self._config.delta_dedup else (None, None)

    def _record(self, ids: Sequence[str], success: bool, steps: float | None) -> int:
        """Eq. 3 stats of retrieved elements: nu += 1, sigma += r_i, T_bar running mean
        (unchanged when `steps` is None: no step count was observed). Ids no longer
        present (pruned or merged since retrieval) are skipped."""
        stores = {st.prefix: (st, []) for st in (self._sub, self._skl, self._edg)}
        for i in dict.fromkeys(ids):  # each element once
            st, rows = stores.get(i[:1], (None, None))
            if st is not None and i in st.row:
                rows.append(st.row[i])
        for store, found in stores.values():
            rows = np.array(found, dtype=np.int64)  # distinct
            store.nu[rows] += 1
            store.sigma[rows] += float(success)
            if steps is not None:
                store.tbar[rows] += (steps - store.tbar[rows]) / store.nu[rows]
        return sum(len(found) for _, found in stores.values())

    # ---------------------------------------------------------------- batch reads: gamma, nu
    def _groups(self, ids: Sequence[str]) -> list[tuple[Rows, np.ndarray, np.ndarray]]:
        """(store, positions in `ids` (m,) int64, rows (m,) int64) per kind present in
        `ids`; KeyError naming the first unknown id. One dict lookup per id, in C."""
        ids = list(ids)
        prefix = np.array([x[:1] if isinstance(x, str) else "" for x in ids], dtype="<U1")
        out = []
        try:
            for store in (self._sub, self._skl, self._edg):
                pos = np.flatnonzero(prefix == store.prefix)
                if len(pos):
                    keys = map(ids.__getitem__, pos.tolist())
                    rows = np.fromiter(map(store.row.__getitem__, keys), np.int64, len(pos))
                    out.append((store, pos, rows))
        except KeyError:
            pass
        if sum(len(pos) for _, pos, _ in out) != len(ids):
            for x in ids:
                self._store(x)  # raises, naming the first unknown id
        return out

    def gammas(self, ids: Sequence[str]) -> np.ndarray:
        """Current gamma (Eq. 3) of the given nodes / hyperedges: (len(ids),) float64."""
        out = np.empty(len(ids))
        for store, pos, rows in self._groups(ids):
            out[pos] = self._gamma(store, rows)
        return out

    def retrieval_counts(self, ids: Sequence[str]) -> np.ndarray:
        """Retrieval counts nu (an input of gamma, Eq. 3, and of pruning, Eq. 11) of the
        given nodes / hyperedges: (len(ids),) int64."""
        out = np.zeros(len(ids), dtype=np.int64)
        for store, pos, rows in self._groups(ids):
            out[pos] = store.nu[rows]
        return out

    # ---------------------------------------------------------------- invariants
    def validate(self) -> None:
        """Check every invariant; raise AssertionError naming the first one broken."""

        def check(ok: Any, what: str) -> None:
            if not ok:
                raise AssertionError(f"HypergraphMemory invariant broken: {what}")

        d = int(self._encoder.dim)
        for st in (self._sub, self._skl, self._edg):
            problem = st.problem(d)
            check(problem is None, f"{st.prefix}: {problem}")
            g = self._gamma(st, st.live())
            check(np.all((g >= 0) & (g <= 1)), f"{st.prefix}: gamma outside [0, 1]")
        check(len(self._edg.live()) == self._edg.n, "e: a hyperedge row is tombstoned")
        check(np.isin(self._skl.polarity[self._skl.live()], (0, 1)).all(), "s: bad polarity code")
        if self._edg.n:
            steps, lo, hi = self._edg.steps[: self._edg.n], self._t_min, self._t_max
            check(lo is not None and lo <= steps.min() and steps.max() <= hi, "steps in T range")
        for kind, st in (("subtask", self._sub), ("skill", self._skl)):
            problem = self._inc[kind].problem(st.n, self._edg.n, st.alive)
            check(problem is None, f"{kind}: {problem}")
