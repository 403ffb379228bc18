"""The model client's transport room: what talks to an OpenAI-compatible server, with no
knowledge of the agent or of any memory method.

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

The error family these raise is in errors.py (importable without this package). The client
class that composes them with HyperSkill's prompted operations, `PromptedLLM`, is in
agent/llm.py; settings.py and preflight.py import it from there (this package's one
import of agent/, until the client class joins it). The tools' share of the preflight
(the sandbox, the media capabilities the tasks need) is in agent/tools/preflight.py.
"""
