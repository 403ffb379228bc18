"""Where each skill came from and what happened to it: the provenance the studio shows
when a skill is clicked, and what each maintenance cycle did.

From a run's records (one per episode) and its snapshots (history.py):

- born: the episode whose extraction created the node (its trajectory), or the
  maintenance cycle whose merge formed it (with the two skills it replaced, their
  texts, and the plain and propagated cosines of Eq. 14);
- reinforced: the later episodes whose extracted skill was deduplicated into it at
  insertion (§3.4, with the cosine);
- trajectories: the hyperedges that hold it in the last snapshot that has it;
- gamma over time: its gamma (Eq. 3), nu and sigma at every snapshot;
- retrieved: the episodes whose S_q held it (the record's "retrieved" ids);
- its end, if any: merged into another node, or pruned (with gamma and nu).

Records written before the runner kept pruned nodes and merge texts still work: what is
missing is left out and the page says so.

Not here: the drawing (graph.py), the snapshots (history.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from hyperskill_lite.studio.history import Snapshot

__all__ = ["provenance", "cycles", "edge_info", "MAX_LIST", "TEXT_CHARS"]

MAX_LIST = 12
"""Trajectories, reinforcements and retrievals listed per skill at most (the counts are
always given): the first ones and the latest."""
TEXT_CHARS = 240
"""Characters of a task or lesson kept for the page."""
MAX_EVENTS = 200
"""Rows per maintenance cycle and kind (pruned, merged, deduplicated) at most."""


def _cut(text: Any, n: int = TEXT_CHARS) -> str:
    text = str(text or "")
    return text if len(text) <= n else text[: n - 1] + "\u2026"


def _ends(items: list[Any], n: int = MAX_LIST) -> list[Any]:
    """The first and the latest items, at most `n`."""
    return items if len(items) <= n else items[: n // 3] + items[-(n - n // 3):]


def _skill_events(records: Sequence[dict[str, Any]], wanted: set[str] | None,
                  edge_pos: dict[str, int] | None = None) -> dict[str, dict[str, Any]]:
    """Per skill id (those in `wanted`, or all): born, reinforced, merged_from /
    merged_into, pruned, and "seen": the positions in `records` whose S_q held it (rows
    are made later for the few listed). One pass; each record costs a few dict lookups.
    `edge_pos`, when given, is filled with each record's hyperedge id -> its position
    (for `edge_info`, which then needs no pass of its own)."""
    ev: dict[str, dict[str, Any]] = {}

    def get(sid: str) -> dict[str, Any]:
        e = ev.get(sid)
        if e is None:
            e = ev[sid] = {"reinforced": [], "seen": []}
        return e

    for pos, r in enumerate(records):
        i = int(r.get("index", 0))
        upd = r.get("update")
        if edge_pos is not None and isinstance(upd, dict) and isinstance(upd.get("edge"), str):
            edge_pos[upd["edge"]] = pos
        for sk in (upd.get("skills") or () if isinstance(upd, dict) else ()):
            sid = sk.get("node") if isinstance(sk, dict) else None
            if not isinstance(sid, str) or (wanted is not None and sid not in wanted):
                continue
            e = get(sid)
            if sk.get("dedup"):
                e["reinforced"].append([i, upd.get("edge"), sk.get("cosine"),
                                        bool(sk.get("cross_polarity"))])
            elif "born" not in e:
                e["born"] = {"episode": i, "how": "extracted", "edge": upd.get("edge")}
                e["text"] = [sk.get("name", ""), sk.get("content", ""), sk.get("polarity")]
        for sid in _shown(r.get("retrieved"), wanted):
            e = ev.get(sid)
            (e if e is not None else get(sid))["seen"].append(pos)
        m = r.get("maintenance")
        if m:
            _maintenance_events(m, i, get, wanted)
    return ev


def _shown(retrieved: Any, wanted: set[str] | None) -> Iterable[str]:
    """The skill ids of a record's "retrieved" list (those in `wanted` when given: a set
    intersection, the common case on a large run, costs no Python loop)."""
    if not retrieved or not isinstance(retrieved, list):
        return ()
    if wanted is not None:
        try:
            return wanted.intersection(retrieved)
        except TypeError:  # an unhashable item in a damaged record: the loop below
            pass
    return [x for x in retrieved if type(x) is str and x[:1] == "s"
            and (wanted is None or x in wanted)]


def _maintenance_events(m: dict[str, Any], i: int, get: Any, wanted: set[str] | None) -> None:
    """The merges and prunings of one maintenance cycle (after episode i) into `get`'s
    events."""
    for mg in m.get("merges", []) or []:
        new = mg.get("new_id")
        if isinstance(new, str) and (wanted is None or new in wanted):
            get(new)["born"] = {"episode": i, "how": "merged", "after": i + 1, **{
                k: mg[k] for k in ("a", "b", "a_name", "b_name", "a_content", "b_content",
                                   "similarity", "plain_similarity") if k in mg}}
        for old in (mg.get("a"), mg.get("b")):
            if isinstance(old, str) and (wanted is None or old in wanted):
                get(old)["merged_into"] = {"id": new, "after": i + 1}
    for pn in m.get("pruned_nodes", []) or []:
        if isinstance(pn.get("id"), str) and (wanted is None or pn["id"] in wanted):
            get(pn["id"])["pruned"] = {"after": i + 1, "gamma": pn.get("gamma"),
                                       "nu": pn.get("nu")}


def provenance(records: Sequence[dict[str, Any]], snaps: Sequence[Snapshot],
               wanted: Iterable[str] | None = None, edge_pos: dict[str, int] | None = None
               ) -> dict[str, dict[str, Any]]:
    """Provenance of each skill id in `wanted` (default: every skill any record or
    snapshot knows): {"name", "content", "polarity", "born", "reinforced" (+
    "n_reinforced"), "trajectories" (+ "n_trajectories"), "gamma" ([after, gamma, nu,
    sigma] per snapshot), "retrieved" ([episode, task id, success], + "n_retrieved"),
    "merged_into", "pruned"}; lists are cut to `MAX_LIST` (first and latest).
    `edge_pos`: filled for `edge_info` (`_skill_events`)."""
    want = None if wanted is None else set(wanted)
    ev = _skill_events(records, want, edge_pos)
    known = set(ev)
    for snap in snaps:
        rows = snap.memory.columns("skill").row
        known.update(rows if want is None else (s for s in want if s in rows))
    ids = sorted(known, key=lambda s: int(s[1:]))
    series: dict[str, list[list[Any]]] = {sid: [] for sid in ids}
    latest: dict[str, tuple[int, int]] = {}  # sid -> (snapshot, row) of the last holding it
    for k, snap in enumerate(snaps):  # one vectorised pass per snapshot
        m = snap.memory
        S = m.columns("skill")
        here = [(sid, S.row[sid]) for sid in ids if sid in S.row]
        if not here:
            continue
        rows = np.array([r for _, r in here], dtype=np.int64)
        gam = np.round(m.row_gammas("skill", rows), 3).tolist()
        for (sid, r), g, nu, sg in zip(here, gam, S.nu[rows].tolist(), S.sigma[rows].tolist()):
            series[sid].append([snap.after, g, int(nu), round(float(sg), 3)])
            latest[sid] = (k, r)
    held = _holding(snaps, latest)
    out: dict[str, dict[str, Any]] = {}
    for sid in ids:
        e = ev.get(sid, {"reinforced": [], "seen": []})
        name, content, pol = (e.get("text") or ["", "", None])
        trajectories: list[str] = []
        n_traj = 0
        if sid in latest:
            name, content, pol, trajectories, n_traj = held[sid]
        seen = e["seen"]
        out[sid] = {
            "name": name, "content": _cut(content, 600), "polarity": pol,
            "born": e.get("born"),
            "reinforced": _ends(e["reinforced"]), "n_reinforced": len(e["reinforced"]),
            "trajectories": trajectories, "n_trajectories": n_traj,
            "gamma": series[sid],
            "retrieved": [[int(records[p].get("index", p)), records[p].get("task_id"),
                           bool(records[p].get("success"))] for p in _ends(seen)],
            "n_retrieved": len(seen),
            "merged_into": e.get("merged_into"), "pruned": e.get("pruned"),
        }
    return out


def _holding(snaps: Sequence[Snapshot], latest: dict[str, tuple[int, int]]
             ) -> dict[str, tuple[str, str, str, list[str], int]]:
    """For each skill, from the last snapshot holding it: (name, content, polarity, the
    first and latest hyperedges holding it (`_ends`), how many hold it)."""
    out: dict[str, tuple[str, str, str, list[str], int]] = {}
    by_snap: dict[int, list[tuple[str, int]]] = {}
    for sid, (k, r) in latest.items():
        by_snap.setdefault(k, []).append((sid, r))
    for k, pairs in by_snap.items():
        m = snaps[k].memory
        S, E = m.columns("skill"), m.columns("hyperedge")
        B = m.incidence("skill", "csr")
        for sid, r in pairs:
            a, b = int(B.indptr[r]), int(B.indptr[r + 1])
            cols = _ends(list(range(a, b)))
            out[sid] = (S.text["name"][r], S.text["content"][r],
                        "failure" if S.polarity[r] else "success",
                        [E.ids[j] for j in B.indices[cols].tolist()], b - a)
    return out


def edge_info(records: Sequence[dict[str, Any]], snaps: Sequence[Snapshot],
              ids: Iterable[str], edge_pos: dict[str, int] | None = None
              ) -> dict[str, list[Any]]:
    """{hyperedge id: [episode, task id, success, task, lesson]} for the given ids
    (texts cut to `TEXT_CHARS`; from the last snapshot, where every hyperedge is).
    `edge_pos`: hyperedge id -> record position, as `provenance` fills it (default: one
    pass over the records)."""
    want = set(ids)
    if edge_pos is None:
        edge_pos = {}
        for pos, r in enumerate(records):
            upd = r.get("update")
            eid = upd.get("edge") if isinstance(upd, dict) else None
            if isinstance(eid, str) and eid in want:
                edge_pos[eid] = pos
    episode = {e: (int(records[p].get("index", 0)), records[p].get("task_id"))
               for e, p in edge_pos.items() if e in want}
    out: dict[str, list[Any]] = {}
    if not snaps:
        return out
    E = snaps[-1].memory.columns("hyperedge")
    for eid in sorted(want, key=lambda e: int(e[1:]) if e[1:].isdigit() else 0):
        r = E.row.get(eid)
        if r is None:
            continue
        ep, tid = episode.get(eid, (None, E.meta[r].get("task_id")))
        out[eid] = [ep, tid, bool(E.success[r]), _cut(E.text["task"][r]),
                    _cut(E.text["lesson"][r])]
    return out


def cycles(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """What each maintenance cycle did: {"after" (episodes finished), "pruned",
    "merged" (counts), "pruned_nodes" ([id, kind, polarity, name, gamma, nu]),
    "merges" ({a, b, names and texts before, name and text after, similarity,
    plain_similarity}), "dedups" (insertions deduplicated since the previous cycle:
    [episode, task id, extracted name, into node, cosine, cross polarity]), "sizes"
    after, "seconds", "error", "detailed" (False for records written before pruned
    nodes and merge texts were kept)}; rows cut to `MAX_EVENTS` with counts kept."""
    out: list[dict[str, Any]] = []
    dedups: list[list[Any]] = []
    n_dedups = 0
    for r in records:
        upd = r.get("update") if isinstance(r.get("update"), dict) else {}
        for sk in upd.get("skills", []) or []:
            if sk.get("dedup"):
                n_dedups += 1
                if len(dedups) < MAX_EVENTS:
                    dedups.append([int(r.get("index", 0)), r.get("task_id"),
                                   _cut(sk.get("name", ""), 80), sk.get("node"),
                                   sk.get("cosine"), bool(sk.get("cross_polarity"))])
        m = r.get("maintenance")
        if not m:
            continue
        pruned = [[p.get("id"), p.get("kind"), p.get("polarity"),
                   _cut(p.get("name") or p.get("content", ""), 80), p.get("gamma"), p.get("nu")]
                  for p in (m.get("pruned_nodes") or [])[:MAX_EVENTS]]
        merges = [{k: (_cut(v, 300) if isinstance(v, str) else v) for k, v in mg.items()}
                  for mg in (m.get("merges") or [])[:MAX_EVENTS]]
        out.append({
            "after": int(r.get("index", 0)) + 1, "pruned": m.get("pruned", 0),
            "merged": m.get("merged", 0), "pruned_nodes": pruned, "merges": merges,
            "dedups": dedups, "n_dedups": n_dedups, "sizes": r.get("sizes", {}),
            "seconds": m.get("seconds"), "error": m.get("error"),
            "detailed": "pruned_nodes" in m or not m.get("pruned"),
        })
        dedups, n_dedups = [], 0
    return out
