"""The ten baseline memory systems of the paper's Table 1, and No Memory.

One module per system (reasoningbank, expel, awm, generative, voyager, dilu, cheatsheet,
memp, memevolve, plugmem, no_memory; and three variants kept for comparison,
generative_agents (Park et al.), cheatsheet_cu (DC-Cu) and memevolve's long-term part),
each a `MemorySystem` with
retrieval count 3 and
the shared encoder (Appendix A), plus what they share: `base.py` (the base class, save /
load, context rendering), `store.py` (a growable embedding store), `ops/` (their model
operations: the note records, the protocol, reply checks and the base `PromptedOps`) and
`prompts.py` (an index gathering every baseline's prompts, reply schemas and canned
replies). Each module holds its own prompted operations beside the memory: prompt
template(s), reply schema(s), a canned reply and ``class XOps(PromptedOps)``, named by the
memory class (``OPS``), so a baseline with a new model operation is one file.
`PromptedBaselineOps` (`ops.every_baseline_ops()`) composes every built-in baseline's
operations into one class (what ``baseline_ops(llm)`` gives a chat client). The offline
implementations of the same operations are SkillWorld's (world/baseline_ops.py,
world/plugmem_ops.py).

Each module registers its method at its end (`base.register_baseline`, the registry of
methods/registry.py); the imports below run those registrations in the order the
registry derives `BASELINES` and `VARIANTS` from: Table 1's order (the paper's), the
variants after the baseline they vary where it matters (memevolve's long-term part last).

May import: `core/`, `types.py`, `agent/` (prompt filling and reply cleaning),
methods/registry.py. Must not import: `world/`, `bench/`, `plots/`, the runner, the rest
of `methods/` and the CLI.
"""

# isort: off
from hyperskill_lite.baselines.no_memory import NoMemory
from hyperskill_lite.baselines.reasoningbank import ReasoningBank
from hyperskill_lite.baselines.expel import ExpeL
from hyperskill_lite.baselines.awm import AgentWorkflowMemory
from hyperskill_lite.baselines.generative import GenerativeMemory
from hyperskill_lite.baselines.voyager import Voyager
from hyperskill_lite.baselines.dilu import DiLu
from hyperskill_lite.baselines.cheatsheet import RetrievalSynthesisCheatsheet
from hyperskill_lite.baselines.memp import MemP
from hyperskill_lite.baselines.generative_agents import GenerativeAgents
from hyperskill_lite.baselines.cheatsheet_cu import CumulativeCheatsheet
from hyperskill_lite.baselines.memevolve import LightweightLongTerm, LightweightMemory
from hyperskill_lite.baselines.plugmem import PlugMem
# isort: on

from hyperskill_lite.baselines.ops.prompted import every_baseline_ops

PromptedBaselineOps = every_baseline_ops()
"""Every built-in baseline's operations over a prompted chat model in one class (each
baseline's own class composed, with all their reply schemas): what ``baseline_ops(llm)``
gives a chat client, and what world/meter.py asks for the prompt of any baseline
operation."""


__all__ = [
    "AgentWorkflowMemory",
    "CumulativeCheatsheet",
    "DiLu",
    "ExpeL",
    "GenerativeAgents",
    "GenerativeMemory",
    "LightweightLongTerm",
    "LightweightMemory",
    "MemP",
    "NoMemory",
    "PlugMem",
    "PromptedBaselineOps",
    "ReasoningBank",
    "RetrievalSynthesisCheatsheet",
    "Voyager",
]
