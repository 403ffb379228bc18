#!/usr/bin/env python3
"""Does the configured package index give a CPU build of the pinned torch? (`make setup`)

    python tools/torch_index.py      # exit 0: install as usual; exit 1: use the CPU index

PyPI's torch wheel for Linux x86-64 is the CUDA build: installing ``torch==2.13.0`` from it
pulls several GB of ``nvidia-*`` packages. This asks pip what the pin would install (a dry
run with a JSON report, nothing downloaded but metadata) and exits 1 when that includes an
``nvidia-*`` package, so the Makefile installs torch from PyTorch's CPU wheel index first.
Where the index already serves a CPU build (a local wheel, macOS, aarch64), or torch is
installed, it exits 0 and nothing changes. A dry run that fails (no network) also exits 0:
the real install then says what is wrong.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def pulls_cuda(report: dict) -> bool:
    """True when a pip installation report (``pip install --dry-run --report``, format
    version 1) would install an NVIDIA CUDA package.

    >>> pulls_cuda({"version": "1", "install": [{"metadata": {"name": "torch"}},
    ...             {"metadata": {"name": "nvidia-cublas-cu12"}}]})
    True
    >>> pulls_cuda({"version": "1", "install": [{"metadata": {"name": "torch"}}]})
    False
    """
    names = (str(item.get("metadata", {}).get("name", "")).lower()
             for item in report.get("install", []))
    return any(n.startswith("nvidia-") or n.startswith("nvidia_") for n in names)


def main() -> int:
    if importlib.util.find_spec("torch") is not None:
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report.json"
        done = subprocess.run(
            [sys.executable, "-m", "pip", "install", "--dry-run", "--quiet", "--ignore-installed",
             "--report", str(report), "-c", str(ROOT / "constraints.txt"), "torch"],
            capture_output=True, text=True)
        if done.returncode != 0 or not report.is_file():
            return 0
        return 1 if pulls_cuda(json.loads(report.read_text())) else 0


if __name__ == "__main__":
    sys.exit(main())
