"""What the python tool's code can reach, through the command line: a live run (scripted
model on loopback) whose model calls the python tool with a probe, run by an interpreter
in a fresh venv whose root holds a ``pip.conf`` with an index credential and a ``.env``,
while another process of the machine carries a token on its command line. Under each
sandbox mode the tool result the model received shows only the code's own processes
(its own PID namespace and /proc: the token is not readable), none of the venv's root
files (only what imports need: ``bin/python``, ``lib``, ``pyvenv.cfg``), and, under
bubblewrap, no project folder; the probe's imports still work. Where the machine cannot
give ``--sandbox process`` its namespaces (bubblewrap with user namespaces disabled
stands for such a machine), the run refuses at its preflight with one line naming what
is missing, before anything is written."""

from __future__ import annotations

import json
import os
import shutil
import site
import subprocess
import sys
import venv
from pathlib import Path

import pytest

from hyperskill_lite.agent.framing import unframe
from hyperskill_lite.agent.tools import PythonSandbox
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "SECRET-TOKEN-4471"
PIP_SECRET = "PIPSECRET-0815"
PROBE = f"""
import json, os, sys
pids = [p for p in os.listdir('/proc') if p.isdigit()]
seen = []
for p in pids:
    for what in ('cmdline', 'environ'):
        try:
            if b{TOKEN!r} in open(f'/proc/{{p}}/{{what}}', 'rb').read():
                seen.append(p)
        except OSError:
            pass
root = {{}}
for name in ('pip.conf', '.env', 'pyvenv.cfg'):
    try:
        root[name] = open(os.path.join(sys.prefix, name)).read()[:60]
    except OSError as e:
        root[name] = type(e).__name__
import numpy
print(json.dumps({{"pids": pids, "seen": seen, "prefix": sorted(os.listdir(sys.prefix)),
                  "bin": sorted(os.listdir(os.path.join(sys.prefix, 'bin'))), "root": root,
                  "project": os.path.exists({str(ROOT / 'hyperskill_lite')!r}),
                  "numpy": numpy.__version__}}))
"""


@pytest.fixture(scope="module")
def tmp_venv(tmp_path_factory):
    """A venv with the credentials of a careless user in its root, seeing this venv's
    packages and the repository (as a clone's venv sees its editable install)."""
    env_dir = tmp_path_factory.mktemp("reach") / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    (env_dir / "pip.conf").write_text(f"[global]\nindex-url = https://u:{PIP_SECRET}@idx/simple\n")
    (env_dir / ".env").write_text(f"TOKEN={PIP_SECRET}\n")
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "outer.pth").write_text("\n".join([*site.getsitepackages(), str(ROOT)]) + "\n")
    return python


def _responder(request):
    msgs = request.get("messages") or [{}]
    if msgs[0].get("role") != "system":
        return prompt_aware_responder(request)
    if any(m.get("role") == "tool" for m in msgs):
        return text("FINAL ANSWER: done")
    return tool_call("python", {"code": PROBE})


def _cli(python: Path, out: Path, base_url: str, isolation: str,
         wrap: list[str] | None = None) -> subprocess.CompletedProcess:
    tasks = out.parent / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "question": "Probe the sandbox.", "answer": "done"})
                     + "\n")
    cmd = [*(wrap or []), str(python), "-m", "hyperskill_lite", "run", "--backend", "openai",
           "--base-url", base_url, "--model", "scripted", "--tasks", str(tasks), "--method",
           "no-memory", "--protocol", "tools", "--search", "none", "--sandbox", isolation,
           "--judge", "exact", "--max-steps", "3", "--no-progress", "--out", str(out)]
    env = {**os.environ, "OPENAI_API_KEY": "sk-reach-000000000000", "HYPERSKILL_CACHE": "off"}
    return subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=out.parent,
                          timeout=600)


@pytest.mark.parametrize("isolation", ["process", "bwrap"])
def test_the_python_tool_sees_its_own_processes_and_no_venv_root_file(tmp_venv, tmp_path,
                                                                       isolation):
    if PythonSandbox(isolation=isolation).problem() is not None:
        pytest.skip(f"--sandbox {isolation} cannot run here: "
                    f"{PythonSandbox(isolation=isolation).problem()}")
    holder = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)",
                               f"--token={TOKEN}"], env={**os.environ, "TOKEN": TOKEN})
    try:
        with ScriptedServer(responder=_responder, model="scripted") as srv:
            done = _cli(tmp_venv, tmp_path / "run", srv.base_url, isolation)
            results = [m["content"] for r in srv.requests for m in r.get("messages", [])
                       if m.get("role") == "tool"]
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 0, done.stderr[-2000:]
    assert results, done.stdout[-2000:]
    seen = json.loads(unframe(results[-1]).strip())
    assert seen["seen"] == [] and str(holder.pid) not in seen["pids"]
    assert len(seen["pids"]) <= 3, seen["pids"]  # the code, its namespace's first process(es)
    assert seen["root"]["pip.conf"] == "FileNotFoundError" == seen["root"][".env"]
    assert seen["root"]["pyvenv.cfg"].startswith("home = ")
    assert set(seen["prefix"]) <= {"bin", "lib", "lib64", "pyvenv.cfg"}, seen["prefix"]
    assert set(seen["bin"]) <= {"python", "python3", f"python3.{sys.version_info[1]}"}, seen["bin"]
    assert seen["numpy"]  # site-packages is there: imports work
    if isolation == "bwrap":
        assert seen["project"] is False
    assert PIP_SECRET not in json.dumps(results) and TOKEN not in json.dumps(results)


def test_process_mode_refuses_at_the_preflight_where_namespaces_are_missing(tmp_path):
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("bubblewrap (used to make a machine without user namespaces) is missing")
    wrap = [bwrap, "--unshare-user", "--disable-userns", "--uid", "1000", "--gid", "1000",
            "--dev-bind", "/", "/", "--proc", "/proc"]
    probe = subprocess.run([*wrap, "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        pytest.skip(f"bubblewrap cannot disable user namespaces here: {probe.stderr.strip()}")
    with ScriptedServer(responder=_responder, model="scripted") as srv:
        done = _cli(Path(sys.executable), tmp_path / "run", srv.base_url, "process", wrap)
        assert srv.requests == []  # refused before the server was asked anything
    lines = done.stderr.strip().splitlines()
    assert done.returncode == 2 and len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ") and "needs PID, mount, IPC and network namespaces" \
        in lines[0] and "user namespace" in lines[0], lines[0]
    assert not (tmp_path / "run").exists()
