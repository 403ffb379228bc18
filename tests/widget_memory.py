"""A synthetic memory of any size for the widget's tests: `synthetic_memory(n)` has `n`
hyperedges, about n / 5 skill nodes (a few popular, most rare, 1-3 per hyperedge) and
3 subtask nodes per hyperedge, built in bulk from columns (`from_state`), so 5,000
hyperedges take a second, not the minutes inserting them one by one would. Its texts
are short made-up phrases and its embeddings the hashing encoder's: what the widget
draws is the structure, not the words.

Shared by tests/test_widget.py and tests/browser/test_widget_scale.py.
"""

from __future__ import annotations

import numpy as np

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import FORMAT, ROW_DTYPES, VERSION, from_state
from hyperskill_lite.core.memory import HypergraphMemory

DIM = 64


def synthetic_memory(n: int, seed: int = 0) -> HypergraphMemory:
    """A memory of `n` hyperedges (module docstring), the same for the same (n, seed)."""
    rng = np.random.default_rng(seed)
    enc = HashingEncoder(dim=DIM)
    n_s = max(2, n // 5)
    pop = 1.0 / np.arange(1, n_s + 1) ** 0.8  # a few skills in many trajectories
    pop /= pop.sum()
    inc_s = []
    for j in range(n):
        for s in set(rng.choice(n_s, size=int(rng.integers(1, 4)), p=pop).tolist()):
            inc_s.append((s, j))
    inc_s_arr = np.array(sorted(inc_s, key=lambda p: (p[1], p[0])), dtype=np.int64)
    inc_u = np.stack([np.arange(3 * n), np.repeat(np.arange(n), 3)], axis=1).astype(np.int64)
    rows = {k: np.zeros(m, dtype=ROW_DTYPES[k]) for k, m in (("u", 3 * n), ("s", n_s), ("e", n))}
    for r in rows.values():
        r["num"] = np.arange(1, len(r) + 1)
        r["nu"] = rng.poisson(2.0, len(r))
        r["sigma"] = np.floor(r["nu"] * rng.random(len(r)))
        r["tbar"] = rng.uniform(2, 20, len(r))
    rows["s"]["polarity"] = rng.integers(0, 2, n_s)
    rows["e"]["success"] = rng.random(n) < 0.5
    rows["e"]["steps"] = rows["e"]["calls"] = rng.integers(2, 20, n)
    u_text = [f"step {k % 3} of task {k // 3}" for k in range(3 * n)]
    s_name = [f"Skill {i} {'check' if i % 2 else 'rule'}" for i in range(n_s)]
    s_content = [f"Do thing {i} before the answer." for i in range(n_s)]
    tasks = [f"Task {j}: find the figure {j} of the report" for j in range(n)]
    lessons = [f"Lesson {j}." for j in range(n)]
    state = {
        "manifest": {"format": FORMAT, "version": VERSION,
                     "encoder": {"name": enc.name, "dim": DIM},
                     "config": HyperSkillConfig().to_dict(),
                     "counters": {"u": 3 * n + 1, "s": n_s + 1, "e": n + 1},
                     "t_range": [2.0, 19.0], "dtype": "float32",
                     "counts": {"u": 3 * n, "s": n_s, "e": n, "inc_u": len(inc_u),
                                "inc_s": len(inc_s_arr)}},
        "arrays": {"u_rows.npy": rows["u"], "s_rows.npy": rows["s"], "e_rows.npy": rows["e"],
                   "u_emb.npy": enc.encode(u_text), "s_emb.npy": enc.encode(s_name),
                   "e_emb.npy": enc.encode(tasks), "inc_u.npy": inc_u, "inc_s.npy": inc_s_arr},
        "text": {"u": {"content": u_text}, "s": {"name": s_name, "content": s_content},
                 "e": {"task": tasks, "lesson": lessons},
                 "meta": {"u": {}, "s": {}, "e": {str(j): {"task_id": f"t{j}"} for j in range(n)}}},
    }
    return from_state(state, enc)
