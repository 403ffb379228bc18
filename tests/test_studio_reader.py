"""How the studio reads a run's records (studio/records.py): one streaming pass that
leaves each episode's retrieval in the file until it is asked for, the runner's checks
on every line, a torn last line left out without touching the file, records json writes
that orjson refuses (NaN), and the same records without orjson."""

from __future__ import annotations

import json
import logging

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.runner import read_records
from hyperskill_lite.runner.files import RECORDS, RunError
from hyperskill_lite.studio import read_run
from hyperskill_lite.studio import records as reader


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("reader") / "hs"
    assert main(["run", "--method", "hyperskill", "--profile", "gaia", "--episodes", "12",
                 "--encoder", "hashing", "--no-progress", "--out", str(out)]) == 0
    return out


def _copy(run, tmp_path, lines=None):
    """A run folder with run.json and the given records lines (default: the run's)."""
    dst = tmp_path / "copy"
    dst.mkdir()
    (dst / "run.json").write_bytes((run / "run.json").read_bytes())
    raw = (run / RECORDS).read_bytes()
    (dst / RECORDS).write_bytes(raw if lines is None else b"".join(lines))
    return dst


def test_records_come_without_their_retrieval_which_is_read_on_demand(run):
    full = read_records(run)
    lean = read_run(run)
    assert lean.records == [{k: v for k, v in r.items() if k != "explain"} for r in full]
    assert all("explain" in r for r in full)
    got = lean.explanations(range(len(full)))
    assert got == {i: r["explain"] for i, r in enumerate(full)}
    assert lean.explanations([0, 99, -1]) == {0: full[0]["explain"]}  # out of range: none


def test_a_torn_last_line_is_left_out_and_the_file_is_not_touched(run, tmp_path, caplog):
    lines = (run / RECORDS).read_bytes().splitlines(keepends=True)
    folder = _copy(run, tmp_path, lines[:-1] + [lines[-1][:40]])  # a write cut off
    before = (folder / RECORDS).read_bytes()
    with caplog.at_level(logging.WARNING, logger="hyperskill_lite"):
        got = read_run(folder)
    assert len(got.records) == len(lines) - 1
    assert (folder / RECORDS).read_bytes() == before  # a viewer never writes
    assert "last line is incomplete" in caplog.text


@pytest.mark.parametrize("bad, why", [(b"{not json\n", "line 3 is not valid JSON"),
                                      (b'{"index": 7}\n', "line 3 has index 7, expected 2")])
def test_a_damaged_line_is_one_clear_error(run, tmp_path, bad, why):
    lines = (run / RECORDS).read_bytes().splitlines(keepends=True)
    folder = _copy(run, tmp_path, lines[:2] + [bad] + lines[3:])
    with pytest.raises(RunError, match=why):
        read_run(folder)


def test_a_line_orjson_refuses_is_read_by_json(run, tmp_path):
    full = read_records(run)
    full[1]["memory_seconds"] = float("nan")  # json.dumps writes NaN; JSON has no NaN
    folder = _copy(run, tmp_path, [(json.dumps(r) + "\n").encode() for r in full])
    got = read_run(folder)
    assert got.records[1]["memory_seconds"] != got.records[1]["memory_seconds"]  # NaN
    assert got.explanations([1])[1] == full[1]["explain"]


def test_a_line_changed_since_gives_no_explanation_rather_than_a_wrong_one(run, tmp_path):
    folder = _copy(run, tmp_path)
    got = read_run(folder)
    lines = (folder / RECORDS).read_bytes().splitlines(keepends=True)
    (folder / RECORDS).write_bytes(b"".join(lines[1:]))  # the file rewritten under us
    assert got.explanations([0, 3]) == {0: None, 3: None}


def test_without_orjson_the_records_are_the_same(run, monkeypatch, caplog):
    if reader.orjson is None:
        pytest.skip("orjson is not installed: the json path is the only one here")
    fast = read_run(run)
    monkeypatch.setattr(reader, "orjson", None)  # as where the package is not installed
    monkeypatch.setattr(reader, "_warned", [])
    with caplog.at_level(logging.WARNING, logger="hyperskill_lite"):
        slow = read_run(run)
    assert slow.records == fast.records and slow.offsets == fast.offsets
    assert slow.explanations([4]) == fast.explanations([4])
    assert caplog.text.count("orjson is not installed") == 1
