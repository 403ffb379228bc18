"""hyperskill_lite: HyperSkill's hypergraph skill memory as a compact numpy/scipy library.

The package is laid out by concern (README, "Layout"); dependencies point one way:

- ``core/``       the paper's §3 (memory, utility, retrieval, maintenance, phi, files);
                  numpy and scipy only, imports nothing else of the package;
- ``agent/``      the live path on an OpenAI-compatible model;
- ``baselines/``  the ten baselines of Table 1 and No Memory;
- ``world/``      SkillWorld, the offline world;
- ``bench/``      GAIA, WebWalkerQA and xBench loaders, scorers and judges;
- ``plots/``      plots and HyperNetX drawings;
- ``sweep/``      grids of runs from a TOML file, on a local pool or on Ray;
- at the top: ``types.py`` (the shared vocabulary), ``methods.py`` (memory systems by
  CLI name), ``runner.py``, ``compare.py``, ``explore.py`` (short runs with knobs and
  an ipywidgets panel), ``course/`` (the notebooks' exercise checker, autograder and student copies), ``cli.py``.

This module re-exports the public API. MiniLM, the OpenAI client, pandas and HyperNetX
are imported when used. Start with ``notebooks/00_quickstart.ipynb`` or
``python -m hyperskill_lite demo``.
"""

from hyperskill_lite.agent.tools import ToolSettings, build_toolbox
from hyperskill_lite.compare import compare
from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import (
    Encoder,
    HashingEncoder,
    MiniLMEncoder,
    default_encoder,
    encoder_by_name,
)
from hyperskill_lite.core.io import (
    MemoryFormatError,
    MemoryLockedError,
    load_memory,
    memory_lock,
    save_memory,
)
from hyperskill_lite.core.maintenance import (
    TemplateMerger,
    cooccurrence_matrix,
    maintain,
    merge_candidates,
    propagate,
)
from hyperskill_lite.core.memory import EdgeView, HypergraphMemory, NodeView
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.retrieval import Retrieval, format_context, kappa_counts, retrieve
from hyperskill_lite.core.utility import utility
from hyperskill_lite.core.views import edges_frame, nodes_frame, to_hypernetx
from hyperskill_lite.course import check
from hyperskill_lite.explore import Exploration, panel, short_run
from hyperskill_lite.launch import RunSpec, execute, prepare
from hyperskill_lite.sweep import load_sweep, run_sweep
from hyperskill_lite.types import (
    ContextItem,
    Episode,
    Executor,
    Extraction,
    Fragment,
    MaintenanceReport,
    MemoryContext,
    MemoryLLM,
    MemorySystem,
    Skill,
    Task,
)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hyperskill_lite")  # pyproject.toml is the one source
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__version__ = _version()

__all__ = [
    "HyperSkillConfig",
    "RunSpec",
    "prepare",
    "execute",
    "ToolSettings",
    "build_toolbox",
    "compare",
    "check",
    "Encoder",
    "HashingEncoder",
    "MiniLMEncoder",
    "default_encoder",
    "encoder_by_name",
    "HypergraphMemory",
    "NodeView",
    "EdgeView",
    "merge_meta",
    "Retrieval",
    "retrieve",
    "format_context",
    "kappa_counts",
    "utility",
    "TemplateMerger",
    "cooccurrence_matrix",
    "propagate",
    "merge_candidates",
    "maintain",
    "MemoryFormatError",
    "MemoryLockedError",
    "memory_lock",
    "save_memory",
    "load_memory",
    "nodes_frame",
    "edges_frame",
    "to_hypernetx",
    "short_run",
    "panel",
    "Exploration",
    "run_sweep",
    "load_sweep",
    "Task",
    "Skill",
    "Fragment",
    "Extraction",
    "Episode",
    "ContextItem",
    "MemoryContext",
    "MaintenanceReport",
    "MemorySystem",
    "MemoryLLM",
    "Executor",
]
