"""The live path: an agent on a real model behind an OpenAI-compatible API.

`prompts.py` (the agent's own prompts and the bounded strings reply schemas use),
`replies.py` (text cleaning every reply check shares), `framing.py` (untrusted text
quoted as data), `loop.py` (`AgentExecutor`: the tool-calling loop, window w = 3),
`actions.py` (a reply read as its answer or tool call, the step it makes),
`tools/` (the agent's tools, one concern per module: search providers, pages over HTTP,
files and media, the python sandbox, the toolbox). The model client (`PromptedLLM`,
cassettes, token estimates) is `hyperskill_lite.llm`, its errors `hyperskill_lite.errors`; HyperSkill's
prompted operations sit beside the method (`hyperskill_lite.methods.hyperskill`). The stand-ins tests use (the scripted
model server, the test web) live in `hyperskill_lite.testing`.

May import: `core/`, `types.py`. Must not import: `baselines/`, `world/`, `bench/`,
`plots/`, or the top-level runner, registry and CLI.
"""

from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools.toolbox import Toolbox

__all__ = [
    "AgentExecutor",
    "Toolbox",
]
