"""A run folder, a memory folder or an export target full of links, as a colleague's
archive might be, through the command line: nothing outside changes and nothing from
outside is read. `report` refuses a figure or summary that links out (a dangling one
too), `inspect` refuses a run.json or records file that links out and a run.json that
is not this project's, and skips, with a warning, a checkpoint or a sweep's run that
links out; a resumed `run`, `restore`, `export-skills` (its memory and its target) and
`serve` refuse a folder holding such a link, each with one ``error:`` line naming it.
Links that stay inside a folder are followed (core/confined.py).

Also the smaller points of issue 46: a complete run in a read-only folder shows its
summary (a real read-only bind mount), and ``run --record`` against a server that is
down leaves no cassette behind."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.core.confined import LinkOutside, check_tree, entries, read_text, write_text

ROOT = Path(__file__).resolve().parents[1]
RUN = ["run", "--method", "hyperskill", "--episodes", "6", "--encoder", "hashing",
       "--no-progress"]
SECRET = "SECRET-OUTSIDE-9931"


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    """A finished 6-episode SkillWorld run (maintenance every episode, so checkpoints)."""
    out = tmp_path_factory.mktemp("made") / "run"
    assert main([*RUN, "--out", str(out)]) == 0
    return out


@pytest.fixture()
def run(made, tmp_path):
    dst = tmp_path / "run"
    shutil.copytree(made, dst, symlinks=True)
    return dst


@pytest.fixture()
def outside(tmp_path):
    d = tmp_path / "outside"
    d.mkdir()
    (d / ".bashrc").write_text("USER'S BASHRC\n")
    return d


def _error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    errors = [ln for ln in err if ln.startswith("error:")]
    assert len(errors) == 1 and "Traceback" not in "\n".join(err), err
    return errors[0]


def _snapshot(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


# -- the helpers themselves ---------------------------------------------------------------


def test_links_inside_are_followed_links_out_are_refused_and_listings_skip_them(tmp_path,
                                                                                 outside):
    root = tmp_path / "root"
    (root / "a").mkdir(parents=True)
    write_text(root, root / "a" / "f.txt", "mine")
    os.symlink("a/f.txt", root / "inner")  # stays inside: followed
    assert read_text(root, root / "inner") == "mine"
    os.symlink(outside / ".bashrc", root / "out")
    with pytest.raises(LinkOutside, match=r"root/out: a link to .*outside/\.bashrc, outside "
                                          r"the folder .*root; links leading out"):
        read_text(root, root / "out")
    os.symlink(outside, root / "dir")  # a folder: writing below it is refused too
    with pytest.raises(LinkOutside, match="root/dir: a link to"):
        write_text(root, root / "dir" / "new.txt", "x")
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]
    with pytest.raises(LinkOutside):
        check_tree(root)
    assert [p.name for p in entries(root, root)] == ["a", "inner"]


# -- report -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["summary.txt", "maintenance.png"])
def test_report_never_writes_through_a_link_leading_out(run, outside, capsys, name):
    (run / "figures").mkdir()
    os.symlink(outside / ".bashrc", run / "figures" / name)
    os.symlink(outside / "new.txt", run / "figures" / "cumulative_sr.png")  # dangling
    assert main(["report", str(run)]) == 2
    line = _error(capsys)
    assert "a link to" in line and str(outside) in line and "outside the folder" in line
    assert (outside / ".bashrc").read_text() == "USER'S BASHRC\n"
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]  # nothing created


def test_report_refuses_a_figures_folder_that_leads_out(run, outside, capsys):
    os.symlink(outside, run / "figures")
    assert main(["report", str(run)]) == 2
    assert f"{run / 'figures'}: a link to {outside}" in _error(capsys)
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc"]


def test_report_follows_links_that_stay_inside(run, capsys):
    (run / "figures").mkdir()
    (run / "figures" / "report.json").write_text('{"format": "hyperskill_lite.report/1"}')
    (run / "mine.txt").write_text("old\n")
    os.symlink("../mine.txt", run / "figures" / "summary.txt")
    assert main(["report", str(run)]) == 0
    assert "hyperskill" in (run / "mine.txt").read_text()


# -- inspect ------------------------------------------------------------------------------


def test_inspect_refuses_a_run_json_or_records_that_link_out(run, outside, capsys):
    info = json.loads((run / "run.json").read_text())
    (outside / "config.json").write_text(json.dumps({**info, "auth": SECRET}))
    (run / "run.json").unlink()
    os.symlink(outside / "config.json", run / "run.json")
    assert main(["inspect", str(run), "--samples", "0"]) == 2
    assert f"{run / 'run.json'}: a link to {outside / 'config.json'}" in _error(capsys)
    assert not (run / "studio.html").exists()
    (run / "run.json").unlink()
    (run / "run.json").write_text(json.dumps(info))
    shutil.move(run / "episodes.jsonl", outside / "episodes.jsonl")
    os.symlink(outside / "episodes.jsonl", run / "episodes.jsonl")
    assert main(["inspect", str(run), "--samples", "0"]) == 2
    assert f"{run / 'episodes.jsonl'}: a link to" in _error(capsys)
    assert not (run / "studio.html").exists()


def test_inspect_refuses_a_run_json_that_is_not_this_projects(run, capsys):
    (run / "run.json").write_text(json.dumps({"auths": {"registry": {"auth": SECRET}}}))
    assert main(["inspect", str(run), "--samples", "0"]) == 2
    line = _error(capsys)
    assert "not a run description of hyperskill_lite (it has no format" in line
    assert not (run / "studio.html").exists()
    (run / "run.json").write_text("[" * 100 + "]" * 100)
    assert main(["report", str(run)]) == 2
    assert "not a run description (not a JSON object)" in _error(capsys)


def test_inspect_skips_a_checkpoint_and_a_run_that_link_out(run, outside, tmp_path, capsys):
    """Listings (a run's checkpoints, a sweep's runs) skip what leads out, with a warning,
    and the page carries nothing of it."""
    shutil.copytree(run / "checkpoints" / "maint-0002", outside / "ck")
    (outside / "ck" / "SECRET.txt").write_text(SECRET)
    shutil.rmtree(run / "checkpoints" / "maint-0002")
    os.symlink(outside / "ck", run / "checkpoints" / "maint-0002")
    sweep = tmp_path / "sweep"
    sweep.mkdir()
    os.symlink(run, sweep / "a-run")  # leads out of the sweep folder: skipped
    shutil.copytree(run, sweep / "b-run", symlinks=True)
    memory = sweep / "b-run" / "state" / "memory"
    shutil.move(memory, outside / "memory")
    os.symlink(outside / "memory", memory)
    assert main(["inspect", str(sweep), "--samples", "0"]) == 0
    err = capsys.readouterr().err
    assert f"{sweep / 'a-run'}: a link to {run}" in err and "skipped" in err
    assert f"{sweep / 'b-run' / 'checkpoints' / 'maint-0002'}: a link to" in err
    assert f"{memory}: a link to {outside / 'memory'}" in err
    page = (sweep / "b-run" / "studio.html").read_text()
    assert SECRET not in page and "maint-0004" in page and "maint-0002" not in page


# -- run (resume), restore, export-skills, serve ------------------------------------------


def test_a_resumed_run_refuses_a_folder_holding_a_link_out(run, outside, capsys):
    os.symlink(outside / ".bashrc", run / "run.log.old")  # any link leading out, anywhere
    before = _snapshot(outside)
    assert main([*RUN, "--out", str(run)]) == 2
    assert f"{run / 'run.log.old'}: a link to {outside / '.bashrc'}" in _error(capsys)
    os.unlink(run / "run.log.old")
    (run / "run.log").unlink()
    os.symlink(outside / ".bashrc", run / "run.log")
    assert main([*RUN, "--out", str(run)]) == 2
    assert f"{run / 'run.log'}: a link to" in _error(capsys)
    assert _snapshot(outside) == before


def test_restore_refuses_a_checkpoint_that_links_out(run, outside):
    shutil.copytree(run / "checkpoints" / "maint-0004", outside / "ck")
    shutil.rmtree(run / "checkpoints" / "maint-0004")
    os.symlink(outside / "ck", run / "checkpoints" / "maint-0004")
    before = _snapshot(run)
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite.runner", "restore", str(run)],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and "maint-0004: a link to" in lines[0]
    assert _snapshot(run) == before


def test_export_skills_reads_and_writes_nothing_through_links_out(run, outside, tmp_path, capsys):
    memory = run / "state" / "memory"
    (outside / "text.json").write_bytes((memory / "text.json").read_bytes())
    (memory / "text.json").unlink()
    os.symlink(outside / "text.json", memory / "text.json")
    assert main(["export-skills", str(run), "--to", str(tmp_path / "skills")]) == 2
    assert f"{memory / 'text.json'}: a link to" in _error(capsys)
    (memory / "text.json").unlink()
    shutil.copy(outside / "text.json", memory / "text.json")
    target = tmp_path / "skills"
    assert main(["export-skills", str(run), "--to", str(target)]) == 0
    first = sorted(p.name for p in target.iterdir() if p.is_dir())[0]
    shutil.rmtree(target / first)
    os.symlink(outside, target / first)  # the target's own folder leads out
    capsys.readouterr()
    assert main(["export-skills", str(run), "--to", str(target)]) == 2
    assert f"{target / first}: a link to {outside}" in _error(capsys)
    assert sorted(p.name for p in outside.iterdir()) == [".bashrc", "text.json"]


def test_serve_refuses_a_memory_folder_holding_a_link_out(run, outside, tmp_path, capsys):
    pytest.importorskip("mcp")
    memory = tmp_path / "served"
    shutil.copytree(run / "state" / "memory", memory)
    (memory / "manifest.json").rename(outside / "manifest.json")
    os.symlink(outside / "manifest.json", memory / "manifest.json")
    assert main(["serve", "--memory", str(memory), "--llm", "none"]) == 2
    assert f"{memory / 'manifest.json'}: a link to" in _error(capsys)
    (memory / "manifest.json").unlink()
    (outside / "manifest.json").rename(memory / "manifest.json")
    os.symlink(outside / ".bashrc", tmp_path / "served.journal")
    assert main(["serve", "--memory", str(memory), "--llm", "none"]) == 2
    assert "served.journal: a link to" in _error(capsys)
    assert (outside / ".bashrc").read_text() == "USER'S BASHRC\n"


# -- a read-only folder, and --record --------------------------------------------------------


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="a read-only bind mount needs root and unshare")
def test_a_complete_run_in_a_read_only_folder_shows_its_summary(run):
    before = _snapshot(run)
    cli = " ".join(f"'{a}'" for a in [sys.executable, "-m", "hyperskill_lite", *RUN,
                                      "--out", str(run)])
    script = (f"mount --bind '{run}' '{run}' && mount -o remount,bind,ro '{run}' && "
              f"(touch '{run}/probe' 2>/dev/null && echo WRITABLE; {cli})")
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    if "mount" in done.stderr and done.returncode != 0 and "already complete" not in done.stdout:
        pytest.skip(f"no read-only bind mount here ({done.stderr.strip()[:200]})")
    assert "WRITABLE" not in done.stdout  # the folder really was read-only
    assert done.returncode == 0, done.stderr
    assert "already complete (6 episodes); showing its summary" in done.stdout
    assert "hyperskill memory:" in done.stdout and "error" not in done.stderr
    assert _snapshot(run) == before


def test_record_writes_no_cassette_when_the_server_is_down(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-record-0000000000")
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text(json.dumps({"id": "t1", "question": "2 + 2?", "answer": "4"}) + "\n")
    cassette = tmp_path / "rec" / "cassette.jsonl"
    assert main(["run", "--backend", "openai", "--base-url", "http://127.0.0.1:9/v1",
                 "--model", "m", "--tasks", str(tasks), "--record", str(cassette),
                 "--out", str(tmp_path / "out"), "--encoder", "hashing", "--search", "none",
                 "--sandbox", "process", "--max-retries", "0"]) == 2
    assert "cannot reach the model server" in _error(capsys)
    assert not cassette.exists() and not cassette.parent.exists()
    assert not (tmp_path / "out").exists()
