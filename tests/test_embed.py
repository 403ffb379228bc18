"""Encoders: HashingEncoder properties, the text cache, name lookup, and the real
all-MiniLM-L6-v2 loaded offline (one load for the session)."""

from __future__ import annotations

import numpy as np
import pytest

from hyperskill_lite.core.embed import (
    CachedEncoder,
    Encoder,
    HashingEncoder,
    MiniLMEncoder,
    default_encoder,
    encoder_by_name,
)


def test_hashing_shape_dtype_and_unit_rows(hashing):
    X = hashing.encode(["read the attached file", "", "!!!", "Compute 15% of 80"])
    assert X.shape == (4, 64) and X.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-6)
    assert isinstance(hashing, Encoder)


def test_hashing_is_deterministic_across_instances_and_seeds():
    texts = ["navigate to the awards section", "extract the table value"]
    a = HashingEncoder(dim=32, seed=7).encode(texts)
    b = HashingEncoder(dim=32, seed=7).encode(texts)
    c = HashingEncoder(dim=32, seed=8).encode(texts)
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_hashing_shared_words_are_nearer(hashing):
    X = hashing.encode(
        [
            "search the official statistics office for the population",
            "search statistics office population table",
            "crawl the film festival awards page",
        ]
    )
    assert X[0] @ X[1] > 0.5
    assert X[0] @ X[1] > X[0] @ X[2] + 0.3
    assert abs(X[0] @ X[2]) < 0.3


def test_hashing_handles_text_without_spaces(hashing):
    X = hashing.encode(["请找出2020年法国的人口", "2020年法国人口是多少", "这部电影获得了什么奖"])
    assert X[0] @ X[1] > X[0] @ X[2] + 0.2
    assert abs(X[0] @ X[2]) < 0.3


def test_cache_never_reembeds(hashing):
    hashing.encode(["a b", "c d", "a b"])
    assert hashing.n_encoded == 2
    first = hashing.encode(["c d"])
    hashing.encode(["a b", "c d", "e f"])
    assert hashing.n_encoded == 3
    info = hashing.cache_info()
    assert info == {"size": 3, "hits": 4, "misses": 3, "encoded": 3, "disk_hits": 0}
    # returned arrays are copies: writing to them does not touch the cache
    first[:] = 0
    assert np.linalg.norm(hashing.encode(["c d"])[0]) == pytest.approx(1.0)


def test_empty_list_gives_empty_matrix(hashing):
    assert hashing.encode([]).shape == (0, 64)


def test_seed_cache(hashing):
    v = np.zeros((1, 64), dtype=np.float32)
    v[0, 3] = 1.0
    assert hashing.seed_cache(["known text"], v) == 1
    np.testing.assert_array_equal(hashing.encode(["known text"]), v)
    assert hashing.n_encoded == 0
    assert hashing.seed_cache(["known text"], 2 * v) == 0  # first vector kept
    with pytest.raises(ValueError, match="shape"):
        hashing.seed_cache(["x"], np.zeros((1, 3)))


def test_bad_input_is_named(hashing):
    with pytest.raises(TypeError, match="single str"):
        hashing.encode("not a list")
    with pytest.raises(TypeError, match="item 1 is int"):
        hashing.encode(["ok", 3])
    with pytest.raises(ValueError, match="dim"):
        HashingEncoder(dim=0)


def test_subclass_with_wrong_shape_is_caught():
    class Broken(CachedEncoder):
        dim = 4

        def _encode_new(self, texts):
            return np.zeros((len(texts), 3))

    with pytest.raises(ValueError, match=r"shape \(1, 3\), expected \(1, 4\)"):
        Broken().encode(["x"])


def test_encoder_by_name():
    h = encoder_by_name("hashing")
    assert isinstance(h, HashingEncoder) and h.dim == 384
    assert encoder_by_name("hashing") is h  # shared instance, shared cache
    h2 = encoder_by_name(HashingEncoder(dim=16, seed=3).name)
    assert (h2.dim, h2.seed) == (16, 3)
    assert encoder_by_name("hashing", dim=8) is not h
    with pytest.raises(ValueError, match="unknown encoder 'bert'"):
        encoder_by_name("bert")


def test_minilm_offline(minilm):
    assert isinstance(minilm, MiniLMEncoder)
    assert minilm.dim == 384
    X = minilm.encode(
        [
            "Find the population of France in 2020.",
            "What was the number of people living in France in 2020?",
            "The recipe needs two cups of flour and an egg.",
        ]
    )
    assert X.shape == (3, 384) and X.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(X, axis=1), 1.0, rtol=1e-5)
    assert X[0] @ X[1] > X[0] @ X[2] + 0.3


def test_minilm_batches_and_caches(minilm):
    def fresh() -> int:  # encoded now, or read from the persistent cache of earlier runs
        return minilm.n_encoded + minilm.cache_info()["disk_hits"]

    before = fresh()
    texts = [f"step {i}: read the table" for i in range(5)]
    a = minilm.encode(texts)
    b = minilm.encode(texts[::-1])
    assert fresh() == before + 5
    np.testing.assert_array_equal(a[::-1], b)


def test_default_encoder_is_shared_minilm(minilm):
    assert default_encoder() is minilm
