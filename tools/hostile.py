#!/usr/bin/env python3
"""The hostile-input suite: each hostile page and file read by the live agent through the
CLI, on loopback, with a scripted model.

    make hostile                 # every case; runs/hostile/summary.json
    python tools/hostile.py --case gzip-stacked --case traversal

It starts the hostile web (``testing/testweb_hostile.py``: gzip bombs, slow drips,
an endless body, an unknown charset, an injection page, and files made by openpyxl,
python-docx, zipfile and pypdf) and the scripted OpenAI-compatible server
(``testing/scripted_server.py``), both on loopback. For each case it writes a one-task GAIA
folder (``metadata.jsonl``, the case's attachment beside it) and runs

    python -m hyperskill_lite run --backend openai --benchmark gaia --protocol tools ...

as a child process, in which the scripted model calls the case's tool once
(``crawl_page`` on a hostile URL, or ``inspect_file_as_text`` on a hostile file or a
path leading out of the folder) and then answers. Then it checks, per case: the run
exits 0 and records its episode; the tool result the model received is one framed
``Error: ...`` line naming the problem (or, for a case that is read within bounds, the
bounded text); no traceback anywhere in the run's output; and the run's peak RSS (the
largest of the run process and its children, the document converter included, from
``os.wait4``) stays under 1.5 GB. A last case names an attachment outside the folder in
the metadata itself: the run must refuse it before it starts (exit 2, one ``error:``
line). It prints, per case, the seconds from the model's tool call to the tool's
result (the scripted server's arrival times of the two requests) and the peak RSS.

A folder case, ``big-run`` (issue 46), makes a run folder whose ``episodes.jsonl`` holds
1 GB of records (``--big-mb``; a short SkillWorld run's records repeated, each copy's node
and hyperedge ids shifted so they stay distinct, as in a long run; about 15 s) and runs
``inspect`` and ``report`` on it side by side as child processes; it checks that each
exits 0 with no traceback and a peak RSS under 500 MB, that the page stays small and says
that the run was read in bounded memory, and prints the time and peak RSS of each. The
folder is removed when the case ends (it is the largest thing the suite writes).

Exit code 0 only when every case passed. Cases run four at a time, the big run and the
two slow drips first (the big run computes longest; the drips wait, they do not compute).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from hyperskill_lite.agent.framing import unframe  # noqa: E402
from hyperskill_lite.cli.folders import claim_folder  # noqa: E402
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, text, tool_call  # noqa: E402
from hyperskill_lite.testing.scripted_server import ScriptedServer  # noqa: E402
from hyperskill_lite.testing.testweb_hostile import HostileWeb  # noqa: E402

MARKER = "hostile.json"
RSS_LIMIT = 1.5e9
"""Bytes of peak RSS a case may reach (the issue's acceptance)."""
BIG = "big-run"
"""The folder case: inspect and report on a big run folder (issue 46)."""
BIG_MB = 1000
"""Megabytes of records in the big run folder (1 GB: issue 46's acceptance)."""
BIG_RSS_LIMIT = 500e6
"""Bytes of peak RSS `inspect` and `report` may reach on it."""
BIG_PAGE_LIMIT = 20e6
"""Bytes the big run's studio page may take."""


@dataclass
class Case:
    """One hostile input: what the model calls, what the run must show."""

    name: str
    tool: str
    target: str
    expect: str
    error: bool = True
    attachment: str | None = None
    outside: bool = False
    row_file: str | None = None
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def tag(self) -> str:
        return f"[{self.name}]"


CASES = [
    Case("gzip-stacked", "crawl_page", "/hostile/gzip-stacked", "stacked encodings are refused"),
    Case("gzip-bomb", "crawl_page", "/hostile/gzip-bomb", "refused as a decompression bomb"),
    Case("slow-drip", "crawl_page", "/hostile/drip", "(the deadline for a whole fetch)"),
    Case("slow-headers", "crawl_page", "/hostile/drip-headers",
         "(the deadline for a whole fetch)"),
    Case("huge-body", "crawl_page", "/hostile/huge", "cannot read extension-less files"),
    Case("huge-page", "crawl_page", "/hostile/huge-page",
         "(the download was cut at 10,000,000 bytes: max_page_bytes)", error=False),
    Case("unknown-charset", "crawl_page", "/hostile/charset",
         "which is not known here: read as UTF-8", error=False),
    Case("injection", "crawl_page", "/hostile/injection",
         "[quoted] Observation from python:", error=False),
    Case("far-cell-xlsx", "inspect_file_as_text", "far.xlsx",
         "the sheet declares 1048576 rows x 16384 columns", error=False,
         attachment="far.xlsx"),
    Case("docx-bomb", "inspect_file_as_text", "bomb.docx", "refused before reading",
         attachment="bomb.docx"),
    Case("zip-bomb", "inspect_file_as_text", "bomb.zip/zeros.bin",
         "bytes once inflated, over the limit", attachment="bomb.zip"),
    Case("pdf-bomb", "inspect_file_as_text", "bomb.pdf", "could not be read as PDF",
         attachment="bomb.pdf"),
    Case("deep-json", "inspect_file_as_text", "deep.json", "RecursionError",
         attachment="deep.json"),
    Case("traversal", "inspect_file_as_text", "../../../../etc/passwd",
         "is outside the files of this task"),
    Case("symlink-out", "inspect_file_as_text", "notes.txt",
         "is outside the files of this task", outside=True),
    Case("attachment-out", "", "", "refused: attachments must stay inside the benchmark's "
         "folder", row_file="../outside/secret.txt", outside=True),
]


def make_big_run(folder: Path, megabytes: int) -> dict[str, Any]:
    """A run folder `folder`/run whose records file holds `megabytes` MB: a 40-episode
    SkillWorld run (its run.json, state and checkpoints kept) with its records repeated,
    each copy's node and hyperedge ids shifted by 1000 per copy and every index its
    position. What it made: records, bytes, seconds."""
    import re

    t0 = time.monotonic()
    small = folder / "small"
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite", "run", "--episodes", "40",
                           "--encoder", "hashing", "--no-progress", "--out", str(small)],
                          capture_output=True, text=True, cwd=folder,
                          env={**os.environ, "HYPERSKILL_CACHE": "off"})
    if done.returncode != 0:
        raise RuntimeError(f"the small run failed: {done.stderr[-500:]}")
    big = folder / "run"
    shutil.copytree(small, big, ignore=shutil.ignore_patterns("episodes.jsonl", "run.log"))
    ident = re.compile(rb'"([sue])(\d+)"')
    templates = []
    for line in (small / "episodes.jsonl").read_bytes().splitlines():
        rec = json.loads(line)
        rec["index"] = -1
        raw = json.dumps(rec, sort_keys=True).encode()
        pieces, pos = [], 0
        for m in ident.finditer(raw):
            pieces += [raw[pos:m.start()], (m.group(1), int(m.group(2)))]
            pos = m.end()
        pieces.append(raw[pos:])
        templates.append(pieces)
    target, written, n = megabytes * 10**6, 0, 0
    with open(big / "episodes.jsonl", "wb", buffering=1 << 22) as f:
        while written < target:
            copy, k = divmod(n, len(templates))
            shift = copy * 1000
            line = b"".join(p if isinstance(p, bytes) else b'"%s%d"' % (p[0], p[1] + shift)
                            for p in templates[k]).replace(b'"index": -1', b'"index": %d' % n,
                                                           1) + b"\n"
            f.write(line)
            written += len(line)
            n += 1
    shutil.rmtree(small)
    return {"records": n, "bytes": written, "seconds": round(time.monotonic() - t0, 1)}


def run_big(folder: Path, megabytes: int) -> dict[str, Any]:
    """The big-run case: `inspect` and `report` side by side on `make_big_run`'s folder;
    per command its exit code, seconds, peak RSS (os.wait4) and output."""
    folder.mkdir(parents=True, exist_ok=True)
    made = make_big_run(folder, megabytes)
    run = folder / "run"
    commands = {"inspect": ["inspect", str(run), "--samples", "0"],
                "report": ["report", str(run)]}
    procs = {}
    t0 = time.monotonic()
    for name, args in commands.items():
        log = (folder / f"{name}.txt").open("wb")
        procs[name] = (subprocess.Popen([sys.executable, "-m", "hyperskill_lite", *args],
                                        stdout=log, stderr=subprocess.STDOUT, cwd=folder,
                                        env={**os.environ, "PYTHONUNBUFFERED": "1"}), log)
    got: dict[str, Any] = {"made": made}

    def wait(name: str) -> None:  # each in its own thread: each command's own end
        proc, log = procs[name]
        _, status, usage = os.wait4(proc.pid, 0)
        log.close()
        got[name] = {"rc": os.waitstatus_to_exitcode(status),
                     "seconds": round(time.monotonic() - t0, 1),
                     "cpu_seconds": round(usage.ru_utime + usage.ru_stime, 1),
                     "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
                     "output": (folder / f"{name}.txt").read_text(errors="replace")}

    with ThreadPoolExecutor(len(procs)) as waiters:
        list(waiters.map(wait, procs))
    page = run / "studio.html"
    got["page_bytes"] = page.stat().st_size if page.is_file() else None
    got["page_says"] = page.is_file() and "read in bounded memory" in page.read_text(
        encoding="utf-8", errors="replace")
    shutil.rmtree(run, ignore_errors=True)  # a gigabyte: never kept
    return got


def check_big(got: dict[str, Any]) -> list[str]:
    """What is wrong with the big-run case (empty: it passed)."""
    problems = []
    for name in ("inspect", "report"):
        r = got[name]
        if r["rc"] != 0:
            problems.append(f"{name} exited {r['rc']}: {r['output'][-300:]!r}")
        if "Traceback" in r["output"]:
            problems.append(f"a traceback in {name}'s output")
        if r["peak_rss_mb"] * 1024 * 1024 > BIG_RSS_LIMIT:
            problems.append(f"{name}: peak RSS {r['peak_rss_mb']} MB over 500 MB")
    if got["page_bytes"] is None or got["page_bytes"] > BIG_PAGE_LIMIT:
        problems.append(f"the page is {got['page_bytes']} bytes (at most {BIG_PAGE_LIMIT:.0f})")
    if not got["page_says"]:
        problems.append("the page does not say the run was read in bounded memory")
    return problems


def responder(cases: dict[str, Case], web: HostileWeb):
    """The scripted model: memory operations get the library's stand-in replies; the
    agent calls its case's tool once, then answers."""

    def reply(request: dict[str, Any]):
        msgs = request.get("messages") or [{}]
        if msgs[0].get("role") != "system":
            return prompt_aware_responder(request)
        if any(m.get("role") == "tool" for m in msgs):
            return text("FINAL ANSWER: done")
        task = str(msgs[1].get("content", ""))
        case = next(c for tag, c in cases.items() if tag in task)
        target = web.url(case.target) if case.tool == "crawl_page" else case.target
        key = "url" if case.tool == "crawl_page" else "path"
        return tool_call(case.tool, {key: target})

    return reply


def prepare(case: Case, folder: Path, web: HostileWeb) -> Path:
    """The case's GAIA folder: metadata.jsonl, its attachment, and what points outside."""
    data = folder / "data"
    data.mkdir(parents=True)
    if case.outside:
        secret = folder / "outside" / "secret.txt"
        secret.parent.mkdir()
        secret.write_text("SECRET-OUTSIDE-4417\n")
        if case.name == "symlink-out":
            os.symlink(secret, data / "notes.txt")
    if case.attachment:
        shutil.copy(web.files[case.attachment], data / case.attachment)
    row = {"task_id": case.name, "Question": f"{case.tag} Read the item and report it.",
           "Level": 1, "Final answer": "done",
           "file_name": case.row_file or case.attachment or ""}
    (data / "metadata.jsonl").write_text(json.dumps(row) + "\n")
    return data


def command(data: Path, out: Path, base_url: str) -> list[str]:
    return [sys.executable, "-m", "hyperskill_lite", "run", "--backend", "openai",
            "--base-url", base_url, "--model", "scripted", "--benchmark", "gaia",
            "--data", str(data), "--method", "hyperskill", "--encoder", "hashing",
            "--protocol", "tools", "--search", "none", "--allow-local-urls",
            "--sandbox", "process", "--judge", "exact", "--max-steps", "3",
            "--no-progress", "--out", str(out)]


def run_case(case: Case, folder: Path, web: HostileWeb, srv: ScriptedServer) -> dict[str, Any]:
    """Run the case's CLI process; what it showed (exit code, output, peak RSS)."""
    data = prepare(case, folder, web)
    out = folder / "run"
    env = {**os.environ, "OPENAI_API_KEY": "sk-hostile", "HYPERSKILL_CACHE": "off",
           "PYTHONUNBUFFERED": "1"}
    log = folder / "output.txt"
    t0 = time.monotonic()
    with log.open("wb") as f:
        proc = subprocess.Popen(command(data, out, srv.base_url), stdout=f,
                                stderr=subprocess.STDOUT, env=env, cwd=folder)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = os.waitstatus_to_exitcode(status)
    records = out / "episodes.jsonl"
    return {"rc": proc.returncode, "seconds": round(time.monotonic() - t0, 1), "out": str(out),
            "peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
            "output": log.read_text(errors="replace"),
            "records": [json.loads(ln) for ln in records.read_text().splitlines()
                        if ln.strip()] if records.is_file() else []}


def tool_result(case: Case, srv: ScriptedServer) -> tuple[str | None, float | None]:
    """The tool result the model received for `case`, and the seconds between the agent
    request that the tool call answered and the request carrying the result."""
    agent = [(t, r) for t, r in zip(srv.times, srv.requests)
             if (r.get("messages") or [{}])[0].get("role") == "system"
             and case.tag in str(r["messages"][1].get("content", ""))]
    for (t_call, _), (t_result, req) in zip(agent, agent[1:]):
        results = [m for m in req["messages"] if m.get("role") == "tool"]
        if results:
            return str(results[-1]["content"]), round(t_result - t_call, 2)
    return None, None


def check(case: Case, got: dict[str, Any], seen: str | None) -> list[str]:
    """What is wrong with a case's run (empty: it passed)."""
    problems = []
    if "Traceback" in got["output"]:
        problems.append("a traceback in the run's output")
    if got["peak_rss_mb"] * 1024 * 1024 > RSS_LIMIT:
        problems.append(f"peak RSS {got['peak_rss_mb']} MB over 1.5 GB")
    if case.row_file:  # refused before the run starts
        errors = [ln for ln in got["output"].splitlines() if ln.startswith("error:")]
        if got["rc"] != 2 or len(errors) != 1 or case.expect not in errors[0]:
            problems.append(f"expected exit 2 and one error line, got {got['rc']}: "
                            f"{got['output'][-300:]!r}")
        if (folder := got.get("out")) and Path(folder).exists():
            problems.append("the refused run wrote its folder")
        return problems
    if got["rc"] != 0:
        problems.append(f"exit {got['rc']}: {got['output'][-300:]!r}")
    if [r.get("task_id") for r in got["records"]] != [case.name]:
        problems.append(f"episodes recorded: {[r.get('task_id') for r in got['records']]}")
    if seen is None:
        return problems + ["the model never received the tool's result"]
    body = unframe(seen)
    if not seen.startswith(f'<tool_output tool="{case.tool}"'):
        problems.append("the tool result is not framed")
    if case.error and (not body.startswith("Error: ") or "\n" in body):
        problems.append(f"not a one-line tool error: {body[:200]!r}")
    if not case.error and body.startswith("Error: "):
        problems.append(f"a tool error where a bounded read was expected: {body[:200]!r}")
    if case.expect not in body:
        problems.append(f"{case.expect!r} not in the tool result {body[:300]!r}")
    if "SECRET-OUTSIDE" in json.dumps(seen):
        problems.append("the outside secret reached the model")
    return problems


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=ROOT / "runs" / "hostile")
    ap.add_argument("--case", action="append", choices=[c.name for c in CASES] + [BIG],
                    default=None)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--big-mb", type=int, default=BIG_MB,
                    help="megabytes of records in the big-run case (default: 1000)")
    args = ap.parse_args(argv)
    args.out = args.out.resolve()  # each case's run starts in its own folder
    claim_folder(args.out, MARKER, "hostile-suite folder", "hyperskill_lite.hostile/1", {})
    for old in args.out.glob("suite-*"):  # ours: earlier suites' case folders
        shutil.rmtree(old, ignore_errors=True)
    suite = Path(tempfile.mkdtemp(prefix="suite-", dir=args.out))
    cases = [c for c in CASES if args.case is None or c.name in args.case]
    big = args.case is None or BIG in args.case
    t0 = time.monotonic()
    with HostileWeb(files=any(c.attachment for c in cases)) as web, ScriptedServer(
            responder=responder({c.tag: c for c in cases}, web), model="scripted") as srv:
        print(f"hostile web and scripted model on loopback ({time.monotonic() - t0:.0f} s to "
              f"make the files); {len(cases) + big} cases, {args.workers} at a time", flush=True)
        order = sorted(cases, key=lambda c: not c.name.startswith("slow"))  # waits first
        with ThreadPoolExecutor(args.workers) as pool:
            big_run = pool.submit(run_big, suite / BIG, args.big_mb) if big else None
            runs = dict(zip([c.name for c in order], pool.map(
                lambda c: run_case(c, suite / c.name, web, srv), order)))
            big_got = big_run.result() if big_run is not None else None
        rows = []
        for c in cases:
            got = runs[c.name]
            seen, secs = tool_result(c, srv)
            problems = check(c, got, seen)
            body = unframe(seen) if seen else got["output"].strip()
            rows.append({"case": c.name, "ok": not problems, "problems": problems,
                         "tool_seconds": secs, "peak_rss_mb": got["peak_rss_mb"],
                         "run_seconds": got["seconds"], "exit": got["rc"],
                         "result": body.splitlines()[0][:160] if body else ""})
        if big_got is not None:
            problems = check_big(big_got)
            i, r = big_got["inspect"], big_got["report"]
            rows.append({"case": BIG, "ok": not problems, "problems": problems,
                         "tool_seconds": None, "run_seconds": max(i["seconds"], r["seconds"]),
                         "peak_rss_mb": max(i["peak_rss_mb"], r["peak_rss_mb"]), "exit": 0,
                         "big": {"records": big_got["made"]["records"],
                                 "bytes": big_got["made"]["bytes"],
                                 "make_seconds": big_got["made"]["seconds"],
                                 "page_bytes": big_got["page_bytes"],
                                 **{n: {k: big_got[n][k] for k in ("rc", "seconds", "cpu_seconds",
                                                                    "peak_rss_mb")}
                                    for n in ("inspect", "report")}},
                         "result": (f"{big_got['made']['bytes'] / 1e6:.0f} MB of records "
                                    f"({big_got['made']['records']:,}): inspect {i['seconds']:.0f} s "
                                    f"(CPU {i['cpu_seconds']:.0f} s) {i['peak_rss_mb']:.0f} MB, "
                                    f"report {r['seconds']:.0f} s (CPU {r['cpu_seconds']:.0f} s) "
                                    f"{r['peak_rss_mb']:.0f} MB, page "
                                    f"{(big_got['page_bytes'] or 0) / 1e6:.1f} MB")})
    total = round(time.monotonic() - t0, 1)
    (args.out / "summary.json").write_text(json.dumps(
        {"format": "hyperskill_lite.hostile/1", "seconds": total, "cases": rows}, indent=1)
        + "\n")
    print(f"\n{'case':<16} {'ok':<4} {'to result':>10} {'peak RSS':>10}  result")
    for r in rows:
        secs = (f"{r['tool_seconds']:.2f} s" if r["tool_seconds"] is not None
                else f"{r['run_seconds']:.0f} s" if r["case"] == BIG else "refused")
        print(f"{r['case']:<16} {'yes' if r['ok'] else 'NO':<4} {secs:>10} "
              f"{r['peak_rss_mb']:>7.0f} MB  {r['result'][:90]}")
        for p in r["problems"]:
            print(f"{'':<16} problem: {p}")
    failed = [r["case"] for r in rows if not r["ok"]]
    print(f"\n{len(rows) - len(failed)}/{len(rows)} cases passed in {total:.0f} s"
          + (f"; failed: {', '.join(failed)}" if failed else "")
          + f"; {args.out / 'summary.json'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
