"""Save / load: exact round trip (ids, stats, counters, embeddings bitwise), the encoder
cache, every kind of bad file named in the error, crash recovery, and the pandas /
HyperNetX views."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import (
    DATA_FILES,
    VERSION,
    MemoryFormatError,
    from_state,
    load_memory,
    save_memory,
    to_state,
    verify_memory,
)
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.views import edges_frame, nodes_frame, to_hypernetx


def evolved(worked):
    """The worked example after updates, a removal and a merge (tombstoned rows)."""
    r = retrieve(worked, "Q", ["qa", "qb"], k_s=3)
    worked.add_trajectory("T5", [], [], "L5", True, 4, retrieval=r, meta={"k": [1, 2]})
    worked.add_trajectory("T6", [], [], "L6", False, 8, retrieval=r)
    worked.remove_nodes(["u3", "s5"])
    worked.encoder.table["M: m"] = np.array([0.6, 0, 0, 0.8])
    worked.merge_nodes("s1", "s2", Skill("M", "m", meta={"merged": True}))
    return worked


def assert_same(a: HypergraphMemory, b: HypergraphMemory) -> None:
    assert a.node_ids() == b.node_ids() and a.edge_ids() == b.edge_ids()
    for i in a.node_ids():
        assert a.node(i) == b.node(i)
        assert np.array_equal(a.embedding(i), b.embedding(i))  # bitwise
    for e in a.edge_ids():
        assert a.edge(e) == b.edge(e)
        assert np.array_equal(a.embedding(e), b.embedding(e))
    assert a.t_range == b.t_range and a.config == b.config and a.stats() == b.stats()


def test_round_trip_is_exact(worked, tmp_path):
    mem = evolved(worked)
    save_memory(mem, tmp_path / "mem")
    back = load_memory(tmp_path / "mem", encoder=mem.encoder)
    back.validate()
    assert_same(mem, back)
    # retrieval and new ids agree afterwards: counters were saved
    r1, r2 = retrieve(mem, "Q", ["qa", "qb"]), retrieve(back, "Q", ["qa", "qb"])
    assert (r1.retrieved_ids, r1.context) == (r2.retrieved_ids, r2.context)
    sk = [Skill("Appendix Scan", "Scan the appendix.")]
    assert mem.add_trajectory("T7", ["find page"], sk, "L7", True, 2, retrieval=r1) == "e7"
    assert back.add_trajectory("T7", ["find page"], sk, "L7", True, 2, retrieval=r2) == "e7"
    assert mem.edge("e7").node_ids == back.edge("e7").node_ids == ["u6", "s7"]
    assert_same(mem, back)


def test_method_save_and_files(worked, tmp_path):
    save_memory(worked, tmp_path / "m")
    names = sorted(p.name for p in (tmp_path / "m").iterdir())
    assert names == sorted([*DATA_FILES, "manifest.json"])
    man = json.loads((tmp_path / "m" / "manifest.json").read_text())
    assert (man["format"], man["version"], man["dtype"]) == ("hyperskill_lite.memory", 3, "float32")
    assert all(f["checksum"].startswith("xxh3_128:") for f in man["files"].values())
    assert man["encoder"] == {"name": "table", "dim": 4}
    assert man["counters"] == {"u": 6, "s": 6, "e": 5}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]  # no .tmp / .old left


def test_save_replaces_and_config_is_kept(hashing, tmp_path):
    mem = HypergraphMemory(hashing, HyperSkillConfig.qwen3())
    mem.add_trajectory("t", ["s"], [], "l", True, 1)
    save_memory(mem, tmp_path / "m")
    mem.add_trajectory("t2", [], [], "l2", False, 3)
    save_memory(mem, tmp_path / "m")
    back = load_memory(tmp_path / "m")  # encoder found by its recorded name
    assert back.edge_ids() == ["e1", "e2"] and back.config.k_s == 5
    assert back.encoder.name == hashing.name
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


def test_config_override(worked, tmp_path):
    save_memory(worked, tmp_path / "m")
    back = load_memory(tmp_path / "m", encoder=worked.encoder, config=HyperSkillConfig(k_s=4))
    assert back.config.k_s == 4


def test_cache_seeded_only_for_the_same_encoder(tmp_path):
    mem = HypergraphMemory(HashingEncoder(dim=32, seed=0))
    mem.add_trajectory("task a", ["step one", "step two"], [Skill("N", "c")], "lesson", True, 2)
    save_memory(mem, tmp_path / "m")
    same = HashingEncoder(dim=32, seed=0)
    back = load_memory(tmp_path / "m", encoder=same)
    assert same.n_encoded == 0 and same.cache_info()["size"] == 4  # 2 steps, 1 skill, 1 edge
    retrieve(back, "task a", ["step one"])  # plan text "step one" is stored; "task a" is new
    assert same.n_encoded == 1
    other = HashingEncoder(dim=32, seed=1)  # same dim, another model: not seeded
    load_memory(tmp_path / "m", encoder=other)
    assert other.cache_info()["size"] == 0


def test_dim_mismatch_is_named(worked, tmp_path):
    save_memory(worked, tmp_path / "m")
    with pytest.raises(MemoryFormatError, match=r"manifest.json: embeddings have dim 4 .* dim 32"):
        load_memory(tmp_path / "m", encoder=HashingEncoder(dim=32))


def test_unknown_encoder_needs_one(worked, tmp_path):
    save_memory(worked, tmp_path / "m")
    with pytest.raises(MemoryFormatError, match="encoder 'table' is not built in; pass encoder="):
        load_memory(tmp_path / "m")


# ---------------------------------------------------------------- bad files


@pytest.fixture
def saved(worked, tmp_path):
    save_memory(worked, tmp_path / "m")
    return tmp_path / "m", worked.encoder


@pytest.mark.parametrize("name", list(DATA_FILES))
def test_truncated_file_is_named(saved, name):
    path, enc = saved
    data = (path / name).read_bytes()
    (path / name).write_bytes(data[: len(data) // 2])
    with pytest.raises(
        MemoryFormatError, match=rf"{name}: \d+ bytes, the manifest records \d+ \(truncated"
    ):
        load_memory(path, encoder=enc)


def test_corrupt_file_is_named(saved):
    path, enc = saved
    for name in ("text.json", "s_emb.npy", "inc_u.npy"):
        fresh = path.parent / f"copy-{name}"
        shutil.copytree(path, fresh)
        data = bytearray((fresh / name).read_bytes())
        data[-3] ^= 1  # one flipped bit near the end
        (fresh / name).write_bytes(bytes(data))
        with pytest.raises(MemoryFormatError, match=f"{name}: checksum differs"):
            load_memory(fresh, encoder=enc)


def test_missing_files_are_named(saved):
    path, enc = saved
    (path / "e_emb.npy").unlink()
    with pytest.raises(MemoryFormatError, match="e_emb.npy: missing"):
        load_memory(path, encoder=enc)
    (path / "manifest.json").unlink()
    with pytest.raises(MemoryFormatError, match="manifest.json: missing"):
        load_memory(path, encoder=enc)


def test_truncated_manifest(saved):
    path, enc = saved
    text = (path / "manifest.json").read_text()
    (path / "manifest.json").write_text(text[:40])
    with pytest.raises(MemoryFormatError, match="manifest.json: not valid JSON, truncated"):
        load_memory(path, encoder=enc)


@pytest.mark.parametrize(
    "change, message",
    [
        ({"format": "someone.else"}, "format 'someone.else' is not 'hyperskill_lite.memory'"),
        ({"version": 4}, "format version 4 is newer than this library reads"),
        ({"counts": None, "files": None, "counters": None}, None),
    ],
)
def test_foreign_or_newer_manifest(saved, change, message):
    path, enc = saved
    man = json.loads((path / "manifest.json").read_text())
    if message is None:  # entries missing altogether
        for k in change:
            del man[k]
        message = r"missing entries \['counters', 'counts', 'files'\]"
    else:
        man |= change
    (path / "manifest.json").write_text(json.dumps(man))
    with pytest.raises(MemoryFormatError, match=message):
        load_memory(path, encoder=enc)


def test_missing_directory(tmp_path):
    with pytest.raises(MemoryFormatError, match="no saved memory here"):
        load_memory(tmp_path / "nothing")


def test_inconsistent_content_is_named(worked):
    state = to_state(worked)
    inc = state["arrays"]["inc_s.npy"]
    inc[0, 0] = 99  # a skill index past the last skill
    with pytest.raises(MemoryFormatError, match=r"inc_s.npy: hyperedge e1 lists unknown node"):
        from_state(state, worked.encoder)
    state = to_state(worked)
    del state["text"]["u"]["content"]
    with pytest.raises(MemoryFormatError, match=r"text.json: column u.content is not a list"):
        from_state(state, worked.encoder)
    state = to_state(worked)
    state["arrays"]["s_rows.npy"]["sigma"][-1] = 3.0  # more successes than retrievals
    with pytest.raises(MemoryFormatError, match=r"s_rows.npy: stats outside 0 <= sigma <= nu"):
        from_state(state, worked.encoder)
    state = to_state(worked)
    state["arrays"]["u_rows.npy"]["num"][1] = 1  # two u1
    with pytest.raises(MemoryFormatError, match="u_rows.npy: id 'u1' appears twice"):
        from_state(state, worked.encoder)
    state = to_state(worked)
    state["arrays"]["u_emb.npy"][0] *= 2  # not unit
    with pytest.raises(MemoryFormatError, match="u_emb.npy: an embedding is not finite"):
        from_state(state, worked.encoder)


def test_meta_must_be_json(hashing, tmp_path):
    mem = HypergraphMemory(hashing)
    mem.add_trajectory("t", [], [], "l", True, 1, meta={"obj": object()})
    with pytest.raises(TypeError, match="text.json: a meta value is not JSON-serialisable"):
        save_memory(mem, tmp_path / "m")
    assert not (tmp_path / "m").exists() and not (tmp_path / "m.tmp").exists()


def test_refuses_to_replace_a_foreign_directory(worked, tmp_path):
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "thesis.txt").write_text("precious")
    with pytest.raises(FileExistsError, match="not a saved memory"):
        save_memory(worked, tmp_path / "notes")
    assert (tmp_path / "notes" / "thesis.txt").read_text() == "precious"
    (tmp_path / "empty").mkdir()
    save_memory(worked, tmp_path / "empty")  # an empty directory is fine
    assert load_memory(tmp_path / "empty", encoder=worked.encoder).stats() == worked.stats()


# ---------------------------------------------------------------- crash recovery


def test_recovers_from_a_crash_between_the_renames(worked, tmp_path):
    # crash after "dir -> dir.old" and before "dir.tmp -> dir": both copies complete
    save_memory(worked, tmp_path / "m")
    shutil.copytree(tmp_path / "m", tmp_path / "m.old")
    worked.add_trajectory("T5", [], [], "L5", True, 1)
    save_memory(worked, tmp_path / "m")
    (tmp_path / "m").rename(tmp_path / "m.tmp")
    back = load_memory(tmp_path / "m", encoder=worked.encoder)
    assert back.edge_ids()[-1] == "e5"  # the newer copy wins


def test_recovers_old_when_tmp_is_incomplete(worked, tmp_path):
    # crash while writing dir.tmp, after an earlier crash left dir missing
    save_memory(worked, tmp_path / "m")
    (tmp_path / "m").rename(tmp_path / "m.old")
    (tmp_path / "m.tmp").mkdir()
    (tmp_path / "m.tmp" / "text.json").write_text("[{")  # no manifest yet
    back = load_memory(tmp_path / "m", encoder=worked.encoder)
    assert back.edge_ids() == ["e1", "e2", "e3", "e4"]
    save_memory(back, tmp_path / "m")  # a later save cleans up
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m"]


# ---------------------------------------------------------------- float16, mmap, v1


def test_float16_on_disk_is_half_the_embeddings_and_loads_as_unit_float32(worked, tmp_path):
    mem = evolved(worked)
    save_memory(mem, tmp_path / "f32")
    save_memory(mem, tmp_path / "f16", dtype="float16")
    embs = ("u_emb.npy", "s_emb.npy", "e_emb.npy")
    e32 = sum(np.load(tmp_path / "f32" / f).nbytes for f in embs)
    e16 = sum(np.load(tmp_path / "f16" / f).nbytes for f in embs)
    assert e16 * 2 == e32  # the .npy headers aside, half the bytes
    back = load_memory(tmp_path / "f16", encoder=mem.encoder)
    back.validate()
    for i in mem.node_ids():
        v = back.embedding(i)
        assert v.dtype == np.float32 and abs(float(v @ v) - 1) < 1e-5
        assert np.allclose(v, mem.embedding(i), atol=2e-3)
    with pytest.raises(ValueError, match="dtype must be one of"):
        save_memory(mem, tmp_path / "x", dtype="int8")


def test_mmap_load_equals_a_bulk_load_and_grows(worked, tmp_path):
    mem = evolved(worked)
    save_memory(mem, tmp_path / "m")
    mapped = load_memory(tmp_path / "m", encoder=mem.encoder, mmap=True)
    assert_same(mem, mapped)
    assert isinstance(mapped.columns("hyperedge").emb, np.memmap)
    mapped.add_trajectory("T9", ["find page"], [], "L9", True, 2)  # first append copies
    assert not isinstance(mapped.columns("hyperedge").emb, np.memmap)
    assert mapped.edge_ids()[-1] == "e7"
    assert verify_memory(tmp_path / "m")["version"] == VERSION


def test_a_loaded_memory_survives_its_files_being_replaced_and_deleted(worked, tmp_path):
    """The default load maps the files copy-on-write: the loaded memory owns what it
    reads once the files are replaced by a later save, or deleted."""
    mem = evolved(worked)
    save_memory(mem, tmp_path / "m")
    back = load_memory(tmp_path / "m", encoder=mem.encoder)
    assert back._sub.emb.flags.writeable and not isinstance(back._sub.emb, np.memmap)
    before = {e: back.embedding(e).copy() for e in back.edge_ids()}
    other = HypergraphMemory(HashingEncoder(dim=4, seed=3))
    other.add_trajectory("X", ["x"], [Skill("X", "x")], "LX", True, 2)
    save_memory(other, tmp_path / "m")  # replaces every file under the loaded memory
    assert {e: back.embedding(e) for e in back.edge_ids()}.keys() == before.keys()
    assert all(np.array_equal(back.embedding(e), v) for e, v in before.items())
    shutil.rmtree(tmp_path / "m")
    assert_same(mem, back)
    back.add_trajectory("T9", ["find page"], [], "L9", True, 2)  # appends after the map
    back.validate()


def test_the_version_2_checksum_matches_a_plain_word_sum(tmp_path):
    """wordsum_checksum (version 2's) sums words in blocks for speed; it must equal the
    plain definition (even and odd 8-byte words summed mod 2**64, the tail, the length)
    at every size around a block boundary."""
    from hyperskill_lite.core.io import wordsum_checksum
    from hyperskill_lite.core.io.layout import _BLOCK

    rng = np.random.default_rng(0)
    for n in (0, 7, 16, 17, 8 * _BLOCK - 8, 8 * _BLOCK, 8 * _BLOCK + 24, 16 * _BLOCK + 5):
        data = rng.integers(0, 256, n, dtype=np.uint8).tobytes()
        full = n - n % 16
        words = [int.from_bytes(data[i : i + 8], "little") for i in range(0, full, 8)]
        even, odd = sum(words[0::2]) % 2**64, sum(words[1::2]) % 2**64
        want = f"sum64:{n}:{even:016x}:{odd:016x}:{data[full:].hex()}"
        assert wordsum_checksum(data) == want, n


def test_the_checksum_is_xxh3_128_of_the_bytes():
    import xxhash

    from hyperskill_lite.core.io import file_checksum

    data = np.random.default_rng(1).integers(0, 256, 10_000, dtype=np.uint8).tobytes()
    assert file_checksum(data) == "xxh3_128:" + xxhash.xxh3_128(data).hexdigest()


def test_two_swapped_words_in_a_file_fail_to_load_naming_the_file(worked, tmp_path):
    """Version 2's word sums missed this (a swap of two words of the same parity)."""
    mem = evolved(worked)
    save_memory(mem, tmp_path / "m")
    path = tmp_path / "m" / "e_emb.npy"
    raw = bytearray(path.read_bytes())
    start = len(raw) - 64  # the last 64 bytes: 8 words of float32 data
    w = [raw[start + 8 * i : start + 8 * i + 8] for i in range(8)]
    assert w[0] != w[2]
    raw[start : start + 8], raw[start + 16 : start + 24] = w[2], w[0]
    path.write_bytes(bytes(raw))
    from hyperskill_lite.core.io import wordsum_checksum

    assert wordsum_checksum(bytes(raw)) == wordsum_checksum(path.read_bytes())
    with pytest.raises(MemoryFormatError, match=r"e_emb\.npy: checksum differs"):
        load_memory(tmp_path / "m", encoder=mem.encoder)


def test_a_version_2_memory_with_word_sums_still_loads(worked, tmp_path):
    from hyperskill_lite.core.io import wordsum_checksum

    mem = evolved(worked)
    save_memory(mem, tmp_path / "m")
    mpath = tmp_path / "m" / "manifest.json"
    man = json.loads(mpath.read_text())
    man["version"] = 2  # what the previous release wrote: the same files, word sums
    for name, entry in man["files"].items():
        entry["checksum"] = wordsum_checksum((tmp_path / "m" / name).read_bytes())
    mpath.write_text(json.dumps(man, indent=1))
    back = load_memory(tmp_path / "m", encoder=mem.encoder)
    assert_same(mem, back)
    assert verify_memory(tmp_path / "m")["version"] == 2
    (tmp_path / "m" / "text.json").write_bytes(b" " + (tmp_path / "m" / "text.json").read_bytes()[1:])
    with pytest.raises(MemoryFormatError, match=r"text\.json: checksum differs"):
        load_memory(tmp_path / "m", encoder=mem.encoder)


def test_a_failed_load_leaves_the_garbage_collector_as_it_was(saved):
    import gc

    path, enc = saved
    (path / "text.json").write_bytes(b"{}")
    assert gc.isenabled()
    with pytest.raises(MemoryFormatError):
        load_memory(path, encoder=enc)
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(MemoryFormatError):
            load_memory(path, encoder=enc)
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_seeded_cache_rows_are_read_only_and_the_first_of_a_repeat_wins():
    enc = HashingEncoder(dim=4, seed=0)
    vecs = np.eye(4, dtype=np.float32)
    assert enc.seed_cache(["a", "b", "a"], vecs[:3], copy=False) == 2
    assert np.array_equal(enc.encode(["a"])[0], vecs[0]) and enc.n_encoded == 0
    assert not enc._cache["a"].flags.writeable
    assert enc.seed_cache(["b", "c"], vecs[2:4]) == 1  # b keeps its vector
    assert np.array_equal(enc.encode(["b", "c"]), vecs[[1, 3]])
    with pytest.raises(ValueError, match="seed_cache: vectors have shape"):
        enc.seed_cache(["x"], vecs)


def test_a_version_1_memory_loads_and_converts(tmp_path):
    from pathlib import Path

    fixtures = Path(__file__).resolve().parent / "fixtures"
    expect = json.loads((fixtures / "memory_v1.expected.json").read_text())
    old = load_memory(fixtures / "memory_v1")  # its encoder, by the recorded name
    old.validate()
    assert old.stats() == expect["stats"] and old.node_ids() == expect["node_ids"]
    assert list(old.t_range) == expect["t_range"] and old.edge_ids() == expect["edge_ids"]
    for e, want in expect["edges"].items():
        assert old.edge(e).node_ids == want["node_ids"] and old.edge(e).lesson == want["lesson"]
    probe = expect["probe"]
    r = retrieve(old, probe["task"], probe["plan"])
    assert (r.retrieved_ids, r.context) == (probe["retrieved_ids"], probe["context"])
    save_memory(old, tmp_path / "v2")  # converted: the next save writes the current version
    assert json.loads((tmp_path / "v2" / "manifest.json").read_text())["version"] == VERSION
    new = load_memory(tmp_path / "v2")
    assert_same(old, new)
    assert verify_memory(fixtures / "memory_v1")["version"] == 1


# ---------------------------------------------------------------- views


def test_nodes_frame(worked):
    df = nodes_frame(worked)
    assert list(df.index) == ["u1", "u2", "u3", "u4", "u5", "s1", "s2", "s3", "s4", "s5"]
    assert list(df.columns) == [
        "kind",
        "polarity",
        "name",
        "content",
        "sigma",
        "nu",
        "mean_steps",
        "gamma",
        "degree",
        "meta",
    ]
    assert df.loc["s1", "degree"] == 3 and df.loc["u2", "degree"] == 1
    assert df.loc["s4", "polarity"] == "failure" and df.loc["s1", "meta"] == {"latent": ["A"]}
    assert (df["gamma"] == 0.5).all()


def test_edges_frame(worked):
    df = edges_frame(worked)
    assert list(df.index) == ["e1", "e2", "e3", "e4"]
    assert df.loc["e2", "n_subtasks"] == 2 and df.loc["e2", "n_skills"] == 3
    assert df.loc["e2", "node_ids"] == ["u2", "u3", "s1", "s2", "s4"]
    assert df["success"].tolist() == [True, False, True, False]
    assert df["steps"].tolist() == [3, 9, 5, 7]


def test_to_hypernetx(worked):
    worked.remove_nodes(["u5", "s5"])  # e4 is left empty
    H = to_hypernetx(worked)
    assert sorted(H.edges) == ["e1", "e2", "e3"]
    assert sorted(H.edges["e3"]) == ["s1", "s4", "u4"]
    assert H.get_properties("s4", level=1)["polarity"] == "failure"
    assert H.get_properties("u1", level=1)["kind"] == "subtask"
    assert H.get_properties("e2", level=0)["success"] is False
