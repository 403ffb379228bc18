"""A big run read in bounded memory (studio/table.py): the same run read as dicts and as
a `RecordTable` (the threshold lowered so a small run takes the big path) gives the same
summary, health and figures' data; its records are mappings that build only the fields
read; the page stays bounded (maintenance cycles, provenance) and says so; the texts of
the skills it shows are read back from the file. The 1 GB case itself (peak RSS and time
of `inspect` and `report`) is in the hostile tier (tools/hostile.py, ``make hostile``)."""

from __future__ import annotations

import json
import shutil

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.runner import memory_health, summarize
from hyperskill_lite.studio import build, records, table
from hyperskill_lite.studio.build import StudioOptions, studio_data
from hyperskill_lite.studio.runs import read_run


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("big") / "run"
    assert main(["run", "--method", "hyperskill", "--episodes", "30", "--encoder", "hashing",
                 "--no-progress", "--out", str(out)]) == 0
    return out


@pytest.fixture()
def big(monkeypatch):
    """Every records file takes the big path (a `RecordTable`)."""
    monkeypatch.setattr(records, "BIG_BYTES", 1)


def test_a_table_reads_the_same_records_as_dicts(made, big):
    table_run = read_run(made)
    assert isinstance(table_run.records, table.RecordTable)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(records, "BIG_BYTES", 1 << 40)
        dict_run = read_run(made)
    assert isinstance(dict_run.records, list)
    a, b = dict_run.records, table_run.records
    assert len(a) == len(b) == 30
    assert summarize(a) == summarize(b) and memory_health(a) == memory_health(b)
    for x, y in zip(a, b):
        for key in ("index", "task_id", "success", "steps", "tokens", "sizes", "retrieved",
                    "injected", "maintenance", "health_warning"):
            # what only some records hold is kept cut (long texts, long lists)
            assert (key in x) == (key in y) and table.trimmed(x.get(key)) == y.get(key), key
        # an update keeps what the views read; names and contents stay in the file
        keep = [{k: v for k, v in s.items() if k not in ("name", "content")}
                for s in x["update"]["skills"]]
        assert y["update"] == {**x["update"], "skills": keep}
    assert b[-1]["index"] == 29 and [r["index"] for r in b[10:13]] == [10, 11, 12]
    assert b.column("tokens") == [r["tokens"] for r in a]
    assert "usage" not in b[0] and b[0].get("usage", "left in the file") == "left in the file"
    whole = table_run.whole([3])[3]
    assert whole["usage"] == a[3]["usage"] and "explain" in whole


def test_a_big_runs_page_is_bounded_and_says_so(made, big, monkeypatch, tmp_path):
    monkeypatch.setattr(build, "MAX_CYCLES", 4)
    monkeypatch.setattr(build, "PROVENANCE_ALL", 3)
    run = read_run(made)
    view = studio_data([run], StudioOptions(samples=0))["runs"][0]
    assert len(view["cycles"]) == 4
    bounds = " ".join(view["bounds"])
    assert "This run has 30 episodes: its records were read in bounded memory" in bounds
    assert "The Maintenance tab lists 4 of the" in bounds and "Provenance is kept for" in bounds
    assert view["charts"]["sr"]["note"].endswith(view["bounds"][-1])  # shown on the page
    shown = {sid: p for sid, p in view["provenance"].items() if p["born"]
             and p["born"].get("how") == "extracted"}
    assert shown and all(p["name"] for p in shown.values())  # texts read back from the file
    assert main(["inspect", str(made), "--samples", "0", "--out", str(tmp_path / "p.html")]) == 0
    page = (tmp_path / "p.html").read_text()
    assert "read in bounded memory" in page


def test_a_big_run_reports_like_a_small_one(made, big, tmp_path, capsys):
    assert main(["report", str(made), "--out", str(tmp_path / "big")]) == 0
    big_table = (tmp_path / "big" / "summary.txt").read_text()
    with pytest.MonkeyPatch.context() as m:
        m.setattr(records, "BIG_BYTES", 1 << 40)
        assert main(["report", str(made), "--out", str(tmp_path / "small")]) == 0
    assert (tmp_path / "small" / "summary.txt").read_text() == big_table
    assert sorted(p.name for p in (tmp_path / "big").iterdir()) == sorted(
        p.name for p in (tmp_path / "small").iterdir())


def test_a_damaged_line_in_a_big_file_is_one_error_naming_it(made, big, tmp_path, capsys):
    run = tmp_path / "run"
    shutil.copytree(made, run)
    lines = (run / "episodes.jsonl").read_text().splitlines()
    lines[7] = lines[7][:40]
    (run / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["report", str(run)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "episodes.jsonl: line 8 is not valid JSON" in err[0]
    lines[7] = json.dumps({"index": 99})
    (run / "episodes.jsonl").write_text("\n".join(lines) + "\n")
    assert main(["inspect", str(run), "--samples", "0"]) == 2
    assert "line 8 has index 99, expected 7" in capsys.readouterr().err
