"""No oracle, no leak (issue 44): the learner's own check, looped over candidate answers,
recovers none of them (it confirms the form, never the value); nothing that ships to
students (the package, the student copies, the student site's sources) holds an answer
or a digest of one; and after the deadline the instructor's reveal file makes the same
check say *correct*."""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import re
import time
from pathlib import Path

import pytest

from hyperskill_lite.course import check
from hyperskill_lite.course.answers import canonical, digest, shown
from hyperskill_lite.course.catalog import CATALOG, catalog, read_catalog
from hyperskill_lite.course.exercises import exercise_cells
from hyperskill_lite.course.key import META, REVEAL_ENV, read_key, write_reveal
from hyperskill_lite.course.student import student_notebook

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
PACKAGE = ROOT / "hyperskill_lite"


def _keys() -> dict:
    out = {}
    for path in NOTEBOOKS:
        nb = json.loads(path.read_text(encoding="utf-8"))
        if any(c.role == "test" for c in exercise_cells(nb["cells"])):
            out.update(read_key(nb, path.name))
    return out


KEYS = _keys()
VALUES = {ex: e for ex, e in catalog().items() if e.value}


def _candidates(ex) -> list:
    """What a student's loop would try: every choice, every small int, a fine grid of
    floats, every id and pair of ids the notebooks name, and the answer itself."""
    k = ex.kind
    right = KEYS[ex.id].value
    if k == "choice":
        return list(ex.choices)
    if k == "bool":
        return [True, False]
    if k == "int":
        return list(range(0, 120)) + [right]
    if k == "float":
        step = 10.0 ** -ex.decimals
        return [round(i * step, ex.decimals) for i in range(0, 2001, 7)] + [right]
    ids = [f"e{i}" for i in range(1, 13)] + [f"s{i}" for i in range(1, 30)] + \
        [f"n{i}" for i in range(8)] + ["memp", "expel", "plugmem", "no memory"]
    if k == "str":
        return ids + [right]
    if k == "set":
        return [{a} for a in ids] + [set(p) for p in itertools.combinations(ids[:12], 2)] + \
            [set(right)]
    return [right]


def test_every_value_exercise_has_a_key_in_its_instructor_notebook():
    assert set(VALUES) <= set(KEYS)
    coding = {ex for ex, e in catalog().items() if e.coding}
    assert coding <= set(KEYS) and all(KEYS[ex].seed is not None for ex in coding)


def test_a_loop_over_candidates_recovers_no_answer(capsys):
    t0 = time.perf_counter()
    recovered, tried = {}, 0
    for ex_id, ex in sorted(VALUES.items()):
        texts = set()
        for cand in _candidates(ex):
            tried += 1
            with contextlib.redirect_stdout(io.StringIO()):
                v = check(ex_id, cand)
            assert v.status in ("recorded", "wrong form"), (ex_id, cand, v.line)
            if v.status == "correct":
                recovered[ex_id] = cand
            if v.status == "recorded":  # the same words for a right and a wrong answer
                texts.add(v.line.replace(f"recorded {v.answer} (", "recorded <answer> (", 1))
        assert len(texts) == 1, (ex_id, texts)
    assert recovered == {}
    assert tried > 2000 and time.perf_counter() - t0 < 120


def test_nothing_that_ships_holds_an_answer_or_its_digest(tmp_path):
    # the digests of every value answer, as the old catalog held them, and the values
    secrets = {}
    for ex_id, ex in VALUES.items():
        canon = canonical(KEYS[ex_id].value, ex.spec())
        secrets[digest(ex_id, canon)] = ex_id
    shipped = [p for p in PACKAGE.rglob("*") if p.suffix in (".py", ".toml", ".json", ".md",
                                                             ".html", ".txt")]
    for path in shipped:
        text = path.read_text(encoding="utf-8", errors="replace")
        found = [ex for d, ex in secrets.items() if d in text]
        assert not found, (path, found)
    # the values worked by hand (04.1's gamma, 05.1's W entry) on no page of the sites
    # and in no docstring the API reference renders
    pages = [*(ROOT / "docs").rglob("*.md"), *(PACKAGE / "course").rglob("*.py"), ROOT / "README.md"]
    for ex in ("04.1", "05.1"):
        value = shown(KEYS[ex].value, VALUES[ex].decimals)
        for path in pages:
            assert value not in path.read_text(encoding="utf-8"), (ex, value, path)
    raw = CATALOG.read_text(encoding="utf-8")
    assert "digest" not in re.sub(r"#.*", "", raw)  # not even a field of that name
    for path in NOTEBOOKS:
        copy = json.dumps(student_notebook(json.loads(path.read_text(encoding="utf-8"))))
        assert META not in copy, path.name  # no key, no recorded answer
        assert not [ex for d, ex in secrets.items() if d in copy], path.name
        for ex in ("04.1", "05.1"):
            assert shown(KEYS[ex].value, VALUES[ex].decimals) not in copy, (path.name, ex)


def test_a_catalog_with_a_digest_is_refused(tmp_path):
    bad = tmp_path / "exercises.toml"
    bad.write_text('[exercises."04.1"]\nkind = "float"\nform = "a number"\nhint = "Eq. 3"\n'
                   'digest = "893cf372ce8838ad"\n', encoding="utf-8")
    with pytest.raises(ValueError, match="holds no answer and no digest"):
        read_catalog(bad)


def test_after_the_deadline_the_reveal_file_lets_the_check_say_correct(tmp_path, monkeypatch,
                                                                        capsys):
    out = tmp_path / "course-reveal.json"
    n = write_reveal(NOTEBOOKS, out)
    assert n == len(VALUES)
    with pytest.raises(FileExistsError):
        write_reveal(NOTEBOOKS, out)  # never overwritten
    monkeypatch.setenv(REVEAL_ENV, str(out))
    assert check("04.1", KEYS["04.1"].value).status == "correct"
    assert check("04.1", 0.645).status == "wrong"
    assert check("06.2", "success" if KEYS["06.2"].value == "failure" else "failure").status == "wrong"
    line = capsys.readouterr().out
    assert "exercise 04.1: correct" in line and "0.645 is not the value" in line
