"""HyperSkill for any agent: the memory as an MCP server, and its skills as Agent Skills.

- `shared` (`SharedMemory`): one memory folder shared by many clients and many server
  processes; an append-only journal beside it, checkpoints through the crash-safe save.
- `journal`: that journal's file format and lock; `records`: its records (a learned
  trajectory, a maintenance cycle) and their deterministic application.
- `forget`: skills and trajectories taken out for good; `scopes`: memories kept apart
  inside one folder, and the recall handles.
- `service` (`MemoryService`): what the tools do (recall, learn, forget, maintain,
  explain, skill, stats; the skill-list and health resources); `cycle`: one
  maintenance cycle; `relevance`: recall's relevance floor and its framed context;
  `schemas`: the tools' typed results.
- `models`, `sampling`: the memory's model calls through a configured model, the
  client's own model (MCP sampling), or none.
- `bounds`: client text bounded and framed as data.
- `app`: the MCP server on the official ``mcp`` SDK (stdio, streamable HTTP); `httpd`
  (its socket, bearer tokens, the HTTP app) and `sessions` (bounded HTTP sessions);
  `warmup` (everything loaded before the server reports ready). They need the ``serve``
  extra; imported on use, so the rest of this package works without it.
- `agent_skills`: the skill library written as Agent Skills folders (``SKILL.md``).

``python -m hyperskill_lite serve`` and ``export-skills`` are the commands
(docs/guide/mcp.md).

Not here: the paper's memory itself (core/), the toolkit's own agent (agent/).
"""

from hyperskill_lite.serve.agent_skills import export_skills
from hyperskill_lite.serve.journal import JournalBusy, JournalError
from hyperskill_lite.serve.records import LearnItem, MergeItem
from hyperskill_lite.serve.shared import SharedMemory

__all__ = ["SharedMemory", "LearnItem", "MergeItem", "JournalError", "JournalBusy",
           "export_skills"]
