"""A tool never raises: any exception inside a tool (MemoryError, LookupError,
RecursionError, a library's bug) becomes one "Error:" line for the agent and an entry in
the toolbox's log, logged as a warning; Ctrl-C and SystemExit still stop the run. The
exceptions come from a search backend (the toolbox's extension point: any object with
``search(query, k)``), the way a third-party provider would raise them; a missing
reader is said once, with the pip command."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools import Toolbox, reader_lines, reader_report
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.testing.scripted_replies import text, tool_call
from hyperskill_lite.testing.scripted_server import ScriptedServer
from hyperskill_lite.types import MemoryContext, Task


class RaisingSearch:
    """A search backend that raises what it is given."""

    name = "raising"

    def __init__(self, exc: BaseException) -> None:
        self.exc = exc

    def search(self, query: str, k: int):
        raise self.exc


def deep(n: int) -> int:
    return n if n == 0 else deep(n - 1) + 1


def recursion_error() -> RecursionError:
    try:
        deep(10**6)
    except RecursionError as e:
        return e
    raise AssertionError("no RecursionError")


@pytest.mark.parametrize(("exc", "line"), [
    (MemoryError(), "Error: web_search ran out of memory: the input is too large to read"),
    (LookupError("unknown encoding: x-no-such-charset"),
     "Error: web_search failed unexpectedly (LookupError: unknown encoding: x-no-such-charset)"),
    (recursion_error(), "Error: web_search failed: the input is nested too deeply "
                        "(RecursionError)"),
    (KeyError("organic"), "Error: web_search failed unexpectedly (KeyError: 'organic')"),
    (ZeroDivisionError("division by zero"),
     "Error: web_search failed unexpectedly (ZeroDivisionError: division by zero)"),
])
def test_any_exception_of_a_tool_is_one_line_and_a_record(exc, line, caplog):
    tb = Toolbox(search=RaisingSearch(exc), python=False)
    with caplog.at_level(logging.INFO, logger="hyperskill_lite"):
        out = tb.call("web_search", {"query": "harbour"})
    assert out == line
    (entry,) = tb.take_log()
    assert entry["tool"] == "web_search" and entry["error"] == line
    assert entry["exception"] == type(exc).__name__ and entry["unexpected"] is True
    assert tb.log == []
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1 and type(exc).__name__ in warnings[0].getMessage()
    assert any(r.exc_info for r in caplog.records if r.levelno == logging.INFO)


@pytest.mark.parametrize("exc", [KeyboardInterrupt(), SystemExit(3)])
def test_ctrl_c_and_exit_are_not_swallowed(exc):
    tb = Toolbox(search=RaisingSearch(exc), python=False)
    with pytest.raises(type(exc)):
        tb.call("web_search", {"query": "harbour"})


def test_an_episode_whose_tool_raised_goes_on_and_records_the_error():
    tb = Toolbox(search=RaisingSearch(LookupError("unknown encoding: x-nope")), python=False)
    script = [tool_call("web_search", {"query": "harbour"}), text("FINAL ANSWER: none")]
    with ScriptedServer(script) as srv:
        llm = PromptedLLM(srv.base_url, "m", "sk-x", retry_base_delay=0.001, timeout=5)
        ep = AgentExecutor(llm, tb, protocol="tools").run(Task("t", "q"), MemoryContext())
    assert (ep.answer, ep.error) == ("none", None)
    assert ep.meta["tool_errors"] == [{
        "step": 1, "tool": "web_search",
        "error": "Error: web_search failed unexpectedly (LookupError: unknown encoding: x-nope)"}]
    assert "LookupError" in srv.requests[1]["messages"][-1]["content"]


def test_the_readers_are_reported_and_a_missing_one_is_one_warning():
    report = reader_report()
    assert report["html"]["extractor"] == "trafilatura" and report["missing"] == []
    assert reader_lines(report)[0].startswith("page reader trafilatura ")
    # a venv whose pip left lxml_html_clean out: `import trafilatura` fails there
    code = ("import sys; sys.modules['lxml_html_clean'] = None; "
            "from hyperskill_lite.agent.tools import Toolbox, reader_report; "
            "Toolbox(python=False); Toolbox(python=False); "
            "print(reader_report()['html']['extractor'])")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "stdlib"
    lines = [ln for ln in run.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, run.stderr
    assert "trafilatura cannot be imported" in lines[0]
    assert "pip install lxml_html_clean" in lines[0]
