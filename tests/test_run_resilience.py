"""One episode never ends a run: an exception outside the tools fails that episode only
(recorded, the memory put back, the run goes on, the exit code and the last line say how
many); a process that dies twice in the same episode does not loop on rerun; a full disk
is one line with the state intact; a state copied from another run is refused naming
both; Ctrl-C at any moment is one true line and exit code 130. Through `run_episodes`
and through the real command line (``python -m hyperskill_lite run`` in a subprocess,
with ``HYPERSKILL_CRASH_AT`` placing a kill, a Ctrl-C or an exception at a given
moment). Tests wait for a signal (a file, a line, a mapped library), never a sleep."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.methods import make_method
from hyperskill_lite.runner import RunError, StorageError, read_records, run_episodes, summarize
from hyperskill_lite.runner.inflight import INFLIGHT
from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks

N = 10
VOLATILE = ("memory_seconds", "seconds", "setup_seconds")


def _strip(records):
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in VOLATILE}
        if r.get("maintenance"):
            r["maintenance"] = {k: v for k, v in r["maintenance"].items() if k != "seconds"}
        out.append(r)
    return out


class Failing:
    """An executor (the runner's interface) that raises on chosen tasks and otherwise
    runs SkillWorld's: what a buggy agent or a hostile input outside the tools does."""

    def __init__(self, seed: int, fail: dict[int, BaseException], tasks) -> None:
        self.inner, self.fail = SimExecutor(seed=seed), {tasks[i].id: e for i, e in fail.items()}

    def run(self, task, context):
        if task.id in self.fail:
            raise self.fail[task.id]
        return self.inner.run(task, context)


def _tasks(seed=3, n=N):
    return make_tasks("xbench", seed=seed)[:n]


def _system(seed=3, encoder_seed=0, method="hyperskill"):
    return make_method(method, SimLLM(seed=seed), HashingEncoder(dim=64, seed=encoder_seed))


def test_unexpected_exceptions_fail_one_episode_each_and_the_run_goes_on(tmp_path):
    tasks = _tasks()
    fail = {1: LookupError("unknown encoding: x-klingon"), 4: MemoryError(),
            6: RecursionError("maximum recursion depth exceeded")}
    records = run_episodes(_system(), tasks, Failing(3, fail, tasks), tmp_path / "a",
                           progress=False)
    assert len(records) == N and [r["index"] for r in records] == list(range(N))
    errored = {r["index"]: r for r in records if r.get("errored")}
    assert sorted(errored) == [1, 4, 6]
    assert errored[1]["error"] == "execute: LookupError: unknown encoding: x-klingon"
    assert errored[4]["error"] == "execute: MemoryError"
    assert all(not r["success"] and r["learned_success"] is None for r in errored.values())
    assert summarize(records)["N"] == N  # counted, as failures
    # the same run again in another folder gives the same records: nothing depends on luck
    again = run_episodes(_system(), tasks, Failing(3, fail, tasks), tmp_path / "b",
                         progress=False)
    assert _strip(again) == _strip(records)
    # a rerun of the finished folder replays nothing (the executor would raise again)
    assert _strip(run_episodes(_system(), tasks, Failing(3, fail, tasks), tmp_path / "a",
                               progress=False)) == _strip(records)
    assert not (tmp_path / "a" / INFLIGHT).exists()


class HalfEnd:
    """A memory system (the runner's interface) whose `end` changes the memory, then
    fails, on one task: the runner must put the memory back to before that episode."""

    def __init__(self, inner, fail_task: str) -> None:
        self.inner, self.fail_task = inner, fail_task
        self.name = inner.name

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def end(self, task, episode):
        out = self.inner.end(task, episode)
        if task.id == self.fail_task:
            raise RuntimeError("failed halfway through the update")
        return out


def test_an_update_that_fails_halfway_leaves_no_trace_in_the_memory(tmp_path):
    tasks = _tasks()
    system = HalfEnd(_system(), tasks[5].id)
    records = run_episodes(system, tasks, SimExecutor(seed=3), tmp_path / "r", progress=False)
    assert records[5]["errored"] == "exception"
    assert records[5]["error"] == "end: RuntimeError: failed halfway through the update"
    memory = system.inner.memory
    assert memory.edge_ids_where("task_id", tasks[5].id) == []  # rolled back
    assert memory.edge_ids_where("task_id", tasks[6].id)  # later episodes learned as usual


def test_a_judge_that_raises_fails_the_episode_not_the_run(tmp_path):
    tasks = _tasks()

    def judge(task, episode):
        if task.id == tasks[2].id:
            raise ValueError("the judge choked on the answer")
        return bool(episode.success)

    records = run_episodes(_system(), tasks, SimExecutor(seed=3), tmp_path / "j", judge=judge,
                           progress=False)
    assert records[2]["errored"] == "exception" and records[2]["success"] is False
    assert records[2]["error"].startswith("judge: ValueError: the judge choked")


def test_a_storage_error_stops_the_run_naming_what_is_kept(tmp_path):
    tasks = _tasks()
    disk_full = OSError(errno.ENOSPC, "No space left on device")
    with pytest.raises(StorageError) as err:
        run_episodes(_system(), tasks, Failing(3, {4: disk_full}, tasks), tmp_path / "s",
                     progress=False)
    text = str(err.value)
    assert "No space left on device" in text and "keeps 4 finished episode(s)" in text
    assert "rerun the same command to resume" in text
    # the state is whole: the same run resumes from it once the disk has room
    done = run_episodes(_system(), tasks, SimExecutor(seed=3), tmp_path / "s", progress=False)
    ref = run_episodes(_system(), tasks, SimExecutor(seed=3), tmp_path / "ref", progress=False)
    assert _strip(done) == _strip(ref)


def test_a_state_copied_from_another_run_is_refused_naming_both(tmp_path):
    tasks = _tasks()
    run_episodes(_system(encoder_seed=0), tasks[:4], SimExecutor(seed=3), tmp_path / "mine",
                 progress=False)
    run_episodes(_system(encoder_seed=1), tasks[:4], SimExecutor(seed=3), tmp_path / "other",
                 progress=False)
    shutil.rmtree(tmp_path / "mine" / "state")
    shutil.copytree(tmp_path / "other" / "state", tmp_path / "mine" / "state")
    with pytest.raises(RunError) as err:
        run_episodes(_system(encoder_seed=0), tasks[:4], SimExecutor(seed=3), tmp_path / "mine",
                     progress=False)
    text = str(err.value)
    assert "the saved state is not this run's memory" in text
    assert "'hashing(dim=64,seed=1)'" in text and "'hashing(dim=64,seed=0)'" in text


# --------------------------------------------------------------------------- the command line
ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-m", "hyperskill_lite", "run", "--world", "skillworld", "--profile",
       "xbench", "--method", "hyperskill", "--episodes", str(N), "--seed", "3",
       "--encoder", "hashing", "--no-progress"]


def _env(crash: str | None = None) -> dict[str, str]:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "PYTHONUNBUFFERED": "1"}
    env.pop("HYPERSKILL_CRASH_AT", None)
    env.pop("HYPERSKILL_TRACEBACK", None)
    if crash:
        env["HYPERSKILL_CRASH_AT"] = crash
    return env


def _cli(out: Path, crash: str | None = None, extra=()) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *extra, "--out", str(out)], env=_env(crash),
                          capture_output=True, text=True, timeout=600)


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    out = tmp_path_factory.mktemp("ref") / "run"
    assert _cli(out).returncode == 0
    return out


def _one_line(stderr: str) -> str:
    lines = [ln for ln in stderr.strip().splitlines() if not ln.startswith("WARNING ")]
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    return lines[0]


def test_cli_an_episode_that_raised_is_recorded_and_a_rerun_resumes_past_it(tmp_path,
                                                                           reference):
    out = tmp_path / "run"
    first = _cli(out, "in_episode:3:raise")
    assert first.returncode == 3  # finished, with an errored episode
    line = _one_line(first.stderr)
    assert line.startswith(f"error: 1 of {N} episode(s) errored") and "MemoryError" in line
    assert "a rerun does not replay them" in line
    records = read_records(out)
    assert len(records) == N and records[3]["errored"] == "exception"
    # resuming never replays the crash: the rerun (still raising there) is complete at once
    again = _cli(out, "in_episode:3:raise")
    assert f"already complete ({N} episodes)" in again.stdout and again.returncode == 3
    assert _strip(read_records(out)) == _strip(records)
    want = _strip(read_records(reference))
    assert [r["index"] for r in _strip(records)] == [r["index"] for r in want]


def test_cli_a_process_that_dies_twice_in_an_episode_does_not_loop(tmp_path, reference):
    out = tmp_path / "run"
    assert _cli(out, "in_episode:4").returncode == -signal.SIGKILL
    assert json.loads((out / INFLIGHT).read_text())["attempts"] == 1
    assert _cli(out, "in_episode:4").returncode == -signal.SIGKILL  # the same crash again
    third = _cli(out, "in_episode:4")  # gives up on episode 5 and finishes the run
    assert third.returncode == 3 and "errored" in _one_line(third.stderr)
    records = read_records(out)
    assert len(records) == N and records[4]["errored"] == "crash"
    assert records[4]["error"].startswith("crash: the process died 2 times during this episode")
    assert not (out / INFLIGHT).exists()
    # before and after it, the run is the uninterrupted one
    want = _strip(read_records(reference))
    assert _strip(records)[:4] == want[:4]


def test_cli_a_single_kill_mid_episode_is_retried_and_ends_as_uninterrupted(tmp_path,
                                                                          reference):
    out = tmp_path / "run"
    assert _cli(out, "in_episode:4").returncode == -signal.SIGKILL
    assert _cli(out).returncode == 0
    assert _strip(read_records(out)) == _strip(read_records(reference))


@pytest.mark.parametrize("moment", ["in_episode:2:int", "state_written:5:int",
                                    "before_state:7:int"])
def test_cli_ctrl_c_at_any_moment_is_one_true_line_and_exit_130(tmp_path, reference, moment):
    out = tmp_path / "run"
    done = _cli(out, moment)
    assert done.returncode == 130
    line = _one_line(done.stderr)
    kept = len(read_records(out))
    assert line == (f"interrupted: {out} keeps {kept} finished episode(s) (episodes.jsonl "
                    f"and the saved state after episode {kept}, intact); rerun the same "
                    "command to resume"), line
    assert kept == int(moment.split(":")[1])
    assert not (out / INFLIGHT).exists()  # Ctrl-C is not a crash
    assert _cli(out).returncode == 0
    assert _strip(read_records(out)) == _strip(read_records(reference))


def test_after_ctrl_c_a_thread_starting_its_next_episode_writes_no_marker(tmp_path):
    """The race the live sweep met: Ctrl-C cleared the markers, then a cell's thread
    began its next episode and marked it, so resume would count it as a crash."""
    from hyperskill_lite.runner import inflight as files

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir(), b.mkdir()
    files.mark_inflight(a, 3, "t3", 1)
    try:
        files.clear_all_inflight()  # what the CLI does on Ctrl-C
        assert not (a / INFLIGHT).exists()
        files.mark_inflight(b, 0, "t0", 1)  # a thread that did not hear of it yet
        assert not (b / INFLIGHT).exists()
    finally:
        files.resume_inflight_marking()  # the command returned: markers are written again
    files.mark_inflight(b, 0, "t0", 1)
    assert files.inflight_attempts(b, 0) == 1
    files.clear_inflight(b)


def _maps(pid: int, name: bytes) -> bool:
    try:
        return name in Path(f"/proc/{pid}/maps").read_bytes()
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="needs Linux /proc")
def test_cli_ctrl_c_while_importing_is_one_line_and_writes_nothing(tmp_path):
    out = tmp_path / "run"
    proc = subprocess.Popen([*CLI, "--out", str(out)], env=_env(), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 120
    while not _maps(proc.pid, b"numpy") and proc.poll() is None:  # importing the package
        assert time.monotonic() < deadline, "the command never loaded numpy"
        time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the signal arrived")
    assert proc.returncode == 130
    line = _one_line(err)
    assert line.startswith("interrupted"), line
    if not out.exists():
        assert "nothing was written" in line
    else:
        assert str(out) in line


def test_cli_a_state_from_another_run_is_refused_before_anything_is_printed(tmp_path):
    mine, other = tmp_path / "mine", tmp_path / "other"
    assert _cli(mine).returncode == 0
    assert _cli(other, extra=["--k", "5"]).returncode == 0
    shutil.rmtree(mine / "state")
    shutil.copytree(other / "state", mine / "state")
    done = _cli(mine)
    assert done.returncode == 2 and done.stdout == ""
    line = _one_line(done.stderr)
    assert "the saved state is not this run's memory" in line and "k_u 5 vs 2" in line


def test_cli_a_rerun_with_other_settings_refuses_without_claiming_completion(tmp_path):
    out = tmp_path / "run"
    assert _cli(out).returncode == 0
    done = _cli(out, extra=["--rho", "0.5"])
    assert done.returncode == 2 and "already complete" not in done.stdout
    assert "different settings (config.rho: 0.1 there, 0.5 now)" in _one_line(done.stderr)


def _disk_full_script(mount: Path, out: Path, keep: Path, size_kb: int) -> str:
    """A shell script for a private mount namespace: a tmpfs of `size_kb` at `mount`,
    the run into it, then its folder copied out to `keep` (the tmpfs goes with the
    namespace)."""
    run = " ".join(f"'{a}'" for a in [*CLI, "--out", str(out)])
    return (f"mount -t tmpfs -o size={size_kb}k tmpfs '{mount}' && "
            f"{run} > '{keep}.stdout' 2> '{keep}.stderr'; echo $? > '{keep}.rc'; "
            f"cp -a '{out}' '{keep}'")


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("unshare") is None,
                    reason="mounting a small tmpfs (a real full disk) needs root and unshare")
def test_cli_a_full_disk_is_one_line_and_the_state_stays_intact(tmp_path, reference):
    mount, keep = tmp_path / "small-disk", tmp_path / "kept"
    mount.mkdir()
    script = _disk_full_script(mount, mount / "run", keep, size_kb=360)
    done = subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
                          env={**_env(), "HYPERSKILL_CACHE": "off"}, capture_output=True,
                          text=True, timeout=600)
    if done.returncode != 0 and not keep.exists():
        pytest.skip(f"no private tmpfs here ({done.stderr.strip()[:200]})")
    rc = int(Path(f"{keep}.rc").read_text())
    err = Path(f"{keep}.stderr").read_text()
    assert rc == 2, err
    line = _one_line(err)
    assert line.startswith("error: ") and "No space left on device" in line, line
    kept = len(read_records(keep))
    assert 0 < kept < N, "the disk filled before the first episode or never"
    assert not (keep / INFLIGHT).exists()  # stopped, not crashed: no attempt counted
    assert (f"keeps {kept} finished episode(s)" in line
            or f"keeps {kept + 1} finished episode(s)" in line), line
    # the copy (now on a roomy disk) resumes and ends as the uninterrupted run
    rerun = _cli(keep)
    assert rerun.returncode == 0, rerun.stderr
    assert _strip(read_records(keep)) == _strip(read_records(reference))
