"""sweep/results.py (issue 33): the sweep table pairs every setting with no-memory of the
same backbone, task set and config by task and seed, with the bootstrap interval of
stats.py; figures are drawn over every seed (mean and band), not the first one only."""

from __future__ import annotations

import numpy as np
import pytest

from hyperskill_lite.runner import read_records
from hyperskill_lite.stats import DEFAULT_BOOT, outcome_map, pair_rng, paired_differences
from hyperskill_lite.sweep import parse_sweep, run_sweep
from hyperskill_lite.sweep.results import STATS_SEED, write_results


@pytest.fixture(scope="module")
def sweep(tmp_path_factory):
    out = tmp_path_factory.mktemp("sweep-results") / "out"
    spec = parse_sweep({"sweep": {"episodes": 10, "encoder": "hashing"},
                        "grid": {"method": ["no-memory", "hyperskill", "flat"],
                                 "profile": ["xbench"], "seed": [0, 1]}})
    results, paths = run_sweep(spec, out, jobs=2, log=None)
    assert [r.status for r in results] == ["done"] * 6
    return out, results, paths


def test_the_table_carries_the_paired_difference_to_no_memory(sweep):
    import pandas as pd

    out, results, paths = sweep
    table = pd.read_csv(paths["csv"]).set_index("setting")
    outcomes = {m: {(s, 42): outcome_map(read_records(out / "skillworld" / "xbench" / m
                                                      / f"seed-{s}")) for s in (0, 1)}
                for m in ("no-memory", "hyperskill", "flat")}
    want = [d for m in ("hyperskill", "flat")  # each pair its own generator (stats.pair_rng)
            for d in paired_differences(outcomes, "no-memory", pair_rng(STATS_SEED, "no-memory", m),
                                        [m], n_boot=DEFAULT_BOOT)]
    for d in want:
        row = table.loc[d.method]
        assert (row["dSR no-memory"], row["dSR no-memory low"], row["dSR no-memory high"]) == \
            pytest.approx((d.diff, d.low, d.high), abs=1e-4)
        assert row["SR"] - table.loc["no-memory", "SR"] == pytest.approx(d.diff)
    assert np.isnan(table.loc["no-memory", "dSR no-memory"])
    assert (table.seeds == 2).all() and (table.orders == 1).all()
    md = paths["markdown"].read_text()
    assert "ΔSR vs no-memory" in md and "bootstrap 95% interval" in md


def test_a_reference_method_adds_its_own_columns(sweep, tmp_path):
    out, results, _ = sweep
    paths = write_results(results, out, reference="flat")
    import pandas as pd

    table = pd.read_csv(paths["csv"]).set_index("setting")
    assert not np.isnan(table.loc["hyperskill", "dSR flat"])
    assert np.isnan(table.loc["no-memory", "dSR flat"])  # no-memory is the baseline
    assert "ΔSR vs flat" in paths["markdown"].read_text()


def test_the_figures_are_drawn_over_every_seed(sweep):
    out, _, paths = sweep
    assert paths["skillworld_xbench_cumulative_sr"].stat().st_size > 10_000
    assert paths["skillworld_xbench_hyperskill_growth"].is_file()
    assert "skillworld_xbench_no-memory_growth" not in paths
