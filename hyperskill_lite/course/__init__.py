"""The course's exercises: the checks a learner runs, the instructor's tests (which record
the key), student copies, grading outside the learner's kernel with nbgrader's gradebook,
and the capstone's ranking.

- answers.py: an answer's canonical form, outputs compared, values shown rounded;
- catalog.py (+ exercises.toml): every exercise's kind, form, hint, public examples
  (no answer, no digest: it ships with the package);
- check.py: `check` and `check_function`, the learner's own checks (form and public
  examples; never an oracle);
- verify.py: `verify_answer` and `verify_function`, the instructor's tests (they record
  the key in the instructor's notebook);
- key.py: the key read from the instructor's notebook, learners' recorded answers, the
  reveal file;
- cases.py, references.py: the hidden inputs of the coding exercises and the library's
  function each is compared with;
- contained.py: a learner's code run in the python tool's sandbox;
- tamper.py: flags for cells that try to game the grader;
- grade.py, gradebook.py, feedback.py: grading (outside the notebook), nbgrader's
  gradebook, what a student is told and when;
- exercises.py, student.py: the exercise cells' metadata, student copies;
- capstone/: ranking the class's own memory methods;
- __main__.py: ``python -m hyperskill_lite.course grade | student | reveal | capstone``.

May import the python tool's sandbox (agent/tools/), the library it grades against
(core/, plots/, stats.py, compare_tables.py) and, for the capstone, what runs a method on SkillWorld
(methods/, types.py, launch.py, protocol.py, runner/) (tests/test_layers.py). Our
addition: the paper has no course. Not here: the notebooks (notebooks/), the course site
(docs/).
"""

from __future__ import annotations

from hyperskill_lite.course.check import Verdict, check, check_function
from hyperskill_lite.course.feedback import RevealPolicy, student_feedback
from hyperskill_lite.course.grade import GradeReport, format_report, grade_notebook
from hyperskill_lite.course.student import StudentCopyError, write_student_copies
from hyperskill_lite.course.verify import ExerciseFailed, verify_answer, verify_function

__all__ = ["ExerciseFailed", "GradeReport", "RevealPolicy", "StudentCopyError", "Verdict",
           "check", "check_function", "format_report", "grade_notebook", "student_feedback",
           "verify_answer", "verify_function", "write_student_copies"]
