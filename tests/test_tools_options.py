"""The tool flags (cli/tool_options.py): parsed into one ToolSettings; bad values end in
the CLI's one-line error at parse time; helps show the defaults."""

from __future__ import annotations

from pathlib import Path

import pytest

from hyperskill_lite.cli.options import Parser
from hyperskill_lite.cli.tool_options import add_arguments, settings_from_args


def parser() -> Parser:
    p = Parser(prog="run")
    add_arguments(p.add_argument_group("tools"))
    return p


def test_defaults_are_a_live_runs_tools(monkeypatch):
    monkeypatch.delenv("HYPERSKILL_SEARCH", raising=False)
    s = settings_from_args(parser().parse_args([]))
    assert (s.search, s.http, s.allow_local_urls, s.crawl_summary, s.sandbox) == (
        "auto", True, False, False, "bwrap")


def test_every_flag_reaches_the_settings(tmp_path):
    args = parser().parse_args([
        "--search", "searxng", "--search-url", "http://localhost:8888", "--corpus", str(tmp_path),
        "--no-http", "--allow-local-urls", "--crawl-summary", "--vision-model", "qwen-vl",
        "--vision-base-url", "http://localhost:8001/v1", "--audio-model", "whisper-large-v3",
        "--audio-base-url", "http://localhost:8002/v1", "--sandbox", "process"])
    s = settings_from_args(args)
    assert s.to_dict() | {"corpus": Path(s.to_dict()["corpus"])} == s.to_dict() | {
        "search": "searxng", "search_url": "http://localhost:8888", "corpus": tmp_path,
        "http": False, "allow_local_urls": True, "crawl_summary": True,
        "vision_model": "qwen-vl", "vision_base_url": "http://localhost:8001/v1",
        "audio_model": "whisper-large-v3", "audio_base_url": "http://localhost:8002/v1",
        "sandbox": "process"}


def test_the_search_provider_comes_from_the_environment_too(monkeypatch):
    monkeypatch.setenv("HYPERSKILL_SEARCH", "tavily")
    assert settings_from_args(parser().parse_args([])).search == "tavily"
    assert settings_from_args(parser().parse_args(["--search", "brave"])).search == "brave"


@pytest.mark.parametrize(("argv", "message"), [
    (["--search", "bing"], "error: argument --search: unknown search provider 'bing'; choose "
     "one of auto, serper, tavily, brave, searxng, duckduckgo, jina, url, corpus, none "
     "(see run --help)"),
    (["--search-url", "localhost:8888"], "error: argument --search-url: must be an http(s) URL "
     "such as http://localhost:8888, got 'localhost:8888' (see run --help)"),
    (["--sandbox", "docker"], "error: argument --sandbox: invalid choice: 'docker' (choose from "),
    (["--corpus", "/no/such/folder"], "error: argument --corpus: not a folder: /no/such/folder"),
])
def test_bad_values_are_one_line_errors(capsys, argv, message):
    with pytest.raises(SystemExit) as e:
        parser().parse_args(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith(message) and "\n" not in err


def test_a_bad_search_provider_in_the_environment_is_an_error_too(capsys, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_SEARCH", "yahoo")
    with pytest.raises(SystemExit):
        parser().parse_args([])
    assert "unknown search provider 'yahoo'" in capsys.readouterr().err


def test_helps_show_the_defaults(monkeypatch):
    monkeypatch.delenv("HYPERSKILL_SEARCH", raising=False)
    text = " ".join(parser().format_help().split())
    assert "(default: auto)" in text and "(default: bwrap)" in text
    assert "--allow-local-urls" in text and "--crawl-summary" in text
