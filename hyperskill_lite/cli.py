"""Command line: ``python -m hyperskill_lite {run,demo,compare} ...``.

`run` drives one memory system over a task list — SkillWorld offline, or a live
OpenAI-compatible model (vLLM or a hosted API) on a benchmark file or a JSONL task
file — writing resumable episode records (runner.py). `demo` runs the five core methods
on one SkillWorld profile with MiniLM and prints a Table-1-style summary and figures.
`compare` runs every registered method over several seeds. `sweep` runs a grid of runs
from a TOML file on a local process pool or on Ray (sweep/).

This module only parses arguments and wires parts together; the parts live elsewhere.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from dataclasses import asdict
from pathlib import Path

from hyperskill_lite.core.config import PRUNE_MODES

__all__ = ["main", "build_parser"]

BENCH_TO_PROMPT = {"gaia": "gaia", "webwalkerqa": "webwalkerqa", "xbench": "xbench"}


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m hyperskill_lite",
        description="HyperSkill hypergraph skill memory: offline SkillWorld runs, live runs "
        "against an OpenAI-compatible model, and the demo.",
    )
    p.add_argument("--no-cache", action="store_true",
                   help="do not read or write the persistent embedding cache "
                   "(same as HYPERSKILL_CACHE=off)")
    sub = p.add_subparsers(dest="command", required=True)

    r = sub.add_parser("run", help="run one memory method over a task list (resumable)")
    r.add_argument("--method", default="hyperskill", help="memory method (see `methods`)")
    r.add_argument("--episodes", type=int, default=None, help="number of tasks (default: all)")
    r.add_argument("--seed", type=int, default=0, help="world/model seed (task order is always seed 42)")
    r.add_argument("--out", required=True, type=Path, help="run directory (rerun to resume)")
    r.add_argument("--encoder", choices=["minilm", "hashing"], default="minilm")
    r.add_argument("--k", type=int, default=None, help="one retrieval budget for k_u, k_e, k_s")
    r.add_argument("--prune-mode", choices=list(PRUNE_MODES), default=None,
                   help="how rho is read (default: the config's, \"ratio\"; see HyperSkillConfig)")
    r.add_argument("--rho", type=float, default=None,
                   help="share pruned per maintenance cycle (ratio/fraction modes; 0: none)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    src = r.add_argument_group("offline world")
    src.add_argument("--world", choices=["skillworld"], default=None)
    src.add_argument("--profile", choices=["gaia", "webwalker", "xbench"], default="gaia")
    src.add_argument("--phrasing", choices=["calibrated", "curated"], default="calibrated",
                     help="SimLLM's text model (WorldParams.phrasing)")
    live = r.add_argument_group("live model (OpenAI-compatible: vLLM or a hosted API)")
    live.add_argument("--backend", choices=["openai"], default=None)
    live.add_argument("--base-url", default=None, help="default: $OPENAI_BASE_URL")
    live.add_argument("--model", default=None, help="default: $HYPERSKILL_MODEL")
    live.add_argument("--tasks", type=Path, default=None, help="JSONL with id, question[, answer]")
    live.add_argument("--benchmark", choices=["gaia", "webwalkerqa", "xbench"], default=None)
    live.add_argument("--data", type=Path, default=None, help="benchmark file or folder")
    live.add_argument("--judge", choices=["exact", "llm", "self"], default=None,
                      help="outcome judge: exact (GAIA scorer), llm (GT-judge, the default for "
                      "--benchmark), self (no gold answer); default for --tasks: exact if answers exist")
    live.add_argument("--score-judge", choices=["exact", "llm"], default=None,
                      help="with --judge self on data with answers: the judge that scores SR "
                      "(default: the one a GT-judge run of the same data uses, llm for "
                      "--benchmark, else exact), so self SR / GT SR holds the scorer fixed")
    live.add_argument("--subset", default=None,
                      help="WebWalkerQA rows sampled with seed 42 (default 170, the paper's subset; "
                      "'all' = every row)")
    live.add_argument("--level", type=int, action="append", default=None,
                      help="GAIA level(s) to keep (repeatable)")
    live.add_argument("--max-steps", type=int, default=10)
    live.add_argument("--max-tokens", type=int, default=None,
                      help="cap on the tokens a model writes per call (default: the server's)")
    live.add_argument("--corpus", type=Path, default=None,
                      help="folder of .txt/.html pages: offline web_search/crawl_page backend")
    live.add_argument("--structured", choices=["auto", "json_schema", "json_object", "off"],
                      default="auto",
                      help="structured outputs: auto probes once what the server accepts "
                      "(default); off relies on the prompts alone")
    live.add_argument("--protocol", choices=["auto", "tools", "json"], default="auto",
                      help="agent tool calls: auto detects native tool calls once, else "
                      "the JSON-in-text protocol")
    live.add_argument("--record", type=Path, default=None, help="record model calls to a cassette")
    live.add_argument("--replay", type=Path, default=None, help="replay a cassette offline")

    d = sub.add_parser("demo", help="the five core methods on one SkillWorld profile (offline)")
    d.add_argument("--profile", choices=["gaia", "webwalker", "xbench"], default="gaia")
    d.add_argument("--episodes", type=int, default=None)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--phrasing", choices=["calibrated", "curated"], default="calibrated",
                   help="SimLLM's text model (WorldParams.phrasing)")
    d.add_argument("--encoder", choices=["minilm", "hashing"], default="minilm")
    d.add_argument("--out", type=Path, default=Path("runs/demo"))
    d.add_argument("--figures", type=Path, default=Path("figures"))

    c = sub.add_parser("compare", help="every method on one SkillWorld profile over several seeds")
    c.add_argument("--profile", choices=["gaia", "webwalker", "xbench"], default="gaia")
    c.add_argument("--episodes", type=int, default=40)
    c.add_argument("--seeds", type=int, default=3, help="world seeds 0..K-1")
    c.add_argument("--phrasing", choices=["calibrated", "curated"], default="calibrated",
                   help="SimLLM's text model (WorldParams.phrasing)")
    c.add_argument("--methods", nargs="+", default=None,
                   help="default: no-memory, hyperskill and the ten baselines")
    c.add_argument("--encoder", choices=["minilm", "hashing"], default="minilm")
    c.add_argument("--judge", choices=["gt", "self"], default="gt",
                   help="what the memories learn from: the world's truth (gt) or the simulated "
                   "self-judge; SR is scored by the truth either way")
    c.add_argument("--out", type=Path, default=None, help="keep the runs (resumable)")
    c.add_argument("--jobs", type=int, default=None,
                   help="worker processes for the (method, seed) cells (default: one per "
                   "core); the table is identical to --jobs 1")

    sw = sub.add_parser("sweep", help="a grid of runs from a TOML file, on a local pool or Ray")
    sw.add_argument("file", type=Path, help="the sweep file (see data/sweeps/example.toml)")
    sw.add_argument("--executor", choices=["local", "ray"], default="local")
    sw.add_argument("--address", default=None,
                    help="Ray cluster to join ('auto' or ray://host:port); default: a local Ray")
    sw.add_argument("--jobs", type=int, default=None,
                    help="cells at once (default: the number of cores)")
    sw.add_argument("--out", type=Path, default=None,
                    help="output folder (default: runs/sweeps/<file stem>)")

    sub.add_parser("methods", help="list the memory methods")
    return p


def _config(args):
    from hyperskill_lite.core.config import HyperSkillConfig

    cfg = HyperSkillConfig()
    if getattr(args, "k", None) is not None:  # --k 0 is a value, not "unset"
        cfg = cfg.with_k(args.k)
    changes = {}
    if getattr(args, "prune_mode", None):
        changes["prune_mode"] = args.prune_mode
    if getattr(args, "rho", None) is not None:
        changes["rho"] = args.rho
    return cfg.replace(**changes) if changes else cfg


def _encoder(name: str):
    from hyperskill_lite.core.embed import encoder_by_name

    return encoder_by_name(name)


def _skillworld_parts(profile: str, seed: int, episodes: int | None, phrasing: str = "calibrated"):
    from hyperskill_lite.runner import shuffled
    from hyperskill_lite.world import SimExecutor, SimLLM, WorldParams, make_tasks

    params = WorldParams(phrasing=phrasing)
    tasks = shuffled(make_tasks(profile, seed=seed, params=params), seed=42)
    if episodes is not None:
        tasks = tasks[:episodes]
    return tasks, SimLLM(params, seed=seed), SimExecutor(params, seed=seed)


def cmd_run(args) -> int:
    from hyperskill_lite.methods import make_method
    from hyperskill_lite.runner import read_records, run_episodes, summarize, summary_table

    cfg = _config(args)
    judge = learn_judge = None
    usage = None
    info = {"method": args.method, "seed": args.seed, "encoder": args.encoder,
            "config": cfg.to_dict()}
    if args.backend is None and args.world is None and args.benchmark is None and args.tasks is None:
        args.world = "skillworld"
    if args.world == "skillworld":
        tasks, llm, executor = _skillworld_parts(
            args.profile, args.seed, args.episodes, args.phrasing
        )
        info.update(world="skillworld", profile=args.profile, phrasing=args.phrasing)
        if args.judge == "self":  # SR stays the world's truth; the memory learns from SimLLM
            learn_judge = llm.judge
            info.update(score_judge="world", learn_judge="self")
        elif args.judge is not None:
            raise SystemExit(f"--judge {args.judge} needs a live model; SkillWorld takes --judge self")
    else:
        llm, executor, tasks, judge, learn_judge = _live_parts(args)
        usage = lambda: asdict(llm.usage.snapshot())  # noqa: E731
        info.update(backend="openai", model=llm.model, benchmark=args.benchmark,
                    tasks=str(args.tasks or args.data), judge=args.judge, **args.judges,
                    structured=args.structured, structured_mode=llm.resolve_structured(),
                    structured_probe=llm.structured_probe, protocol=args.protocol,
                    protocol_used=executor.resolve_protocol(),
                    protocol_probe=executor.protocol_probe)
    system = make_method(args.method, llm, _encoder(args.encoder), cfg)
    records = run_episodes(system, tasks, executor, args.out, judge=judge, learn_judge=learn_judge,
                           maintain_every=cfg.maintain_every(len(tasks)), run_info=info,
                           progress=not args.no_progress, usage=usage)
    records = read_records(args.out)
    print(summary_table({system.name: summarize(records)}, baseline=None))
    if usage is not None:
        _report_usage(llm, args.out)
    failed = sum(1 for r in records if r.get("error"))
    if failed:
        print(f"{failed} episode(s) recorded an error (see 'error' in {args.out / 'episodes.jsonl'})")
    return 0


def _report_usage(llm, out: Path) -> None:
    """Write OUT/usage.json (this invocation's model usage, per operation) and print the
    share of usable JSON replies per operation."""
    doc = {"structured": llm.structured, "structured_mode": llm.structured_mode,
           "structured_probe": llm.structured_probe, "structured_refused": llm.structured_refused,
           **llm.usage.to_dict()}
    (out / "usage.json").write_text(json.dumps(doc, indent=1, sort_keys=True))
    print(f"structured outputs: {llm.structured} -> {llm.structured_mode}")
    for op, row in sorted(llm.usage.outcomes.items()):
        n = sum(row.values())
        ok = row["first_try"] + row["after_reask"]
        print(f"  {op:<16} usable {ok}/{n} ({100.0 * ok / n:.0f}%), "
              f"first try {row['first_try']}, after re-ask {row['after_reask']}")


def _live_parts(args):
    from hyperskill_lite.agent.cassette import Cassette
    from hyperskill_lite.agent.llm import PromptedLLM
    from hyperskill_lite.agent.loop import AgentExecutor
    from hyperskill_lite.agent.tools import Toolbox
    from hyperskill_lite.bench import load_benchmark, make_judge
    from hyperskill_lite.runner import shuffled

    if args.benchmark:
        if args.data is None:
            raise SystemExit("--benchmark needs --data PATH (the benchmark file you downloaded)")
        kw = {}
        if args.benchmark == "webwalkerqa" and args.subset is not None:
            kw["subset"] = None if args.subset == "all" else int(args.subset)
        if args.benchmark == "gaia" and args.level:
            kw["level"] = args.level
        tasks = load_benchmark(args.benchmark, args.data, **kw)
        prompt_kind = BENCH_TO_PROMPT[args.benchmark]
    elif args.tasks:
        from hyperskill_lite.bench import load_tasks_jsonl

        tasks = load_tasks_jsonl(args.tasks)
        prompt_kind = "auto"
    else:
        raise SystemExit("a live run needs --benchmark NAME --data PATH or --tasks FILE")
    tasks = shuffled(tasks, seed=42)
    if args.episodes is not None:
        tasks = tasks[: args.episodes]
    if args.record and args.replay:
        raise SystemExit("--record and --replay are exclusive")
    cassette = None
    if args.record:
        cassette = Cassette(args.record, mode="record")
    elif args.replay:
        cassette = Cassette(args.replay, mode="replay")
    llm = PromptedLLM(args.base_url, args.model, benchmark=prompt_kind, cassette=cassette,
                      temperature=_config(args).temperature, structured=args.structured,
                      max_tokens=args.max_tokens)
    tools = Toolbox.from_env(corpus=args.corpus)
    executor = AgentExecutor(llm, tools, max_steps=args.max_steps, window=_config(args).window,
                             protocol=args.protocol)
    has_gold = all(t.answer is not None for t in tasks)
    gt_kind = "llm" if args.benchmark and has_gold else "exact" if has_gold else "self"
    kind = args.judge or gt_kind
    if args.score_judge and not (kind == "self" and has_gold):
        raise SystemExit("--score-judge applies to --judge self on data with answers only")
    judge = make_judge(kind, llm)
    learn_judge = None
    args.judges = {"score_judge": kind, "learn_judge": kind}
    if kind == "self" and has_gold:  # the paper's robustness study: learn from the self-judge,
        score = args.score_judge or gt_kind  # score SR with the GT run's judge
        judge, learn_judge = make_judge(score, llm), judge
        args.judges = {"score_judge": score, "learn_judge": "self"}
    return llm, executor, tasks, judge, learn_judge


def cmd_demo(args) -> int:
    from hyperskill_lite.methods import CORE_METHODS, make_method
    from hyperskill_lite.runner import read_records, run_episodes, summarize, summary_table

    t_start = time.perf_counter()
    encoder = _encoder(args.encoder)
    shutil.rmtree(args.out, ignore_errors=True)
    rows, all_records = {}, {}
    for name in CORE_METHODS:
        tasks, llm, executor = _skillworld_parts(
            args.profile, args.seed, args.episodes, args.phrasing
        )
        encoder.clear_cache()  # each method pays for its own embeddings in "mem ms"
        system_config = _config(args)
        system = make_method(name, llm, encoder, system_config)
        out = args.out / name
        run_episodes(system, tasks, executor, out, progress=False,
                     maintain_every=system_config.maintain_every(len(tasks)),
                     run_info={"method": name, "profile": args.profile, "seed": args.seed})
        all_records[name] = read_records(out)
        rows[name] = summarize(all_records[name])
        print(f"  {name:<26} done ({len(tasks)} episodes)", flush=True)
    print()
    print(f"SkillWorld '{args.profile}' profile, seed {args.seed}, encoder {args.encoder}, "
          f"{args.phrasing} phrasing (offline simulation: these are NOT the paper's numbers)")
    print(summary_table(rows))
    from hyperskill_lite.plots import viz

    args.figures.mkdir(parents=True, exist_ok=True)
    paths = viz.demo_figures(all_records, args.figures, title=f"SkillWorld {args.profile}")
    for p in paths:
        print(f"wrote {p}")
    with open(args.out / "summary.json", "w") as f:
        json.dump(rows, f, indent=1)
    print(f"total {time.perf_counter() - t_start:.1f} s")
    return 0


def cmd_compare(args) -> int:
    from hyperskill_lite.compare import compare

    table, _ = compare(args.profile, args.episodes, args.seeds, methods=args.methods,
                       encoder=args.encoder, out=args.out, log=print, phrasing=args.phrasing,
                       jobs=args.jobs, judge=args.judge)
    print()
    print(table)
    return 0


def cmd_sweep(args) -> int:
    from hyperskill_lite.sweep import run_sweep

    out = args.out or Path("runs") / "sweeps" / args.file.stem
    results, paths = run_sweep(args.file, out, executor=args.executor, jobs=args.jobs,
                               address=args.address)
    failed = [r for r in results if r.status == "failed"]
    print()
    print(paths["markdown"].read_text())
    for name in ("csv", "markdown", "failures", "cells"):
        print(f"wrote {paths[name]}")
    print(f"figures in {out / 'figures'}")
    if failed:
        print(f"{len(failed)} of {len(results)} cell(s) failed (see {paths['failures']}); "
              "rerun the same command to retry them", file=sys.stderr)
        return 1
    return 0


def cmd_methods(args) -> int:
    from hyperskill_lite.methods import DESCRIPTIONS, METHODS

    width = max(map(len, METHODS))
    for name in METHODS:
        print(f"{name:<{width}}  {DESCRIPTIONS[name]}")
    return 0


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    args = build_parser().parse_args(argv)
    if args.no_cache:
        os.environ["HYPERSKILL_CACHE"] = "off"
    handler = {"run": cmd_run, "demo": cmd_demo, "compare": cmd_compare,
               "sweep": cmd_sweep, "methods": cmd_methods}[args.command]
    from hyperskill_lite.agent.llm import LLMError
    from hyperskill_lite.bench import BenchmarkDataError
    from hyperskill_lite.core.io import MemoryFormatError
    from hyperskill_lite.runner import RunError
    from hyperskill_lite.sweep import SweepError

    try:
        return handler(args)
    except (RunError, BenchmarkDataError, MemoryFormatError, LLMError, FileNotFoundError,
            SweepError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted; rerun the same command to resume", file=sys.stderr)
        return 130
