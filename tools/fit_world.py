#!/usr/bin/env python3
"""Fit SkillWorld's calibrated text model to the measured extraction statistics.

    .venv/bin/python tools/fit_world.py [--episodes 165] [--seed 0] [--quick]

What it fits: the `WorldParams` fields of the calibrated phrasing (`name_zipf`,
`content_zipf`, `reemit`, `reemit_verbatim`, `lead_in`), so that the stream of skills SimLLM extracts
in a HyperSkill run on the 165-task gaia profile (seed 0, all-MiniLM-L6-v2) has the
statistics of ``hyperskill_lite/world/data/calibration.json``'s target: the nearest-earlier cosine
quantiles of "name: content" and of the names, the shares at or above 0.85 and 0.9, and
the exact-name repeat rate. The loss is the sum of squared differences of those numbers
(the repeat rate relative to its target); the chosen point is the one with the lowest
loss among those that meet the tolerances tests/test_calibration.py asserts
(`within_tolerance`).

What it never looks at: success rates, steps, or any comparison between methods. The
fit reads only the text the simulated model writes; it was run once, before any method
was compared on the calibrated world, and the chosen values are the defaults in
hyperskill_lite/world/params.py, where each field names this fit as its source.

The grid (coarse, then the neighbourhood of the best point) is printed with each point's
loss, and the best point's statistics beside the target.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hyperskill_lite.core.config import HyperSkillConfig  # noqa: E402
from hyperskill_lite.core.embed import encoder_by_name  # noqa: E402
from hyperskill_lite.methods import make_method  # noqa: E402
from hyperskill_lite.protocol import shuffled  # noqa: E402
from hyperskill_lite.runner import read_records, run_episodes  # noqa: E402
from hyperskill_lite.world import SimExecutor, SimLLM, WorldParams, make_tasks  # noqa: E402
from hyperskill_lite.world.calibration import (  # noqa: E402
    compare_to_target,
    extraction_stream,
    load_calibration,
    stream_stats,
)

FIELDS = ("name_zipf", "content_zipf", "reemit", "reemit_verbatim", "lead_in")
GRID = {
    "name_zipf": (0.25, 0.5, 0.75),
    "content_zipf": (0.75, 1.0, 1.25),
    "reemit": (0.25, 0.5, 0.75),
    "reemit_verbatim": (0.5,),
    "lead_in": (0.75, 1.0),
}
"""The coarse grid."""
FINE = {
    "name_zipf": (0.0, 0.125),
    "content_zipf": (1.0, 1.125),
    "reemit": (0.5, 0.625),
    "reemit_verbatim": (0.5,),
    "lead_in": (0.875, 1.0),
}
"""The fine grid, where the coarse grid and its refinement pointed (names nearly
uniform, the house style on most contents)."""


def within_tolerance(stats: dict, target: dict) -> bool:
    """What tests/test_calibration.py asserts: text q10 / q50 / q90 and name q50 / q90
    within 0.05 of the target, the exact-name repeat rate within 25 % of it. (The name
    q10 is reported, not required: see the test.)"""
    cmp = compare_to_target(stats, target)
    quantiles = ["text.q10", "text.q50", "text.q90", "name.q50", "name.q90"]
    return all(abs(cmp[k]["diff"]) <= 0.05 for k in quantiles) and abs(
        cmp["name_repeat_rate"]["rel"]) <= 0.25


def measure(values: dict[str, float], episodes: int, seed: int, encoder) -> dict:
    """Extraction-stream statistics of one HyperSkill run with these text parameters."""
    params = WorldParams(phrasing="calibrated", **values)
    tasks = shuffled(make_tasks("gaia", seed=seed), seed=42)[:episodes]
    system = make_method("hyperskill", SimLLM(params, seed=seed), encoder, HyperSkillConfig())
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=scratch) as d:
        run_episodes(system, tasks, SimExecutor(params, seed=seed), Path(d) / "run",
                     progress=False, run_info={"fit": values})
        names, contents = extraction_stream(read_records(Path(d) / "run"))
    return stream_stats(encoder, contents, names)


def loss(stats: dict, target: dict) -> float:
    cmp = compare_to_target(stats, target)
    total = sum(v["diff"] ** 2 for k, v in cmp.items() if "diff" in v)
    total += cmp["name_repeat_rate"]["rel"] ** 2 * 0.1
    return total


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--episodes", type=int, default=165)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--quick", action="store_true", help="the coarse grid only")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    target = load_calibration()["target"]
    encoder = encoder_by_name("minilm")
    results = []

    def run(values: dict[str, float]) -> float:
        key = tuple(values[f] for f in FIELDS)
        for k, l_, _ in results:
            if k == key:
                return l_
        t0 = time.perf_counter()
        stats = measure(values, args.episodes, args.seed, encoder)
        l_ = loss(stats, target)
        results.append((key, l_, stats))
        t = stats["text"]
        print(f"{dict(zip(FIELDS, key))}  loss {l_:.4f}  text {t['q10']:.2f}/{t['q50']:.2f}/"
              f"{t['q90']:.2f} >=.9 {t['ge_0.90']:.2f} repeat {stats['name_repeat_rate']:.2f}  "
              f"({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True)
        return l_

    for combo in itertools.product(*(GRID[f] for f in FIELDS)):
        run(dict(zip(FIELDS, combo)))
    if not args.quick:  # one round of refinement around the best point, then the fine grid
        best = min(results, key=lambda r: r[1])[0]
        steps = {"name_zipf": 0.125, "content_zipf": 0.125, "reemit": 0.125,
                 "reemit_verbatim": 0.25, "lead_in": 0.125}
        for f in FIELDS:
            for sign in (-1, 1):
                v = dict(zip(FIELDS, best))
                upper = 1.0 if f in ("reemit", "reemit_verbatim", "lead_in") else 9.0
                v[f] = round(min(max(v[f] + sign * steps[f], 0.0), upper), 4)
                run(v)
        for combo in itertools.product(*(FINE[f] for f in FIELDS)):
            run(dict(zip(FIELDS, combo)))
    ok = [r for r in results if within_tolerance(r[2], target)]
    key, best_loss, stats = min(ok or results, key=lambda r: r[1])
    out = {
        "fitted": dict(zip(FIELDS, key)),
        "loss": best_loss,
        "run": {"profile": "gaia", "episodes": args.episodes, "seed": args.seed,
                "method": "hyperskill", "encoder": encoder.name},
        "against_target": compare_to_target(stats, target),
        "grid_points": len(results),
        "points_within_tolerance": len(ok),
    }
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
