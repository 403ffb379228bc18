"""One way to assemble a run (issue 38): the `run` command, `compare`, a sweep cell and
explore.py's short run all build a `launch.RunSpec` and execute it through
`launch.execute`, so the same settings give the same records, whichever door a run came in
by (wall-clock fields aside). Also: a compare folder written before compare ran on the
sweep executor (its shorter run.json) still resumes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.compare import compare
from hyperskill_lite.explore import short_run
from hyperskill_lite.launch import RunSpec, execute
from hyperskill_lite.runner import RunError, read_records
from hyperskill_lite.sweep import parse_sweep
from hyperskill_lite.sweep.execute import run_cells

EPISODES = 8


def _timeless(value: Any) -> Any:
    """A record without its wall-clock fields (every key naming seconds)."""
    if isinstance(value, dict):
        return {k: _timeless(v) for k, v in value.items() if "seconds" not in k}
    if isinstance(value, list):
        return [_timeless(v) for v in value]
    return value


def _episodes(folder: Path) -> list[dict[str, Any]]:
    lines = (folder / "episodes.jsonl").read_text().splitlines()
    return [_timeless(json.loads(line)) for line in lines if line.strip()]


def _settings(folder: Path) -> dict[str, Any]:
    doc = json.loads((folder / "run.json").read_text())
    return {k: v for k, v in doc.items() if k not in ("encoder", "health", "observed")}


def test_compare_and_a_one_cell_sweep_give_identical_records(tmp_path):
    compare("gaia", EPISODES, [1], methods=["hyperskill"], encoder="hashing",
            out=tmp_path / "cmp")
    spec = parse_sweep({"grid": {"method": ["hyperskill"], "profile": ["gaia"], "seed": [1]},
                        "sweep": {"episodes": EPISODES, "encoder": "hashing"}})
    [result] = run_cells(spec, tmp_path / "sweep", jobs=1, log=lambda _: None)
    assert result.status == "done", result.error
    from_compare = _episodes(tmp_path / "cmp" / "gaia" / "hyperskill" / "seed-1")
    from_sweep = _episodes(tmp_path / "sweep" / "skillworld" / "gaia" / "hyperskill" / "seed-1")
    assert len(from_compare) == EPISODES and any(r["retrieved"] for r in from_compare)
    assert from_compare == from_sweep
    # the same settings in run.json too (compare records the encoder's full name)
    assert _settings(tmp_path / "cmp" / "gaia" / "hyperskill" / "seed-1") == \
        _settings(tmp_path / "sweep" / "skillworld" / "gaia" / "hyperskill" / "seed-1")


def test_the_run_command_a_runspec_and_explore_give_the_same_records(tmp_path, capsys):
    assert main(["run", "--profile", "gaia", "--seed", "1", "--episodes", str(EPISODES),
                 "--encoder", "hashing", "--no-progress", "--out", str(tmp_path / "cli")]) == 0
    capsys.readouterr()
    records = execute(RunSpec(out=tmp_path / "lib", seed=1, episodes=EPISODES,
                              encoder="hashing", progress=False))
    assert [_timeless(r) for r in records] == _episodes(tmp_path / "cli")
    explored = short_run(seed=1, episodes=EPISODES, encoder="hashing")
    assert [_timeless(r) for r in explored.records] == _episodes(tmp_path / "cli")


def test_explore_takes_the_task_order_seed():
    paper = short_run(episodes=5)
    other = short_run(episodes=5, order_seed=7)
    assert [r["task_id"] for r in paper.records] != [r["task_id"] for r in other.records]
    assert other.knobs == paper.knobs  # the order is not a knob of the panel


def test_a_compare_folder_of_an_earlier_version_resumes(tmp_path):
    """compare wrote a shorter run.json before it ran on the sweep executor (no config,
    no world, no done marker); a rerun resumes it instead of refusing the folder."""
    out = tmp_path / "cmp"
    _, rows = compare("xbench", 5, [0], methods=["no-memory"], encoder="hashing", out=out,
                      judge="self")
    run = out / "xbench" / "no-memory+self-judge" / "seed-0"
    doc = json.loads((run / "run.json").read_text())
    for key in ("config", "world", "score_judge"):
        del doc[key]
    (run / "run.json").write_text(json.dumps(doc))
    (run / "sweep-done.json").unlink()
    _, again = compare("xbench", 5, [0], methods=["no-memory"], encoder="hashing", out=out,
                       judge="self")
    strip = lambda rs: [{k: v for k, v in r.items() if k != "Latency"} for r in rs]  # noqa: E731
    assert strip(again) == strip(rows)
    assert len(read_records(run)) == 5


def test_a_failed_cell_stops_compare_with_one_line(tmp_path):
    out = tmp_path / "cmp"
    run = out / "gaia" / "no-memory" / "seed-0"
    run.mkdir(parents=True)
    (run / "run.json").write_text(json.dumps({"format": "hyperskill_lite.run/1",
                                              "method": "awm", "seed": 0}))
    with pytest.raises(RunError, match="different settings") as err:
        compare("gaia", 3, [0], methods=["no-memory"], encoder="hashing", out=out)
    assert "\n" not in str(err.value)
