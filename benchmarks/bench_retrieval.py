"""Retrieval latency on a large HashingEncoder memory (a script, not a test).

Builds a memory of N hyperedges (default 10,000) from synthetic tasks, 2-4 plan steps
each and 1-2 skills drawn from a pool of a few hundred (so dedup keeps the skill
vocabulary compact, as in a real run), then times `retrieve(memory, task, plan)` on
fresh queries and prints the median and p95 latency:

- "retrieve, cold": the full call, including embedding the two new query texts;
- "query encoding": embedding those two texts alone;
- "retrieve, warm": the call with the query texts already cached (the hypergraph part);
- "after an add": a warm call right after `add_trajectory` (the runner's alternation of
  retrieve and update; retrieval reads the membership arrays directly, so an insertion
  leaves nothing for it to rebuild).

run_all.py (`make bench`) is the full harness: floors, a naive reference, scaling.

Usage: .venv/bin/python benchmarks/bench_retrieval.py [--edges 10000] [--queries 200]
Not here: any timed assertion (tests stay untimed) or MiniLM timings (the encoder
dominates there and is not the memory's cost).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # see run_all.py: a second BLAS thread stalls on a busy core

import argparse  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from hyperskill_lite.core.config import HyperSkillConfig  # noqa: E402
from hyperskill_lite.core.embed import HashingEncoder  # noqa: E402
from hyperskill_lite.core.memory import HypergraphMemory  # noqa: E402
from hyperskill_lite.core.records import Skill  # noqa: E402
from hyperskill_lite.core.retrieval import retrieve  # noqa: E402

VERBS = "find locate identify compute convert extract verify compare count read".split()
OBJECTS = (
    "population revenue award director author capital rainfall score budget enrollment "
    "height founder price ratio winner deadline ranking altitude salary mileage"
).split()
PLACES = (
    "france brazil kenya japan canada peru norway india chile egypt spain vietnam "
    "mexico ghana poland nepal italy oman fiji laos"
).split()
SOURCES = "official site archive table report database registry wiki page file".split()


def make_task(rng: np.random.Generator) -> tuple[str, list[str]]:
    """A synthetic task and its 2-4 step plan."""
    v, o, p = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(PLACES)
    year = int(rng.integers(1950, 2025))
    task = f"{v.capitalize()} the {o} of {p} in {year} and report it"
    plan = [
        f"{rng.choice(VERBS)} the {rng.choice(SOURCES)} for {o} of {p}"
        for _ in range(int(rng.integers(2, 5)))
    ]
    return task, plan


def skill_pool(n: int, rng: np.random.Generator) -> list[Skill]:
    pool = []
    for i in range(n):
        v, o, s = rng.choice(VERBS), rng.choice(OBJECTS), rng.choice(SOURCES)
        polarity = "success" if i % 3 else "failure"
        pool.append(
            Skill(
                f"{v.capitalize()} {o} via {s} {i}",
                f"When asked for {o}, {v} the {s} first.",
                polarity,
            )
        )
    return pool


def build(n_edges: int, dim: int, seed: int) -> HypergraphMemory:
    rng = np.random.default_rng(seed)
    enc = HashingEncoder(dim=dim, seed=seed)
    memory = HypergraphMemory(enc, HyperSkillConfig())
    pool = skill_pool(400, rng)
    episodes = []
    for _ in range(n_edges):
        task, plan = make_task(rng)
        skills = [
            pool[i] for i in rng.choice(len(pool), size=int(rng.integers(1, 3)), replace=False)
        ]
        lesson = f"Use the {rng.choice(SOURCES)} before searching broadly."
        episodes.append(
            (task, plan, skills, lesson, bool(rng.random() < 0.5), int(rng.integers(2, 12)))
        )
    # embed every text in one batch first (the cache then serves add_trajectory)
    enc.encode(
        [f"{t}\n{les}" for t, _, _, les, _, _ in episodes]
        + [s for _, p, _, _, _, _ in episodes for s in p]
        + [s.text for s in pool]
    )
    for task, plan, skills, lesson, ok, steps in episodes:
        memory.add_trajectory(task, plan, skills, lesson, ok, steps)
    return memory


def percentiles(ms: list[float]) -> str:
    return f"median {np.median(ms):7.3f} ms   p95 {np.percentile(ms, 95):7.3f} ms"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--edges", type=int, default=10_000)
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t0 = time.perf_counter()
    memory = build(args.edges, args.dim, args.seed)
    print(f"built {memory} in {time.perf_counter() - t0:.1f} s; stats {memory.stats()}")
    retrieve(memory, *make_task(np.random.default_rng(args.seed + 2)))  # build incidence caches

    rng = np.random.default_rng(args.seed + 1)
    queries = [make_task(rng) for _ in range(args.queries)]
    queries = [(f"{t} (query {i})", [f"{s} (q{i})" for s in p]) for i, (t, p) in enumerate(queries)]

    cold, enc_ms, warm = [], [], []
    probe = HashingEncoder(dim=args.dim, seed=args.seed)  # same model, empty cache
    for task, plan in queries:
        t = time.perf_counter()
        probe.encode([task, "\n".join(plan)])
        enc_ms.append(1e3 * (time.perf_counter() - t))
        t = time.perf_counter()
        retrieve(memory, task, plan)
        cold.append(1e3 * (time.perf_counter() - t))
        t = time.perf_counter()
        retrieve(memory, task, plan)
        warm.append(1e3 * (time.perf_counter() - t))
    after = []
    for i, (task, plan) in enumerate(queries[:50]):
        skills = [Skill("Official Source First", "Prefer the statistics office.")]
        memory.add_trajectory(task, plan, skills, "Check the office first.", i % 2 == 0, 5)
        t = time.perf_counter()
        retrieve(memory, task, plan)
        after.append(1e3 * (time.perf_counter() - t))
    print(f"{args.queries} queries, (k_u, k_e, k_s) = (2, 2, 2), dim {args.dim}")
    print(f"  retrieve, cold : {percentiles(cold)}")
    print(f"  query encoding : {percentiles(enc_ms)}")
    print(f"  retrieve, warm : {percentiles(warm)}")
    print(f"  after an add   : {percentiles(after)}  (50 queries)")


if __name__ == "__main__":
    main()
