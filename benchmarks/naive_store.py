"""A naive reference: HyperSkill's memory written the way typical agent-memory stores are.

Entries are dicts in insertion-ordered dicts (id -> entry; subtasks, skills and
hyperedges apart), each carrying its own embedding and its norm; every search loops over
the entries in Python with one cosine per entry (`np.dot` and the stored norms); the hyperedges incident to a subtask, the co-occurrence
counts kappa (Eq. 8) and the co-occurrence weights W (Eq. 12) come from loops over the
hyperedges' member lists; propagation (Eq. 13) loops over each skill's neighbours; merge
candidates (Eq. 14) loop over pairs; save writes one JSON file with embeddings as
lists of floats.

It computes what `HypergraphMemory` computes (same dedup, same stats update, same
dual-path retrieval with the same tie-breaking, same prune rule, same merge pairs), so
the harness can put the two side by side and a test can check they agree: that tie is
what makes the speed ratios meaningful. It is deliberately plain, not deliberately slow.

Not here: ablation modes, the "fraction" prune mode, views, validation, atomic saves.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.records import Skill, skill_text
from hyperskill_lite.core.retrieval import format_context

__all__ = ["NaiveStore"]


def _cos(a: np.ndarray, na: float, el: dict[str, Any]) -> float:
    """Cosine of query `a` (norm `na`) and an entry's stored embedding and norm."""
    if na == 0.0 or el["norm"] == 0.0:
        return 0.0
    return float(np.dot(a, el["emb"])) / (na * el["norm"])


def _norm(v: np.ndarray) -> float:
    return float(np.linalg.norm(v))


def _num(id: str) -> int:
    """Creation order of an id ("s12" -> 12): ids are issued in sequence."""
    return int(id[1:])


class NaiveStore:
    """HyperSkill's memory as lists of dicts and Python loops (see the module docstring).

    >>> from hyperskill_lite.core.embed import HashingEncoder
    >>> store = NaiveStore(HashingEncoder(dim=32))
    >>> store.add_trajectory("Find the GDP", ["search the office"],
    ...                      [Skill("Official First", "Use the office.")], "Tables win.", True, 4)
    'e1'
    >>> store.retrieve("Find the GDP", ["search the office"])["skill_ids"]
    ['s1']
    """

    def __init__(self, encoder: Any, config: HyperSkillConfig | None = None) -> None:
        self.encoder = encoder
        self.config = config or HyperSkillConfig()
        # id -> {kind, polarity, name, content, emb, norm, sigma, nu, tbar, meta}
        self.subtasks: dict[str, dict[str, Any]] = {}
        self.skills: dict[str, dict[str, Any]] = {}
        # id -> {members, task, lesson, success, steps, calls, emb, norm, sigma, nu, tbar}
        self.edges: dict[str, dict[str, Any]] = {}
        self.counter = {"u": 0, "s": 0, "e": 0}
        self.t_range: list[float] = []  # [T_min, T_max] over all episodes, once one is added

    def _new_id(self, prefix: str) -> str:
        self.counter[prefix] += 1
        return f"{prefix}{self.counter[prefix]}"

    # ------------------------------------------------------------------ Eq. 3
    def gamma(self, el: dict[str, Any]) -> float:
        """Eq. 3 for one entry, from its stats and the steps seen so far."""
        cfg = self.config
        if el["nu"] == 0:
            return cfg.prior
        lo, hi = self.t_range
        eff = 1.0 if hi == lo else 1.0 - (el["tbar"] - lo) / (hi - lo)
        g = cfg.beta * el["sigma"] / el["nu"] + (1.0 - cfg.beta) * eff
        return min(1.0, max(0.0, g))

    # ------------------------------------------------------------------ update (§3.4)
    def add_trajectory(
        self,
        task: str,
        plan: Sequence[str],
        skills: Sequence[Skill],
        lesson: str,
        success: bool,
        steps: int,
        calls: int = 0,
        used: Sequence[str] = (),
    ) -> str:
        """Add one trajectory; `used` are the ids the episode retrieved (stats update)."""
        t = float(steps)
        self.t_range = (
            [min(self.t_range[0], t), max(self.t_range[1], t)] if self.t_range else [t, t]
        )
        for i in dict.fromkeys(used):
            el = self.subtasks.get(i) or self.skills.get(i) or self.edges.get(i)
            if el is not None:
                el["nu"] += 1
                el["sigma"] += float(success)
                el["tbar"] += (steps - el["tbar"]) / el["nu"]
        vecs = self.encoder.encode(
            [f"{task}\n{lesson}", *plan, *(skill_text(s.name, s.content) for s in skills)]
        )
        members: list[str] = []
        for p, v in zip(plan, vecs[1 : 1 + len(plan)]):
            u = self._new_id("u")
            self.subtasks[u] = self._node("subtask", None, "", p, v, {})
            members.append(u)
        for s, v in zip(skills, vecs[1 + len(plan) :]):
            best, best_cos, nv = None, -math.inf, _norm(v)
            for i, n in self.skills.items():  # dedup: one cosine per stored skill
                if n["polarity"] == s.polarity:
                    c = _cos(v, nv, n)
                    if c > best_cos:
                        best, best_cos = i, c
            if best is None or best_cos < self.config.delta_dedup:
                best = self._new_id("s")
                self.skills[best] = self._node("skill", s.polarity, s.name, s.content, v, s.meta)
            if best not in members:
                members.append(best)
        e = self._new_id("e")
        self.edges[e] = {
            "members": members,
            "task": task,
            "lesson": lesson,
            "success": bool(success),
            "steps": int(steps),
            "calls": int(calls),
            "emb": vecs[0],
            "norm": _norm(vecs[0]),
            "sigma": 0.0,
            "nu": 0,
            "tbar": 0.0,
            "meta": {},
        }
        return e

    @staticmethod
    def _node(
        kind: str, polarity: str | None, name: str, content: str, emb: np.ndarray, meta: dict
    ) -> dict:
        return {
            "kind": kind,
            "polarity": polarity,
            "name": name,
            "content": content,
            "emb": emb,
            "norm": _norm(emb),
            "sigma": 0.0,
            "nu": 0,
            "tbar": 0.0,
            "meta": dict(meta),
        }

    # ------------------------------------------------------------------ retrieval (Eq. 4-9)
    def retrieve(self, task: str, plan: Sequence[str] = ()) -> dict[str, Any]:
        """Dual-path retrieval, full mode: {"subtask_ids", "subtask_edge_ids",
        "trajectory_edge_ids", "edge_ids", "kappa", "skill_ids", "retrieved_ids",
        "context"}."""
        cfg = self.config
        plan = list(plan)
        use_sub = bool(plan) and cfg.k_u > 0 and bool(self.subtasks)
        q = self.encoder.encode([task, "\n".join(plan)] if use_sub else [task])
        nq = [_norm(x) for x in q]
        r_u: list[str] = []
        e_sub: list[str] = []
        if use_sub:
            scored = [(-_cos(q[1], nq[1], n), _num(i), i) for i, n in self.subtasks.items()]
            r_u = [i for _, _, i in sorted(scored)[: cfg.k_u]]  # Eq. 4
            for u in r_u:  # E_sub: hyperedges containing u, by a loop over all hyperedges
                for e, el in self.edges.items():
                    if u in el["members"] and e not in e_sub:
                        e_sub.append(e)
        e_traj: list[str] = []
        if cfg.k_e > 0 and self.edges:
            scored = [(-_cos(q[0], nq[0], el), _num(e), e) for e, el in self.edges.items()]
            e_traj = [e for _, _, e in sorted(scored)[: cfg.k_e]]  # Eq. 5
        e_star = list(dict.fromkeys(e_traj + e_sub))  # Eq. 6
        kappa: dict[str, int] = {}
        for e in e_star:  # Eq. 7-8
            for m in self.edges[e]["members"]:
                if m in self.skills:
                    kappa[m] = kappa.get(m, 0) + 1
        ranked = sorted(
            kappa, key=lambda s: (-kappa[s], -_cos(q[0], nq[0], self.skills[s]), _num(s))
        )  # Eq. 9
        s_q = ranked[: cfg.k_s]
        lessons = [(self.edges[e]["lesson"], self.edges[e]["success"]) for e in e_star]
        pick = [self.skills[s] for s in s_q]
        context = format_context(
            [(t, ok) for t, ok in lessons if t],
            [(n["name"], n["content"]) for n in pick if n["polarity"] == "success"],
            [(n["name"], n["content"]) for n in pick if n["polarity"] == "failure"],
        )
        return {
            "subtask_ids": r_u,
            "subtask_edge_ids": e_sub,
            "trajectory_edge_ids": e_traj,
            "edge_ids": e_star,
            "kappa": {s: kappa[s] for s in ranked},
            "skill_ids": s_q,
            "retrieved_ids": r_u + s_q + e_star,
            "context": context,
        }

    # ------------------------------------------------------------------ maintenance (§3.5)
    def prune(self) -> list[str]:
        """Eq. 11 under the config's prune mode, by loops: "threshold" removes every node
        with nu >= N_min and gamma < tau; "ratio" (the default) the ceil(rho x count)
        lowest-gamma of those; "fraction" the floor(rho x count) lowest-gamma of all nodes
        with nu >= N_min. Ties in gamma go to the earlier node."""
        cfg = self.config
        nodes = [(i, n) for group in (self.subtasks, self.skills) for i, n in group.items()]
        if cfg.prune_mode != "threshold" and cfg.rho == 0.0:
            return []
        eligible = [(self.gamma(n), k, i) for k, (i, n) in enumerate(nodes)
                    if n["nu"] >= cfg.n_min]
        if cfg.prune_mode == "fraction":
            chosen = sorted(eligible)[: int(math.floor(cfg.rho * len(eligible)))]
        else:
            low = [e for e in eligible if e[0] < cfg.tau_prune]
            take = len(low) if cfg.prune_mode == "threshold" else math.ceil(cfg.rho * len(low))
            chosen = sorted(low)[:take]
        gone = [i for _, _, i in sorted(chosen, key=lambda e: e[1])]
        for i in gone:
            (self.subtasks if i[0] == "u" else self.skills).pop(i)
        dead = set(gone)
        for el in self.edges.values():
            el["members"] = [m for m in el["members"] if m not in dead]
        return gone

    def cooccurrence(self, skills: list[str]) -> dict[str, dict[str, float]]:
        """W (Eq. 12) as a dict of dicts, by a loop over hyperedges and their skill pairs."""
        W: dict[str, dict[str, float]] = {s: {} for s in skills}
        for el in self.edges.values():
            size = len(el["members"])
            sk = [m for m in el["members"] if m in self.skills]
            for a in sk:
                for b in sk:
                    if a != b:
                        W[a][b] = W[a].get(b, 0.0) + 1.0 / size
        g = {s: self.gamma(self.skills[s]) for s in skills}
        for a, row in W.items():
            for b in row:
                row[b] *= min(g[a], g[b])
        return W

    def propagate(self, W: dict[str, dict[str, float]], skills: list[str]) -> dict[str, np.ndarray]:
        """Z~ (Eq. 13) by per-skill loops over neighbours: X_l(a) = sum_b W_hat[a, b] X_{l-1}(b)."""
        cfg = self.config
        deg = {a: 1.0 + sum(W[a].values()) for a in skills}
        X = {a: self.skills[a]["emb"].astype(np.float64) for a in skills}
        out = {a: cfg.alpha * X[a] for a in skills}
        for step in range(1, cfg.L + 1):
            nxt = {}
            for a in skills:
                acc = X[a] / deg[a]  # the identity's term (W + I)_aa / sqrt(d_a d_a)
                for b, w in W[a].items():
                    acc = acc + (w / math.sqrt(deg[a] * deg[b])) * X[b]
                nxt[a] = acc
            X = nxt
            weight = (
                (1 - cfg.alpha) ** cfg.L if step == cfg.L else cfg.alpha * (1 - cfg.alpha) ** step
            )
            for a in skills:
                out[a] = out[a] + weight * X[a]
        return out

    def merge_candidates(
        self, Zt: dict[str, np.ndarray], skills: list[str]
    ) -> list[tuple[str, str, float]]:
        """Merge candidates (Eq. 14) by a loop over same-polarity pairs; greedy, best first, each node once."""
        pairs = []
        norm = {a: _norm(Zt[a]) for a in skills}
        for x, a in enumerate(skills):
            for b in skills[x + 1 :]:
                if self.skills[a]["polarity"] != self.skills[b]["polarity"]:
                    continue
                na, nb = norm[a], norm[b]
                if na == 0.0 or nb == 0.0:
                    continue
                c = float(np.dot(Zt[a], Zt[b])) / (na * nb)
                if c >= self.config.delta_merge:
                    pairs.append((-c, _num(a), _num(b), a, b))
        taken: set[str] = set()
        out = []
        for neg, _, _, a, b in sorted(pairs):
            if a in taken or b in taken:
                continue
            taken |= {a, b}
            out.append((a, b, -neg))
        return out

    def merge(self, llm: Any) -> list[tuple[str, str, str]]:
        """One merge cycle (Eqs. 12-14) and LLM-merge: returns (a, b, new id) per merge."""
        skills = list(self.skills)
        if len(skills) < 2:
            return []
        W = self.cooccurrence(skills)
        pairs = self.merge_candidates(self.propagate(W, skills), skills)
        done = []
        for a, b, _ in pairs:
            na, nb = self.skills.pop(a), self.skills.pop(b)
            m = llm.merge(
                Skill(na["name"], na["content"], na["polarity"], dict(na["meta"])),
                Skill(nb["name"], nb["content"], nb["polarity"], dict(nb["meta"])),
            )
            s = self._new_id("s")
            node = self._node(
                "skill", na["polarity"], m.name, m.content, self.encoder.encode([m.text])[0], m.meta
            )
            nu = na["nu"] + nb["nu"]
            node["nu"], node["sigma"] = nu, na["sigma"] + nb["sigma"]
            node["tbar"] = (
                (na["nu"] * na["tbar"] + nb["nu"] * nb["tbar"]) / nu
                if nu
                else (na["tbar"] + nb["tbar"]) / 2
            )
            self.skills[s] = node
            for el in self.edges.values():  # reassign memberships, no duplicates
                new: list[str] = []
                for x in el["members"]:
                    x = s if x in (a, b) else x
                    if x not in new:
                        new.append(x)
                el["members"] = new
            done.append((a, b, s))
        return done

    def maintain(self, llm: Any) -> tuple[list[str], list[tuple[str, str, str]]]:
        """Prune then merge: (pruned ids, merges)."""
        return self.prune(), self.merge(llm)

    # ------------------------------------------------------------------ files
    def save(self, path: str | Path) -> None:
        """One JSON file, embeddings as lists of floats."""
        path = Path(path)
        path.mkdir(parents=True, exist_ok=True)

        def plain(d: dict[str, Any]) -> dict[str, Any]:
            return {k: (v.tolist() if isinstance(v, np.ndarray) else v) for k, v in d.items()}

        data = {
            "subtasks": {i: plain(n) for i, n in self.subtasks.items()},
            "skills": {i: plain(n) for i, n in self.skills.items()},
            "edges": {e: plain(el) for e, el in self.edges.items()},
            "counter": self.counter,
            "t_range": self.t_range,
        }
        with open(path / "memory.json", "w", encoding="utf-8") as f:
            json.dump(data, f)

    @classmethod
    def load(
        cls, path: str | Path, encoder: Any, config: HyperSkillConfig | None = None
    ) -> NaiveStore:
        with open(Path(path) / "memory.json", encoding="utf-8") as f:
            data = json.load(f)
        store = cls(encoder, config)
        for group in ("subtasks", "skills", "edges"):
            for el in data[group].values():
                el["emb"] = np.asarray(el["emb"], dtype=np.float32)
            setattr(store, group, data[group])
        store.counter, store.t_range = data["counter"], data["t_range"]
        return store
