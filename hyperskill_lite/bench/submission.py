"""GAIA leaderboard submissions: a test-split run's answers as ``submission.jsonl``.

GAIA's test split withholds its answers ("?"), so a run over it is never judged here
(`judges.NoJudge`); its answers go to the leaderboard instead, one JSON object a line:
``{"task_id", "model_answer", "reasoning_trace"}`` (the format of the GAIA leaderboard
space's submission form). `submission_rows` builds them from a run's episode records, in
task order, and `write_submission` writes them atomically. An episode without an answer
is submitted with an empty ``model_answer`` (the leaderboard then counts it wrong), so
the file always holds every task of the run.

>>> rows = submission_rows([{"task_id": "t1", "answer": "42",
...     "judge": {"kind": "none", "reasoning_trace": "Step 1 ..."}}])
>>> rows
[{'task_id': 't1', 'model_answer': '42', 'reasoning_trace': 'Step 1 ...'}]

Not here: running the episodes (runner/), judging (judges.py).
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["SUBMISSION", "submission_rows", "write_submission"]

SUBMISSION = "submission.jsonl"
"""The file name a test-split run writes in its folder."""


def _trace(record: dict[str, Any]) -> str:
    for value in (record.get("reasoning_trace"), record.get("trajectory"),
                  (record.get("judge") or {}).get("reasoning_trace")):
        if isinstance(value, str) and value:
            return value
    return ""


def submission_rows(records: Iterable[dict[str, Any]]) -> list[dict[str, str]]:
    """One submission row per episode record: task id, answer ("" when none) and the
    reasoning trace (the record's ``reasoning_trace`` or ``trajectory``, else the one
    `NoJudge` kept in its verdict)."""
    rows = []
    for r in records:
        answer = r.get("answer")
        rows.append({"task_id": str(r["task_id"]),
                     "model_answer": "" if answer is None else str(answer),
                     "reasoning_trace": _trace(r)})
    return rows


def write_submission(records: Iterable[dict[str, Any]], path: str | Path) -> Path:
    """Write ``submission.jsonl`` (or `path` itself when it names a file ending in
    ``.jsonl``) from a run's records, atomically (a temporary file renamed over it).
    Returns the path written."""
    path = Path(path)
    if path.suffix != ".jsonl":
        path = path / SUBMISSION
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for row in submission_rows(records):
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    return path
