"""Logging (logs.py): library code logs and never prints; the CLI's terminal handler is
set by --log-level; each run folder gets its run.log, and runs side by side in threads
each keep their own."""

from __future__ import annotations

import io
import json
import logging
import threading
from pathlib import Path

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.logs import LOGGER, RUN_LOG, file_level, run_log, setup_logging
from hyperskill_lite.testing.scripted_replies import prompt_aware_responder, text
from hyperskill_lite.testing.scripted_server import ScriptedServer

KEY = "sk-test-LOGGING-0123456789abcdef"


@pytest.fixture()
def clean_logger():
    logger = logging.getLogger(LOGGER)
    handlers, level = list(logger.handlers), logger.level
    yield logger
    for h in list(logger.handlers):
        if h not in handlers:
            logger.removeHandler(h)
    logger.setLevel(level)


def test_a_model_call_logs_and_prints_nothing(capsys, caplog, clean_logger):
    with ScriptedServer([text("hello")]) as srv:
        llm = PromptedLLM(srv.base_url, "m", KEY, structured="off")
        with caplog.at_level("INFO", logger=LOGGER):
            llm.chat([{"role": "user", "content": "hi"}], op="ping")
    out = capsys.readouterr()
    assert out.out == "" and out.err == ""
    assert any(r.name == "hyperskill_lite.llm.client" and "op=ping" in r.getMessage()
               for r in caplog.records)


def test_setup_logging_sets_the_terminal_level_and_replaces_itself(clean_logger):
    stream = io.StringIO()
    setup_logging("WARNING", stream)
    logging.getLogger("hyperskill_lite.x").info("quiet")
    logging.getLogger("hyperskill_lite.x").warning("loud")
    second = setup_logging("INFO", stream)
    logging.getLogger("hyperskill_lite.x").info("now shown")
    assert stream.getvalue().splitlines() == ["WARNING hyperskill_lite.x: loud",
                                             "INFO hyperskill_lite.x: now shown"]
    ours = [h for h in clean_logger.handlers if getattr(h, "_hyperskill_terminal", False)]
    assert ours == [second]
    with pytest.raises(ValueError, match="--log-level must be one of"):
        setup_logging("LOUD")


def test_runs_in_threads_each_keep_their_own_log(tmp_path, clean_logger):
    barrier = threading.Barrier(3)

    def run(name: str) -> None:
        with run_log(tmp_path / name):
            barrier.wait()
            for i in range(20):
                logging.getLogger("hyperskill_lite.runner").info("episode %d of %s", i, name)
            barrier.wait()

    threads = [threading.Thread(target=run, args=(n,)) for n in ("a", "b", "c")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for name in ("a", "b", "c"):
        lines = (tmp_path / name / RUN_LOG).read_text().splitlines()
        assert len(lines) == 20 and all(line.endswith(f"of {name}") for line in lines)
    logging.getLogger("hyperskill_lite.runner").info("after the runs")
    assert "after the runs" not in (tmp_path / "a" / RUN_LOG).read_text()
    assert file_level("DEBUG") == "DEBUG" and file_level("ERROR") == "INFO"


def test_a_live_run_writes_run_log_with_calls_and_episodes(tmp_path, monkeypatch, capsys,
                                                          clean_logger):
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text("".join(json.dumps({"id": f"t{i}", "question": "Six times seven?",
                                         "answer": "42"}) + "\n" for i in range(2)))
    with ScriptedServer(prompt_aware_responder, models=["m"], api_key=KEY) as srv:
        rc = main(["run", "--sandbox", "process", "--backend", "openai", "--base-url", srv.base_url, "--model", "m",
                   "--tasks", str(tasks), "--method", "hyperskill", "--encoder", "hashing",
                   "--no-progress", "--judge", "exact", "--log-level", "INFO",
                   "--out", str(tmp_path / "run")])
    assert rc == 0
    log = (tmp_path / "run" / RUN_LOG).read_text()
    for part in ("call op=decompose", "status=200", "latency_ms=", "call op=agent",
                 "episode index=0 task=t", "episode index=1 task=t"):
        assert part in log
    assert KEY not in log
    err = capsys.readouterr().err
    assert "INFO hyperskill_lite.llm.client: call op=" in err  # --log-level INFO: the terminal too


def test_the_default_terminal_level_keeps_info_out(tmp_path, capsys, clean_logger):
    rc = main(["run", "--world", "skillworld", "--episodes", "3", "--encoder", "hashing",
               "--no-progress", "--out", str(tmp_path / "sw")])
    assert rc == 0
    assert "INFO" not in capsys.readouterr().err
    assert "episode index=2" in (Path(tmp_path / "sw") / RUN_LOG).read_text()
