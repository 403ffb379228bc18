"""Habits the notebooks teach: no global warning filter (issue 20).

A notebook that silences every warning hides the ones a learner needs to see; where a
dependency is noisy, a notebook filters that warning narrowly, naming its category and
module.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
GLOBAL = re.compile(r"""warnings\.(filterwarnings|simplefilter)\(\s*["']ignore["']\s*\)""")


def _code(nb: Path) -> str:
    cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
    return "\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")


def test_the_notebooks_exist():
    assert len(NOTEBOOKS) >= 10


@pytest.mark.parametrize("nb", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_notebook_silences_every_warning(nb):
    code = _code(nb)
    assert not GLOBAL.search(code), f"{nb.name} ignores every warning; filter narrowly"
    for call in re.findall(r"warnings\.filterwarnings\(([^)]*)\)", code):
        assert "category=" in call and "module=" in call, (
            f"{nb.name}: warnings.filterwarnings({call}) must name a category and a module")


@pytest.mark.parametrize("src, ok", [
    ('warnings.filterwarnings("ignore")', False),
    ("warnings.simplefilter('ignore')", False),
    ('warnings.filterwarnings("ignore", category=FutureWarning, module="hypernetx")', True),
])
def test_the_check_itself(src, ok):
    assert (GLOBAL.search(src) is None) == ok


def test_solutions_sit_in_collapsed_answer_cells_and_nowhere_else():
    """Every notebook but 00 has exercises; a solution sits only between nbgrader's markers
    in an answer cell (tagged ``solution``, collapsed), never in prose or another cell,
    where nbgrader would refuse to release the notebook. A written question's model answer
    is a whole Markdown cell (tagged ``exercise-written``: nbgrader replaces all of it)."""
    begin, end = "### BEGIN " + "SOLUTION", "### END " + "SOLUTION"
    with_exercises = set()
    for nb in NOTEBOOKS:
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for c in cells:
            src = "".join(c["source"])
            tagged = "solution" in c["metadata"].get("tags", [])
            if "exercise-written" in c["metadata"].get("tags", []):
                assert tagged and c["cell_type"] == "markdown", (nb.name, c.get("id"))
                assert c["metadata"]["nbgrader"]["solution"] and src.strip(), nb.name
                assert begin not in src and end not in src, (nb.name, c.get("id"))
                with_exercises.add(nb.name[:2])
                continue
            if tagged:
                with_exercises.add(nb.name[:2])
                assert c["metadata"].get("jupyter", {}).get("source_hidden"), nb.name
                assert c["metadata"]["nbgrader"]["solution"], nb.name
            assert (begin in src and end in src) == tagged, (nb.name, c.get("id"))
            assert "HIDDEN TESTS" not in src or "exercise-test" in c["metadata"].get("tags", [])
    assert with_exercises == {nb.name[:2] for nb in NOTEBOOKS} - {"00"}
