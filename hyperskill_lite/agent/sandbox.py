"""PythonSandbox: run model-written Python in a resource-limited subprocess.

Each run gets a fresh temporary working directory (also HOME and TMPDIR), an
environment without secret-looking variables (names containing KEY, TOKEN, SECRET,
PASSWORD), and limits set inside the child before the interpreter starts: address
space (RLIMIT_AS), CPU seconds, file size, no core dumps, and a process count
(RLIMIT_NPROC). The whole process group is killed at the wall-clock timeout, and when
the run ends so is every process it left behind, even one that left the group
(``setsid``, a detached ``Popen``): each sandbox run marks its processes with a random
token in the environment, and any process still carrying it (or still working in the
run's directory) is killed. Output is captured to files (so a flood of prints cannot
fill memory) and truncated.

RLIMIT_NPROC does not bind root, so as root the code runs as user "nobody"; when the
interpreter lives somewhere "nobody" cannot reach (a pyenv under /root), only the
capability to read and search files is kept so it can start. This is a guard against
runaway code (infinite loops, fork bombs, huge allocations), not a security boundary
against hostile code: the code can still read files and use the network.

Not here: the tool interface the agent calls (tools.py).
"""

from __future__ import annotations

import json
import math
import os
import re
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["PythonSandbox", "safe_env"]

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)


def _truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"\n[... truncated, {len(text) - max_chars} more characters]"


def safe_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The environment without variables whose names look secret.

    >>> sorted(safe_env({"PATH": "/bin", "OPENAI_API_KEY": "sk", "HF_TOKEN": "t"}))
    ['PATH']
    """
    env = os.environ if environ is None else environ
    return {k: v for k, v in env.items() if not _SECRET_NAME.search(k)}


_BOOT = r"""
import ctypes, json, os, resource, sys
cfg = json.loads(sys.argv[1])
mem = cfg["memory_bytes"]
resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
resource.setrlimit(resource.RLIMIT_CPU, (cfg["cpu_seconds"], cfg["cpu_seconds"] + 1))
resource.setrlimit(resource.RLIMIT_FSIZE, (cfg["file_bytes"], cfg["file_bytes"]))
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
if cfg["uid"] is not None:
    libc = ctypes.CDLL(None, use_errno=True)
    if cfg["keep_read"]:
        libc.prctl(8, 1, 0, 0, 0)  # PR_SET_KEEPCAPS
    os.setgroups([])
    os.setgid(cfg["gid"])
    os.setuid(cfg["uid"])
    if cfg["keep_read"]:  # keep CAP_DAC_READ_SEARCH (2) so the interpreter under /root starts
        class H(ctypes.Structure):
            _fields_ = [("v", ctypes.c_uint32), ("pid", ctypes.c_int)]
        class D(ctypes.Structure):
            _fields_ = [("e", ctypes.c_uint32), ("p", ctypes.c_uint32), ("i", ctypes.c_uint32)]
        d = (D * 2)()
        d[0].e = d[0].p = d[0].i = 1 << 2
        libc.capset(ctypes.byref(H(0x20080522, 0)), d)
        libc.prctl(47, 2, 2, 0, 0)  # PR_CAP_AMBIENT, RAISE, CAP_DAC_READ_SEARCH
resource.setrlimit(resource.RLIMIT_NPROC, (cfg["nproc"], cfg["nproc"]))
os.execv(sys.executable, [sys.executable, "-I", cfg["script"]])
"""


def _user_tasks(uid: int) -> int:
    """Threads and processes currently owned by `uid` (what RLIMIT_NPROC counts)."""
    n = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                st = os.stat(f"/proc/{p}")
                if st.st_uid == uid:
                    n += len(os.listdir(f"/proc/{p}/task"))
            except OSError:
                continue
    return n


def _world_reachable(path: Path) -> bool:
    """Whether a user without privileges can reach and run `path`."""
    p = path.resolve()
    for parent in p.parents:
        if not os.stat(parent).st_mode & 0o001:
            return False
    return bool(os.stat(p).st_mode & 0o005 == 0o005)


@dataclass
class PythonSandbox:
    """Runs Python code in a resource-limited subprocess.

    Parameters
    ----------
    timeout
        Wall-clock seconds before the whole process group is killed.
    memory_mb
        Address-space limit (RLIMIT_AS) of the process.
    max_procs
        Processes/threads the code may add (RLIMIT_NPROC, on top of what the user
        already runs).
    max_output_chars
        stdout and stderr are each cut to this length.
    drop_root
        When running as root, run the code as user "nobody" (uid 65534) so RLIMIT_NPROC
        binds.
    """

    timeout: float = 10.0
    memory_mb: int = 1024
    max_procs: int = 32
    max_output_chars: int = 8000
    drop_root: bool = True

    def run(self, code: str) -> str:
        """Run `code`; return its output, or an "Error: ..." text naming the limit hit."""
        with (
            tempfile.TemporaryDirectory(prefix="hsl-py-") as work,
            tempfile.TemporaryDirectory(prefix="hsl-py-out-") as out_dir,
        ):
            cwd = Path(work)
            script = cwd / "main.py"
            script.write_text(code, encoding="utf-8")
            uid = gid = None
            keep_read = False
            if self.drop_root and os.geteuid() == 0:
                uid = gid = 65534
                os.chown(cwd, uid, gid)
                os.chown(script, uid, gid)
                keep_read = not _world_reachable(Path(sys.executable))
            nproc = self.max_procs + _user_tasks(uid if uid is not None else os.getuid())
            cfg = {
                "memory_bytes": self.memory_mb * 2**20,
                "cpu_seconds": max(1, math.ceil(self.timeout)) + 1,
                "file_bytes": 50 * 2**20,
                "uid": uid,
                "gid": gid,
                "keep_read": keep_read,
                "nproc": nproc,
                "script": str(script),
            }
            env = safe_env()
            token = secrets.token_hex(8)
            env.update(
                {
                    "HOME": str(cwd),
                    "TMPDIR": str(cwd),
                    "PYTHONDONTWRITEBYTECODE": "1",
                    "OPENBLAS_NUM_THREADS": "1",
                    "OMP_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1",
                    "MPLBACKEND": "Agg",
                    _MARK: token,
                }
            )
            out_path, err_path = Path(out_dir) / "out", Path(out_dir) / "err"
            t0 = time.monotonic()
            with out_path.open("wb") as out, err_path.open("wb") as err:
                proc = subprocess.Popen(
                    [sys.executable, "-I", "-c", _BOOT, json.dumps(cfg)],
                    cwd=cwd,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    start_new_session=True,
                )
                timed_out = False
                try:
                    proc.wait(timeout=self.timeout)
                except subprocess.TimeoutExpired:
                    timed_out = True
                finally:
                    _kill_group(proc)
                    _kill_marked(token, cwd)
            seconds = time.monotonic() - t0
            stdout = out_path.read_bytes()[: 4 * self.max_output_chars].decode("utf-8", "replace")
            stderr = err_path.read_bytes()[-4 * self.max_output_chars :].decode("utf-8", "replace")
        return self._report(proc.returncode, stdout, stderr, timed_out, seconds)

    def _report(
        self, code: int | None, stdout: str, stderr: str, timed_out: bool, seconds: float
    ) -> str:
        out = _truncate(stdout, self.max_output_chars)
        tail = stderr[-self.max_output_chars :]
        if timed_out or (code == -signal.SIGXCPU):
            return f"Error: python timed out after {self.timeout:g} s (stopped).\n{out}".rstrip()
        if "MemoryError" in stderr or (
            code is not None and code < 0 and "Cannot allocate" in stderr
        ):
            return f"Error: python exceeded the memory limit of {self.memory_mb} MB (stopped).\n{out}".rstrip()
        if "BlockingIOError" in stderr and "Resource temporarily unavailable" in stderr:
            return (
                f"Error: python exceeded the process limit of {self.max_procs} "
                f"(stopped; too many processes or threads).\n{out}"
            ).rstrip()
        if code == -signal.SIGXFSZ:
            return "Error: python wrote a file larger than 50 MB (stopped)."
        if code:
            return f"Error: python exited with code {code}.\n{out}\n{tail}".strip()
        return out if out.strip() else "(no output; use print() to show results)"


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill the process group of `proc` (and anything it forked) and reap `proc`."""
    for _ in range(50):
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            break
        time.sleep(0.02)
        if proc.poll() is not None and not _group_alive(proc.pid):
            break
    proc.wait()


def _group_alive(pgid: int) -> bool:
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                fields = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[2]) == pgid and fields[0] != "Z":
                return True
    return False


_MARK = "HYPERSKILL_SANDBOX_RUN"


def _kill_marked(token: str, cwd: Path) -> int:
    """SIGKILL every process whose environment carries ``_MARK=token`` or whose working
    directory is `cwd`: what a run left behind outside its process group. Repeats until
    none is left (a process may fork while we kill); returns how many were killed."""
    needle, where, killed = f"{_MARK}={token}".encode(), str(cwd), 0
    for _ in range(50):
        found = []
        for p in os.listdir("/proc"):
            if not p.isdigit() or int(p) == os.getpid():
                continue
            try:
                env = Path(f"/proc/{p}/environ").read_bytes()
                here = os.readlink(f"/proc/{p}/cwd")
            except OSError:
                continue
            if needle in env.split(b"\0") or here == where or here.startswith(where + "/"):
                found.append(int(p))
        if not found:
            break
        for pid in found:
            try:
                os.kill(pid, signal.SIGKILL)
                killed += 1
            except (ProcessLookupError, PermissionError):
                pass
        time.sleep(0.01)
    return killed
