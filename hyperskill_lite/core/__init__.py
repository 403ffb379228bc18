"""The paper's core (§3): the hypergraph memory, utility, retrieval, maintenance, phi, files.

===============  =======================================================================
module           what it holds (paper)
===============  =======================================================================
config.py        `HyperSkillConfig`, every hyperparameter (Appendix A); the schedule rule
records.py       `Skill`, `Fragment`, `ContextItem`, `MaintenanceReport`: what the memory takes/returns
utility.py       gamma (Eq. 3), vectorised
embed.py         phi: all-MiniLM-L6-v2 offline, a hashing stand-in, the text cache
store.py         columnar rows and the sparse incidence under the memory
memory.py        `HypergraphMemory`: nodes (Eq. 2), hyperedges, the update with dedup
elements.py      `NodeView`, `EdgeView` (snapshots), `POLARITIES`, the `Retrieved` protocol
edits.py         what maintenance reads and changes in a memory: B_s, merge / remove nodes
retrieval/       dual-path retrieval and co-occurrence ranking (Eqs. 4-9): subtask.py,
                 trajectory.py, ranking.py, context.py; `retrieve` composes them
maintenance.py   pruning (Eq. 11), merges (Eq. 14), the maintenance cycle
cooccurrence.py  W (Eq. 12) and propagation (Eq. 13), the structure merges are read on
io/              atomic, versioned, locked save / load; HIF interchange
views.py         pandas and HyperNetX views
meta.py          how hidden metadata combines when two elements become one
dirlock.py       the directory write lock and fsync used by saves
confined.py      folders read and written without following a link out of them (every
                 command's run folders, memories, checkpoints, export targets)
===============  =======================================================================

May import: numpy and scipy (pandas, HyperNetX, sentence-transformers only inside the
functions that need them). Must not import anything else of `hyperskill_lite`: the rest of
the toolkit builds on the core, never the other way round (tests/test_layers.py).
"""

from hyperskill_lite.core.config import HyperSkillConfig, maintenance_period
from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.elements import EdgeView, NodeView
from hyperskill_lite.core.embed import (
    CachedEncoder,
    Encoder,
    HashingEncoder,
    MiniLMEncoder,
    default_encoder,
    encoder_by_name,
)
from hyperskill_lite.core.io.layout import MemoryFormatError, MemoryLockedError
from hyperskill_lite.core.io.read import load_memory
from hyperskill_lite.core.io.write import memory_lock, save_memory
from hyperskill_lite.core.maintenance import (
    maintain,
    merge,
    merge_candidates,
    prune,
    prune_selection,
)
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import (
    ContextItem,
    Fragment,
    MaintenanceReport,
    Polarity,
    Skill,
    skill_text,
)
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.retrieval.context import format_context
from hyperskill_lite.core.retrieval.ranking import kappa_counts
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.core.retrieval.scores import top_k
from hyperskill_lite.core.template_merger import TemplateMerger
from hyperskill_lite.core.utility import utility
from hyperskill_lite.core.views import edges_frame, nodes_frame, to_hypernetx

__all__ = [
    "HyperSkillConfig",
    "maintenance_period",
    "Encoder",
    "CachedEncoder",
    "HashingEncoder",
    "MiniLMEncoder",
    "default_encoder",
    "encoder_by_name",
    "MemoryFormatError",
    "MemoryLockedError",
    "memory_lock",
    "save_memory",
    "load_memory",
    "TemplateMerger",
    "cooccurrence_matrix",
    "propagate",
    "merge_candidates",
    "prune_selection",
    "prune",
    "merge",
    "maintain",
    "HypergraphMemory",
    "NodeView",
    "EdgeView",
    "merge_meta",
    "Skill",
    "Fragment",
    "skill_text",
    "Polarity",
    "ContextItem",
    "MaintenanceReport",
    "Retrieval",
    "retrieve",
    "top_k",
    "format_context",
    "kappa_counts",
    "utility",
    "nodes_frame",
    "edges_frame",
    "to_hypernetx",
]
