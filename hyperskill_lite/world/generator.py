"""SkillWorld's task generator: benchmark-like tasks in real English with hidden structure.

`make_tasks(profile)` draws, for each task, a difficulty level (in the profile's exact
proportions), a domain question template (weighted by the profile's domain and archetype
category weights and by how well its number of archetypes fits the level), fills its
slots from the domain's invented vocabularies, and draws a short answer plus three
plausible wrong ones. The latent structure (archetypes, domain, level) is hidden in
``Task.meta["skillworld"]``; memory systems must not read it, only SimLLM and SimExecutor do.

Tasks are generated in a fixed order; the runner shuffles them (seed 42). Task i depends
only on (seed, profile, i) and the level allocation, so the same call always gives the
same tasks. Not here: any text an LLM would write (simllm.py) or outcomes (executor.py).
"""

from __future__ import annotations

import datetime as _dt
import math
from typing import Any

import numpy as np

from hyperskill_lite.types import Task
from hyperskill_lite.world.library import load_library
from hyperskill_lite.world.library_types import SLOT_PATTERN, Domain, Library, Template
from hyperskill_lite.world.params import WorldParams
from hyperskill_lite.world.rng import stable_rng

__all__ = ["PROFILES", "make_tasks", "allocate_levels", "template_weights"]

PROFILES = ("gaia", "webwalker", "xbench")
_MAX_ATTEMPTS = 50


def allocate_levels(weights: tuple[float, ...], n: int, rng: np.random.Generator) -> np.ndarray:
    """Difficulty levels 1..len(weights) for `n` tasks in exact proportion to `weights`
    (largest-remainder rounding), in a random order.

    Returns an int array of shape (n,).

    >>> levels = allocate_levels((53, 86, 26), 165, np.random.default_rng(0))
    >>> np.bincount(levels, minlength=4)[1:].tolist()
    [53, 86, 26]
    >>> np.bincount(allocate_levels((1, 1, 1), 4, np.random.default_rng(0)))[1:].tolist()
    [2, 1, 1]
    """
    w = np.asarray(weights, dtype=float)
    quota = w / w.sum() * n  # (n_levels,)
    counts = np.floor(quota).astype(int)
    order = np.argsort(-(quota - counts), kind="stable")
    counts[order[: n - counts.sum()]] += 1
    return rng.permutation(np.repeat(np.arange(1, len(w) + 1), counts))


def template_weights(lib: Library, profile: str) -> tuple[list[Template], np.ndarray]:
    """All templates and their profile weights before the level affinity.

    weight(t) = domain_weights[t.domain] * geometric mean over t's archetypes of
    category_weights[category]. Returns (templates, weights of shape (n_templates,)).
    """
    prof = lib.profiles[profile]
    templates = [t for d in lib.domains.values() for t in d.templates]
    w = np.zeros(len(templates))
    for j, t in enumerate(templates):
        cats = [prof.category_weights.get(lib.archetypes[a].category, 0.0) for a in t.archetypes]
        geo = math.prod(cats) ** (1.0 / len(cats))
        w[j] = prof.domain_weights.get(t.domain, 0.0) * geo
    return templates, w


def _slot_keys(text: str) -> list[tuple[str, str]]:
    return list(dict.fromkeys((m.group(1), m.group(2)) for m in SLOT_PATTERN.finditer(text)))


def _draw_slots(
    t: Template, domain: Domain, months: tuple[str, ...], rng: np.random.Generator
) -> dict[tuple[str, str], Any]:
    keys = _slot_keys(t.text + " " + t.topic)
    values: dict[tuple[str, str], Any] = {}
    lo, hi = domain.years
    if ("year", "") in keys or ("year", "2") in keys:
        if ("year", "2") in keys:
            delta = int(rng.integers(2, 11))
            values[("year", "")] = int(rng.integers(lo, hi - delta + 1))
            values[("year", "2")] = values[("year", "")] + delta
        else:
            values[("year", "")] = int(rng.integers(lo, hi + 1))
    if ("month", "") in keys:
        values[("month", "")] = months[int(rng.integers(len(months)))]
    bases = list(dict.fromkeys(b for b, _ in keys if b not in ("year", "month")))
    for base in bases:
        idxs = [i for b, i in keys if b == base]
        pool = domain.vocab[base]
        picks = rng.choice(len(pool), size=len(idxs), replace=False)
        for i, p in zip(idxs, picks):
            values[(base, i)] = pool[int(p)]
    return values


def _render(text: str, values: dict[tuple[str, str], Any], where: str) -> str:
    def sub(m: Any) -> str:
        entry = values[(m.group(1), m.group(2))]
        attr = m.group(3)
        if isinstance(entry, dict):
            key = attr or "name"
            if key not in entry:
                raise ValueError(f"{where}: slot {m.group(0)} has no attribute {key!r}")
            return str(entry[key])
        if attr:
            raise ValueError(f"{where}: slot {m.group(0)} asks for {attr!r} of a plain string")
        return str(entry)

    return SLOT_PATTERN.sub(sub, text)


def _name(entry: Any) -> str:
    return str(entry["name"]) if isinstance(entry, dict) else str(entry)


def _fmt_number(v: float, decimals: int, unit: str) -> str:
    s = f"{v:.{decimals}f}"
    return f"{s} {unit}" if unit else s


def _distinct(answer: str, candidates: list[str], k: int = 3) -> list[str]:
    return [c for c in dict.fromkeys(candidates) if c != answer][:k]


def _answer(
    spec: dict[str, Any],
    domain: Domain,
    values: dict[tuple[str, str], Any],
    months: tuple[str, ...],
    rng: np.random.Generator,
) -> tuple[str, list[str]]:
    """The gold answer and three plausible wrong answers for an answer spec."""
    kind = spec["type"]
    if kind == "year":
        lo, hi = spec.get("range", domain.years)
        v = int(rng.integers(lo, hi + 1))
        offsets = rng.permutation([-3, -2, -1, 1, 2, 3])
        return str(v), _distinct(str(v), [str(v + int(o)) for o in offsets])
    if kind in ("number", "percent"):
        lo, hi = spec["range"]
        d = int(spec.get("decimals", 0 if kind == "number" else 1))
        unit = spec.get("unit", "")
        v = round(float(rng.uniform(lo, hi)), d)

        def fmt(x: float) -> str:
            return f"{x:.{d}f}%" if kind == "percent" else _fmt_number(x, d, unit)

        step = 10.0 ** (-d)
        cands = [v * f for f in rng.permutation([0.5, 0.8, 0.9, 1.1, 1.25, 2.0])]
        cands += [v + s * step * k for k in (1, 2, 3) for s in (1, -1)]
        if kind == "percent":
            cands.insert(1, -v)
        return fmt(v), _distinct(fmt(v), [fmt(round(c, d)) for c in cands])
    if kind == "entity":
        used = {_name(x) for x in values.values() if not isinstance(x, int)}
        pool = [_name(x) for x in domain.vocab[spec["vocab"]] if _name(x) not in used]
        order = rng.permutation(len(pool))
        return pool[int(order[0])], [pool[int(i)] for i in order[1:4]]
    if kind == "slot_choice":
        opts = [
            _name(values[(m.group(1), m.group(2))])
            for s in spec["slots"]
            for m in SLOT_PATTERN.finditer("{" + s + "}")
        ]
        order = rng.permutation(len(opts))
        return opts[int(order[0])], [opts[int(i)] for i in order[1:]]
    if kind == "choice":
        opts = list(spec["options"])
        order = rng.permutation(len(opts))
        return opts[int(order[0])], [opts[int(i)] for i in order[1:4]]
    if kind == "date":
        lo, hi = domain.years
        year = int(rng.integers(lo, hi + 1))
        # a question about "{year}" (an edition, a deadline) is answered by a date in that year
        year = int(values.get(("year", ""), year))
        day = _dt.date(year, int(rng.integers(1, 13)), int(rng.integers(1, 29)))

        def fmt_date(x: _dt.date) -> str:
            return f"{x.day} {months[x.month - 1]} {x.year}"

        shifts = rng.permutation([-30, -7, -1, 1, 7, 30, 365])
        return fmt_date(day), _distinct(
            fmt_date(day), [fmt_date(day + _dt.timedelta(days=int(s))) for s in shifts]
        )
    if kind == "code":
        pattern = spec["format"]

        def code() -> str:
            out = pattern
            while "{d}" in out:
                out = out.replace("{d}", str(int(rng.integers(1, 10))), 1)
            return out

        v = code()
        return v, _distinct(v, [code() for _ in range(12)])
    raise ValueError(f"unknown answer type {kind!r}")


def make_tasks(
    profile: str,
    n: int | None = None,
    seed: int = 0,
    params: WorldParams | None = None,
) -> list[Task]:
    """Generate `n` SkillWorld tasks of a benchmark profile, in a deterministic order.

    Parameters
    ----------
    profile : "gaia" (165 tasks), "webwalker" (170) or "xbench" (100).
    n : number of tasks; None gives the profile's size.
    seed : fixes everything; the same arguments always give the same tasks.
    params : only `params.data_dir` is used here.

    Returns
    -------
    list[Task] with ids ``"<profile>-0000"``..., ``benchmark="skillworld-<profile>"``, a
    short answer, and the hidden latent structure in ``meta["skillworld"]``: profile,
    domain, template, archetypes, difficulty (1-3), topic, answer_type, wrong_answers.

    >>> tasks = make_tasks("xbench", n=3, seed=1)
    >>> [t.id for t in tasks]
    ['xbench-0000', 'xbench-0001', 'xbench-0002']
    >>> tasks == make_tasks("xbench", n=3, seed=1)
    True
    """
    params = params or WorldParams()
    lib = load_library(params.data_dir)
    if profile not in lib.profiles:
        raise ValueError(f"unknown SkillWorld profile {profile!r}; known: {sorted(lib.profiles)}")
    prof = lib.profiles[profile]
    if n is None:
        n = prof.n_tasks
    if not isinstance(n, (int, np.integer)) or n < 0:
        raise ValueError(f"make_tasks: n must be a non-negative integer or None, got {n!r}")
    templates, base_w = template_weights(lib, profile)
    if base_w.sum() <= 0:
        raise ValueError(f"profile {profile!r} gives every template zero weight")
    sizes = np.array([len(t.archetypes) for t in templates])  # (n_templates,)
    levels = allocate_levels(prof.difficulty_weights, int(n), stable_rng(seed, profile, "levels"))
    tasks: list[Task] = []
    seen: set[str] = set()
    for i in range(int(n)):
        level = int(levels[i])
        w = base_w * np.asarray(lib.level_size_affinity[level])[sizes - 1]
        tasks.append(_one_task(lib, profile, seed, i, level, templates, w / w.sum(), seen))
    return tasks


def _one_task(
    lib: Library,
    profile: str,
    seed: int,
    i: int,
    level: int,
    templates: list[Template],
    w: np.ndarray,
    seen: set[str],
) -> Task:
    """Task i of `make_tasks`: a template drawn with weights `w` (n_templates,) and its
    slots filled, redrawn (up to `_MAX_ATTEMPTS`) while the question is in `seen`, which
    it then joins; then the answer, the wrong answers and the hidden latent record."""
    for attempt in range(_MAX_ATTEMPTS):
        rng = stable_rng(seed, profile, "task", i, attempt)
        t = templates[int(rng.choice(len(templates), p=w))]
        domain = lib.domains[t.domain]
        values = _draw_slots(t, domain, lib.months, rng)
        question = _render(t.text, values, t.id)
        if question not in seen:
            break
    seen.add(question)
    answer, wrong = _answer(t.answer, domain, values, lib.months, rng)
    urls = [v["url"] for v in values.values() if isinstance(v, dict) and "url" in v]
    latent = {
        "profile": profile,
        "domain": t.domain,
        "template": t.id,
        "archetypes": list(t.archetypes),
        "difficulty": level,
        "topic": _render(t.topic, values, t.id),
        "answer_type": t.answer["type"],
        "wrong_answers": wrong,
    }
    meta: dict[str, Any] = {"skillworld": latent}
    if urls:
        meta["root_url"] = urls[0]
    return Task(
        id=f"{profile}-{i:04d}",
        question=question,
        answer=answer,
        benchmark=f"skillworld-{profile}",
        meta=meta,
    )
