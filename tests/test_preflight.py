"""The preflight (llm/preflight.py, agent/tools/preflight.py), the `check` command and
what a live `run` does with it: the real openai client against the scripted server on
loopback, nothing of ours mocked. A missing or wrong key, an unreachable server or an
unknown model is one line and exit 2 before any run folder exists; a run whose every
episode failed exits 1; the probe answers are recorded as observed, so the rerun after a
key was fixed resumes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.llm.preflight import PreflightError, preflight, preflight_run
from hyperskill_lite.runner import read_records
from hyperskill_lite.testing.scripted_replies import error, prompt_aware_responder
from hyperskill_lite.testing.scripted_server import ScriptedServer

KEY = "sk-test-PREFLIGHT-0123456789abcdef"
OTHER = "sk-test-ROTATED-0123456789abcdef"


@pytest.fixture()
def env(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HYPERSKILL_MODEL",
                "HYPERSKILL_JUDGE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


def llm(srv: ScriptedServer, key: str | None = KEY, model: str = "scripted-model", **kw):
    return PromptedLLM(srv.base_url, model, key, retry_base_delay=0.001, max_retries=1,
                       timeout=5, **kw)


def one_line_without_key(exc: BaseException) -> str:
    msg = str(exc)
    assert "\n" not in msg and KEY not in msg and OTHER not in msg
    return msg


# --------------------------------------------------------------------------- library
def test_a_good_server_is_reported_with_its_probe_answers(env):
    with ScriptedServer(models=["scripted-model", "other"], api_key=KEY) as srv:
        client = llm(srv)
        found = preflight(client)
    assert found.listed is True and found.models == ["scripted-model", "other"]
    assert found.key == "sent" and found.structured_mode == "json_schema"
    assert found.protocol == "tools" and found.protocol_probe == "tool call returned"
    assert client.structured_mode == "json_schema"  # the run reuses the answer
    d = found.to_dict()
    assert json.loads(json.dumps(d)) == d and d["capabilities"]["vision"].startswith("not checked")
    assert srv.requests == []  # probes only: nothing reached the script


def test_missing_key_where_the_server_wants_one(env):
    with ScriptedServer(api_key=KEY) as srv:
        with pytest.raises(PreflightError) as ei:
            preflight(llm(srv, key=None))
    assert ei.value.check == "key"
    assert "wants an API key (HTTP 401" in one_line_without_key(ei.value)
    assert "OPENAI_API_KEY" in str(ei.value)


def test_wrong_key_is_named_without_showing_it(env):
    with ScriptedServer(api_key=KEY) as srv:
        with pytest.raises(PreflightError) as ei:
            preflight(llm(srv, key=OTHER))
    assert ei.value.check == "key"
    assert "refused the API key (HTTP 401" in one_line_without_key(ei.value)


def test_the_default_endpoint_without_a_key(env):
    with pytest.raises(PreflightError, match="no API key") as ei:
        preflight(PromptedLLM(None, "gpt-4o"))
    assert ei.value.check == "key"
    assert "--base-url URL" in str(ei.value) and "base_url=" not in str(ei.value)  # the option


def test_an_unreachable_server(env):
    srv = ScriptedServer().start()
    url = srv.base_url
    srv.stop()
    with pytest.raises(PreflightError) as ei:
        preflight(PromptedLLM(url, "m", KEY, timeout=2))
    assert ei.value.check == "reachable"
    assert "cannot reach the model server at http://127.0.0.1" in one_line_without_key(ei.value)


def test_a_model_the_server_does_not_serve(env):
    with ScriptedServer(models=["qwen3", "llama"]) as srv:
        with pytest.raises(PreflightError) as ei:
            preflight(llm(srv, model="qwen-3"))
    msg = one_line_without_key(ei.value)
    assert ei.value.check == "model"
    assert "model 'qwen-3' is not served" in msg and "qwen3, llama" in msg and "--model" in msg


@pytest.mark.parametrize("supported", [True, False])
def test_vision_is_checked_only_when_needed(env, supported):
    with ScriptedServer(vision=supported) as srv:
        assert preflight(llm(srv)).capabilities["vision"].startswith("not checked")
        if supported:
            found = preflight(llm(srv), needs=["vision"])
            assert found.capabilities["vision"].startswith("accepted")
            assert any(isinstance(p["messages"][0]["content"], list) for p in srv.probes)
        else:
            with pytest.raises(PreflightError, match="does not accept images") as ei:
                preflight(llm(srv), needs=["vision"])
            assert ei.value.check == "vision"


@pytest.mark.parametrize("supported", [True, False])
def test_transcription_is_checked_when_needed(env, supported):
    with ScriptedServer(transcription=supported) as srv:
        if supported:
            found = preflight(llm(srv), needs=["transcription"])
            assert found.capabilities["transcription"].startswith("accepted")
            assert len(srv.audio) == 1 and srv.audio[0] > 1000  # a real multipart WAV upload
        else:
            with pytest.raises(PreflightError, match="does not transcribe") as ei:
                preflight(llm(srv), needs=["transcription"])
            assert ei.value.check == "transcription"


def test_a_judge_on_the_agents_server_shares_the_probe(env):
    with ScriptedServer() as srv:
        agent, judge = llm(srv), llm(srv, temperature=0.0)
        found = preflight_run(agent, judge)
        n_probes = len(srv.probes)
    assert found.judge is None and judge.structured_mode == agent.structured_mode
    assert n_probes == 2  # one structured-output probe, one tool probe: none for the judge


def test_a_judge_with_its_own_server_is_checked_too(env):
    with ScriptedServer(models=["agent-m"]) as a, ScriptedServer(models=["judge-m"],
                                                                 api_key=KEY) as j:
        found = preflight_run(llm(a, model="agent-m"), llm(j, model="judge-m"))
        assert found.judge is not None and found.judge.model == "judge-m"
        assert found.judge.protocol is None  # the judge calls no tools
        with pytest.raises(PreflightError, match="refused the API key"):
            preflight_run(llm(a, model="agent-m"), llm(j, key=OTHER, model="judge-m"))


def test_a_replay_checks_nothing(env, tmp_path):
    Cassette(tmp_path / "c.jsonl", mode="record")  # writes the header
    replay = Cassette(tmp_path / "c.jsonl", mode="replay")
    found = preflight(PromptedLLM("http://127.0.0.1:9/v1", "m", cassette=replay))
    assert found.key == "replay" and found.lines()[0].startswith("replay")


# --------------------------------------------------------------------------- check command
def test_check_prints_what_it_found(env, capsys):
    env.setenv("OPENAI_API_KEY", KEY)
    with ScriptedServer(models=["m"], api_key=KEY) as srv:
        assert main(["check", "--base-url", srv.base_url, "--model", "m",
                     "--sandbox", "process"]) == 0
        out = capsys.readouterr().out
        assert "server      http://127.0.0.1" in out and "model       m listed" in out
        assert "tool calls  tools" in out and "structured  json_schema" in out
        assert "sandbox     process (the python tool; --sandbox)" in out
        assert "ready for a live run" in out and KEY not in out
        assert main(["check", "--base-url", srv.base_url, "--model", "m", "--json",
                     "--sandbox", "process"]) == 0
        doc = json.loads(capsys.readouterr().out)
        assert doc["preflight"]["model_listed"] is True and doc["sandbox"] == "process"


def test_check_without_bubblewrap_names_it_and_exits_2(env, tmp_path):
    """`check` says which sandbox a run would use; the default one needs bubblewrap, and
    without it `check` fails as the run would: one line naming bubblewrap and the option."""
    empty = tmp_path / "bin"
    empty.mkdir()
    with ScriptedServer(models=["m"]) as srv:
        done = subprocess.run(
            [sys.executable, "-m", "hyperskill_lite", "check", "--base-url", srv.base_url,
             "--model", "m"], env={**os.environ, "PATH": str(empty), "OPENAI_API_KEY": KEY},
            capture_output=True, text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert err.count("\n") == 0 and "needs bubblewrap (bwrap)" in err, err
    assert "--sandbox process" in err


def test_check_fails_with_one_line_and_exit_2(env, capsys):
    with ScriptedServer(models=["m"], api_key=KEY) as srv:
        assert main(["check", "--base-url", srv.base_url, "--model", "m"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and err[0].startswith("error: the model server at")
        env.setenv("OPENAI_API_KEY", KEY)
        assert main(["check", "--base-url", srv.base_url, "--model", "n"]) == 2
        assert "model 'n' is not served" in capsys.readouterr().err


# --------------------------------------------------------------------------- run (CLI wiring)
def _tasks(tmp_path: Path, n: int = 4) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"id": f"t{i}", "question": f"Six times seven ({i})?",
                                        "answer": "42"}) + "\n" for i in range(n)))
    return path


def _run_args(srv: ScriptedServer, tasks: Path, out: Path) -> list[str]:
    return ["run", "--sandbox", "process", "--backend", "openai", "--base-url", srv.base_url,
            "--model", "m", "--tasks", str(tasks), "--method", "hyperskill", "--encoder", "hashing",
            "--no-progress", "--judge", "exact", "--max-retries", "0", "--out", str(out)]


@pytest.mark.parametrize("key", [None, OTHER])
def test_run_with_a_missing_or_wrong_key_exits_2_before_any_folder_exists(env, tmp_path,
                                                                           capsys, key):
    if key:
        env.setenv("OPENAI_API_KEY", key)
    out = tmp_path / "run"
    with ScriptedServer(prompt_aware_responder, models=["m"], api_key=KEY) as srv:
        assert main(_run_args(srv, _tasks(tmp_path), out)) == 2
        assert srv.requests == []  # not one episode was attempted
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "API key" in err[0] and KEY not in err[0]
    assert not out.exists()


def test_a_run_whose_every_episode_failed_exits_nonzero(env, tmp_path, capsys):
    env.setenv("OPENAI_API_KEY", KEY)
    refuse = error(400, "This model's maximum context length is 4096 tokens")
    with ScriptedServer(default=refuse, models=["m"], api_key=KEY) as srv:
        rc = main(_run_args(srv, _tasks(tmp_path, 3), tmp_path / "run"))
    assert rc == 1
    records = read_records(tmp_path / "run")
    assert len(records) == 3 and all(r["error"] for r in records)
    assert "every episode failed" in capsys.readouterr().err


def test_the_rerun_after_fixing_the_key_resumes(env, tmp_path):
    """A run is killed after two episodes; the key is rotated; the same command with the
    new key resumes at episode 3 (probe answers are observed, not settings)."""
    tasks, out = _tasks(tmp_path), tmp_path / "run"
    with ScriptedServer(prompt_aware_responder, models=["m"], api_key=KEY) as srv:
        args = _run_args(srv, tasks, out)
        child_env = {**os.environ, "OPENAI_API_KEY": KEY, "HYPERSKILL_CRASH_AT": "after_record:1"}
        done = subprocess.run([sys.executable, "-m", "hyperskill_lite", *args], env=child_env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode != 0 and len(read_records(out)) == 2
        srv.api_key = OTHER  # the old key is revoked
        env.setenv("OPENAI_API_KEY", KEY)
        assert main(args) == 2  # the old key: refused by the preflight, the folder untouched
        assert len(read_records(out)) == 2
        env.setenv("OPENAI_API_KEY", OTHER)
        assert main(args) == 0
    records = read_records(out)
    assert [r["index"] for r in records] == [0, 1, 2, 3] and all(r["error"] is None for r in records)
    info = json.loads((out / "run.json").read_text())
    assert len(info["observed"]) == 2  # the first run's and the resume's findings
    assert all(o["preflight"]["model_listed"] for o in info["observed"])
    assert "structured_mode" not in info  # an observation, not a setting


def test_needs_come_from_the_tasks_files():
    from hyperskill_lite.agent.tools.preflight import needs_for
    from hyperskill_lite.types import Task

    tasks = [Task("a", "q", meta={"file_path": "/d/chart.png"}),
             Task("b", "q", meta={"file_name": "x", "file_path": "/d/voice.MP3"}),
             Task("c", "q", meta={"file_path": "/d/table.xlsx"}), Task("d", "q")]
    assert needs_for(tasks) == ("vision", "transcription")
    assert needs_for(tasks, media=False) == () and needs_for(tasks[2:]) == ()


def test_vision_is_asked_of_the_model_the_image_tool_uses(env):
    """A text-only agent model with a vision model on another server: the preflight asks
    the vision server, as the run's inspect_file_as_image will."""
    with ScriptedServer(models=["text-m"], vision=False) as text_srv, \
            ScriptedServer(models=["vl-m"], vision=True) as vl_srv:
        agent = llm(text_srv, model="text-m")
        found = preflight_run(agent, needs=["vision"], vision_model="vl-m",
                              vision_base_url=vl_srv.base_url)
        assert found.agent.capabilities["vision"].startswith("accepted")
        assert len(vl_srv.probes) == 1 and vl_srv.probes[0]["model"] == "vl-m"
        with pytest.raises(PreflightError, match="'text-m' .* does not accept images"):
            preflight_run(llm(text_srv, model="text-m"), needs=["vision"])


# --------------------------------------------------------------------------- the sandbox
@pytest.mark.parametrize("how", ["live", "replay"])
def test_without_bubblewrap_the_default_run_exits_2_before_writing_anything(tmp_path, how):
    """No bwrap on PATH (a machine without bubblewrap): the default `--sandbox bwrap`
    refuses at the preflight, before the server is asked or a folder exists, naming
    bubblewrap, how to install it and the option that accepts weaker isolation."""
    import subprocess
    import sys

    empty = tmp_path / "bin"
    empty.mkdir()
    out = tmp_path / "run"
    source = ["--replay", str(tmp_path / "none.jsonl")] if how == "replay" else []
    argv = [sys.executable, "-m", "hyperskill_lite", "run", "--backend", "openai",
            "--base-url", "http://127.0.0.1:9/v1", "--model", "m", "--tasks",
            str(_tasks(tmp_path)), "--encoder", "hashing", "--out", str(out), *source]
    if how == "replay":
        from hyperskill_lite.llm.cassette import FORMAT, VERSION

        (tmp_path / "none.jsonl").write_text(json.dumps({"format": FORMAT,
                                                         "version": VERSION}) + "\n")
    env = {k: v for k, v in os.environ.items() if k != "HYPERSKILL_TRACEBACK"}
    done = subprocess.run(argv, env={**env, "PATH": str(empty)}, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 2, done.stderr
    err = done.stderr.strip()
    assert err.count("\n") == 0 and err.startswith("error: the python tool's default sandbox "
                                                   "needs bubblewrap (bwrap)"), err
    assert "apt-get install bubblewrap" in err and "--sandbox process" in err
    assert done.stdout == "" and not out.exists()


def test_check_sandbox_names_the_isolation_that_will_run():
    from hyperskill_lite.agent.tools import PythonSandbox
    from hyperskill_lite.agent.tools.preflight import check_sandbox

    sandbox = PythonSandbox(isolation="process")
    if sandbox.problem() is not None:
        pytest.skip(f"process mode cannot start here: {sandbox.problem()}")
    assert check_sandbox(sandbox) == "process"
