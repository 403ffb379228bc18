"""The statistics SkillWorld's text model is calibrated on, and the measured targets.

Real models do not write each extraction afresh: they re-emit skills they saw, reuse
names and converge on a small vocabulary. The statistic that captures it (measured on
public, real model-written memory by ``tools/calibrate_world.py``, stored with its
provenance in ``hyperskill_lite/world/data/calibration.json``): for each item of a stream, in the
order written, its **maximum cosine to any earlier item** (all-MiniLM-L6-v2), on the
"name: content" text and on the name alone; its quantiles (q10 / q50 / q90), the shares at
or above 0.85 and 0.9 (the paper's delta_merge and delta_dedup), and the rate of exact
name repeats. `stream_stats` computes all of it for any stream, so the same numbers can
be measured on real sources and on SkillWorld's own extractions (tests/test_calibration.py
compares them); `separation` measures whether texts of one latent strategy sit closer to
each other than to any other strategy's.

>>> X = np.eye(3, dtype=np.float32)[[0, 0, 1]]
>>> nearest_earlier(X).round(3).tolist()
[nan, 1.0, 0.0]

Not here: reading the sources (tools/calibrate_world.py), writing texts (simllm.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from hyperskill_lite.world.library import data_dir
from hyperskill_lite.world.library_types import split_sentences

__all__ = [
    "CALIBRATION_FILE",
    "THRESHOLDS",
    "nearest_earlier",
    "summarize_cosines",
    "stream_stats",
    "separation",
    "extraction_stream",
    "compare_to_target",
    "load_calibration",
]

CALIBRATION_FILE = "calibration.json"
THRESHOLDS = (0.85, 0.9)
"""delta_merge and delta_dedup: the shares of items at or above them are reported."""



def nearest_earlier(X: np.ndarray, block: int = 512) -> np.ndarray:
    """For each row i of unit-norm `X` (n, d), max_{j < i} X_i . X_j; NaN for row 0.

    Blockwise over rows, so at most (block, n) cosines exist at once. Returns (n,) float64.
    """
    X = np.asarray(X, dtype=np.float32)
    n = X.shape[0]
    out = np.full(n, np.nan)
    for start in range(1, n, block):
        stop = min(n, start + block)
        sims = X[start:stop] @ X[:stop].T  # (b, stop)
        cols = np.arange(stop)[None, :]
        rows = np.arange(start, stop)[:, None]
        sims = np.where(cols < rows, sims, -np.inf)
        out[start:stop] = sims.max(axis=1)
    return out


def summarize_cosines(values: np.ndarray) -> dict[str, float]:
    """q10 / q50 / q90 and the shares at or above each of `THRESHOLDS` of the finite values.

    >>> summarize_cosines(np.array([np.nan, 0.5, 0.86, 0.95, 1.0]))["ge_0.90"]
    0.5
    """
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if v.size == 0:
        return {"n": 0}
    q10, q50, q90 = np.quantile(v, [0.1, 0.5, 0.9])
    out: dict[str, float] = {"n": int(v.size), "q10": float(q10), "q50": float(q50),
                             "q90": float(q90)}
    for t in THRESHOLDS:
        out[f"ge_{t:.2f}"] = float(np.mean(v >= t))
    return out


def _words(text: str) -> int:
    return len(text.split())


def stream_stats(
    encoder: Any,
    contents: Sequence[str],
    names: Sequence[str] | None = None,
) -> dict[str, Any]:
    """The calibration statistics of one stream of items, in the order written.

    Parameters
    ----------
    encoder : phi (``encode(list[str]) -> (n, d)`` unit rows), all-MiniLM-L6-v2 for the
        published figures.
    contents : the items' contents (a reflection, a mistake, a skill's description).
    names : the items' names, or None when the source has none (then the text is the
        content alone and there are no name statistics); an empty name marks one item
        without a name (its text is its content; it is left out of the name statistics).

    Returns
    -------
    {"items", "text": cosine summary on "name: content", "name": summary on the name alone
    or None, "name_repeat_rate": share of items (after the first) whose name, lower-cased,
    was written before, or None, "name_words" / "content_words" / "content_sentences":
    means}.
    """
    contents = [str(c) for c in contents]
    if names is not None and len(names) != len(contents):
        raise ValueError(f"stream_stats: {len(names)} names for {len(contents)} contents")
    texts = [f"{n}: {c}" if n else c for n, c in zip(names, contents)] if names else contents
    X = encoder.encode(texts)
    out: dict[str, Any] = {
        "items": len(contents),
        "text": summarize_cosines(nearest_earlier(X)),
        "name": None,
        "name_repeat_rate": None,
        "name_words": None,
        "content_words": float(np.mean([_words(c) for c in contents])) if contents else 0.0,
        "content_sentences": float(
            np.mean([len(split_sentences(c)) for c in contents])
        ) if contents else 0.0,
    }
    named = [str(n) for n in names or () if n]
    if named:
        out["name"] = summarize_cosines(nearest_earlier(encoder.encode(named)))
        seen: set[str] = set()
        repeats = []
        for i, n in enumerate(named):
            key = " ".join(n.lower().split())
            if i:
                repeats.append(key in seen)
            seen.add(key)
        out["name_repeat_rate"] = float(np.mean(repeats)) if repeats else 0.0
        out["name_words"] = float(np.mean([_words(n) for n in named]))
    return out


def separation(X: np.ndarray, labels: Sequence[str]) -> dict[str, float]:
    """Do texts of one latent sit closer to each other than to other latents' texts?

    For unit rows `X` (n, d) with latent `labels`: the share of items whose nearest other
    item has the same label (among items whose label occurs twice or more), the median
    cosine of same-label pairs, and the median over items of the cosine to the nearest
    item of another label. Blockwise: no (n, n) array is kept.
    """
    X = np.asarray(X, dtype=np.float32)
    lab = np.asarray(labels, dtype=object)
    n = len(lab)
    if X.shape[0] != n:
        raise ValueError(f"separation: {X.shape[0]} rows for {n} labels")
    same_pairs: list[np.ndarray] = []
    nn_same: list[bool] = []
    nearest_other = np.full(n, np.nan)
    counts = {k: int(np.sum(lab == k)) for k in set(lab.tolist())}
    for start in range(0, n, 512):
        stop = min(n, start + 512)
        sims = X[start:stop] @ X.T  # (b, n)
        for r in range(stop - start):
            i = start + r
            s = sims[r].copy()
            s[i] = -np.inf
            same = lab == lab[i]
            same[i] = False
            if (~same).any():
                other = s.copy()
                other[same] = -np.inf
                nearest_other[i] = other.max()
            if counts[lab[i]] > 1:
                nn_same.append(bool(same[int(np.argmax(s))]))
                later = same.copy()
                later[: i + 1] = False
                same_pairs.append(sims[r][later])
    pairs = np.concatenate(same_pairs) if same_pairs else np.zeros(0)
    return {
        "nn_same_share": float(np.mean(nn_same)) if nn_same else float("nan"),
        "same_pair_median": float(np.median(pairs)) if pairs.size else float("nan"),
        "nearest_other_median": float(np.nanmedian(nearest_other)) if n > 1 else float("nan"),
    }


def extraction_stream(records: Sequence[dict[str, Any]]) -> tuple[list[str], list[str]]:
    """(names, contents) of every skill extracted in a run, in the order written, from
    the records' ``update`` entries (HyperSkill's `end` writes them).

    >>> extraction_stream([{"update": {"skills": [{"name": "A B C", "content": "x."}]}}, {}])
    (['A B C'], ['x.'])
    """
    names, contents = [], []
    for r in records:
        for s in (r.get("update") or {}).get("skills") or ():
            names.append(str(s["name"]))
            contents.append(str(s["content"]))
    return names, contents


def compare_to_target(stats: dict[str, Any], target: dict[str, Any]) -> dict[str, dict[str, float]]:
    """Each calibrated statistic of a stream beside the target: {"text.q50": {"got",
    "want", "diff"}, ..., "name_repeat_rate": {"got", "want", "rel"}}."""
    out: dict[str, dict[str, float]] = {}
    for part in ("text", "name"):
        if target.get(part) and stats.get(part):
            for k in ("q10", "q50", "q90", "ge_0.85", "ge_0.90"):
                got, want = stats[part][k], target[part][k]
                out[f"{part}.{k}"] = {"got": got, "want": want, "diff": got - want}
    if target.get("name_repeat_rate") is not None and stats.get("name_repeat_rate") is not None:
        got, want = stats["name_repeat_rate"], target["name_repeat_rate"]
        out["name_repeat_rate"] = {"got": got, "want": want, "rel": (got - want) / want}
    return out


def load_calibration(path: str | Path | None = None) -> dict[str, Any]:
    """`hyperskill_lite/world/data/calibration.json` (or `path`), checked for its format line."""
    if path is None:
        path = data_dir() / CALIBRATION_FILE
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(
            f"SkillWorld calibration file missing: {path} (tools/calibrate_world.py writes it)"
        )
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not valid JSON ({exc})") from exc
    if not isinstance(doc, dict) or doc.get("format") != "skillworld-calibration-1":
        raise ValueError(f"{path}: not a SkillWorld calibration file (format line missing)")
    return doc
