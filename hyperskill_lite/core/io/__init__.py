"""Saving and loading a HypergraphMemory: `save_memory(memory, path)`, `load_memory(path)`.

A saved memory is a directory in a columnar format (version 3):

==============================  ===========================================================
file                            what it holds
==============================  ===========================================================
``manifest.json``               format tag, version, encoder name and dim, config, id
                                counters, T_min / T_max, row counts, the embedding dtype,
                                and the size and checksum of every other file
``{u,s,e}_emb.npy``             embeddings of the live subtask nodes, skill nodes and
                                hyperedges, (n, d) float32 (or float16, ``dtype=``)
``{u,s,e}_rows.npy``            one structured row per element: the id's number, sigma,
                                nu, T_bar (Eq. 3 inputs), and polarity / success, steps,
                                calls
``inc_u.npy``, ``inc_s.npy``    memberships as (m, 2) int64 (node index, hyperedge index),
                                sorted by hyperedge
``text.json``                   texts as one list per column, and the non-empty meta dicts
==============================  ===========================================================

`load_memory` reads each file once (on POSIX it maps it copy-on-write, so the pages come
from the page cache without a second copy; see `_read_checked`), checks its checksum,
parses the arrays in place and validates the columns in one vectorised pass; nothing is
re-embedded. The garbage collector is paused while the id, text and meta lists are built.
``mmap=True`` maps the embeddings read-only without touching them (their checksums are
not checked: `verify_memory` does that). Version 2 directories (the same files, with the
older word-sum checksums) and version 1 directories (one JSON record per element) still
load; saving one again writes version 3.

Checksums: every file carries an XXH3-128 hash (the xxhash package), a real hash: any
change of the bytes, two swapped words included, changes it, at memory speed (0.04 s for
656 MB on the 2-core machine, where BLAKE2b takes 0.8 s and SHA-256 0.67 s). Version 2's
64-bit word sums (even and odd words summed apart) missed a swap of two words of the same
parity; they are still verified when a version 2 memory is loaded.

Crash safety: `save_memory` writes into a sibling `<dir>.tmp` (every file fsynced, the
manifest last, then the directory itself), fsyncs the parent, then swaps it in by renames
(old -> `<dir>.old`, tmp -> `<dir>`, parent fsynced after each rename, delete old). A
process killed at any instant (SIGKILL included) leaves either the previous or the new
complete memory: `load_memory` takes `<dir>`, or when a crash came between the renames,
the complete `<dir>.tmp` or `<dir>.old`; the next save first puts that copy back.

Concurrency: `save_memory` holds the directory's write lock (`memory_lock`, a `flock` on
the sibling `<dir>.lock`, dirlock.py), so a second process saving the same directory at
once gets `MemoryLockedError` naming the directory and the holder's pid. `load_memory`
takes no lock: it reads one complete copy, or fails clearly if a save swapped copies
mid-read.

`load_memory` checks everything and names the file and the problem in a
`MemoryFormatError` (missing, truncated, checksum, foreign, newer version, dangling or
duplicate ids, malformed columns).

The package, one concern a module: `layout` (file names, row dtypes, errors), `checksums`,
`state` (the pure converters to and from columns), `legacy` (format 1), `read` (load,
verify, recovery), `write` (save, the lock, fault injection for the crash tests), `hif`
(the memory in HIF, the Hypergraph Interchange Format HyperNetX, XGI and hypergraphx read:
`to_hif` / `from_hif`, `write_hif` / `read_hif`).

Not here: the memory's logic (memory.py), pandas / HyperNetX views (views.py), plotting
(plots/), run checkpoints and logs (the runner).
"""

from hyperskill_lite.core.io.checksums import checksum_matches, file_checksum, wordsum_checksum
from hyperskill_lite.core.io.hif import from_hif, read_hif, to_hif, write_hif
from hyperskill_lite.core.io.layout import (
    _BLOCK,  # noqa: F401 (tests, benchmarks)
    ARRAY_FILES,
    DATA_FILES,
    DATA_FILES_V1,
    DTYPES,
    EMB_FILES,
    FORMAT,
    KINDS,
    MANIFEST,
    ROW_DTYPES,
    TEXT,
    TEXT_COLUMNS,
    VERSION,
    MemoryFormatError,
    MemoryLockedError,
)
from hyperskill_lite.core.io.legacy import _from_records_v1  # noqa: F401 (benchmarks)
from hyperskill_lite.core.io.read import load_memory, verify_memory
from hyperskill_lite.core.io.state import from_state, to_state
from hyperskill_lite.core.io.write import memory_lock, save_memory

__all__ = [
    "MemoryFormatError",
    "MemoryLockedError",
    "memory_lock",
    "FORMAT",
    "VERSION",
    "save_memory",
    "load_memory",
    "verify_memory",
    "file_checksum",
    "wordsum_checksum",
    "checksum_matches",
    "to_state",
    "from_state",
    "to_hif",
    "from_hif",
    "write_hif",
    "read_hif",
    "MANIFEST",
    "DATA_FILES",
    "DATA_FILES_V1",
    "ARRAY_FILES",
    "EMB_FILES",
    "TEXT",
    "KINDS",
    "DTYPES",
    "ROW_DTYPES",
    "TEXT_COLUMNS",
]
