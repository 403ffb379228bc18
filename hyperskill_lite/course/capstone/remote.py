"""A student's memory method, contained, seen from the grader: `ContainedMemory`.

`ContainedMemory.start(...)` starts child.py in a sandbox: under bubblewrap (the python
tool's `bwrap_command`: no network, a read-only system, the Python installation and the
library read-only, the submission file alone beside it, a private ``/tmp``), or as a
plain process with resource limits (``"process"``: weaker, for a machine without
bubblewrap, when the instructor says so). Either way its address space, CPU seconds,
file sizes and open files are bounded (`Limits`), each call has a wall-clock limit and
the whole run a budget; past any of them the process group is killed and the run ends
with one line (`MethodFailed`).

It implements the runner's `MemorySystem` interface, so the ordinary episode step
(runner.one_episode) drives it: `begin` and `end` send the task (its id and text only)
and the episode (without the world's record of what it showed) and read back plain
JSON. The world stays here: while the child serves a call it may ask the world's model
(SimLLM) for the four operations of `MemoryLLM`; `WorldDesk` answers them with the real
task and episode, only for the task in hand (no peeking at a task before its turn), and
hands every text the model writes an opaque token in place of its hidden metadata. When
the child's context comes back, each item's tokens are mapped to the metadata the world
issued (a token it never issued counts for nothing), so a submission cannot forge what
a text means to SkillWorld, nor see it.

Not here: the child (child.py), the ranking (rank.py).
"""

from __future__ import annotations

import json
import os
import resource
import secrets
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import reduce
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.sandbox import bwrap_command, safe_env
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import ContextItem, Fragment, MaintenanceReport, Skill
from hyperskill_lite.types import Episode, Extraction, MemoryContext, Task

__all__ = ["CHILD", "DROP_ENV", "ContainedMemory", "Limits", "MethodFailed", "WorldDesk",
           "nobody_can_run_python", "process_isolation_note"]

CHILD = Path(__file__).with_name("child.py")
PACKAGE = Path(__file__).resolve().parents[2]
MAX_LINE = 8 * 2**20
"""The longest message the child may send (bytes)."""
MAX_ITEMS, MAX_TEXT = 500, 400_000
"""A context keeps at most this many items and characters of text."""
_NOBODY = 65534
DROP_ENV = "HYPERSKILL_CAPSTONE_DROP"
"""Set for a child bwrap starts as root: it becomes "nobody" first thing (child.py)."""


class MethodFailed(RuntimeError):
    """The contained method cannot go on (it died, hung, or broke the protocol); the
    message is the one line the leaderboard shows."""


@dataclass(frozen=True)
class Limits:
    """What one contained run may use."""

    call_seconds: float = 20.0
    """Wall clock per call (begin, end, maintain), model operations included."""
    total_seconds: float = 600.0
    """Wall clock for the whole run (all episodes)."""
    memory_mb: int = 2048
    """Address space of the child (RLIMIT_AS)."""
    start_seconds: float = 60.0
    """Time to start: the library's import and the submission's own."""


class WorldDesk:
    """The world's model, answering a contained method's operations (module docstring)."""

    def __init__(self, llm: Any) -> None:
        self.llm = llm
        self.issued: dict[str, dict[str, Any]] = {}
        self.task: Task | None = None
        self.episode: Episode | None = None
        self.refused: list[str] = []
        """Operations the world refused (a task not in hand, a malformed call)."""
        self.forged = 0
        """Tokens handed back that the world never issued."""

    # tokens ----------------------------------------------------------------------------
    def issue(self, meta: dict[str, Any] | None) -> dict[str, Any]:
        """The child's view of a text's metadata: the world's part replaced by a token."""
        meta = dict(meta or {})
        world = meta.pop("skillworld", None)
        if world is not None:
            token = secrets.token_hex(8)
            self.issued[token] = {"skillworld": world}
            meta["skillworld"] = {"tokens": [token]}
        return meta

    def resolve(self, meta: Any) -> dict[str, Any]:
        """The world's metadata of a text the child hands back: the union (core.meta's
        rule, as a memory merges metadata) of what its tokens stand for; nothing for a
        token never issued."""
        if not isinstance(meta, dict):
            return {}
        world = meta.get("skillworld")
        tokens = world.get("tokens") if isinstance(world, dict) else None
        if not isinstance(tokens, list):
            return {}
        known = [self.issued[t] for t in tokens[:1000] if isinstance(t, str) and t in self.issued]
        self.forged += len(tokens[:1000]) - len(known)
        return reduce(merge_meta, known, {}) if known else {}

    def _skill_out(self, s: Skill) -> dict[str, Any]:
        return {"name": s.name, "content": s.content, "polarity": s.polarity,
                "meta": self.issue(s.meta)}

    def _skill_in(self, d: Any) -> Skill:
        if not isinstance(d, dict) or d.get("polarity") not in ("success", "failure"):
            raise ValueError("a skill is {name, content, polarity, meta}")
        return Skill(name=str(d.get("name", ""))[:500], content=str(d.get("content", ""))[:5000],
                     polarity=d["polarity"], meta=self.resolve(d.get("meta")))

    # the four operations ---------------------------------------------------------------
    def answer(self, op: str, args: dict[str, Any]) -> Any:
        """The reply to one operation; ValueError for a call the world refuses."""
        if op in ("decompose", "extract", "judge"):
            if self.task is None or args.get("task") != self.task.id:
                raise ValueError(f"{op} is answered only for the task in hand")
        if op == "decompose":
            return self.llm.decompose(self.task)
        if op in ("extract", "judge"):
            if self.episode is None:
                raise ValueError(f"{op} needs the task's finished episode (call it in end)")
            if op == "judge":
                return bool(self.llm.judge(self.task, self.episode))
            got: Extraction = self.llm.extract(self.task, self.episode)
            return {"skills": [self._skill_out(s) for s in got.skills], "lesson": got.lesson,
                    "meta": self.issue(got.meta)}
        if op == "merge":
            fragments = [Fragment(task=str(f.get("task", ""))[:2000],
                                  lesson=str(f.get("lesson", ""))[:2000],
                                  success=bool(f.get("success")), meta=self.resolve(f.get("meta")))
                         for f in (args.get("fragments") or [])[:100] if isinstance(f, dict)]
            merged = self.llm.merge(self._skill_in(args.get("a")), self._skill_in(args.get("b")),
                                    fragments)
            return self._skill_out(merged)
        raise ValueError(f"the world's model has no operation {op!r}")


def _task_json(task: Task) -> dict[str, Any]:
    return {"id": task.id, "question": task.question, "prompt": task.prompt,
            "benchmark": task.benchmark}


def _episode_json(ep: Episode) -> dict[str, Any]:
    d = ep.to_dict()
    d["meta"] = {k: v for k, v in (d.get("meta") or {}).items()
                 if k not in ("skillworld", "reasoning")}
    return json.loads(json.dumps(d, default=str))


def nobody_can_run_python() -> bool:
    """Whether the user "nobody" can reach and run this interpreter (every folder above it
    searchable by others, the file readable and executable by them)."""
    exe = Path(os.path.realpath(sys.executable))
    try:
        if any(not os.stat(parent).st_mode & 0o001 for parent in exe.parents):
            return False
        return os.stat(exe).st_mode & 0o005 == 0o005
    except OSError:
        return False


def process_isolation_note() -> str:
    """The one line a ranking records when ``process`` isolation cannot become "nobody"
    (run by root with an interpreter only root can reach), or ""."""
    if os.geteuid() == 0 and not nobody_can_run_python():
        return (f"process isolation run by root: the interpreter ({sys.executable}) is not "
                "reachable by the user nobody, so the submissions ran as root with resource "
                "limits only; use bwrap isolation, or a Python installation outside /root")
    return ""


def _limit(memory_mb: int, cpu_seconds: int, drop: bool) -> Any:
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory_mb * 2**20, memory_mb * 2**20))
        resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds + 5))
        resource.setrlimit(resource.RLIMIT_FSIZE, (256 * 2**20, 256 * 2**20))
        resource.setrlimit(resource.RLIMIT_NOFILE, (256, 256))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if drop:
            os.setgroups([])
            os.setgid(_NOBODY)
            os.setuid(_NOBODY)
    return apply


class ContainedMemory:
    """A contained method on the runner's `MemorySystem` interface (module docstring)."""

    def __init__(self, proc: subprocess.Popen, folder: Path, desk: WorldDesk, limits: Limits,
                 name: str, description: str) -> None:
        self.proc, self.folder, self.desk, self.limits = proc, folder, desk, limits
        self.name, self.description = name, description
        self.started = time.monotonic()
        self.calls = 0
        self.failure = ""
        """Why the method cannot go on (the first `MethodFailed`), once it has failed."""
        self._buffer = b""

    # starting and stopping ---------------------------------------------------------------
    @classmethod
    def start(cls, submission: Path | None, desk: WorldDesk, *, builtin: str | None = None,
              isolation: str = "bwrap", limits: Limits | None = None,
              encoder: str = "hashing") -> ContainedMemory:
        """Start the child for a submission file (or a `builtin` method of the package)."""
        limits = limits or Limits()
        folder = Path(tempfile.mkdtemp(prefix="hsl-capstone-"))
        os.chmod(folder, 0o755)
        stderr = open(folder / "stderr.txt", "wb")
        env = {**safe_env(), "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1",
               "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "HYPERSKILL_CAPSTONE_ENCODER": encoder, "HYPERSKILL_CACHE": "off",
               "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "PYTHONHASHSEED": "0"}
        args = ["--builtin", builtin] if builtin else []
        if submission is not None:  # a copy anyone may read (the code runs as "nobody")
            shutil.copyfile(submission, folder / "submission.py")
            os.chmod(folder / "submission.py", 0o644)
        cpu = int(limits.total_seconds + limits.start_seconds) + 1
        as_root = os.geteuid() == 0
        if isolation == "bwrap":
            # as the python tool's sandbox does: as root, bwrap keeps only the capabilities
            # to become "nobody" (child.py does, before it reads the submission); otherwise
            # a user namespace
            cmd = bwrap_command(shutil.which("bwrap") or "bwrap", CHILD, as_root=as_root)
            cmd += ["--ro-bind", str(PACKAGE), str(PACKAGE)]
            if submission is not None:  # in a folder "nobody" may enter
                cmd += ["--perms", "0755", "--dir", "/capstone", "--ro-bind",
                        str(folder / "submission.py"), "/capstone/submission.py"]
                args = ["/capstone/submission.py"]
            cmd += [sys.executable, "-I", "-B", "/run/hsl/main.py", *args]
            cwd, drop = folder, False
            if as_root:
                env[DROP_ENV] = "1"
        elif isolation == "process":
            work = folder / "work"
            work.mkdir()
            if submission is not None:
                args = [str(folder / "submission.py")]
            if as_root:
                os.chown(work, _NOBODY, _NOBODY)
            env["HOME"] = str(work)
            cmd = [sys.executable, "-I", "-B", str(CHILD), *args]
            cwd, drop = work, as_root and nobody_can_run_python()
        else:
            raise ValueError(f"isolation must be bwrap or process, got {isolation!r}")
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdin=subprocess.PIPE,
                                    stdout=subprocess.PIPE, stderr=stderr,
                                    start_new_session=True,
                                    preexec_fn=_limit(limits.memory_mb, cpu, drop))
        except OSError as e:
            shutil.rmtree(folder, ignore_errors=True)
            raise MethodFailed(f"it could not be started ({e.strerror or e})") from None
        finally:
            stderr.close()
        mem = cls(proc, folder, desk, limits, name=builtin or "", description="")
        ready = mem._reply(limits.start_seconds, "start")
        if "ready" not in ready:
            mem.close()
            raise MethodFailed(f"it did not start: {ready.get('fatal', 'no ready line')}")
        info = ready["ready"] if isinstance(ready["ready"], dict) else {}
        mem.name = str(info.get("name", builtin or "?"))[:200]
        mem.description = str(info.get("description", ""))[:500]
        return mem

    def close(self) -> None:
        """Stop the child and everything it started, and remove its folder."""
        if self.proc.poll() is None:
            try:
                self.proc.stdin.write(b'{"op": "quit"}\n')
                self.proc.stdin.flush()
                self.proc.wait(timeout=2)
            except (OSError, ValueError, subprocess.TimeoutExpired):
                pass
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.proc.wait()
        for f in (self.proc.stdin, self.proc.stdout):
            try:
                f.close()
            except OSError:
                pass
        shutil.rmtree(self.folder, ignore_errors=True)

    def stderr_tail(self, chars: int = 300) -> str:
        try:
            data = (self.folder / "stderr.txt").read_bytes()[-chars:]
        except OSError:
            return ""
        return " ".join(data.decode("utf-8", "replace").split())

    # the protocol ------------------------------------------------------------------------
    def _die(self, why: str) -> MethodFailed:
        if self.failure:
            return MethodFailed(self.failure)
        tail = self.stderr_tail()
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
        self.failure = why + (f" (its last words: {tail[-160:]})" if tail else "")
        return MethodFailed(self.failure)

    def _line(self, deadline: float, what: str) -> dict[str, Any]:
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise self._die(f"{what} took longer than its limit")
            ready, _, _ = select.select([fd], [], [], left)
            if not ready:
                continue
            chunk = os.read(fd, 65536)
            if not chunk:
                code = self.proc.poll()
                raise self._die(f"it died during {what}" + (f" (exit {code})" if code else ""))
            self._buffer += chunk
            if len(self._buffer) > MAX_LINE:
                raise self._die(f"its reply to {what} was longer than {MAX_LINE // 2**20} MB")
        line, self._buffer = self._buffer.split(b"\n", 1)
        try:
            msg = json.loads(line)
        except (ValueError, RecursionError):
            raise self._die(f"it broke the protocol during {what} (not a JSON line)") from None
        if not isinstance(msg, dict):
            raise self._die(f"it broke the protocol during {what}")
        return msg

    def _send(self, obj: dict[str, Any]) -> None:
        try:
            self.proc.stdin.write((json.dumps(obj) + "\n").encode())
            self.proc.stdin.flush()
        except (OSError, ValueError):
            raise self._die("it stopped reading") from None

    def _reply(self, seconds: float, what: str) -> dict[str, Any]:
        """The child's answer to a call, serving its model operations meanwhile."""
        budget = self.started + self.limits.total_seconds + self.limits.start_seconds \
            if hasattr(self, "started") else time.monotonic() + seconds
        deadline = min(time.monotonic() + seconds, budget)
        while True:
            msg = self._line(deadline, what)
            if "call" not in msg:
                return msg
            try:
                reply: dict[str, Any] = {"reply": self.desk.answer(
                    str(msg.get("call")), msg.get("args") if isinstance(msg.get("args"), dict)
                    else {})}
            except (ValueError, TypeError, KeyError) as e:
                self.desk.refused.append(f"{str(msg.get('call'))[:30]}: {str(e)[:120]}")
                reply = {"reply_error": str(e)[:300]}
            self._send(reply)

    def _call(self, obj: dict[str, Any], what: str) -> Any:
        if time.monotonic() - self.started > self.limits.total_seconds + self.limits.start_seconds:
            raise self._die(f"it used up its time budget ({self.limits.total_seconds:g} s)")
        self.calls += 1
        self._send(obj)
        msg = self._reply(self.limits.call_seconds, what)
        if "error" in msg:
            raise RuntimeError(str(msg["error"])[:300])  # one episode's failure
        if "result" not in msg:
            raise self._die(f"it broke the protocol during {what}")
        return msg["result"]

    # MemorySystem ----------------------------------------------------------------------
    def begin(self, task: Task) -> MemoryContext:
        self.desk.task, self.desk.episode = task, None
        got = self._call({"op": "begin", "task": _task_json(task)}, "begin")
        if not isinstance(got, dict):
            raise RuntimeError("begin returned no context")
        items = []
        for it in (got.get("items") or [])[:MAX_ITEMS]:
            if isinstance(it, dict):
                items.append(ContextItem(kind=str(it.get("kind", "item"))[:40],
                                         text=str(it.get("text", ""))[:MAX_TEXT],
                                         meta=self.desk.resolve(it.get("meta"))))
        return MemoryContext(text=str(got.get("text", ""))[:MAX_TEXT], items=items,
                             retrieved=[str(r)[:100] for r in (got.get("retrieved") or [])[:1000]],
                             plan=[str(p)[:1000] for p in (got.get("plan") or [])[:50]])

    def end(self, task: Task, episode: Episode) -> dict[str, Any] | None:
        self.desk.task, self.desk.episode = task, episode
        try:
            got = self._call({"op": "end", "task": _task_json(task),
                              "episode": _episode_json(episode)}, "end")
        finally:
            self.desk.task = self.desk.episode = None
        return got if isinstance(got, dict) else None

    def maintain(self) -> MaintenanceReport:
        self._call({"op": "maintain"}, "maintain")
        return MaintenanceReport()

    def stats(self) -> dict[str, int]:
        got = self._call({"op": "stats"}, "stats")
        return {str(k)[:40]: v for k, v in (got or {}).items() if isinstance(v, int)} \
            if isinstance(got, dict) else {}

    def save(self, path: Path) -> None:  # the ranking never resumes a run
        raise NotImplementedError("a contained capstone method is not saved")

    def load(self, path: Path) -> None:
        raise NotImplementedError("a contained capstone method is not loaded")

