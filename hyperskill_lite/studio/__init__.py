"""The memory studio: one self-contained HTML page that shows what a run's memory learned,
why each task saw what it saw, and how the memory changed (``python -m hyperskill_lite
inspect RUN [RUN ...]``; docs/guide/studio.md; notebook 10). Its data model and its
drawing's script are also the notebook widget's (hyperskill_lite/widget/, ``show``).

===================  ====================================================================
module               what it holds
===================  ====================================================================
runs.py              run folders: one run, or every run in a demo, compare or sweep folder
history.py           a run's memory snapshots (maintenance checkpoints, final state)
graph.py             the drawing: what is drawn (aggregated beyond a budget: the page's,
                     the widget's), the layout, each checkpoint's elements and their
                     gamma, nu and degree
provenance.py        each skill's provenance; what each maintenance cycle did
explain.py           each episode's retrieval as `Retrieval.explain()` prints it
hygiene.py           near-duplicates, contradictions, never retrieved, utility
cooccurrence.py      skill pairs co-occurring beyond chance (configuration-model
                     permutation test, Benjamini-Hochberg)
records.py           a run's records in one streaming pass, retrievals read on demand
table.py             a big run's records in compact columns (bounded memory)
charts.py            the run's charts as data (the page draws them as SVG)
build.py             all of it as the page's JSON data (`studio_data`, `run_view`)
memory_view.py       the same run view of a memory alone (`memory_view`: the widget's)
render.py            the page: template + vis-network (from pyvis) + data, one file;
                     the widget's ES module (`widget_module`)
templates/           package data: view.js / view.css (the drawing, its controls, the
                     details and retrievals: the page's and the widget's), studio.js /
                     studio.css / studio.html (the page), widget.js (the widget's glue)
===================  ====================================================================

Data extraction (everything up to build.py) is apart from the HTML (render.py and the
templates): the page's data is plain JSON and can be inspected or tested alone. Our
addition: the paper has no such tool.

May import: core, types, runner, protocol, plots. Not here: running anything (runner/,
launch.py), the command line (cli/inspect.py).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hyperskill_lite.core.confined import write_text
from hyperskill_lite.core.io.read import gc_paused
from hyperskill_lite.studio.build import StudioOptions, run_view, studio_data
from hyperskill_lite.studio.cooccurrence import (
    CooccurrenceTest,
    benjamini_hochberg,
    cooccurrence_significance,
    permutation_test,
)
from hyperskill_lite.studio.memory_view import memory_view
from hyperskill_lite.studio.render import (
    StudioDependencyError,
    is_studio_page,
    render,
    write_studio,
)
from hyperskill_lite.studio.runs import expand_runs, find_runs, read_run

__all__ = [
    "build_studio",
    "StudioOptions",
    "StudioDependencyError",
    "studio_data",
    "run_view",
    "memory_view",
    "render",
    "write_studio",
    "is_studio_page",
    "expand_runs",
    "find_runs",
    "read_run",
    "CooccurrenceTest",
    "permutation_test",
    "benjamini_hochberg",
    "cooccurrence_significance",
]


def build_studio(runs: Sequence[Path | str], out: Path | str, seed: int = 0,
                 samples: int = 1000, alpha: float = 0.05, title: str = "",
                 root: Path | str | None = None) -> Path:
    """Write the studio page of the given run folders (a demo, compare or sweep folder
    stands for every run inside it) to the HTML file `out`, inside the folder `root`
    (default: `out`'s own) and never through a link leading out of it (core/confined.py);
    returns its path."""
    folders = expand_runs(runs)
    out = Path(out)
    with gc_paused():  # records.py: many acyclic containers, freed when done
        data = studio_data([read_run(f) for f in folders],
                           StudioOptions(seed=seed, samples=samples, alpha=alpha), title=title)
        write_text(out.absolute().parent if root is None else root, out, render(data))
        return out
