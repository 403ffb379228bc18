"""Every setting of a live run's model calls (llm/settings.py, cli/model_options.py): the
values are checked, reach the server as sent (the scripted server keeps every request),
are recorded in run.json (transport as observed, not compared) and are accepted in sweep
files; the GT judge has a client of its own, at temperature 0 unless set; reasoning
returned beside an answer is kept in the record and never reaches the memory."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.cli.model_options import add_arguments, settings_from_args
from hyperskill_lite.cli.options import Parser
from hyperskill_lite.llm.settings import ModelSettings, make_llms, parse_extra_body, usage_totals
from hyperskill_lite.runner import read_records
from hyperskill_lite.sweep import SweepError, parse_sweep
from hyperskill_lite.testing.scripted_replies import Reply, prompt_aware_responder
from hyperskill_lite.testing.scripted_server import ScriptedServer

KEY = "sk-test-SETTINGS-0123456789abcdef"
JUDGE_KEY = "sk-test-JUDGE-0123456789abcdef"
NO_THINK = {"chat_template_kwargs": {"enable_thinking": False}}


@pytest.fixture()
def env(monkeypatch):
    for var in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "HYPERSKILL_MODEL",
                "HYPERSKILL_JUDGE_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    return monkeypatch


# --------------------------------------------------------------------------- the settings
def test_defaults_and_the_resume_split():
    s = ModelSettings()
    assert (s.temperature, s.judge_temperature, s.timeout, s.max_retries) == (0.7, 0.0, 600.0, 4)
    assert set(s.to_dict()) == {"temperature", "top_p", "max_tokens", "extra_body",
                                "judge_model", "judge_temperature"}
    assert set(s.transport()) == {"timeout", "max_retries", "judge_base_url"}
    # where keys come from is not a setting
    assert ModelSettings(api_key_env="A") == ModelSettings(api_key_env="B")


@pytest.mark.parametrize(("kw", "message"), [
    ({"temperature": 2.5}, "--temperature must be in [0, 2]"),
    ({"top_p": 0.0}, "--top-p must be in (0, 1]"),
    ({"max_tokens": 0}, "--max-tokens must be >= 1"),
    ({"timeout": 0.0}, "--timeout must be > 0"),
    ({"max_retries": -1}, "--max-retries must be >= 0"),
    ({"judge_temperature": -0.1}, "--judge-temperature must be in [0, 2]"),
    ({"extra_body": {"model": "x"}}, "--extra-body must not set 'model': use --model"),
    ({"extra_body": {"messages": []}}, "must not set 'messages' (the toolkit sets it)"),
])
def test_impossible_values_are_refused_naming_the_option(kw, message):
    with pytest.raises(ValueError) as ei:
        ModelSettings(**kw).check()
    assert message in str(ei.value)


def test_extra_body_must_be_a_json_object():
    assert parse_extra_body(json.dumps(NO_THINK)) == NO_THINK
    with pytest.raises(ValueError, match="not valid JSON"):
        parse_extra_body("{enable_thinking: false}")
    with pytest.raises(ValueError, match="must be a JSON object, got a list"):
        parse_extra_body("[1]")


def _parser() -> argparse.ArgumentParser:
    p = Parser(prog="x")
    add_arguments(p)
    return p


def test_the_options_parse_into_one_settings_object():
    args = _parser().parse_args(["--temperature", "0.2", "--top-p", "0.9", "--max-tokens", "512",
                                 "--timeout", "900", "--max-retries", "2", "--extra-body",
                                 json.dumps(NO_THINK), "--judge-model", "gpt-4o",
                                 "--judge-base-url", "https://judge.example/v1",
                                 "--judge-temperature", "0.1"])
    s = settings_from_args(args)
    assert s == ModelSettings(0.2, 0.9, 512, 900.0, 2, NO_THINK, "gpt-4o",
                              "https://judge.example/v1", 0.1)


@pytest.mark.parametrize(("argv", "message"), [
    (["--temperature", "3"], "argument --temperature: must be in [0, 2], got 3"),
    (["--top-p", "0"], "argument --top-p: must be in (0, 1], got 0"),
    (["--extra-body", "[1]"], "argument --extra-body: must be a JSON object, got a list"),
    (["--extra-body", '{"temperature": 1}'],
     "argument --extra-body: must not set 'temperature': use --temperature"),
    (["--max-retries", "-1"], "argument --max-retries: must be an integer >= 0"),
])
def test_a_bad_option_is_one_line_and_exit_2(argv, message, capsys):
    with pytest.raises(SystemExit) as ei:
        _parser().parse_args(argv)
    assert ei.value.code == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and message in err


def test_the_judge_gets_a_client_of_its_own(env):
    env.setenv("OPENAI_API_KEY", KEY)
    agent, judge = make_llms(ModelSettings(extra_body=NO_THINK), base_url="http://a/v1",
                             model="qwen")
    assert judge is not agent and (judge.model, judge.base_url) == ("qwen", "http://a/v1")
    assert (agent.temperature, judge.temperature) == (0.7, 0.0)
    assert judge.extra_body == NO_THINK  # same server: the same server-specific fields
    env.setenv("HYPERSKILL_JUDGE_API_KEY", JUDGE_KEY)
    agent, judge = make_llms(ModelSettings(extra_body=NO_THINK, judge_model="gpt-4o",
                                           judge_base_url="https://j/v1"),
                             base_url="http://a/v1", model="qwen")
    assert (judge.model, judge.base_url, judge.extra_body) == ("gpt-4o", "https://j/v1", None)
    assert judge.has_key and KEY not in repr(judge) and JUDGE_KEY not in repr(judge)
    assert usage_totals(agent, judge, agent)["calls"] == 0


# --------------------------------------------------------------------------- on the wire
def test_the_clients_send_what_the_settings_say(env):
    env.setenv("OPENAI_API_KEY", KEY)
    with ScriptedServer(prompt_aware_responder) as srv:
        agent, judge = make_llms(ModelSettings(temperature=0.2, top_p=0.9, max_tokens=300,
                                               extra_body=NO_THINK), base_url=srv.base_url,
                                 model="scripted-model", structured="off")
        agent.chat([{"role": "user", "content": "Decompose this task"}], op="decompose")
        judge.chat([{"role": "user", "content": "You are grading"}], op="judge")
    a, j = srv.requests
    assert (a["temperature"], a["top_p"], a["max_tokens"]) == (0.2, 0.9, 300)
    assert a["chat_template_kwargs"] == {"enable_thinking": False}
    assert j["temperature"] == 0.0 and "top_p" not in j


def _tasks(tmp_path: Path) -> Path:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"id": f"t{i}", "question": f"Six times seven ({i})?",
                                        "answer": "42"}) + "\n" for i in range(3)))
    return path


def test_run_options_reach_the_server_and_run_json(env, tmp_path):
    """--temperature, --extra-body and the judge's model and temperature, as sent."""
    env.setenv("OPENAI_API_KEY", KEY)
    with ScriptedServer(prompt_aware_responder, models=["m", "judge-m"], api_key=KEY) as srv:
        rc = main(["run", "--sandbox", "process", "--backend", "openai", "--base-url", srv.base_url, "--model", "m",
                   "--tasks", str(_tasks(tmp_path)), "--method", "hyperskill", "--encoder",
                   "hashing", "--no-progress", "--judge", "llm", "--temperature", "0.3",
                   "--extra-body", json.dumps(NO_THINK), "--judge-model", "judge-m",
                   "--timeout", "120", "--out", str(tmp_path / "run")])
        requests = list(srv.requests)
    assert rc == 0
    grading = [r for r in requests if r["messages"][-1]["content"].startswith("You are grading")]
    others = [r for r in requests if r not in grading]
    assert len(grading) == 3
    assert all(r["model"] == "judge-m" and r["temperature"] == 0.0 for r in grading)
    assert all(r["model"] == "m" and r["temperature"] == 0.3 for r in others)
    assert all(r["chat_template_kwargs"] == {"enable_thinking": False} for r in requests)
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["model_settings"] == {"temperature": 0.3, "top_p": None, "max_tokens": None,
                                      "extra_body": NO_THINK, "judge_model": "judge-m",
                                      "judge_temperature": 0.0}
    assert info["observed"][-1]["transport"] == {"timeout": 120.0, "max_retries": 4,
                                                 "judge_base_url": None}
    records = read_records(tmp_path / "run")
    assert all(r["usage"]["judge_tokens"] > 0 for r in records)  # the judge's client counted


def test_the_judge_on_its_own_server_uses_its_own_key(env, tmp_path):
    env.setenv("OPENAI_API_KEY", KEY)
    env.setenv("HYPERSKILL_JUDGE_API_KEY", JUDGE_KEY)
    with ScriptedServer(prompt_aware_responder, models=["m"], api_key=KEY) as a, \
            ScriptedServer(prompt_aware_responder, models=["gpt-j"], api_key=JUDGE_KEY) as j:
        rc = main(["run", "--sandbox", "process", "--backend", "openai", "--base-url", a.base_url, "--model", "m",
                   "--tasks", str(_tasks(tmp_path)), "--method", "no-memory", "--encoder",
                   "hashing", "--no-progress", "--judge", "llm", "--judge-model", "gpt-j",
                   "--judge-base-url", j.base_url, "--judge-temperature", "0.2",
                   "--out", str(tmp_path / "run")])
        assert rc == 0
        assert len(j.requests) == 3 and all(r["temperature"] == 0.2 for r in j.requests)
        assert not any(r["messages"][-1]["content"].startswith("You are grading")
                       for r in a.requests)
    info = json.loads((tmp_path / "run" / "run.json").read_text())
    assert info["observed"][0]["judge_preflight"]["model"] == "gpt-j"


def test_reasoning_is_kept_in_the_record_and_never_in_the_memory(env, tmp_path):
    thought = "Privately: the user surely wants forty-two; reasoning token XYZZY."

    def thinking(request):
        reply = prompt_aware_responder(request)
        if reply.tool_calls or (reply.content or "").startswith("FINAL ANSWER"):
            return Reply(content=reply.content, tool_calls=reply.tool_calls, reasoning=thought)
        return reply

    env.setenv("OPENAI_API_KEY", KEY)
    with ScriptedServer(thinking, models=["m"]) as srv:
        rc = main(["run", "--sandbox", "process", "--backend", "openai", "--base-url", srv.base_url, "--model", "m",
                   "--tasks", str(_tasks(tmp_path)), "--method", "hyperskill", "--encoder",
                   "hashing", "--no-progress", "--judge", "exact", "--out",
                   str(tmp_path / "run")])
        sent = json.dumps(srv.requests)
    assert rc == 0
    records = read_records(tmp_path / "run")
    assert all(r["reasoning"] and r["reasoning"][0]["text"] == thought for r in records)
    assert "XYZZY" not in sent  # never sent back to the model (not in the history either)
    memory = [f for f in (tmp_path / "run" / "state" / "memory").rglob("*") if f.is_file()]
    assert memory and not any(b"XYZZY" in f.read_bytes() for f in memory)


# --------------------------------------------------------------------------- sweep files
SWEEP = """
[sweep]
encoder = "hashing"
temperature = 0.5
max_retries = 2
[grid]
method = ["no-memory"]
[[benchmark]]
name = "gaia"
data = "data/fixtures/gaia_hf"
split = "test"
[[backbone]]
name = "qwen"
model = "Qwen/Qwen3-30B-A3B"
base_url = "http://localhost:8000/v1"
extra_body = { chat_template_kwargs = { enable_thinking = false } }
judge_model = "gpt-4o"
judge_key_env = "JUDGE_KEY"
[[backbone]]
name = "gpt"
model = "gpt-4o"
temperature = 0.0
"""


def test_sweep_settings_per_sweep_and_per_backbone():
    import tomllib

    spec = parse_sweep(tomllib.loads(SWEEP))
    qwen, gpt = (c for c in spec.cells())
    assert qwen.settings == ModelSettings(temperature=0.5, max_retries=2, extra_body=NO_THINK,
                                          judge_model="gpt-4o")
    assert qwen.backbone.judge_key_env == "JUDGE_KEY"
    assert gpt.settings == ModelSettings(temperature=0.0, max_retries=2)  # the backbone wins
    argv = qwen.argv(Path("/o"))
    assert argv[argv.index("--extra-body") + 1] == json.dumps(NO_THINK, sort_keys=True)
    assert argv[argv.index("--temperature") + 1] == "0.5"
    assert argv[argv.index("--split") + 1] == "test"
    assert "--judge-model" in argv and "--temperature" in gpt.argv(Path("/o"))


@pytest.mark.parametrize(("extra", "message"), [
    ("[sweep]\ntop_p = 2.0\n", "sweep.top_p: must be in (0, 1], got 2.0"),
    ("[sweep]\nextra_body = { model = 'x' }\n", "sweep.extra_body: must not set 'model'"),
    ("[sweep]\njudge_key_env = 'not a name'\n", "sweep.judge_key_env: must be an environment"),
])
def test_sweep_settings_are_checked(extra, message):
    import tomllib

    doc = tomllib.loads(extra + "[grid]\nmethod = ['no-memory']\nprofile = ['gaia']\n")
    with pytest.raises(SweepError) as ei:
        parse_sweep(doc, source="s.toml")
    assert message in str(ei.value)
