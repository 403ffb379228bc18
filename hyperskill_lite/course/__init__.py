"""The course's exercises: the check the notebooks call, an autograder and student copies.

- check.py: `check` compares an answer with the library's value, prints one verdict line
  and returns a `Verdict` (not echoed by a notebook);
- exercises.py: where the exercise cells are (their metadata and cell ids);
- grade.py: run a learner's notebook and grade each exercise (correct / wrong / not
  answered);
- student.py: copies of the notebooks with the solutions removed and the answers blank;
- __main__.py: ``python -m hyperskill_lite.course grade NOTEBOOK...`` and ``... student
  OUT``.

Imports nothing else of the package (tests/test_layers.py). Our addition: the paper has no
course. Not here: the notebooks themselves (notebooks/), the course site (docs/).
"""

from __future__ import annotations

from hyperskill_lite.course.check import Verdict, check
from hyperskill_lite.course.grade import GradeReport, format_report, grade_notebook
from hyperskill_lite.course.student import StudentCopyError, write_student_copies

__all__ = ["GradeReport", "StudentCopyError", "Verdict", "check", "format_report",
           "grade_notebook", "write_student_copies"]
