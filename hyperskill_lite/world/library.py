"""SkillWorld's template library: archetypes, latent strategies and error patterns,
domains with their vocabularies and question templates, and benchmark profiles.

`load_library()` reads ``world/data/*.json`` once per directory, checks every cross
reference and the paper's text contracts (skill names 3-5 words, contents 2-4
sentences, lessons one sentence) and returns frozen records. A missing or corrupt file
raises an error naming the file.

The records themselves (and the sentence and word counts) are in library_types.py.

Not here: sampling tasks (generator.py) or writing text (simllm.py).
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from hyperskill_lite.world.library_types import (
    SLOT_PATTERN,
    Archetype,
    Domain,
    Latent,
    Library,
    Phrasing,
    Profile,
    Template,
    count_sentences,
    count_words,
)

__all__ = [
    "DATA_FILES",
    "data_dir",
    "load_library",
]

DATA_FILES = ("archetypes.json", "strategies.json", "errors.json", "domains.json", "profiles.json")
_FORMATS = tuple(f"skillworld-{name.removesuffix('.json')}-1" for name in DATA_FILES)


def data_dir() -> Path:
    """The template library directory: env HYPERSKILL_DATA_DIR if set, else the package's
    own ``hyperskill_lite/world/data`` (package data, found with importlib.resources, so
    a regular install from a wheel has it too)."""
    env = os.environ.get("HYPERSKILL_DATA_DIR")
    if env:
        return Path(env)
    return Path(str(resources.files("hyperskill_lite.world").joinpath("data")))


def _read(path: Path, fmt: str) -> dict[str, Any]:
    if not path.is_file():
        raise FileNotFoundError(
            f"SkillWorld data file missing: {path} (set HYPERSKILL_DATA_DIR or pass the directory)"
        )
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"SkillWorld data file {path} is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or data.get("format") != fmt:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ValueError(f"SkillWorld data file {path}: expected format {fmt!r}, got {got!r}")
    return data


def _check(cond: bool, file: Path, msg: str) -> None:
    if not cond:
        raise ValueError(f"SkillWorld data file {file}: {msg}")


def _phrasings(raw: list[dict[str, str]], file: Path, owner: str) -> tuple[Phrasing, ...]:
    _check(len(raw) >= 3, file, f"{owner} needs at least 3 phrasings, has {len(raw)}")
    out = []
    for p in raw:
        name, content = p.get("name", ""), p.get("content", "")
        _check(3 <= count_words(name) <= 5, file, f"{owner}: name {name!r} must have 3-5 words")
        n = count_sentences(content)
        _check(2 <= n <= 4, file, f"{owner}: content of {name!r} has {n} sentences, needs 2-4")
        out.append(Phrasing(name, content))
    return tuple(out)


def _lessons(raw: list[str], file: Path, owner: str) -> tuple[str, ...]:
    _check(len(raw) >= 2, file, f"{owner} needs at least 2 lessons")
    for s in raw:
        _check(count_sentences(s) == 1, file, f"{owner}: lesson {s!r} must be one sentence")
    return tuple(raw)


@lru_cache(maxsize=8)
def _load(path_str: str) -> Library:
    root = Path(path_str)
    files = {name: root / name for name in DATA_FILES}
    raws = {name: _read(files[name], fmt) for name, fmt in zip(DATA_FILES, _FORMATS)}
    try:
        return _build(root, files, raws)
    except (KeyError, TypeError, IndexError, AttributeError) as exc:
        raise ValueError(
            f"SkillWorld data in {root} is malformed (missing or mistyped field {exc!r}); "
            f"check {', '.join(DATA_FILES)}"
        ) from exc


def _build(root: Path, files: dict[str, Path], raws: dict[str, dict[str, Any]]) -> Library:
    arch_d, strat_d, err_d, dom_d, prof_d = (raws[name] for name in DATA_FILES)
    f, fs = files["archetypes.json"], files["strategies.json"]
    categories = set(arch_d["categories"])
    archetypes = _archetypes(arch_d, categories, f)
    latents = _latents(strat_d, err_d, archetypes, fs, files["errors.json"])
    _check_archetype_refs(archetypes, latents, f)
    closers, suffixes, lead_ins = _phrase_tables(strat_d, fs)
    domains = _domains(dom_d, archetypes, files["domains.json"])
    fp = files["profiles.json"]
    profiles = _profiles(prof_d, domains, categories, fp)
    affinity = {int(k): tuple(v) for k, v in prof_d["level_size_affinity"].items()}
    _check(
        set(affinity) == {1, 2, 3} and all(len(v) == 4 for v in affinity.values()),
        fp,
        "level_size_affinity needs levels 1-3 with 4 weights each",
    )
    return Library(
        root,
        archetypes,
        latents,
        domains,
        profiles,
        tuple(dom_d["months"]),
        affinity,
        closers,
        suffixes,
        lead_ins,
    )


def _archetypes(arch_d: dict[str, Any], categories: set[str], f: Path) -> dict[str, Archetype]:
    """The archetypes of archetypes.json (`f`), checked, by id."""
    archetypes: dict[str, Archetype] = {}
    for a in arch_d["archetypes"]:
        _check(a["id"] not in archetypes, f, f"duplicate archetype id {a['id']!r}")
        _check(a["category"] in categories, f, f"archetype {a['id']!r}: unknown category")
        _check(len(a["steps"]) >= 3, f, f"archetype {a['id']!r} needs at least 3 step paraphrases")
        _check(1 <= len(a["errors"]) <= 2, f, f"archetype {a['id']!r} needs 1-2 error patterns")
        archetypes[a["id"]] = Archetype(
            a["id"],
            a["title"],
            a["category"],
            a["tool"],
            float(a["steps_mean"]),
            tuple(a["steps"]),
            a["strategy"],
            tuple(a["errors"]),
        )
    return archetypes


def _latents(
    strat_d: dict[str, Any],
    err_d: dict[str, Any],
    archetypes: dict[str, Archetype],
    fs: Path,
    fe: Path,
) -> dict[str, Latent]:
    """Helpful and spurious strategies (strategies.json, `fs`) and error patterns
    (errors.json, `fe`), checked, by id."""
    latents: dict[str, Latent] = {}
    for s in strat_d["helpful"]:
        owner = f"strategy {s['id']!r}"
        helps = tuple(a.id for a in archetypes.values() if a.strategy == s["id"])
        _check(bool(helps), fs, f"{owner} is the strategy of no archetype")
        latents[s["id"]] = Latent(
            s["id"],
            "strategy",
            "success",
            helps,
            _phrasings(s["phrasings"], fs, owner),
            _lessons(s["lessons"], fs, owner),
        )
    for s in strat_d["spurious"]:
        owner = f"spurious strategy {s['id']!r}"
        _check(s["id"] not in latents, fs, f"duplicate latent id {s['id']!r}")
        _check(
            s["polarity"] in ("success", "failure"),
            fs,
            f"{owner}: polarity must be success/failure",
        )
        bad = [a for a in s["affects"] if a not in archetypes]
        _check(not bad and bool(s["affects"]), fs, f"{owner}: unknown or no archetypes {bad}")
        latents[s["id"]] = Latent(
            s["id"],
            "spurious",
            s["polarity"],
            tuple(s["affects"]),
            _phrasings(s["phrasings"], fs, owner),
            _lessons(s["lessons"], fs, owner),
        )
    for e in err_d["errors"]:
        owner = f"error pattern {e['id']!r}"
        _check(e["id"] not in latents, fe, f"duplicate latent id {e['id']!r}")
        hits = tuple(a.id for a in archetypes.values() if e["id"] in a.errors)
        _check(bool(hits), fe, f"{owner} belongs to no archetype")
        _check(count_sentences(e["symptom"]) == 1, fe, f"{owner}: symptom must be one sentence")
        latents[e["id"]] = Latent(
            e["id"],
            "error",
            "failure",
            hits,
            _phrasings(e["phrasings"], fe, owner),
            _lessons(e["lessons"], fe, owner),
            e["symptom"],
        )
    return latents


def _check_archetype_refs(
    archetypes: dict[str, Archetype], latents: dict[str, Latent], f: Path
) -> None:
    """Every archetype names a known strategy and known error patterns."""
    for a in archetypes.values():
        _check(
            latents.get(a.strategy, None) is not None and latents[a.strategy].kind == "strategy",
            f,
            f"archetype {a.id!r} refers to unknown strategy {a.strategy!r}",
        )
        for e in a.errors:
            _check(
                e in latents and latents[e].kind == "error",
                f,
                f"archetype {a.id!r} refers to unknown error pattern {e!r}",
            )


def _phrase_tables(strat_d: dict[str, Any], fs: Path) -> tuple[dict[str, tuple[str, ...]], ...]:
    """The merge closers, name suffixes and lead-ins of strategies.json, checked."""
    closers = {k: tuple(v) for k, v in strat_d["merge_closers"].items()}
    _check(
        set(closers) == {"success", "failure"} and all(closers.values()),
        fs,
        "merge_closers needs non-empty 'success' and 'failure' lists",
    )
    suffixes = {k: tuple(v) for k, v in strat_d["name_suffixes"].items()}
    _check(
        set(suffixes) == {"success", "failure"}
        and all(v and all(count_words(w) == 1 for w in v) for v in suffixes.values()),
        fs,
        "name_suffixes needs non-empty 'success' and 'failure' lists of single words",
    )
    lead_ins = {k: tuple(v) for k, v in strat_d["lead_ins"].items()}
    _check(
        set(lead_ins) == {"success", "failure"}
        and all(v and all(w.endswith(", ") for w in v) for v in lead_ins.values()),
        fs,
        "lead_ins needs non-empty 'success' and 'failure' lists of clauses ending in ', '",
    )
    return closers, suffixes, lead_ins


def _domains(
    dom_d: dict[str, Any], archetypes: dict[str, Archetype], fd: Path
) -> dict[str, Domain]:
    """The domains of domains.json (`fd`) with their templates, checked, by id."""
    domains: dict[str, Domain] = {}
    template_ids: set[str] = set()
    for d in dom_d["domains"]:
        vocab = {k: tuple(v) for k, v in d["vocab"].items()}
        templates = [
            _template(t, d["id"], vocab, archetypes, template_ids, fd) for t in d["templates"]
        ]
        lo, hi = d["years"]
        _check(hi - lo >= 12, fd, f"domain {d['id']!r}: years span must be at least 12")
        domains[d["id"]] = Domain(d["id"], d["label"], (int(lo), int(hi)), vocab, tuple(templates))
    return domains


def _template(
    t: dict[str, Any],
    domain_id: str,
    vocab: dict[str, tuple[Any, ...]],
    archetypes: dict[str, Archetype],
    template_ids: set[str],
    fd: Path,
) -> Template:
    """One template of domain `domain_id`, checked against its vocabulary; its id joins
    `template_ids`."""
    owner = f"template {t['id']!r}"
    _check(t["id"] not in template_ids, fd, f"duplicate template id {t['id']!r}")
    template_ids.add(t["id"])
    _check(1 <= len(t["archetypes"]) <= 4, fd, f"{owner} must compose 1-4 archetypes")
    bad = [a for a in t["archetypes"] if a not in archetypes]
    _check(not bad, fd, f"{owner} refers to unknown archetypes {bad}")
    for m in SLOT_PATTERN.finditer(t["text"] + " " + t["topic"]):
        base, attr = m.group(1), m.group(3)
        _check(
            base in vocab or base in ("year", "month"),
            fd,
            f"{owner}: slot {m.group(0)} has no vocabulary",
        )
        entries = vocab.get(base, ())
        _check(
            not attr or all(isinstance(x, dict) and attr in x for x in entries),
            fd,
            f"{owner}: slot {m.group(0)} needs attribute {attr!r} on every entry",
        )
    ans = t["answer"]
    _check(
        ans.get("type") in _ANSWER_TYPES,
        fd,
        f"{owner}: unknown answer type {ans.get('type')!r}",
    )
    if ans["type"] == "slot_choice":
        missing = [x for x in ans["slots"] if "{" + x + "}" not in t["text"]]
        _check(not missing, fd, f"{owner}: answer slots {missing} not in the text")
    if ans["type"] == "entity":
        _check(
            len(vocab.get(ans["vocab"], ())) >= 5,
            fd,
            f"{owner}: answer vocab {ans['vocab']!r} needs at least 5 entries",
        )
    return Template(t["id"], domain_id, t["text"], t["topic"], tuple(t["archetypes"]), dict(ans))


def _profiles(
    prof_d: dict[str, Any], domains: dict[str, Domain], categories: set[str], fp: Path
) -> dict[str, Profile]:
    """The benchmark profiles of profiles.json (`fp`), checked, by id."""
    profiles: dict[str, Profile] = {}
    for pid, p in prof_d["profiles"].items():
        bad = [k for k in p["domain_weights"] if k not in domains]
        _check(not bad, fp, f"profile {pid!r}: unknown domains {bad}")
        bad = [k for k in p["category_weights"] if k not in categories]
        _check(not bad, fp, f"profile {pid!r}: unknown categories {bad}")
        _check(len(p["difficulty_weights"]) == 3, fp, f"profile {pid!r}: need 3 difficulty weights")
        profiles[pid] = Profile(
            pid,
            int(p["n_tasks"]),
            p["description"],
            tuple(p["difficulty_weights"]),
            dict(p["domain_weights"]),
            dict(p["category_weights"]),
        )
    return profiles


_ANSWER_TYPES = ("year", "number", "percent", "entity", "slot_choice", "date", "choice", "code")


def load_library(path: str | Path | None = None) -> Library:
    """Load and validate the template library in `path` (default: `data_dir()`).

    Cached per resolved directory. Raises FileNotFoundError or ValueError naming the
    offending file.

    >>> lib = load_library()
    >>> len(lib.archetypes) >= 20 and len(lib.domains) >= 8
    True
    >>> sorted(lib.profiles)
    ['gaia', 'webwalker', 'xbench']
    """
    root = Path(path) if path is not None else data_dir()
    return _load(str(root.resolve()))
