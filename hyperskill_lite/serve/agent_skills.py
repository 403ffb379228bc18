"""A memory's skill library as Agent Skills folders: one folder per skill node with a
``SKILL.md`` that any client loading skills from a folder can use.

The format follows the Agent Skills specification (agentskills.io): YAML front matter
with ``name`` (1-64 characters: lowercase letters, digits and single hyphens, not at
either end, equal to the folder's name) and ``description`` (1-1024 characters, what
the skill does and when to use it), and the optional ``metadata`` map of strings; then
Markdown. Here the body holds the skill's content, its polarity (a strategy to follow or
a mistake to avoid), its utility gamma (Eq. 3) with the counts behind it, and its
provenance (the memory, the node id, the trajectories it was learned from).

Skills are ranked by utility (gamma, then retrievals nu, then id) and filtered
(``min_utility``, ``top``, ``polarity``). Strings in the front matter are written as
JSON strings, which YAML reads as double-quoted scalars, after control characters are
removed and every run of three or more hyphens is replaced by an em dash (the reference
validator, skills-ref, finds the front matter by splitting the file at ``---``, so a
``---`` inside a value would cut it short), so any skill text round-trips through a YAML
parser and the reference validator; the tests run skills-ref on every exported skill.

Nothing the export did not write is overwritten: ``OUT/.hyperskill-export.json`` lists
every file it wrote with its checksum, and a ``SKILL.md`` (or a skill folder) that is not
in that list, or was edited since, is left as it is and reported. Files are written to a
temporary name and renamed. Folders of skills no longer selected are reported, not
removed.

Not here: reading the memory (shared.py, read-only), the paper's memory (core/).
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import xxhash

from hyperskill_lite.core.elements import NodeView
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.llm.text import clip_middle

__all__ = ["export_skills", "ExportReport", "skill_folder_name", "render_skill", "MANIFEST",
           "NAME_MAX", "DESCRIPTION_MAX"]

MANIFEST = ".hyperskill-export.json"
FORMAT = "hyperskill_lite.agent-skills/1"
NAME_MAX = 64
DESCRIPTION_MAX = 1024
PROVENANCE = 5
"""Trajectories listed per skill (the newest)."""

_NOT_NAME = re.compile(r"[^a-z0-9]+")


@dataclass
class ExportReport:
    """What an export did: folder names `written`, `skipped` (name, why), `stale`
    (folders an earlier export wrote for skills not selected now), and the counts."""

    out: Path
    written: list[str] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    selected: int = 0
    total: int = 0


def skill_folder_name(name: str, id: str) -> str:
    """The folder (and ``name``) of skill node `id`: its name in lowercase words joined
    by single hyphens, then its id, at most 64 characters.

    >>> skill_folder_name("Official Source First!", "s12")
    'official-source-first-s12'
    >>> skill_folder_name("Évaluer -- d'abord", "s3")
    'evaluer-d-abord-s3'
    >>> len(skill_folder_name("word " * 40, "s123456"))
    64
    """
    ascii_name = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode()
    slug = _NOT_NAME.sub("-", ascii_name.lower()).strip("-")
    keep = NAME_MAX - len(id) - 1
    slug = slug[:keep].rstrip("-")
    return f"{slug}-{id}" if slug else f"skill-{id}"


def _clean(text: str) -> str:
    """One line without control or format characters (front matter safe)."""
    kept = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in text)
    return " ".join(kept.split())


def _body_text(text: str) -> str:
    """Markdown body text without control characters other than newlines and tabs."""
    return "".join(c for c in text if c in "\n\t" or unicodedata.category(c)[0] != "C")


_DASHES = re.compile(r"-{3,}")


def _yaml_str(text: str) -> str:
    """A front-matter value: a JSON string (a YAML double-quoted scalar) with no
    ``---`` (module docstring).

    >>> print(_yaml_str('a --- b ----- c'))
    "a — b — c"
    """
    return json.dumps(_DASHES.sub("—", text), ensure_ascii=False)


def _description(v: NodeView, tasks: list[str]) -> str:
    kind = ("A strategy" if v.polarity == "success" else "A mistake to avoid")
    what = _clean(v.content)
    usage = (f" Learned by HyperSkill from agent trajectories (utility {v.gamma:.2f}, used "
             f"{v.nu} times).")
    when = ""
    if tasks:
        when = " Use it for tasks like: " + "; ".join(_clean(clip_middle(t, 160))
                                                      for t in tasks[:2]) + "."
    text = f"{kind}: {_clean(v.name)}. {what}{usage}{when}"
    if len(text) > DESCRIPTION_MAX:
        text = text[: DESCRIPTION_MAX - 1].rstrip() + "…"
    return text


def render_skill(v: NodeView, folder: str, edges: list[dict[str, Any]], memory_name: str
                 ) -> str:
    """The ``SKILL.md`` of skill node `v` (module docstring); `edges`: its newest
    trajectories as {"id", "task", "success"}."""
    polarity = "strategy" if v.polarity == "success" else "mistake to avoid"
    written_by = _written_by(v)
    meta = {"polarity": polarity, "utility": f"{v.gamma:.4f}", "retrievals": str(v.nu),
            "successes": f"{v.sigma:g}", "node": v.id, "memory": memory_name,
            "learned_from": written_by, "source": "hyperskill_lite export-skills"}
    lines = ["---", f"name: {folder}",
             f"description: {_yaml_str(_description(v, [e['task'] for e in edges]))}",
             "metadata:"]
    lines += [f"  {k}: {_yaml_str(_clean(val))}" for k, val in meta.items()]
    lines += ["---", "", f"# {_clean(v.name) or v.id}", "", _body_text(v.content).strip(), "",
              "## About this skill", "",
              f"- Polarity: {polarity} ("
              + ("learned from successful trajectories: follow it)" if v.polarity == "success"
                 else "learned from failed trajectories: check you are not doing this)"),
              f"- Utility (HyperSkill Eq. 3): {v.gamma:.4f}, from {v.sigma:g} successes in "
              f"{v.nu} retrievals and {v.mean_steps:.1f} steps on average "
              "(0.5: not yet retrieved)",
              f"- Provenance: skill node `{v.id}` of the memory `{_clean(memory_name)}`, "
              f"{written_by}"]
    if edges:
        lines += ["", "## Learned from", ""]
        for e in edges:
            outcome = "success" if e["success"] else "failure"
            lines.append(f"- `{e['id']}` ({outcome}): {_clean(clip_middle(e['task'], 200))}")
    return "\n".join(lines) + "\n"


def _written_by(v: NodeView) -> str:
    """Who wrote the skill: the agent (``learn(skills=...)``, with its client's name) or
    the memory's extraction."""
    meta = v.meta or {}
    if meta.get("source") == "agent":
        client = _clean(str(meta.get("client", "")))
        return "written by the agent" + (f" ({client})" if client else "")
    if meta.get("merged_from"):
        return "merged by the memory's maintenance"
    return "extracted by the memory's model"


def _digest(data: bytes) -> str:
    return xxhash.xxh3_128_hexdigest(data)


def _write_atomic(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def _read_manifest(out: Path) -> dict[str, Any]:
    path = out / MANIFEST
    if not path.is_file():
        return {"format": FORMAT, "files": {}}
    try:
        doc = json.loads(path.read_text())
    except (ValueError, OSError) as exc:
        raise ValueError(f"{path}: unreadable ({exc}); move it away to export again") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or not isinstance(
            doc.get("files"), dict):
        raise ValueError(f"{path}: not written by export-skills; move it away or choose "
                         "another --to")
    return doc


def _selected(memory: HypergraphMemory, min_utility: float, top: int | None,
              polarity: str | None) -> tuple[list[NodeView], int]:
    views = memory.nodes(memory.node_ids(kind="skill", polarity=polarity))
    total = len(views)
    views = [v for v in views if v.gamma >= min_utility]
    views.sort(key=lambda v: (-v.gamma, -v.nu, int(v.id[1:])))
    return (views if top is None else views[:top]), total


def export_skills(memory: HypergraphMemory, out: str | Path, *, memory_name: str = "memory",
                  min_utility: float = 0.0, top: int | None = None,
                  polarity: str | None = None) -> ExportReport:
    """Write the skills of `memory` into `out` as Agent Skills folders (module
    docstring). `polarity`: "success" or "failure" for one kind only."""
    out = Path(out)
    if out.exists() and not out.is_dir():
        raise FileExistsError(f"{out}: exists and is not a folder; choose another --to")
    if not 0.0 <= min_utility <= 1.0:
        raise ValueError(f"--min-utility must be in [0, 1], got {min_utility}")
    out.mkdir(parents=True, exist_ok=True)
    manifest = _read_manifest(out)
    owned: dict[str, str] = manifest["files"]
    views, total = _selected(memory, min_utility, top, polarity)
    report = ExportReport(out, selected=len(views), total=total)
    chosen = set()
    for v in views:
        folder = skill_folder_name(v.name, v.id)
        chosen.add(folder)
        rel = f"{folder}/SKILL.md"
        target = out / rel
        why = _refusal(out, folder, target, owned.get(rel))
        if why:
            report.skipped.append((folder, why))
            continue
        edges = [{"id": e, "task": memory.edge(e).task, "success": memory.edge(e).success}
                 for e in reversed(memory.shared_edges(v.id, v.id)[-PROVENANCE:])]
        data = render_skill(v, folder, edges, memory_name).encode("utf-8")
        target.parent.mkdir(exist_ok=True)
        _write_atomic(target, data)
        owned[rel] = _digest(data)
        report.written.append(folder)
    report.stale = sorted({rel.split("/")[0] for rel in owned} - chosen)
    manifest["memory"] = memory_name
    _write_atomic(out / MANIFEST, (json.dumps(manifest, indent=1, sort_keys=True) + "\n")
                  .encode())
    return report


def _refusal(out: Path, folder: str, target: Path, recorded: str | None) -> str:
    """Why `target` must not be written ("" when it may)."""
    if recorded is None:
        if target.exists() or (out / folder).exists():
            return f"{out / folder} exists and was not written by export-skills; left as is"
        return ""
    if not target.is_file():
        return ""  # ours, removed since: write it again
    if _digest(target.read_bytes()) != recorded:
        return f"{target} was edited since export-skills wrote it; left as is"
    return ""
