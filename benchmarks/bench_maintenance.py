"""Benchmark: one maintenance cycle (prune + merge, paper §3.5) on a synthetic memory of
10,000 skills and 100,000 hyperedges.

The memory is built from plain records with the format-1 reader of ``core/io.py`` (no model,
no ``add_trajectory``: dedup against 10k skills and a retrieval over 100k hyperedges per
insertion would take many minutes), with real HashingEncoder embeddings of real-looking
text. Skills fall into topics and every hyperedge takes 2-4 skills of one topic (and
sometimes one stray skill) plus 1-3 subtask steps, so W has structure; some skills are
planted paraphrases of a topic-mate, which merging should find. Stats (nu, sigma, mean
steps) are random, so some nodes fall under tau_prune.

Prints the wall time of ``maintain`` with TemplateMerger, the process's peak RSS
(VmHWM, which includes building the memory), and, on a second copy of
the memory, the peak of memory traced by ``tracemalloc`` during the cycle, next to the
size a dense n_s x n_s float64 array would take.

With ``--json PATH`` the figures are also written to PATH (run_all.py, the harness behind
``make bench``, runs this script that way and folds them into its report).

Usage: python benchmarks/bench_maintenance.py [--skills 10000] [--edges 100000] [--seed 0]
       [--no-trace] [--json PATH]
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # see run_all.py: a second BLAS thread stalls on a busy core

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import resource  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
import tracemalloc  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

from hyperskill_lite.core.config import HyperSkillConfig  # noqa: E402
from hyperskill_lite.core.embed import HashingEncoder  # noqa: E402
from hyperskill_lite.core.io import FORMAT  # noqa: E402
from hyperskill_lite.core.io.legacy import _from_records_v1  # noqa: E402
from hyperskill_lite.core.maintenance import maintain  # noqa: E402
from hyperskill_lite.core.template_merger import TemplateMerger  # noqa: E402

WORDS = (
    "search verify source table unit convert compute percent cross check archive page "
    "official registry date year record filing entity name clue map region author film "
    "price ratio growth annual report index list column row header total share rank "
    "score league season match player team title release studio award paper journal "
    "volume issue citation abstract method result figure dataset version file sheet cell "
    "format parse extract query filter sort merge count average median range scale "
    "metric imperial currency exchange rate inflation budget revenue profit loss market"
).split()


def _sentence(rng: np.random.Generator, n: int) -> str:
    words = rng.choice(WORDS, size=n)
    return " ".join(words).capitalize() + "."


def build_state(n_skills: int, n_edges: int, seed: int, dim: int, encoder: HashingEncoder):
    """Plain records + embeddings in the format of ``io.to_state`` / ``io.from_state``."""
    rng = np.random.default_rng(seed)
    n_topics = max(1, n_skills // 20)
    polarity = np.where(rng.random(n_skills) < 0.6, "success", "failure")
    topic = rng.integers(0, n_topics, size=n_skills)
    members = [np.flatnonzero(topic == t) for t in range(n_topics)]
    names = [
        " ".join(rng.choice(WORDS, size=int(rng.integers(3, 5)))).title() for _ in range(n_skills)
    ]
    contents = [_sentence(rng, 7) + " " + _sentence(rng, 6) for _ in range(n_skills)]
    # planted paraphrases: a same-polarity topic-mate gets a's text with one word changed
    planted = 0
    for t in range(0, n_topics, 3):
        m = members[t]
        for a in m:
            same = [b for b in m if b != a and polarity[b] == polarity[a]]
            if same:
                b = same[0]
                words = contents[a].split()
                words[2] = str(rng.choice(WORDS))
                names[b], contents[b] = names[a], " ".join(words)
                planted += 1
                break

    steps_pool = [f"{_sentence(rng, 5)[:-1]} for the {w}" for w in rng.choice(WORDS, size=400)]

    def stats(n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        nu = rng.poisson(2.5, size=n)
        p = rng.beta(2.0, 2.0, size=n)
        sigma = rng.binomial(nu, p).astype(float)
        tbar = np.where(nu > 0, rng.uniform(2.0, 18.0, size=n), 0.0)
        return nu, sigma, tbar

    s_nu, s_sigma, s_tbar = stats(n_skills)
    skill_recs = [
        {
            "id": f"s{i + 1}",
            "kind": "skill",
            "name": names[i],
            "polarity": str(polarity[i]),
            "content": contents[i],
            "sigma": float(s_sigma[i]),
            "nu": int(s_nu[i]),
            "mean_steps": float(s_tbar[i]),
            "meta": {"latent": [f"k{topic[i]}"]},
        }
        for i in range(n_skills)
    ]
    edge_recs: list[dict[str, Any]] = []
    sub_recs: list[dict[str, Any]] = []
    sub_texts: list[str] = []
    edge_texts: list[str] = []
    e_nu, e_sigma, e_tbar = stats(n_edges)
    for j in range(n_edges):
        m = members[int(rng.integers(0, n_topics))]
        if len(m) == 0:
            m = np.array([int(rng.integers(0, n_skills))])
        k = min(len(m), int(rng.integers(2, 5)))
        skills = [int(x) for x in rng.choice(m, size=k, replace=False)]
        if rng.random() < 0.2:
            stray = int(rng.integers(0, n_skills))
            if stray not in skills:
                skills.append(stray)
        u_ids = []
        for step in rng.choice(len(steps_pool), size=int(rng.integers(1, 4)), replace=False):
            uid = f"u{len(sub_recs) + 1}"
            u_ids.append(uid)
            sub_texts.append(steps_pool[step])
            sub_recs.append({"id": uid, "kind": "subtask", "content": steps_pool[step]})
        task = f"Task {j}: {_sentence(rng, 8)}"
        lesson = _sentence(rng, 9)
        edge_texts.append(f"{task}\n{lesson}")
        steps = int(rng.integers(1, 21))
        edge_recs.append(
            {
                "id": f"e{j + 1}",
                "node_ids": u_ids + [f"s{i + 1}" for i in skills],
                "task": task,
                "lesson": lesson,
                "success": bool(rng.random() < 0.5),
                "steps": steps,
                "calls": steps,
                "sigma": float(e_sigma[j]),
                "nu": int(e_nu[j]),
                "mean_steps": float(e_tbar[j]),
                "meta": {},
            }
        )
    u_nu, u_sigma, u_tbar = stats(len(sub_recs))
    for r, nu, sg, tb in zip(sub_recs, u_nu, u_sigma, u_tbar):
        r.update({"sigma": float(sg), "nu": int(nu), "mean_steps": float(tb), "meta": {}})

    skill_texts = [f"{n}: {c}" for n, c in zip(names, contents)]
    node_emb = np.concatenate([encoder.encode(sub_texts), encoder.encode(skill_texts)])
    edge_emb = encoder.encode(edge_texts)
    config = HyperSkillConfig()
    manifest = {
        "format": FORMAT,
        "version": 1,  # plain records, read by the format-1 reader
        "encoder": {"name": encoder.name, "dim": dim},
        "config": config.to_dict(),
        "counters": {"u": len(sub_recs) + 1, "s": n_skills + 1, "e": n_edges + 1},
        "t_range": [1.0, 20.0],
        "counts": {"nodes": len(sub_recs) + n_skills, "edges": n_edges},
    }
    state = {
        "manifest": manifest,
        "nodes": sub_recs + skill_recs,
        "edges": edge_recs,
        "node_emb": node_emb,
        "edge_emb": edge_emb,
    }
    return state, planted


def rss_mb() -> tuple[float, float]:
    """(current RSS, peak RSS) in MB. Linux: VmRSS and VmHWM from /proc/self/status (the
    high-water mark that `reset_peak_rss` resets; ru_maxrss is not reset by it and, in a
    child process, can still hold the parent's size from before exec). Elsewhere: nan
    and ru_maxrss."""
    try:
        status = Path("/proc/self/status").read_text().splitlines()
        field = {line.split(":")[0]: line.split()[1] for line in status if line.startswith("Vm")}
        return int(field["VmRSS"]) / 1024, int(field["VmHWM"]) / 1024
    except (OSError, KeyError, IndexError, ValueError):
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux, B on macOS
        return float("nan"), peak / 1024 if sys.platform != "darwin" else peak / 2**20


def reset_peak_rss() -> bool:
    """Reset the peak-RSS high-water mark (Linux: write 5 to /proc/self/clear_refs), so
    the peak of `rss_mb` afterwards measures only what follows. False where unsupported."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def build_memory(args: argparse.Namespace, encoder: HashingEncoder):
    t0 = time.perf_counter()
    state, planted = build_state(args.skills, args.edges, args.seed, args.dim, encoder)
    mem = _from_records_v1(state, encoder, None, Path("<bench_maintenance>"))
    del state
    gc.collect()
    return mem, planted, time.perf_counter() - t0


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--skills", type=int, default=10_000)
    ap.add_argument("--edges", type=int, default=100_000)
    ap.add_argument("--dim", type=int, default=384)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--no-trace", action="store_true", help="skip the tracemalloc run")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = ap.parse_args(argv)
    out: dict[str, Any] = {"skills": args.skills, "edges": args.edges, "seed": args.seed}

    encoder = HashingEncoder(dim=args.dim)
    mem, planted, secs = build_memory(args, encoder)
    print(f"built in {secs:.1f} s: {mem.stats()} ({planted} planted paraphrases)")
    out.update(build_s=secs, planted=planted, incidences=mem.stats()["incidences"])
    _, peak_build = rss_mb()
    reset = reset_peak_rss()
    rss_before, _ = rss_mb()

    report = maintain(mem, TemplateMerger())
    _, peak_maint = rss_mb()
    sims = [m["similarity"] for m in report.merged]
    print(f"maintain: {report.seconds:.2f} s wall")
    print(
        f"  pruned {report.n_pruned} nodes "
        f"({sum(p['kind'] == 'skill' for p in report.pruned)} skills), "
        f"merged {report.n_merged} pairs"
        + (f" (similarity {min(sims):.3f}..{max(sims):.3f})" if sims else "")
    )
    print(f"  sizes before {report.sizes_before}")
    print(f"  sizes after  {report.sizes_after}")
    print(f"peak RSS while building: {peak_build:.0f} MB")
    if reset:
        print(
            f"RSS before maintain: {rss_before:.0f} MB; peak RSS during maintain: "
            f"{peak_maint:.0f} MB (+{peak_maint - rss_before:.0f} MB)"
        )
    else:
        print(f"peak RSS of the process (could not reset the high-water mark): {peak_maint:.0f} MB")
    out.update(
        maintain_s=report.seconds,
        pruned=report.n_pruned,
        pruned_skills=sum(p["kind"] == "skill" for p in report.pruned),
        merged=report.n_merged,
        sizes_before=report.sizes_before,
        sizes_after=report.sizes_after,
        rss_before_mb=rss_before if reset else None,
        rss_peak_during_mb=peak_maint if reset else None,
    )
    t = time.perf_counter()
    mem.validate()
    print(f"validate() after maintain: ok ({time.perf_counter() - t:.1f} s)")

    if not args.no_trace:
        del mem, report
        gc.collect()
        mem, _, _ = build_memory(args, HashingEncoder(dim=args.dim))
        tracemalloc.start()
        maintain(mem, TemplateMerger())
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        n_s = args.skills
        print(
            f"tracemalloc peak during maintain (fresh copy): {peak / 2**20:.0f} MB "
            f"(one dense {n_s} x {n_s} float64 array: {n_s * n_s * 8 / 2**20:.0f} MB)"
        )
        out.update(traced_peak_mb=peak / 2**20, dense_equivalent_mb=n_s * n_s * 8 / 2**20)
    if args.json is not None:
        args.json.write_text(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
