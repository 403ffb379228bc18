#!/usr/bin/env python3
"""Keep the numbers of the README and the user guide equal to the artefacts they come from.

    .venv/bin/python tools/readme.py            # rewrite every generated block
    .venv/bin/python tools/readme.py --check    # exit 1 and say which block differs

The blocks live in README.md (the demo table), in the user guide's pages
(``docs/guide/*.md``: the comparison tables in baselines.md and protocol.md, the
calibration in skillworld.md, the targets in performance.md, the live tier in
live-agent.md, the course's counts in notebooks.md and teaching.md) and in the course's
pages (``docs/*.md``, ``docs/course/*.md``); `pages` lists where the tool looks, and a
block is found and rewritten in whichever page holds it. A generated block sits between ``<!-- generated: NAME (tools/readme.py) -->`` and
``<!-- end generated: NAME -->`` and is written only by this tool, from:

- ``demo``: what ``python -m hyperskill_lite demo`` prints (the table of `make demo`,
  gaia, seed 0, MiniLM), from two fresh runs in a temporary folder, one after the other:
  the first with an empty embedding cache (a fresh machine: every text goes through
  MiniLM once, and the model loads), the second reading the cache the first filled (every
  later run); the table is the second's, and a line under it gives the first's timing
  columns and both runs' wall clock; it also writes the two demo figures into figures/
  (the README shows them);
- ``baselines``, ``ablations`` and ``paired``: the comparison tables of docs/guide/baselines.md and protocol.md (SR
  differences to no memory, paired by task, with bootstrap 95 % intervals, and the
  commands that made them), from the ``compare.json`` files of those commands, copied
  into ``results/compare/`` (``--from DIR`` copies them from the output folders);
- ``calibration``: SkillWorld's calibration targets and fit, from
  ``hyperskill_lite/world/data/calibration*.json``;
- ``perf``: the targets table of ``benchmarks/results/perf.md`` (``make bench``);
- ``live-smoke``: the real-model tier's figures, from ``results/live_smoke.json``
  (``--live-smoke runs/live-smoke`` copies a ``make live-smoke`` summary there);
- ``course-summary``, ``course-exercises`` and ``course-exercises-grading`` (the same
  table on docs/course/grading.md): how many notebooks and exercises the course has, per notebook
  by kind, computed from the notebooks folder and ``hyperskill_lite/course/exercises.toml``
  (tools/coursebook/counts.py; never a count written by hand).

`tests/test_readme.py` runs the check (the demo's timing columns aside) and also checks
the numbers the notebooks page copies from the notebooks' headers (run times).

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
GUIDE = ROOT / "docs" / "guide"


def pages() -> list[Path]:
    """The files that may hold generated blocks: the README, every user guide page and
    the course's pages (the syllabus, the instructor guide, docs/course/)."""
    docs = ROOT / "docs"
    return [README, *sorted(GUIDE.glob("*.md")), *sorted(docs.glob("*.md")),
            *sorted((docs / "course").glob("*.md"))]

RESULTS = ROOT / "results" / "compare"
BLOCK = re.compile(r"(<!-- generated: (?P<name>[\w-]+) \(tools/readme\.py\) -->\n)(?P<body>.*?)"
                   r"(<!-- end generated: (?P=name) -->)", re.S)
DEMO_ARGS = ["demo"]  # the README's `make demo`: gaia, seed 0, MiniLM, every episode


def demo_run(out: Path, figures: Path, cache: Path | None = None) -> tuple[str, float]:
    """Run the demo (as `make demo` does) into `out`, with the embedding cache in `cache`
    (default: the user's); the lines it prints from the title of its table to the table's
    end, and the wall-clock seconds it says it took."""
    env = {**os.environ, "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "HF_HUB_OFFLINE": "1",
           "MPLBACKEND": "Agg"}
    if cache is not None:
        env["HYPERSKILL_CACHE"] = str(cache)
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite", *DEMO_ARGS, "--out",
                           str(out), "--figures", str(figures)], capture_output=True, text=True,
                          env=env, cwd=ROOT)
    if done.returncode != 0:
        raise SystemExit(f"demo failed (exit {done.returncode}): {done.stderr.strip()[-500:]}")
    lines = done.stdout.splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("SkillWorld '"))
    end = next(i for i in range(start + 2, len(lines)) if not lines[i].strip()
               or lines[i].startswith("wrote "))
    total = next(float(m.group(1)) for ln in reversed(lines)
                 if (m := re.fullmatch(r"total (\d+(?:\.\d+)?) s", ln.strip())))
    return "\n".join(lines[start:end]), total


def demo_output(out: Path, figures: Path) -> str:
    """The demo's table (`demo_run`), with the user's embedding cache."""
    return demo_run(out, figures)[0]


FIRST_RUN = re.compile(r"^A first run on a fresh machine \(an empty embedding cache\).*$", re.M)
"""The line under the demo's table that gives a first run's cost (`first_run_line`)."""


def first_run_line(cold: str, cold_s: float, warm_s: float) -> str:
    """The line under the demo's table: the first run's `mem ms` per method (from its
    printed table `cold`) and the wall clock of both runs.

    >>> t = ("SkillWorld 'gaia' profile\\nmethod  SR (%)  mem ms\\n"
    ...      "hyperskill  38.18 (+4.85) 5.49 (-0.10) 5.45 (-0.10)  227  675.02  36422  0.700  165\\n"
    ...      "no-memory  33.33  5.59  5.55  0  0.10  35015  0.001  165")
    >>> print(first_run_line(t, 250.4, 61.0))
    A first run on a fresh machine (an empty embedding cache) shows `mem ms` 675.02 for hyperskill and 0.10 for no-memory, 250 s in all against 61 s for the run above: every text goes through MiniLM once (the model loads on the first), then comes from the cache (`HYPERSKILL_CACHE`, by default `~/.cache/hyperskill_lite` on Linux).
    """
    mem = [(r[0], r[-4]) for ln in cold.splitlines()[2:]
           if len(r := re.split(r"\s{2,}", ln.strip())) >= 6]
    shown = ", ".join(f"{ms} for {name}" for name, ms in mem[:-1])
    shown = f"{shown} and {mem[-1][1]} for {mem[-1][0]}" if shown else f"{mem[-1][1]} for {mem[-1][0]}"
    return (f"A first run on a fresh machine (an empty embedding cache) shows `mem ms` {shown}, "
            f"{cold_s:.0f} s in all against {warm_s:.0f} s for the run above: every text goes "
            "through MiniLM once (the model loads on the first), then comes from the cache "
            "(`HYPERSKILL_CACHE`, by default `~/.cache/hyperskill_lite` on Linux).")


def demo_block(figures: Path | None = None) -> str:
    """The demo's table with a warm cache and, under it, what a first run costs (the
    module docstring)."""
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp) / "embedding-cache"
        cold, cold_s = demo_run(Path(tmp) / "first", Path(tmp) / "first-figures", cache)
        warm, warm_s = demo_run(Path(tmp) / "demo", figures or Path(tmp) / "figures", cache)
    return f"```text\n{warm}\n```\n\n{first_run_line(cold, cold_s, warm_s)}\n"


PROFILES = (("gaia", 165), ("webwalker", 170), ("xbench", 100))
MAIN_ROWS = ("hyperskill", "reasoningbank", "expel", "awm", "generative", "voyager", "dilu",
             "cheatsheet", "memp", "memevolve", "plugmem")
VARIANTS = ("generative-agents", "cheatsheet-cu", "memevolve-longterm")
ABLATIONS = (("hyperskill", "hyperskill (full)"),
             ("hyperskill-no-subtask", "w/o subtask retrieval"),
             ("hyperskill-no-trajectory", "w/o trajectory retrieval"),
             ("flat", "w/o hypergraph (flat)"))


def compare_doc(profile: str, phrasing: str) -> dict:
    path = RESULTS / f"{profile}-{phrasing}.json"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run the compare commands of "
                         "docs/guide/baselines.md, then "
                         "tools/readme.py --from runs/compare")
    return json.loads(path.read_text())


def _paired(doc: dict, reference: str = "no-memory") -> dict[str, object]:
    """method -> PairedDifference against `reference`, recomputed from the rows' per-task
    outcomes with the document's own bootstrap settings."""
    from hyperskill_lite.compare_tables import paired_table

    _, diffs = paired_table(doc["rows"], reference=reference, stats_seed=doc["stats_seed"],
                            n_boot=doc["n_boot"])
    return {d.method: d for d in diffs if d.reference == reference}


def _sr(doc: dict, method: str) -> tuple[float, float]:
    from hyperskill_lite.compare_tables import aggregate

    return aggregate([r for r in doc["rows"] if r["method"] == method], keys=("SR",))[method]["SR"]


def _delta(d) -> str:
    star = " *" if d.excludes_zero else ""
    return f"{d.diff:+.2f} [{d.low:+.1f}, {d.high:+.1f}]{star}".replace("-", "−")


def compare_command() -> str:
    docs = [compare_doc(p, ph) for p, _ in PROFILES for ph in ("calibrated", "curated")]
    methods = list(dict.fromkeys(r["method"] for r in docs[0]["rows"]))
    seeds = {tuple(d["seeds"]) for d in docs}
    orders = {tuple(d["orders"]) for d in docs}
    if len(seeds) != 1 or len(orders) != 1 or any(d["encoder"].startswith("hashing") for d in docs):
        raise SystemExit("results/compare/*.json were made with different seeds, orders or "
                         "encoders; rerun the commands of docs/guide/baselines.md")
    for d, (p, n) in zip(docs, [x for x in PROFILES for _ in (0, 1)]):
        if d["episodes"] != n or d["profile"] != p:
            raise SystemExit(f"results/compare/{p}-{d['phrasing']}.json has {d['episodes']} "
                             f"episodes of {d['profile']}; docs/guide/baselines.md's command runs {n}")
    (s,), (o,) = seeds, orders
    order = "" if o == (42,) else " --order-seeds " + " ".join(map(str, o))
    return ("```bash\n"
            "for p in gaia:165 webwalker:170 xbench:100; do for ph in calibrated curated; do\n"
            f"  python -m hyperskill_lite compare --profile ${{p%:*}} --episodes ${{p#*:}} "
            f"--seeds {len(s)}{order} \\\n"
            "      --phrasing $ph --out runs/compare/${p%:*}-$ph \\\n"
            f"      --methods {' '.join(methods)}\n"
            "done; done\n"
            "python tools/readme.py --from runs/compare   # copies each compare.json to "
            "results/compare/ and rewrites the tables\n```\n")


def _table(rows: list[tuple[str, str]]) -> str:
    head = ("| method | " + " | ".join(f"{p} ({n})" for p, n in PROFILES) + " |\n"
            "|---|" + "---|" * len(PROFILES) + "\n")
    docs = {(p, ph): compare_doc(p, ph) for p, _ in PROFILES for ph in ("calibrated", "curated")}
    paired = {k: _paired(d) for k, d in docs.items()}
    lines = []
    for method, label in rows:
        if method == "no-memory":
            cells = [f"{_sr(docs[p, 'calibrated'], method)[0]:.2f} ± "
                     f"{_sr(docs[p, 'calibrated'], method)[1]:.2f} "
                     f"({_sr(docs[p, 'curated'], method)[0]:.2f})" for p, _ in PROFILES]
        elif method.startswith("*"):
            lines.append(f"| {method} |" + " |" * len(PROFILES) + "\n")
            continue
        else:
            cells = [f"{_delta(paired[p, 'calibrated'][method])} "
                     f"({paired[p, 'curated'][method].diff:+.2f})".replace("-", "−")
                     for p, _ in PROFILES]
        lines.append(f"| {label} | " + " | ".join(cells) + " |\n")
    return head + "".join(lines)


def baselines_block() -> str:
    rows = [("no-memory", "no-memory (SR)"), *((m, m) for m in MAIN_ROWS),
            ("*variants*", ""), *((m, m) for m in VARIANTS)]
    return compare_command() + "\n" + _table(rows)


def ablations_block() -> str:
    return _table([("no-memory", "no-memory (SR)"), *ABLATIONS])


def paired_block() -> str:
    head = ("| profile | SR no memory | SR flat | SR HyperSkill | HyperSkill − no memory | "
            "flat − no memory | HyperSkill − flat |\n|---|---|---|---|---|---|---|\n")
    lines = []
    for p, n in PROFILES:
        doc = compare_doc(p, "calibrated")
        vs_none, vs_flat = _paired(doc), _paired(doc, "flat")
        srs = [_sr(doc, m) for m in ("no-memory", "flat", "hyperskill")]
        lines.append(f"| {p} ({n}) | " + " | ".join(f"{m:.2f} ± {sd:.2f}" for m, sd in srs)
                     + f" | {_delta(vs_none['hyperskill'])} | {_delta(vs_none['flat'])} | "
                     f"{_delta(vs_flat['hyperskill'])} |\n")
    return head + "".join(lines)


def vs_hyperskill_block() -> str:
    head = ("| method − HyperSkill | " + " | ".join(f"{p} ({n})" for p, n in PROFILES) + " |\n"
            "|---|" + "---|" * len(PROFILES) + "\n")
    paired = {p: _paired(compare_doc(p, "calibrated"), "hyperskill") for p, _ in PROFILES}
    names = list(dict.fromkeys(r["method"] for r in compare_doc("gaia", "calibrated")["rows"]))
    lines = [f"| {m} | " + " | ".join(_delta(paired[p][m]) for p, _ in PROFILES) + " |\n"
             for m in names if m not in ("hyperskill", "no-memory")]
    return head + "".join(lines)


def calibration_block() -> str:
    data = ROOT / "hyperskill_lite" / "world" / "data"
    target = json.loads((data / "calibration.json").read_text())["target"]
    fit = json.loads((data / "calibration_fit.json").read_text())
    got = {k: v["got"] for k, v in fit["against_target"].items()}
    rows = [("text q10 / q50 / q90", [target["text"][q] for q in ("q10", "q50", "q90")],
             [got[f"text.{q}"] for q in ("q10", "q50", "q90")], "{:.2f}"),
            ("text: share at cosine ≥ 0.85 / ≥ 0.9",
             [target["text"]["ge_0.85"], target["text"]["ge_0.90"]],
             [got["text.ge_0.85"], got["text.ge_0.90"]], "{:.0%}"),
            ("names q10 / q50 / q90", [target["name"][q] for q in ("q10", "q50", "q90")],
             [got[f"name.{q}"] for q in ("q10", "q50", "q90")], "{:.2f}"),
            ("exact name repeats", [target["name_repeat_rate"]], [got["name_repeat_rate"]],
             "{:.0%}")]
    out = ["| statistic (nearest earlier item, MiniLM cosine) | real streams (target) | "
           "SkillWorld, fitted |", "|---|---|---|"]
    for label, want, have, fmt in rows:
        out.append(f"| {label} | {' / '.join(fmt.format(x) for x in want)} | "
                   f"{' / '.join(fmt.format(x) for x in have)} |")
    run = fit["run"]
    return ("\n".join(out) + "\n\nFitted knobs: "
            + ", ".join(f"`{k}` = {v:g}" for k, v in fit["fitted"].items())
            + f" (a {run['method']} {run['profile']} run, {run['episodes']} tasks, seed "
            f"{run['seed']}; `hyperskill_lite/world/data/calibration_fit.json`).\n")


def perf_block() -> str:
    text = (ROOT / "benchmarks" / "results" / "perf.md").read_text(encoding="utf-8")
    when = re.search(r"Measured by `make bench` \(benchmarks/run_all.py\) on ([^:]+:\d\d)", text)
    table = re.search(r"## Targets\n\n(\|.*?)\n\n", text, re.S)
    if not table or not when:
        raise SystemExit("benchmarks/results/perf.md has no Targets table: run make bench")
    return (f"From `benchmarks/results/perf.md` (`make bench`, run {when.group(1)}):\n\n"
            + table.group(1) + "\n")


def live_smoke_block() -> str:
    path = ROOT / "results" / "live_smoke.json"
    if not path.is_file():
        raise SystemExit(f"{path} is missing: run make live-smoke, then tools/readme.py "
                         "--live-smoke runs/live-smoke")
    s = json.loads(path.read_text())
    ops = ("decompose", "extract", "merge", "judge")
    out = ["| memory operation | usable replies, `--structured off` | usable, `auto` |",
           "|---|---|---|"]

    def cell(mode: str, op: str | None) -> str:
        got = s["usable"][mode]
        rows = ([got[op]] if op in got else []) if op else list(got.values())
        tot, ok = sum(r["total"] for r in rows), sum(r["usable"] for r in rows)
        return f"{ok}/{tot} ({100 * ok / tot:.0f}%)" if tot else "–"

    for op in ops:
        if op in s["usable"]["off"] or op in s["usable"]["auto"]:
            out.append(f"| {op} | {cell('off', op)} | {cell('auto', op)} |")
    out.append(f"| all | {cell('off', None)} | {cell('auto', None)} |")
    lines = ["\n".join(out), ""]
    for mode in ("off", "auto"):
        pe, tc = s["per_episode"][mode], s["tool_calls"][mode]
        by_tool = ", ".join(f"{t} {m:.2f}" for t, m in tc["mean_by_tool"].items()) or "none"
        lines.append(f"- `--structured {mode}`: per episode {pe['model_calls']:.1f} model calls, "
                     f"{pe['tokens']:.0f} tokens, {pe['seconds']:.0f} s, "
                     f"{pe['tool_calls']:.2f} tool calls ({by_tool}); {pe['errors']} of "
                     f"{pe['episodes']} episodes with an error")
    lines.append(f"- structured outputs probed: {s['structured_mode']}; the hermetic web "
                 f"received {s['web_requests']['search']} search and "
                 f"{s['web_requests']['pages']} page requests; the offline replay gave "
                 + ("identical records" if s["replay_identical"] else "DIFFERENT records"))
    return "\n".join(lines) + "\n"


def _counts():
    sys.path.insert(0, str(ROOT / "tools"))  # the coursebook package, beside this file
    from coursebook import counts

    return counts


def course_summary_block() -> str:
    return _counts().exercise_summary(ROOT / "notebooks") + "\n"


def course_exercises_block() -> str:
    counts = _counts()
    return (counts.exercise_summary(ROOT / "notebooks") + "\n\n"
            + counts.exercise_table(ROOT / "notebooks") + "\n")


GENERATORS = {"demo": demo_block, "baselines": baselines_block, "ablations": ablations_block,
              "paired": paired_block, "vs-hyperskill": vs_hyperskill_block, "calibration": calibration_block, "perf": perf_block,
              "live-smoke": live_smoke_block, "course-summary": course_summary_block,
              "course-exercises": course_exercises_block,
              "course-exercises-grading": course_exercises_block}
"""Block name -> its renderer (a name is one page's block; the course's exercise table
shows on two pages, under two names)."""


def render(name: str, write_figures: bool) -> str:
    if name == "demo":
        return demo_block(ROOT / "figures" if write_figures else None)
    return GENERATORS[name]()


def blocks(text: str) -> dict[str, str]:
    """The generated blocks of a page's text: name -> body."""
    return {m.group("name"): m.group("body") for m in BLOCK.finditer(text)}


def all_blocks() -> dict[str, tuple[Path, str]]:
    """Every generated block of `pages`: name -> (the page that holds it, its body)."""
    return {name: (page, body) for page in pages()
            for name, body in blocks(page.read_text(encoding="utf-8")).items()}


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
    ap.add_argument("--live-smoke", type=Path, default=None,
                    help="copy a make live-smoke output folder's summary.json into results/")
    args = ap.parse_args(argv)
    if args.live_smoke is not None:
        src = args.live_smoke / "summary.json"
        if not src.is_file():
            raise SystemExit(f"{src} is missing: run make live-smoke first")
        (ROOT / "results").mkdir(exist_ok=True)
        shutil.copy2(src, ROOT / "results" / "live_smoke.json")
        print(f"copied {src} -> results/live_smoke.json")
    if args.source is not None:
        RESULTS.mkdir(parents=True, exist_ok=True)
        for f in sorted(args.source.rglob("compare.json")):
            doc = json.loads(f.read_text())
            dst = RESULTS / f"{doc['profile']}-{doc['phrasing']}.json"
            dst.write_text(json.dumps(doc, sort_keys=True, separators=(",", ":")) + "\n")
            print(f"copied {f} -> {dst.relative_to(ROOT)}")
    bad, wrote = [], []
    for page in pages():
        text = page.read_text(encoding="utf-8")
        names = [n for n in blocks(text) if args.only is None or n in args.only]
        for name in names:
            body = render(name, write_figures=not args.check)
            if args.check:
                if comparable(name, blocks(text)[name]) != comparable(name, body):
                    bad.append(f"{page.relative_to(ROOT)}: block {name!r}")
            else:
                text = replace(text, name, body)
        if names and not args.check:
            page.write_text(text, encoding="utf-8")
            wrote.append(f"{', '.join(names)} in {page.relative_to(ROOT)}")
    if args.check:
        for where in bad:
            print(f"{where} differs from what tools/readme.py generates; run it")
        return 1 if bad else 0
    print("rewrote " + "; ".join(wrote))
    return 0


def comparable(name: str, body: str) -> object:
    """What of a block must match: all of it, but for the demo the two timing columns
    (``mem ms``, ``s/task``: wall-clock seconds, different in every run) and the numbers
    of the first-run line."""
    if name != "demo":
        return body
    rows = []
    body = FIRST_RUN.sub(lambda m: re.sub(r"\d+(\.\d+)?", "N", m.group(0)), body)
    for line in body.splitlines():
        cells = re.split(r"\s{2,}", line.strip())
        if line.startswith(("hyperskill", "flat", "no-memory")):
            # the last five cells: ctx tokens, mem ms, tokens/task, s/task, N
            cells = cells[:-4] + [cells[-3], cells[-1]]
        rows.append(cells)
    return rows


if __name__ == "__main__":
    sys.exit(main())
