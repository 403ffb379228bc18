"""hyperskill_lite: HyperSkill's hypergraph skill memory as a compact numpy/scipy library.

The package is laid out by concern (README, "Layout"); dependencies point one way:

- ``core/``       the paper's §3 (memory, utility, retrieval, maintenance, phi, files);
                  numpy and scipy only, imports nothing else of the package;
- ``llm/``        the model client's room: transport, retries, structured outputs,
                  usage, cassettes, the model settings and the server's preflight;
- ``agent/``      the live path on an OpenAI-compatible model: the client, prompts, the
                  agent loop, the tools (``agent/tools/``);
- ``baselines/``  the ten baselines of Table 1 and No Memory;
- ``world/``      SkillWorld, the offline world (its text library is package data);
- ``bench/``      GAIA, WebWalkerQA and xBench loaders, scorers, judges, submissions;
- ``plots/``      plots and HyperNetX drawings;
- ``runner/``     the episode loop: records, resume, checkpoints, summaries, health;
- ``sweep/``      grids of runs from a TOML file, on a local pool, threads or Ray;
- ``course/``     the notebooks' exercise checker, autograder and student copies;
- ``serve/``      the memory as an MCP server for any agent, its skills as Agent Skills;
- ``studio/``     the memory studio: one self-contained HTML page of run folders
                  (``inspect``), co-occurrence beyond chance;
- ``widget/``     the memory in the notebook: ``show(memory or run folder)``, an
                  anywidget drawn by the studio's script, its selection back in Python;
- ``cli/``        ``python -m hyperskill_lite``, one module per command;
- ``methods/``    the memory methods by CLI name: the registry every method registers
                  in (plugins through the ``hyperskill_lite.methods`` entry points) and
                  HyperSkill on the runner's interface;
- at the top: ``types.py`` (the shared vocabulary), ``protocol.py`` (the evaluation
  protocol: task order, frozen memory, self-exclusion), ``launch.py`` (one run from its settings), ``compare.py``
  (the Table-1 comparison; its tables in ``compare_tables.py``),
  ``stats.py`` (paired bootstrap intervals), ``explore.py`` (short runs with knobs and
  an ipywidgets panel), ``logs.py`` (the ``hyperskill_lite`` logger).

This module re-exports the public API. MiniLM, the OpenAI client, pandas and HyperNetX
are imported when used. Start with ``notebooks/00_quickstart.ipynb`` or
``python -m hyperskill_lite demo``.
"""

from hyperskill_lite import _startup  # noqa: F401 - first: Ctrl-C while `python -m` imports
from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools.providers.base import (
    SearchProvider,
    provider_classes,
    register_provider,
)
from hyperskill_lite.agent.tools.settings import ToolSettings
from hyperskill_lite.agent.tools.toolbox import build_toolbox
from hyperskill_lite.bench.submission import write_submission
from hyperskill_lite.compare import compare
from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.cooccurrence import cooccurrence_matrix, propagate
from hyperskill_lite.core.elements import EdgeView, NodeView
from hyperskill_lite.core.embed import (
    Encoder,
    HashingEncoder,
    MiniLMEncoder,
    default_encoder,
    encoder_by_name,
)
from hyperskill_lite.core.io.hif import from_hif, read_hif, to_hif, write_hif
from hyperskill_lite.core.io.layout import MemoryFormatError, MemoryLockedError
from hyperskill_lite.core.io.read import load_memory, verify_memory
from hyperskill_lite.core.io.write import memory_lock, save_memory
from hyperskill_lite.core.maintenance import maintain, merge_candidates
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.meta import merge_meta
from hyperskill_lite.core.records import ContextItem, Fragment, MaintenanceReport, Skill
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.retrieval.context import format_context
from hyperskill_lite.core.retrieval.ranking import kappa_counts
from hyperskill_lite.core.retrieval.result import Retrieval
from hyperskill_lite.core.template_merger import TemplateMerger
from hyperskill_lite.core.utility import utility
from hyperskill_lite.core.views import edges_frame, nodes_frame, to_hypernetx
from hyperskill_lite.course import check
from hyperskill_lite.course.check import Verdict
from hyperskill_lite.course.grade import grade_notebook
from hyperskill_lite.course.student import write_student_copies
from hyperskill_lite.errors import CassetteMiss, LLMError
from hyperskill_lite.explore import Exploration, panel, short_run
from hyperskill_lite.launch import RunSpec, check_server, execute, prepare
from hyperskill_lite.llm.preflight import PreflightError, preflight, preflight_run
from hyperskill_lite.llm.settings import ModelSettings, make_llms
from hyperskill_lite.logs import run_log, setup_logging
from hyperskill_lite.methods.hyperskill import HyperSkillMemory
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps
from hyperskill_lite.methods.registry import MethodSpec, make_method, register_method
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.files import restore_checkpoint
from hyperskill_lite.runner.health import memory_health
from hyperskill_lite.runner.record import EpisodeRecord
from hyperskill_lite.serve.agent_skills import export_skills
from hyperskill_lite.serve.shared import SharedMemory
from hyperskill_lite.stats import bootstrap_ci, paired_differences
from hyperskill_lite.studio import build_studio
from hyperskill_lite.studio.cooccurrence import cooccurrence_significance, permutation_test
from hyperskill_lite.sweep import run_sweep
from hyperskill_lite.sweep.spec import load_sweep
from hyperskill_lite.types import (
    Episode,
    Executor,
    Extraction,
    MemoryContext,
    MemoryLLM,
    MemorySystem,
    Task,
)
from hyperskill_lite.widget.show import show
from hyperskill_lite.world.simllm import SimLLM


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hyperskill_lite")  # pyproject.toml is the one source
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


__version__ = _version()

__all__ = [
    "HyperSkillConfig",
    "HyperSkillMemory",
    "PromptedHyperSkillOps",
    "make_method",
    "MethodSpec",
    "register_method",
    "SearchProvider",
    "LLMError",
    "CassetteMiss",
    "EpisodeRecord",
    "register_provider",
    "provider_classes",
    "AgentExecutor",
    "SimLLM",
    "RunSpec",
    "prepare",
    "check_server",
    "execute",
    "EvalProtocol",
    "ModelSettings",
    "make_llms",
    "preflight",
    "preflight_run",
    "PreflightError",
    "ToolSettings",
    "build_toolbox",
    "write_submission",
    "setup_logging",
    "run_log",
    "paired_differences",
    "bootstrap_ci",
    "memory_health",
    "restore_checkpoint",
    "SharedMemory",
    "export_skills",
    "Verdict",
    "grade_notebook",
    "write_student_copies",
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
    "verify_memory",
    "to_hif",
    "from_hif",
    "write_hif",
    "read_hif",
    "build_studio",
    "show",
    "cooccurrence_significance",
    "permutation_test",
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
