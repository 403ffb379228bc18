"""The Extending page's examples (docs/guide/extending.md) run as written.

Each example is the ```python block after a ``<!-- example: NAME (needs MODULE.NAME) -->``
marker, run in a fresh interpreter (the registries are per process) from a temporary
folder. An example whose ``needs`` name is not importable yet is skipped, naming it: the
method registry and the search-provider classes are written in parallel branches of
issue 38; once they are merged every example must run (no skip)."""

from __future__ import annotations

import importlib
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "guide" / "extending.md"
MARKER = re.compile(r"<!-- example: ([\w-]+)(?: \(needs ([\w.]+)\))? -->\n```python\n(.*?)```",
                    re.S)


def _examples() -> dict[str, tuple[str | None, str]]:
    return {name: (needs, code) for name, needs, code in
            MARKER.findall(PAGE.read_text(encoding="utf-8"))}


def test_the_page_has_its_four_examples():
    assert set(_examples()) == {"extending-method", "extending-baseline", "extending-search",
                                "extending-loader"}


def _available(needs: str) -> bool:
    module, _, name = needs.rpartition(".")
    try:
        return hasattr(importlib.import_module(module), name)
    except ImportError:
        return False


@pytest.mark.parametrize("name", sorted(_examples()))
def test_the_example_runs_as_written(name, tmp_path):
    needs, code = _examples()[name]
    if needs and not _available(needs):
        pytest.skip(f"{needs} is not in this tree yet (issue 38's plugin registries)")
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip(), "the example prints what it made"


LIVE_AND_OFFLINE = """
import json
import sys

from hyperskill_lite.baselines.prompts import scripted_reply
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods import make_method
from hyperskill_lite.testing.scripted_replies import text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

import lesson_notes  # the one file: it registers "lesson-notes"

tasks, executor = make_tasks("gaia", n=3, seed=0), SimExecutor(seed=0)


def responder(request):  # the canned reply the operation declared, found by its prompt
    return text(json.dumps(scripted_reply(request["messages"][-1]["content"])))


with ScriptedServer(responder) as srv:  # live: the prompted implementation
    llm = PromptedLLM(srv.base_url, "scripted-model", "sk-test", retry_base_delay=0.001,
                      structured="json_schema")
    memory = make_method("lesson-notes", llm, HashingEncoder(), k=2)
    for task in tasks:
        memory.end(task, executor.run(task, memory.begin(task)))
    sent = [r["messages"][-1]["content"] for r in srv.requests]
    schemas = [r["response_format"]["json_schema"] for r in srv.requests]
live = memory.begin(tasks[0])

sim = SimLLM(seed=0)  # offline: the simulated implementation, metered
offline = make_method("lesson-notes", sim, HashingEncoder(), k=2)
for task in tasks:
    offline.end(task, executor.run(task, offline.begin(task)))
shown = offline.begin(tasks[0])
print(json.dumps({"sent": sent, "schemas": schemas, "declared": lesson_notes.SCHEMA,
                  "live": [i.text for i in live.items], "k": memory.k,
                  "offline": [[i.text, i.meta] for i in shown.items],
                  "usage": sim.usage.by_op.get("write_lesson"), "errors": srv.errors}))
"""


def test_a_baseline_with_a_new_operation_is_one_file_live_and_offline(tmp_path):
    """The page's lesson-notes file, as it stands, in a fresh interpreter: live, its
    prompted implementation sends its prompt to the scripted OpenAI-compatible server
    (which answers with the canned reply the declaration holds) and stores the reply;
    offline, SimLLM runs its simulated implementation, whose notes carry SkillWorld's
    hidden metadata, and meters the prompt it would have sent. No other file is edited."""
    _, code = _examples()["extending-baseline"]
    (tmp_path / "lesson_notes.py").write_text(code, encoding="utf-8")
    (tmp_path / "drive.py").write_text(LIVE_AND_OFFLINE, encoding="utf-8")
    done = subprocess.run([sys.executable, "drive.py"], cwd=tmp_path, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert len(got["sent"]) == 3 and got["errors"] == []
    assert all(p.startswith("You are writing one lesson for an agent's notebook") for p in got["sent"])
    assert all(s == {"name": "lesson-notes", "schema": got["declared"], "strict": False}
               for s in got["schemas"])  # the declared reply schema, on the wire
    assert got["live"] == ["Source Before Sum: Find the official table before adding."] * 2
    assert got["k"] == 2 and len(got["offline"]) == 2
    assert all(meta.get("skillworld", {}).get("source") == "lesson-notes"
               for _, meta in got["offline"])
    assert got["usage"]["calls"] == 3 and got["usage"]["prompt_tokens"] > 0
