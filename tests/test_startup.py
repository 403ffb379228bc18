"""The first screen: a python without the package's dependencies (the system python
started from the repository root, say) gets ONE line naming what is missing and how to
install it, exit code 2, and no folder is made. Run with a real interpreter that lacks
them: this venv's python with ``-S`` (no site-packages) and a PYTHONPATH holding only the
package and numpy."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import numpy
import pytest

from hyperskill_lite import _startup

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = ROOT / "pyproject.toml"


def _bare_path(tmp_path: Path) -> Path:
    """A folder for PYTHONPATH with the package and numpy (and numpy's own libraries)."""
    path = tmp_path / "path"
    path.mkdir()
    (path / "hyperskill_lite").symlink_to(ROOT / "hyperskill_lite")
    site = Path(numpy.__file__).resolve().parents[1]
    for name in ("numpy", "numpy.libs"):
        if (site / name).exists():
            (path / name).symlink_to(site / name)
    return path


@pytest.mark.parametrize("command", [["demo", "--out", "runs/first"],
                                     ["run", "--episodes", "2", "--out", "runs/first"]])
def test_a_missing_dependency_is_one_line_before_any_folder(tmp_path, command):
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(_bare_path(tmp_path))
    done = subprocess.run([sys.executable, "-S", "-m", "hyperskill_lite", *command],
                          cwd=work, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(r"cannot start: scipy, xxhash, platformdirs are not installed", lines[0])
    assert "make setup" in lines[0] and ".venv/bin/python -m hyperskill_lite" in lines[0]
    assert list(work.iterdir()) == []  # nothing was made


def test_the_same_python_with_its_packages_starts(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite", "--help"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "cannot start" not in done.stderr


def _pyproject_requirements() -> tuple[list[str], dict[str, list[str]]]:
    text = PYPROJECT.read_text(encoding="utf-8")
    try:
        import tomllib
    except ImportError:  # python 3.10
        import tomli as tomllib
    project = tomllib.loads(text)["project"]

    def name(req: str) -> str:
        return re.split(r"[<>=!~;\[ ]", req, maxsplit=1)[0].lower().replace("-", "_")

    return ([name(r) for r in project["dependencies"]],
            {k: [name(r) for r in v] for k, v in project["optional-dependencies"].items()})


RENAMED = {"docx": "python_docx", "pptx": "python_pptx", "llama_cpp": "llama_cpp_python"}
"""Modules whose distribution has another name."""


def test_required_is_pyprojects_dependencies():
    base, _ = _pyproject_requirements()
    assert sorted(_startup.REQUIRED) == sorted(
        b for b in base if b != "tomli" or sys.version_info < (3, 11))


def test_every_extra_named_installs_that_module():
    _, extras = _pyproject_requirements()
    for module, extra in _startup.EXTRA_OF.items():
        assert RENAMED.get(module, module) in extras[extra], (module, extra)


def test_a_missing_extra_is_one_line_naming_it():
    line = _startup.missing_extra(ModuleNotFoundError("No module named 'openai'", name="openai"))
    assert "'live'" in line and "pip install -c constraints.txt -e '.[live]'" in line
    assert "\n" not in line
