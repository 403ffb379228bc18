"""stats.py: the paired bootstrap against a naive loop that repeats its draws, a method
against itself (the interval holds 0), a planted +10-point difference (the interval
excludes 0), pairing by cell and task key, and clear refusals."""

from __future__ import annotations

import numpy as np
import pytest

from hyperskill_lite.stats import (
    PairedDifference,
    bootstrap_ci,
    format_paired,
    outcome_map,
    paired_cells,
    paired_differences,
)


def naive_ci(diffs, seed, n_boot, level, scheme):
    """The same bootstrap written as plain loops, drawing in the documented order."""
    rng = np.random.default_rng(seed)
    cells = [list(map(float, d)) for d in diffs]
    reps = []
    if scheme == "within-cell":
        draws = [rng.integers(0, len(d), size=(n_boot, len(d))) for d in cells]
        for b in range(n_boot):
            total = sum(d[draws[c][b][t]] for c, d in enumerate(cells) for t in range(len(d)))
            reps.append(total / sum(len(d) for d in cells))
    else:
        C = len(cells)
        choice = rng.integers(0, C, size=(n_boot, C))
        sums = [[0.0] * C for _ in range(n_boot)]
        for j in range(C):
            for c, d in enumerate(cells):
                who = [b for b in range(n_boot) if choice[b][j] == c]
                if who:
                    idx = rng.integers(0, len(d), size=(len(who), len(d)))
                    for row, b in enumerate(who):
                        sums[b][j] = sum(d[t] for t in idx[row])
        for b in range(n_boot):
            reps.append(sum(sums[b]) / sum(len(cells[c]) for c in choice[b]))
    reps.sort()
    low, high = np.quantile(reps, [(1 - level) / 2, (1 + level) / 2])
    mean = sum(sum(d) for d in cells) / sum(len(d) for d in cells)
    return mean, float(low), float(high)


@pytest.mark.parametrize("scheme", ["within-cell", "hierarchical"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_bootstrap_matches_a_naive_loop(scheme, seed):
    data = np.random.default_rng(100 + seed)
    diffs = [100.0 * (data.integers(0, 2, n) - data.integers(0, 2, n)) for n in (7, 12, 5)]
    got = bootstrap_ci(diffs, np.random.default_rng(seed), n_boot=300, level=0.9, scheme=scheme)
    want = naive_ci(diffs, seed, 300, 0.9, scheme)
    assert got == pytest.approx(want, abs=1e-9)


def _runs(p: float, n_cells: int = 3, n_tasks: int = 100, seed: int = 0):
    """Outcomes of a reference: Bernoulli(p) per task, one map per (seed, order) cell."""
    rng = np.random.default_rng(seed)
    return {(c, 42): {(i, f"t{c}-{i}"): float(rng.random() < p) for i in range(n_tasks)}
            for c in range(n_cells)}


def test_a_method_against_itself_has_an_interval_holding_zero():
    ref = _runs(0.45)
    d = paired_differences({"m": ref, "ref": ref}, "ref", np.random.default_rng(0))[0]
    assert (d.diff, d.low, d.high) == (0.0, 0.0, 0.0)
    assert d.low <= 0 <= d.high and not d.excludes_zero
    assert (d.cells, d.pairs) == (3, 300)


def test_two_runs_of_equal_chance_have_an_interval_holding_zero():
    """Independent draws with the same success chance: no real difference, and the
    interval (over 300 paired tasks) says so."""
    a, b = _runs(0.45, seed=1), _runs(0.45, seed=2)
    for scheme in ("within-cell", "hierarchical"):
        d = paired_differences({"a": a, "b": b}, "b", np.random.default_rng(0),
                               scheme=scheme)[0]
        assert d.low < 0 < d.high, (scheme, d)


def test_a_planted_ten_point_difference_excludes_zero():
    """The method solves every task the reference solves, plus 10 of each cell's 100
    failures: exactly +10 points; the interval excludes 0 and holds +10."""
    ref = _runs(0.40)
    method = {cell: dict(tasks) for cell, tasks in ref.items()}
    for tasks in method.values():
        for key in [k for k, v in tasks.items() if v == 0.0][:10]:
            tasks[key] = 1.0
    for scheme in ("within-cell", "hierarchical"):
        d = paired_differences({"m": method, "ref": ref}, "ref", np.random.default_rng(0),
                               scheme=scheme)[0]
        assert d.diff == pytest.approx(10.0)
        assert d.excludes_zero and d.low > 0 and d.low <= 10.0 <= d.high


def test_pairs_by_cell_and_task_key_and_the_seed_fixes_the_interval():
    a = {(0, 42): {(0, "x"): 1.0, (1, "y"): 0.0}, (1, 42): {(0, "z"): 1.0}}
    b = {(0, 42): {(0, "x"): 0.0, (2, "w"): 1.0}, (2, 42): {(0, "q"): 0.0}}
    cells = paired_cells({"a": a, "b": b}, "a", "b")
    assert [c.tolist() for c in cells] == [[100.0]]  # one cell, one shared task
    one = paired_differences({"a": _runs(0.5, seed=3), "b": _runs(0.3)}, "b",
                             np.random.default_rng(7))
    two = paired_differences({"a": _runs(0.5, seed=3), "b": _runs(0.3)}, "b",
                             np.random.default_rng(7))
    assert one == two


def test_outcome_map_and_the_table():
    assert outcome_map([{"index": 3, "task_id": "t", "success": False}]) == {(3, "t"): 0.0}
    d = [PairedDifference("a", "no-memory", 1.0, -2.0, 4.0, 3, 300),
         PairedDifference("a", "hyperskill", -5.0, -9.0, -1.0, 3, 300)]
    lines = format_paired(d, "title").splitlines()
    assert lines[0] == "title"
    assert lines[2].split() == ["a", "+1.00", "[-2.00,", "+4.00]", "-5.00", "[-9.00,", "-1.00]",
                                "*"]


def test_refusals_name_the_problem():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="no paired differences"):
        bootstrap_ci([[], []], rng)
    with pytest.raises(ValueError, match="scheme must be one of"):
        bootstrap_ci([[1.0]], rng, scheme="jackknife")
    with pytest.raises(ValueError, match="level must be in"):
        bootstrap_ci([[1.0]], rng, level=1.5)
    with pytest.raises(ValueError, match="no outcomes for 'ref'"):
        paired_differences({"a": {}}, "ref", rng)
    with pytest.raises(ValueError, match="share no task"):
        paired_differences({"a": {0: {1: 1.0}}, "ref": {1: {1: 1.0}}}, "ref", rng)
