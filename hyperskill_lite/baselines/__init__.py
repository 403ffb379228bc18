"""The ten baseline memory systems of the paper's Table 1, and No Memory.

One module per system (reasoningbank, expel, awm, generative, voyager, dilu, cheatsheet,
memp, memevolve, plugmem, no_memory; and three variants kept for comparison,
generative_agents (Park et al.), cheatsheet_cu (DC-Cu) and memevolve's long-term part),
each a `MemorySystem` with
retrieval count 3 and
the shared encoder (Appendix A), plus what they share: `base.py` (the base class, save /
load, context rendering, `register_baseline`), `store.py` (a growable embedding store),
`ops/` (what their model operations share: the note record, reply checks and the base
`PromptedOps`) and `prompts.py` (an index gathering every registered baseline's prompts,
reply schemas and canned replies from their declarations). Each module holds its own
model operations beside the memory, in ``class XOps(PromptedOps)`` named by the memory
class (``OPS``): each operation declared once (`methods.operations.operation`) with its
prompt template(s), reply schema(s), a canned reply, its prompted implementation and its
simulated one inside SkillWorld, so a baseline with a new model operation is one file
that runs live and in SkillWorld.

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
from hyperskill_lite.baselines.base import BaselineMemory, register_baseline

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
    "BaselineMemory",
    "register_baseline",
    "ReasoningBank",
    "RetrievalSynthesisCheatsheet",
    "Voyager",
]
