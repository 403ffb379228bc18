"""The MCP server's speed: recall latency over stdio, and learn throughput with 8
concurrent clients against the scripted model server.

1. Recall. A memory of N hyperedges (synthetic.py's workload: 384-d embeddings, 3
   subtasks per hyperedge, the skill vocabulary growing like N^0.7; recorded with the
   hashing encoder, which embeds the queries) is served by ``python -m hyperskill_lite
   serve`` as a subprocess; the official SDK's client sends `recall` over stdio and times
   each call from request to parsed result (JSON-RPC framing, both sides' validation,
   the journal check, retrieval, the result's serialisation). Two rows per N: without a
   model (``--no-llm``: the trajectory path, Eq. 5) and with the decomposition asked of
   the scripted model server (both paths, Eqs. 4-9; one HTTP round trip more). p50 and
   p99 over `queries` calls after a warm-up. Target: p50 under 20 ms at 10k, no model.
2. Learn. The same server over streamable HTTP on loopback, on a copy of the 1k memory,
   its model the scripted server (`prompt_aware_responder`, its own process) answering
   each call after `latency` seconds: 1 client, then 8 concurrent clients, each learning
   `learns` tasks (decomposition and extraction, the journal append, checkpoints every
   100 records); then 1 client over stdio, and 8 clients each with its own stdio server
   process on one folder.
   Learned trajectories per second, and the memory checked afterwards (every learn one
   hyperedge).

Usage: python benchmarks/bench_serve.py [--sizes 1000 10000] [--queries 200]
       [--learns 25] [--latency 0.1] [--json FILE]
Not here: assertions on timings (tests/test_bench_harness.py runs this tiny, untimed).
"""

from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # as run_all.py: one BLAS thread on a shared machine

import argparse  # noqa: E402
import json  # noqa: E402
import re  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

RECALL_TARGET_MS = 20.0
ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "HYPERSKILL_CACHE": "off"}


def _log(msg: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {msg}", flush=True)


def build_memory(n: int, path: Path, seed: int = 0) -> list[str]:
    """Save a memory of `n` synthetic hyperedges at `path`, recorded with the hashing
    encoder (384-d) so a server can open it by name; returns query task texts."""
    from synthetic import DIM, make_workload

    from hyperskill_lite.core.config import HyperSkillConfig
    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.core.io import save_memory
    from hyperskill_lite.core.memory import HypergraphMemory
    from hyperskill_lite.core.retrieval import Retrieval

    w = make_workload(n, 220, seed=seed, dim=DIM)
    enc = HashingEncoder(dim=DIM)
    texts = []
    for e in w.episodes:
        texts += [f"{e.task}\n{e.lesson}", *e.plan, *(s.text for s in e.skills)]
    texts = list(dict.fromkeys(texts))
    enc.seed_cache(texts, w.encoder.encode(texts))  # the workload's vectors, no hashing
    mem = HypergraphMemory(enc, HyperSkillConfig())
    for e in w.episodes:
        mem.add_trajectory(e.task, e.plan, e.skills, e.lesson, e.success, e.steps,
                           retrieval=Retrieval(edge_ids=list(e.used)))
    save_memory(mem, path)
    return [task for task, _plan in w.queries]


def _stdio(memory: Path, *extra: str) -> Any:
    from mcp import StdioServerParameters

    return StdioServerParameters(command=sys.executable, args=[
        "-m", "hyperskill_lite", "serve", "--memory", str(memory), "--maintain-every", "0",
        *extra], env=ENV)


def recall_latency(memory: Path, queries: list[str], model_args: list[str], warm: int = 20
                   ) -> dict[str, Any]:
    """Seconds per recall over stdio (see the module docstring)."""
    import anyio
    from mcp import Client

    times: list[float] = []

    async def main() -> None:
        async with Client(_stdio(memory, *model_args)) as c:
            for q in queries[:warm]:
                await c.call_tool("recall", {"task": q})
            for q in queries[warm:]:
                t0 = time.perf_counter()
                r = await c.call_tool("recall", {"task": q})
                times.append(time.perf_counter() - t0)
                if r.is_error:
                    raise RuntimeError(f"recall failed: {r.content[0].text}")

    anyio.run(main)
    a = np.array(times)
    return {"calls": len(times), "p50_s": float(np.percentile(a, 50)),
            "p99_s": float(np.percentile(a, 99)), "mean_s": float(a.mean())}


def _http_server(memory: Path, model_args: list[str]) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "hyperskill_lite", "serve", "--memory", str(memory),
           "--http", "127.0.0.1:0", "--maintain-every", "0", *model_args]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True, env={**os.environ, **ENV})
    for line in proc.stderr:
        m = re.search(r"listening on (http://\S+/mcp)", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError(f"the server did not start (exit {proc.wait()})")


def _learn_args(who: str, i: int) -> dict[str, Any]:
    return {"task": f"Client {who} task {i}: find the 2020 population of city {who}{i}",
            "trajectory": f"web_search('city {who}{i} population'); crawl_page(census); "
            "python: 522250 -> answered 522,250", "outcome": "success" if i % 3 else "failure",
            "steps": 3 + i % 4}


def learn_wall(servers: list[Any], learns: int) -> float:
    """Wall seconds for len(servers) clients (one per server address) learning `learns`
    tasks each, all at once; sessions are opened, and one learn each made (the model
    client's first-call costs), before the clock starts."""
    import anyio
    from mcp import Client

    ready = anyio.Event()
    started = [0]
    wall = [0.0]

    async def client(k: int, server: Any) -> None:
        async with Client(server) as c:
            warm = await c.call_tool("learn", _learn_args(f"c{k}", -1))  # first-call costs
            if warm.is_error:
                raise RuntimeError(f"learn failed: {warm.content[0].text}")
            started[0] += 1
            if started[0] == len(servers):
                ready.set()
            await ready.wait()
            for i in range(learns):
                r = await c.call_tool("learn", _learn_args(f"c{k}", i))
                if r.is_error:
                    raise RuntimeError(f"learn failed: {r.content[0].text}")

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for k, s in enumerate(servers):
                tg.start_soon(client, k, s)
            await ready.wait()
            t0 = time.perf_counter()
        wall[0] = time.perf_counter() - t0

    anyio.run(main)
    return wall[0]


def learn_throughput(base: Path, work: Path, learns: int, latency: float, clients: int = 8
                     ) -> dict[str, Any]:
    """Learns per second: 1 and `clients` HTTP clients of one server, and `clients`
    stdio server processes on one folder (module docstring)."""
    import shutil

    from bench_live import StandIn

    from hyperskill_lite.serve.shared import SharedMemory

    rows = []
    with StandIn(latency) as model:
        margs = ["--base-url", model.base_url, "--model", "scripted-model"]
        for label, n, kind in (("1 client, HTTP", 1, "http"),
                               (f"{clients} clients, HTTP, one server", clients, "http"),
                               ("1 client, stdio", 1, "stdio"),
                               (f"{clients} clients, each its own stdio server", clients,
                                "stdio")):
            folder = work / f"learn-{kind}-{n}"
            if folder.exists():
                shutil.rmtree(folder)
            shutil.copytree(base, folder)
            before = SharedMemory(folder, readonly=True).memory.stats()["hyperedges"]
            if kind == "http":
                proc, url = _http_server(folder, margs)
                try:
                    wall = learn_wall([url] * n, learns)
                finally:
                    proc.terminate()
                    proc.wait(timeout=300)
            else:
                wall = learn_wall([_stdio(folder, *margs) for _ in range(n)], learns)
            after = SharedMemory(folder, readonly=True).memory
            after.validate()
            added = after.stats()["hyperedges"] - before
            if added != n * (learns + 1):
                raise RuntimeError(f"{label}: {added} hyperedges for {n * (learns + 1)} "
                                   "learns")
            rows.append({"setup": label, "clients": n, "learns": n * learns, "wall_s": wall,
                         "learns_per_s": n * learns / wall})
            _log(f"learn: {label}: {n * learns} in {wall:.1f} s "
                 f"({n * learns / wall:.1f}/s)")
            shutil.rmtree(folder, ignore_errors=True)
    return {"latency_s": latency, "learns_per_client": learns, "start_hyperedges": before,
            "rows": rows}


def measure_all(sizes: list[int], queries: int = 200, learns: int = 25,
                latency: float = 0.1) -> dict[str, Any]:
    """Both measurements (module docstring)."""
    from bench_live import StandIn

    out: dict[str, Any] = {"recall": [], "queries": queries, "load_avg": [_load(), None]}
    with tempfile.TemporaryDirectory(prefix="bench-serve-") as tmp:
        work = Path(tmp)
        for n in sorted(sizes):
            folder = work / f"m{n}"
            qs = build_memory(n, folder)[: queries + 20]
            with StandIn(0.0) as model:
                for label, args in (("no model (trajectory path)", ["--no-llm"]),
                                    ("decomposition by the scripted model",
                                     ["--base-url", model.base_url, "--model",
                                      "scripted-model"])):
                    row = {"hyperedges": n, "setup": label,
                           **recall_latency(folder, qs, args)}
                    out["recall"].append(row)
                    _log(f"recall at {n}, {label}: p50 {row['p50_s'] * 1e3:.2f} ms, "
                         f"p99 {row['p99_s'] * 1e3:.2f} ms")
        out["learn"] = learn_throughput(work / f"m{min(sizes)}", work, learns, latency)
    out["load_avg"][1] = _load()
    return out


def _load() -> float | None:
    """The 1-minute load average (None where the OS has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def targets(serve: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The recall target (p50 under 20 ms at 10k over stdio, no model) and the learn
    throughput as measured, for perf.md."""
    if not serve:
        return []
    at = [r for r in serve["recall"] if r["hyperedges"] == 10_000 and "no model" in r["setup"]]
    out = [{"target": f"MCP recall over stdio: p50 under {RECALL_TARGET_MS:g} ms at 10k "
            "hyperedges (no model)",
            "measured": f"p50 {at[0]['p50_s'] * 1e3:.1f} ms, p99 {at[0]['p99_s'] * 1e3:.1f} ms"
            if at else "not run", "ok": at[0]["p50_s"] * 1e3 < RECALL_TARGET_MS if at else None}]
    rows = serve.get("learn", {}).get("rows", [])
    if rows:
        out.append({"target": "MCP learn throughput (measured; no target)",
                    "measured": ", ".join(f"{r['setup']}: {r['learns_per_s']:.1f}/s"
                                          for r in rows), "ok": "reported"})
    return out


def markdown(serve: dict[str, Any] | None, fmt_time: Any = None) -> list[str]:
    """The "MCP server" section of perf.md."""
    if not serve:
        return []
    ms = (lambda s: f"{s * 1e3:.2f} ms") if fmt_time is None else fmt_time
    lines = ["", "## MCP server (benchmarks/bench_serve.py)", "",
             "`recall` over stdio with the official SDK's client, request to parsed result, "
             f"{serve['queries']} calls after a warm-up; the memory is synthetic (384-d "
             "embeddings, hashing encoder for the queries)." + _load_note(serve), "",
             "| hyperedges | recall | p50 | p99 | mean |", "|---|---|---|---|---|"]
    for r in serve["recall"]:
        lines.append(f"| {r['hyperedges']:,} | {r['setup']} | {ms(r['p50_s'])} | "
                     f"{ms(r['p99_s'])} | {ms(r['mean_s'])} |")
    learn = serve.get("learn")
    if learn:
        lines += ["", f"`learn` against the scripted model server ({learn['latency_s']:g} s "
                  f"per call; decomposition and extraction of a learn asked concurrently), "
                  f"{learn['learns_per_client']} tasks per client after one untimed "
                  "(the model client's first-call costs), starting from "
                  f"{learn['start_hyperedges']:,} hyperedges; every learn checked to be one "
                  "hyperedge afterwards.", "",
                  "| setup | learns | wall | learns/s |", "|---|---|---|---|"]
        for r in learn["rows"]:
            lines.append(f"| {r['setup']} | {r['learns']} | {r['wall_s']:.1f} s | "
                         f"{r['learns_per_s']:.1f} |")
    return lines


def _load_note(serve: dict[str, Any]) -> str:
    load = serve.get("load_avg") or [None, None]
    if None in load:
        return ""
    return (f" Load average {load[0]:g} before, {load[1]:g} after (other work on the same "
            "cores slows both sides).")


def main(argv: list[str] | None = None) -> dict[str, Any]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", type=int, nargs="+", default=[1_000, 10_000])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--learns", type=int, default=25)
    ap.add_argument("--latency", type=float, default=0.1)
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    res = measure_all(args.sizes, args.queries, args.learns, args.latency)
    print("\n".join(markdown(res)))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return res


if __name__ == "__main__":
    main()
