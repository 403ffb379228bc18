"""Whose memory is this? The identity of a saved state, checked before a run resumes it.

A state or checkpoint copied from another run (a MiniLM memory restored into a
hashing-encoder run, a ``flat`` memory into a ``hyperskill`` run, a memory saved with
k = 5 into a k = 2 run) would load, resume with another SR and relabel the memory. So the
runner writes ``identity.json`` (method, encoder, HyperSkill configuration) beside every
state it saves, and before resuming compares what the saved memory says of itself (the
``manifest.json`` of a hypergraph memory, the ``state.json`` of a baseline) and that file
with the run's own system, naming both sides when they differ.

>>> identity_problem({"encoder": "minilm(all-MiniLM-L6-v2)"},
...                  {"encoder": "hashing(dim=384,seed=0)"})
"encoder: the saved memory's is 'minilm(all-MiniLM-L6-v2)', this run's (run.json) is 'hashing(dim=384,seed=0)'"

Not here: reading and writing the memory (core/io, baselines), the run's settings file
(files.py, run.json).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.types import HasEncoder, KeepsHypergraph, Named

__all__ = ["IDENTITY", "system_identity", "stored_identity", "identity_problem",
           "write_identity"]

IDENTITY = "identity.json"


def _name(x: Any) -> str:
    return x.name if isinstance(x, Named) else type(x).__name__


def _encoder_of(system: Any) -> Any:
    """The encoder of a system's hypergraph memory (`KeepsHypergraph`), else its own
    (`HasEncoder`), else None."""
    if isinstance(system, KeepsHypergraph) and system.memory.encoder is not None:
        return system.memory.encoder
    return system.encoder if isinstance(system, HasEncoder) else None


def system_identity(system: Any) -> dict[str, Any]:
    """The method name, encoder name and (for hypergraph memories) configuration of a
    memory system, as JSON data."""
    out: dict[str, Any] = {"method": _name(system)}
    enc = _encoder_of(system)
    if enc is not None:
        out["encoder"] = _name(enc)
    if isinstance(system, KeepsHypergraph):
        out["config"] = system.memory.config.to_dict()
    return out


def _json(path: Path) -> dict[str, Any]:
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return doc if isinstance(doc, dict) else {}


def stored_identity(state: Path) -> dict[str, Any]:
    """What the saved state folder `state` (holding ``memory/``) says it is: the
    runner's ``identity.json`` and the memory's own records, which win where both
    speak (they cannot be copied apart from the memory)."""
    out = dict(_json(state / IDENTITY))
    memory = state / "memory"
    manifest = _json(memory / "manifest.json")
    if isinstance(manifest.get("encoder"), dict) and manifest["encoder"].get("name"):
        out["encoder"] = manifest["encoder"]["name"]
    if isinstance(manifest.get("config"), dict):
        out["config"] = manifest["config"]
    baseline = _json(memory / "state.json")
    for key in ("method", "encoder"):
        if baseline.get(key):
            out[key] = baseline[key]
    return out


def _config(d: Any) -> Any:
    try:
        return HyperSkillConfig.from_dict(d).to_dict()
    except (TypeError, ValueError):
        return d


def identity_problem(stored: dict[str, Any], mine: dict[str, Any]) -> str | None:
    """What differs between a saved memory's identity and this run's, or None; a field
    only one side records is not compared."""
    problems = []
    for key in ("method", "encoder", "config"):
        if key not in stored or key not in mine:
            continue
        a, b = stored[key], mine[key]
        if key == "config":
            a, b = _config(a), _config(b)
            if a != b:
                diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
                shown = ", ".join(f"{k} {a.get(k)!r} vs {b.get(k)!r}" for k in diff[:4])
                problems.append(f"config: the saved memory's differs from this run's "
                                f"(run.json) in {shown}")
        elif a != b:
            problems.append(f"{key}: the saved memory's is {a!r}, this run's (run.json) is {b!r}")
    return "; ".join(problems) or None


def write_identity(folder: Path, system: Any) -> None:
    """Write ``identity.json`` for a state saved by `system` into `folder`."""
    (Path(folder) / IDENTITY).write_text(json.dumps(system_identity(system), sort_keys=True),
                                         encoding="utf-8")
