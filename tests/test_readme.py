"""The README and the user guide (docs/guide/*.md) stay true: the README's memory snippet
runs as written, every name they import from `hyperskill_lite` exists there, their
generated blocks are what tools/readme.py renders from the artefacts, the notebooks page's
times are the notebooks' own, and every test and figure they name exists."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import hyperskill_lite

README = Path(__file__).resolve().parents[1] / "README.md"
GUIDE = README.parent / "docs" / "guide"
PLUGINS = {"extending.md"}
"""Pages whose code uses names other branches of issue 38 add (register_method,
SearchProvider, ...): tests/test_extending.py checks them."""


def _pages() -> list[Path]:
    """The README and the user guide's pages."""
    return [README, *sorted(GUIDE.glob("*.md"))]


def _section_code(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    block = re.search(r"```python\n(.*?)```", text[start:], re.S)
    assert block, f"README section {title!r} has no python block"
    return block.group(1)


def test_the_memory_snippet_runs_as_written(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # it saves "my_memory" in the working directory
    out = io.StringIO()
    scope: dict = {}
    with contextlib.redirect_stdout(out):
        exec(compile(_section_code("The memory in a few lines"), "README.md", "exec"), scope)
    printed = out.getvalue()
    assert "## Past Experience" in printed and "## Relevant Skills" in printed
    assert "Subtask path" in printed  # explain()
    assert (tmp_path / "my_memory" / "manifest.json").is_file()
    memory = scope["memory"]
    assert memory.stats()["hyperedges"] == 2
    memory.validate()


def test_every_name_the_readme_imports_from_the_package_exists():
    text = "\n".join(p.read_text(encoding="utf-8") for p in _pages() if p.name not in PLUGINS)
    groups = re.findall(r"from hyperskill_lite import (\([^)]*\)|[^\n]*)", text)
    names = [n for g in groups for n in re.findall(r"[A-Za-z_]\w*", g)]
    assert "retrieve" in names and "HypergraphMemory" in names
    for group in groups:
        for name in re.findall(r"[A-Za-z_]\w*", group):
            assert hasattr(hyperskill_lite, name), f"README imports {name!r}, not exported"


# ---------------------------------------------------------------------------------------
# the README's numbers come from the artefacts
# ---------------------------------------------------------------------------------------

ROOT = README.parent


def _tool():
    import importlib.util

    spec = importlib.util.spec_from_file_location("readme_tool", ROOT / "tools" / "readme.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_generated_block_equals_what_its_artefact_gives():
    """Tables of compare runs, the calibration, the performance targets and the live tier:
    each block is exactly what tools/readme.py renders from the committed artefact."""
    tool = _tool()
    blocks = tool.all_blocks()
    assert set(blocks) >= {"demo", "baselines", "ablations", "paired", "vs-hyperskill",
                           "calibration", "perf", "live-smoke"}
    assert blocks["demo"][0] == README  # the first screen shows what make demo prints
    for name, (page, body) in blocks.items():
        if name == "demo":
            continue  # needs a run: the next test
        assert body == tool.GENERATORS[name](), (
            f"{page.relative_to(ROOT)}: block {name!r} is stale: run tools/readme.py")


def test_the_tools_doctests():
    import doctest

    result = doctest.testmod(_tool())
    assert result.attempted >= 1 and result.failed == 0


def _demo_rows(text: str) -> dict[str, list[str]]:
    """method -> the demo table's columns without the two timing ones (mem ms, s/task),
    by the rule `tools/readme.py --check` applies."""
    rows = _tool().comparable("demo", text)
    return {r[0]: r[1:] for r in rows if r[0].startswith(("hyperskill", "flat", "no-memory"))}


def test_the_demo_table_and_figures_are_what_make_demo_gives(demo_folder):
    """The README's demo table is what `make demo` prints (gaia, seed 0, MiniLM; the two
    timing columns aside) and its figures are the demo's, byte for byte."""
    tool = _tool()
    shown = tool.blocks(README.read_text(encoding="utf-8"))["demo"]
    printed, _, figures = demo_folder
    assert printed.splitlines()[0] == shown.splitlines()[1]  # the title line, seed and encoder
    assert _demo_rows(printed) == _demo_rows(shown) and len(_demo_rows(shown)) == 5
    assert tool.FIRST_RUN.search(shown), "the first run's cost is missing: run tools/readme.py"
    for name in ("demo_cumulative_sr.png", "demo_memory_growth.png"):
        assert (figures / name).read_bytes() == (ROOT / "figures" / name).read_bytes()


def test_the_notebook_run_times_are_the_notebooks_own():
    import json

    text = (GUIDE / "notebooks.md").read_text(encoding="utf-8")
    rows = {n: (study, alone, pair) for n, study, alone, pair in re.findall(
        r"^\| `(\d\d)_\w+` \| (\d+) min \| (\d+) s / (\d+) s \|", text, re.M)}
    notebooks = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    assert len(rows) == len(notebooks) >= 10
    for nb in notebooks:
        head = "".join(json.loads(nb.read_text())["cells"][0]["source"])
        study = re.search(r"\*\*Study time:\*\* about (\d+) min", head).group(1)
        alone, pair = re.search(r"\*\*Compute time:\*\* about (\d+) s alone, (\d+) s with two",
                                head).groups()
        own = (study, alone, pair)
        assert rows[nb.name[:2]] == own, f"{nb.name}: README says {rows[nb.name[:2]]}, header {own}"


def test_every_test_the_readme_names_exists():
    total = 0
    for page in _pages():
        text = page.read_text(encoding="utf-8")
        named = re.findall(r"`(tests/[\w/]+\.py)(?:::(\w+))?`", text)
        total += len(named)
        for path, name in named:
            assert (ROOT / path).is_file(), f"{page.name} names {path}, which does not exist"
            if name:
                assert f"def {name}(" in (ROOT / path).read_text(), (
                    f"{page.name}: {path}::{name} does not exist")
        for follow in re.findall(r"`::(\w+)`", text):  # `::name` continues the previous file
            assert any(f"def {follow}(" in p.read_text()
                       for p in (ROOT / "tests").rglob("*.py")), f"{page.name}: ::{follow}"
    assert total > 20


def test_every_figure_the_readme_shows_exists():
    shown = 0
    for page in _pages():
        for path in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            shown += 1
            assert (page.parent / path).resolve().is_file(), f"{page.name} shows {path}, missing"
    assert shown >= 10


def test_every_page_the_readme_links_exists():
    """The README's "where to go next" and the guide's links between pages lead somewhere."""
    for page in _pages():
        for target in re.findall(r"\]\(([^)#:]+\.md)(?:#[^)]*)?\)", page.read_text(encoding="utf-8")):
            assert (page.parent / target).resolve().is_file(), f"{page.name} links {target}"
