"""tools/build_book.py: how the notebooks are staged for the course site (the build itself
and every page are checked in a browser by tests/browser/, `make browser-test`)."""

from __future__ import annotations

import doctest
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("build_book", ROOT / "tools" / "build_book.py")
book = importlib.util.module_from_spec(_spec)
sys.modules["build_book"] = book
_spec.loader.exec_module(book)

PANELS = ["03_cooccurrence_ranking", "05_propagation_merging", "08_ablations_and_sensitivity"]


def test_the_doctests_of_the_builder():
    result = doctest.testmod(book)
    assert result.attempted >= 5 and result.failed == 0


@pytest.fixture(scope="module")
def staged(tmp_path_factory) -> dict[str, dict]:
    src = tmp_path_factory.mktemp("src")
    names = book.stage(ROOT / "notebooks", src)
    return {n: json.loads((src / f"{n}.ipynb").read_text(encoding="utf-8")) for n in names}


def test_every_notebook_is_staged_in_course_order_with_the_map_first(staged):
    names = list(staged)
    assert names == sorted(names) and names[0] == book.HOME and len(names) >= 10
    toc = staged[book.HOME]["cells"][-1]
    assert toc["source"].startswith("```{toctree}\n:hidden:")
    assert toc["source"].split("\n\n", 1)[1].split() == names[1:] + ["```"]


@pytest.mark.parametrize("name", PANELS)
def test_a_panel_becomes_its_static_default_figure(name, staged):
    original = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
    nb = staged[name]
    assert "widgets" not in nb["metadata"]
    dumped = json.dumps(nb)
    assert book.WIDGET_VIEW not in dumped and "NBVAL_" not in dumped
    i = next(i for i, c in enumerate(original["cells"]) if c["cell_type"] == "code"
             and any(book.WIDGET_VIEW in o.get("data", {}) for o in c["outputs"]))
    outputs = nb["cells"][i]["outputs"]
    assert outputs[0]["data"]["text/markdown"] == book.PANEL_NOTE
    assert outputs[1]["data"]["image/png"] == book.default_figure(original["cells"], i)["data"][
        "image/png"]


def test_solutions_stay_collapsed_and_math_and_prose_are_untouched(staged):
    for name, nb in staged.items():
        original = json.loads((ROOT / "notebooks" / f"{name}.ipynb").read_text(encoding="utf-8"))
        for before, after in zip(original["cells"], nb["cells"]):
            if before["metadata"].get("jupyter", {}).get("source_hidden"):
                assert "hide-input" in after["metadata"]["tags"]
            if before["cell_type"] == "markdown":
                src = "".join(before["source"])
                assert after["source"] == book.github_anchors(src)
                assert after["source"].count("$") == src.count("$")


def test_links_to_notebook_headings_point_at_the_site_anchors():
    assert book.github_anchors("[map](00_quickstart.ipynb#The-course-map)") == \
        "[map](00_quickstart.ipynb#the-course-map)"
    assert book.github_anchors("[x](https://example.org/a#B)") == "[x](https://example.org/a#B)"


def test_without_npm_or_notebooks_the_build_says_what_to_do_in_one_line(tmp_path):
    env = {"PATH": str(tmp_path / "bin"), "HOME": str(tmp_path), "XDG_CACHE_HOME": str(tmp_path)}
    (tmp_path / "bin").mkdir()
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out",
                        str(tmp_path / "book")], capture_output=True, text=True, env=env)
    assert r.returncode == 1 and r.stdout == ""
    have_sphinx = all(importlib.util.find_spec(m) for m in ("sphinx", "myst_nb",
                                                            "sphinx_book_theme"))
    expected = "npm was not found" if have_sphinx else "make book needs sphinx"
    assert r.stderr.count("\n") == 1 and expected in r.stderr, r.stderr
    r = subprocess.run([sys.executable, str(ROOT / "tools" / "build_book.py"), "--out",
                        str(tmp_path / "book"), "--notebooks", str(tmp_path)],
                       capture_output=True, text=True, env=env)
    assert r.returncode == 1 and "no notebooks NN_*.ipynb" in r.stderr
