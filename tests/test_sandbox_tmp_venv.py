"""The python tool from an interpreter that lives under /tmp (a clone in /tmp with its
venv there, as CI machines make): the fresh temporary folders the process sandbox mounts
must not hide the interpreter (it is bound back read-only)."""

from __future__ import annotations

import os
import site
import subprocess
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("isolation", ["process", "bwrap"])
def test_a_venv_under_tmp_runs_the_python_tool(tmp_path, isolation):
    if isolation == "bwrap" and not any(
            os.access(Path(d) / "bwrap", os.X_OK) for d in os.environ["PATH"].split(os.pathsep)):
        pytest.skip("bubblewrap is not installed")
    assert str(tmp_path).startswith("/tmp/") or os.environ.get("TMPDIR"), tmp_path
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                             capture_output=True, text=True, check=True).stdout.strip()
    # this venv's packages and the repository, seen from the new one
    Path(purelib, "outer.pth").write_text(
        "\n".join([*site.getsitepackages(), str(ROOT)]) + "\n", encoding="utf-8")
    code = ("import sys; from hyperskill_lite.agent.tools import PythonSandbox; "
            f"print(sys.prefix); print(PythonSandbox(isolation={isolation!r}, timeout=20)"
            ".run('print(6 * 7)'))")
    done = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=120,
                          cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    prefix, out = done.stdout.split("\n", 1)
    assert Path(prefix) == env_dir
    assert out.strip() == "42", out
