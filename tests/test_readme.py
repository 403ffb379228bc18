"""The README's code stays true: its memory snippet runs as written and every name it
imports from `hyperskill_lite` exists there."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import hyperskill_lite

README = Path(__file__).resolve().parents[1] / "README.md"


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
    text = README.read_text(encoding="utf-8")
    groups = re.findall(r"from hyperskill_lite import (\([^)]*\)|[^\n]*)", text)
    names = [n for g in groups for n in re.findall(r"[A-Za-z_]\w*", g)]
    assert "retrieve" in names and "HypergraphMemory" in names
    for group in groups:
        for name in re.findall(r"[A-Za-z_]\w*", group):
            assert hasattr(hyperskill_lite, name), f"README imports {name!r}, not exported"
