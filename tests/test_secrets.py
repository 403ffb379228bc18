"""Secrets (issue 11): with sentinel keys in the environment, no file a run writes
(records, state, memory checkpoints, cassettes), nothing it prints, no exception it
raises and no committed notebook contains a key; the python tool runs without them.

A live CLI run records against the scripted server (which demands the key), searches
through a local search API (which demands the search key) and runs python code that
prints its whole environment; then everything written is searched for the sentinels.
"""

from __future__ import annotations

import json
import os
import re
import threading
import traceback
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from hyperskill_lite.agent.tools import HttpSearch, PythonSandbox, Toolbox
from hyperskill_lite.cli import main
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import save_memory
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.errors import LLMError
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.methods.hyperskill.ops import PromptedHyperSkillOps as ops
from hyperskill_lite.runner import read_records
from hyperskill_lite.testing.scripted_replies import error, prompt_aware_responder, text
from hyperskill_lite.testing.scripted_replies import tool_call as call
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import Task

ROOT = Path(__file__).resolve().parents[1]
API_KEY = "sk-test-SENTINEL-api-0123456789abcdef"
SEARCH_KEY = "srch-SENTINEL-search-0123456789"
HF_TOKEN = "hf_SENTINEL_token_0123456789abc"
SENTINELS = (API_KEY, SEARCH_KEY, HF_TOKEN)
KEY_LIKE = re.compile(rb"sk-[A-Za-z0-9]{20,}")
ENV_DUMP = "import os; print(dict(os.environ))"


def assert_no_secret(blob: bytes | str, where: str) -> None:
    data = blob.encode("utf-8", "backslashreplace") if isinstance(blob, str) else blob
    for s in SENTINELS:
        assert s.encode() not in data, f"a key leaked into {where}"
        assert s[4:20].encode() not in data, f"part of a key leaked into {where}"
    assert not KEY_LIKE.search(data), f"something like an OpenAI key is in {where}"


def assert_tree_clean(root: Path) -> int:
    n = 0
    for f in sorted(root.rglob("*")):
        if f.is_file():
            assert_no_secret(f.read_bytes(), str(f))
            n += 1
    return n


@pytest.fixture()
def secret_env(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", API_KEY)
    monkeypatch.setenv("HYPERSKILL_SEARCH_KEY", SEARCH_KEY)
    monkeypatch.setenv("HF_TOKEN", HF_TOKEN)
    for var in ("OPENAI_BASE_URL", "HYPERSKILL_MODEL", "HYPERSKILL_SEARCH_URL"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


class _Search(BaseHTTPRequestHandler):
    """A search API that answers only with the right key (and says what it saw)."""

    def log_message(self, *a):
        return

    def do_GET(self):
        ok = self.headers.get("Authorization") == f"Bearer {SEARCH_KEY}"
        hits = [
            {
                "title": "Multiplication table",
                "url": "https://math.example/6x7",
                "snippet": "Six times seven is forty-two.",
            }
        ]
        body = json.dumps({"results": hits} if ok else {"error": "bad key"}).encode()
        self.send_response(200 if ok else 401)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture()
def search_api():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Search)
    t = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True)
    t.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/search"
    httpd.shutdown()
    httpd.server_close()


def agent_then_memory(request: dict):
    """Search, then dump the environment with python, then answer; memory operations
    get the library's stand-in replies."""
    msgs = request["messages"]
    if msgs[0].get("role") != "system":
        return prompt_aware_responder(request)
    tool_results = [m for m in msgs if m.get("role") == "tool"]
    if not tool_results:
        return call("web_search", {"query": "six times seven"})
    if len(tool_results) == 1:
        return call("python", {"code": ENV_DUMP})
    return text("FINAL ANSWER: 42")


def test_live_run_with_record_leaks_no_key(tmp_path, secret_env, search_api, capsys):
    secret_env.setenv("HYPERSKILL_SEARCH_URL", search_api)
    # the toolkit's caches (the search results) go here, not into the user's cache folder
    secret_env.setenv("HYPERSKILL_CACHE", str(tmp_path / "cache"))
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(
        "".join(
            json.dumps({"id": f"t{i}", "question": f"Six times seven ({i})?", "answer": "42"})
            + "\n"
            for i in range(3)
        )
    )
    cassette = tmp_path / "cassette.jsonl"
    args = [
        "run",
        "--sandbox",
        "process",
        "--backend",
        "openai",
        "--model",
        "scripted",
        "--tasks",
        str(tasks),
        "--method",
        "hyperskill",
        "--encoder",
        "hashing",
        "--no-progress",
    ]
    with ScriptedServer(agent_then_memory, api_key=API_KEY, model="scripted") as server:
        rc = main(
            [
                *args,
                "--base-url",
                server.base_url,
                "--out",
                str(tmp_path / "live"),
                "--record",
                str(cassette),
            ]
        )
        requests = json.dumps(server.requests)
    assert rc == 0
    records = read_records(tmp_path / "live")
    assert len(records) == 3 and all(r["error"] is None for r in records)
    assert all(r["success"] for r in records)  # the search and python steps did run
    lines = [json.loads(x) for x in cassette.read_text().splitlines()[1:]]
    dumps = [x["response"] for x in lines if x["kind"] == "tool" and x["op"] == "python"]
    assert len(dumps) == 3 and all("PATH" in d for d in dumps)  # the environment was printed
    searches = [x["response"] for x in lines if x["kind"] == "tool" and x["op"] == "web_search"]
    assert searches and all("forty-two" in s for s in searches)  # the search key worked
    assert_no_secret(requests, "the requests sent to the model")
    # offline replay of the cassette, no server, no keys needed
    rc = main(
        [
            *args,
            "--base-url",
            "http://127.0.0.1:9/v1",
            "--out",
            str(tmp_path / "replay"),
            "--replay",
            str(cassette),
        ]
    )
    assert rc == 0
    out = capsys.readouterr()
    assert_no_secret(out.out + out.err, "the printed output")
    n = assert_tree_clean(tmp_path)
    assert (tmp_path / "live" / "state" / "memory" / "manifest.json").is_file()
    assert (tmp_path / "live" / "checkpoints").is_dir() and n > 20


def test_skillworld_run_and_memory_save_leak_no_key(tmp_path, secret_env, capsys):
    rc = main(
        [
            "run",
            "--world",
            "skillworld",
            "--profile",
            "gaia",
            "--episodes",
            "10",
            "--encoder",
            "hashing",
            "--no-progress",
            "--out",
            str(tmp_path / "sw"),
        ]
    )
    assert rc == 0
    mem = HypergraphMemory(HashingEncoder(dim=32, seed=0))
    mem.add_trajectory("task", ["step"], [Skill("Name", "Content.")], "lesson", True, 2)
    save_memory(mem, tmp_path / "memory")
    out = capsys.readouterr()
    assert_no_secret(out.out + out.err, "the printed output")
    assert assert_tree_clean(tmp_path) >= 8


def _failure(llm: PromptedLLM) -> BaseException:
    with pytest.raises(LLMError) as exc:
        ops(llm).decompose(Task("t", "Six times seven?"))
    return exc.value


def _assert_exception_clean(exc: BaseException, where: str) -> None:
    assert_no_secret(str(exc), f"str() of {where}")
    assert_no_secret(repr(exc), f"repr() of {where}")
    assert_no_secret("".join(traceback.format_exception(exc)), f"the traceback of {where}")


@pytest.mark.parametrize(
    "base_url",
    [
        "http://127.0.0.1:9/v1",  # nothing listens: connection refused
        f"http://user:{API_KEY}@127.0.0.1:9/v1",  # the key as URL credentials
        f"http://127.0.0.1:9/v1?api_key={API_KEY}",  # the key in the query
        f"http://127.0.0.1:9/{API_KEY}/v1",  # a proxy that takes the key in the path
        API_KEY,  # key and URL swapped by mistake
        "not a url",
        "http://[::1",  # invalid: the client refuses to build
    ],
)
def test_connection_and_url_errors_do_not_echo_the_key(secret_env, base_url):
    llm = PromptedLLM(base_url, "m", retry_base_delay=0.001, max_retries=1, timeout=2)
    exc = _failure(llm)
    _assert_exception_clean(exc, f"the error for base URL {base_url[:12]}...")
    assert_no_secret(repr(llm), "repr(PromptedLLM)")


@pytest.mark.parametrize("status", [401, 403, 400, 500])
def test_server_errors_that_echo_the_key_are_redacted(secret_env, status):
    message = f"Incorrect API key provided: {API_KEY}. Also saw {SEARCH_KEY}."
    with ScriptedServer(default=error(status, message)) as server:
        llm = PromptedLLM(server.base_url, "m", retry_base_delay=0.001, max_retries=1)
        exc = _failure(llm)
    assert f"HTTP {status}" in str(exc) and "Incorrect API key provided" in str(exc)
    _assert_exception_clean(exc, f"an HTTP {status} error")


def test_wrong_key_401_from_the_server(secret_env):
    with ScriptedServer([text("[]")], api_key="the-right-key-is-not-the-sentinel") as server:
        exc = _failure(PromptedLLM(server.base_url, "m", retry_base_delay=0.001))
    assert "HTTP 401" in str(exc)
    _assert_exception_clean(exc, "a 401")


def test_cassette_redacts_keys_a_reply_echoes(tmp_path, secret_env):
    with ScriptedServer(default=text(f'["step with {API_KEY} and {HF_TOKEN}"]')) as server:
        llm = PromptedLLM(server.base_url, "m", cassette=Cassette(tmp_path / "c.jsonl"))
        ops(llm).decompose(Task("t", "q"))
    assert "[REDACTED]" in (tmp_path / "c.jsonl").read_text()
    assert_tree_clean(tmp_path)
    assert_no_secret(repr(llm.cassette), "repr(Cassette)")


def test_search_errors_and_repr_hide_the_search_key(secret_env):
    bad = HttpSearch("http://127.0.0.1:9/search", SEARCH_KEY, key_param="api_key", timeout=2)
    with pytest.raises(RuntimeError) as exc:
        bad.search("x")
    _assert_exception_clean(exc.value, "a search error")
    assert_no_secret(repr(bad), "repr(HttpSearch)")


def test_python_tool_environment_has_no_key(secret_env):
    secret_env.setenv("MY_SERVICE_PASSWORD", "pw-SENTINEL-0123456789")
    sandbox = PythonSandbox(timeout=10, isolation="process")  # explicit: bwrap may be absent
    out = sandbox.run(f"{ENV_DUMP}\nprint(sorted(os.environ))")
    assert "PATH" in out and "HYPERSKILL_SANDBOX_RUN" in out
    assert_no_secret(out, "the python tool's environment")
    for name in ("OPENAI_API_KEY", "HYPERSKILL_SEARCH_KEY", "HF_TOKEN", "MY_SERVICE_PASSWORD"):
        assert name not in out
    via_toolbox = Toolbox.from_env(python=sandbox).call("python", {"code": ENV_DUMP})
    assert "PATH" in via_toolbox
    assert_no_secret(via_toolbox, "the python tool's environment (Toolbox)")


# notebooks and other committed text: no key, and nothing shaped like one
SKIP_DIRS = {
    ".git",
    ".venv",
    "tests",
    "runs",
    "__pycache__",
    ".hypothesis",
    ".pytest_cache",
    ".ruff_cache",
    "build",
    ".ipynb_checkpoints",
    "node_modules",
}


def _repo_files() -> list[Path]:
    out = []
    for here, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        out += [Path(here) / f for f in sorted(files)]
    return out


def test_committed_notebooks_and_files_hold_no_key():
    files = _repo_files()
    notebooks = [p for p in files if p.suffix == ".ipynb"]
    for nb in notebooks:  # every notebook is valid JSON: the scan sees its outputs
        json.loads(nb.read_text(encoding="utf-8"))
    for p in files:
        assert_no_secret(p.read_bytes(), str(p.relative_to(ROOT)))
    assert any(p.name == "README.md" for p in files) and len(files) > 20
