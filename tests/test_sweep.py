"""sweep/: a grid of runs from a TOML file. The file is checked field by field; the local
executor and Ray give the same records; a rerun skips finished cells; a Ray worker killed
mid-sweep is made good by a rerun with identical records; a failed cell never stops the
others and is named in failures.md."""

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
from hyperskill_lite.sweep import SweepError, load_sweep, run_sweep

ROOT = Path(__file__).resolve().parents[1]
TIMING = {"memory_seconds", "seconds"}

GRID = """
[sweep]
episodes = {episodes}
encoder = "hashing"

[grid]
method = ["hyperskill", "memp"]
profile = ["gaia", "xbench"]
seed = [0, 1]
"""


def write(tmp: Path, text: str, name: str = "sweep.toml") -> Path:
    p = tmp / name
    p.write_text(text)
    return p


def records(out: Path) -> dict[str, list[dict]]:
    """Every cell's records, timings removed, by cell folder."""
    got = {}
    for f in sorted(out.rglob("episodes.jsonl")):
        rows = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
        got[str(f.parent.relative_to(out))] = [untimed(r) for r in rows]
    return got


def lines_written(out: Path) -> dict[str, int]:
    """Lines in each running cell's episodes.jsonl, by cell folder. The runner renames
    state folders and rewrites files while this reads: a file that is gone or changes
    under the reader is skipped (read again next time), never an error."""
    got = {}
    for f in out.glob("skillworld/*/*/*/episodes.jsonl"):
        try:
            got[str(f.parent)] = f.read_bytes().count(b"\n")
        except OSError:
            continue
    return got


def wait_until(predicate, seconds: float, what: str) -> None:
    """Poll `predicate` (a signal: a file, a process) until true; fail naming `what`."""
    deadline = time.monotonic() + seconds
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"timed out waiting for {what}")
        time.sleep(0.02)


def untimed(obj):
    """A record without its wall-clock fields, at any depth."""
    if isinstance(obj, dict):
        return {k: untimed(v) for k, v in obj.items() if k not in TIMING}
    if isinstance(obj, list):
        return [untimed(v) for v in obj]
    return obj


@pytest.fixture(scope="module")
def local_run(tmp_path_factory):
    """The 2 x 2 x 2 grid on the local executor, 8 tasks a cell."""
    tmp = tmp_path_factory.mktemp("sweep-local")
    spec = write(tmp, GRID.format(episodes=8))
    lines: list[str] = []
    results, paths = run_sweep(spec, tmp / "out", jobs=2, log=lines.append)
    return tmp, results, paths, lines


def test_the_example_file_is_a_valid_grid():
    spec = load_sweep(ROOT / "data" / "sweeps" / "example.toml")
    cells = list(spec.cells())
    assert len(cells) == 8 and {c.backbone_name for c in cells} == {"skillworld"}
    live = list(load_sweep(ROOT / "data" / "sweeps" / "live-example.toml").cells())
    assert len(live) == 6 * 2 * 2  # methods x benchmarks x backbones
    argv = live[0].argv(Path("/o"))
    assert argv[:2] == ["run", "--method"] and "--backend" in argv and "--k" in argv


def test_local_sweep_writes_the_table_figures_and_no_failures(local_run):
    tmp, results, paths, lines = local_run
    assert [r.status for r in results] == ["done"] * 8
    assert all(r.episodes == 8 for r in results)
    assert lines[-1].startswith("[sweep] 8/8 done, 0 running, 0 failed")
    import pandas as pd

    table = pd.read_csv(paths["csv"])
    assert list(zip(table.tasks, table.setting)) == [
        ("gaia", "hyperskill"), ("gaia", "memp"), ("xbench", "hyperskill"), ("xbench", "memp")]
    assert (table.seeds == 2).all() and (table.episodes == 16).all()
    # the SR of a row is the mean over its two seeds of each cell's success rate
    recs = records(tmp / "out")
    per_seed = [100 * sum(r["success"] for r in recs[f"skillworld/gaia/memp/seed-{s}"]) / 8
                for s in (0, 1)]
    assert table.loc[1, "SR"] == pytest.approx(sum(per_seed) / 2)
    assert "never the paper's numbers" in paths["markdown"].read_text()
    assert paths["failures"].read_text().strip().endswith("None.")
    assert paths["skillworld_gaia_cumulative_sr"].stat().st_size > 10_000
    assert paths["skillworld_xbench_hyperskill_growth"].is_file()


def test_a_rerun_skips_finished_cells_and_writes_the_same_table(local_run):
    tmp, _, paths, _ = local_run
    before = paths["csv"].read_text()
    results, again = run_sweep(tmp / "sweep.toml", tmp / "out", jobs=2, log=None)
    assert [r.status for r in results] == ["skipped"] * 8
    assert again["csv"].read_text() == before


def test_a_killed_local_sweep_is_completed_by_a_rerun(local_run, tmp_path):
    tmp, _, _, _ = local_run
    out = tmp_path / "out"
    driver = subprocess.Popen(
        [sys.executable, "-m", "hyperskill_lite", "sweep", str(tmp / "sweep.toml"),
         "--jobs", "2", "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wait_until(lambda: driver.poll() is not None
               or any(n >= 2 for n in lines_written(out).values()), 600,
               "a cell to finish two episodes")
    driver.send_signal(signal.SIGKILL)  # its run children die with it (PDEATHSIG)
    driver.wait(timeout=60)
    assert driver.returncode == -signal.SIGKILL, "the sweep finished before it could be killed"
    wait_until(lambda: _run_children(out) == [], 60, "the killed sweep's runs to end")
    results, _ = run_sweep(tmp / "sweep.toml", out, jobs=2, log=None)
    assert "done" in [r.status for r in results]
    assert records(out) == records(tmp / "out")


@pytest.mark.parametrize(
    "text, message",
    [
        ("[grid]\nmethod = ['hyperskill']\n", "grid.profile: give SkillWorld profiles"),
        ("[grid]\nmethod = ['nope']\nprofile = ['gaia']\n", "grid.method[0]: unknown method 'nope'"),
        ("[grid]\nmethod = ['memp']\nprofile = ['mars']\n", "grid.profile[0]: must be one of"),
        ("[grid]\nmethod = ['memp']\nprofile = ['gaia']\nseed = ['a']\n", "grid.seed[0]: must be int"),
        ("[grid]\nmethod = ['memp']\nprofile = ['gaia']\nk = [0]\n", "grid.k[0]: must be >= 1"),
        ("[grid]\nmethod = ['memp']\nprofile = ['gaia']\nrho = [1.5]\n", "grid.rho[0]: must be in [0, 1)"),
        ("[grid]\nmethod = ['memp']\nprofile = ['gaia']\nbeta = [0.5]\n", "grid.beta: unknown field"),
        ("[grid]\nmethod = ['memp', 'memp']\nprofile = ['gaia']\n", "grid.method: has repeated values"),
        ("[sweep]\nepisodes = 0\n[grid]\nmethod = ['memp']\nprofile = ['gaia']\n",
         "sweep.episodes: must be an integer >= 1"),
        ("[sweep]\nencoder = 'bert'\n[grid]\nmethod = ['memp']\nprofile = ['gaia']\n",
         "sweep.encoder: must be one of"),
        ("[grid]\nmethod = ['memp']\n[[benchmark]]\nname = 'gaia'\ndata = 'x'\n",
         "benchmark: a live benchmark needs at least one [[backbone]]"),
        ("[grid]\nmethod = ['memp']\n[[benchmark]]\nname = 'gaia'\ndata = 'x'\n"
         "[[backbone]]\nname = 'm'\nmodel = 'm'\napi_key = 'sk-1'\n",
         "backbone[0].api_key: unknown field"),
        ("[grid]\nmethod = ['memp']\n[[benchmark]]\nname = 'gaia'\ndata = 'x'\n"
         "[[backbone]]\nname = 'm'\nmodel = 'm'\nmax_concurrent = 0\n",
         "backbone[0].max_concurrent: must be an integer >= 1"),
        ("[grid]\nmethod = ['memp']\n[[benchmark]]\nname = 'gaia'\n"
         "[[backbone]]\nname = 'm'\nmodel = 'm'\n", "benchmark[0].data: missing"),
        ("[grid\nmethod = ['memp']\n", "not valid TOML"),
        ("[grids]\nmethod = ['memp']\n", "grids: unknown table"),
    ],
)
def test_a_malformed_sweep_file_is_refused_naming_the_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(SweepError) as err:
        load_sweep(path)
    assert str(err.value).startswith(f"{path}: ") and message in str(err.value)


def test_the_cli_refuses_a_malformed_file_with_exit_2(tmp_path, capsys):
    path = write(tmp_path, "[grid]\nmethod = ['nope']\nprofile = ['gaia']\n")
    assert main(["sweep", str(path), "--out", str(tmp_path / "o")]) == 2
    assert "grid.method[0]: unknown method 'nope'" in capsys.readouterr().err
    assert main(["sweep", str(tmp_path / "missing.toml")]) == 2


def test_a_failed_cell_never_stops_the_others(tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("HYPERSKILL_TEST_KEY", raising=False)
    text = """
[sweep]
episodes = 3
encoder = "hashing"
[grid]
method = ["memp"]
profile = ["xbench"]
[[benchmark]]
name = "gaia"
data = "{missing}"
[[backbone]]
name = "ok-key"
model = "m"
base_url = "http://127.0.0.1:9/v1"
[[backbone]]
name = "no-key"
model = "m"
key_env = "HYPERSKILL_TEST_KEY"
""".format(missing=tmp_path / "no-such-gaia")
    path = write(tmp_path, text)
    rc = main(["sweep", str(path), "--out", str(tmp_path / "out"), "--jobs", "2"])
    assert rc == 1
    status = {c["key"]: (c["status"], c["error"]) for c in
              json.loads((tmp_path / "out" / "cells.json").read_text())}
    assert status["skillworld/xbench/memp/seed-0"] == ("done", None)
    st, err = status["ok-key/gaia/memp/seed-0"]
    assert st == "failed" and "no-such-gaia" in err and "exit code 2" in err
    st, err = status["no-key/gaia/memp/seed-0"]
    assert st == "failed" and "HYPERSKILL_TEST_KEY (key_env) is not set" in err
    failures = (tmp_path / "out" / "failures.md").read_text()
    assert "`ok-key/gaia/memp/seed-0`" in failures and "`no-key/gaia/memp/seed-0`" in failures
    assert "2 of 3 cell(s) failed" in capsys.readouterr().err


def test_backbone_concurrency_limit_is_respected(tmp_path):
    from hyperskill_lite.sweep.spec import Backbone, Benchmark, SweepSpec

    spec = SweepSpec(methods=["memp", "awm", "voyager"], seeds=[0, 1],
                     benchmarks=[Benchmark("gaia", "x")],
                     backbones=[Backbone("one", "m", max_concurrent=1)])
    assert all(c.backbone.max_concurrent == 1 for c in spec.cells())
    assert len(list(spec.cells())) == 6


try:
    import ray  # noqa: F401

    HAVE_RAY = True
except ImportError:  # the `scale` extra is not installed
    HAVE_RAY = False


@pytest.fixture(scope="module")
def ray_cluster():
    """One local Ray for the module's tests, started once (Ray gives a node 30 s to
    register and its raylet 15 s to see its agent, both fixed inside Ray; `start_ray`
    tries again on a loaded machine); its GCS address, which a sweep in a subprocess
    joins with --address. Where Ray still cannot start, the Ray tests skip saying so
    (the local executor's tests cover the same grid)."""
    if not HAVE_RAY:
        pytest.skip("needs Ray (the `scale` extra)")
    import ray

    from hyperskill_lite.sweep.pools import start_ray

    try:
        context = start_ray(ray, num_cpus=2)
    except SweepError as exc:
        pytest.skip(f"Ray could not start on this machine now: {exc}")
    yield context.address_info["gcs_address"]
    ray.shutdown()


@pytest.mark.skipif(not HAVE_RAY, reason="needs Ray (the `scale` extra)")
def test_ray_gives_the_records_of_the_local_executor(local_run, ray_cluster, tmp_path):
    tmp, _, _, _ = local_run
    results, paths = run_sweep(tmp / "sweep.toml", tmp_path / "out", executor="ray", jobs=2,
                               log=None)
    assert [r.status for r in results] == ["done"] * 8
    assert records(tmp_path / "out") == records(tmp / "out")
    import pandas as pd

    a, b = pd.read_csv(paths["csv"]), pd.read_csv(tmp / "out" / "table.csv")
    same = [c for c in a.columns if not c.startswith("MemSeconds")]  # timings differ
    pd.testing.assert_frame_equal(a[same], b[same])


def _run_children(root: Path) -> list[tuple[int, int]]:
    """(pid, parent pid) of every `hyperskill_lite run` process writing under root."""
    out = []
    for d in Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            cmd = (d / "cmdline").read_bytes().split(b"\0")
            stat = (d / "stat").read_text()
        except OSError:
            continue
        if b"hyperskill_lite" in cmd and b"run" in cmd and str(root).encode() in b" ".join(cmd):
            out.append((int(d.name), int(stat.rsplit(")", 1)[1].split()[1])))
    return out


@pytest.mark.skipif(not HAVE_RAY or not Path("/proc").is_dir(), reason="needs Ray and /proc")
def test_a_killed_ray_worker_then_a_rerun_completes_with_identical_records(local_run, ray_cluster,
                                                                          tmp_path):
    tmp, _, _, _ = local_run
    out = tmp_path / "out"
    driver = subprocess.Popen(
        [sys.executable, "-m", "hyperskill_lite", "sweep", str(tmp / "sweep.toml"),
         "--executor", "ray", "--address", ray_cluster, "--jobs", "2", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    killed = []

    def kill_a_worker() -> bool:
        children = _run_children(out)
        if children and any(n >= 1 for n in lines_written(out).values()):
            os.kill(children[0][1], signal.SIGKILL)  # the Ray worker running this cell
            killed.append(children[0][1])
        return bool(killed) or driver.poll() is not None

    wait_until(kill_a_worker, 600, "a Ray worker running a cell")
    driver.communicate(timeout=600)
    assert killed, "no Ray worker was caught running a cell"
    # whatever the killed task became (retried by Ray or failed), a rerun completes the grid
    results, _ = run_sweep(tmp / "sweep.toml", out, executor="ray", jobs=2, log=None)
    assert all(r.status in ("done", "skipped") for r in results)
    assert records(out) == records(tmp / "out")


# --------------------------------------------------------------------------- live cells
def _live_spec(base_url: str, **backbone):
    """The 2 x 2 live grid (hyperskill, no-memory x seeds 0, 1) on the GAIA fixture."""
    from hyperskill_lite.sweep.spec import Backbone, Benchmark, SweepSpec

    return SweepSpec(methods=["hyperskill", "no-memory"], seeds=[0, 1], encoder="hashing",
                     sandbox="process",  # explicit: a fresh CI machine has no bubblewrap yet
                     benchmarks=[Benchmark("gaia", str(ROOT / "data" / "fixtures" / "gaia"),
                                           "exact")],
                     backbones=[Backbone("standin", "m", base_url, **backbone)])


def test_live_cells_run_as_threads_each_in_order_with_its_own_log(tmp_path, monkeypatch):
    from hyperskill_lite.runner import read_records
    from hyperskill_lite.sweep.execute import run_cells
    from hyperskill_lite.testing.scripted_replies import direct_responder
    from hyperskill_lite.testing.scripted_server import ScriptedServer

    monkeypatch.setenv("SWEEP_TEST_KEY", "sk-test-SWEEP-0123456789abcdef")
    spec = _live_spec("", max_concurrent=4, key_env="SWEEP_TEST_KEY",
                      settings=(("temperature", 0.1),))
    with ScriptedServer(direct_responder, models=["m"],
                        api_key="sk-test-SWEEP-0123456789abcdef") as srv:
        spec.backbones[0] = type(spec.backbones[0])(**{**spec.backbones[0].__dict__,
                                                       "base_url": srv.base_url})
        results = run_cells(spec, tmp_path / "out", jobs=4)
        temps = {r["temperature"] for r in srv.requests}
    assert [r.status for r in results] == ["done"] * 4
    assert temps == {0.1}
    for r in results:
        folder = tmp_path / "out" / r.cell.key
        recs = read_records(folder)
        assert [x["index"] for x in recs] == [0, 1, 2, 3]  # one stream: strictly in order
        assert all(x["error"] is None for x in recs)
        log = (folder / "run.log").read_text()
        assert f"cell {r.cell.key}:" in log and "[cell_" in log  # a thread, not a process
        others = [c.cell.key for c in results if c.cell.key != r.cell.key]
        assert not any(f"cell {k}:" in log for k in others)  # only its own records
    # a rerun skips every finished cell
    again = run_cells(spec, tmp_path / "out", jobs=4)
    assert [r.status for r in again] == ["skipped"] * 4


def test_a_live_cell_whose_every_episode_failed_is_a_failed_cell(tmp_path):
    from hyperskill_lite.sweep.execute import run_cells
    from hyperskill_lite.testing.scripted_replies import error
    from hyperskill_lite.testing.scripted_server import ScriptedServer

    with ScriptedServer(default=error(400, "context length exceeded"), models=["m"]) as srv:
        spec = _live_spec(srv.base_url, settings=(("max_retries", 0),))
        spec.methods = ["no-memory"]
        spec.seeds = [0]
        results = run_cells(spec, tmp_path / "out", jobs=2)
    (r,) = results
    assert r.status == "failed" and "every episode" in r.error and "(exit code 1)" in r.error
    assert r.episodes == 4


def test_a_live_cell_refused_by_the_preflight_fails_with_one_line(tmp_path):
    from hyperskill_lite.sweep.execute import run_cells
    from hyperskill_lite.testing.scripted_server import ScriptedServer

    with ScriptedServer(models=["other"]) as srv:
        spec = _live_spec(srv.base_url)
        spec.methods, spec.seeds = ["no-memory"], [0]
        (r,) = run_cells(spec, tmp_path / "out", jobs=1)
    assert r.status == "failed" and "model 'm' is not served" in r.error
    assert "(exit code 2)" in r.error and not (tmp_path / "out" / r.cell.key).exists()


def test_minilm_cells_stay_processes_until_the_encoder_is_thread_safe():
    from hyperskill_lite.core.embed import MiniLMEncoder
    from hyperskill_lite.sweep.execute import encoder_thread_safe

    assert encoder_thread_safe("hashing") is True
    pytest.importorskip("sentence_transformers")
    assert encoder_thread_safe("minilm") is bool(getattr(MiniLMEncoder, "thread_safe", False))


# --------------------------------------------------------------------------- Ctrl-C
def test_ctrl_c_on_a_local_sweep_is_one_true_line_and_a_rerun_completes(local_run, tmp_path):
    tmp, _, _, _ = local_run
    out = tmp_path / "out"
    driver = subprocess.Popen(
        [sys.executable, "-m", "hyperskill_lite", "sweep", str(tmp / "sweep.toml"),
         "--jobs", "2", "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
        text=True, start_new_session=True)
    wait_until(lambda: driver.poll() is not None
               or any(n >= 1 for n in lines_written(out).values()), 600,
               "a cell to finish an episode")
    os.killpg(driver.pid, signal.SIGINT)  # a terminal's Ctrl-C: the sweep and its runs
    _, err = driver.communicate(timeout=300)
    assert driver.returncode == 130, err
    assert "Traceback" not in err
    assert err.strip().splitlines()[-1] == (
        f"interrupted: finished cells and episodes are kept in {out}; rerun the same command "
        "to complete the sweep")
    assert not list(out.glob("skillworld/*/*/*/inflight.json"))  # no episode counted as a crash
    results, _ = run_sweep(tmp / "sweep.toml", out, jobs=2, log=None)
    assert all(r.status in ("done", "skipped") for r in results)
    assert records(out) == records(tmp / "out")


def test_ctrl_c_on_a_live_sweep_does_not_wait_for_the_running_episodes(tmp_path):
    import threading

    from hyperskill_lite.sweep.execute import run_cells
    from hyperskill_lite.testing.scripted_replies import direct_responder
    from hyperskill_lite.testing.scripted_server import ScriptedServer

    hold, release = threading.Event(), threading.Event()

    def responder(request):  # once the test says so, every reply waits: cells cannot finish
        if hold.is_set():
            release.wait(300)
        return direct_responder(request)

    out = tmp_path / "out"
    with ScriptedServer(responder, models=["m"]) as srv:
        sweep = tmp_path / "live.toml"
        sweep.write_text(f"""
[sweep]
encoder = "hashing"
sandbox = "process"
[grid]
method = ["hyperskill", "no-memory"]
seed = [0, 1]
[[benchmark]]
name = "gaia"
data = "{ROOT / 'data' / 'fixtures' / 'gaia'}"
judge = "exact"
[[backbone]]
name = "standin"
model = "m"
base_url = "{srv.base_url}"
""")
        driver = subprocess.Popen(
            [sys.executable, "-m", "hyperskill_lite", "sweep", str(sweep), "--jobs", "4",
             "--out", str(out)], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
            start_new_session=True)
        try:
            wait_until(lambda: driver.poll() is not None or any(
                p.read_bytes().count(b"\n") >= 1 for p in out.glob("standin/*/*/*/episodes.jsonl")),
                600, "a live cell to finish an episode")
            hold.set()
            os.killpg(driver.pid, signal.SIGINT)
            _, err = driver.communicate(timeout=120)  # not waiting for the held episodes
        finally:
            release.set()
        assert driver.returncode == 130, err
        assert "Traceback" not in err
        assert err.strip().splitlines()[-1].startswith(
            f"interrupted: finished cells and episodes are kept in {out}")
        assert not list(out.glob("standin/*/*/*/inflight.json"))  # not counted as crashes
        hold.clear()
        spec = load_sweep(sweep)
        results = run_cells(spec, out, jobs=4)
    assert all(r.status == "done" for r in results)
    from hyperskill_lite.runner import read_records

    for r in results:
        recs = read_records(out / r.cell.key)
        assert [x["index"] for x in recs] == [0, 1, 2, 3]
        assert not any(x.get("errored") for x in recs)


def test_cells_with_errored_episodes_are_done_counted_and_named(tmp_path):
    """Every cell's second episode raises (HYPERSKILL_CRASH_AT, in each cell's `run`
    process): the cells finish, go into the table with that episode as a failure, are
    named in failures.md, and the sweep exits 3; a rerun skips them (nothing replayed)."""
    spec = write(tmp_path, "[sweep]\nepisodes = 4\nencoder = 'hashing'\n[grid]\n"
                           "method = ['hyperskill']\nprofile = ['xbench']\nseed = [0, 1]\n")
    env = {**os.environ, "HYPERSKILL_CRASH_AT": "in_episode:1:raise"}
    argv = [sys.executable, "-m", "hyperskill_lite", "sweep", str(spec), "--jobs", "2",
            "--out", str(tmp_path / "out")]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    assert done.returncode == 3, done.stderr
    assert done.stderr.strip().splitlines()[-1].startswith(
        "error: 2 of 2 cell(s) finished with errored episodes")
    cells = json.loads((tmp_path / "out" / "cells.json").read_text())
    assert {c["status"] for c in cells} == {"done"} and all(c["episodes"] == 4 for c in cells)
    assert all("1 of 4 episode(s) errored" in c["error"] for c in cells)
    failures = (tmp_path / "out" / "failures.md").read_text()
    assert "# Cells with errored episodes" in failures
    import pandas as pd

    assert (pd.read_csv(tmp_path / "out" / "table.csv").episodes == 8).all()  # 2 seeds x 4
    again = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=900)
    assert again.returncode == 3  # skipped, and still said
    cells = json.loads((tmp_path / "out" / "cells.json").read_text())
    assert {c["status"] for c in cells} == {"skipped"}
    assert all("1 of 4 episode(s) errored" in c["error"] for c in cells)
