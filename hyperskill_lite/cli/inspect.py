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

Not here: what the page holds (studio/).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

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


def _default_out(folders: list[Path]) -> Path:
    if len(folders) == 1:
        return folders[0] / DEFAULT_NAME
    parents = [f.resolve().parent.parts for f in folders]
    common: list[str] = []
    for level in zip(*parents):
        if len(set(level)) != 1:
            break
        common.append(level[0])
    return Path(*common) / DEFAULT_NAME if common else Path(DEFAULT_NAME)


def command(args: argparse.Namespace) -> int:
    if args.samples < 0:
        raise ValueError(f"--samples must be >= 0, got {args.samples}")
    if not 0.0 < args.alpha < 1.0:
        raise ValueError(f"--alpha must be between 0 and 1, got {args.alpha}")
    folders = expand_runs(args.runs)
    out = args.out if args.out is not None else _default_out(folders)
    if out.exists() and out.is_dir():
        raise IsADirectoryError(f"{out}: is a folder; give --out a file name ending in .html")
    if out.exists() and not is_studio_page(out):
        raise FileExistsError(f"{out}: exists and is not a studio page; refusing to replace "
                              "it (choose another --out)")
    t0 = time.perf_counter()
    path = build_studio(folders, out, seed=args.seed, samples=args.samples, alpha=args.alpha,
                        title=args.title)
    size = path.stat().st_size / 1e6
    print(f"wrote {path} ({len(folders)} run{'s' if len(folders) > 1 else ''}, {size:.1f} MB, "
          f"{time.perf_counter() - t0:.1f} s): open it in a browser")
    return 0
