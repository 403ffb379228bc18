"""Secrets never reach the model: a live run through the CLI (`run --tasks`, the scripted
model server on loopback recording every request) whose agent tries to read a key in the
user's home, a ``.env`` beside the task file, a file outside the data folder, the
process's own environment and command line, and a ``file://`` URL: every attempt is one
tool error, and no request the server received holds any of the secrets.

The python tool is tried too (``--sandbox process``, the weaker isolation): its code prints
its whole environment and reads ``~/.ssh/id_rsa``, and, where the run is root (whose
process mode hides the host's /tmp, /root and /home), the key by its absolute path. Its
environment is an allowlist, so the database password never shows; a regular user's
process mode can read that user's files (docs/guide/guarantees.md), so the absolute path
is tried only as root. Not here: the sandbox itself (tests/test_sandbox.py)."""

from __future__ import annotations

import json
import os

from hyperskill_lite.agent.framing import unframe
from hyperskill_lite.cli import main
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer

SSH_KEY = "SSH-KEY-SECRET-d41f"
DOTENV = "DOTENV-SECRET-77b2"
OUTSIDE = "OUTSIDE-SECRET-19ce"
DB_PASSWORD = "DB-PASSWORD-SECRET-5e0a"


def test_no_secret_reaches_the_model_server(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text(f"-----BEGIN OPENSSH PRIVATE KEY-----\n{SSH_KEY}\n")
    outside = tmp_path / "elsewhere" / "notes.txt"
    outside.parent.mkdir()
    outside.write_text(OUTSIDE)
    data = tmp_path / "data"
    data.mkdir()
    (data / ".env").write_text(f"API_TOKEN={DOTENV}\n")
    (data / "table.csv").write_text("fruit,tonnes\napples,2650\n")
    (data / "tasks.jsonl").write_text(json.dumps(
        {"id": "t1", "question": "How many tonnes of apples?", "answer": "2650",
         "meta": {"file": "table.csv"}}) + "\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("DATABASE_URL", f"postgres://app:{DB_PASSWORD}@db.internal/prod")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("HYPERSKILL_CACHE", "off")
    attempts = [("inspect_file_as_text", {"path": "~/.ssh/id_rsa"}),
                ("inspect_file_as_text", {"path": str(home / ".ssh" / "id_rsa")}),
                ("inspect_file_as_text", {"path": ".env"}),
                ("inspect_file_as_text", {"path": str(outside)}),
                ("inspect_file_as_text", {"path": "../elsewhere/notes.txt"}),
                ("inspect_file_as_text", {"path": "/proc/self/environ"}),
                ("inspect_file_as_text", {"path": "/proc/self/cmdline"}),
                ("crawl_page", {"url": f"file://{home}/.ssh/id_rsa"})]
    code = ("import os, pathlib\nprint(dict(os.environ))\n"
            "p = pathlib.Path('~/.ssh/id_rsa').expanduser()\n"
            "print(p.read_text() if p.exists() else 'no key at ' + str(p))\n")
    if os.geteuid() == 0:
        code += (f"q = pathlib.Path({str(home / '.ssh' / 'id_rsa')!r})\n"
                 "print(q.read_text() if q.exists() else 'not visible: ' + str(q))\n")
    python = [("python", {"code": code})]
    attempts = attempts + python + [("inspect_file_as_text", {"path": "table.csv"})]

    calls = iter(range(100))

    def agent(request: dict):
        msgs = request["messages"]
        if msgs[0].get("role") != "system":
            return prompt_aware_responder(request)
        step = next(calls)
        if step < len(attempts):
            return tool_call(*attempts[step], id=f"call{step}")
        return text("FINAL ANSWER: 2650")

    with ScriptedServer(responder=agent, model="m") as srv:
        rc = main(["run", "--backend", "openai", "--base-url", srv.base_url, "--model", "m",
                   "--tasks", str(data / "tasks.jsonl"), "--encoder", "hashing",
                   "--no-progress", "--search", "none", "--protocol", "tools",
                   "--sandbox", "process", "--max-steps", "12", "--out", str(tmp_path / "run")])
        requests = list(srv.requests) + list(srv.probes)
    assert rc == 0
    seen = json.dumps(requests)
    for secret in (SSH_KEY, DOTENV, OUTSIDE, DB_PASSWORD):
        assert secret not in seen, secret
    results = {m["tool_call_id"]: unframe(m["content"]) for r in srv.requests
               for m in r["messages"] if m.get("role") == "tool"}
    assert len(results) == len(attempts)
    errors = [results[f"call{i}"] for i in range(len(attempts) - 2)]
    assert all(e.startswith("Error:") and "\n" not in e for e in errors), errors
    ran = results[f"call{len(attempts) - 2}"]  # the python tool ran, and saw no secret
    assert "no key at" in ran and "DATABASE_URL" not in ran, ran
    assert "apples,2650" in results[f"call{len(attempts) - 1}"]
    record = json.loads((tmp_path / "run" / "episodes.jsonl").read_text().splitlines()[0])
    assert record["answer"] == "2650"
