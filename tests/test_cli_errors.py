"""Every bad argument, and every error a command raises from what the user gave it, ends in
one line ``error: ...`` on stderr and exit code 2, never a traceback; Ctrl-C is one line
that says truly what was kept; nothing a user owns is deleted. Table-driven, through the
real entry point (`python -m hyperskill_lite` in a subprocess where a signal or the
process's own exit matters, `cli.main` elsewhere)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hyperskill_lite.cli import main

ROOT = Path(__file__).resolve().parents[1]

BAD = [
    # (arguments, what the one line must say)
    (["run", "--method", "nope", "--out", "{tmp}/r"], "unknown method 'nope'"),
    (["run", "--episodes", "0", "--out", "{tmp}/r"], "--episodes: must be an integer >= 1, got 0"),
    (["run", "--episodes", "-3", "--out", "{tmp}/r"], "--episodes: must be an integer >= 1, got -3"),
    (["run", "--episodes", "many", "--out", "{tmp}/r"], "must be an integer, got 'many'"),
    (["run", "--rho", "2", "--out", "{tmp}/r"], "--rho: must be a number in [0, 1], got 2"),
    (["run", "--k", "0", "--out", "{tmp}/r"], "--k: must be an integer >= 1, got 0"),
    (["run", "--profile", "mmlu", "--out", "{tmp}/r"], "--profile: invalid choice: 'mmlu'"),
    (["run", "--out", "{tmp}/r", "--judge", "llm"], "--judge llm needs a live model"),
    (["run", "--backend", "openai", "--tasks", "{tasks}", "--out", "{tmp}/r"],
     "a live run needs a model name: --model NAME"),
    (["run", "--backend", "openai", "--model", "m", "--out", "{tmp}/r"],
     "a live run needs --benchmark NAME --data PATH or --tasks FILE"),
    (["run", "--benchmark", "gaia", "--model", "m", "--out", "{tmp}/r"],
     "--benchmark needs --data PATH"),
    (["run", "--tasks", "{tmp}/missing.jsonl", "--model", "m", "--out", "{tmp}/r"],
     "missing.jsonl"),
    (["run", "--world", "skillworld", "--tasks", "{tasks}", "--model", "m", "--out", "{tmp}/r"],
     "--world skillworld cannot be combined"),
    (["run", "--tasks", "{tasks}", "--model", "m", "--record", "{tmp}/a", "--replay", "{tmp}/b",
      "--out", "{tmp}/r"], "--record and --replay are exclusive"),
    (["run"], "the following arguments are required: --out"),
    (["check"], "check needs a model name: --model NAME (or set HYPERSKILL_MODEL)"),
    (["compare", "--methods", "hyperskill", "nope"], "unknown method 'nope'"),
    (["compare", "--episodes", "0"], "--episodes: must be an integer >= 1, got 0"),
    (["compare", "--seeds", "0"], "--seeds: must be an integer >= 1, got 0"),
    (["compare", "--jobs", "0"], "--jobs: must be an integer >= 1, got 0"),
    (["run", "--out", "{tmp}/afile.txt"], "--out {tmp}/afile.txt: exists and is not a folder"),
    (["run", "--out", "{tmp}/afile.txt/r"], "{tmp}/afile.txt is a file, not a folder"),
    (["compare", "--out", "{tmp}/afile.txt", "--episodes", "2", "--methods", "no-memory",
      "--encoder", "hashing", "--seeds", "1"], "--out {tmp}/afile.txt: exists and is not a folder"),
    (["sweep", "{sweep}", "--out", "{tmp}/afile.txt"],
     "--out {tmp}/afile.txt: exists and is not a folder"),
    (["run", "--tasks", "{empty}", "--model", "m", "--out", "{tmp}/r"],
     "empty.jsonl: the file is empty (no tasks)"),
    (["run", "--tasks", "{broken}", "--model", "m", "--out", "{tmp}/r"],
     "broken.jsonl, row 2: bad JSON: Unterminated string starting at: column 25"),
    (["sweep", "{tmp}/missing.toml"], "missing.toml: no such sweep file"),
    (["sweep", "{tmp}/x.toml", "--jobs", "0"], "--jobs: must be an integer >= 1, got 0"),
    (["report", "{tmp}"], "not a run folder (no run.json)"),
    (["report", "{tmp}/nowhere"], "nowhere: no such run folder"),
    (["demo", "--episodes", "0"], "--episodes: must be an integer >= 1, got 0"),
    (["nope"], "invalid choice: 'nope'"),
]


@pytest.fixture()
def tasks(tmp_path):
    path = tmp_path / "tasks.jsonl"
    path.write_text(json.dumps({"id": "a", "question": "Six times seven?", "answer": "42"}) + "\n")
    (tmp_path / "afile.txt").write_text("a user's file")
    (tmp_path / "empty.jsonl").write_text("")
    (tmp_path / "broken.jsonl").write_text(
        '{"id": "a", "question": "x"}\n{"id": "b", "question": "Six times\n')
    (tmp_path / "sweep.toml").write_text(
        "[sweep]\nepisodes = 2\nencoder = 'hashing'\n[grid]\nmethod = ['no-memory']\n"
        "profile = ['xbench']\n")
    return path


@pytest.mark.parametrize("argv, says", BAD, ids=[" ".join(a[:3]) for a, _ in BAD])
def test_a_bad_argument_is_one_error_line_and_exit_2(argv, says, tmp_path, tasks, capsys,
                                                     monkeypatch):
    monkeypatch.delenv("HYPERSKILL_MODEL", raising=False)
    monkeypatch.delenv("HYPERSKILL_TRACEBACK", raising=False)
    fill = dict(tmp=tmp_path, tasks=tasks, empty=tmp_path / "empty.jsonl",
                broken=tmp_path / "broken.jsonl", sweep=tmp_path / "sweep.toml")
    argv = [a.format(**fill) for a in argv]
    try:
        rc = main(argv)
    except SystemExit as exc:  # argparse's errors
        rc = exc.code
    err = capsys.readouterr().err.strip()
    assert rc == 2, err
    assert err.count("\n") == 0 and err.startswith("error: "), err
    assert says.format(**fill) in err
    assert "Traceback" not in err and "[Errno" not in err
    assert not (tmp_path / "r").exists()  # nothing was started
    assert (tmp_path / "afile.txt").read_text() == "a user's file"


def test_compare_clamps_episodes_beyond_the_profile_and_says_so(capsys):
    rc = main(["compare", "--profile", "xbench", "--episodes", "100000", "--methods",
               "no-memory", "--encoder", "hashing", "--seeds", "1", "--jobs", "1"])
    out = capsys.readouterr().out
    assert rc == 0
    assert ("note: SkillWorld xbench has 100 tasks; running all of them (--episodes 100000 "
            "asked for more)") in out
    assert "100 episodes x 1 seed(s)" in out


def test_help_shows_the_default_of_seeds_and_temperatures(capsys):
    for command, option in (("run", "--seed SEED"), ("compare", "--stats-seed STATS_SEED"),
                            ("run", "--judge-temperature JUDGE_TEMPERATURE")):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        text = capsys.readouterr().out
        after = " ".join(text.split(f"  {option}", 1)[1].split("  --", 1)[0].split())
        assert "(default: 0" in after, (option, after)


def test_the_same_errors_from_the_installed_entry_point_carry_no_traceback(tmp_path):
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite", "run", "--method", "nope",
                           "--out", str(tmp_path / "r")], capture_output=True, text=True)
    assert done.returncode == 2
    assert done.stderr.strip().startswith("error: ") and done.stderr.count("\n") == 1
    assert done.stdout == ""


def test_episodes_beyond_the_profile_are_capped_and_said(tmp_path, capsys):
    rc = main(["run", "--profile", "xbench", "--episodes", "1000", "--encoder", "hashing",
               "--no-progress", "--out", str(tmp_path / "r")])
    out = capsys.readouterr().out
    assert rc == 0
    assert "SkillWorld xbench has 100 tasks; running all of them (--episodes 1000" in out
    assert len((tmp_path / "r" / "episodes.jsonl").read_text().splitlines()) == 100


def test_run_says_where_it_writes_and_whether_it_resumed(tmp_path, capsys):
    args = ["run", "--profile", "xbench", "--episodes", "6", "--encoder", "hashing",
            "--no-progress", "--out", str(tmp_path / "r")]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert f"{tmp_path / 'r'}: hyperskill on 6 task(s) of SkillWorld xbench" in out
    assert "NOT the paper's numbers" in out and "report" in out
    assert main(args) == 0
    assert "already complete (6 episodes)" in capsys.readouterr().out
    lines = (tmp_path / "r" / "episodes.jsonl").read_text().splitlines()
    (tmp_path / "r" / "episodes.jsonl").write_text("\n".join(lines[:4]) + "\n")
    import shutil

    shutil.rmtree(tmp_path / "r" / "state")  # as if the last two episodes had not run
    assert main(args) == 2  # records without a state: refused, and the message says how
    err = capsys.readouterr().err
    assert "error:" in err and "cannot resume" in err


def test_global_options_work_after_the_subcommand_too(tmp_path, monkeypatch):
    from hyperskill_lite.cli import build_parser

    monkeypatch.delenv("HYPERSKILL_CACHE", raising=False)
    before = build_parser().parse_args(["--no-cache", "run", "--out", "x"])
    after = build_parser().parse_args(["run", "--out", "x", "--no-cache"])
    neither = build_parser().parse_args(["run", "--out", "x"])
    assert before.no_cache and after.no_cache and not neither.no_cache


def test_help_shows_defaults_and_version_comes_from_metadata(capsys):
    from importlib.metadata import version

    with pytest.raises(SystemExit) as exc:
        main(["compare", "--help"])
    assert exc.value.code == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "(default: 40)" in text and "(default: 3)" in text and "default: gaia" in text
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"hyperskill_lite {version('hyperskill_lite')}"


def test_demo_refuses_a_folder_it_did_not_create_and_leaves_it_alone(tmp_path, capsys):
    folder = tmp_path / "mine"
    (folder / "notes").mkdir(parents=True)
    (folder / "thesis.txt").write_text("a user's file")
    (folder / "notes" / "n.txt").write_text("another")
    rc = main(["demo", "--out", str(folder), "--episodes", "3", "--encoder", "hashing"])
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: ") and "is not a demo output folder" in err
    assert (folder / "thesis.txt").read_text() == "a user's file"
    assert (folder / "notes" / "n.txt").read_text() == "another"
    assert sorted(p.name for p in folder.iterdir()) == ["notes", "thesis.txt"]


def test_demo_resumes_in_its_own_folder_and_prints_the_same_table(tmp_path, capsys):
    args = ["demo", "--out", str(tmp_path / "d"), "--episodes", "8", "--encoder", "hashing",
            "--profile", "xbench"]
    assert main(args) == 0
    first = capsys.readouterr().out
    pngs = {p.name: p.read_bytes() for p in (tmp_path / "d" / "figures").glob("*.png")}
    assert set(pngs) == {"demo_cumulative_sr.png", "demo_memory_growth.png"}
    (tmp_path / "d" / "hyperskill" / "notes.txt").write_text("kept")  # a user's file inside
    assert main(args) == 0
    second = capsys.readouterr().out
    table = lambda out: [ln for ln in out.splitlines() if ln.startswith(("hyperskill", "flat", "no-memory"))]  # noqa: E731
    strip = lambda rows: [" ".join(r.split()[:8]) for r in rows]  # noqa: E731 (timings aside)
    assert strip(table(first)) == strip(table(second)) and len(table(first)) == 5
    assert {p.name: p.read_bytes() for p in (tmp_path / "d" / "figures").glob("*.png")} == pngs
    assert (tmp_path / "d" / "hyperskill" / "notes.txt").read_text() == "kept"


def test_report_draws_existing_runs(tmp_path, capsys):
    for method in ("hyperskill", "no-memory"):
        assert main(["run", "--method", method, "--profile", "xbench", "--episodes", "12",
                     "--encoder", "hashing", "--no-progress",
                     "--out", str(tmp_path / "runs" / method)]) == 0
    capsys.readouterr()
    assert main(["report", str(tmp_path / "runs" / "hyperskill"),
                 str(tmp_path / "runs" / "no-memory")]) == 0
    out = capsys.readouterr().out
    assert "NOT the paper's numbers" in out and "hyperskill" in out and "(+" in out
    report = tmp_path / "runs" / "report"
    assert {p.name for p in report.iterdir()} == {"cumulative_sr.png", "memory_growth.png",
                                                  "maintenance.png", "summary.txt",
                                                  "report.json"}
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "x.txt").write_text("x")
    assert main(["report", str(tmp_path / "runs" / "hyperskill"), "--out",
                 str(tmp_path / "busy")]) == 2
    assert (tmp_path / "busy" / "x.txt").read_text() == "x"


def _wait_for_line(proc: subprocess.Popen, start: str) -> list[str]:
    """Read the command's stdout until a line starts with `start` (its readiness signal);
    the lines read. Ends early when the command exits."""
    lines = []
    for line in proc.stdout:
        lines.append(line)
        if line.startswith(start):
            break
    return lines


def _finished_episodes(root: Path) -> int:
    return sum(len(p.read_bytes().splitlines()) for p in root.glob("*/*/*/episodes.jsonl"))


@pytest.mark.parametrize("keep", [False, True], ids=["without --out", "with --out"])
@pytest.mark.parametrize("when", ["pool start-up", "mid-episode"])
def test_ctrl_c_on_compare_is_one_true_line(tmp_path, keep, when):
    argv = [sys.executable, "-m", "hyperskill_lite", "compare", "--profile", "gaia",
            "--episodes", "165", "--seeds", "3", "--encoder", "hashing", "--jobs", "2"]
    if keep:
        argv += ["--out", str(tmp_path / "cmp")]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True, env={**os.environ, "PYTHONUNBUFFERED": "1"})
    # ready: the workers are being started (the line follows their spawn) ...
    assert _wait_for_line(proc, "[compare] ")[-1].startswith("[compare] 36 run(s) on 2 worker")
    if when == "mid-episode":  # ... or a run has finished episodes
        deadline = time.monotonic() + 600
        while keep and _finished_episodes(tmp_path / "cmp") == 0:
            assert time.monotonic() < deadline and proc.poll() is None
            time.sleep(0.02)
    os.killpg(proc.pid, signal.SIGINT)  # what a terminal's Ctrl-C does: the whole group
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "KeyboardInterrupt" not in err, err
    last = err.strip().splitlines()[-1]  # (memory-health warnings of finished cells above)
    if not keep:
        assert "nothing was kept" in last and "--out DIR" in last
        return
    cmp = tmp_path / "cmp"
    if not cmp.exists():
        assert last == f"interrupted: nothing was written yet ({cmp} was not created)"
    elif _finished_episodes(cmp) == 0:
        assert last == f"interrupted: {cmp} holds no finished episode yet"
    else:
        assert last.startswith(f"interrupted: {cmp} keeps every finished episode (")
        assert last.endswith("rerun the same command to resume")
        assert when == "pool start-up" or int(last.split("(")[1].split()[0]) > 0


def test_report_summarises_the_evaluated_part_of_a_split_run(tmp_path, capsys):
    out = tmp_path / "split"
    assert main(["run", "--profile", "xbench", "--episodes", "12", "--freeze-after", "6",
                 "--encoder", "hashing", "--no-progress", "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["report", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "the summary covers the evaluated episodes" in printed
    row = next(ln for ln in printed.splitlines() if ln.startswith("hyperskill"))
    assert row.split()[-1] == "6"  # N: the six evaluated episodes
