"""Tests for sandbox.py: the python tool's limits (time, memory, processes, env, cwd)."""

from __future__ import annotations

import os
import time

import pytest

from hyperskill_lite.agent.sandbox import PythonSandbox, safe_env
from hyperskill_lite.agent.tools import Toolbox

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="the sandbox needs Linux /proc")


@pytest.fixture(scope="module")
def sandbox():
    return PythonSandbox(timeout=3.0, memory_mb=512, max_procs=16, max_output_chars=500)


def test_runs_code_and_returns_what_it_prints(sandbox):
    assert sandbox.run("print(6 * 7)") == "42\n"
    assert sandbox.run("import numpy as np\nprint(int(np.arange(5).sum()))") == "10\n"
    assert sandbox.run("x = 1") == "(no output; use print() to show results)"


def test_errors_are_reported_with_the_traceback(sandbox):
    out = sandbox.run("raise ValueError('boom')")
    assert out.startswith("Error: python exited with code 1.")
    assert "ValueError: boom" in out


def test_infinite_loop_is_stopped(sandbox):
    t0 = time.monotonic()
    out = sandbox.run("while True:\n    pass")
    assert out.startswith("Error: python timed out after 3 s (stopped).")
    assert time.monotonic() - t0 < 8


def test_ten_gigabyte_allocation_is_stopped(sandbox):
    out = sandbox.run("x = bytearray(10 * 1024**3)\nprint('allocated')")
    assert out == "Error: python exceeded the memory limit of 512 MB (stopped)."


def test_fork_bomb_is_stopped(sandbox):
    t0 = time.monotonic()
    out = sandbox.run("import os\nwhile True:\n    os.fork()")
    assert out.startswith("Error: python exceeded the process limit of 16") or out.startswith(
        "Error: python timed out"
    )
    assert time.monotonic() - t0 < 8


def test_output_is_truncated(sandbox):
    out = sandbox.run("print('x' * 100000)")
    assert out.startswith("x" * 500)
    assert "[... truncated," in out and len(out) < 700


def test_environment_has_no_secrets_and_cwd_is_fresh(sandbox, monkeypatch):
    monkeypatch.setenv("MY_API_KEY", "sk-should-not-leak")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp-should-not-leak")
    code = (
        "import os, json\nprint(json.dumps({'keys': [k for k in os.environ if 'KEY' in k or 'TOKEN' in k],"
        " 'cwd': os.getcwd(), 'files': os.listdir('.')}))\nopen('scratch.txt', 'w').write('x')"
    )
    import json

    first, second = json.loads(sandbox.run(code)), json.loads(sandbox.run(code))
    assert first["keys"] == [] and second["keys"] == []
    assert first["files"] == ["main.py"] and second["files"] == ["main.py"]  # scratch.txt is gone
    assert first["cwd"] != second["cwd"]
    assert not os.path.exists(first["cwd"])


def test_safe_env_drops_secret_names():
    env = {
        "PATH": "/bin",
        "OPENAI_API_KEY": "k",
        "HF_TOKEN": "t",
        "DB_PASSWORD": "p",
        "AWS_SECRET": "s",
    }
    assert safe_env(env) == {"PATH": "/bin"}


def test_toolbox_python_tool(sandbox):
    tb = Toolbox(python=sandbox)
    assert "python" in tb.names
    assert tb.call("python", {"code": "print(2 ** 10)"}) == "1024\n"
    assert "python" not in Toolbox(python=False).names


def _running(pid: int) -> bool:
    try:
        state = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"  # a killed orphan may stay a zombie until init reaps it


def test_processes_that_leave_the_group_are_stopped_too(sandbox):
    # runaway spawning that escapes the process group: detached children (new session)
    # that would outlive the tool call; the run's environment marker finds them
    code = (
        "import json, os, subprocess, sys\n"
        "pids = [subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(600)'],\n"
        "                         start_new_session=True).pid for _ in range(3)]\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os.setsid()\n"
        "    while True:\n"
        "        pass\n"
        "print(json.dumps(pids + [child]))"
    )
    import json

    t0 = time.monotonic()
    pids = json.loads(sandbox.run(code))
    assert len(pids) == 4 and time.monotonic() - t0 < 8
    deadline = time.monotonic() + 5
    while any(_running(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not [p for p in pids if _running(p)]
