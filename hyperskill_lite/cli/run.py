"""``python -m hyperskill_lite run``: one memory method over a task list, resumable.

The arguments become a `launch.RunSpec`; a live run first checks its server (the
preflight, before the run folder exists: a missing or refused key or an unknown model is
one error line and exit 2); the command then says where it writes and whether it starts,
resumes or finds the run complete, runs it (launch.py) with its log in ``OUT/run.log``,
and prints the Table-1-style summary. A complete run is only read: its summary shows
from a read-only folder too. ``--record FILE`` writes nothing until the run starts (a
refused preflight leaves no cassette behind). The folder is read and written without
following a link out of it (core/confined.py). SkillWorld runs say that their numbers are a
simulation. A live run in which every episode failed exits 1; a run that finished with
errored episodes (an exception outside the tools, or a process that died in one twice:
recorded as failed, never replayed) exits 3 (`EXIT_ERRORED`) and its last line says how
many. A GAIA test-split run
(``--split test``) is never judged and writes ``OUT/submission.jsonl``.

Not here: building the run's parts (launch.py), the episode loop (runner/loop.py).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hyperskill_lite import logs
from hyperskill_lite.cli import model_options, protocol_options
from hyperskill_lite.cli.options import at_least_1, fraction, method_help, method_name
from hyperskill_lite.cli.tool_options import add_arguments as add_tool_arguments
from hyperskill_lite.cli.tool_options import settings_from_args as tool_settings
from hyperskill_lite.core.config import PRUNE_MODES
from hyperskill_lite.core.confined import write_text
from hyperskill_lite.core.embed import ENCODERS, encoder_known
from hyperskill_lite.launch import RunSpec, check_server, execute, prepare
from hyperskill_lite.llm.client import BENCHMARKS
from hyperskill_lite.llm.preflight import CAPABILITIES
from hyperskill_lite.runner.files import RunError, check_out_folder, kept_text, read_records
from hyperskill_lite.runner.loop import resume_problem, run_settings
from hyperskill_lite.runner.summary import health_line, summarize, summary_table
from hyperskill_lite.sweep.execute import every_episode_failed
from hyperskill_lite.world.generator import PROFILES
from hyperskill_lite.world.params import PHRASINGS

__all__ = ["add_parser", "spec_from_args", "command", "interrupted", "EXIT_ERRORED"]

SIMULATION = "offline simulation: these are NOT the paper's numbers"
EXIT_ERRORED = 3
"""Exit code of a run that finished with errored episodes (complete, nothing to retry)."""


def add_parser(sub, parents) -> argparse.ArgumentParser:
    r = sub.add_parser("run", parents=parents, help="run one memory method over a task list "
                       "(resumable)", description=__doc__.split("\n\n")[1])
    r.add_argument("--method", default="hyperskill", type=method_name,
                   help=method_help())
    r.add_argument("--episodes", type=at_least_1, default=None,
                   help="number of tasks, in the run's task order (default: all)")
    r.add_argument("--seed", type=int, default=0,
                   help="world/model seed (the task order is --order-seed's)")
    r.add_argument("--out", required=True, type=Path, help="run directory (rerun to resume)")
    r.add_argument("--encoder", type=encoder_choice, default="minilm",
                   metavar="{" + ",".join(ENCODERS) + "}",
                   help="the embedding (also a recorded name such as "
                   "'hashing(dim=64,seed=3)', as compare's cells pass it)")
    r.add_argument("--k", type=at_least_1, default=None,
                   help="the method's retrieval count: HyperSkill's k_u, k_e and k_s (default "
                   "2), a baseline's k (default 3); run.json records what the method used")
    r.add_argument("--prune-mode", choices=list(PRUNE_MODES), default=None,
                   help="how rho is read (default: the config's, \"ratio\"; see HyperSkillConfig)")
    r.add_argument("--rho", type=fraction, default=None,
                   help="share pruned per maintenance cycle, in [0, 1] (0: none; default: "
                   "the config's 0.1)")
    r.add_argument("--no-progress", action="store_true", help="no progress bar")
    logs.add_arguments(r)
    protocol_options.add_arguments(r.add_argument_group(
        "evaluation protocol (default: the paper's, order seed 42, memory online)"))
    src = r.add_argument_group("offline world")
    src.add_argument("--world", choices=["skillworld"], default=None,
                     help="SkillWorld (the default when no live source is given)")
    src.add_argument("--profile", choices=PROFILES, default="gaia")
    src.add_argument("--phrasing", choices=PHRASINGS, default="calibrated",
                     help="SimLLM's text model (WorldParams.phrasing)")
    live = r.add_argument_group("live model (OpenAI-compatible: vLLM or a hosted API)")
    live.add_argument("--backend", choices=["openai"], default=None)
    live.add_argument("--base-url", default=None, help="default: $OPENAI_BASE_URL")
    live.add_argument("--model", default=None, help="default: $HYPERSKILL_MODEL")
    live.add_argument("--tasks", type=Path, default=None, help="JSONL with id, question[, answer]")
    live.add_argument("--benchmark", choices=BENCHMARKS, default=None)
    live.add_argument("--data", type=Path, default=None, help="benchmark file or folder")
    live.add_argument("--judge", choices=["exact", "llm", "self"], default=None,
                      help="outcome judge: exact (GAIA scorer), llm (GT-judge, the default for "
                      "--benchmark), self (no gold answer); default for --tasks: exact if "
                      "answers exist")
    live.add_argument("--score-judge", choices=["exact", "llm"], default=None,
                      help="with --judge self on data with answers: the judge that scores SR "
                      "(default: the one a GT-judge run of the same data uses, llm for "
                      "--benchmark, else exact), so self SR / GT SR holds the scorer fixed")
    live.add_argument("--subset", default=None,
                      help="WebWalkerQA rows sampled with seed 42 (default 170, the paper's "
                      "subset; 'all' = every row)")
    live.add_argument("--level", type=at_least_1, action="append", default=None,
                      help="GAIA level(s) to keep (repeatable)")
    live.add_argument("--max-steps", type=at_least_1, default=10,
                      help="agent steps (model calls) per task; the last one must answer")
    live.add_argument("--split", choices=["validation", "test"], default=None,
                      help="GAIA's split: test (answers withheld) writes OUT/submission.jsonl "
                      "and is never judged (default: validation, or what --data holds)")
    live.add_argument("--needs", action="append", choices=CAPABILITIES, default=None,
                      help="a capability the preflight checks the model for (repeatable; "
                      "images and audio among the tasks' files add theirs)")
    live.add_argument("--structured", choices=["auto", "json_schema", "json_object", "off"],
                      default="auto",
                      help="structured outputs: auto probes once what the server accepts; "
                      "off relies on the prompts alone")
    live.add_argument("--protocol", choices=["auto", "tools", "json"], default="auto",
                      help="agent tool calls: auto detects native tool calls once, else "
                      "the JSON-in-text protocol")
    live.add_argument("--record", type=Path, default=None, help="record model calls to a cassette")
    live.add_argument("--replay", type=Path, default=None, help="replay a cassette offline")
    add_tool_arguments(r.add_argument_group("agent tools (live runs)"))
    model_options.add_arguments(r.add_argument_group("model calls (live runs)"))
    r.set_defaults(handler=command, on_interrupt=interrupted, on_storage=failed_storage)
    return r


def spec_from_args(args: argparse.Namespace) -> RunSpec:
    """The RunSpec of a parsed `run` command line."""
    return RunSpec(
        out=args.out, method=args.method, seed=args.seed, episodes=args.episodes,
        encoder=args.encoder, k=args.k, prune_mode=args.prune_mode, rho=args.rho,
        progress=not args.no_progress, profile=args.profile, phrasing=args.phrasing,
        backend=args.backend, base_url=args.base_url, model=args.model, tasks=args.tasks,
        benchmark=args.benchmark, data=args.data, judge=args.judge,
        score_judge=args.score_judge, subset=args.subset,
        level=tuple(args.level) if args.level else None, max_steps=args.max_steps,
        split=args.split, settings=model_options.settings_from_args(args),
        needs=tuple(args.needs or ()), tools=tool_settings(args), structured=args.structured,
        protocol=args.protocol, record=args.record, replay=args.replay,
        evaluation=protocol_options.settings_from_args(args))


def command(args: argparse.Namespace) -> int:
    spec = spec_from_args(args)
    if args.world is not None and spec.live:
        raise ValueError("--world skillworld cannot be combined with --backend, --benchmark "
                         "or --tasks")
    check_out_folder(spec.out)
    parts = prepare(spec)
    observed = check_server(parts)  # before the run folder exists: a bad key exits 2 here
    n = len(parts.tasks)
    if spec.episodes is not None and spec.episodes > parts.available:
        print(f"note: {spec.task_source} has {parts.available} tasks; running all of them "
              f"(--episodes {spec.episodes} asked for more)")
    done = _say_status(spec.out, parts, n)
    if done >= n:  # complete: nothing runs and nothing is written (a read-only folder too)
        records = read_records(spec.out, repair=False)
    else:
        with logs.run_log(spec.out, logs.file_level(args.log_level)):
            records = execute(parts, observed=observed)
    print()
    _print_summary(spec, parts, records, ran=done < n)
    return _outcome(spec, records)


def _say_status(out: Path, parts, n: int) -> int:
    """Say whether the run starts, resumes or is complete, and return the finished
    episodes; a folder that holds another run, or another run's memory, or a link
    leading out of it, is refused first (never "already complete" and then a refusal).
    Reads only."""
    spec = parts.spec
    problem = resume_problem(out, run_settings(parts.tasks, parts.maintain_every,
                                               spec.evaluation, parts.info), parts.system)
    if problem is not None:
        raise RunError(problem)
    done = len(read_records(out, repair=False)) if (out / "episodes.jsonl").exists() else 0
    if done >= n:
        print(f"{out}: already complete ({n} episodes); showing its summary")
    elif done:
        print(f"{out}: resuming at episode {done + 1} of {n}")
    else:
        print(f"{out}: {parts.system.name} on {n} task(s) of {spec.task_source}")
    return done


def _print_summary(spec: RunSpec, parts, records: list[dict], ran: bool = True) -> None:
    if not spec.live:
        print(f"SkillWorld '{spec.profile}' profile, seed {spec.seed}, encoder {spec.encoder} "
              f"({SIMULATION})")
    if not spec.evaluation.is_paper:
        print(f"protocol: {spec.evaluation.describe()}; the summary covers the evaluated "
              "episodes")
    print(summary_table({parts.system.name: summarize(spec.evaluation.evaluated(records))},
                        baseline=None))
    print(health_line(parts.system.name, summarize(records)))
    if spec.live and ran:  # a complete run made no call here: its usage.json stays
        _report_usage(parts.llm, spec.out)
    if spec.split == "test":
        print(f"GAIA test split: not scored here (answers withheld); leaderboard submission "
              f"in {spec.out / 'submission.jsonl'}")
    print(f"records in {spec.out / 'episodes.jsonl'}; log in {spec.out / 'run.log'}; figures: "
          f"python -m hyperskill_lite report {spec.out}")


def _outcome(spec: RunSpec, records: list[dict]) -> int:
    """The exit code, and the last line when episodes failed: 1 when, in a live run,
    every episode failed; `EXIT_ERRORED` when an episode errored (an unexpected
    exception, or the process died in it twice); 0 otherwise (model errors of some
    episodes are said, not fatal)."""
    failed = [r for r in records if r.get("error")]
    errored = [r for r in records if r.get("errored")]
    where = spec.out / "episodes.jsonl"
    if spec.live and every_episode_failed(records):
        print(f"error: every episode failed (the last: {records[-1]['error']}); fix the cause "
              f"and run again with a new --out ({spec.out} keeps the failed episodes)",
              file=sys.stderr)
        return 1
    if errored:
        print(f"error: {len(errored)} of {len(records)} episode(s) errored (an unexpected "
              f"exception, or the process died in them; first: episode "
              f"{errored[0]['index'] + 1}, {errored[0]['error'].split('; ')[0]}); they are recorded "
              f"as failed in {where} and a rerun does not replay them", file=sys.stderr)
        return EXIT_ERRORED
    if failed:
        print(f"{len(failed)} of {len(records)} episode(s) recorded an error (see 'error' in "
              f"{where})")
    return 0


def _report_usage(llm, out: Path) -> None:
    """Write OUT/usage.json (this invocation's model usage, per operation) and print the
    share of usable JSON replies per operation."""
    doc = {"structured": llm.structured, "structured_mode": llm.structured_mode,
           "structured_probe": llm.structured_probe, "structured_refused": llm.structured_refused,
           **llm.usage.to_dict()}
    write_text(out, out / "usage.json", json.dumps(doc, indent=1, sort_keys=True))
    print(f"structured outputs: {llm.structured} -> {llm.structured_mode}")
    for op, row in sorted(llm.usage.outcomes.items()):
        n = sum(row.values())
        ok = row["first_try"] + row["after_reask"]
        print(f"  {op:<16} usable {ok}/{n} ({100.0 * ok / n:.0f}%), "
              f"first try {row['first_try']}, after re-ask {row['after_reask']}")


def interrupted(args: argparse.Namespace) -> str:
    text = kept_text(args.out)
    if "keeps" in text:
        return f"interrupted: {text}; rerun the same command to resume"
    return f"interrupted: {text}"


def failed_storage(args: argparse.Namespace) -> str:
    """What a run whose disk failed keeps (for the CLI's OSError line)."""
    return kept_text(args.out)


def encoder_choice(text: str) -> str:
    """An encoder `launch.encoder_known` accepts (argparse type)."""
    if not encoder_known(text):
        raise argparse.ArgumentTypeError(
            f"invalid choice: {text!r} (choose from {', '.join(map(repr, ENCODERS))})")
    return text
