"""The model client's transport room: what talks to an OpenAI-compatible server, with no
knowledge of the agent or of any memory method.

- wire.py: one chat-completions request over httpx or the openai client, its URL and TLS;
- retry.py: exponential backoff with jitter and Retry-After;
- structured.py: structured outputs (JSON schema, json_object, none) and their probe;
- usage.py: token usage per role and operation;
- tokens.py: token counts for prompts the server does not count;
- cassette.py: record a live run's model and tool calls, replay them offline.

The error family these raise is in errors.py (importable without this package). The client
class that composes them with HyperSkill's prompted operations, `PromptedLLM`, is in
agent/llm.py; the model settings and the preflight are in agent/settings.py and
agent/preflight.py.
"""
