"""Running a memory system over tasks: the resumable episode loop, its run folder, the
memory's health and the Table-1 summary of a run.

- ``loop.py``: `run_episodes` — retrieve, act, judge, learn, maintain; recorded,
  resumable after SIGKILL, under an evaluation protocol (protocol.py: task order, passes,
  online or frozen memory, own-task exclusion; the paper's by default);
- ``episode.py``: one episode as one record, and what a failure costs (one episode,
  never the run);
- ``files.py``: the run folder (records, state, run.json, checkpoints, the episode in
  flight), `RunError` (every one says how to recover), `StorageError` and
  `restore_checkpoint`;
- ``identity.py``: whose memory a saved state holds (method, encoder, configuration),
  checked before a resume;
- ``health.py``: what a memory did (inserted, deduplicated, merged, pruned, how often
  its retrieval was non-empty) and the alarm when it stored nothing;
- ``summary.py``: `summarize` and `summary_table`.

``python -m hyperskill_lite.runner restore OUT [CHECKPOINT]`` puts a damaged run folder
back to a checkpoint (`restore_checkpoint`).

May import: core, types, agent, protocol. Not here: building methods, worlds or models
(launch.py, cli/), plotting (plots/).
"""

import importlib
import warnings
from typing import Any

from hyperskill_lite.runner.episode import ERRORS_RECORDED
from hyperskill_lite.runner.files import (
    RunError,
    StorageError,
    kept_text,
    read_records,
    restore_checkpoint,
    settings_problem,
)
from hyperskill_lite.runner.health import memory_health
from hyperskill_lite.runner.loop import resume_problem, run_episodes, run_settings
from hyperskill_lite.runner.summary import (
    health_line,
    maintenance_seconds,
    summarize,
    summary_table,
)

__all__ = [
    "RunError",
    "StorageError",
    "ERRORS_RECORDED",
    "run_settings",
    "resume_problem",
    "settings_problem",
    "kept_text",
    "run_episodes",
    "read_records",
    "restore_checkpoint",
    "summarize",
    "summary_table",
    "health_line",
    "memory_health",
    "maintenance_seconds",
]


_MOVED = {"shuffled": "hyperskill_lite.protocol"}
"""Names the notebooks of version 0.2.0 imported from here, now read from their home
(protocol.py) with a DeprecationWarning."""


def __getattr__(name: str) -> Any:
    if name in _MOVED:
        warnings.warn(f"hyperskill_lite.runner.{name} is deprecated: import it from "
                      f"{_MOVED[name]}", DeprecationWarning, stacklevel=2)
        return getattr(importlib.import_module(_MOVED[name]), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
