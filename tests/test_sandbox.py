"""Tests for tools/sandbox.py: the python tool's limits (time, memory, processes, env,
cwd) under both isolations, and what bubblewrap contains (home, network)."""

from __future__ import annotations

import json
import logging
import os
import secrets
import shutil
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hyperskill_lite.agent.tools import PythonSandbox, Toolbox, safe_env
from hyperskill_lite.agent.tools import sandbox as sandbox_module

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc"), reason="the sandbox needs Linux /proc")

NO_BWRAP = ("bubblewrap (bwrap) is not installed or cannot create namespaces here; "
            "the live tier installs it (apt-get install bubblewrap)")


def _bwrap_works() -> bool:
    return shutil.which("bwrap") is not None and PythonSandbox(timeout=5).mode == "bwrap"


@pytest.fixture(scope="module", params=["process", "bwrap"])
def sandbox(request):
    if request.param == "bwrap" and not _bwrap_works():
        pytest.skip(NO_BWRAP)
    return PythonSandbox(timeout=3.0, memory_mb=512, max_procs=16, max_output_chars=500,
                         isolation=request.param)


@pytest.fixture(scope="module")
def contained():
    if not _bwrap_works():
        pytest.skip(NO_BWRAP)
    return PythonSandbox(timeout=5.0, memory_mb=512, isolation="bwrap")


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
    first, second = json.loads(sandbox.run(code)), json.loads(sandbox.run(code))
    assert first["keys"] == [] and second["keys"] == []
    assert first["files"] == ["main.py"] and second["files"] == ["main.py"]  # scratch.txt is gone
    if sandbox.mode == "process":
        assert first["cwd"] != second["cwd"]
        assert not os.path.exists(first["cwd"])
    else:  # the run's folder is bound at /sandbox; a fresh one each run (files above)
        assert first["cwd"] == second["cwd"] == "/sandbox"


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


def _with_token(token: str) -> list[int]:
    """Host pids of live processes whose command line carries `token`."""
    found = []
    for p in os.listdir("/proc"):
        if p.isdigit() and int(p) != os.getpid():
            try:
                cmd = Path(f"/proc/{p}/cmdline").read_bytes()
            except OSError:
                continue
            if token.encode() in cmd and _running(int(p)):
                found.append(int(p))
    return found


def test_processes_that_leave_the_group_are_stopped_too(sandbox):
    # runaway spawning that escapes the process group: detached children (new session)
    # that would outlive the tool call; the run's environment marker (or, under bwrap,
    # the end of its PID namespace) stops them. They carry a token in their command line
    # so the test finds them from outside whatever their PID namespace.
    token = f"hsl-escape-{secrets.token_hex(6)}"
    code = (
        "import json, os, subprocess, sys\n"
        f"cmd = [sys.executable, '-c', 'import time; time.sleep(600)  # {token}']\n"
        "pids = [subprocess.Popen(cmd, start_new_session=True).pid for _ in range(3)]\n"
        "child = os.fork()\n"
        "if child == 0:\n"
        "    os.setsid()\n"
        f"    os.execv(sys.executable, [sys.executable, '-c', 'while True: pass  # {token}'])\n"
        "print(json.dumps(pids + [child]))"
    )
    t0 = time.monotonic()
    pids = json.loads(sandbox.run(code))
    assert len(pids) == 4 and time.monotonic() - t0 < 8
    deadline = time.monotonic() + 5
    while _with_token(token) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _with_token(token)


# -- what bubblewrap contains ---------------------------------------------------------------


def test_bwrap_code_cannot_read_a_file_in_the_users_home(contained):
    secret = f"home-secret-{secrets.token_hex(8)}"
    path = Path.home() / f".hsl-sandbox-test-{secrets.token_hex(6)}.txt"
    path.write_text(secret)
    try:
        out = contained.run(f"print(open({str(path)!r}).read())")
    finally:
        path.unlink()
    assert secret not in out
    assert out.startswith("Error: python exited with code 1.") and "FileNotFoundError" in out
    listing = contained.run("import os\nprint(sorted(os.listdir('/')))")
    assert "'home'" not in listing and "'sandbox'" in listing


class _Seen(BaseHTTPRequestHandler):
    hits: list[str] = []

    def log_message(self, *a):
        return

    def do_GET(self):
        _Seen.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")


def test_bwrap_code_cannot_connect_to_a_loopback_server_of_the_test(contained):
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Seen)
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()
    url = f"http://127.0.0.1:{httpd.server_address[1]}/from-the-sandbox"
    try:
        # the same request from outside the sandbox reaches the server
        import urllib.request

        assert urllib.request.urlopen(url.replace("from-the", "outside"), timeout=5).read() == b"ok"
        code = ("import urllib.request\ntry:\n"
                f"    print(urllib.request.urlopen({url!r}, timeout=3).read())\n"
                "except OSError as e:\n    print('blocked:', type(e).__name__)")
        out = contained.run(code)
    finally:
        httpd.shutdown()
        httpd.server_close()
    assert out.startswith("blocked:"), out
    assert _Seen.hits == ["/outside-sandbox"]


def test_bwrap_code_still_computes_and_prints(contained):
    out = contained.run("import numpy as np\nprint(int(np.arange(10).sum()), 2 ** 10)")
    assert out == "45 1024\n"
    assert contained.mode == "bwrap" and contained.fallback_reason is None


def test_missing_bwrap_falls_back_to_process_limits_with_one_warning(caplog, tmp_path):
    sandbox_module._WARNED.clear()
    with caplog.at_level(logging.WARNING, logger="hyperskill_lite"):
        sb = PythonSandbox(timeout=5, isolation="bwrap", bwrap=str(tmp_path / "no-bwrap"))
        assert sb.run("print(3 * 3)") == "9\n"
        PythonSandbox(timeout=5, bwrap=str(tmp_path / "no-bwrap")).run("print(1)")
    assert sb.mode == "process" and sb.fallback_reason == "bwrap (bubblewrap) is not installed"
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 1 and said[0].startswith("python tool: bwrap (bubblewrap) is not "
                                                 "installed; running it with process limits only")
    with pytest.raises(ValueError, match="sandbox isolation must be one of bwrap, process"):
        PythonSandbox(isolation="docker")
