"""course.check: the notebooks' exercise checker."""

from __future__ import annotations

import numpy as np

from hyperskill_lite.course import check


def test_numbers_within_tolerance_and_numpy_scalars(capsys):
    assert check("x", 0.705, np.float64(0.7050004), tol=1e-3)
    assert not check("x", 0.71, 0.705, tol=1e-3)
    assert not check("x", True, 1.0)  # a bool is not the number 1
    assert not check("x", "0.705", 0.705)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == "exercise x: correct" and out[1].startswith("exercise x: not yet")


def test_sets_lists_and_unanswered(capsys):
    assert check("s", ["n3", "n2"], {"n2", "n3"})  # unordered against a set
    assert not check("s", {"n2"}, {"n2", "n3"})
    assert check("l", [1, 2.0000001], (1, 2))
    assert not check("l", [2, 1], [1, 2])  # lists keep their order
    assert not check("u", None, 3)
    assert "not answered yet" in capsys.readouterr().out
    assert check("e", "e7", "e7") and not check("e", "e1", "e7")
