#!/usr/bin/env python3
"""Keep the README's numbers equal to the artefacts they come from.

    .venv/bin/python tools/readme.py            # rewrite every generated block
    .venv/bin/python tools/readme.py --check    # exit 1 and say which block differs

A generated block sits between ``<!-- generated: NAME (tools/readme.py) -->`` and
``<!-- end generated: NAME -->`` and is written only by this tool, from:

- ``demo``: what ``python -m hyperskill_lite demo`` prints (the table of `make demo`,
  gaia, seed 0, MiniLM), from a fresh run in a temporary folder; it also writes the two
  demo figures into figures/ (the README shows them);
- ``baselines`` and ``ablations``: the Table-1-style SR deltas of the README, from the
  ``compare.json`` files of the README's compare commands, copied into
  ``results/compare/`` (``--from DIR`` copies them from the commands' output folders).

`tests/test_readme.py` runs the check (the demo's timing columns aside) and also checks
the numbers the README copies from the notebooks' headers (run times).

Not here: the prose around the blocks (written by hand, and it quotes no number a block
or a test does not carry).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
RESULTS = ROOT / "results" / "compare"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) \(tools/readme\.py\) -->\n)(?P<body>.*?)"
                   r"(<!-- end generated: (?P=name) -->)", re.S)
DEMO_ARGS = ["demo"]  # the README's `make demo`: gaia, seed 0, MiniLM, every episode


def demo_output(out: Path, figures: Path) -> str:
    """Run the demo (as `make demo` does) into `out`; the lines it prints from the title
    of its table to the table's end."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "MPLBACKEND": "Agg"}
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite", *DEMO_ARGS, "--out",
                           str(out), "--figures", str(figures)], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"demo failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    lines = done.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("SkillWorld '"))
    end = next(i for i in range(start + 2, len(lines)) if not lines[i].strip()
               or lines[i].startswith("wrote "))
    return "\n".join(lines[start:end])


def demo_block(figures: Path | None = None) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        text = demo_output(Path(tmp) / "demo", figures or Path(tmp) / "figures")
    return f"```text\n{text}\n```\n"


GENERATORS = {"demo": demo_block}


def render(name: str, write_figures: bool) -> str:
    if name == "demo":
        return demo_block(ROOT / "figures" if write_figures else None)
    return GENERATORS[name]()


def blocks(text: str) -> dict[str, str]:
    """The generated blocks of a README text: name -> body."""
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}


def replace(text: str, name: str, body: str) -> str:
    def sub(m: re.Match) -> str:
        return m.group(0) if m.group("name") != name else m.group(1) + body + m.group(4)

    return BLOCK.sub(sub, text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="compare, write nothing")
    ap.add_argument("--only", nargs="*", default=None, help="block names (default: all)")
    ap.add_argument("--from", dest="source", type=Path, default=None,
                    help="copy compare.json files found under this folder into results/compare")
    args = ap.parse_args(argv)
    if args.source is not None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        for f in sorted(args.source.rglob("compare.json")):
            doc = json.loads(f.read_text())
            dst = RESULTS / f"{doc['profile']}-{doc['phrasing']}.json"
            shutil.copy2(f, dst)
            print(f"copied {f} -> {dst.relative_to(ROOT)}")
    text = README.read_text(encoding="utf-8")
    names = [n for n in blocks(text) if args.only is None or n in args.only]
    bad = []
    for name in names:
        body = render(name, write_figures=not args.check)
        if args.check:
            if blocks(text)[name] != body:
                bad.append(name)
        else:
            text = replace(text, name, body)
    if args.check:
        for name in bad:
            print(f"README block {name!r} differs from what tools/readme.py generates; run it")
        return 1 if bad else 0
    README.write_text(text, encoding="utf-8")
    print(f"rewrote {', '.join(names)} in README.md")
    return 0


if __name__ == "__main__":
    sys.exit(main())
