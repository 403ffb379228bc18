"""``python -m hyperskill_lite.course``: grade notebooks, or write student copies.

    python -m hyperskill_lite.course grade NOTEBOOK [NOTEBOOK ...] [--timeout S]
    python -m hyperskill_lite.course student OUT [--notebooks DIR]

``grade`` prints one table per notebook and exits 0 when every exercise is correct, 1 when
some are wrong or not answered, 2 when a notebook cannot be graded. ``student`` writes the
copies and exits 2 (one line, nothing written) rather than overwrite a file it did not
write. Not here: the work itself (grade.py, student.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hyperskill_lite.course.exercises import NotebookError
from hyperskill_lite.course.grade import format_report, grade_notebook
from hyperskill_lite.course.student import StudentCopyError, write_student_copies

REPO_NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hyperskill_lite.course",
                                     description="Grade course notebooks or write student copies.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="run notebooks and grade their exercises")
    g.add_argument("notebooks", nargs="+", type=Path)
    g.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    s = sub.add_parser("student", help="write student copies (no solutions, blank answers)")
    s.add_argument("out", type=Path)
    s.add_argument("--notebooks", type=Path, default=REPO_NOTEBOOKS,
                   help=f"where the course notebooks are (default {REPO_NOTEBOOKS})")
    args = parser.parse_args(argv)

    if args.command == "student":
        try:
            written = write_student_copies(args.notebooks, args.out)
        except (StudentCopyError, NotebookError) as e:
            print(f"course student: {e}", file=sys.stderr)
            return 2
        print(f"wrote {len(written)} student notebooks to {args.out} "
              "(solutions removed, answers blank)")
        return 0

    code = 0
    for path in args.notebooks:
        try:
            report = grade_notebook(path, timeout=args.timeout)
        except NotebookError as e:
            print(f"course grade: {e}", file=sys.stderr)
            code = 2
            continue
        print(format_report(report))
        if not report.all_correct and code == 0:
            code = 1
    return code


if __name__ == "__main__":
    sys.exit(main())
