"""tools/hostile.py (``make hostile``) on three of its cases, so `make test` keeps the
suite honest: a stacked-gzip page and a path leading out of the data folder each end in
one framed tool error through the CLI, the run records its episode with no traceback and
a bounded peak RSS, and an attachment outside the folder in the metadata stops the run
before it starts (exit 2, one line)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def suite():
    spec = importlib.util.spec_from_file_location("hostile", ROOT / "tools" / "hostile.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["hostile"] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def test_three_hostile_cases_through_the_cli(tmp_path, capsys):
    hostile = suite()
    assert hostile.main(["--out", str(tmp_path / "h"), "--case", "gzip-stacked",
                         "--case", "traversal", "--case", "attachment-out"]) == 0
    summary = json.loads((tmp_path / "h" / "summary.json").read_text())
    rows = {r["case"]: r for r in summary["cases"]}
    assert all(r["ok"] and r["problems"] == [] for r in rows.values())
    assert rows["gzip-stacked"]["result"].startswith("Error: http://127.0.0.1:")
    assert "stacked encodings are refused" in rows["gzip-stacked"]["result"]
    assert rows["traversal"]["result"] == ("Error: ../../../../etc/passwd is outside the files "
                                           "of this task")
    assert rows["attachment-out"]["exit"] == 2 and rows["attachment-out"]["tool_seconds"] is None
    assert all(0 < r["peak_rss_mb"] < 1500 for r in rows.values())
    printed = capsys.readouterr().out
    assert "3/3 cases passed" in printed and "peak RSS" in printed


def test_the_suite_refuses_a_folder_it_did_not_make(tmp_path):
    (tmp_path / "mine.txt").write_text("a user's notes")
    with pytest.raises(FileExistsError, match="is not a hostile-suite folder"):
        suite().main(["--out", str(tmp_path), "--case", "traversal"])
    assert (tmp_path / "mine.txt").read_text() == "a user's notes"
