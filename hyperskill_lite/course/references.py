"""The library's answer to every coding exercise, bound here, in the grader: the function a
learner's function is compared with on the hidden inputs (cases.py). Grading calls these
in its own process, where no learner code ever ran, so nothing a submission does (a name
rebound in its kernel, a module patched there) can change what they return.

Each reference takes the arguments the learner's function takes (the exercise's public
examples in exercises.toml show them) and returns what the learner's function should.
The instructor's test cell of each exercise (verify.py) checks in the instructor's own
notebook that the reference agrees with the one the notebook names, and with the
catalog's public examples; a new coding exercise adds its reference here.

>>> sorted(REFERENCES)[:3]
['01.5', '02.3', '02.4']
>>> [int(i) for i in REFERENCES["02.3"](np.array([0.2, 0.9, 0.5]), 2)]
[1, 2]

Not here: the hidden inputs (cases.py), comparing outputs (answers.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from hyperskill_lite.compare_tables import retention
from hyperskill_lite.core.config import HyperSkillConfig, maintenance_due
from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.io.state import from_state, to_state
from hyperskill_lite.core.maintenance import merge_candidates, prune_selection
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill, skill_text
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.retrieval.context import fill_context
from hyperskill_lite.core.retrieval.ranking import kappa_counts, rank_skills
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.core.retrieval.scores import top_k
from hyperskill_lite.core.retrieval.subtask import subtask_path
from hyperskill_lite.core.utility import utility
from hyperskill_lite.plots.runs import cumulative_sr
from hyperskill_lite.stats import bootstrap_ci

__all__ = ["REFERENCES", "reference"]


def _rank(kappa: Any, sim: Any, k: int) -> np.ndarray:
    return rank_skills(kappa, sim)[:k]


def _prune_ratio(nu: Any, gamma: Any, rho: float, n_min: int = 3, tau: float = 0.2) -> np.ndarray:
    return prune_selection(nu, gamma, mode="ratio", rho=rho, n_min=n_min, tau=tau)


def _w(B: Any, sizes: Any, gamma: Any) -> np.ndarray:
    return cooccurrence_matrix(B, sizes, gamma).toarray()


def _propagate_once(W: Any, Z: Any, alpha: float) -> np.ndarray:
    return propagate(W, Z, alpha=alpha, L=1)


def _running_sr(success: Any) -> np.ndarray:
    return cumulative_sr([{"success": bool(x)} for x in success])


def _paired_ci(a: Any, b: Any, seed: int = 0, n_boot: int = 2000,
               level: float = 0.95) -> tuple[float, float, float]:
    d = 100.0 * (np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    return bootstrap_ci([d], np.random.default_rng(seed), n_boot, level)


# --- notebooks 01-05: the library run on a memory built from the inputs ----------------
# Dedup at insertion, the subtask path with E_sub, E*, the context text and a merge's
# memberships are the memory's own code (memory.py, retrieval/, edits.py), which reads a
# memory, not arrays. These references build that memory from the exercise's arrays with
# the library's loader (io.from_state: the rows, embeddings and memberships as given, no
# dedup, nothing embedded) and run the library on it; the rows of the memory are the
# inputs' rows, its ids s1, e1, ... the rows + 1.


class _Vectors:
    """phi for a memory built from arrays (the `Encoder` protocol, core/embed.py): the
    vector `table` gives a text, the first unit vector for any other text."""

    def __init__(self, dim: int, table: dict[str, Any] | None = None) -> None:
        self.dim, self.name = int(dim), f"vectors(dim={int(dim)})"
        self._table = {t: np.asarray(v, dtype=np.float32) for t, v in (table or {}).items()}

    def encode(self, texts: Any) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        out[:, 0] = 1.0
        for i, t in enumerate(texts):
            if t in self._table:
                out[i] = self._table[t]
        return out


def _rows(template: np.ndarray, n: int, **columns: Any) -> np.ndarray:
    rows = np.zeros(n, dtype=template.dtype)
    rows["num"] = np.arange(1, n + 1)
    for name, values in columns.items():
        rows[name] = values
    return rows


def _pairs(B: Any) -> np.ndarray:
    """(node row, edge column) of every 1 of B, sorted by edge: a memory's memberships."""
    edge_node = np.argwhere(np.asarray(B).T != 0)
    return edge_node[:, ::-1].astype(np.int64).reshape(-1, 2)


def _memory(encoder: _Vectors, config: HyperSkillConfig | None = None, *,
            sub: Any = None, inc_u: Any = None, skl: dict[str, Any] | None = None,
            inc_s: Any = None, edg: dict[str, Any] | None = None) -> HypergraphMemory:
    """A memory whose subtask rows have embeddings `sub` (n_u, d) and memberships `inc_u`
    (n_u, n_e); skill rows the columns of `skl` ("emb", "name", "content", "failure",
    "sigma", "nu", "tbar") and memberships `inc_s`; hyperedges the columns of `edg`
    ("emb", "task", "lesson", "success"), each of one step."""
    d = encoder.dim
    state = to_state(HypergraphMemory(encoder, config))  # an empty memory: the format
    arrays, text, man = state["arrays"], state["text"], state["manifest"]
    sub = np.zeros((0, d)) if sub is None else np.asarray(sub, dtype=float).reshape(-1, d)
    skl = skl or {"emb": np.zeros((0, d))}
    edg = edg or {"emb": np.zeros((0, d))}
    n = {"u": len(sub), "s": len(skl["emb"]), "e": len(edg["emb"])}
    none = np.zeros(n["s"])
    arrays["u_rows.npy"] = _rows(arrays["u_rows.npy"], n["u"])
    arrays["s_rows.npy"] = _rows(arrays["s_rows.npy"], n["s"], polarity=skl.get("failure", none),
                                 sigma=skl.get("sigma", none), nu=skl.get("nu", none),
                                 tbar=skl.get("tbar", none))
    arrays["e_rows.npy"] = _rows(arrays["e_rows.npy"], n["e"], success=edg.get("success", True),
                                 steps=1)
    for k, emb in (("u", sub), ("s", skl["emb"]), ("e", edg["emb"])):
        arrays[f"{k}_emb.npy"] = np.asarray(emb, dtype=np.float32).reshape(n[k], d)
    arrays["inc_u.npy"] = _pairs(np.zeros((0, 0)) if inc_u is None else inc_u)
    arrays["inc_s.npy"] = _pairs(np.zeros((0, 0)) if inc_s is None else inc_s)
    text.update(u={"content": [""] * n["u"]},
                s={c: [str(x) for x in skl.get(c, [""] * n["s"])] for c in ("name", "content")},
                e={c: [str(x) for x in edg.get(c, [""] * n["e"])] for c in ("task", "lesson")})
    man.update(counters={k: n[k] + 1 for k in n}, t_range=[1.0, 1.0] if n["e"] else None,
               counts={**n, "inc_u": len(arrays["inc_u.npy"]), "inc_s": len(arrays["inc_s.npy"])})
    return from_state(state, encoder, config)


def _row(ids: Any) -> list[int]:
    """Rows of ids such as "s3" or "e1" in a memory built by `_memory`."""
    return [int(i[1:]) - 1 for i in ids]


def _unit_pair(x: Any) -> np.ndarray:
    """(n, 2) unit rows whose first coordinate is x: a cosine of x to (1, 0)."""
    x = np.asarray(x, dtype=float).reshape(-1)
    return np.stack([x, np.sqrt(np.clip(1.0 - x * x, 0.0, None))], axis=1)


def _place_skills(Z: Any, V: Any, delta: float) -> list[int]:
    """Dedup at insertion (§3.4; memory.add_trajectory): the node row each new skill of
    one trajectory goes into, existing skills `Z` (n, d) and new ones `V` (m, d)."""
    Z, V = np.asarray(Z, dtype=float), np.asarray(V, dtype=float)
    d = V.shape[1] if V.ndim == 2 and V.size else Z.shape[1]
    Z = Z.reshape(-1, d)
    new = [Skill(f"new skill {j}", f"the new trajectory's skill {j}") for j in range(len(V))]
    encoder = _Vectors(d, {skill_text(s.name, s.content): v for s, v in zip(new, V)})
    memory = _memory(encoder, HyperSkillConfig(delta_dedup=float(delta)),
                     skl={"emb": Z, "name": [f"skill {r}" for r in range(len(Z))]})
    memory.add_trajectory("a task", [], new, "a lesson", success=True, steps=1)
    return _row(p["node"] for p in memory.last_update["skills"])


def _subtask_edges(sim: Any, B_u: Any, k_u: int) -> tuple[np.ndarray, np.ndarray]:
    """R_u (Eq. 4) and E_sub of core/retrieval/subtask.py for cosines `sim` to phi(P_0)."""
    B_u = np.asarray(B_u)
    memory = _memory(_Vectors(2), sub=_unit_pair(sim), inc_u=B_u,
                     edg={"emb": _unit_pair(np.zeros(B_u.shape[1]))})
    r_u, e_sub, _ = subtask_path(memory, np.array([1.0, 0.0], dtype=np.float32), int(k_u),
                                 np.zeros(0, dtype=np.int64))
    return r_u, e_sub


def _fused_edges(traj_sim: Any, sub_sim: Any, B_u: Any, k_e: int, k_u: int) -> list[int]:
    """E* (Eqs. 4-6) as `retrieve` fuses it: E_traj in rank order, then the rest of E_sub."""
    h_e, h_u = _unit_pair(traj_sim), _unit_pair(sub_sim)  # phi(d_q) = e0, phi(P_0) = e2
    h_e = np.hstack([h_e, np.zeros_like(h_e)])
    h_u = np.hstack([np.zeros_like(h_u), h_u])
    e0, e2 = np.eye(4)[0], np.eye(4)[2]
    memory = _memory(_Vectors(4, {"the task": e0, "its plan": e2}), sub=h_u, inc_u=B_u,
                     edg={"emb": h_e})
    found = retrieve(memory, "the task", ["its plan"], k_u=int(k_u), k_e=int(k_e), k_s=0)
    return _row(found.edge_ids)


def _assemble_context(lessons: Any, success: Any, names: Any, contents: Any,
                      failure: Any) -> str:
    """The context text (core/retrieval/context.py) for the lessons of E* and the skills
    of S_q, both in their order."""
    lessons, names = [str(x) for x in lessons], [str(x) for x in names]
    memory = _memory(_Vectors(2), skl={"emb": _unit_pair(np.zeros(len(names))), "name": names,
                                       "content": [str(x) for x in contents],
                                       "failure": np.asarray(failure, dtype=bool).astype(int)},
                     edg={"emb": _unit_pair(np.zeros(len(lessons))), "lesson": lessons,
                          "success": np.asarray(success, dtype=bool)})
    out = Retrieval()
    fill_context(memory, out, np.arange(len(lessons)), np.arange(len(names)))
    return out.context


def _merge_pairs(Z: Any, polarity: Any, delta: float) -> list[tuple[int, int, float]]:
    return merge_candidates(np.asarray(Z, dtype=float), np.asarray(polarity), float(delta))


def _merge_rows(B: Any, sigma: Any, nu: Any, tbar: Any, i: int, j: int,
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A merge's memberships and Eq. 3 statistics (memory.merge_nodes): the skills but i
    and j in their order, then the merged one."""
    B = np.asarray(B)
    n_s, n_e = B.shape
    memory = _memory(_Vectors(n_s + 1), inc_s=B,
                     skl={"emb": np.eye(n_s + 1)[1:], "name": [f"skill {r}" for r in range(n_s)],
                          "sigma": sigma, "nu": nu, "tbar": tbar},
                     edg={"emb": np.eye(n_s + 1)[np.zeros(n_e, dtype=int)]})
    memory.merge_nodes(f"s{int(i) + 1}", f"s{int(j) + 1}", Skill("Merged", "the merged skill"))
    B_new, ids, _, _ = memory.skill_incidence()
    views = memory.nodes(ids)
    return (B_new.toarray().astype(np.int64), np.array([v.sigma for v in views]),
            np.array([v.nu for v in views]), np.array([v.mean_steps for v in views]))

# --- notebooks 06-11 ------------------------------------------------------------------


def _maintenance_after(n_tasks: int, ratio: float = 0.1) -> np.ndarray:
    n = int(n_tasks)
    return np.array([i + 1 for i in range(n) if maintenance_due(i, n, ratio)], dtype=np.int64)


def _pooled_ci(a: Any, b: Any, seed: int = 0, n_boot: int = 2000,
               level: float = 0.95) -> tuple[float, float, float]:
    d = 100.0 * (np.asarray(a, dtype=float) - np.asarray(b, dtype=float))
    return bootstrap_ci(list(np.atleast_2d(d)), np.random.default_rng(seed), n_boot, level)


def _retention(gt_sr: Any, self_sr: Any) -> tuple[float, float]:
    def rows(srs: Any) -> list[dict[str, Any]]:
        return [{"method": "m", "seed": s, "SR": float(x)} for s, x in enumerate(srs)]

    found = retention(rows(gt_sr), rows(self_sr), "m")
    return found["Retention"], found["Delta"]


REFERENCES: dict[str, Callable[..., Any]] = {
    "02.3": top_k,
    "03.3": kappa_counts,
    "03.4": _rank,
    "04.3": utility,
    "04.4": _prune_ratio,
    "05.3": _w,
    "05.4": _propagate_once,
    "07.2": _running_sr,
    "08.3": _paired_ci,
    # notebooks 01-05, the exercises for every mechanism (issue 44)
    "01.5": _place_skills,
    "02.4": _subtask_edges,
    "02.5": _fused_edges,
    "03.5": _assemble_context,
    "05.5": _merge_pairs,
    "05.6": _merge_rows,
    # notebooks 06-11
    "06.4": _maintenance_after,
    "08.5": _pooled_ci,
    "09.2": _retention,
}
"""Coding exercise id -> the library's function for it."""


def reference(ex: str) -> Callable[..., Any]:
    """The reference of coding exercise `ex`; KeyError naming the known ids otherwise."""
    if ex not in REFERENCES:
        raise KeyError(f"coding exercise {ex!r} has no reference in course/references.py; "
                       f"known: {', '.join(sorted(REFERENCES))}")
    return REFERENCES[ex]
