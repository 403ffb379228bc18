#!/usr/bin/env python3
"""Measure how real models write experiential memory, for calibrating SkillWorld.

Usage (the three sources of the published calibration; clone them anywhere):

    git clone https://github.com/noahshinn/reflexion
    git clone https://github.com/aiming-lab/SkillRL
    git clone https://github.com/MineDojo/Voyager
    .venv/bin/python tools/calibrate_world.py reflexion SkillRL Voyager \\
        > hyperskill_lite/world/data/calibration.json

Each PATH is a checkout (a work tree, or a bare git directory) of one of the public
repositories below; which one is told by the files it holds. Nothing of theirs is copied
into this project: the script reads their committed memory files, embeds the items with
all-MiniLM-L6-v2 and prints only statistics (hyperskill_lite.world.calibration
.stream_stats) with provenance (repository, commit, paths, model, licence, item count).

Streams (items in the order the run wrote them):

- Reflexion, ALFWorld: the reflections of ``alfworld_runs/root/reflexion_run_logs``, trial
  by trial, environment by environment, each reflection once (no names);
- SkillRL, per domain (ALFWorld, WebShop, Search): the ``mistakes_to_avoid`` of its
  generated memories ("trigger: bad action"; no names) and their ``planning_pattern``
  workflows (no names); and its curated skill banks ``claude_style_skills*.json``
  (title: principle), a curated regime, reported but not in the target;
- Voyager: the skill libraries of trials 1-3 (name: the function name in words;
  content: the description the model wrote), trial after trial.

The target SkillWorld is fitted to is the median, statistic by statistic, over the
per-trajectory streams of skill-like items (reflections, mistakes, skills), each stream
counting once; the name statistics come from the streams that have names. Workflows are
left out of the target: they are plans (SkillRL's planning patterns are step templates),
whose SkillWorld counterpart is the decomposition P_0, which the paper never
deduplicates; the curated banks are left out because SkillWorld simulates per-trajectory
extraction (the banks are reported to show the curated regime, which SkillWorld's
"curated" phrasing matches).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from hyperskill_lite.world.calibration import stream_stats  # noqa: E402

# what each repository is, read in the repository itself (see each reader's docstring)
KNOWN = {
    "reflexion": {
        "repository": "https://github.com/noahshinn/reflexion",
        "model": "text-davinci-003 (alfworld_runs/utils.py get_completion at 4e42b24, the "
        "commit that added these logs)",
    },
    "skillrl": {
        "repository": "https://github.com/aiming-lab/SkillRL",
        "model": "an OpenAI model the repository does not name (memory_data/prompt/prompt.txt "
        "is the generation prompt); skill banks: a Claude model ('claude_style')",
    },
    "voyager": {
        "repository": "https://github.com/MineDojo/Voyager",
        "model": "GPT-4 for the code, GPT-3.5-turbo for the descriptions (the paper's setup)",
    },
}
PER_TRAJECTORY = "per-trajectory"
CURATED = "curated"
SKILL_LIKE = ("reflection", "mistake", "skill")


class Repo:
    """Read-only access to a checkout: a work tree, or a bare git directory."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.git = self._run("rev-parse", "HEAD") is not None

    def _run(self, *args: str) -> str | None:
        try:
            out = subprocess.run(["git", "-C", str(self.path), *args], capture_output=True,
                                 text=True, check=True)
        except (subprocess.CalledProcessError, FileNotFoundError):
            return None
        return out.stdout

    @property
    def commit(self) -> str:
        return (self._run("rev-parse", "HEAD") or "unknown (not a git checkout)").strip()

    def files(self) -> list[str]:
        if self.git:
            return (self._run("ls-tree", "-r", "--name-only", "HEAD") or "").split()
        return [str(p.relative_to(self.path)) for p in self.path.rglob("*") if p.is_file()]

    def read(self, rel: str) -> str:
        if self.git:
            text = self._run("show", f"HEAD:{rel}")
            if text is None:
                raise FileNotFoundError(f"{self.path}: no {rel} at HEAD")
            return text
        return (self.path / rel).read_text(encoding="utf-8")

    def licence(self) -> str:
        for name in ("LICENSE", "LICENSE.md", "LICENSE.txt"):
            try:
                first = self.read(name).strip().splitlines()[0]
            except (FileNotFoundError, IndexError):
                continue
            return first.strip()
        return "unknown"


def _natural(path: str) -> list[Any]:
    return [int(t) if t.isdigit() else t for t in re.split(r"(\d+)", path)]


# --------------------------------------------------------------------------- readers
Stream = dict[str, Any]


def reflexion(repo: Repo) -> list[Stream]:
    """ALFWorld reflections: env_results_trial_<t>.json holds, per environment, the
    memory (the last reflections, kept up to 3) after trial t; a reflection is new the
    first time it appears for its environment."""
    pat = re.compile(r"alfworld_runs/root/reflexion_run_logs/env_results_trial_(\d+)\.json$")
    paths = sorted((p for p in repo.files() if pat.search(p)), key=_natural)
    seen: set[tuple[str, str]] = set()
    items = []
    for p in paths:
        for env in json.loads(repo.read(p)):
            for r in env.get("memory") or []:
                key = (env["name"], r.strip())
                if key not in seen:
                    seen.add(key)
                    items.append(r.strip())
    return [{"id": "reflexion-alfworld", "regime": PER_TRAJECTORY, "kind": "reflection",
             "paths": paths, "contents": items, "names": None}]


def _guidelines(mem: dict[str, Any]) -> dict[str, Any]:
    sg = (mem.get("content") or {}).get("strategic_guidelines") or {}
    return sg.get("strategic_guidelines", sg) if isinstance(sg, dict) else {}


def _mistake_text(m: Any) -> str:
    if isinstance(m, dict):
        return ": ".join(str(m[k]) for k in ("trigger_condition", "bad_action") if m.get(k))
    return str(m)


def skillrl(repo: Repo) -> list[Stream]:
    """memory_data/<domain>/generated_memories*.json: per trajectory, the distilled
    ``mistakes_to_avoid`` (trigger condition: bad action) and the ``planning_pattern``;
    memory_data/<domain>/claude_style_skills*.json: curated skill banks."""
    files = repo.files()
    out: list[Stream] = []
    for domain in ("alfworld", "webshop", "search"):
        gen = sorted((p for p in files if p.startswith(f"memory_data/{domain}/generated_memories")
                      and p.endswith(".json")), key=_natural)
        mistakes, workflows = [], []
        for p in gen:
            for mem in json.loads(repo.read(p)):
                g = _guidelines(mem)
                mistakes += [_mistake_text(m) for m in g.get("mistakes_to_avoid") or []]
                if g.get("planning_pattern"):
                    workflows.append(str(g["planning_pattern"]))
        if gen:
            out.append({"id": f"skillrl-{domain}-mistakes", "regime": PER_TRAJECTORY,
                        "kind": "mistake", "paths": gen, "contents": mistakes, "names": None})
            out.append({"id": f"skillrl-{domain}-workflows", "regime": PER_TRAJECTORY,
                        "kind": "workflow", "paths": gen, "contents": workflows, "names": None})
    banks = sorted((p for p in files if re.match(r"memory_data/\w+/claude_style_skills.*\.json$", p)),
                   key=_natural)
    names, contents = [], []
    for p in banks:
        doc = json.loads(repo.read(p))
        for key, block in doc.items():
            if not (key.endswith("_skills") or key == "common_mistakes"):
                continue
            if isinstance(block, dict):  # skills grouped by task or query type
                block = [s for group in block.values() for s in group]
            for s in block:
                body = s.get("principle") or s.get("description") or ""
                if body:  # mistakes have no title: their name is empty
                    names.append(str(s.get("title") or ""))
                    contents.append(str(body))
    if banks:
        out.append({"id": "skillrl-skill-banks", "regime": CURATED, "kind": "skill",
                    "paths": banks, "contents": contents, "names": names})
    return out


def _camel_words(name: str) -> str:
    return " ".join(re.findall(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+", name))


def _description(text: str) -> str:
    body = re.findall(r"//\s?(.*)", text)
    return " ".join(b.strip() for b in body) if body else text.strip()


def voyager(repo: Repo) -> list[Stream]:
    """skill_library/trial<k>/skill/skills.json: name -> {"code", "description"}; the
    description is the model's comment inside a function stub."""
    paths = sorted((p for p in repo.files()
                    if re.match(r"skill_library/trial\d+/skill/skills\.json$", p)), key=_natural)
    names, contents = [], []
    for p in paths:
        for name, skill in json.loads(repo.read(p)).items():
            names.append(_camel_words(name))
            contents.append(_description(skill.get("description", "")))
    return [{"id": "voyager-minecraft", "regime": PER_TRAJECTORY, "kind": "skill",
             "paths": paths, "contents": contents, "names": names}]


READERS: dict[str, tuple[Callable[[str], bool], Callable[[Repo], list[Stream]]]] = {
    "reflexion": (lambda f: f.startswith("alfworld_runs/root/reflexion_run_logs/"), reflexion),
    "skillrl": (lambda f: f.startswith("memory_data/") and "generated_memories" in f, skillrl),
    "voyager": (lambda f: f.startswith("skill_library/trial"), voyager),
}


def identify(repo: Repo) -> str:
    files = repo.files()
    for kind, (probe, _) in READERS.items():
        if any(probe(f) for f in files):
            return kind
    raise SystemExit(f"{repo.path}: not a checkout of Reflexion, SkillRL or Voyager "
                     "(none of their memory files is there)")


# --------------------------------------------------------------------------- target
TARGET_KEYS = ("q10", "q50", "q90", "ge_0.85", "ge_0.90")


def target(rows: list[dict[str, Any]]) -> dict[str, Any]:
    per = [r for r in rows if r["regime"] == PER_TRAJECTORY and r["kind"] in SKILL_LIKE]
    named = [r for r in per if r["stats"]["name"] is not None]

    def med(values: list[float]) -> float:
        return float(np.median(values))

    return {
        "rule": "median over the per-trajectory streams of skill-like items (reflections, "
        "mistakes, skills; each stream once) of each statistic; name statistics over the "
        "streams that have names; workflows (plans) and curated banks are left out",
        "streams": [r["id"] for r in per],
        "text": {k: med([r["stats"]["text"][k] for r in per]) for k in TARGET_KEYS},
        "name": {k: med([r["stats"]["name"][k] for r in named]) for k in TARGET_KEYS}
        if named else None,
        "name_repeat_rate": med([r["stats"]["name_repeat_rate"] for r in named])
        if named else None,
        "name_streams": [r["id"] for r in named],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("paths", nargs="+", type=Path, help="checkouts of the source repositories")
    ap.add_argument("--encoder", default="minilm",
                    help="minilm (the published statistics) or hashing (tests)")
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    from hyperskill_lite.core.embed import encoder_by_name

    encoder = encoder_by_name(args.encoder)
    rows = []
    for path in args.paths:
        repo = Repo(path)
        kind = identify(repo)
        info = KNOWN[kind]
        for s in READERS[kind][1](repo):
            if not s["contents"]:
                continue
            stats = stream_stats(encoder, s["contents"], s["names"])
            rows.append({
                "id": s["id"],
                "regime": s["regime"],
                "kind": s["kind"],
                "repository": info["repository"],
                "commit": repo.commit,
                "paths": s["paths"] if len(s["paths"]) <= 4
                else [*s["paths"][:2], f"... {len(s['paths'])} files"],
                "model": info["model"],
                "licence": repo.licence(),
                "items": stats["items"],
                "stats": stats,
            })
            print(f"{s['id']:<28} {stats['items']:>4} items  text q50 "
                  f"{stats['text'].get('q50', float('nan')):.3f}", file=sys.stderr)
    doc = {
        "format": "skillworld-calibration-1",
        "about": "How real models write experiential memory, measured by "
        "tools/calibrate_world.py on public repositories (statistics only; none of their "
        "text is here). For each item in the order written: its maximum all-MiniLM-L6-v2 "
        "cosine to any earlier item of its stream, on 'name: content' (text) and on the "
        "name alone (name); q10/q50/q90 and the shares >= 0.85 and >= 0.90; the rate of exact "
        "name repeats; mean lengths in words.",
        "encoder": encoder.name,
        "sources": rows,
        "target": target(rows),
    }
    json.dump(doc, sys.stdout, indent=1, sort_keys=False)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
