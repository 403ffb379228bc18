"""Every shipped notebook, graded as a submission (the instructor's solutions), earns every
point with no flag: the keys its hidden tests recorded, the answers its checks recorded
and its solutions agree, as committed. Grading no longer runs a notebook (seconds each),
but this reads every committed notebook's records, so it sits with them in the notebook
tier: `make notebooks` runs it beside nbval with ``HYPERSKILL_GRADE_NOTEBOOKS=1``. The
attacks on the grader are tests/test_course_adversarial.py."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hyperskill_lite.course import format_report, grade_notebook
from hyperskill_lite.course.contained import isolation_problem

pytestmark = pytest.mark.skipif(
    os.environ.get("HYPERSKILL_GRADE_NOTEBOOKS") != "1",
    reason="reads every committed notebook: part of `make notebooks` (HYPERSKILL_GRADE_NOTEBOOKS=1)")

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = [p for p in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
             if p.name[:2] != "00"]
ISOLATION = "bwrap" if isolation_problem("bwrap") is None else "process"


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem[:2])
def test_a_shipped_notebook_grades_all_correct(nb):
    """Every value and coding exercise correct; every written question's model answer
    waits for its hand grade (and is no blank)."""
    report = grade_notebook(nb, isolation=ISOLATION)
    auto = [g for g in report.grades if g.kind != "written"]
    written = [g for g in report.grades if g.kind == "written"]
    assert report.all_correct and report.points == len(auto), format_report(report)
    assert all(g.status == "to grade by hand" for g in written), format_report(report)
    assert report.flags == [] and report.problems == []
    assert report.seconds["processes"] == (1 if auto else 0)
