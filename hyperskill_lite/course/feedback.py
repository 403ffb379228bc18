"""What a student is told about a graded submission, and when correctness is revealed.

A learner's own check never says whether a value is right (check.py): any check that did
would be an oracle a loop over candidates empties in seconds. Correctness reaches the
student only through grading, under the instructor's `RevealPolicy`:

- ``after``: from this moment on (the deadline), every grade is shown;
- ``tries``: a student's submissions of a notebook are counted by the grader
  (`TriesLedger`: a submission is one try per distinct file, so grading the same file
  again costs nothing); from the N-th try on, that student's grades are shown. Each try
  is a submission the instructor collected, so a student cannot loop it;
- neither: never, until the instructor changes the policy (the instructor's own table,
  format_report, always shows everything).

Before the reveal a student reads, per exercise, only what holds no key: "recorded" for a
value or a function, and the reasons that are the student's own to fix: nothing answered,
an answer of the wrong form, a cell that does not run on its own or never ends, a wrong
public example (grade.py's ``reason``). After it: correct or wrong, with the note (which
never holds a key or a hidden input either).

After the deadline the instructor may also publish a reveal file that lets the learner's
own check say correct (key.py, ``course reveal``).

>>> from hyperskill_lite.course.grade import ExerciseGrade, GradeReport
>>> r = GradeReport(Path("04.ipynb"), [ExerciseGrade("04.1", "wrong", "0.645 is not the value",
...                                                  reason="value")])
>>> print(student_feedback(r, revealed=False))
04.ipynb, graded outside your notebook:
  04.1  recorded (whether it is right is shown after the deadline or your last try)

Not here: grading (grade.py), the reveal file (key.py).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

__all__ = ["OWN_REASONS", "RevealPolicy", "TriesLedger", "student_feedback"]

OWN_REASONS = ("blank", "form", "run", "public")
"""The reasons for a lost point a student is told at once (they hold no key)."""


@dataclass(frozen=True)
class RevealPolicy:
    """When a student's grades show correctness (module docstring). `after` is an aware
    datetime; `tries` a number of submissions."""

    after: datetime | None = None
    tries: int | None = None

    def revealed(self, now: datetime | None = None, tries_used: int = 0) -> bool:
        now = now or datetime.now(timezone.utc)
        if self.after is not None and now >= self.after:
            return True
        return self.tries is not None and tries_used >= self.tries

    def describe(self) -> str:
        parts = []
        if self.after is not None:
            parts.append(f"after {self.after.isoformat(timespec='minutes')}")
        if self.tries is not None:
            parts.append(f"from your try {self.tries} on")
        return " or ".join(parts) or "when your teacher says so"

    @classmethod
    def parse(cls, after: str | None = None, tries: int | None = None) -> RevealPolicy:
        """From the command line's words: an ISO date-time (no zone: UTC) and a count."""
        when = None
        if after:
            when = datetime.fromisoformat(after)
            if when.tzinfo is None:
                when = when.replace(tzinfo=timezone.utc)
        if tries is not None and tries < 1:
            raise ValueError(f"--reveal-tries must be at least 1, got {tries}")
        return cls(when, tries)


class TriesLedger:
    """The grader's count of each student's submissions per notebook, in a JSON file of
    the course folder (written atomically). A try is a distinct submitted file."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)

    def _read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, ValueError) as e:
            raise ValueError(f"{self.path} is damaged ({type(e).__name__}); move it away to "
                             "start the count again") from e
        return data if isinstance(data, dict) else {}

    def count(self, student: str, notebook: str, submission: bytes) -> int:
        """Record `submission` (if new) and return the student's tries of `notebook`."""
        data = self._read()
        seen = data.setdefault(student, {}).setdefault(notebook, [])
        digest = hashlib.sha256(submission).hexdigest()
        if digest not in seen:
            seen.append(digest)
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd, tmp = tempfile.mkstemp(dir=self.path.parent, prefix=".tries.", suffix=".tmp")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(data, f, indent=1, sort_keys=True)
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        return len(seen)


def student_feedback(report: Any, revealed: bool, policy: RevealPolicy | None = None,
                     tries: int | None = None) -> str:
    """The lines a student may read about a graded submission (module docstring)."""
    policy = policy or RevealPolicy()
    when = policy.describe() if policy.after or policy.tries else \
        "after the deadline or your last try"
    lines = [f"{report.notebook.name}, graded outside your notebook"
             + (f" (try {tries})" if tries else "") + ":"]
    for g in report.grades:
        if g.status == "to grade by hand":
            text = "written answer: your teacher grades it by hand"
        elif revealed:
            text = g.status + (f": {g.note}" if g.note and g.status != "correct" else "")
        elif g.status != "correct" and g.reason in OWN_REASONS:
            text = f"{g.status}: {g.note}"
        else:
            text = f"recorded (whether it is right is shown {when})"
        lines.append(f"  {g.exercise}  {text}")
    if revealed:
        lines.append(f"  points: {report.points:g} of "
                     f"{sum(g.max_points for g in report.grades):g}")
    return "\n".join(lines)
