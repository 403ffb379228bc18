"""Installing the toolkit as a user elsewhere would: a regular (non-editable) wheel into a
fresh virtual environment, run from another folder, finds its SkillWorld data (package
data); the version has one source; and the torch check of `make setup` tells a CUDA
install from a CPU one by what pip says it would install."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _torch_index():
    spec = importlib.util.spec_from_file_location("torch_index", ROOT / "tools" / "torch_index.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_torch_check_reads_pips_installation_report(tmp_path):
    pulls_cuda = _torch_index().pulls_cuda
    cuda = {"version": "1", "install": [
        {"metadata": {"name": "torch", "version": "2.13.0"}},
        {"metadata": {"name": "nvidia-cudnn-cu12", "version": "9.10.2.21"}}]}
    assert pulls_cuda(cuda)
    # what pip says here: the pin resolves to the local CPU wheel, with no nvidia package
    report = tmp_path / "report.json"
    subprocess.run([sys.executable, "-m", "pip", "install", "--dry-run", "--quiet",
                    "--ignore-installed", "--report", str(report), "-c",
                    str(ROOT / "constraints.txt"), "torch"], check=True, capture_output=True)
    real = json.loads(report.read_text())
    assert [i["metadata"]["name"] for i in real["install"] if i["metadata"]["name"] == "torch"]
    assert not pulls_cuda(real)


@pytest.fixture(scope="module")
def wheel_venv(tmp_path_factory):
    """A fresh venv holding the toolkit from its wheel (and numpy, scipy), nothing else."""
    root = tmp_path_factory.mktemp("install")
    src, dist = root / "src", root / "dist"  # built from a copy: setuptools writes build/
    src.mkdir()
    for name in ("pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, src / name)
    shutil.copytree(ROOT / "hyperskill_lite", src / "hyperskill_lite",
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                    "-q", "-w", str(dist), str(src)], check=True, capture_output=True)
    wheel = next(dist.glob("hyperskill_lite-*.whl"))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    py = venv / "bin" / "python"
    done = subprocess.run([str(py), "-m", "pip", "install", "-q", "--disable-pip-version-check",
                           "-c", str(ROOT / "constraints.txt"), str(wheel)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    return py, root


def test_the_wheel_carries_the_skillworld_data_and_runs_from_another_folder(wheel_venv):
    py, root = wheel_venv
    elsewhere = root / "elsewhere"
    elsewhere.mkdir()
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "HYPERSKILL_DATA_DIR")}
    where = subprocess.run([str(py), "-c", "import hyperskill_lite; print(hyperskill_lite.__file__)"],
                           cwd=elsewhere, env=env, capture_output=True, text=True, check=True)
    assert str(root / "venv") in where.stdout  # the installed copy, not the source tree
    done = subprocess.run([str(py), "-m", "hyperskill_lite", "run", "--encoder", "hashing",
                           "--profile", "xbench", "--episodes", "5", "--no-progress",
                           "--out", "run"], cwd=elsewhere, env=env, capture_output=True,
                          text=True)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "NOT the paper's numbers" in done.stdout
    lines = (elsewhere / "run" / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == 5


def test_the_version_has_one_source(wheel_venv):
    import tomllib

    import hyperskill_lite

    py, root = wheel_venv
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    done = subprocess.run([str(py), "-m", "hyperskill_lite", "--version"], cwd=root,
                          capture_output=True, text=True, check=True)
    assert done.stdout.strip() == f"hyperskill_lite {declared}"
    assert hyperskill_lite.__version__ == declared
    assert "__version__ =" not in (ROOT / "hyperskill_lite" / "__init__.py").read_text().replace(
        "__version__ = _version()", "")
