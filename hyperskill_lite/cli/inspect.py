"""``python -m hyperskill_lite inspect RUN [RUN ...] [--out FILE.html]``: the memory
studio, one self-contained HTML page of existing run folders.

The page shows each run (success rate with its band, memory growth, tokens and latency,
memory health, protocol and settings), its hypergraph at every maintenance checkpoint
(a slider; filters; click a skill for its provenance), what each maintenance cycle did,
why each task saw what it saw (the retrieval's explain() view and the context), and the
memory's hygiene (near-duplicates, contradictions, never retrieved, utility; each list
exportable as CSV), with two runs side by side. It needs no server and loads nothing: open
it by double-click, or attach it to a review. A demo, compare or sweep folder stands for
every run inside it.

Run folders are read without following a link out of them, and the page is written
without following one out of its folder (core/confined.py): a run.json or records file
that links elsewhere is one ``error:`` line naming it, and nothing outside lands on the
page. A big run is read in bounded memory and its page bounded (studio/table.py,
studio/build.py): what was sampled or left out is said on the page.

Not here: what the page holds (studio/).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from hyperskill_lite.core.confined import inside
from hyperskill_lite.studio import build_studio
from hyperskill_lite.studio.render import is_studio_page
from hyperskill_lite.studio.runs import expand_runs

__all__ = ["add_parser", "command", "DEFAULT_NAME"]

DEFAULT_NAME = "studio.html"


def add_parser(sub, parents) -> argparse.ArgumentParser:
    p = sub.add_parser("inspect", parents=parents,
                       help="the memory studio: one self-contained HTML page of run folders",
                       description=__doc__.split("\n\n")[1])
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN",
                   help="run folders, or a demo, compare or sweep folder (every run inside)")
    p.add_argument("--out", type=Path, default=None,
                   help=f"the HTML file to write (default: RUN/{DEFAULT_NAME} for one run, "
                   f"{DEFAULT_NAME} beside the runs for several)")
    p.add_argument("--seed", type=int, default=0,
                   help="seed of the layout and of the co-occurrence test's null samples "
                   "(default: 0)")
    p.add_argument("--samples", type=int, default=1000,
                   help="null samples of the co-occurrence test; 0 skips it (default: 1000)")
    p.add_argument("--alpha", type=float, default=0.05,
                   help="false discovery rate of the co-occurrence test (default: 0.05)")
    p.add_argument("--title", default="", help="the page's title (default: the run names)")
    p.set_defaults(handler=command)
    return p


def _default_out(folders: list[Path]) -> tuple[Path, Path]:
    """(the page's default path, the folder it is written inside)."""
    if len(folders) == 1:
        return folders[0] / DEFAULT_NAME, folders[0]
    parents = [f.resolve().parent.parts for f in folders]
    common: list[str] = []
    for level in zip(*parents):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    where = Path(*common) if common else Path(".")
    return where / DEFAULT_NAME, where


def command(args: argparse.Namespace) -> int:
    if args.samples < 0:
        raise ValueError(f"--samples must be >= 0, got {args.samples}")
    if not 0.0 < args.alpha < 1.0:
        raise ValueError(f"--alpha must be between 0 and 1, got {args.alpha}")
    folders = expand_runs(args.runs)
    if args.out is not None:
        out, root = args.out, args.out.absolute().parent
    else:
        out, root = _default_out(folders)
    inside(root, out)  # a page that is a link leading out of its folder: refused
    if out.exists() and out.is_dir():
        raise IsADirectoryError(f"{out}: is a folder; give --out a file name ending in .html")
    if out.exists() and not is_studio_page(out):
        raise FileExistsError(f"{out}: exists and is not a studio page; refusing to replace "
                              "it (choose another --out)")
    t0 = time.perf_counter()
    path = build_studio(folders, out, seed=args.seed, samples=args.samples, alpha=args.alpha,
                        title=args.title, root=root)
    size = path.stat().st_size / 1e6
    print(f"wrote {path} ({len(folders)} run{'s' if len(folders) > 1 else ''}, {size:.1f} MB, "
          f"{time.perf_counter() - t0:.1f} s): open it in a browser")
    return 0
