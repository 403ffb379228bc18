"""Paired differences between memory methods, with bootstrap confidence intervals.

Two methods run on the same tasks, in the same order, with the same world seed, see the
same simulated model and executor draws (SkillWorld's draws are keyed by seed and task
id) or the same live tasks. Their difference is therefore measured **paired**: per task,
method minus reference (in percentage points for a success 0/1), averaged over every
paired task of every cell, a cell being one (world seed, task order) combination. The
interval is a percentile bootstrap of that mean:

- ``"within-cell"`` (default): each replicate resamples the tasks of every cell with
  replacement, keeping the cells (stratified bootstrap). Why: a comparison here has few
  cells (3 seeds x 1-3 orders) and many tasks per cell (100-170). The paired difference
  of one task already carries that cell's draws (which task it is and how the two runs'
  outcomes fell), so resampling tasks within cells captures the task-to-task and
  outcome noise; resampling 3-9 cells would make the interval hinge on which few cells
  were drawn (a mean of 3 values has at most 10 bootstrap values). What it leaves out:
  the seeds are treated as fixed strata, and a run is one path (later episodes depend on
  what the memory learned earlier), so tasks are not strictly independent; read a
  narrow interval as "not task noise", not as a population claim.
- ``"hierarchical"``: each replicate resamples the cells, then the tasks within each
  drawn cell: wider, and sensible once there are many cells (e.g. 10+ seeds x orders).

The random generator is an argument (``np.random.default_rng(seed)``): the same data,
generator seed and replicate count give the same interval.

>>> rng = np.random.default_rng(0)
>>> same = paired_differences({"a": {0: {1: 1.0, 2: 0.0}}, "b": {0: {1: 1.0, 2: 0.0}}},
...                           reference="b", rng=rng)
>>> str(same[0]), same[0].excludes_zero
('+0.00 [+0.00, +0.00]', False)

Not here: running the methods (compare.py, sweep/), plotting.
"""

from __future__ import annotations

import zlib
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

__all__ = ["PairedDifference", "bootstrap_ci", "paired_cells", "paired_differences", "pair_rng",
           "outcome_map", "format_paired", "SCHEMES", "DEFAULT_BOOT"]

SCHEMES = ("within-cell", "hierarchical")
DEFAULT_BOOT = 2000
"""Bootstrap replicates by default (the interval's ends move by < 0.1 point beyond it)."""

Outcomes = Mapping[str, Mapping[Hashable, Mapping[Hashable, float]]]
"""method -> cell (e.g. (seed, order)) -> task key (e.g. (index, task id)) -> outcome."""


@dataclass(frozen=True)
class PairedDifference:
    """One method against a reference: the mean paired difference `diff` and its
    bootstrap interval [`low`, `high`] at `level`, over `pairs` paired tasks in `cells`
    cells (units of `scale`: percentage points for successes)."""

    method: str
    reference: str
    diff: float
    low: float
    high: float
    cells: int
    pairs: int
    level: float = 0.95
    scheme: str = "within-cell"

    @property
    def excludes_zero(self) -> bool:
        """True when the whole interval lies on one side of 0."""
        return self.low > 0 or self.high < 0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "excludes_zero": self.excludes_zero}

    def __str__(self) -> str:
        return f"{self.diff:+.2f} [{self.low:+.2f}, {self.high:+.2f}]"


def _check(diffs: Sequence[ArrayLike], n_boot: int, level: float, scheme: str) -> list[np.ndarray]:
    cells = [np.asarray(d, dtype=np.float64).reshape(-1) for d in diffs]
    cells = [d for d in cells if d.size]
    if not cells:
        raise ValueError("bootstrap_ci: no paired differences (no cell has a paired task)")
    if any(not np.all(np.isfinite(d)) for d in cells):
        raise ValueError("bootstrap_ci: paired differences must be finite")
    if int(n_boot) < 1:
        raise ValueError(f"bootstrap_ci: n_boot must be >= 1, got {n_boot}")
    if not 0.0 < level < 1.0:
        raise ValueError(f"bootstrap_ci: level must be in (0, 1), got {level}")
    if scheme not in SCHEMES:
        raise ValueError(f"bootstrap_ci: scheme must be one of {SCHEMES}, got {scheme!r}")
    return cells


def bootstrap_ci(
    diffs: Sequence[ArrayLike],
    rng: np.random.Generator,
    n_boot: int = DEFAULT_BOOT,
    level: float = 0.95,
    scheme: str = "within-cell",
) -> tuple[float, float, float]:
    """(mean, low, high): the mean of all paired differences pooled over cells, and its
    percentile bootstrap interval (module docstring for the schemes).

    Parameters
    ----------
    diffs : one 1-D array per cell, the per-task paired differences (method minus
        reference); empty cells are ignored.
    rng : the random generator (seeded by the caller).
    n_boot : bootstrap replicates.
    level : coverage of the interval (0.95: the 2.5 % and 97.5 % quantiles).
    scheme : "within-cell" or "hierarchical".

    Notes
    -----
    Draw order (what a reference implementation must repeat): within-cell, for each cell
    in order, ``rng.integers(0, n_c, size=(n_boot, n_c))``; hierarchical, first
    ``rng.integers(0, C, size=(n_boot, C))`` for the cells of each replicate, then for
    each position j and each cell c in order, one such draw for the replicates whose
    j-th cell is c.

    >>> rng = np.random.default_rng(1)
    >>> mean, low, high = bootstrap_ci([np.full(50, 10.0), np.r_[np.full(25, 20.0), np.zeros(25)]], rng)
    >>> round(mean, 2), low > 0, high > mean
    (10.0, True, True)
    """
    cells = _check(diffs, n_boot, level, scheme)
    n_boot = int(n_boot)
    sizes = np.array([d.size for d in cells])
    mean = float(np.concatenate(cells).mean())
    if scheme == "within-cell":
        total = np.zeros(n_boot)
        for d in cells:
            idx = rng.integers(0, d.size, size=(n_boot, d.size))
            total += d[idx].sum(axis=1)
        reps = total / sizes.sum()
    else:
        C = len(cells)
        choice = rng.integers(0, C, size=(n_boot, C))
        sums = np.zeros((n_boot, C))
        for j in range(C):
            for c, d in enumerate(cells):
                who = np.flatnonzero(choice[:, j] == c)
                if who.size:
                    idx = rng.integers(0, d.size, size=(who.size, d.size))
                    sums[who, j] = d[idx].sum(axis=1)
        reps = sums.sum(axis=1) / sizes[choice].sum(axis=1)
    low, high = np.quantile(reps, [(1.0 - level) / 2.0, (1.0 + level) / 2.0])
    return mean, float(low), float(high)


def outcome_map(records: Iterable[Mapping[str, Any]], key: str = "success") -> dict[tuple, float]:
    """{(index, task id): outcome} of a run's records, the task key `paired_cells` pairs
    on (two runs under one protocol hold the same task at the same index).

    >>> outcome_map([{"index": 0, "task_id": "t7", "success": True}])
    {(0, 't7'): 1.0}
    """
    return {(int(r["index"]), str(r["task_id"])): float(r[key]) for r in records}


def paired_cells(outcomes: Outcomes, method: str, reference: str,
                 scale: float = 100.0) -> list[np.ndarray]:
    """Per cell both have, the differences ``scale * (method - reference)`` over the task
    keys both have, in sorted key order (a cell or task one side lacks is left out)."""
    for name in (method, reference):
        if name not in outcomes:
            raise ValueError(f"paired differences: no outcomes for {name!r}; "
                             f"have {sorted(outcomes)}")
    out = []
    a, b = outcomes[method], outcomes[reference]
    for cell in a:
        if cell not in b:
            continue
        shared = set(a[cell]) & set(b[cell])
        try:
            keys = sorted(shared)
        except TypeError:  # keys of mixed types: any fixed order will do
            keys = sorted(shared, key=repr)
        out.append(scale * np.array([a[cell][k] - b[cell][k] for k in keys], dtype=np.float64))
    return out


def pair_rng(seed: int, reference: str, method: str) -> np.random.Generator:
    """The bootstrap generator of one (method, reference) pair, seeded by `seed` and the
    two names: an interval then does not depend on which other methods were compared, or
    in what order (`compare` and the sweep tables draw every pair from its own).

    >>> a = pair_rng(0, "no-memory", "hyperskill").integers(1000, size=3)
    >>> b = pair_rng(0, "no-memory", "hyperskill").integers(1000, size=3)
    >>> bool((a == b).all()), bool((a == pair_rng(0, "no-memory", "flat").integers(1000, size=3)).all())
    (True, False)
    """
    return np.random.default_rng([seed, zlib.crc32(reference.encode()),
                                  zlib.crc32(method.encode())])


def paired_differences(
    outcomes: Outcomes,
    reference: str,
    rng: np.random.Generator,
    methods: Sequence[str] | None = None,
    n_boot: int = DEFAULT_BOOT,
    level: float = 0.95,
    scheme: str = "within-cell",
    scale: float = 100.0,
) -> list[PairedDifference]:
    """Each method of `outcomes` (or `methods`) other than `reference` against it:
    mean paired difference and bootstrap interval (`bootstrap_ci`), in the order given.
    Methods are drawn from `rng` one after another, so the order and the generator's
    seed fix every interval."""
    names = [m for m in (methods if methods is not None else outcomes) if m != reference]
    out = []
    for m in names:
        cells = paired_cells(outcomes, m, reference, scale)
        pairs = sum(d.size for d in cells)
        if not pairs:
            raise ValueError(f"paired differences: {m!r} and {reference!r} share no task "
                             "(same cells and task keys are needed)")
        mean, low, high = bootstrap_ci(cells, rng, n_boot, level, scheme)
        out.append(PairedDifference(m, reference, mean, low, high,
                                    sum(d.size > 0 for d in cells), pairs, level, scheme))
    return out


def format_paired(diffs: Sequence[PairedDifference], title: str = "") -> str:
    """A text table: one row per method, one column per reference, "diff [low, high]"
    with a "*" where the interval excludes 0.

    >>> d = [PairedDifference("hyperskill", "no-memory", 8.0, 3.5, 12.25, 3, 300)]
    >>> print(format_paired(d))
    method      vs no-memory
    hyperskill  +8.00 [+3.50, +12.25] *
    """
    refs = list(dict.fromkeys(d.reference for d in diffs))
    methods = list(dict.fromkeys(d.method for d in diffs))
    by = {(d.method, d.reference): d for d in diffs}
    table = [["method", *(f"vs {r}" for r in refs)]]
    for m in methods:
        row = [m]
        for r in refs:
            d = by.get((m, r))
            row.append("" if d is None else f"{d}{' *' if d.excludes_zero else ''}")
        table.append(row)
    widths = [max(len(r[j]) for r in table) + 2 for j in range(len(table[0]))]
    lines = [title] if title else []
    lines += ["".join(f"{c:<{w}}" for c, w in zip(r, widths)).rstrip() for r in table]
    return "\n".join(lines)
