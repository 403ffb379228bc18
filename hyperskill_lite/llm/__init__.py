"""The model client's room: what talks to an OpenAI-compatible server, with no knowledge
of the agent or of any memory method.

- client.py: `PromptedLLM`, the client (chat, chat_json with re-asks, retries, structured
  outputs, usage, the cassette), `ChatReply`, `DEFAULT_TIMEOUT`;
- replies.py: the JSON in a reply (`extract_json`, `strip_thinking`, `scrub_surrogates`);
- text.py: prompt helpers every operation shares (`fill`, `clip_middle`, `REASK`);
- wire.py: one chat-completions request over httpx or the openai client, its URL and TLS;
- retry.py: exponential backoff with jitter and Retry-After;
- structured.py: structured outputs (JSON schema, json_object, none) and their probe;
- usage.py: token usage per role and operation;
- tokens.py: token counts for prompts the server does not count;
- cassette.py: record a live run's model and tool calls, replay them offline;
- settings.py: `ModelSettings` (a live run's sampling, transport and GT judge) and
  `make_llms`, the agent's and the judge's clients built from them;
- preflight.py: the model server checked before a live run (key, reachable, model
  listed, structured outputs, tool calls, vision, transcription) and its report.

The error family these raise is in errors.py (importable without this package). What the
client is asked lives beside each asker: HyperSkill's prompted operations in
methods/hyperskill/ops.py, the baselines' in their modules (baselines/), the judges in
bench/judges.py. The tools' share of the preflight (the sandbox, the media capabilities
the tasks need) is in agent/tools/preflight.py.
"""

from hyperskill_lite.llm.client import DEFAULT_TIMEOUT, PromptedLLM
from hyperskill_lite.llm.wire import ChatReply

__all__ = ["PromptedLLM", "ChatReply", "DEFAULT_TIMEOUT"]
