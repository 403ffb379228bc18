"""The python tool's supervisor: the first process of every sandbox call (standard library only).

`PythonSandbox` (sandbox.py) starts this file's source with ``python -I -c`` (inside
bubblewrap, or as a plain process) and one JSON argument. It

1. becomes a child subreaper (``PR_SET_CHILD_SUBREAPER``), so every process the code
   starts, even one that left its session and was orphaned (``setsid``, double fork, a
   detached ``Popen``), becomes its descendant and is killed when the call ends;
2. with ``namespaces`` (process mode run by root; "try" goes on without them where the
   kernel refuses, "require" does not): enters a mount, network and IPC namespace of its
   own, hides ``/root`` and ``/home`` under empty tmpfs folders (the Python installation
   they hold is bound back read-only), and mounts a size-capped tmpfs on ``/tmp`` (the
   working folder is ``/tmp/work``; an interpreter under ``/tmp`` is bound back
   read-only), ``/var/tmp`` and ``/dev/shm``;
3. forks the child that runs the code: resource limits (address space, CPU seconds,
   file size, processes, open files, no core dumps), every capability dropped (bounding
   set, then ``setgroups``/``setresgid``/``setresuid`` to the unprivileged user when run
   by root, then permitted, effective, inheritable and ambient sets cleared),
   ``PR_SET_NO_NEW_PRIVS``, stdin from ``/dev/null``, then ``exec`` of the interpreter
   in isolated mode on ``main.py`` in the working folder;
4. waits until the child exits, the wall-clock `timeout` passes, the working folder
   outgrows ``disk_bytes`` (``watch_quota``: where it is not a capped tmpfs) or it is
   asked to stop (SIGTERM, also sent when the run that started it dies:
   ``PR_SET_PDEATHSIG``); then kills every descendant and reaps them until none is left;
5. writes one JSON line to ``status_fd``: the child's exit status, why it stopped, how
   long killing the descendants took, or why the sandbox could not be set up.

Not here: choosing the limits, bubblewrap's arguments, reporting (sandbox.py).
"""

import ctypes
import errno
import json
import os
import resource
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_CAPBSET_DROP = 24
PR_SET_CHILD_SUBREAPER = 36
PR_SET_NO_NEW_PRIVS = 38
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
CLONE_NEWNS, CLONE_NEWIPC, CLONE_NEWNET = 0x00020000, 0x08000000, 0x40000000
CLONE_NEWUSER, CLONE_NEWPID = 0x10000000, 0x20000000
O_PATH = getattr(os, "O_PATH", 0o10000000)
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND = 1, 2, 4, 8, 32, 4096
MS_REC, MS_PRIVATE = 16384, 1 << 18
LIBC = ctypes.CDLL(None, use_errno=True)
STOP = []


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _prctl(option, arg2=0, arg3=0):
    return LIBC.prctl(option, ctypes.c_ulong(arg2), ctypes.c_ulong(arg3), ctypes.c_ulong(0),
                      ctypes.c_ulong(0))


def _mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else s.encode()  # noqa: E731
    _check(LIBC.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags),
                      enc(data)), f"mount {target}")


def _tmpfs(target, size, mode):
    _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, f"size={size},mode={mode}")


NS_WORK = "/tmp/work"
"""The working folder in process mode's own mount namespace."""


def _inside(path, top):
    return path == top or path.startswith(top.rstrip("/") + "/")


def _cover(top, keep_all, size, mode):
    """An empty tmpfs over `top`, with what the interpreter needs inside it (`keep_all`:
    [kind, path, link target] from sandbox.python_view) put back: links recreated,
    files and folders bound back read-only."""
    keep = sorted((e for e in keep_all if _inside(e[1], top) and e[1] != top),
                  key=lambda e: e[1].count("/"))
    fds = {}
    for kind, path, _ in keep:  # opened before they are hidden
        if kind != "link" and os.path.lexists(path):
            fds[path] = os.open(path, O_PATH | os.O_CLOEXEC)
    _tmpfs(top, size, mode)
    for kind, path, target in keep:
        os.makedirs(os.path.dirname(path), mode=0o755, exist_ok=True)
        if kind == "link":
            if not os.path.lexists(path):
                os.symlink(target, path)
            continue
        if path not in fds:
            continue
        if kind == "dir":
            os.makedirs(path, mode=0o755, exist_ok=True)
        elif not os.path.lexists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
        _mount(f"/proc/self/fd/{fds[path]}", path, None, MS_BIND | MS_REC)
        _mount(None, path, None, MS_BIND | MS_REMOUNT | MS_RDONLY | MS_NOSUID)
    for fd in fds.values():
        os.close(fd)


def _user_namespace():
    """A user namespace in which this process (uid and gid kept) may create the others:
    for a regular user, or root without CAP_SYS_ADMIN (inside another sandbox)."""
    uid, gid = os.geteuid(), os.getegid()
    _check(LIBC.unshare(CLONE_NEWUSER), "unshare (user namespace)")
    for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                       ("gid_map", f"{gid} {gid} 1")):
        with open(f"/proc/self/{name}", "w") as f:
            f.write(text)


def _namespaces(cfg):
    """Process mode: own mount, network, IPC and (for the code's process, forked next)
    PID namespaces, in a user namespace of its own where the process has no privilege;
    homes and the installations' own folders hidden (what the interpreter needs is put
    back read-only); fresh temporary folders."""
    flags = CLONE_NEWNS | CLONE_NEWNET | CLONE_NEWIPC | (CLONE_NEWPID if cfg.get("pidns") else 0)
    if LIBC.unshare(flags) != 0:
        if ctypes.get_errno() != errno.EPERM:
            _check(-1, "unshare")
        _user_namespace()
        _check(LIBC.unshare(flags), "unshare")
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    covered = []
    for top in cfg["hide"]:
        if os.path.isdir(top) and os.access(top, os.R_OK | os.X_OK):
            _cover(top, cfg["keep"], 1 << 20, "0755")
            covered.append(top)
    _cover("/tmp", cfg["keep"], cfg["disk_bytes"], "1777")
    covered.append("/tmp")
    for d in ("/var/tmp", "/dev/shm"):
        if os.path.isdir(d):
            _cover(d, cfg["keep"], cfg["tmp_bytes"], "1777")
            covered.append(d)
    for top in cfg.get("cover", []):  # a venv's root: pip.conf, .env, ... hidden
        if os.path.isdir(top) and not any(_inside(top, c) for c in covered):
            _cover(top, cfg["keep"], 1 << 20, "0755")


def _init(cfg, report_fd):  # pragma: no cover - runs in the forked child
    """The PID namespace's first process: a /proc of this namespace only (in a mount
    namespace of its own, so the supervisor keeps the host's), then the code's process;
    reaps every process orphaned in the namespace and, when the code's process ends,
    sends its wait status to the supervisor and leaves (the kernel then kills whatever
    the code left in the namespace)."""
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(sig, signal.SIG_DFL)
        _check(LIBC.unshare(CLONE_NEWNS), "unshare (mount namespace for /proc)")
        _mount(None, "/", None, MS_REC | MS_PRIVATE)
        _mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC)
    except BaseException as exc:  # noqa: BLE001 - reported, never raised
        os.write(2, f"sandbox setup failed: {type(exc).__name__}: {exc}\n".encode())
        os._exit(126)
    code = os.fork()
    if code == 0:
        os.close(report_fd)
        _child(cfg)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        if pid == code:
            os.write(report_fd, f"{status}\n".encode())
            os._exit(0)


def _drop_capabilities():
    """Empty the bounding set (needs CAP_SETPCAP; skipped without it)."""
    try:
        last = int(open("/proc/sys/kernel/cap_last_cap").read())
    except (OSError, ValueError):
        last = 40
    for cap in range(last + 1):
        if _prctl(PR_CAPBSET_DROP, cap) != 0 and ctypes.get_errno() == errno.EPERM:
            break


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def _clear_capabilities():
    data = (_CapData * 2)()  # all zero
    LIBC.capset(ctypes.byref(_CapHeader(0x20080522, 0)), data)  # _LINUX_CAPABILITY_VERSION_3
    _prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)


def _child(cfg):  # pragma: no cover - runs in the forked child, then execs
    try:
        for sig in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT, signal.SIGXFSZ):
            signal.signal(sig, signal.SIG_DFL)
        os.chdir(cfg["work"])
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        limits = ((resource.RLIMIT_AS, cfg["memory_bytes"]),
                  (resource.RLIMIT_CPU, cfg["cpu_seconds"]),
                  (resource.RLIMIT_FSIZE, cfg["disk_bytes"]),
                  (resource.RLIMIT_CORE, 0), (resource.RLIMIT_NOFILE, cfg["nofile"]))
        for what, value in limits:
            hard = value + 1 if what == resource.RLIMIT_CPU else value
            resource.setrlimit(what, (value, hard))
        _drop_capabilities()
        if cfg["uid"] is not None:
            os.setgroups([])
            os.setresgid(cfg["gid"], cfg["gid"], cfg["gid"])
            os.setresuid(cfg["uid"], cfg["uid"], cfg["uid"])
        _clear_capabilities()
        _check(_prctl(PR_SET_NO_NEW_PRIVS, 1), "no_new_privs")
        _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # after the uid change, which clears it
        resource.setrlimit(resource.RLIMIT_NPROC, (cfg["nproc"], cfg["nproc"]))
        os.execv(cfg["python"], [cfg["python"], "-I", "main.py"])
    except BaseException as exc:  # noqa: BLE001 - reported, never raised past exec
        os.write(2, f"sandbox setup failed: {type(exc).__name__}: {exc}\n".encode())
    os._exit(126)


def _children():
    """Pids whose parent is this process."""
    me, found = os.getpid(), []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                with open(f"/proc/{p}/stat", "rb") as f:
                    ppid = int(f.read().rsplit(b")", 1)[1].split()[1])
            except (OSError, ValueError, IndexError):
                continue
            if ppid == me:
                found.append(int(p))
    return found


def _kill_descendants(first, status):
    """SIGKILL every descendant (orphans come to this subreaper) and reap them all;
    the seconds it took. `status` keeps `first`'s exit status when it is reaped here."""
    t0 = time.monotonic()
    while True:
        for pid in _children():
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        try:
            while True:
                pid, code = os.waitpid(-1, os.WNOHANG)
                if pid == 0:
                    break
                if pid == first and "code" not in status:
                    status["code"] = code
        except ChildProcessError:
            return time.monotonic() - t0
        time.sleep(0.002)


def _size(top):
    total = 0
    for root, dirs, files in os.walk(top):
        for name in files + dirs:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def _wait(cfg, child, status):
    """Until the child exits, the timeout passes, the quota is exceeded or a stop."""
    deadline = time.monotonic() + cfg["timeout"]
    next_size = 0.0
    while True:
        pid, code = os.waitpid(child, os.WNOHANG)
        if pid:
            status["code"] = code
            return "exited"
        now = time.monotonic()
        if STOP:
            return "stopped"
        if now >= deadline:
            return "timeout"
        if cfg["watch_quota"] and now >= next_size:
            if _size(cfg["work"]) > cfg["disk_bytes"]:
                return "quota"
            next_size = now + 0.02
        time.sleep(0.005)


def main():
    cfg = json.loads(sys.argv[1])
    os.set_inheritable(cfg["status_fd"], False)  # the code never writes the status line
    signal.signal(signal.SIGTERM, lambda *_: STOP.append(1))
    signal.signal(signal.SIGHUP, lambda *_: STOP.append(1))
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if cfg["parent_death"]:
        _prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != cfg["parent"]:  # the run died before the line above
            STOP.append(1)
    _prctl(PR_SET_CHILD_SUBREAPER, 1)
    out = {"setup_error": None}
    try:
        with open(cfg["src"], "rb") as f:
            code = f.read()
        if cfg["namespaces"] != "off":
            _namespaces(cfg)
            # a fresh folder of the fresh /tmp (which may hold the interpreter's venv)
            os.mkdir(NS_WORK, 0o700)
            if cfg["uid"] is not None:
                os.chown(NS_WORK, cfg["uid"], cfg["gid"])
            cfg.update(work=NS_WORK, watch_quota=False)
            out["namespaces"] = True
        target = os.path.join(cfg["work"], "main.py")
        if os.path.realpath(cfg["src"]) != os.path.realpath(target):
            with open(target, "wb") as f:
                f.write(code)
            os.chmod(target, 0o644)
    except OSError as exc:
        out["setup_error"] = str(exc)
        os.write(cfg["status_fd"], (json.dumps(out) + "\n").encode())
        return
    os.environ["HOME"] = cfg["work"]
    os.environ["TMPDIR"] = cfg.get("tmpdir") or cfg["work"]
    status = {}
    report_r = report_w = None
    if out.get("namespaces") and cfg.get("pidns"):
        report_r, report_w = os.pipe()
    child = os.fork()
    if child == 0:
        if report_w is not None:
            os.close(report_r)
            _init(cfg, report_w)
        _child(cfg)
    if report_w is not None:
        os.close(report_w)
    why = _wait(cfg, child, status)
    out["kill_seconds"] = _kill_descendants(child, status)
    code = status.get("code", 0)
    if report_r is not None:  # the code's own status, from the namespace's first process
        with os.fdopen(report_r, "rb") as f:
            said = f.read().strip()
        if said.isdigit():
            code = int(said)
    out.update(why=why, signal=os.WTERMSIG(code) if os.WIFSIGNALED(code) else None,
               exit=os.WEXITSTATUS(code) if os.WIFEXITED(code) else None)
    os.write(cfg["status_fd"], (json.dumps(out) + "\n").encode())


if __name__ == "__main__":
    try:
        main()
    except BaseException as exc:  # noqa: BLE001 - told to the host, which reports it
        fd = json.loads(sys.argv[1]).get("status_fd") if len(sys.argv) > 1 else None
        if fd is not None:
            os.write(fd, (json.dumps({"setup_error": f"supervisor: {type(exc).__name__}: "
                                                     f"{exc}"}) + "\n").encode())
        raise SystemExit(125) from None
