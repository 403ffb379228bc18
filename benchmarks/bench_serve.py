"""The MCP server's speed: recall latency over stdio and HTTP side by side, the first calls
of a fresh server, learn throughput with 8 concurrent clients, and the relevance floor's
measurement.

1. Recall. A memory of N hyperedges (synthetic.py's workload: 384-d embeddings, 3
   subtasks per hyperedge, the skill vocabulary growing like N^0.7; recorded with the
   hashing encoder, which embeds the queries) is served by ``python -m hyperskill_lite
   serve`` as two subprocesses at once, one over stdio and one over streamable HTTP on
   loopback (the same memory, the same queries), and the official SDK's client sends
   each query to one and then the other, alternating, so both transports meet the same
   load on a shared machine; it times each call from request to parsed result (JSON-RPC
   framing, both sides' validation, the journal check, retrieval, the result's
   serialisation, and over HTTP the HTTP exchange). Recall is asked with ``min_score=-1``
   (no relevance floor: the synthetic queries are hashed text, far from the synthetic
   vectors, and the floor would return nothing; this times the whole retrieval). Two
   setups per N: without a model (``--no-llm``: the trajectory path, Eq. 5) and with the
   decomposition asked of the scripted model server (both paths, Eqs. 4-9; one HTTP round
   trip more). p50, p95 and p99 over `queries` calls after a warm-up. Targets: stdio p50
   under 20 ms at 10k, no model; HTTP p50 within 2x of stdio's at 10k.
2. First calls. A fresh server on an empty folder with the default encoder (MiniLM,
   embedding cache off) and no model, started as a host starts it: the time from start
   to a finished handshake (the server warms up first, serve/warmup.py), then the first
   ``learn`` and the first ``recall``, and the median of the next 10 of each. Target:
   the first learn under 2 s.
3. Learn. The server over streamable HTTP on loopback, on a copy of the 1k memory, its
   model the scripted server (`prompt_aware_responder`, its own process) answering each
   call after `latency` seconds: 1 client, then 8 concurrent clients, each learning
   `learns` tasks (decomposition and extraction, the journal append, checkpoints every
   100 records); then 1 client over stdio, and 8 clients each with its own stdio server
   process on one folder. Learned trajectories per second, and the memory checked
   afterwards (every learn one hyperedge).
4. The relevance floor (``--relevance``, written to results/relevance.json, not part of
   `measure_all`): for each SkillWorld profile and each half of its domains, a
   HyperSkill run (SimLLM) learns from every other task of those domains; the best
   trajectory score (Eq. 5 cosine) of each held-out task of the same domains (related)
   and of every task of the other domains (unrelated) is recorded, per encoder; the
   floor is the threshold with the highest Youden's J (related kept + unrelated
   dropped - 1), rounded to 0.01 (serve/relevance.py holds the chosen floors).

Usage: python benchmarks/bench_serve.py [--sizes 1000 10000] [--queries 200]
       [--learns 25] [--latency 0.1] [--json FILE] [--relevance [FILE]]
Not here: assertions on timings (tests/test_serve_bench.py runs this tiny, untimed).
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
HTTP_RATIO_TARGET = 2.0
FIRST_LEARN_TARGET_S = 2.0
ENV = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
       "HYPERSKILL_CACHE": "off"}
RELEVANCE_JSON = HERE / "results" / "relevance.json"
TRANSPORTS = ("stdio", "http")


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


def _http_server(memory: Path, model_args: list[str], env: dict[str, str] | None = None
                 ) -> tuple[subprocess.Popen, str]:
    cmd = [sys.executable, "-m", "hyperskill_lite", "serve", "--memory", str(memory),
           "--http", "127.0.0.1:0", "--maintain-every", "0", *model_args]
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, **(env or ENV)})
    for line in proc.stderr:
        m = re.search(r"listening on (http://\S+/mcp)", line)
        if m:
            threading.Thread(target=proc.stderr.read, daemon=True).start()
            return proc, m.group(1)
    raise RuntimeError(f"the server did not start (exit {proc.wait()})")


class _Served:
    """The server at `memory` over `transport`: what an SDK `Client` connects to."""

    def __init__(self, transport: str, memory: Path, model_args: list[str],
                 env: dict[str, str] | None = None) -> None:
        self.transport, self.memory, self.model_args = transport, memory, model_args
        self.env = env or ENV
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Any:
        if self.transport == "stdio":
            params = _stdio(self.memory, *self.model_args)
            params.env = self.env
            return params
        self.proc, url = _http_server(self.memory, self.model_args, self.env)
        return url

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None:
            self.proc.terminate()
            self.proc.wait(timeout=300)


def _stats(times: list[float]) -> dict[str, Any]:
    a = np.array(times)
    return {"calls": len(times), "p50_s": float(np.percentile(a, 50)),
            "p95_s": float(np.percentile(a, 95)), "p99_s": float(np.percentile(a, 99)),
            "mean_s": float(a.mean())}


def recall_latency(memory: Path, queries: list[str], model_args: list[str], warm: int = 20,
                   transports: tuple[str, ...] = TRANSPORTS) -> dict[str, dict[str, Any]]:
    """Seconds per recall over each of `transports`, the servers up at once and the
    queries alternating between them (see the module docstring): transport -> stats."""
    import contextlib

    import anyio
    from mcp import Client

    times: dict[str, list[float]] = {t: [] for t in transports}

    async def main(servers: dict[str, Any]) -> None:
        async with contextlib.AsyncExitStack() as stack:
            clients = {t: await stack.enter_async_context(Client(s))
                       for t, s in servers.items()}
            for q in queries[:warm]:
                for c in clients.values():
                    await c.call_tool("recall", {"task": q, "min_score": -1})
            for q in queries[warm:]:
                for t, c in clients.items():
                    t0 = time.perf_counter()
                    r = await c.call_tool("recall", {"task": q, "min_score": -1})
                    times[t].append(time.perf_counter() - t0)
                    if r.is_error:
                        raise RuntimeError(f"recall failed: {r.content[0].text}")

    with contextlib.ExitStack() as stack:
        servers = {t: stack.enter_context(_Served(t, memory, model_args)) for t in transports}
        anyio.run(main, servers)
    return {t: _stats(v) for t, v in times.items()}


def _learn_args(who: str, i: int) -> dict[str, Any]:
    return {"task": f"Client {who} task {i}: find the 2020 population of city {who}{i}",
            "trajectory": f"web_search('city {who}{i} population'); crawl_page(census); "
            "python: 522250 -> answered 522,250", "outcome": "success" if i % 3 else "failure",
            "steps": 3 + i % 4}


def first_calls(work: Path, transport: str = "stdio", again: int = 10,
                encoder: str | None = None) -> dict[str, Any]:
    """A fresh server's first calls (module docstring, 2): seconds from start to the end
    of the handshake, the first learn, the first recall, and the medians of the next
    `again` of each. `encoder` None is the server's default (MiniLM when installed)."""
    import anyio
    from mcp import Client

    folder = work / f"first-{transport}"
    extra = ["--no-llm", *(["--encoder", encoder] if encoder else [])]
    out: dict[str, Any] = {"transport": transport}

    async def main(server: Any, t_start: float) -> None:
        async with Client(server) as c:
            out["ready_s"] = time.perf_counter() - t_start
            learns, recalls = [], []
            for i in range(again + 1):
                t0 = time.perf_counter()
                r = await c.call_tool("learn", {**_learn_args("first", i), "skills": [
                    {"name": f"Census table {i}", "content": "Read the official census "
                     f"table of city {i} before answering."}]})
                learns.append(time.perf_counter() - t0)
                if r.is_error:
                    raise RuntimeError(f"learn failed: {r.content[0].text}")
                t0 = time.perf_counter()
                r = await c.call_tool("recall", {"task": f"Find the 2021 population of city "
                                                         f"first{i}"})
                recalls.append(time.perf_counter() - t0)
                if r.is_error:
                    raise RuntimeError(f"recall failed: {r.content[0].text}")
            out.update(first_learn_s=learns[0], first_recall_s=recalls[0],
                       learn_p50_s=float(np.median(learns[1:])),
                       recall_p50_s=float(np.median(recalls[1:])))

    t_start = time.perf_counter()
    with _Served(transport, folder, extra) as server:
        anyio.run(main, server, t_start)
    return out


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
    """Recall over both transports, first calls, learn throughput (module docstring)."""
    from bench_live import StandIn

    out: dict[str, Any] = {"recall": [], "queries": queries, "load_avg": [_load(), None],
                           "when": time.strftime("%Y-%m-%d %H:%M")}
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
                    got = recall_latency(folder, qs, args)
                    for transport, stats in got.items():
                        row = {"hyperedges": n, "setup": label, "transport": transport, **stats}
                        out["recall"].append(row)
                        _log(f"recall at {n}, {label}, {transport}: p50 "
                             f"{row['p50_s'] * 1e3:.2f} ms, p95 {row['p95_s'] * 1e3:.2f} ms")
        out["first"] = []
        for transport in TRANSPORTS:
            row = first_calls(work, transport)
            out["first"].append(row)
            _log(f"first calls over {transport}: ready {row['ready_s']:.1f} s, first learn "
                 f"{row['first_learn_s']:.2f} s, first recall {row['first_recall_s']:.3f} s")
        out["learn"] = learn_throughput(work / f"m{min(sizes)}", work, learns, latency)
    out["load_avg"][1] = _load()
    return out


# ---------------------------------------------------------------------- relevance floor
def _relevance_scores(encoder: str, profile: str, half: int, tmp: Path
                      ) -> tuple[list[float], list[float], int]:
    from hyperskill_lite.core.retrieval import retrieve
    from hyperskill_lite.launch import RunSpec, execute, prepare

    spec = RunSpec(out=tmp / f"{encoder}-{profile}-{half}", method="hyperskill",
                   encoder=encoder, profile=profile, progress=False, durable=False)
    parts = prepare(spec)
    domains = sorted({t.meta["skillworld"]["domain"] for t in parts.tasks})
    mine = set(domains[half::2])
    inside = [t for t in parts.tasks if t.meta["skillworld"]["domain"] in mine]
    outside = [t for t in parts.tasks if t.meta["skillworld"]["domain"] not in mine]
    parts.tasks = inside[0::2]
    execute(parts)
    memory = parts.system.memory

    def best(question: str) -> float:
        r = retrieve(memory, question, [], k_u=0, k_e=1)
        return float(max(r.edge_scores.values()))

    return ([best(t.question) for t in inside[1::2]], [best(t.question) for t in outside],
            len(parts.tasks))


def choose_floor(related: list[float], unrelated: list[float]) -> dict[str, Any]:
    """The threshold with the highest Youden's J over a 0.01 grid (ties: the lower)."""
    r, u = np.asarray(related), np.asarray(unrelated)
    best = None
    for f in np.round(np.arange(-0.2, 1.0, 0.01), 2):
        kept, dropped = float((r >= f).mean()), float((u < f).mean())
        if best is None or kept + dropped - 1 > best["youden_j"] + 1e-12:
            best = {"floor": float(f), "related_kept": round(kept, 4),
                    "unrelated_dropped": round(dropped, 4),
                    "youden_j": kept + dropped - 1}
    assert best is not None
    best["youden_j"] = round(best["youden_j"], 4)
    return best


def _quantiles(x: list[float]) -> dict[str, float]:
    return {f"p{q}": round(float(np.percentile(x, q)), 3) for q in (0, 5, 25, 50, 75, 95, 100)}


def measure_relevance(encoders: tuple[str, ...] = ("minilm", "hashing"),
                      profiles: tuple[str, ...] = ("gaia", "webwalker", "xbench")
                      ) -> dict[str, Any]:
    """The relevance floor's measurement (module docstring, 4)."""
    out: dict[str, Any] = {"when": time.strftime("%Y-%m-%d %H:%M"), "profiles": list(profiles),
                           "encoders": {}}
    with tempfile.TemporaryDirectory(prefix="bench-relevance-") as tmp:
        for enc in encoders:
            related, unrelated, learned = [], [], 0
            for profile in profiles:
                for half in (0, 1):
                    r, u, n = _relevance_scores(enc, profile, half, Path(tmp))
                    related += r
                    unrelated += u
                    learned += n
            out["encoders"][enc] = {
                "learned": learned, "related": len(related), "unrelated": len(unrelated),
                "related_quantiles": _quantiles(related),
                "unrelated_quantiles": _quantiles(unrelated),
                **choose_floor(related, unrelated)}
            _log(f"relevance, {enc}: floor {out['encoders'][enc]['floor']}")
    return out


# ---------------------------------------------------------------------- report
def _load() -> float | None:
    """The 1-minute load average (None where the OS has none)."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def _row(serve: dict[str, Any], n: int, transport: str) -> dict[str, Any] | None:
    return next((r for r in serve["recall"] if r["hyperedges"] == n and "no model" in
                 r["setup"] and r.get("transport", "stdio") == transport), None)


def targets(serve: dict[str, Any] | None) -> list[dict[str, Any]]:
    """The recall targets (stdio p50 under 20 ms at 10k without a model; HTTP p50 within
    2x of stdio's), the first learn under 2 s, and learn throughput as measured."""
    if not serve:
        return []
    stdio, http = _row(serve, 10_000, "stdio"), _row(serve, 10_000, "http")
    out = [{"target": f"MCP recall over stdio: p50 under {RECALL_TARGET_MS:g} ms at 10k "
            "hyperedges (no model)",
            "measured": f"p50 {stdio['p50_s'] * 1e3:.1f} ms, p95 {stdio['p95_s'] * 1e3:.1f} ms"
            if stdio else "not run",
            "ok": stdio["p50_s"] * 1e3 < RECALL_TARGET_MS if stdio else None}]
    if http is not None and stdio is not None:
        ratio = http["p50_s"] / stdio["p50_s"]
        out.append({"target": f"MCP recall over HTTP: p50 within {HTTP_RATIO_TARGET:g}x of "
                    "stdio's at 10k hyperedges (no model, same run)",
                    "measured": f"HTTP {http['p50_s'] * 1e3:.1f} ms vs stdio "
                    f"{stdio['p50_s'] * 1e3:.1f} ms: {ratio:.2f}x",
                    "ok": ratio <= HTTP_RATIO_TARGET})
    for row in serve.get("first", []):
        out.append({"target": f"MCP first learn after the handshake under "
                    f"{FIRST_LEARN_TARGET_S:g} s ({row['transport']}, default encoder)",
                    "measured": f"{row['first_learn_s']:.2f} s (first recall "
                    f"{row['first_recall_s'] * 1e3:.0f} ms; ready after "
                    f"{row['ready_s']:.1f} s)",
                    "ok": row["first_learn_s"] < FIRST_LEARN_TARGET_S})
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
    when = f" Run {serve['when']}." if serve.get("when") else ""
    lines = ["", "## MCP server (benchmarks/bench_serve.py)", "",
             "`recall` with the official SDK's client over stdio and over streamable HTTP on "
             "loopback, side by side in one run (two servers on the same memory, the queries "
             "alternating between them), request to "
             f"parsed result, {serve['queries']} calls after a warm-up, no relevance floor "
             "(`min_score=-1`); the memory is synthetic (384-d embeddings, hashing encoder "
             "for the queries)." + when + _load_note(serve), "",
             "| hyperedges | recall | stdio p50 | stdio p95 | HTTP p50 | HTTP p95 | HTTP / stdio "
             "(p50) |", "|---|---|---|---|---|---|---|"]
    setups = list(dict.fromkeys((r["hyperedges"], r["setup"]) for r in serve["recall"]))
    for n, setup in setups:
        got = {r.get("transport", "stdio"): r for r in serve["recall"]
               if r["hyperedges"] == n and r["setup"] == setup}
        s, h = got.get("stdio"), got.get("http")
        cells = [ms(x[k]) if x else "—" for x in (s, h) for k in ("p50_s", "p95_s")]
        ratio = f"{h['p50_s'] / s['p50_s']:.2f}×" if s and h else "—"
        lines.append(f"| {n:,} | {setup} | {' | '.join(cells)} | {ratio} |")
    first = serve.get("first")
    if first:
        lines += ["", "A fresh server's first calls (empty folder, default encoder MiniLM, "
                  "embedding cache off, no model; the learn passes one skill): the server "
                  "loads the encoder and warms its code paths before it answers the "
                  "handshake, so the first call costs what the later ones do.", "",
                  "| transport | start to handshake done | first learn | first recall | "
                  "learn p50 (next 10) | recall p50 (next 10) |", "|---|---|---|---|---|---|"]
        for r in first:
            lines.append(f"| {r['transport']} | {r['ready_s']:.1f} s | {ms(r['first_learn_s'])}"
                         f" | {ms(r['first_recall_s'])} | {ms(r['learn_p50_s'])} | "
                         f"{ms(r['recall_p50_s'])} |")
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
    ap.add_argument("--relevance", type=Path, nargs="?", const=RELEVANCE_JSON, default=None,
                    metavar="FILE", help="measure the relevance floor instead (default file "
                    "benchmarks/results/relevance.json)")
    args = ap.parse_args(argv)
    if args.relevance is not None:
        res = measure_relevance()
        args.relevance.write_text(json.dumps(res, indent=1) + "\n")
        print(json.dumps({k: {f: v[f] for f in ("floor", "related_kept", "unrelated_dropped")}
                          for k, v in res["encoders"].items()}, indent=1))
        return res
    res = measure_all(args.sizes, args.queries, args.learns, args.latency)
    print("\n".join(markdown(res)))
    if args.json:
        args.json.write_text(json.dumps(res, indent=1) + "\n")
    return res


if __name__ == "__main__":
    main()
