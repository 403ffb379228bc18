"""The course's counts, computed from the course itself: the notebooks (``NN_*.ipynb`` in
the notebooks folder) and their exercises (``hyperskill_lite/course/exercises.toml``,
read by its catalog module, each exercise's statement in its notebook).

Every count the documentation gives is made here: tools/readme.py writes them into the
user guide's generated blocks (and checks them with ``--check``), the site build fills
the syllabus's and the instructor guide's ``{{ ... }}`` fields with them, and
tests/test_book.py fails when a page states a count by hand or a block drifts.

An exercise's kind, for a reader: **coding** (a function, the catalog's kind
``function``, graded on hidden inputs), **prediction** (its statement opens with
*Predict*, checked with a run, a panel or a table), **value** (a number, an id, a set or
true/false, read off or worked out) or, for any other kind the catalog adds (a written
answer, say), that kind's own name. Ours: the paper has no course.

Not here: the catalog itself (hyperskill_lite/course/catalog.py), the pages' prose.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["ExerciseInfo", "KIND_ORDER", "count_fields", "course_exercises", "equation_names",
           "exercise_kind",
           "notebook_names", "notebook_range", "exercise_summary", "exercise_table",
           "statements"]

KIND_ORDER = ("coding", "prediction", "value")
"""The kinds in the order the pages list them; another kind comes after them."""
VALUE_KINDS = frozenset({"float", "int", "bool", "str", "set", "list", "choice"})
"""The catalog's kinds whose answer is a value (`answers.KINDS` but ``function``)."""
STATEMENT = re.compile(r"\*\*Exercise (\d\d\.\d+)\.\*\*\s*(.*)", re.S)
TITLE = re.compile(r"^\*\*(.+?)\*\*")


@dataclass(frozen=True)
class ExerciseInfo:
    """One exercise as the pages count it: its id, notebook number, kind (module
    docstring), and for a coding exercise the function written and its statement's
    title ("Implement Eq. 3.")."""

    id: str
    notebook: str
    kind: str
    name: str = ""
    title: str = ""


def notebook_names(notebooks: Path) -> list[str]:
    """The course's notebooks, ``NN_name`` in order."""
    return sorted(p.stem for p in notebooks.glob("[0-9][0-9]_*.ipynb"))


def notebook_range(names: list[str]) -> str:
    """"00-10" for the first and last notebook's numbers.

    >>> notebook_range(["00_a", "01_b", "10_c"])
    '00-10'
    """
    return f"{names[0][:2]}-{names[-1][:2]}" if names else ""


def statements(notebooks: Path) -> dict[str, str]:
    """Each exercise's statement (the Markdown after ``**Exercise NN.N.**``), by id."""
    out: dict[str, str] = {}
    for path in sorted(notebooks.glob("[0-9][0-9]_*.ipynb")):
        nb = json.loads(path.read_text(encoding="utf-8"))
        for cell in nb.get("cells", []):
            if cell.get("cell_type") != "markdown":
                continue
            src = cell["source"] if isinstance(cell["source"], str) else "".join(cell["source"])
            m = STATEMENT.search(src)
            if m:
                out[m.group(1)] = m.group(2).strip()
    return out


def exercise_kind(catalog_kind: str, statement: str) -> str:
    """The kind a page counts an exercise as (module docstring).

    >>> exercise_kind("function", "**Implement Eq. 3.** Write `gamma`")
    'coding'
    >>> exercise_kind("choice", "*Predict, then run.* Will it ...")
    'prediction'
    >>> exercise_kind("int", "How many nodes ..."), exercise_kind("written", "Explain why")
    ('value', 'written')
    """
    if catalog_kind == "function":
        return "coding"
    if statement.lstrip().lower().startswith(("*predict", "_predict", "predict")):
        return "prediction"
    return "value" if catalog_kind in VALUE_KINDS else catalog_kind


def course_exercises(notebooks: Path, catalog: dict[str, Any] | None = None) -> list[ExerciseInfo]:
    """Every exercise of the catalog (``hyperskill_lite.course.catalog``), in id order."""
    if catalog is None:
        from hyperskill_lite.course.catalog import catalog as read_catalog

        catalog = read_catalog()
    said = statements(notebooks)
    out = []
    for ex_id in sorted(catalog):
        ex = catalog[ex_id]
        statement = said.get(ex_id, "")
        kind = exercise_kind(ex.kind, statement)
        title = TITLE.match(statement)
        out.append(ExerciseInfo(ex_id, ex_id.split(".")[0], kind,
                                ex.name if kind == "coding" else "",
                                title.group(1).strip() if title and kind == "coding" else ""))
    return out


def _kinds(exercises: list[ExerciseInfo]) -> list[str]:
    found = {e.kind for e in exercises}
    return [k for k in KIND_ORDER if k in found] + sorted(found - set(KIND_ORDER))


PHRASES = {"coding": ("coding exercise", "coding exercises",
                      "write a function, graded on hidden inputs against the library"),
           "prediction": ("prediction", "predictions",
                          "predict, then check with a run, a panel or a table"),
           "value": ("value", "values", "a number, an id, a set or true/false, read off or "
                     "worked out"),
           "written": ("written question", "written questions",
                       "explain why, graded by hand against a rubric")}


def _phrase(kind: str, n: int) -> str:
    one, many, what = PHRASES.get(kind, (f"{kind} exercise", f"{kind} exercises", ""))
    return f"{n} {one if n == 1 else many}" + (f" ({what})" if what else "")


def _join(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


def exercise_summary(notebooks: Path, catalog: dict[str, Any] | None = None) -> str:
    """One paragraph: how many notebooks, how many exercises in which notebooks, by kind.

    >>> from types import SimpleNamespace as E
    >>> import tempfile
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     for n in ("00_a", "01_b"):
    ...         _ = (Path(tmp) / f"{n}.ipynb").write_text('{"cells": []}')
    ...     print(exercise_summary(Path(tmp), {"01.1": E(kind="int", name=""),
    ...                                        "01.2": E(kind="function", name="f")}))
    The course has 2 notebooks (00-01). Notebook 01 ends with 2 exercises: 1 coding exercise (write a function, graded on hidden inputs against the library) and 1 value (a number, an id, a set or true/false, read off or worked out).
    """
    names = notebook_names(notebooks)
    exercises = course_exercises(notebooks, catalog)
    with_ex = sorted({e.notebook for e in exercises})
    where = (f"Notebook {with_ex[0]}" if len(with_ex) == 1 else
             f"Notebooks {with_ex[0]}-{with_ex[-1]}" if with_ex else "No notebook")
    counts = Counter(e.kind for e in exercises)
    kinds = [_phrase(k, counts[k]) for k in _kinds(exercises)]
    total = len(exercises)
    text = (f"The course has {len(names)} notebook{'s' if len(names) != 1 else ''} "
            f"({notebook_range(names)}). {where} end{'s' if len(with_ex) == 1 else ''} with "
            f"{total} exercise{'s' if total != 1 else ''}")
    return text + (f": {_join(kinds)}." if kinds else ".")


MAP_ROW = re.compile(r"^\|\s*(\d+)\s*\|\s*([^|]+?)\s*\|\s*\d\d\s*\|", re.M)
EQ_REF = re.compile(r"\bEqs?\.\s*((?:\d+|\s*(?:[-–,]|and)\s*)+)")


def equation_names(notebooks: Path) -> dict[int, str]:
    """What each paper equation is, as the course map (notebook 00's table "Eq. | what |
    notebook | function") names it: {12: "W, quality-weighted co-occurrence", ...}."""
    home = sorted(notebooks.glob("00_*.ipynb"))
    if not home:
        return {}
    nb = json.loads(home[0].read_text(encoding="utf-8"))
    text = "".join("".join(c["source"]) if isinstance(c["source"], list) else c["source"]
                   for c in nb.get("cells", []) if c.get("cell_type") == "markdown")
    return {int(n): what for n, what in MAP_ROW.findall(text)}


def _numbers(refs: str) -> list[int]:
    """The equation numbers of "4 and 5", "7-8", "12".

    >>> _numbers("4 and 5"), _numbers("7-8"), _numbers("12 ")
    ([4, 5], [7, 8], [12])
    """
    out: list[int] = []
    for a, b in re.findall(r"(\d+)(?:\s*[-–]\s*(\d+))?", refs):
        out += list(range(int(a), int(b or a) + 1))
    return out


def _coding(e: ExerciseInfo, names: dict[int, str] | None = None) -> str:
    """ "04.3 `gamma`: implement Eq. 3 (Eq. 3: utility γ)": the statement's title, as it
    says it, and what the course map calls each equation it names.

    >>> _coding(ExerciseInfo("04.3", "04", "coding", "gamma", "Implement Eq. 3."), {3: "γ"})
    '04.3 `gamma`: implement Eq. 3 (Eq. 3: γ)'
    >>> _coding(ExerciseInfo("02.3", "02", "coding", "f", "Implement Eqs. 4 and 5."),
    ...         {4: "R_u", 5: "E_traj"})
    '02.3 `f`: implement Eqs. 4 and 5 (Eq. 4: R_u; Eq. 5: E_traj)'
    """
    title = e.title.rstrip(". ")
    first = title.split(" ", 1)[0]
    if first[1:].islower():  # "Implement" -> "implement"; "W", "SR" stay
        title = title[:1].lower() + title[1:]
    numbers = [n for m in EQ_REF.finditer(title) for n in _numbers(m.group(1))]
    named = [f"Eq. {n}: {names[n]}" for n in dict.fromkeys(numbers) if names and n in names]
    if named:
        title += f" ({'; '.join(named)})"
    return f"{e.id} `{e.name}`" + (f": {title}" if title else "")


def exercise_table(notebooks: Path, catalog: dict[str, Any] | None = None) -> str:
    """The exercises per notebook by kind, with the coding exercises named, and a total
    row (Markdown)."""
    exercises = course_exercises(notebooks, catalog)
    kinds = _kinds(exercises)
    names = equation_names(notebooks)
    rows = ["| notebook | exercises | " + " | ".join(kinds) + " | the coding exercises |",
            "|---|---|" + "---|" * len(kinds) + "---|"]
    for name in notebook_names(notebooks):
        mine = [e for e in exercises if e.notebook == name[:2]]
        if not mine:
            continue
        counts = Counter(e.kind for e in mine)
        coding = "; ".join(_coding(e, names) for e in mine if e.kind == "coding") or "–"
        rows.append(f"| `{name}` | {len(mine)} | "
                    + " | ".join(str(counts[k]) if counts[k] else "–" for k in kinds)
                    + f" | {coding.replace('|', '∣')} |")
    counts = Counter(e.kind for e in exercises)
    rows.append(f"| **all** | **{len(exercises)}** | "
                + " | ".join(f"**{counts[k]}**" for k in kinds) + " | |")
    return "\n".join(rows)


def count_fields(notebooks: Path, catalog: dict[str, Any] | None = None) -> dict[str, str]:
    """The site pages' ``{{ ... }}`` fields for the counts: ``notebook_count``,
    ``notebook_range``, ``exercise_count``, ``exercise_summary`` and ``exercise_table``."""
    names = notebook_names(notebooks)
    return {"notebook_count": str(len(names)), "notebook_range": notebook_range(names),
            "exercise_count": str(len(course_exercises(notebooks, catalog))),
            "exercise_summary": exercise_summary(notebooks, catalog),
            "exercise_table": exercise_table(notebooks, catalog)}
