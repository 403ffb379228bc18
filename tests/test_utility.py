"""Eq. 3 (utility gamma): a hand-worked example, the edge cases the paper leaves open,
and the vectorised function against a pure-Python reference."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyperskill_lite.core.utility import utility


def gamma_reference(sigma, nu, t_bar, t_min, t_max, beta=0.7, prior=0.5) -> float:
    if nu == 0:
        return prior
    eff = 1.0 if t_min is None or t_max == t_min else 1 - (t_bar - t_min) / (t_max - t_min)
    return min(1.0, max(0.0, beta * sigma / nu + (1 - beta) * eff))


def test_hand_worked():
    # sigma=2, nu=3, T_bar=5, T in [2, 8]: 0.7 * 2/3 + 0.3 * (1 - 3/6) = 0.61667
    # sigma=0, nu=4, T_bar=8 (slowest):  0.7 * 0 + 0.3 * 0 = 0
    # sigma=1, nu=1, T_bar=2 (fastest):  0.7 + 0.3 = 1
    g = utility([2, 0, 1], [3, 4, 1], [5.0, 8.0, 2.0], 2, 8)
    np.testing.assert_allclose(g, [0.7 * 2 / 3 + 0.15, 0.0, 1.0])
    assert g[0] == pytest.approx(0.616667, abs=1e-6)


def test_beta_weights_the_two_terms():
    # beta = 0.5, sigma/nu = 1/2, T_bar = 4 in [2, 6] -> 0.5 * 0.5 + 0.5 * 0.5 = 0.5
    assert utility([1], [2], [4.0], 2, 6, beta=0.5)[0] == pytest.approx(0.5)
    # beta = 1: success rate only
    assert utility([1], [4], [6.0], 2, 6, beta=1.0)[0] == pytest.approx(0.25)


def test_unretrieved_elements_get_the_prior():
    g = utility([0, 0], [0, 0], [0.0, 99.0], 1, 10, prior=0.5)
    np.testing.assert_array_equal(g, [0.5, 0.5])
    assert utility([0], [0], [0.0], 1, 10, prior=0.3)[0] == pytest.approx(0.3)


def test_equal_step_range_gives_full_efficiency():
    # T_max == T_min: efficiency term 1.0, so gamma = 0.7 * 1/2 + 0.3 = 0.65
    assert utility([1], [2], [4.0], 4, 4)[0] == pytest.approx(0.65)
    # no episode yet (None): same reading
    assert utility([1], [2], [4.0], None, None)[0] == pytest.approx(0.65)


def test_clipped_to_unit_interval():
    # a mean outside [T_min, T_max] (e.g. after the range was reset) stays in [0, 1]
    g = utility([0, 1], [1, 1], [20.0, -5.0], 2, 8)
    np.testing.assert_array_equal(g, [0.0, 1.0])


def test_scalars_and_empty():
    assert utility(1, 1, 3.0, 3, 3).shape == ()
    assert utility([], [], [], 1, 2).shape == (0,)


@pytest.mark.parametrize(
    "args, message",
    [
        (([1], [0], [1.0], 1, 2), "sigma"),
        (([-1], [2], [1.0], 1, 2), "sigma"),
        (([0], [-1], [1.0], 1, 2), "nu"),
        (([0, 1], [1], [1.0], 1, 2), "one shape"),
        (([0], [1], [1.0], 5, 2), "t_max"),
    ],
)
def test_bad_input_is_named(args, message):
    with pytest.raises(ValueError, match=message):
        utility(*args)


def test_bad_beta():
    with pytest.raises(ValueError, match="beta"):
        utility([0], [1], [1.0], 1, 2, beta=1.5)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 20), st.integers(0, 20), st.floats(0, 50)), min_size=1, max_size=30
    ),
    st.integers(0, 30),
    st.integers(0, 30),
    st.floats(0, 1),
    st.floats(0, 1),
)
def test_matches_reference(rows, a, b, beta, prior):
    t_min, t_max = min(a, b), max(a, b)
    nu = [n for _, n, _ in rows]
    sigma = [min(s, n) for s, n, _ in rows]
    t_bar = [t for _, _, t in rows]
    got = utility(sigma, nu, t_bar, t_min, t_max, beta=beta, prior=prior)
    want = [
        gamma_reference(s, n, t, t_min, t_max, beta, prior) for s, n, t in zip(sigma, nu, t_bar)
    ]
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert np.all((got >= 0) & (got <= 1))
