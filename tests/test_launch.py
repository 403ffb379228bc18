"""What `run` builds means what its options say (launch.py): ``--k`` reaches every method
that retrieves, through the CLI, and run.json records the retrieval counts the built
memory uses ("retrieval"); the saved memory shows it used them. A method that cannot take
``--k`` refuses it with one line (tests/test_plugins_methods.py, on an installed plugin)."""

from __future__ import annotations

import json

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.methods import BASELINES, CORE_METHODS, VARIANTS

HYPERSKILL = {"hyperskill": ("k_u", "k_e", "k_s"), "hyperskill-no-subtask": ("k_e", "k_s"),
              "hyperskill-no-trajectory": ("k_u", "k_s"), "flat": ("k_s",)}


def _run(tmp_path, method: str, *extra: str) -> dict:
    out = tmp_path / method
    code = main(["run", "--method", method, "--episodes", "2", "--encoder", "hashing",
                 "--no-progress", "--out", str(out), *extra])
    assert code == 0
    return json.loads((out / "run.json").read_text())


@pytest.mark.parametrize("method", [*CORE_METHODS, *BASELINES, *VARIANTS])
def test_k_reaches_every_method_and_run_json_records_what_it_used(method, tmp_path):
    run = _run(tmp_path, method, "--k", "4")
    assert run["config"]["k_s"] == 4
    if method == "no-memory":
        assert run["retrieval"] == {}  # it retrieves nothing
    elif method in HYPERSKILL:
        assert run["retrieval"] == {k: 4 for k in HYPERSKILL[method]}
    else:
        want = {"k": 4, "insights_k": 4} if method == "expel" else {"k": 4}
        assert run["retrieval"] == want
        state = json.loads((tmp_path / method / "state" / "memory" / "state.json").read_text())
        assert state["k"] == 4  # the memory itself used it
        if method == "expel":
            assert state["state"]["insights_k"] == 4


def test_without_k_each_method_keeps_its_own_default(tmp_path):
    assert _run(tmp_path, "expel")["retrieval"] == {"k": 3, "insights_k": 3}
    assert _run(tmp_path, "hyperskill")["retrieval"] == {"k_u": 2, "k_e": 2, "k_s": 2}


def test_a_run_json_from_before_retrieval_was_recorded_resumes_as_it_ran(tmp_path, capsys):
    """A run folder written before run.json recorded "retrieval" resumes with the same
    arguments; a baseline's old run with --k 5 used k = 3 (the option did not reach it),
    so resuming it with --k 5 is refused with one line instead of mixing 3 and 5."""
    for method, k in (("hyperskill", "5"), ("memp", "3")):
        run = _run(tmp_path, method, "--k", k)
        path = tmp_path / method / "run.json"
        old = json.loads(path.read_text())
        del old["retrieval"]
        path.write_text(json.dumps(old))
        assert run["retrieval"]
        assert main(["run", "--method", method, "--episodes", "2", "--encoder", "hashing",
                     "--no-progress", "--k", k, "--out", str(tmp_path / method)]) == 0
    _run(tmp_path, "expel", "--k", "5")
    capsys.readouterr()
    path = tmp_path / "expel" / "run.json"
    old = json.loads(path.read_text())
    del old["retrieval"]
    path.write_text(json.dumps(old))
    assert main(["run", "--method", "expel", "--episodes", "2", "--encoder", "hashing",
                 "--no-progress", "--k", "5", "--out", str(tmp_path / "expel")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.count("\n") == 0 and "retrieval.insights_k: 3 there, 5 now" in err, err
