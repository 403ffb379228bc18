"""PythonSandbox: run model-written Python in a contained, resource-limited process.

Two isolation levels (the ``sandbox`` setting, `ISOLATIONS`); neither falls back to the
other. A level that cannot be had here makes the tool answer with one error line, and a
live run refuses to start at its preflight (agent/tools/preflight.py, `check_sandbox`).

- ``"bwrap"`` (the default): the code runs under bubblewrap (``bwrap``, Debian's
  ``bubblewrap`` package) in its own network namespace (only a loopback of its own: no
  route to the internet, the host's loopback servers or the local network), its own PID
  (a ``/proc`` of its own: no other process of the machine is visible), IPC and UTS
  namespaces, with a root file system that holds only the system folders ``/usr`` and
  ``/etc`` and what the interpreter needs to start and import (`python_view`: the
  executable, a venv's ``pyvenv.cfg``, the standard library and the site-packages
  folders), all read-only; its working folder ``/sandbox`` (also HOME), ``/tmp`` and
  ``/dev/shm`` are private tmpfs folders capped at `disk_mb` MB (``/tmp`` and
  ``/dev/shm`` at `tmp_mb` MB). No home directory, no project folder, none of a venv's
  other files (``pip.conf``, ``.env``, its scripts), no user files.
- ``"process"`` (an explicit choice of weaker isolation): a process of the host's file
  system in namespaces of its own: PID (with its own ``/proc``: it sees its own
  processes only, no other command line or environment), IPC, network (no network at
  all) and mount, in which ``/root`` and ``/home`` are hidden (emptied), so are the
  installations' own folders (a venv's root: ``pip.conf``, ``.env``, its scripts;
  `python_view` is put back read-only), and ``/tmp`` (its working folder
  ``/tmp/work``), ``/var/tmp`` and ``/dev/shm`` are private tmpfs folders capped as
  above. Run by root, the code runs as the unprivileged user "nobody"; run by a regular
  user, as that user, inside a user namespace of its own (the kernel must allow
  unprivileged user namespaces). Where the machine cannot give these namespaces the
  mode refuses, at the preflight, with one line naming what is missing; it never runs
  the code as a plain process. What it does not hide: the rest of the file system
  (``/opt``, ``/srv``, the project folder, ``/etc``) is readable as the code's user can
  read it. It contains runaway code (loops, fork bombs, huge allocations, huge files) and
  keeps the machine's processes and the interpreter's files out of sight, not hostile
  code that reads world-readable files.

Under both: the environment is an allowlist (`safe_env`: ``PATH``, ``LANG``, ``LC_*``,
``TZ``, ``HOME`` in the working folder, a few thread and plotting settings; nothing the
run's environment holds besides, so no key, password or URL with credentials reaches
the code); limits set in the child before the interpreter starts: address space
(`memory_mb`), CPU seconds, the size of any file (`disk_mb`), open files, processes
(`max_procs`), no core dumps; every capability dropped (bounding set, then the user
"nobody" when run by root, then the permitted, effective, inheritable and ambient sets)
and ``PR_SET_NO_NEW_PRIVS``; its own session; output captured to files and cut
(`max_output_chars`). A supervisor process (sandbox_supervisor.py) is the child
subreaper of every process the code starts: at the end of the call (exit, wall-clock
`timeout`, quota, or the run's own death) it kills all of them, even those that left
the session. Each call gets a fresh ``hsl-py-*`` folder, removed at the end, and by the
next run's first call when the run was killed with kill -9 (sandbox_folders.py).

Not here: the tool interface the agent calls (toolbox.py), the supervisor
(sandbox_supervisor.py), the folders (sandbox_folders.py), what of the interpreter's
installation the code sees (sandbox_view.py).
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
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from hyperskill_lite.agent.tools.sandbox_folders import WorkFolder, clean_leftovers
from hyperskill_lite.agent.tools.sandbox_view import python_roots, python_view

__all__ = ["PythonSandbox", "safe_env", "ISOLATIONS", "bwrap_command", "ENV_ALLOWED",
           "INSTALL_BWRAP"]

log = logging.getLogger(__name__)

ISOLATIONS = ("bwrap", "process")
"""The python tool's isolation levels (see the module docstring)."""
INSTALL_BWRAP = ("install bubblewrap (Debian/Ubuntu: apt-get install bubblewrap; Fedora: "
                 "dnf install bubblewrap)")
ENV_ALLOWED = ("LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "LC_NUMERIC", "LC_TIME", "TZ")
"""The only variables of the run's environment the code sees (besides those set here)."""
_PLAIN = re.compile(r"[A-Za-z0-9_.:/@+-]{0,64}")
_INSIDE = "/sandbox"
"""The working folder as the code sees it under bwrap."""
_NOBODY = 65534
_GRACE = 5.0
"""Seconds past the timeout before the host kills a supervisor that did not stop."""
_SUPERVISOR = (Path(__file__).with_name("sandbox_supervisor.py")).read_text(encoding="utf-8")
_CLEANED: list[bool] = []
_PROBED: dict[tuple, str | None] = {}
_probe_lock = threading.Lock()


def _truncate(text: str, max_chars: int) -> str:
    if len(text) <= max_chars:
        return text
    return text[:max_chars] + f"\n[... truncated, {len(text) - max_chars} more characters]"


def safe_env(environ: dict[str, str] | None = None) -> dict[str, str]:
    """The part of an environment the code may see: `ENV_ALLOWED` names with plain
    values, and a ``PATH`` of system folders and the interpreter's own; every other
    variable (keys, tokens, ``DATABASE_URL``, a base URL with ``user:pass@``) is left out.

    >>> sorted(safe_env({"PATH": "/secret/bin", "LANG": "C.UTF-8", "OPENAI_API_KEY": "sk",
    ...                  "DATABASE_URL": "postgres://u:pw@db/x"}))
    ['LANG', 'PATH']
    """
    env = os.environ if environ is None else environ
    out = {k: env[k] for k in ENV_ALLOWED if k in env and _PLAIN.fullmatch(env[k])}
    out.setdefault("LANG", "C.UTF-8")
    out["PATH"] = ":".join(dict.fromkeys([os.path.dirname(sys.executable), "/usr/local/bin",
                                          "/usr/bin", "/bin"]))
    return out


def bwrap_command(bwrap: str, script: Path, *, as_root: bool, disk_mb: int = 256,
                  tmp_mb: int = 64, hide: tuple[str, ...] = ()) -> list[str]:
    """The bwrap arguments (up to the program to run) of one call whose code is the host
    file `script` (bound read-only at ``/run/hsl/main.py``; the supervisor copies it into
    ``/sandbox``). As root the supervisor keeps only the capabilities it needs to start
    the code as "nobody" and to kill what it leaves; otherwise a user namespace gives
    bwrap its mounts. Each folder of `hide` that lies inside a folder bound here is
    covered by an empty tmpfs (the course's grader hides the library this way)."""
    args = [bwrap, "--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
            "--unshare-cgroup-try", "--die-with-parent", "--new-session"]
    if as_root:
        args += ["--cap-drop", "ALL"]
        for cap in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP", "CAP_KILL"):
            args += ["--cap-add", cap]
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
    args += ["--proc", "/proc", "--dev", "/dev",
             "--size", str(tmp_mb * 2**20), "--perms", "1777", "--tmpfs", "/dev/shm",
             "--size", str(tmp_mb * 2**20), "--perms", "1777", "--tmpfs", "/tmp",
             "--size", str(disk_mb * 2**20), "--perms", "1777", "--tmpfs", _INSIDE]
    made: set[Path] = set()
    bound: list[Path] = []
    for kind, path, target in python_view():
        if any(b in path.parents for b in bound):
            continue  # inside a folder bound already
        for parent in reversed(path.parents):
            if parent != Path("/") and parent not in made:
                args += ["--perms", "0755", "--dir", str(parent)]  # reachable, nothing else
                made.add(parent)
        if kind == "link":
            args += ["--symlink", target, str(path)]
        else:
            args += ["--ro-bind", str(path), str(path)]
            if kind == "dir":
                bound.append(path)
        made.add(path)
    bound += [Path(d) for d in ("/usr", "/etc")]
    for h in hide:
        p = Path(h).resolve()
        if p.is_dir() and any(p == b or b in p.parents for b in bound):
            args += ["--tmpfs", str(p)]
    args += ["--ro-bind", str(script), "/run/hsl/main.py", "--chdir", _INSIDE]
    return args


def _user_tasks(uid: int) -> int:
    """Threads and processes currently owned by `uid` (what RLIMIT_NPROC counts)."""
    n = 0
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                if os.stat(f"/proc/{p}").st_uid == uid:
                    n += len(os.listdir(f"/proc/{p}/task"))
            except OSError:
                continue
    return n


@dataclass
class PythonSandbox:
    """Runs Python code in a contained, resource-limited process (module docstring).

    Parameters
    ----------
    timeout
        Wall-clock seconds before the code and everything it started are killed.
    memory_mb
        Address-space limit (RLIMIT_AS) of the code's process.
    max_procs
        Processes/threads the code may add (RLIMIT_NPROC, on top of what its user
        already runs).
    max_output_chars
        stdout and stderr are each cut to this length.
    disk_mb
        The working folder's cap (a tmpfs size, or the watched quota), also the largest
        file the code may write (RLIMIT_FSIZE).
    tmp_mb
        The cap of the private ``/tmp`` (bwrap) and ``/dev/shm`` / ``/var/tmp``.
    drop_root
        When running as root, run the code as user "nobody" (uid 65534); on by default.
    isolation
        "bwrap" or "process" (see the module docstring); never swapped for the other.
    bwrap
        The bwrap executable (default: found on PATH).
    hide
        Folders the code must not see: under bwrap each one inside a bound folder is
        covered by an empty tmpfs; in process mode run by root, the supervisor covers
        them as it covers ``/root`` and ``/home``.
    """

    timeout: float = 10.0
    memory_mb: int = 1024
    max_procs: int = 32
    max_output_chars: int = 8000
    disk_mb: int = 256
    tmp_mb: int = 64
    drop_root: bool = True
    isolation: str = "bwrap"
    bwrap: str | None = None
    hide: tuple[str, ...] = ()
    last_status: dict = field(default_factory=dict, init=False, repr=False)
    """The supervisor's report of the last call (why it stopped, kill seconds, ...)."""

    def __post_init__(self) -> None:
        if self.isolation not in ISOLATIONS:
            raise ValueError(f"sandbox isolation must be one of {', '.join(ISOLATIONS)}, "
                             f"got {self.isolation!r}")

    # -- can it run here? ---------------------------------------------------------------
    def problem(self) -> str | None:
        """Why this isolation cannot run here (one sentence naming what to install or
        which option accepts weaker isolation), or None. Probed once per setting and
        process with a trivial program."""
        key = (self.isolation, self._bwrap_path(), os.geteuid(), self.drop_root)
        with _probe_lock:
            if key not in _PROBED:
                _PROBED[key] = self._find_problem()
            return _PROBED[key]

    @property
    def mode(self) -> str:
        """The isolation in use: `isolation`, or "unavailable" when `problem` says so."""
        return self.isolation if self.problem() is None else "unavailable"

    @property
    def fallback_reason(self) -> str | None:
        """Why the python tool is unavailable here (None when it runs); kept for readers
        of an older field: nothing falls back any more."""
        return self.problem()

    def _bwrap_path(self) -> str | None:
        exe = self.bwrap or shutil.which("bwrap")
        return exe if exe and os.path.isfile(exe) else None

    def _find_problem(self) -> str | None:
        if not sys.platform.startswith("linux") or not os.path.isdir("/proc"):
            return ("the python tool's sandbox needs Linux (namespaces, /proc, prctl); run "
                    "the live agent on Linux, e.g. in a container or a virtual machine")
        _clean_once()
        if self.isolation == "bwrap" and self._bwrap_path() is None:
            return (f"the python tool's default sandbox needs bubblewrap (bwrap), which is not "
                    f"installed here: {INSTALL_BWRAP}, or pass --sandbox process to accept "
                    "weaker isolation (resource limits; see docs/guide/guarantees.md)")
        try:
            out = self._execute("print('ok')")
        except (OSError, ValueError) as exc:
            out = f"{type(exc).__name__}: {exc}"
        if out.strip() == "ok":
            return None
        said = " ".join(out.split())
        setup = re.fullmatch(r"Error: the python sandbox could not start \((.*)\)\.", said)
        said = (setup.group(1) if setup else said)[:200]
        if self.isolation == "bwrap":
            return (f"bubblewrap cannot create its sandbox here ({said}); allow user "
                    "namespaces or run where bwrap works, or pass --sandbox process to accept "
                    "weaker isolation")
        if "unshare" in said or "uid_map" in said or "setgroups" in said or "mount" in said:
            return ("the python tool's process sandbox needs PID, mount, IPC and network "
                    f"namespaces of its own, which this machine refuses ({said}); run as "
                    "root, or allow unprivileged user namespaces (sysctl "
                    "kernel.unprivileged_userns_clone=1 and user.max_user_namespaces > 0), "
                    "or use the default --sandbox bwrap where bubblewrap works")
        return f"the python tool's process sandbox cannot start here ({said})"

    # -- one call -------------------------------------------------------------------------
    def run(self, code: str) -> str:
        """Run `code`; return its output, or an "Error: ..." text naming the limit hit
        (never raises; Ctrl-C stops the call and everything it started, then propagates)."""
        problem = self.problem()
        if problem is not None:
            return f"Error: the python tool is unavailable: {problem}."
        try:
            return self._execute(code)
        except OSError as exc:
            return f"Error: the python tool could not start ({exc.strerror or exc})."
        except Exception as exc:  # noqa: BLE001 - a tool never raises
            return f"Error: the python tool failed ({type(exc).__name__}: {exc})."

    def _plan(self, folder: Path) -> tuple[list[str], dict, Path | None]:
        """(command, supervisor settings, the host working folder or None)."""
        as_root = os.geteuid() == 0
        uid = gid = _NOBODY if (self.drop_root and as_root) else None
        cfg = {"memory_bytes": self.memory_mb * 2**20,
               "cpu_seconds": max(1, math.ceil(self.timeout)) + 1,
               "disk_bytes": self.disk_mb * 2**20, "tmp_bytes": self.tmp_mb * 2**20,
               "nofile": 256, "uid": uid, "gid": gid, "timeout": self.timeout,
               "python": sys.executable, "parent": os.getpid(), "watch_quota": False,
               "namespaces": "off", "pidns": False, "hide": ["/root", "/home", *self.hide],
               "keep": [], "cover": []}
        host_work = None
        if self.isolation == "bwrap":
            cfg.update(src="/run/hsl/main.py", work=_INSIDE, tmpdir="/tmp", parent_death=False)
            prefix = bwrap_command(self._bwrap_path() or "bwrap", folder / "main.py",
                                   as_root=as_root and uid is not None, disk_mb=self.disk_mb,
                                   tmp_mb=self.tmp_mb, hide=tuple(self.hide))
        else:  # namespaces of its own, or no sandbox (setup_error): never a plain process
            prefix = []
            cfg.update(src=str(folder / "main.py"), work=str(folder), parent_death=True,
                       namespaces="require", pidns=True,
                       keep=[[k, str(p), t] for k, p, t in python_view()],
                       cover=[str(p) for p in python_roots()])
        # + 2: the supervisor and the PID namespace's first process, when they are the user's
        cfg["nproc"] = self.max_procs + 2 + _user_tasks(uid if uid is not None else os.getuid())
        return prefix, cfg, host_work

    def _execute(self, code: str) -> str:
        with WorkFolder() as wf:
            folder = wf.path
            (folder / "main.py").write_text(code, encoding="utf-8")
            prefix, cfg, host_work = self._plan(folder)
            token = secrets.token_hex(8)
            env = {**safe_env(), "PYTHONDONTWRITEBYTECODE": "1", "OPENBLAS_NUM_THREADS": "1",
                   "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MPLBACKEND": "Agg",
                   _MARK: token}  # HOME and TMPDIR: the supervisor's, in the working folder
            read_fd, write_fd = os.pipe()
            cfg["status_fd"] = write_fd
            cmd = [*prefix, sys.executable, "-I", "-c", _SUPERVISOR, json.dumps(cfg)]
            t0 = time.monotonic()
            status, returncode = self._spawn(cmd, env, folder, read_fd, write_fd, token,
                                             host_work)
            self.last_status = {**status, "seconds": time.monotonic() - t0}
            stdout = (folder / "out").read_bytes()[: 4 * self.max_output_chars]
            stderr = (folder / "err").read_bytes()[-4 * self.max_output_chars:]
        return self._report(status, returncode, stdout.decode("utf-8", "replace"),
                            stderr.decode("utf-8", "replace"))

    def _spawn(self, cmd, env, folder, read_fd, write_fd, token, host_work):
        """Start the supervisor, wait for it (killing it past the timeout's grace or on
        Ctrl-C), and read its status line."""
        with open(folder / "out", "wb") as out, open(folder / "err", "wb") as err:
            try:
                proc = subprocess.Popen(cmd, cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                        stdout=out, stderr=err, start_new_session=True,
                                        pass_fds=(write_fd,))
            finally:
                os.close(write_fd)
            late = False
            try:
                proc.wait(timeout=self.timeout + _GRACE)
            except subprocess.TimeoutExpired:
                late = True
            except BaseException:  # Ctrl-C: the supervisor kills what the code started
                _stop(proc, token, host_work)
                os.close(read_fd)
                raise
            _stop(proc, token, host_work)
        with os.fdopen(read_fd, "rb") as f:
            raw = f.read()
        try:
            status = json.loads(raw.decode("utf-8").strip() or "{}")
        except ValueError:
            status = {}
        if late:
            status["why"] = "timeout"
        return status, proc.returncode

    def _report(self, status: dict, returncode: int | None, stdout: str, stderr: str) -> str:
        out = _truncate(stdout, self.max_output_chars)
        tail = stderr[-self.max_output_chars:]
        if status.get("setup_error") or "sandbox setup failed" in stderr:
            why = status.get("setup_error") or tail.strip().splitlines()[-1]
            return f"Error: the python sandbox could not start ({why})."
        why, sig, code = status.get("why"), status.get("signal"), status.get("exit")
        if not status:  # the supervisor itself was killed past the timeout's grace
            why = "timeout"
        if why == "timeout" or sig == signal.SIGXCPU:
            return f"Error: python timed out after {self.timeout:g} s (stopped).\n{out}".rstrip()
        if why == "quota" or sig == signal.SIGXFSZ:
            return (f"Error: python wrote more than the working folder's {self.disk_mb} MB "
                    f"(stopped).\n{out}").rstrip()
        if "MemoryError" in stderr or (sig is not None and "Cannot allocate" in stderr):
            return f"Error: python exceeded the memory limit of {self.memory_mb} MB (stopped).\n{out}".rstrip()
        if "BlockingIOError" in stderr and "Resource temporarily unavailable" in stderr:
            return (f"Error: python exceeded the process limit of {self.max_procs} "
                    f"(stopped; too many processes or threads).\n{out}").rstrip()
        if sig is not None:
            return f"Error: python was killed by signal {sig}.\n{out}\n{tail}".strip()
        if code:
            return f"Error: python exited with code {code}.\n{out}\n{tail}".strip()
        if why == "stopped":
            return f"Error: python was stopped.\n{out}".rstrip()
        return out if out.strip() else "(no output; use print() to show results)"


def _clean_once() -> None:
    """Remove the ``hsl-py-*`` folders of dead runs, once per process."""
    if not _CLEANED:
        _CLEANED.append(True)
        removed = clean_leftovers()
        if removed:
            log.info("python tool: removed %d temporary folder(s) left by runs that were "
                     "killed", removed)


def _stop(proc: subprocess.Popen, token: str, host_work: Path | None) -> None:
    """Make sure nothing of this call is left: ask the supervisor to stop (it kills what
    the code started), then kill its process group and any process that still carries
    the call's marker or works in its folder (a supervisor the code managed to kill)."""
    if proc.poll() is None:
        try:
            proc.send_signal(signal.SIGTERM)
            proc.wait(timeout=2.0)
        except (subprocess.TimeoutExpired, ProcessLookupError):
            pass
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
    _kill_marked(token, host_work)


_MARK = "HYPERSKILL_SANDBOX_RUN"


def _kill_marked(token: str, cwd: Path | None) -> int:
    """SIGKILL every process whose environment carries ``_MARK=token`` or whose working
    directory is `cwd`; returns how many were killed."""
    needle, killed = f"{_MARK}={token}".encode(), 0
    where = str(cwd) if cwd is not None else None
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
            if needle in env.split(b"\0") or (where is not None and (
                    here == where or here.startswith(where + "/"))):
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
