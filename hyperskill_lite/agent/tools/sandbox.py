"""PythonSandbox: run model-written Python in a contained, resource-limited subprocess.

Two isolation levels (the ``sandbox`` setting, `ISOLATIONS`):

- ``"bwrap"`` (the default; our addition): the code runs under bubblewrap (``bwrap``,
  Debian's ``bubblewrap`` package) in its own network namespace (only a loopback of its
  own: no route to the internet, the host's loopback servers or the local network), its
  own PID, IPC and UTS namespaces, with a root file system that holds only the system
  folders ``/usr`` and ``/etc`` and the Python installation (all read-only), a private
  ``/tmp`` and the run's working folder (``/sandbox``, the only writable place). No home
  directory, no project folder, no user files. When ``bwrap`` is missing or cannot
  create namespaces here, the sandbox falls back to ``"process"`` and says so in one
  line on stderr (once per process).
- ``"process"``: a plain subprocess. The code can still read what the user can read and
  use the network; the limits below are a guard against runaway code (infinite loops,
  fork bombs, huge allocations), not a security boundary against hostile code.

Both levels apply the same limits, set inside the child before the interpreter starts:
address space (RLIMIT_AS), CPU seconds, file size, no core dumps, and a process count
(RLIMIT_NPROC). RLIMIT_NPROC does not bind root, so as root the code runs as user
"nobody" (in bwrap mode the interpreter is reachable through folders bwrap creates; in
process mode, when the interpreter lives somewhere "nobody" cannot reach, a pyenv under
/root, only the capability to read and search files is kept so it can start). Each run
gets a fresh working folder (also HOME), an environment without secret-looking
variables (names containing KEY, TOKEN, SECRET, PASSWORD), and truncated output
captured to files (a flood of prints cannot fill memory). The whole process group is
killed at the wall-clock timeout, and when the run ends so is every process it left
behind, even one that left the group (``setsid``, a detached ``Popen``): each run marks
its processes with a random token in the environment, and any process still carrying it
(or still working in the run's folder) is killed.

Not here: the tool interface the agent calls (toolbox.py).
"""

from __future__ import annotations

import json
import logging
import math
import os
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PythonSandbox", "safe_env", "ISOLATIONS", "bwrap_command"]

log = logging.getLogger(__name__)

ISOLATIONS = ("bwrap", "process")
"""The python tool's isolation levels (see the module docstring)."""

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL", re.IGNORECASE)
_INSIDE = "/sandbox"
"""The run's working folder as the code sees it under bwrap."""


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


def _python_dirs() -> list[Path]:
    """Folders the interpreter needs, outside the system folders bound anyway: its
    prefixes (a venv and the installation it was made from) and the real executable's."""
    system = (Path("/usr"), Path("/etc"))
    found: list[Path] = []
    exe = Path(os.path.realpath(sys.executable))
    for d in {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix, exe.parent.parent}:
        p = Path(d).resolve()
        if p == Path("/") or any(p == s or s in p.parents for s in system):
            continue
        found.append(p)
    # keep only outermost folders
    found.sort(key=lambda p: len(p.parts))
    out: list[Path] = []
    for p in found:
        if not any(o == p or o in p.parents for o in out):
            out.append(p)
    return out


def bwrap_command(bwrap: str, work: Path, *, as_root: bool) -> list[str]:
    """The bwrap arguments (up to the program to run) that contain one run whose working
    folder is `work` (bound at ``/sandbox``). As root the code later drops to "nobody"
    itself (so RLIMIT_NPROC binds), which needs CAP_SETUID/CAP_SETGID inside; otherwise a
    user namespace gives bwrap its mounts."""
    args = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if as_root:
        args += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    else:
        args += ["--unshare-user"]
    for d in ("/usr", "/etc"):
        if os.path.isdir(d):
            args += ["--ro-bind", d, d]
    for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    args += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp"]
    made: set[Path] = set()
    for d in _python_dirs():
        for parent in reversed(d.parents):
            if parent != Path("/") and parent not in made:
                args += ["--perms", "0755", "--dir", str(parent)]  # reachable, nothing else
                made.add(parent)
        args += ["--ro-bind", str(d), str(d)]
        made.add(d)
    args += ["--bind", str(work), _INSIDE, "--chdir", _INSIDE]
    return args


_WARNED: set[str] = set()


def _warn_once(message: str) -> None:
    if message not in _WARNED:
        _WARNED.add(message)
        log.warning("%s", message)


@dataclass
class PythonSandbox:
    """Runs Python code in a contained, resource-limited subprocess.

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
    isolation
        "bwrap" (namespaces and a minimal read-only file system, falling back to
        "process" with a warning where bwrap is unusable) or "process" (see the module
        docstring). `mode` says which one runs.
    bwrap
        The bwrap executable (default: found on PATH).
    """

    timeout: float = 10.0
    memory_mb: int = 1024
    max_procs: int = 32
    max_output_chars: int = 8000
    drop_root: bool = True
    isolation: str = "bwrap"
    bwrap: str | None = None
    _mode: str | None = field(default=None, init=False, repr=False)
    fallback_reason: str | None = field(default=None, init=False)
    """Why "bwrap" was asked for but "process" runs (None when it was not)."""

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"sandbox isolation must be one of {', '.join(ISOLATIONS)}, "
                             f"got {self.isolation!r}")

    @property
    def mode(self) -> str:
        """The isolation in use: "bwrap" when asked for and usable here, else "process".
        The first use of "bwrap" runs one probe (a trivial program in the sandbox)."""
        if self._mode is None:
            self._mode = "process"
            if self.isolation == "bwrap":
                reason = self._bwrap_problem()
                if reason is None:
                    self._mode = "bwrap"
                else:
                    self.fallback_reason = reason
                    _warn_once(f"python tool: {reason}; running it with process limits only "
                               "(no network or file isolation); install bubblewrap "
                               "(apt-get install bubblewrap) to contain it")
        return self._mode

    def _bwrap_problem(self) -> str | None:
        exe = self.bwrap or shutil.which("bwrap")
        if not exe or not os.path.isfile(exe):
            return "bwrap (bubblewrap) is not installed"
        out = self._run("print('ok')", "bwrap", exe)
        if out.strip() != "ok":
            return f"bwrap cannot create its sandbox here ({' '.join(out.split())[:160]})"
        return None

    def run(self, code: str) -> str:
        """Run `code`; return its output, or an "Error: ..." text naming the limit hit."""
        mode = self.mode
        return self._run(code, mode, (self.bwrap or shutil.which("bwrap") or "bwrap"))

    def _run(self, code: str, mode: str, bwrap: str) -> str:
        with (
            tempfile.TemporaryDirectory(prefix="hsl-py-") as work,
            tempfile.TemporaryDirectory(prefix="hsl-py-out-") as out_dir,
        ):
            cwd = Path(work)
            script = cwd / "main.py"
            script.write_text(code, encoding="utf-8")
            uid = gid = None
            keep_read = False
            as_root = os.geteuid() == 0
            if self.drop_root and as_root:
                uid = gid = 65534
                os.chown(cwd, uid, gid)
                os.chown(script, uid, gid)
                keep_read = mode == "process" and not _world_reachable(Path(sys.executable))
            nproc = self.max_procs + _user_tasks(uid if uid is not None else os.getuid())
            inside = Path(_INSIDE) if mode == "bwrap" else cwd
            cfg = {
                "memory_bytes": self.memory_mb * 2**20,
                "cpu_seconds": max(1, math.ceil(self.timeout)) + 1,
                "file_bytes": 50 * 2**20,
                "uid": uid,
                "gid": gid,
                "keep_read": keep_read,
                "nproc": nproc,
                "script": str(inside / "main.py"),
            }
            env = safe_env()
            token = secrets.token_hex(8)
            env.update(
                {
                    "HOME": str(inside),
                    "TMPDIR": "/tmp" if mode == "bwrap" else str(cwd),
                    "PYTHONDONTWRITEBYTECODE": "1",
                    "OPENBLAS_NUM_THREADS": "1",
                    "OMP_NUM_THREADS": "1",
                    "MKL_NUM_THREADS": "1",
                    "MPLBACKEND": "Agg",
                    _MARK: token,
                }
            )
            cmd = [sys.executable, "-I", "-c", _BOOT, json.dumps(cfg)]
            if mode == "bwrap":
                cmd = bwrap_command(bwrap, cwd, as_root=as_root and uid is not None) + cmd
            out_path, err_path = Path(out_dir) / "out", Path(out_dir) / "err"
            t0 = time.monotonic()
            with out_path.open("wb") as out, err_path.open("wb") as err:
                proc = subprocess.Popen(
                    cmd,
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
