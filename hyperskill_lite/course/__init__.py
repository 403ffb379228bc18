"""The course's exercises: the checks a learner runs, the instructor's tests, student
copies and grading, on nbgrader.

- answers.py: an answer's canonical form, its digest, outputs compared, values rounded;
- catalog.py (+ exercises.toml): every exercise's kind, form, hint, digest or examples;
- check.py: `check` and `check_function`, the learner's own checks (never raise);
- verify.py: `verify_answer` and `verify_function`, the instructor's hidden tests;
- cases.py: the hidden inputs of the coding exercises;
- contained.py: a learner's function run in the python tool's sandbox;
- exercises.py: the exercise cells' metadata (ours, nbgrader's, the site's tags);
- student.py: student copies (nbgrader's release steps);
- grade.py, autograde.py: grading with nbgrader, contained;
- __main__.py: ``python -m hyperskill_lite.course grade NOTEBOOK...`` and ``... student OUT``.

May import the python tool's sandbox (agent/tools/sandbox.py) and nothing else of the
package (tests/test_layers.py). Our addition: the paper has no course. Not here: the
notebooks themselves (notebooks/), the course site (docs/).
"""

from __future__ import annotations

from hyperskill_lite.course.check import Verdict, check, check_function
from hyperskill_lite.course.grade import GradeReport, format_report, grade_notebook
from hyperskill_lite.course.student import StudentCopyError, write_student_copies
from hyperskill_lite.course.verify import ExerciseFailed, verify_answer, verify_function

__all__ = ["ExerciseFailed", "GradeReport", "StudentCopyError", "Verdict", "check",
           "check_function", "format_report", "grade_notebook", "verify_answer",
           "verify_function", "write_student_copies"]
