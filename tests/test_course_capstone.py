"""The capstone's ranking end to end (course/capstone/): a class's submissions (an example
method, one that cannot start, a hostile one) run contained on SkillWorld beside
HyperSkill and no memory; the example is ranked with paired intervals against both, the
broken and the hostile one cost themselves only (one line each, flagged), the hostile
one's forged metadata and peeking earn nothing, and the page escapes every string a
student controls. The contained path is faithful: HyperSkill run through it gives the
outcomes an ordinary in-process run gives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hyperskill_lite.core.config import maintenance_period
from hyperskill_lite.core.embed import encoder_by_name
from hyperskill_lite.course.capstone import Limits, leaderboard_html, rank_class, scan_submission
from hyperskill_lite.course.contained import isolation_problem
from hyperskill_lite.launch import skillworld_parts
from hyperskill_lite.methods import make_method
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.episode import one_episode

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "fixtures" / "course" / "capstone"
ISOLATION = "bwrap" if isolation_problem("bwrap") is None else "process"
SETTINGS = dict(profile="gaia", episodes=12, seeds=(0,), order_seed=7, isolation=ISOLATION,
                limits=Limits(call_seconds=15, total_seconds=240), n_boot=400)


@pytest.fixture(scope="module")
def ranking(tmp_path_factory):
    folder = tmp_path_factory.mktemp("class")
    for name in ("example", "broken", "hostile"):
        shutil.copy(FIXTURES / f"{name}.py", folder / f"{name}.py")
    return rank_class(folder, **SETTINGS)


def test_the_example_is_ranked_against_both_references(ranking):
    assert [e.student for e in ranking.entries] == ["example"]
    ex = ranking.entries[0]
    assert ex.name == "skill-shelf" and ex.errored == 0 and len(ex.outcomes[0]) == 12
    for ref in ("hyperskill", "no-memory"):
        d = ex.diffs[ref]
        assert d.pairs == 12 and d.low <= d.diff <= d.high
    assert set(ranking.references) == {"hyperskill", "no-memory"}
    assert ranking.settings["order_seed"] == 7


def test_a_broken_and_a_hostile_submission_cost_themselves_only(ranking):
    failed = {e.student: e for e in ranking.failed}
    assert set(failed) == {"broken", "hostile"}
    assert failed["broken"].problem.startswith("world seed 0: it did not start: NameError")
    hostile = failed["hostile"]
    assert "begin took longer than its limit" in hostile.problem
    flags = " | ".join(hostile.flags)
    assert "the world refused" in flags and "extract is answered only for the task in hand" in flags
    assert "token(s) the world never issued" in flags
    assert "imports socket" in flags and "names SkillWorld's hidden metadata" in flags
    for e in ranking.failed:
        assert "\n" not in e.problem and len(e.problem) <= 300


def test_forged_metadata_earns_nothing(tmp_path):
    # the hostile method's first five tasks, before it hangs: every item it shows claims
    # latent strategies with a forged token; the world credits none of them
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(FIXTURES / "hostile.py", folder / "hostile.py")
    r = rank_class(folder, **{**SETTINGS, "episodes": 5})
    hostile = r.entries[0]
    nomem = r.references["no-memory"].outcomes[0]
    # same draws per task; uncredited items only lower the chance of success (noise)
    assert all(v <= nomem[k] for k, v in hostile.outcomes[0].items())
    assert any("token(s) the world never issued" in f for f in hostile.flags)


def test_the_page_escapes_what_students_write(ranking, tmp_path):
    page = leaderboard_html(ranking)
    assert "<script>" not in page and "&lt;script&gt;" not in page  # hostile: unranked, no name shown
    assert "&lt;b&gt;by cosine&lt;/b&gt;" in page  # the example's description, escaped
    assert "<b>by cosine</b>" not in page
    evil = tmp_path / "<img src=x onerror=alert(1)>.py"
    shutil.copy(FIXTURES / "example.py", evil)
    assert any("not a plain student id" in f for f in scan_submission(evil))


def test_the_contained_path_is_faithful(ranking):
    tasks, llm, executor, _ = skillworld_parts("gaia", 0, 12,
                                               evaluation=EvalProtocol(order_seed=7))
    system = make_method("hyperskill", llm, encoder_by_name("hashing"))
    period, got = maintenance_period(len(tasks)), {}
    for i, task in enumerate(tasks):
        record, _ = one_episode(i, task, system, executor, None, None, None)
        got[(i, task.id)] = float(record.success)
        if (i + 1) % period == 0:
            system.maintain()
    assert ranking.references["hyperskill"].outcomes[0] == got


def test_the_command_writes_a_page_and_refuses_a_folder_it_did_not_make(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    shutil.copy(FIXTURES / "example.py", folder / "ada.py")
    out = tmp_path / "board"
    cmd = [sys.executable, "-m", "hyperskill_lite.course", "capstone", str(folder), "--out",
           str(out), "--episodes", "8", "--seeds", "1", "--isolation", ISOLATION]
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "ranked 1 of 1 submissions" in r.stdout
    data = json.loads((out / "ranking.json").read_text())
    assert data["ranked"][0]["student"] == "ada" and isinstance(data["settings"]["order_seed"], int)
    page = (out / "leaderboard.html").read_text()
    assert "ada" in page and str(data["settings"]["order_seed"]) not in page  # the seed stays

    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "notes.txt").write_text("mine")
    cmd[cmd.index(str(out))] = str(tmp_path / "other")
    r = subprocess.run(cmd, capture_output=True, text=True, cwd=tmp_path)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "holds other files" in r.stderr
    assert [p.name for p in (tmp_path / "other").iterdir()] == ["notes.txt"]


def test_a_submission_runs_as_nobody_without_the_network(tmp_path):
    from hyperskill_lite.course.capstone.remote import ContainedMemory, WorldDesk
    from hyperskill_lite.world import SimLLM

    probe = tmp_path / "probe.py"
    probe.write_text(
        "import os, socket\n"
        "from hyperskill_lite.methods import MethodSpec\n"
        "try:\n    socket.create_connection(('1.1.1.1', 80), timeout=2)\n    net = 'yes'\n"
        "except OSError:\n    net = 'no'\n"
        "SPEC = MethodSpec(name='probe', group='plugin', description=f'uid={os.getuid()} net={net}',"
        " factory=lambda ops, encoder, config: None)\n")
    memory = ContainedMemory.start(probe, WorldDesk(SimLLM(seed=0)), isolation=ISOLATION)
    try:
        uid, net = (part.split("=")[1] for part in memory.description.split())
    finally:
        memory.close()
    if os.geteuid() == 0:
        assert uid == "65534"  # root starts it, "nobody" runs it
    if ISOLATION == "bwrap":
        assert net == "no"
