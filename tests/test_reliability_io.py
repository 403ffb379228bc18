"""Reliability of memory files (issue 11): SIGKILL during a save leaves a loadable memory,
two writers are refused clearly, a crash inside a run's memory save resumes exactly, and
every kind of bad memory directory is refused with the file and the problem named.

The crash tests kill real processes with SIGKILL. To keep each kill cheap, one helper
process imports the library once and forks a fresh saver for every kill (fork of a
single-threaded process); the test itself only loads and checks what is on disk.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import (
    MANIFEST,
    MemoryFormatError,
    MemoryLockedError,
    file_checksum,
    load_memory,
    memory_lock,
    save_memory,
    to_state,
)
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.runner import read_records

pytestmark = pytest.mark.skipif(os.name != "posix", reason="fork, SIGKILL and flock are POSIX")

ROOT = Path(__file__).resolve().parents[1]
STEP = 3  # trajectories added between two saves of the saver
DIM = 32


def _env(**extra: str) -> dict[str, str]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    env.pop("HYPERSKILL_CRASH_AT", None)
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


def grow(mem: HypergraphMemory, n_new: int) -> None:
    """Add trajectories "task i" for the next `n_new` values of i (deterministic)."""
    n = len(mem.edge_ids())
    for i in range(n, n + n_new):
        skills = [Skill(f"Skill {i % 7}", f"Content of skill {i % 7}.", "success")]
        if i % 3 == 0:
            skills.append(Skill(f"Mistake {i % 5}", f"Avoid mistake {i % 5}.", "failure"))
        mem.add_trajectory(
            f"task {i}", [f"step {i}", f"check {i}"], skills, f"lesson {i}", i % 3 != 0, 1 + i % 5
        )


# ---------------------------------------------------------------- SIGKILL during save
# The helper reads "go <seconds>" lines; for each it forks a saver (load the directory,
# add STEP trajectories, save, append the new size to the log, repeat), SIGKILLs it after
# <seconds>, reaps it and answers "<wait status>".
ZYGOTE = r"""
import os, signal, sys, time
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import load_memory, save_memory
sys.path.insert(0, sys.argv[3])
from test_reliability_io import DIM, STEP, grow

path, log = sys.argv[1], sys.argv[2]

def saver():
    mem = load_memory(path, encoder=HashingEncoder(dim=DIM, seed=0))
    while True:
        grow(mem, STEP)
        save_memory(mem, path)
        fd = os.open(log, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        os.write(fd, f"{len(mem.edge_ids())}\n".encode())
        os.fsync(fd)
        os.close(fd)

for line in sys.stdin:
    delay = float(line.split()[1])
    pid = os.fork()
    if pid == 0:
        try:
            saver()
        finally:
            os._exit(3)
    time.sleep(delay)
    os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    print(status, flush=True)
"""


def test_sigkill_during_save_leaves_the_previous_or_the_new_memory(tmp_path):
    path, log = tmp_path / "mem", tmp_path / "saved.log"
    enc = HashingEncoder(dim=DIM, seed=0)
    first = HypergraphMemory(enc)
    grow(first, STEP)
    save_memory(first, path)
    log.write_text(f"{STEP}\n")
    helper = subprocess.Popen(
        [sys.executable, "-c", ZYGOTE, str(path), str(log), str(Path(__file__).parent)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(),
    )
    rng = np.random.default_rng(11)
    sizes, mid_save = [STEP], 0
    try:
        for _ in range(30):
            helper.stdin.write(f"go {rng.uniform(0.03, 0.25):.3f}\n")
            helper.stdin.flush()
            status = int(helper.stdout.readline() or -1)
            assert os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL, (
                f"the saver died by itself (status {status}): {helper.stderr.read()}"
            )
            debris = [p.name for p in tmp_path.iterdir() if p.name.startswith("mem.")]
            mid_save += bool(debris) or not path.exists()
            # on disk for sure: the last save that returned, or what we loaded last time
            confirmed = max(int(log.read_text().split()[-1]), sizes[-1])
            mem = load_memory(path, encoder=enc)
            mem.validate()
            n = len(mem.edge_ids())
            assert n in (confirmed, confirmed + STEP), (n, confirmed)  # previous or new
            assert n >= sizes[-1]  # nothing lost
            assert [mem.edge(e).task for e in mem.edge_ids()] == [f"task {i}" for i in range(n)]
            sizes.append(n)
    finally:
        helper.stdin.close()
        helper.wait(timeout=10)
    assert sizes[-1] > 10 * STEP  # the savers did make progress
    print(f"kills that left save debris: {mid_save}/30; final size {sizes[-1]}")
    assert mid_save >= 3  # most kills did land inside a save (debris or a missing dir)


def _crash_save(path: Path, where: str) -> subprocess.CompletedProcess:
    """A process that saves a growing memory to `path` twice, SIGKILLed at `where` of its
    second save (HYPERSKILL_CRASH_AT, io.py's fault injection)."""
    code = (
        "import sys\nfrom hyperskill_lite.core.embed import HashingEncoder\n"
        "from hyperskill_lite.core.io import save_memory\nfrom hyperskill_lite.core.memory import HypergraphMemory\n"
        f"sys.path.insert(0, {str(Path(__file__).parent)!r})\n"
        "from test_reliability_io import DIM, STEP, grow\n"
        "mem = HypergraphMemory(HashingEncoder(dim=DIM, seed=0))\n"
        f"grow(mem, STEP)\nsave_memory(mem, {str(path)!r})\ngrow(mem, STEP)\nsave_memory(mem, {str(path)!r})\n"
    )
    return subprocess.run(
        [sys.executable, "-c", code],
        env=_env(HYPERSKILL_CRASH_AT=f"{where}:1"),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_crash_between_the_renames_then_a_failing_save_loses_nothing(tmp_path):
    path = tmp_path / "mem"
    assert _crash_save(path, "memory_save_swap").returncode == -signal.SIGKILL
    assert not path.exists()  # killed after "mem -> mem.old", before "mem.tmp -> mem"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mem.lock", "mem.old", "mem.tmp"]
    enc = HashingEncoder(dim=DIM, seed=0)
    assert len(load_memory(path, encoder=enc).edge_ids()) == 2 * STEP  # the new copy
    # the next save puts the newest copy back first, so even a save that fails
    # (here on a meta value that is not JSON) cannot leave only the older copy
    bad = HypergraphMemory(enc)
    bad.add_trajectory("t", [], [], "l", True, 1, meta={"obj": object()})
    with pytest.raises(TypeError, match="not JSON-serialisable"):
        save_memory(bad, path)
    assert len(load_memory(path, encoder=enc).edge_ids()) == 2 * STEP
    assert not (tmp_path / "mem.tmp").exists()
    mem = load_memory(path, encoder=enc)
    grow(mem, STEP)
    save_memory(mem, path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mem"]  # debris and lock gone


def test_crash_after_writing_the_new_copy_keeps_the_previous_one(tmp_path):
    path = tmp_path / "mem"
    assert _crash_save(path, "memory_save_files").returncode == -signal.SIGKILL
    mem = load_memory(path, encoder=HashingEncoder(dim=DIM, seed=0))
    assert len(mem.edge_ids()) == STEP  # the previous memory; the new copy waits in .tmp
    mem.validate()


# ---------------------------------------------------------------- two writers
HOLDER = r"""
import os, sys, time
from pathlib import Path
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import memory_lock, save_memory
from hyperskill_lite.core.memory import HypergraphMemory
path, ready, release = (Path(a) for a in sys.argv[1:4])
mem = HypergraphMemory(HashingEncoder(dim=8, seed=0))
mem.add_trajectory("held", [], [], "by the holder", True, 1)
with memory_lock(path):  # what save holds; a save inside the block re-enters it
    ready.write_text(str(os.getpid()))
    deadline = time.monotonic() + 30
    while not release.exists() and time.monotonic() < deadline:
        time.sleep(0.01)
    save_memory(mem, path)
"""


def _wait_for(p: Path, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not p.exists():
        assert time.monotonic() < deadline, f"{p} never appeared"
        time.sleep(0.01)


def test_second_process_saving_the_same_directory_gets_a_clear_error(tmp_path):
    path, ready, release = tmp_path / "mem", tmp_path / "ready", tmp_path / "release"
    mem = HypergraphMemory(HashingEncoder(dim=8, seed=0))
    mem.add_trajectory("mine", [], [], "by the test", True, 1)
    save_memory(mem, path)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLDER, str(path), str(ready), str(release)],
        env=_env(),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        _wait_for(ready)
        with pytest.raises(MemoryLockedError) as exc:
            save_memory(mem, path)
        msg = str(exc.value)
        assert str(path) in msg and f"pid {holder.pid}" in msg and "locked" in msg
        assert isinstance(exc.value, MemoryFormatError)  # one except clause for io errors
        assert load_memory(path, encoder=mem.encoder).edge(mem.edge_ids()[0]).task == "mine"
    finally:
        release.touch()
        assert holder.wait(timeout=30) == 0, holder.stderr.read()
    assert load_memory(path, encoder=mem.encoder).edge("e1").task == "held"  # the holder saved
    save_memory(mem, path)  # the lock is free again
    assert load_memory(path, encoder=mem.encoder).edge("e1").task == "mine"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["mem", "ready", "release"]


def test_lock_is_reentrant_in_its_thread_and_refused_to_others(tmp_path):
    path = tmp_path / "mem"
    mem = HypergraphMemory(HashingEncoder(dim=8, seed=0))
    errors: list[BaseException] = []

    def other_thread() -> None:
        try:
            save_memory(mem, path)
        except MemoryLockedError as e:
            errors.append(e)

    with memory_lock(path) as lock:
        assert lock.read_text() == str(os.getpid())
        save_memory(mem, path)  # re-enters the lock this thread holds
        t = threading.Thread(target=other_thread)
        t.start()
        t.join(timeout=30)
    assert len(errors) == 1 and "another thread" in str(errors[0]) and str(path) in str(errors[0])
    assert not lock.exists()
    save_memory(mem, path)
    assert load_memory(path, encoder=mem.encoder).stats() == mem.stats()


def test_threads_saving_their_own_and_one_shared_directory(tmp_path):
    """A threaded sweep's streams save their own memories side by side; threads that
    contend for one directory are refused as "another thread" (never mistaken for
    another process racing an unlock), and no lock file is left behind."""
    mem = HypergraphMemory(HashingEncoder(dim=8, seed=0))
    mem.add_trajectory("t", [], [], "by the test", True, 1)
    outcomes: list[str] = []

    def stream(k: int) -> None:
        for _ in range(15):
            save_memory(mem, tmp_path / f"own{k}")
            try:
                save_memory(mem, tmp_path / "shared")
                outcomes.append("saved")
            except MemoryLockedError as e:
                outcomes.append("thread" if "another thread" in str(e) else str(e))

    threads = [threading.Thread(target=stream, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert len(outcomes) == 8 * 15 and set(outcomes) <= {"saved", "thread"}, set(outcomes)
    assert "saved" in outcomes
    assert not list(tmp_path.glob("*.lock"))
    for k in range(8):
        assert load_memory(tmp_path / f"own{k}", encoder=mem.encoder).stats() == mem.stats()
    assert load_memory(tmp_path / "shared", encoder=mem.encoder).stats() == mem.stats()


def test_a_stale_lock_file_from_a_killed_writer_does_not_block(tmp_path):
    path = tmp_path / "mem"
    (tmp_path / "mem.lock").write_text("99999999")  # left by a SIGKILLed process
    mem = HypergraphMemory(HashingEncoder(dim=8, seed=0))
    save_memory(mem, path)  # flock died with its holder: the file alone does not lock
    assert not (tmp_path / "mem.lock").exists()


# ---------------------------------------------------------------- bad directories
V1 = Path(__file__).resolve().parent / "fixtures" / "memory_v1"


def _rewrite(path: Path, name: str, data: bytes) -> None:
    """Replace file `name` and update the manifest so it passes the size/checksum check
    (a writer bug, not a torn write): the deeper checks must catch what is wrong."""
    (path / name).write_bytes(data)
    man = json.loads((path / MANIFEST).read_text())
    if man["version"] == 1:
        man["files"][name] = {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
    else:
        man["files"][name] = {"bytes": len(data), "checksum": file_checksum(data)}
    (path / MANIFEST).write_text(json.dumps(man))


def _edit_json(name: str, change):
    def edit(path: Path) -> None:
        records = json.loads((path / name).read_text())
        change(records)
        _rewrite(path, name, json.dumps(records).encode())

    return edit


def _edit_array(name: str, change):
    def edit(path: Path) -> None:
        arr = np.load(path / name)
        arr = change(arr)
        buf = io.BytesIO()
        np.save(buf, arr, allow_pickle=False)
        _rewrite(path, name, buf.getvalue())

    return edit


def _edit_manifest(change):
    def edit(path: Path) -> None:
        man = json.loads((path / MANIFEST).read_text())
        change(man)
        (path / MANIFEST).write_text(json.dumps(man))

    return edit


def _truncate(name: str, keep: int, fix_manifest: bool):
    def edit(path: Path) -> None:
        data = (path / name).read_bytes()[:keep]
        if fix_manifest:
            _rewrite(path, name, data)
        else:
            (path / name).write_bytes(data)

    return edit


def _foreign(path: Path) -> None:
    for p in path.iterdir():
        p.unlink()
    (path / "results.csv").write_text("a,b\n1,2\n")


def _set(field: str, index: int, value):
    def change(arr):
        arr[field][index] = value
        return arr

    return change


COMMON = {
    "newer version": (
        _edit_manifest(lambda m: m.update(version=4)),
        MANIFEST,
        r"format version 4 is newer than this library reads \(3\)",
    ),
    "missing counters": (
        _edit_manifest(lambda m: m.update(counters={})),
        MANIFEST,
        r"malformed entries \['counters'\]",
    ),
    "truncated manifest": (
        lambda p: (p / MANIFEST).write_text('{"format": "hyperskill_lite.'),
        MANIFEST,
        "not valid JSON, truncated or corrupt",
    ),
    "foreign manifest": (
        lambda p: (p / MANIFEST).write_text('{"name": "my-notes"}'),
        MANIFEST,
        r"format None is not 'hyperskill_lite\.memory' \(a foreign file\)",
    ),
    "foreign directory": (_foreign, MANIFEST, r"missing \(not a saved memory"),
}

BAD_V2 = {
    **COMMON,
    "truncated npy": (
        _truncate("u_emb.npy", 100, False),
        "u_emb.npy",
        r"\d+ bytes, the manifest records \d+ \(truncated or modified\)",
    ),
    "truncated npy, manifest agrees": (
        _truncate("e_emb.npy", 100, True),
        "e_emb.npy",
        r"not a readable \.npy array",
    ),
    "flipped byte": (
        lambda p: (p / "text.json").write_bytes(
            (p / "text.json").read_bytes().replace(b"task 1", b"task 9")
        ),
        "text.json",
        r"checksum differs from the manifest \(corrupt\)",
    ),
    "dangling skill index": (
        _edit_array("inc_s.npy", lambda a: np.vstack([a, [[999, 0]]])),
        "inc_s.npy",
        r"memberships, the manifest counts",
    ),
    "dangling node index, counts agree": (
        _edit_array("inc_u.npy", lambda a: np.where(np.arange(a.size).reshape(a.shape) == 0, 999, a)),
        "inc_u.npy",
        r"hyperedge e1 lists unknown node",
    ),
    "node listed twice": (
        _edit_array("inc_u.npy", lambda a: np.vstack([a[:1], a[:-1]])),
        "inc_u.npy",
        "hyperedge e1 lists a node twice",
    ),
    "not sorted by hyperedge": (
        _edit_array("inc_u.npy", lambda a: a[::-1].copy()),
        "inc_u.npy",
        "not sorted by hyperedge",
    ),
    "duplicate id": (
        _edit_array("u_rows.npy", _set("num", 1, 1)),
        "u_rows.npy",
        "id 'u1' appears twice",
    ),
    "id past the counter": (
        _edit_array("e_rows.npy", _set("num", 0, 999)),
        "e_rows.npy",
        "ids outside",
    ),
    "more successes than retrievals": (
        _edit_array("s_rows.npy", _set("sigma", 0, 99.0)),
        "s_rows.npy",
        "stats outside",
    ),
    "rows of another dtype": (
        _edit_array("u_rows.npy", lambda a: a["nu"].astype(np.float32)),
        "u_rows.npy",
        "rows of dtype",
    ),
    "not a unit embedding": (
        _edit_array("s_emb.npy", lambda a: a * 3),
        "s_emb.npy",
        "not finite with unit norm",
    ),
    "non-text content": (
        _edit_json("text.json", lambda d: d["u"]["content"].__setitem__(0, 7)),
        "text.json",
        r"record 'u1' has non-text \['content'\]",
    ),
    "text not an object": (
        lambda p: _rewrite(p, "text.json", b'[{"u1": {}}]'),
        "text.json",
        "expected a JSON object",
    ),
    "missing file": (lambda p: (p / "inc_s.npy").unlink(), "inc_s.npy", "missing"),
}

BAD_V1 = {  # a version 1 directory is still read, and still refused when broken
    **{k: v for k, v in COMMON.items() if k != "newer version"},
    "truncated npy": (
        _truncate("node_emb.npy", 100, False),
        "node_emb.npy",
        r"\d+ bytes, the manifest records \d+ \(truncated or modified\)",
    ),
    "truncated npy, manifest agrees": (
        _truncate("edge_emb.npy", 100, True),
        "edge_emb.npy",
        r"not a readable \.npy array",
    ),
    "flipped byte": (
        lambda p: (p / "edges.json").write_bytes(
            (p / "edges.json").read_bytes().replace(b"Lyon", b"Lyom")
        ),
        "edges.json",
        r"checksum differs from the manifest \(corrupt\)",
    ),
    "dangling skill id": (
        _edit_json("edges.json", lambda r: r[0]["node_ids"].append("s999")),
        "edges.json",
        r"hyperedge e1 lists unknown node\(s\) \['s999'\]",
    ),
    "dangling foreign id": (
        _edit_json("edges.json", lambda r: r[1]["node_ids"].append("x7")),
        "edges.json",
        r"hyperedge e2 lists unknown node\(s\) \['x7'\]",
    ),
    "node listed twice": (
        _edit_json("edges.json", lambda r: r[0]["node_ids"].append("u1")),
        "edges.json",
        "hyperedge e1 lists a node twice",
    ),
    "duplicate id": (
        _edit_json("nodes.json", lambda r: r[1].update(id="u1")),
        "nodes.json",
        "id 'u1' appears twice",
    ),
    "id of the wrong kind": (
        _edit_json("nodes.json", lambda r: r[0].update(id="s1")),
        "nodes.json",
        "id 's1' is not a 'u' id",
    ),
    "non-text content": (
        _edit_json("nodes.json", lambda r: r[0].update(content=7)),
        "nodes.json",
        r"record 'u1' has non-text \['content'\]",
    ),
    "records not an array": (
        lambda p: _rewrite(p, "nodes.json", b'{"u1": {}}'),
        "nodes.json",
        "expected a JSON array of records, got dict",
    ),
    "missing file": (lambda p: (p / "edges.json").unlink(), "edges.json", "missing"),
}
BAD_V1["newer version"] = (
    _edit_manifest(lambda m: m.update(version=4)),
    MANIFEST,
    r"format version 4 is newer than this library reads \(3\)",
)


@pytest.fixture(scope="module")
def saved_dir(tmp_path_factory) -> Path:
    mem = HypergraphMemory(HashingEncoder(dim=DIM, seed=0))
    grow(mem, 6)
    path = tmp_path_factory.mktemp("good") / "mem"
    save_memory(mem, path)
    return path


@pytest.mark.parametrize("case", list(BAD_V2))
def test_bad_memory_directory_is_refused_naming_file_and_problem(saved_dir, tmp_path, case):
    import shutil

    edit, fname, problem = BAD_V2[case]
    path = tmp_path / "mem"
    shutil.copytree(saved_dir, path)
    edit(path)
    with pytest.raises(MemoryFormatError, match=problem) as exc:
        load_memory(path, encoder=HashingEncoder(dim=DIM, seed=0))
    assert fname in str(exc.value)
    # the good copy it came from is untouched and loads
    assert len(load_memory(saved_dir, encoder=HashingEncoder(dim=DIM, seed=0)).edge_ids()) == 6


@pytest.mark.parametrize("case", list(BAD_V1))
def test_bad_version_1_directory_is_refused_naming_file_and_problem(tmp_path, case):
    import shutil

    edit, fname, problem = BAD_V1[case]
    path = tmp_path / "mem"
    shutil.copytree(V1, path)
    edit(path)
    with pytest.raises(MemoryFormatError, match=problem) as exc:
        load_memory(path)
    assert fname in str(exc.value)
    assert len(load_memory(V1).edge_ids()) == 4


def test_text_a_model_wrote_with_lone_surrogates_round_trips(tmp_path):
    # "\ud800" escapes in a reply's JSON give strings UTF-8 cannot encode; the memory
    # still saves (as JSON escapes) and loads back to the same strings
    mem = HypergraphMemory(HashingEncoder(dim=DIM, seed=0))
    mem.add_trajectory(
        "task \ud800",
        ["step \udfff"],
        [Skill("Name \ud83d", "Content.")],
        "lesson",
        True,
        2,
        meta={"note": "x\udcff"},
    )
    save_memory(mem, tmp_path / "mem")
    assert (tmp_path / "mem" / "text.json").read_bytes().decode("utf-8")  # valid UTF-8
    back = load_memory(tmp_path / "mem", encoder=HashingEncoder(dim=DIM, seed=0))
    assert to_state(back)["text"] == to_state(mem)["text"]
    assert back.edge("e1").task == "task \ud800" and back.edge("e1").meta == {"note": "x\udcff"}


# ---------------------------------------------------------------- a crash inside a run's save
CLI = [
    sys.executable,
    "-m",
    "hyperskill_lite",
    "run",
    "--world",
    "skillworld",
    "--profile",
    "xbench",
    "--method",
    "hyperskill",
    "--episodes",
    "24",
    "--seed",
    "3",
    "--encoder",
    "hashing",
    "--no-progress",
]
VOLATILE = ("memory_seconds", "seconds", "setup_seconds")


def _cli(out: Path, crash: str | None = None) -> int:
    env = _env(HF_HUB_OFFLINE="1", **({"HYPERSKILL_CRASH_AT": crash} if crash else {}))
    return subprocess.run(
        [*CLI, "--out", str(out)], env=env, capture_output=True, text=True, timeout=300
    ).returncode


def _strip(records):
    out = []
    for r in records:
        r = {k: v for k, v in r.items() if k not in VOLATILE}
        if r.get("maintenance"):
            r["maintenance"] = {k: v for k, v in r["maintenance"].items() if k != "seconds"}
        out.append(r)
    return out


def _files(d: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(d.iterdir()) if p.is_file()}


@pytest.fixture(scope="module")
def reference_run(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("ref") / "run"
    assert _cli(out) == 0
    return out


# saves of a 24-episode run (maintenance every 3): episode i saves OUT/state, and at
# i = 2, 5, ... first a checkpoint; save 7 is the checkpoint after episode 5, 9 the state
# after episode 6
@pytest.mark.parametrize("crash", ["memory_save_files:7", "memory_save_files:9"])
def test_sigkill_inside_a_runs_memory_save_then_resume(tmp_path, reference_run, crash):
    out = tmp_path / "run"
    assert _cli(out, crash) == -signal.SIGKILL
    assert _cli(out) == 0
    assert _strip(read_records(out)) == _strip(read_records(reference_run))
    assert len((out / "episodes.jsonl").read_text().splitlines()) == 24  # none lost or doubled
    assert _files(out / "state" / "memory") == _files(reference_run / "state" / "memory")
    ck = "checkpoints/maint-0024"
    assert _files(out / ck) == _files(reference_run / ck)
