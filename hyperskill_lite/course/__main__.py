"""``python -m hyperskill_lite.course``: grade notebooks, or write student copies.

    python -m hyperskill_lite.course grade NOTEBOOK [NOTEBOOK ...] [--source DIR]
        [--isolation bwrap|process] [--answer-timeout S] [--cell-timeout S]
    python -m hyperskill_lite.course student OUT [--notebooks DIR]

``grade`` prints one table per notebook and exits 0 when every exercise is correct, 1 when
some are wrong or not answered, 2 when a notebook cannot be graded (one line each).
``student`` writes the copies and exits 2 (one line, nothing written) rather than
overwrite a file it did not write. Not here: the work itself (grade.py, student.py).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS
from hyperskill_lite.course.exercises import NotebookError
from hyperskill_lite.course.grade import REPO_NOTEBOOKS, format_report, grade_notebook
from hyperskill_lite.course.student import StudentCopyError, write_student_copies


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hyperskill_lite.course",
                                     description="Grade course notebooks or write student copies.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade learners' notebooks with nbgrader, contained")
    g.add_argument("notebooks", nargs="+", type=Path)
    g.add_argument("--source", type=Path, default=REPO_NOTEBOOKS,
                   help=f"the instructor's notebooks (default {REPO_NOTEBOOKS})")
    g.add_argument("--isolation", choices=ISOLATIONS, default="bwrap",
                   help="bwrap: no network, read-only system (default; refuses where bubblewrap "
                   "cannot run); process: time limits only")
    g.add_argument("--answer-timeout", type=float, default=60,
                   help="seconds a learner's cell may run (default 60)")
    g.add_argument("--cell-timeout", type=float, default=600,
                   help="seconds an instructor's cell may run (default 600)")
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
              "(solutions removed, answers blank; the solutions are in the instructor edition, "
              f"{args.notebooks})")
        return 0

    code = 0
    for path in args.notebooks:
        try:
            report = grade_notebook(path, args.source, isolation=args.isolation,
                                    answer_timeout=args.answer_timeout,
                                    cell_timeout=args.cell_timeout)
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
