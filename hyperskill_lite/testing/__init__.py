"""The test stand-ins: servers on loopback that play the parts of the outside world, for
the tests, the notebooks, the benchmarks and the live-smoke and hostile-input scripts.

- `loopback` — `LoopbackServer`, a threaded HTTP server on 127.0.0.1 (a free port), the
  base of the others;
- `scripted_server` — `ScriptedServer`, an OpenAI-compatible chat server that plays a
  script or a responder (``python -m hyperskill_lite.testing.scripted_server`` serves one
  from its own process); `scripted_replies` — the replies and responders it serves;
- `testweb` — `TestWeb`, a hermetic web: pages, attachments, redirects, an endpoint for
  every registered search provider answering with the provider class's `sample_reply`,
  a vision and transcription server; `testweb_files` — the attachments, made by real
  libraries;
- `testweb_hostile` — `HostileWeb` and hostile files: bombs, slow drips, injections.

They ship with the library (a notebook or a user's own test can start them) but nothing
else in the package imports them: a run never depends on a stand-in (tests/test_layers.py
holds the rule). Import them from their modules (this package re-exports nothing, so
``python -m hyperskill_lite.testing.scripted_server`` does not import itself twice).

May import: `core/`, `types.py`, `agent/` (the client's structured outputs and token
counts, the tools' corpus and search providers). Imported by: tests, notebooks,
benchmarks, ``tools/`` only.
"""
