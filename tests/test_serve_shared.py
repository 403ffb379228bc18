"""The shared memory folder behind `serve`: many writers, many processes, crashes.

Real processes on one folder (the journal's flock and the crash-safe save are what is
tested), SIGKILL at the save's fault points and in the middle of a learn, torn and
corrupt journal lines. Waits on signals (lines from the children), never on sleeps.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

pytest.importorskip("xxhash")

from hyperskill_lite.core.embed import HashingEncoder  # noqa: E402
from hyperskill_lite.core.io import load_memory, save_memory, verify_memory  # noqa: E402
from hyperskill_lite.core.records import Skill  # noqa: E402
from hyperskill_lite.serve import journal as jr  # noqa: E402
from hyperskill_lite.serve.records import LearnItem, MergeItem  # noqa: E402
from hyperskill_lite.serve.shared import SharedMemory

ENC = HashingEncoder(dim=64)

CHILD = textwrap.dedent("""
    import json, sys
    from hyperskill_lite.core.embed import HashingEncoder
    from hyperskill_lite.core.records import Skill
    from hyperskill_lite.serve.shared import LearnItem, SharedMemory
    path, who, n, every = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    sm = SharedMemory(path, HashingEncoder(dim=64), checkpoint_every=every)
    print("ready", flush=True)
    sys.stdin.readline()
    for i in range(n):
        out = sm.learn(LearnItem(f"task {who}-{i}", [f"step {who}-{i}"],
                                 [Skill(f"Skill {i % 3}", f"Do thing {i % 3} first.")],
                                 f"lesson {who}-{i}", i % 2 == 0, i + 1))
        print("learned", out["edge"], flush=True)
    print("done", flush=True)
    sys.stdin.readline()
    sm.sync()
    with sm.read() as m:
        print("state", json.dumps({e: m.edge(e).task for e in m.edge_ids()}), flush=True)
    sm.close()
""")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "HYPERSKILL_CRASH_AT"}
    env.update(OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", **extra)
    return env


def _child(path: Path, who: str, n: int, every: int, **env: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-c", CHILD, str(path), who, str(n), str(every)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True,
                            env=_env(**env))


def _wait_for(proc: subprocess.Popen, word: str) -> list[str]:
    """Lines of `proc` up to and including the first starting with `word`."""
    lines = []
    for line in proc.stdout:
        lines.append(line.strip())
        if line.startswith(word):
            return lines
    raise AssertionError(f"child ended before {word!r}: {lines}")


def _item(task: str, skill: str = "Check The Source", success: bool = True, steps: int = 3,
          used: list[str] | None = None) -> LearnItem:
    return LearnItem(task, [f"find {task}", f"read {task}"],
                     [Skill(skill, f"{skill}: read it before answering.",
                            "success" if success else "failure")],
                     f"lesson of {task}", success, steps, used_ids=used or [])


def test_processes_learning_at_once_lose_nothing(tmp_path):
    """Four processes learn 6 trajectories each at once (checkpoints every 4 records
    racing the appends): 24 hyperedges, each task once, a folder that verifies, and every
    process ends holding the same memory (same ids) as a fresh load."""
    path = tmp_path / "mem"
    SharedMemory(path, ENC).close()
    kids = [_child(path, f"p{j}", 6, 4) for j in range(4)]
    for k in kids:
        _wait_for(k, "ready")
    for k in kids:
        k.stdin.write("\n")
        k.stdin.flush()
    for k in kids:
        _wait_for(k, "done")
    states = []
    for k in kids:
        k.stdin.write("\n")
        k.stdin.flush()
        states.append(json.loads(_wait_for(k, "state")[-1].split(" ", 1)[1]))
        assert k.wait(timeout=120) == 0
    verify_memory(path)
    fresh = SharedMemory(path, readonly=True).memory
    fresh.validate()
    tasks = sorted(fresh.edge(e).task for e in fresh.edge_ids())
    assert tasks == sorted(f"task p{j}-{i}" for j in range(4) for i in range(6))
    want = {e: fresh.edge(e).task for e in fresh.edge_ids()}
    assert all(s == want for s in states)


def test_threads_learning_and_reading_at_once(tmp_path):
    """Eight threads of one process learn while others read: every learn is one
    hyperedge, reads never see a torn memory."""
    sm = SharedMemory(tmp_path / "mem", ENC, checkpoint_every=5)
    errors: list[BaseException] = []

    def learn(t: int) -> None:
        try:
            for i in range(5):
                sm.learn(_item(f"t{t}-{i}", skill=f"Skill {i}"))
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    def read() -> None:
        try:
            for _ in range(20):
                with sm.read() as m:
                    m.validate()
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=learn, args=(t,)) for t in range(8)]
    threads += [threading.Thread(target=read) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert sm.memory.stats()["hyperedges"] == 40
    sm.close()
    again = SharedMemory(tmp_path / "mem")
    assert sorted(again.memory.edge(e).task for e in again.memory.edge_ids()) == sorted(
        f"t{t}-{i}" for t in range(8) for i in range(5))


def test_a_learn_is_durable_before_it_returns_and_kill_loses_only_the_call_in_flight(tmp_path):
    """SIGKILL a process that is learning without pause: every learn that returned is in
    the memory after a reopen, plus at most the one in flight."""
    path = tmp_path / "mem"
    SharedMemory(path, ENC).close()
    kid = _child(path, "k", 10_000, 7)
    _wait_for(kid, "ready")
    kid.stdin.write("\n")
    kid.stdin.flush()
    learned = []
    for line in kid.stdout:
        if line.startswith("learned"):
            learned.append(line.split()[1])
        if len(learned) == 25:
            kid.send_signal(signal.SIGKILL)
            break
    kid.wait(timeout=60)
    # the learns that returned before the kill landed but were not read yet (a busy machine)
    learned += [line.split()[1] for line in kid.stdout if line.startswith("learned")]
    mem = SharedMemory(path).memory
    edges = mem.edge_ids()
    assert len(learned) >= 25 and set(learned) <= set(edges)
    assert len(learned) <= len(edges) <= len(learned) + 1
    mem.validate()


@pytest.mark.parametrize("point", ["memory_save_files", "memory_save_swap"])
def test_a_checkpoint_killed_inside_the_save_loses_nothing(tmp_path, point):
    """The save's fault points (core/io/write.py) SIGKILL the first checkpoint: after a
    reopen the memory holds every learned trajectory exactly once."""
    path = tmp_path / "mem"
    SharedMemory(path, ENC).close()
    kid = _child(path, "c", 3, 3, HYPERSKILL_CRASH_AT=f"{point}:0")
    _wait_for(kid, "ready")
    kid.stdin.write("\n")
    kid.stdin.flush()
    kid.communicate(timeout=60)
    assert kid.returncode == -signal.SIGKILL
    sm = SharedMemory(path)
    tasks = sorted(sm.memory.edge(e).task for e in sm.memory.edge_ids())
    assert tasks == ["task c-0", "task c-1", "task c-2"]
    sm.learn(_item("after"))
    sm.close()
    verify_memory(path)
    assert load_memory(path).stats()["hyperedges"] == 4


def test_folder_saved_after_its_journal_began_applies_only_what_it_lacks(tmp_path):
    """A crash between a checkpoint's save and its new journal leaves records the folder
    already holds: they are not applied twice (learn ids are checked)."""
    path = tmp_path / "mem"
    sm = SharedMemory(path, ENC, checkpoint_every=0)
    for i in range(3):
        sm.learn(_item(f"task {i}"))
    save_memory(sm.memory, path)  # the save happened, the journal swap did not
    sm._closed = True  # the process "died" here: no checkpoint at close
    again = SharedMemory(path)
    assert again.memory.stats()["hyperedges"] == 3
    assert again.pending == 0  # it checkpointed at once


def test_torn_last_line_is_cut_off_and_a_corrupt_middle_is_named(tmp_path):
    path = tmp_path / "mem"
    sm = SharedMemory(path, ENC, checkpoint_every=0)
    sm.learn(_item("one"))
    sm.learn(_item("two"))
    with open(sm.journal, "ab") as f:
        f.write(b'0123456789abcdef {"seq": 3, "op": "lea')  # a writer killed mid-line
    second = SharedMemory(path)  # another process
    assert second.memory.stats()["hyperedges"] == 2
    second.learn(_item("three"))
    sm.sync()
    assert sm.memory.stats()["hyperedges"] == 3
    lines = sm.journal.read_bytes().splitlines()
    assert all(jr.decode_line(line) is not None for line in lines)
    data = sm.journal.read_bytes().splitlines(keepends=True)
    data[1] = data[1][:20] + b"X" + data[1][21:]  # damage a record in the middle
    sm.journal.write_bytes(b"".join(data))
    with pytest.raises(jr.JournalError, match="damaged line"):
        SharedMemory(path)


def test_maintenance_planned_on_a_snapshot_is_committed_once(tmp_path):
    """A cycle is one record; a plan made before another cycle committed is dropped; a
    merge whose nodes went away meanwhile is skipped."""
    sm = SharedMemory(tmp_path / "mem", ENC)
    for i in range(3):
        sm.learn(_item(f"task {i}", skill=f"Skill {i}"))
    a, b = sm.memory.node_ids(kind="skill")[:2]
    _snap, base = sm.snapshot()
    merged = MergeItem(a, b, Skill("Merged Skill", "Both at once.", "success"))
    out = sm.commit_maintenance(base, [], [merged])
    assert [m["a"] for m in out["merged"]] == [a] and sm.cycles == 1
    assert sm.commit_maintenance(base, [], [merged]) is None  # stale plan: dropped
    out = sm.commit_maintenance(sm.cycles, [a], [merged])  # a and b are gone now
    assert out["merged"] == [] and out["pruned"] == []
    other = SharedMemory(tmp_path / "mem")
    assert other.memory.node_ids(kind="skill") == sm.memory.node_ids(kind="skill")


def test_credits_reach_the_used_elements(tmp_path):
    sm = SharedMemory(tmp_path / "mem", ENC)
    sm.learn(_item("first"))
    s = sm.memory.node_ids(kind="skill")[0]
    sm.learn(_item("second", skill="Other Skill", success=False, used=[s, "e1", "s999"]))
    assert (sm.memory.node(s).nu, sm.memory.node(s).sigma) == (1, 0.0)
    assert sm.memory.edge("e1").nu == 1


def test_refuses_a_run_folders_state_and_a_missing_folder_with_a_journal(tmp_path):
    run_state = tmp_path / "run" / "state"
    run_state.mkdir(parents=True)
    (run_state / "progress.json").write_text("{}")
    with pytest.raises(ValueError, match="run folder's saved state"):
        SharedMemory(run_state / "memory", ENC)
    path = tmp_path / "mem"
    SharedMemory(path, ENC).close()
    path.rename(tmp_path / "moved")
    with pytest.raises(FileNotFoundError, match="journal"):
        SharedMemory(path, ENC)
    (tmp_path / "notmem").mkdir()
    (tmp_path / "notmem" / "mine.txt").write_text("user data")
    with pytest.raises(FileExistsError):
        SharedMemory(tmp_path / "notmem", ENC)
    assert (tmp_path / "notmem" / "mine.txt").read_text() == "user data"


def test_refuses_another_encoder_for_an_existing_memory(tmp_path):
    SharedMemory(tmp_path / "mem", ENC).close()
    with pytest.raises(ValueError, match="built with the encoder 'hashing\\(dim=64,seed=0\\)'"):
        SharedMemory(tmp_path / "mem", HashingEncoder(dim=64, seed=1))
