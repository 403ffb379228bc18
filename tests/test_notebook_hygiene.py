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


def test_exercises_check_themselves_and_hide_their_solutions():
    with_exercises = 0
    for nb in NOTEBOOKS:
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        solutions = [c for c in cells if "solution" in c["metadata"].get("tags", [])]
        if not solutions:
            continue
        with_exercises += 1
        for c in solutions:
            assert c["metadata"].get("jupyter", {}).get("source_hidden"), nb.name
            src = "".join(c["source"])
            assert "answer = " in src and 'check("' in src, nb.name
            # run top to bottom, each solution checks itself and passes
            out = "".join("".join(o.get("text", "")) for o in c["outputs"])
            assert out.strip().endswith(": correct"), (nb.name, out)
    assert with_exercises >= 4
