"""The memory folder's format: version, file names, the structured row of each
kind, the text columns, and the errors every reader and writer raises.

Not here: reading (read.py) or writing (write.py) the files.
"""

from __future__ import annotations

import numpy as np

FORMAT = "hyperskill_lite.memory"
VERSION = 3
MANIFEST = "manifest.json"
KINDS = ("u", "s", "e")  # subtask nodes, skill nodes, hyperedges
TEXT = "text.json"
EMB_FILES = tuple(f"{k}_emb.npy" for k in KINDS)
ARRAY_FILES = (*EMB_FILES, *(f"{k}_rows.npy" for k in KINDS), "inc_u.npy", "inc_s.npy")
DATA_FILES = (*ARRAY_FILES, TEXT)
DATA_FILES_V1 = ("nodes.json", "edges.json", "node_emb.npy", "edge_emb.npy")
DTYPES = ("float32", "float16")

_STATS = [("num", "<i8"), ("sigma", "<f8"), ("nu", "<i8"), ("tbar", "<f8")]
ROW_DTYPES = {
    "u": np.dtype(_STATS),
    "s": np.dtype([*_STATS, ("polarity", "i1")]),
    "e": np.dtype([*_STATS, ("success", "?"), ("steps", "<i8"), ("calls", "<i8")]),
}
"""The structured row of each kind in ``{k}_rows.npy``."""
TEXT_COLUMNS = {"u": ("content",), "s": ("name", "content"), "e": ("task", "lesson")}
_EXTRA = {"u": (), "s": ("polarity",), "e": ("success", "steps", "calls")}
_STORE = {"u": "_sub", "s": "_skl", "e": "_edg"}
_UNIT_TOL = {"float32": 1e-3, "float16": 4e-3}
_BLOCK = 1024  # words per row of the checksum's reduction (even, so columns keep parity)


class MemoryFormatError(ValueError):
    """A saved memory is missing, truncated, foreign, newer or inconsistent; the message
    names the file and the problem."""


class MemoryLockedError(MemoryFormatError):
    """Another process (or thread) is saving this memory directory right now; the message
    names the directory and the holder's pid. A subclass of MemoryFormatError so one
    ``except`` clause covers every refusal of this module."""
