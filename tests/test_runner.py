"""The runner: deterministic records, exact resume after SIGKILL, clear refusals."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.embed import (
    HashingEncoder,
    MiniLMEncoder,
    minilm_available,
    setup_seconds,
)
from hyperskill_lite.methods import make_method
from hyperskill_lite.protocol import shuffled
from hyperskill_lite.runner import RunError, read_records, run_episodes, summarize, summary_table
from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

N = 24
VOLATILE = ("memory_seconds", "seconds", "setup_seconds")


def _strip(records):
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in VOLATILE}
        if r.get("maintenance"):
            r["maintenance"] = {k: v for k, v in r["maintenance"].items() if k != "seconds"}
        out.append(r)
    return out


def _run(out: Path, method="hyperskill", seed=3, n=N):
    tasks = shuffled(make_tasks("xbench", seed=seed), seed=42)[:n]
    system = make_method(method, SimLLM(seed=seed), HashingEncoder(dim=256, seed=0))
    return run_episodes(system, tasks, SimExecutor(seed=seed), out, progress=False,
                        run_info={"method": method, "seed": seed}), system


def _memory_files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


def test_same_seed_same_records(tmp_path):
    a, _ = _run(tmp_path / "a")
    b, _ = _run(tmp_path / "b")
    assert _strip(a) == _strip(b)
    assert len(a) == N and [r["index"] for r in a] == list(range(N))
    assert any(r.get("maintenance") for r in a)  # ceil(0.1 * 24) = 3: maintenance ran
    assert (tmp_path / "a" / "checkpoints" / "maint-0003").is_dir()
    s = summarize(a)
    assert 0 <= s["SR"] <= 100 and s["N"] == N


def test_a_state_saved_after_maintenance_links_the_checkpoints_files(tmp_path):
    """N = 24 maintains every 3 episodes and the last episode (24) is one of them: the
    state's memory is the maint-0024 checkpoint's files hard-linked (same inodes, not
    written twice) and loads to the memory the run ended with; a run of 23 ends on no
    maintenance, so its state is written in full."""
    from hyperskill_lite.core.io import load_memory

    _run(tmp_path / "b", n=23)  # period ceil(2.3) = 3: episode 23 is no maintenance
    assert all(p.stat().st_nlink == 1 for p in (tmp_path / "b" / "state" / "memory").iterdir())
    _, system = _run(tmp_path / "a", n=24)
    state, ck = tmp_path / "a" / "state" / "memory", tmp_path / "a" / "checkpoints"
    for p in sorted(state.iterdir()):
        twin = ck / "maint-0024" / p.name
        assert p.stat().st_ino == twin.stat().st_ino and p.stat().st_nlink == 2, p.name
    loaded = load_memory(state, encoder=system.memory.encoder)
    assert loaded.stats() == system.memory.stats()
    assert _memory_files(state) == _memory_files(ck / "maint-0024")


def test_rerun_of_a_finished_run_is_a_no_op(tmp_path):
    a, _ = _run(tmp_path / "a")
    again, _ = _run(tmp_path / "a")
    assert _strip(again) == _strip(a)
    assert len((tmp_path / "a" / "episodes.jsonl").read_text().splitlines()) == N


def test_resume_with_other_arguments_is_refused(tmp_path):
    _run(tmp_path / "a", n=4)
    with pytest.raises(RunError, match="different settings"):
        _run(tmp_path / "a", seed=4, n=4)


CLI = [sys.executable, "-m", "hyperskill_lite", "run", "--world", "skillworld", "--profile",
       "xbench", "--method", "hyperskill", "--episodes", str(N), "--seed", "3",
       "--encoder", "hashing", "--no-progress"]


def _cli(out: Path, crash: str | None = None) -> int:
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    env.pop("HYPERSKILL_CRASH_AT", None)
    if crash:
        env["HYPERSKILL_CRASH_AT"] = crash
    return subprocess.run([*CLI, "--out", str(out)], env=env, capture_output=True,
                          text=True, timeout=300).returncode


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    assert _cli(out) == 0
    return out


@pytest.mark.parametrize("crash", ["before_state:5", "after_state:8", "after_record:2",
                                   "after_state:11"])
def test_sigkill_then_resume_equals_uninterrupted(tmp_path, reference, crash):
    out = tmp_path / "run"
    assert _cli(out, crash) == -9  # killed where asked
    assert _cli(out) == 0  # resumed to the end
    got, want = read_records(out), read_records(reference)
    assert _strip(got) == _strip(want)
    lines = (out / "episodes.jsonl").read_text().splitlines()
    assert len(lines) == N  # no duplicated or lost lines
    assert _memory_files(out / "state" / "memory") == _memory_files(reference / "state" / "memory")


def test_kill_at_a_random_moment_then_resume(tmp_path, reference):
    out = tmp_path / "run"
    proc = subprocess.Popen([*CLI, "--out", str(out)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline:
        path = out / "episodes.jsonl"
        if path.exists() and len(path.read_bytes().splitlines()) >= 6:
            break
        time.sleep(0.01)
    proc.kill()
    proc.wait()
    assert _cli(out) == 0
    assert _strip(read_records(out)) == _strip(read_records(reference))


def test_truncated_last_line_is_dropped_and_rerun(tmp_path, reference):
    out = tmp_path / "run"
    assert _cli(out, "after_record:6") == -9
    path = out / "episodes.jsonl"
    data = path.read_bytes()
    path.write_bytes(data[:-15])  # a torn write of the 7th line
    # the state is after episode 7, its line is torn: resume must rewrite it once
    assert _cli(out) == 0
    assert _strip(read_records(out)) == _strip(read_records(reference))


def test_corrupt_middle_line_is_a_clear_error(tmp_path):
    _run(tmp_path / "a", n=4)
    path = tmp_path / "a" / "episodes.jsonl"
    lines = path.read_text().splitlines()
    lines[1] = "{not json"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunError, match=r"episodes.jsonl: line 2 is not valid JSON"):
        read_records(tmp_path / "a")


def test_records_carry_the_documented_fields(tmp_path):
    recs, system = _run(tmp_path / "a", n=6)
    need = {"index", "task_id", "success", "steps", "calls", "context_tokens",
            "memory_seconds", "retrieved", "sizes"}
    for r in recs:
        assert need <= set(r)
        json.dumps(r)
    assert recs[0]["retrieved"] == []  # empty memory at the first episode
    assert any(r["retrieved"] for r in recs[1:])
    assert recs[-1]["sizes"] == system.stats()
    assert np.isfinite(summarize(recs)["MemMs"])


@pytest.mark.skipif(not minilm_available(), reason="needs all-MiniLM-L6-v2")
def test_a_lazy_model_load_is_setup_time_not_task_latency(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", "off")  # every text is new: the first one loads
    enc = MiniLMEncoder()
    assert not enc.model_loaded
    tasks = shuffled(make_tasks("xbench", seed=0), seed=42)[:3]
    system = make_method("hyperskill", SimLLM(seed=0), enc)
    before, t0 = setup_seconds(), time.perf_counter()
    recs = run_episodes(system, tasks, SimExecutor(seed=0), tmp_path, progress=False)
    wall = time.perf_counter() - t0
    loaded = setup_seconds() - before
    assert enc.model_loaded and loaded > 0
    # the whole load is the first episode's setup, kept out of its latency
    assert recs[0]["setup_seconds"] == pytest.approx(loaded, abs=1e-5)
    assert all("setup_seconds" not in r for r in recs[1:])
    assert recs[0]["memory_seconds"] <= recs[0]["seconds"]
    maint = sum(r["maintenance"]["seconds"] for r in recs if r.get("maintenance"))
    # the recorded times and the load are disjoint parts of the run's wall clock
    assert sum(r["seconds"] for r in recs) + maint + loaded <= wall + 1e-4
    assert summarize(recs)["Latency"] == pytest.approx(
        np.mean([r["seconds"] for r in recs]) + maint / len(recs))


# ---------------------------------------------------------------- memory health (issue 33)


def test_every_run_reports_its_memory_health(tmp_path):
    recs, system = _run(tmp_path / "a", n=N)
    assert all(isinstance(r["injected"], int) for r in recs)
    assert recs[0]["injected"] == 0 and any(r["injected"] for r in recs[1:])
    s = summarize(recs)
    new = sum(not sk["dedup"] for r in recs for sk in r["update"]["skills"])
    assert s["Inserted"] == new > 0
    assert s["Dedup"] == sum(r["update"]["dedup"] for r in recs)
    assert s["Merged"] == sum(r.get("maintenance", {}).get("merged", 0) for r in recs)
    assert s["Pruned"] == sum(r.get("maintenance", {}).get("pruned", 0) for r in recs)
    assert s["NonEmpty"] == pytest.approx(100 * np.mean([r["injected"] > 0 for r in recs]))
    assert s["Injected"] == pytest.approx(np.mean([r["injected"] for r in recs]))
    assert s["EmptyStore"] == 0.0 and not any("health_warning" in r for r in recs)
    # a method that reports no updates: insertions are the growth of its store
    memp, _ = _run(tmp_path / "memp", method="memp", n=N)
    h = summarize(memp)
    assert h["Inserted"] == memp[-1]["sizes"]["procedures"] + memp[-1]["sizes"]["revisions"]
    assert np.isnan(h["Dedup"])


def test_a_method_that_stores_nothing_raises_the_alarm(tmp_path, caplog):
    """AWM learns workflows from successes only; under a judge that rejects every
    episode it stores nothing, which the runner logs and records after 10 % of the
    tasks (ceil(0.1 x 24) = 3: after the third)."""
    tasks = shuffled(make_tasks("xbench", seed=3), seed=42)[:N]
    system = make_method("awm", SimLLM(seed=3), HashingEncoder(dim=256, seed=0))
    with caplog.at_level("WARNING", logger="hyperskill_lite.runner"):
        recs = run_episodes(system, tasks, SimExecutor(seed=3), tmp_path / "awm",
                            judge=lambda task, episode: False, progress=False)
    warned = [r for r in recs if r.get("health_warning")]
    assert [r["index"] for r in warned] == [2]
    assert warned[0]["health_warning"]["stored_nothing"] is True
    assert [rec.name for rec in caplog.records] == ["hyperskill_lite.runner"]
    assert "awm has stored nothing after 3 task(s)" in caplog.records[0].getMessage()
    s = summarize(recs)
    assert s["EmptyStore"] == 1.0 and s["Inserted"] == 0 and s["NonEmpty"] == 0
    assert "WARNING: it stored nothing" in summary_table({"awm": s}, baseline=None, health=True)
    # no-memory keeps no store at all: never warned
    with caplog.at_level("WARNING", logger="hyperskill_lite.runner"):
        caplog.clear()
        _run(tmp_path / "nm", method="no-memory", n=6)
    assert caplog.records == []


# ---------------------------------------------------------------- recovery (issue 33)


def test_a_corrupt_run_says_how_to_recover_and_the_restore_resumes_exactly(tmp_path):
    ref, _ = _run(tmp_path / "ref")
    out = tmp_path / "a"
    _run(out)
    path = out / "episodes.jsonl"
    lines = path.read_text().splitlines()
    lines[13] = "{not json"  # damage episode 14; checkpoints follow episodes 3, 6, ..., 24
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(RunError) as exc:
        _run(out)
    msg = str(exc.value)
    assert "episodes.jsonl: line 14 is not valid JSON" in msg
    assert "checkpoints/maint-0012" in msg and "keep episodes 1-12" in msg
    assert "python -m hyperskill_lite.runner restore" in msg and "new --out" in msg
    done = subprocess.run([sys.executable, "-m", "hyperskill_lite.runner", "restore", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "after episode 12" in done.stdout
    assert (out / "episodes.jsonl.before-restore").read_text().count("\n") == N  # kept
    assert len(read_records(out)) == 12
    again, _ = _run(out)  # the same command resumes at episode 13
    assert _strip(again) == _strip(ref)
    assert _memory_files(out / "state" / "memory") == _memory_files(tmp_path / "ref" / "state"
                                                                    / "memory")


def test_records_without_a_state_name_the_checkpoint_or_a_new_out(tmp_path):
    import shutil

    _run(tmp_path / "a", n=6)
    shutil.rmtree(tmp_path / "a" / "state")
    with pytest.raises(RunError, match=r"no saved state; cannot resume; to keep episodes 1-6"):
        _run(tmp_path / "a", n=6)
    _run(tmp_path / "b", n=2)
    shutil.rmtree(tmp_path / "b" / "state")
    shutil.rmtree(tmp_path / "b" / "checkpoints")  # nothing to go back to
    with pytest.raises(RunError, match="no checkpoint of .* start afresh with a new --out"):
        _run(tmp_path / "b", n=2)
    from hyperskill_lite.runner import restore_checkpoint

    with pytest.raises(RunError, match="no checkpoint 'maint-0099'; it has maint-0001, maint-0002, "):
        restore_checkpoint(tmp_path / "a", "maint-0099")
