"""Memory methods as plugins: a method defined in a separate distribution, installed by
real pip, joins `methods`, `run` and `compare` with no edit to the package; a broken
plugin is one warning line and never stops the CLI; the registry's own rules.

The two distributions are tests/fixtures/method_plugin (``hsl-recent-tasks``: one module,
one entry point in the group ``hyperskill_lite.methods``) and
tests/fixtures/method_plugin_broken (``hsl-broken-plugin``: a module that fails on import
and a plugin that takes the name "hyperskill"). Each is copied to a temporary folder
(pip builds in the source tree), installed with ``pip install --no-deps
--no-build-isolation --target SITE`` and put on the PYTHONPATH of the CLI's subprocess.
"""

from __future__ import annotations

import importlib
import json
import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hyperskill_lite.baselines.expel import ExpeL, ExpeLOps
from hyperskill_lite.baselines.ops import PromptedOps
from hyperskill_lite.baselines.reasoningbank import ReasoningBankOps
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods import (
    BASELINES,
    DESCRIPTIONS,
    METHODS,
    VARIANTS,
    MethodSpec,
    load_entry_points,
    make_method,
    register_method,
    registered,
    spec_of,
)
from hyperskill_lite.methods.operations import SimulatedOps
from hyperskill_lite.methods.registry import _specs_of
from hyperskill_lite.testing.scripted_replies import text
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Episode, Task
from hyperskill_lite.world import SimLLM

FIXTURES = Path(__file__).parent / "fixtures"


def _install(name: str, tmp_path_factory) -> Path:
    """pip-install the fixture distribution `name` into a fresh folder; return it."""
    root = tmp_path_factory.mktemp(name)
    shutil.copytree(FIXTURES / name, root / "src")
    site = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps",
                    "--no-build-isolation", "--no-input", "--disable-pip-version-check",
                    "--target", str(site), str(root / "src")],
                   check=True, capture_output=True, text=True, timeout=300)
    return site


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory) -> Path:
    return _install("method_plugin", tmp_path_factory)


@pytest.fixture(scope="module")
def broken_site(tmp_path_factory) -> Path:
    return _install("method_plugin_broken", tmp_path_factory)


def cli(site: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess:
    """``python -m hyperskill_lite ARGS`` with `site` on PYTHONPATH, offline."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(site), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "HYPERSKILL_CACHE": "off"}
    return subprocess.run([sys.executable, "-m", "hyperskill_lite", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


# --------------------------------------------------------------------------- a real plugin


def test_the_installed_plugin_is_listed_by_methods(plugin_site, tmp_path):
    out = cli(plugin_site, "methods", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[-1].split()[0] == "recent-tasks"  # after the package's own methods
    assert "[plugin: hsl-recent-tasks]" in lines[-1] and "the last tasks" in lines[-1]
    assert [ln.split()[0] for ln in lines[:-1]] == list(METHODS)  # the package's, unchanged
    assert out.stderr == ""
    helped = cli(plugin_site, "run", "--help", cwd=tmp_path)
    assert "memevolve-longterm,recent-tasks(`methods`" in "".join(helped.stdout.split())


def test_run_uses_the_plugin_on_skillworld(plugin_site, tmp_path):
    out = cli(plugin_site, "run", "--method", "recent-tasks", "--world", "skillworld",
              "--episodes", "3", "--encoder", "hashing", "--no-progress",
              "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    doc = json.loads((tmp_path / "run" / "run.json").read_text())
    assert doc["method"] == "recent-tasks" and doc["n_tasks"] == 3
    records = (tmp_path / "run" / "episodes.jsonl").read_text().splitlines()
    assert len(records) == 3
    saved = json.loads((tmp_path / "run" / "state" / "memory" / "recent.json").read_text())
    assert len(saved) == 3  # the plugin's own save(), its own simulated operation:
    assert all(s["title"] == " ".join(s["text"].split()[:6]) for s in saved)
    assert "recent-tasks" in out.stdout
    assert doc["retrieval"] is None  # the plugin does not report its counts


def test_a_plugin_that_does_not_say_how_it_takes_k_refuses_it(plugin_site, tmp_path):
    out = cli(plugin_site, "run", "--method", "recent-tasks", "--k", "5", "--world",
              "skillworld", "--episodes", "2", "--encoder", "hashing", "--no-progress",
              "--out", str(tmp_path / "run"), cwd=tmp_path)
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "--k: method 'recent-tasks' does not take a retrieval count" in out.stderr
    assert not (tmp_path / "run").exists()


def test_compare_runs_the_plugin_beside_hyperskill(plugin_site, tmp_path):
    out = cli(plugin_site, "compare", "--methods", "hyperskill", "recent-tasks",
              "--episodes", "3", "--seeds", "1", "--encoder", "hashing", "--jobs", "1",
              "--out", str(tmp_path / "cmp"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    rows = json.loads((tmp_path / "cmp" / "compare.json").read_text())["rows"]
    assert sorted({r["method"] for r in rows}) == ["hyperskill", "no-memory", "recent-tasks"]
    assert all(r["N"] == 3 for r in rows)


def test_without_the_plugin_the_name_is_unknown(tmp_path):
    out = cli(tmp_path, "run", "--method", "recent-tasks", "--world", "skillworld",
              "--episodes", "1", "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert out.returncode == 2 and "unknown method 'recent-tasks'" in out.stderr
    assert not (tmp_path / "r").exists()


# --------------------------------------------------------------------------- broken plugins


def test_a_broken_plugin_is_one_warning_line_and_a_clash_is_refused(broken_site, tmp_path):
    out = cli(broken_site, "methods", cwd=tmp_path)
    assert out.returncode == 0
    err = out.stderr.splitlines()
    assert "Traceback" not in out.stderr and len(err) == 2, out.stderr
    broken = [ln for ln in err if "'broken'" in ln]
    clash = [ln for ln in err if "'clash'" in ln]
    assert len(broken) == 1 and "hsl-broken-plugin" in broken[0]
    assert "failed to load" in broken[0] and "hsl_a_package_that_is_not_installed" in broken[0]
    assert len(clash) == 1 and "hsl-broken-plugin" in clash[0]
    assert "'hyperskill' is already registered by hyperskill_lite" in clash[0]
    # the built-in is untouched: the package's description, no plugin mark
    row = next(ln for ln in out.stdout.splitlines() if ln.split()[0] == "hyperskill")
    assert row.endswith(DESCRIPTIONS["hyperskill"])


def test_a_broken_plugin_does_not_stop_a_run(broken_site, tmp_path):
    out = cli(broken_site, "run", "--method", "hyperskill", "--world", "skillworld",
              "--episodes", "2", "--encoder", "hashing", "--no-progress",
              "--out", str(tmp_path / "r"), cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert sum("hsl-broken-plugin" in ln for ln in out.stderr.splitlines()) == 2
    assert json.loads((tmp_path / "r" / "run.json").read_text())["method"] == "hyperskill"


def test_loading_entry_points_in_process_skips_and_refuses(broken_site, monkeypatch, caplog):
    monkeypatch.syspath_prepend(str(broken_site))
    before = [s.name for s in registered()]  # (the process's first read, if it is one)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="hyperskill_lite.methods.registry"):
        added = load_entry_points(force=True)
    assert added == [] and [s.name for s in registered()] == before
    mine = [r for r in caplog.records if "hsl-broken-plugin" in r.getMessage()]
    assert len(mine) == 2 and all("\n" not in r.getMessage() for r in mine)


# --------------------------------------------------------------------------- the registry


def test_the_derived_names_follow_the_registrations():
    specs = registered()
    assert list(METHODS) == [s.name for s in specs] == list(DESCRIPTIONS)
    assert BASELINES == tuple(s.name for s in specs if s.group == "baseline")
    assert VARIANTS == tuple(s.name for s in specs if s.group == "variant")
    assert all(s.source == "hyperskill_lite" for s in specs if s.group != "plugin")


def test_a_taken_name_is_refused():
    with pytest.raises(ValueError, match="'hyperskill' is already registered"):
        register_method(MethodSpec("hyperskill", "plugin", "x", lambda o, e, c: None))
    with pytest.raises(ValueError, match="one word"):
        register_method(MethodSpec("two words", "plugin", "x", lambda o, e, c: None))
    with pytest.raises(TypeError, match="MethodSpec"):
        register_method({"name": "x"})


def test_an_entry_point_may_give_a_spec_a_callable_or_several():
    spec = MethodSpec("a", "plugin", "x", lambda o, e, c: None)
    assert _specs_of(spec) == [spec]
    assert _specs_of(lambda: spec) == [spec]
    assert _specs_of(lambda: [spec, spec]) == [spec, spec]
    with pytest.raises(TypeError, match="expected a MethodSpec, got int"):
        _specs_of(lambda: 3)


def test_make_method_gives_each_model_its_operations():
    """Prompted operations over a chat client, simulated ones over SimLLM: each baseline
    builds its own (defined in its module) once, whose usage is the model's (what the
    runner reads); one built directly over the client builds the same class."""
    llm = PromptedLLM("http://127.0.0.1:9/v1", "m", "k")  # never called here
    live = make_method("reasoningbank", llm, HashingEncoder())
    assert type(live.llm) is ReasoningBankOps and live.llm.llm is llm
    assert not hasattr(live, "ops")  # one attribute holds the operations
    direct = ExpeL(llm, HashingEncoder())
    assert type(direct.llm) is ExpeLOps and direct.llm.llm is llm
    assert isinstance(direct.llm, PromptedOps)
    assert live.llm.usage is llm.usage
    sim = SimLLM(seed=0)
    offline = make_method("reasoningbank", sim, HashingEncoder())
    assert isinstance(offline.llm, SimulatedOps) and offline.llm.sim is sim
    assert offline.llm.usage is sim.usage
    spec = MethodSpec("m", "plugin", "d", lambda ops, e, c: ops,
                      prompted_ops=lambda chat: ("prompted", chat),
                      simulated_ops=lambda s: ("simulated", s))
    assert spec.operations(llm) == ("prompted", llm)
    assert spec.operations(sim) == ("simulated", sim)


def test_every_baseline_declares_each_operation_once_with_all_its_parts():
    """Each registered baseline's operations are declared in its own class: every one that
    calls a model has a prompt, a schema, a canned reply to each prompt and a simulated
    implementation, and no two baselines declare the same operation name."""
    owners: dict[str, type] = {}
    for name in BASELINES + VARIANTS:
        spec = spec_of(name)
        for op in spec.model_operations:
            assert op.simulated is not None, op
            if op.name == "trajectory_meta":
                assert not op.model_call
                continue
            assert op.prompts and op.schemas and len(op.canned_replies()) == len(op.prompts), op
            assert owners.setdefault(op.name, op.owner) is op.owner, op
    assert len(owners) == 17


def test_the_plugins_prompted_operation_asks_a_real_server(plugin_site, monkeypatch):
    """The same plugin over a live chat client: `MethodSpec.operations` gives its prompted
    operation, which asks an OpenAI-compatible server on loopback (ScriptedServer) and
    checks the reply; the memory records the title the model gave."""
    monkeypatch.syspath_prepend(str(plugin_site))
    plugin = importlib.import_module("hsl_recent_tasks")
    task = Task("t0", "What is six times seven?", answer="42")
    with ScriptedServer([text("no json here"), text('{"title": "Six times seven"}')]) as srv:
        llm = PromptedLLM(srv.base_url, "scripted-model", "sk-test-key-0123456789",
                          retry_base_delay=0.001, max_retries=1, timeout=10)
        memory = plugin.SPEC.factory(plugin.SPEC.operations(llm), HashingEncoder(), None)
        memory.end(task, Episode("t0", success=True, steps=1, answer="42"))
        asked = [r["messages"][-1]["content"] for r in srv.requests]
    assert isinstance(memory.llm, plugin.PromptedTitles) and memory.llm.usage is llm.usage
    assert memory.seen[0]["title"] == "Six times seven"
    assert len(asked) == 2 and "six words" in asked[0]  # the bad reply was re-asked once
