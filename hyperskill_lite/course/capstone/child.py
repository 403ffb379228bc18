"""The contained side of a capstone run: a student's memory method, and nothing else.

This file runs as a script inside the sandbox (remote.py starts it): ``python -I
child.py SUBMISSION`` (or ``--builtin NAME`` for a reference method of the package). It
loads the submission's `MethodSpec` (submission.py says what a submission is), builds
the memory over a stand-in for SkillWorld's simulated model whose four operations
(``decompose``, ``extract``, ``merge``, ``judge``) are answered by the grader, and then
serves the runner's calls: ``begin``, ``end``, ``maintain``, ``stats``. Messages are JSON
lines: the grader's on stdin, ours on the stdout the process started with; the
submission's own prints go to stderr.

What crosses the pipe is data: a task's id and text (never SkillWorld's hidden
structure, never its answer), an episode without the world's record of what it showed,
and the texts the world's model wrote, whose hidden metadata is an opaque token here
(``{"skillworld": {"tokens": [...]}}``); the grader alone maps tokens back to what a text
means to the world (remote.py). The world itself (tasks, outcomes, the simulated model)
never runs in this process.

Not here: the world and the loop (remote.py, rank.py).
"""

from __future__ import annotations

import json
import os
import runpy
import sys
from typing import Any

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import encoder_by_name
from hyperskill_lite.core.records import Skill
from hyperskill_lite.methods.registry import MethodSpec, registered
from hyperskill_lite.types import Episode, Extraction, MemoryContext, Task

SPEC_NAMES = ("SPEC", "spec")
"""What a submission file defines: ``SPEC = MethodSpec(...)``, or ``spec()`` returning one."""


class Channel:
    """JSON lines to and from the grader."""

    def __init__(self) -> None:
        self.out = os.fdopen(os.dup(1), "w", buffering=1, encoding="utf-8")
        os.dup2(2, 1)  # the submission's own prints go to stderr, not into the protocol
        self.inp = sys.stdin

    def send(self, obj: dict[str, Any]) -> None:
        self.out.write(json.dumps(obj, default=str) + "\n")
        self.out.flush()

    def receive(self) -> dict[str, Any]:
        line = self.inp.readline()
        if not line:
            raise SystemExit(0)  # the grader closed the pipe
        return json.loads(line)


class WorldModel:
    """SkillWorld's simulated model as the submission sees it: each operation asks the
    grader (who holds the world)."""

    def __init__(self, channel: Channel) -> None:
        self.channel = channel
        self.calls = 0

    def _ask(self, op: str, **args: Any) -> Any:
        self.calls += 1
        self.channel.send({"call": op, "args": args})
        reply = self.channel.receive()
        if "reply_error" in reply:
            raise RuntimeError(str(reply["reply_error"]))
        return reply.get("reply")

    def decompose(self, task: Task) -> list[str]:
        return [str(s) for s in self._ask("decompose", task=task.id)]

    def extract(self, task: Task, episode: Episode) -> Extraction:
        got = self._ask("extract", task=task.id)
        return Extraction(skills=[_skill(s) for s in got["skills"]], lesson=str(got["lesson"]),
                          meta=dict(got.get("meta") or {}))

    def merge(self, a: Skill, b: Skill, fragments: Any = ()) -> Skill:
        got = self._ask("merge", a=_skill_json(a), b=_skill_json(b),
                        fragments=[{"task": f.task, "lesson": f.lesson, "success": f.success,
                                    "meta": f.meta} for f in fragments or ()])
        return _skill(got)

    def judge(self, task: Task, episode: Episode) -> bool:
        return bool(self._ask("judge", task=task.id))


def _skill(d: dict[str, Any]) -> Skill:
    return Skill(name=str(d["name"]), content=str(d["content"]), polarity=d["polarity"],
                 meta=dict(d.get("meta") or {}))


def _skill_json(s: Skill) -> dict[str, Any]:
    return {"name": s.name, "content": s.content, "polarity": s.polarity, "meta": s.meta}


def load_spec(path: str) -> MethodSpec:
    """The `MethodSpec` a submission file defines (`SPEC_NAMES`)."""
    found = runpy.run_path(path, run_name="capstone_submission")
    for name in SPEC_NAMES:
        obj = found.get(name)
        if obj is None:
            continue
        spec = obj() if callable(obj) and not isinstance(obj, MethodSpec) else obj
        if isinstance(spec, MethodSpec):
            return spec
        raise TypeError(f"{name} is a {type(spec).__name__}, not a MethodSpec")
    raise LookupError("the file defines no SPEC = MethodSpec(...) (nor a function spec() "
                      "returning one)")


def _task(d: dict[str, Any]) -> Task:
    return Task(id=str(d["id"]), question=str(d["question"]), prompt=d.get("prompt"),
                benchmark=str(d.get("benchmark", "custom")))


def _episode(d: dict[str, Any]) -> Episode:
    fields = {k: d[k] for k in ("task_id", "success", "steps", "calls", "answer", "trajectory",
                                "tokens", "error") if k in d}
    return Episode(**fields, meta=dict(d.get("meta") or {}))


def _context(ctx: Any) -> dict[str, Any]:
    if not isinstance(ctx, MemoryContext):
        raise TypeError(f"begin returned a {type(ctx).__name__}, not a MemoryContext")
    return {"text": ctx.text, "retrieved": [str(r) for r in ctx.retrieved],
            "plan": [str(p) for p in ctx.plan], "llm_calls": int(ctx.llm_calls),
            "items": [{"kind": i.kind, "text": i.text, "meta": i.meta} for i in ctx.items]}


def _plain(x: Any) -> Any:
    try:
        return json.loads(json.dumps(x, default=str))
    except (TypeError, ValueError, RecursionError):
        return None


def serve(channel: Channel, system: Any) -> None:
    """Answer the grader's calls until it says quit."""
    while True:
        msg = channel.receive()
        op = msg.get("op")
        try:
            if op == "begin":
                result = _context(system.begin(_task(msg["task"])))
            elif op == "end":
                result = _plain(system.end(_task(msg["task"]), _episode(msg["episode"])))
            elif op == "maintain":
                report = system.maintain()
                result = _plain(getattr(report, "__dict__", None) or {})
            elif op == "stats":
                result = _plain(system.stats())
            elif op == "quit":
                return
            else:
                raise ValueError(f"unknown call {op!r}")
        except BaseException as e:  # noqa: BLE001 - the submission's fault costs one call
            channel.send({"error": f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"})
            continue
        channel.send({"result": result})


def drop_root() -> None:
    """As root (bubblewrap started by root keeps only this capability), become the user
    "nobody" before anything of the submission is read."""
    if os.environ.get("HYPERSKILL_CAPSTONE_DROP") == "1" and os.getuid() == 0:
        os.setgroups([])
        os.setgid(65534)
        os.setuid(65534)


def main(argv: list[str]) -> int:
    drop_root()
    channel = Channel()
    try:
        if argv[:1] == ["--builtin"]:
            spec = next(s for s in registered() if s.name == argv[1])
        else:
            spec = load_spec(argv[0])
        encoder = encoder_by_name(os.environ.get("HYPERSKILL_CAPSTONE_ENCODER", "hashing"))
        model = WorldModel(channel)
        system = spec.factory(spec.operations(model), encoder, HyperSkillConfig())
    except BaseException as e:  # noqa: BLE001 - one line for the leaderboard
        channel.send({"fatal": f"{type(e).__name__}: {' '.join(str(e).split())[:300]}"})
        return 1
    channel.send({"ready": {"name": str(spec.name)[:200],
                            "description": str(spec.description)[:500]}})
    serve(channel, system)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
