"""The evaluation protocol (protocol.py, the runner, compare, the CLI options): two order
seeds give two orders and the default is the paper's; a frozen evaluated part leaves the
memory files byte for byte as they were; --exclude-self on a two-pass run never
retrieves the task's own hyperedge; run.json records the protocol; bad settings are one
clear line."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.cli.options import Parser
from hyperskill_lite.cli.protocol_options import add_arguments, settings_from_args
from hyperskill_lite.compare import compare
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.methods import make_method
from hyperskill_lite.protocol import EvalProtocol, shuffled
from hyperskill_lite.runner import RunError, read_records, run_episodes, summarize
from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

ENC = HashingEncoder(dim=128, seed=0)


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


def _run(out: Path, protocol: EvalProtocol, n: int = 20, method: str = "hyperskill",
         seed: int = 2, durable: bool = True):
    tasks = protocol.arrange(make_tasks("xbench", seed=seed), n)
    system = make_method(method, SimLLM(seed=seed), ENC)
    recs = run_episodes(system, tasks, SimExecutor(seed=seed), out, progress=False,
                        protocol=protocol, durable=durable, run_info={"method": method})
    return recs, system


def test_two_order_seeds_give_two_orders_and_the_default_is_the_papers():
    tasks = make_tasks("xbench", seed=0)
    ids = lambda ts: [t.id for t in ts]  # noqa: E731
    default = EvalProtocol().arrange(tasks)
    assert ids(default) == ids(shuffled(tasks, 42))  # what every run used before
    rng_order = np.random.default_rng(42).permutation(len(tasks))
    assert ids(default) == [tasks[i].id for i in rng_order]
    other = EvalProtocol(order_seed=7).arrange(tasks)
    assert ids(other) != ids(default) and sorted(ids(other)) == sorted(ids(default))
    assert ids(EvalProtocol(order_seed=7).arrange(tasks, 10)) == ids(other)[:10]
    two = EvalProtocol(passes=2).arrange(tasks, 5)
    assert ids(two) == ids(default)[:5] * 2


def test_the_launch_order_is_the_protocols():
    from hyperskill_lite.launch import ordered

    tasks = make_tasks("gaia", seed=0)
    assert [t.id for t in ordered(tasks, 12)[0]] == [t.id for t in EvalProtocol().arrange(tasks, 12)]


def test_a_frozen_part_leaves_the_memory_files_byte_identical(tmp_path):
    """Learn on 12 episodes, then 12 with the memory frozen: the memory saved after the
    last episode is byte for byte the one checkpointed when the frozen part began, no
    maintenance ran there, and no episode of it taught the memory."""
    out = tmp_path / "run"
    proto = EvalProtocol(eval_from=12, frozen=True)
    recs, system = _run(out, proto, n=24)
    frozen_ck = out / "checkpoints" / "frozen-0012"
    assert _files(frozen_ck) and _files(frozen_ck) == _files(out / "state" / "memory")
    learn, evaluated = recs[:12], recs[12:]
    assert {r["phase"] for r in learn} == {"learn"} and {r["phase"] for r in evaluated} == {"eval"}
    assert any(r.get("maintenance") for r in learn)  # ceil(0.1 x 24) = 3: maintenance ran
    assert not any(r.get("maintenance") or r.get("update") for r in evaluated)
    assert all(r["learned_success"] is None for r in evaluated)
    assert all(r["sizes"] == learn[-1]["sizes"] for r in evaluated)
    assert any(r["retrieved"] for r in evaluated)  # the frozen memory is still read
    info = json.loads((out / "run.json").read_text())
    assert info["protocol"] == proto.to_dict()
    assert [r["index"] for r in proto.evaluated(recs)] == list(range(12, 24))
    # the online arm of the same split: same tasks evaluated, the memory still learning
    online, _ = _run(tmp_path / "online", EvalProtocol(eval_from=12), n=24)
    assert [r["task_id"] for r in online[12:]] == [r["task_id"] for r in evaluated]
    assert any(r.get("update") for r in online[12:])


def test_exclude_self_on_a_two_pass_run_never_retrieves_the_tasks_own_hyperedge(tmp_path):
    proto = EvalProtocol(passes=2, exclude_self=True)
    recs, system = _run(tmp_path / "run", proto, n=10)
    assert len(recs) == 20
    own: dict[str, set[str]] = {}
    for r in recs[:10]:
        own.setdefault(r["task_id"], set()).add(r["update"]["edge"])
    for r in recs[10:]:
        assert not own[r["task_id"]] & set(r["retrieved"])  # never its own hyperedge
        assert r["retrieval"]["excluded"] == sorted(own[r["task_id"]])
        own[r["task_id"]].add(r["update"]["edge"])
    assert any(r["retrieved"] for r in recs[10:])  # others' hyperedges still come
    # without exclusion the second pass does retrieve its own first-pass hyperedge
    plain, _ = _run(tmp_path / "plain", EvalProtocol(passes=2), n=10)
    first = {r["task_id"]: r["update"]["edge"] for r in plain[:10]}
    assert any(first[r["task_id"]] in r["retrieved"] for r in plain[10:])


def test_exclude_self_needs_a_method_that_can(tmp_path):
    with pytest.raises(ValueError, match="memp cannot leave a task's own earlier memories"):
        _run(tmp_path / "a", EvalProtocol(exclude_self=True), n=3, method="memp")
    recs, _ = _run(tmp_path / "b", EvalProtocol(exclude_self=True), n=3, method="no-memory")
    assert len(recs) == 3  # a memory that stores nothing is exempt


def test_a_run_folder_from_before_protocols_resumes_and_another_protocol_is_refused(tmp_path):
    out = tmp_path / "run"
    _run(out, EvalProtocol(), n=4)
    info = json.loads((out / "run.json").read_text())
    del info["protocol"]  # as written before issue 33
    (out / "run.json").write_text(json.dumps(info))
    recs, _ = _run(out, EvalProtocol(), n=4)  # resumes: nothing left to do
    assert len(recs) == 4
    with pytest.raises(RunError, match=r"different settings \(protocol"):
        _run(out, EvalProtocol(order_seed=7), n=4)
    (out / "run.json").write_text("{not json")
    with pytest.raises(RunError, match="delete that file and rerun the same command"):
        _run(out, EvalProtocol(), n=4)


@pytest.mark.parametrize("kw, match", [
    ({"order_seed": -1}, "--order-seed must be an integer >= 0"),
    ({"passes": 0}, "--passes must be an integer >= 1"),
    ({"eval_from": -3}, "--freeze-after must be an integer >= 0"),
    ({"frozen": True}, "--freeze-after N"),
])
def test_bad_protocols_are_refused_naming_the_option(kw, match):
    with pytest.raises(ValueError, match=match):
        EvalProtocol(**kw)


def test_protocol_round_trip_and_description():
    p = EvalProtocol(order_seed=3, passes=2, eval_from=5, frozen=True, exclude_self=True)
    assert EvalProtocol.from_dict(p.to_dict()) == p
    assert EvalProtocol.from_dict(None).is_paper and not p.is_paper
    assert p.tag == "passes-2+frozen-5+exclude-self"
    assert "2 passes" in p.describe() and "frozen from episode 6" in p.describe()
    with pytest.raises(ValueError, match="unknown evaluation protocol fields"):
        EvalProtocol.from_dict({"shuffle": True})


def _parser() -> Parser:
    p = Parser(prog="python -m hyperskill_lite run")
    add_arguments(p.add_argument_group("evaluation protocol"))
    return p


def test_cli_options_make_the_settings():
    p = _parser()
    assert settings_from_args(p.parse_args([])) == EvalProtocol()
    got = settings_from_args(p.parse_args(["--order-seed", "7", "--passes", "2",
                                           "--freeze-after", "10", "--exclude-self"]))
    assert got == EvalProtocol(7, 2, 10, True, True)
    assert settings_from_args(p.parse_args(["--eval-from", "4"])) == EvalProtocol(eval_from=4)


@pytest.mark.parametrize("argv, match", [
    (["--order-seed", "-2"], "argument --order-seed: must be an integer >= 0, got -2"),
    (["--passes", "0"], "argument --passes: must be an integer >= 1, got 0"),
    (["--freeze-after", "3", "--eval-from", "3"], "not allowed with argument"),
])
def test_cli_option_errors_are_one_line_and_exit_2(argv, match, capsys):
    with pytest.raises(SystemExit) as exc:
        _parser().parse_args(argv)
    err = capsys.readouterr().err.strip()
    assert exc.value.code == 2 and "\n" not in err
    assert err.startswith("error: ") and match in err and err.endswith("--help)")


def test_compare_over_orders_and_a_frozen_protocol(tmp_path):
    table, rows = compare("xbench", 12, [0], methods=["hyperskill"], encoder=ENC, out=tmp_path,
                          orders=[42, 7], protocol=EvalProtocol(eval_from=6, frozen=True),
                          reference="hyperskill")
    assert [(r["method"], r["order"]) for r in rows] == [
        ("no-memory", 42), ("no-memory", 7), ("hyperskill", 42), ("hyperskill", 7)]
    assert all(r["N"] == 6 and len(r["outcomes"]) == 6 for r in rows)  # the evaluated part
    run = tmp_path / "xbench" / "hyperskill+frozen-6" / "seed-0-order-7"
    recs = read_records(run)
    assert len(recs) == 12 and json.loads((run / "run.json").read_text())["protocol"] == {
        "order_seed": 7, "passes": 1, "eval_from": 6, "frozen": True, "exclude_self": False}
    hs = next(r for r in rows if r["method"] == "hyperskill" and r["order"] == 7)
    assert hs["SR"] == pytest.approx(summarize(recs[6:])["SR"])
    assert [o[0] for o in hs["outcomes"]] == list(range(6, 12))
    assert (tmp_path / "xbench" / "no-memory+frozen-6" / "seed-0").is_dir()
    title, main = table.split("\n\n")[0].splitlines()[0], table.split("\n\n")[1]
    assert "task order seeds 42, 7" in title and "frozen from episode 7" in title
    assert "over 2 (seed, order) cell(s)" in main
    assert main.splitlines()[1].split() == ["method", "vs", "no-memory"]
    doc = json.loads((tmp_path / "compare.json").read_text())
    assert doc["orders"] == [42, 7] and doc["protocol"]["eval_from"] == 6
    assert {(d["method"], d["reference"]) for d in doc["paired"]} == {
        ("hyperskill", "no-memory")}  # the reference has nothing else to compare with
    with pytest.raises(ValueError, match="after the run's 12 episodes"):
        compare("xbench", 12, [0], methods=["hyperskill"], encoder=ENC,
                protocol=EvalProtocol(eval_from=12))
    with pytest.raises(ValueError, match="--exclude-self needs methods"):
        compare("xbench", 4, [0], methods=["memp"], encoder=ENC,
                protocol=EvalProtocol(exclude_self=True))
