"""Memory health: what a memory did during a run, and an alarm when it stored nothing.

Our addition (the paper reports none of it): a memory method can run a whole
benchmark while storing nothing, or storing without ever showing the agent anything,
and its SR then silently equals no memory's. From the records alone `memory_health`
counts, per run:

- ``Inserted``: entries a method added. For methods that report their updates
  (HyperSkill: each extracted skill that became a new node) it is their count; for the
  others it is the growth of the sizes they report (`MemorySystem.stats`) summed over
  episodes, removals by maintenance added back, so a method reporting overlapping counts
  (ExpeL's experiences and successes) counts an entry once in each. For records that
  do not start at episode 0 (an evaluated part), growth counts from the first of them.
- ``Dedup``: extracted items that joined an existing entry (HyperSkill's insertion-time
  dedup, §3.4); NaN for methods that do not report it.
- ``Merged`` and ``Pruned``: totals over the maintenance cycles (Eqs. 11-14 for HyperSkill).
- ``NonEmpty``: % of episodes whose retrieval put at least one item in the context, and
  ``Injected``: the mean number of items injected per episode.
- ``EmptyStore`` / ``NothingShown``: 1.0 when the check after the first 10 % of the
  tasks (`check_index`) found a memory method that had stored nothing, or had stored
  entries but shown none; the runner logs that warning on the ``hyperskill_lite.runner``
  logger and records it in the episode's ``health_warning`` field.

>>> recs = [{"index": 0, "injected": 0, "update": {"skills": [{"dedup": False}], "dedup": 0},
...          "sizes": {"skill_nodes": 1}},
...         {"index": 1, "injected": 2, "update": {"skills": [{"dedup": True}], "dedup": 1},
...          "sizes": {"skill_nodes": 1}, "maintenance": {"pruned": 1, "merged": 0}}]
>>> h = memory_health(recs)
>>> h["Inserted"], h["Dedup"], h["Pruned"], h["NonEmpty"], h["Injected"]
(1.0, 1.0, 1.0, 50.0, 1.0)

At the end of a run the runner writes these figures into ``run.json`` under "health"
(`write_health`; NaN as null), where `report` and the memory studio read them. What a
maintenance cycle did goes on the record of the episode it followed
(`maintenance_record`: the pruned nodes with their gamma and nu, the merged pairs with
their texts before and after and both cosines), so a run folder keeps the provenance the
studio shows.

Not here: the loop that records the fields (loop.py), Table-1 figures (summary.py).
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from hyperskill_lite.core.confined import read_bytes, write_text

__all__ = ["memory_health", "health_check", "check_index", "HEALTH_KEYS", "CHECK_SHARE",
           "HEALTH_FIELD", "run_health", "write_health", "maintenance_record", "MERGE_KEYS",
           "PRUNE_KEYS"]

HEALTH_KEYS = ("Inserted", "Dedup", "Merged", "Pruned", "NonEmpty", "Injected", "EmptyStore",
               "NothingShown")
CHECK_SHARE = 0.1
"""The share of the tasks after which the runner checks that a memory stores something."""
NOT_ENTRIES = frozenset({"incidences"})
"""Sizes that count no entry of their own (a hyperedge's memberships)."""
HEALTH_FIELD = "health"
"""run.json's field holding the health figures of the run so far (a result, never
compared on resume)."""
MERGE_KEYS = ("a", "b", "a_name", "b_name", "a_content", "b_content", "polarity",
              "similarity", "plain_similarity", "new_id", "name", "content",
              "cross_polarity")
"""What a maintenance record keeps of each merge (`maintenance.merge`'s rows)."""
PRUNE_KEYS = ("id", "kind", "polarity", "name", "content", "nu", "gamma")
"""What a maintenance record keeps of each pruned node (`maintenance.prune`'s rows)."""


def _stored(sizes: Mapping[str, Any] | None) -> float:
    return float(sum(v for k, v in (sizes or {}).items() if k not in NOT_ENTRIES))


def check_index(n_tasks: int, frozen_from: int | None = None) -> int | None:
    """The 0-based episode after which the store is checked: the last of the first
    ceil(10 % of N) tasks, or the last learning episode when the memory freezes earlier;
    None when nothing is learned before the check.

    >>> check_index(100), check_index(5), check_index(100, frozen_from=4), check_index(100, 0)
    (9, 0, 3, None)
    """
    k = max(1, math.ceil(CHECK_SHARE * n_tasks - 1e-9))
    if frozen_from is not None:
        k = min(k, frozen_from)
    return k - 1 if k >= 1 else None


def health_check(records: Sequence[Mapping[str, Any]], sizes: Mapping[str, Any],
                 name: str) -> dict[str, Any] | None:
    """The warning for a memory method (one reporting any size) that after `records`
    (whose last one is the current episode, `sizes` its sizes) has stored nothing, or
    has stored entries but shown the agent none in any episode that began with
    something stored; None when all is well or the method keeps no memory (no sizes,
    like no-memory)."""
    if not sizes:
        return None
    n = len(records)
    if _stored(sizes) == 0:
        return {"stored_nothing": True, "showed_nothing": True,
                "message": f"{name} has stored nothing after {n} task(s): its runs will "
                           "equal no memory; check that its extraction and update work"}
    # episodes that began with something stored: those after the first non-empty sizes
    first = next((j for j, r in enumerate(records) if _stored(r.get("sizes")) > 0), n - 1)
    began_full = records[first + 1:]
    if began_full and not any(r.get("injected", r.get("retrieved")) for r in began_full):
        return {"stored_nothing": False, "showed_nothing": True,
                "message": f"{name} has stored {_stored(sizes):.0f} entries but shown the "
                           f"agent none in the {len(began_full)} task(s) since it stored "
                           "its first"}
    return None


def memory_health(records: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """The health figures of one run (module docstring); NaN where they do not apply."""
    nan = float("nan")
    if not records:
        return {k: nan for k in HEALTH_KEYS}
    # one pass (a big run's records are built one at a time: studio/table.py)
    reported = False
    inserted_rep = dedup_rep = inserted_grow = merged = pruned = 0.0
    start = int(records[0].get("index", 0)) == 0
    before = 0.0
    all_injected, counts, fallback_non_empty = True, [], 0
    warnings = []
    for k, r in enumerate(records):
        upd = r.get("update")
        if isinstance(upd, dict) and "skills" in upd:
            reported = True
            inserted_rep += float(sum(not s.get("dedup") for s in upd["skills"]))
            dedup_rep += float(int(upd.get("dedup", 0)))
        m = r.get("maintenance") or {}
        merged += float(m.get("merged", 0) or 0)
        pruned += float(m.get("pruned", 0) or 0)
        # growth from the store before the first record: empty at the start of a run; for
        # a slice that starts later (an evaluated part), its first record is the baseline
        now = _stored(r.get("sizes"))
        if k or start:
            inserted_grow += max(0.0, now - before + float(m.get("pruned", 0) or 0)
                                 + float(m.get("merged", 0) or 0))
        before = now
        if all_injected and "injected" in r:
            counts.append(int(r["injected"]))
        else:
            all_injected = False
        fallback_non_empty += bool(r.get("retrieved")) or r.get("context_tokens", 0) > 0
        if r.get("health_warning"):
            warnings.append(r["health_warning"])
    inserted, dedup = (inserted_rep, dedup_rep) if reported else (inserted_grow, nan)
    if all_injected:
        non_empty = 100.0 * sum(c > 0 for c in counts) / len(counts)
        injected = sum(counts) / len(counts)
    else:  # records written before "injected" existed
        non_empty = 100.0 * fallback_non_empty / len(records)
        injected = nan
    return {
        "Inserted": inserted,
        "Dedup": dedup,
        "Merged": merged,
        "Pruned": pruned,
        "NonEmpty": non_empty,
        "Injected": injected,
        "EmptyStore": float(any(w.get("stored_nothing") for w in warnings)),
        "NothingShown": float(any(w.get("showed_nothing") for w in warnings)),
    }


def maintenance_record(report: Any) -> dict[str, Any]:
    """What one maintenance cycle did, for the record of the episode it followed:
    {"pruned": count, "merged": count, "merges": [MERGE_KEYS of each merge],
    "pruned_nodes": [PRUNE_KEYS of each pruned node]}; keys a method's report lacks are
    left out (a baseline's maintenance reports counts only).

    >>> from hyperskill_lite.core.records import MaintenanceReport
    >>> rep = MaintenanceReport(pruned=[{"id": "s3", "kind": "skill", "nu": 4, "gamma": 0.1}],
    ...                         merged=[{"a": "s1", "b": "s2", "similarity": 0.9, "new_id": "s9"}])
    >>> maintenance_record(rep)["pruned_nodes"], maintenance_record(rep)["merged"]
    ([{'id': 's3', 'kind': 'skill', 'nu': 4, 'gamma': 0.1}], 1)
    """
    return {
        "pruned": report.n_pruned,
        "merged": report.n_merged,
        "merges": [{k: m[k] for k in MERGE_KEYS if k in m} for m in report.merged],
        "pruned_nodes": [{k: p[k] for k in PRUNE_KEYS if k in p} for p in report.pruned],
    }


def run_health(records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The health figures of a run as JSON data: `memory_health` over all its records
    (NaN as None) and the number of episodes they cover.

    >>> run_health([{"index": 0, "injected": 1, "sizes": {"skill_nodes": 2}}])["NonEmpty"]
    100.0
    """
    figures = memory_health(records)
    return {"episodes": len(records),
            **{k: None if math.isnan(v) else v for k, v in figures.items()}}


def write_health(out: Path | str, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Put `run_health(records)` into ``out/run.json`` under `HEALTH_FIELD` (the file is
    replaced by a rename, so a crash leaves the old or the new file whole); returns the
    figures. A folder without run.json is left alone."""
    path = Path(out) / "run.json"
    health = run_health(records)
    try:
        doc = json.loads(read_bytes(out, path))
    except (OSError, ValueError):
        return health
    if not isinstance(doc, dict):
        return health
    doc[HEALTH_FIELD] = health
    write_text(out, path, json.dumps(doc, sort_keys=True, indent=1))
    return health
    if not isinstance(doc, dict):
        return health
    doc[HEALTH_FIELD] = health
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(json.dumps(doc, sort_keys=True, indent=1))
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return health
