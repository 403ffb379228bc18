"""``python -m hyperskill_lite.course``: grade notebooks, write student copies, publish
a reveal file, rank the capstone.

    python -m hyperskill_lite.course grade NOTEBOOK [NOTEBOOK ...] [--source DIR]
        [--isolation bwrap|process] [--course ROOT --student ID [--assignment A]]
        [--reveal-after DATETIME] [--reveal-tries N] [--feedback DIR]
    python -m hyperskill_lite.course student OUT [--notebooks DIR]
    python -m hyperskill_lite.course reveal OUT.json [--notebooks DIR]
    python -m hyperskill_lite.course capstone SUBMISSIONS --out OUT [--profile P]
        [--episodes N] [--seeds S ...] [--order-seed S] [--isolation bwrap|process]
        [--call-timeout S] [--time-limit S] [--memory-mb MB]

``grade`` prints one table per notebook (the instructor's: it may name a key or a hidden
input) and exits 0 when every exercise is correct (written answers waiting for their hand
grade aside), 1 when some are wrong or not answered,
2 when a notebook cannot be graded (one line each). With ``--feedback DIR`` it also
writes what the student may read (feedback.py: correctness only as the reveal policy
allows; in an nbgrader course, ``--course``, each distinct submission is a try).
``student`` writes the copies and exits 2 (one line, nothing written) rather than
overwrite a file it did not write. ``reveal`` writes the file that lets learners' own
checks say correct, for after the deadline. ``capstone`` writes OUT/leaderboard.html and
OUT/ranking.json and exits 0 when it ranked, 2 when it could not (one line); a
submission that fails costs itself only. Not here: the work itself.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS
from hyperskill_lite.course.capstone.leaderboard import leaderboard_html
from hyperskill_lite.course.capstone.rank import RankingError, rank_class
from hyperskill_lite.course.capstone.remote import Limits
from hyperskill_lite.course.exercises import NotebookError
from hyperskill_lite.course.feedback import RevealPolicy, TriesLedger, student_feedback
from hyperskill_lite.course.grade import REPO_NOTEBOOKS, format_report, grade_notebook
from hyperskill_lite.course.gradebook import ASSIGNMENT, STUDENT
from hyperskill_lite.course.key import write_reveal
from hyperskill_lite.course.student import StudentCopyError, write_student_copies

TRIES = ".hyperskill-course/tries.json"
"""The tries ledger, inside an nbgrader course folder."""


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m hyperskill_lite.course",
                                     description="Grade course notebooks, write student copies "
                                     "or a reveal file, rank the capstone.")
    sub = parser.add_subparsers(dest="command", required=True)
    g = sub.add_parser("grade", help="grade learners' notebooks outside their kernel")
    g.add_argument("notebooks", nargs="+", type=Path)
    g.add_argument("--source", type=Path, default=REPO_NOTEBOOKS,
                   help=f"the instructor's notebooks (default {REPO_NOTEBOOKS})")
    g.add_argument("--isolation", choices=ISOLATIONS, default="bwrap",
                   help="bwrap: no network, read-only system, no library (default; refuses where "
                   "bubblewrap cannot run); process: time and memory limits only")
    g.add_argument("--course", type=Path, default=None,
                   help="an nbgrader course folder: scores land in its gradebook (formgrader)")
    g.add_argument("--student", default=STUDENT, help="the student id in --course")
    g.add_argument("--assignment", default=ASSIGNMENT, help="the assignment in --course")
    g.add_argument("--reveal-after", default=None, metavar="DATETIME",
                   help="show students correctness from this ISO date-time (UTC unless given)")
    g.add_argument("--reveal-tries", type=int, default=None, metavar="N",
                   help="show a student correctness from their N-th submission on (--course)")
    g.add_argument("--feedback", type=Path, default=None, metavar="DIR",
                   help="write what each student may read to DIR/<student>/<notebook>.txt")
    s = sub.add_parser("student", help="write student copies (no solutions, blank answers)")
    s.add_argument("out", type=Path)
    s.add_argument("--notebooks", type=Path, default=REPO_NOTEBOOKS,
                   help=f"where the course notebooks are (default {REPO_NOTEBOOKS})")
    r = sub.add_parser("reveal", help="write the reveal file (for after the deadline)")
    r.add_argument("out", type=Path)
    r.add_argument("--notebooks", type=Path, default=REPO_NOTEBOOKS)
    c = sub.add_parser("capstone", help="rank the class's capstone methods on SkillWorld")
    c.add_argument("submissions", type=Path, help="a folder of <student-id>.py files")
    c.add_argument("--out", type=Path, required=True)
    c.add_argument("--profile", default="gaia")
    c.add_argument("--episodes", type=int, default=100)
    c.add_argument("--seeds", type=int, nargs="+", default=None,
                   help="world seeds (default: three drawn at random, kept in ranking.json)")
    c.add_argument("--order-seed", type=int, default=None,
                   help="the task order (default: drawn at random, kept in ranking.json)")
    c.add_argument("--isolation", choices=ISOLATIONS, default="bwrap")
    c.add_argument("--call-timeout", type=float, default=Limits.call_seconds)
    c.add_argument("--time-limit", type=float, default=Limits.total_seconds,
                   help="seconds each submission may take per world seed")
    c.add_argument("--memory-mb", type=int, default=Limits.memory_mb)
    c.add_argument("--encoder", default="hashing")
    return parser


def _student(args: argparse.Namespace) -> int:
    try:
        written = write_student_copies(args.notebooks, args.out)
    except (StudentCopyError, NotebookError) as e:
        print(f"course student: {e}", file=sys.stderr)
        return 2
    print(f"wrote {len(written)} student notebooks to {args.out} (solutions, rubrics and keys "
          f"removed, answers blank; the solutions are in the instructor edition, {args.notebooks})")
    return 0


def _reveal(args: argparse.Namespace) -> int:
    notebooks = sorted(Path(args.notebooks).glob("[0-9][0-9]_*.ipynb"))
    try:
        n = write_reveal(notebooks, args.out)
    except (NotebookError, FileExistsError, OSError) as e:
        print(f"course reveal: {e}", file=sys.stderr)
        return 2
    print(f"wrote {args.out}: {n} exercises' digests; with it (HYPERSKILL_COURSE_REVEAL="
          f"{args.out}, or beside the notebooks as course-reveal.json) a learner's check says "
          "correct or not yet. Publish it only after the deadline.")
    return 0


def _grade(args: argparse.Namespace) -> int:
    try:
        policy = RevealPolicy.parse(args.reveal_after, args.reveal_tries)
    except ValueError as e:
        print(f"course grade: {e}", file=sys.stderr)
        return 2
    ledger = TriesLedger(args.course / TRIES) if args.course else None
    code = 0
    for path in args.notebooks:
        try:
            report = grade_notebook(path, args.source, isolation=args.isolation,
                                    course=args.course, student=args.student,
                                    assignment=args.assignment)
            tries = ledger.count(args.student, report.notebook.name, path.read_bytes()) \
                if ledger else None
        except (NotebookError, ValueError, OSError) as e:
            print(f"course grade: {e}", file=sys.stderr)
            code = 2
            continue
        print(format_report(report))
        if args.feedback is not None:
            revealed = policy.revealed(tries_used=tries or 0)
            target = args.feedback / args.student / (Path(path).stem + ".txt")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(student_feedback(report, revealed, policy, tries) + "\n",
                              encoding="utf-8")
        if not report.all_correct and code == 0:
            code = 1
    return code


def _capstone(args: argparse.Namespace) -> int:
    out = args.out
    ours = {"leaderboard.html", "ranking.json"}
    if out.exists() and (not out.is_dir() or any(p.name not in ours for p in out.iterdir())):
        print(f"course capstone: {out} holds other files; name a new or empty folder",
              file=sys.stderr)
        return 2
    limits = Limits(call_seconds=args.call_timeout, total_seconds=args.time_limit,
                    memory_mb=args.memory_mb)
    seeds = args.seeds
    if seeds is None:
        import secrets  # lazy: only when the seeds are drawn

        seeds = [secrets.randbelow(2**31) for _ in range(3)]
    try:
        ranking = rank_class(args.submissions, profile=args.profile, episodes=args.episodes,
                             seeds=seeds, order_seed=args.order_seed, isolation=args.isolation,
                             limits=limits, encoder=args.encoder,
                             log=lambda line: print(line, file=sys.stderr))
    except (RankingError, FileNotFoundError, ValueError) as e:
        print(f"course capstone: {e}", file=sys.stderr)
        return 2
    out.mkdir(parents=True, exist_ok=True)
    (out / "ranking.json").write_text(json.dumps(ranking.to_dict(), indent=1) + "\n",
                                      encoding="utf-8")
    (out / "leaderboard.html").write_text(leaderboard_html(ranking), encoding="utf-8")
    print(f"ranked {len(ranking.entries)} of {ranking.settings['submissions']} submissions "
          f"({len(ranking.failed)} not ranked): {out / 'leaderboard.html'} (publish it), "
          f"{out / 'ranking.json'} (keep it: it holds the seeds)")
    return 0


def shadowed() -> str | None:
    """Why the library imported here is not the installed one (a folder named
    ``hyperskill_lite`` in the working folder, as a student's notebook can write, shadows
    it when Python puts the working folder on sys.path), or None."""
    package = sys.modules.get("hyperskill_lite")  # imported before this module, as it was
    here = Path(__file__).resolve().parents[1]
    found = Path(getattr(package, "__file__", None) or here / "__init__.py").resolve().parent
    if found != here:
        return (f"the package hyperskill_lite was imported from {found}, not from where the "
                f"grader is installed ({here}): a folder of that name in the working folder "
                "shadows it; run the command from another folder (or as python -I -m ...)")
    return None


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    why = shadowed()
    if why:
        print(f"course {args.command}: {why}", file=sys.stderr)
        return 2
    if args.command == "student":
        return _student(args)
    if args.command == "reveal":
        return _reveal(args)
    if args.command == "capstone":
        return _capstone(args)
    return _grade(args)


if __name__ == "__main__":
    sys.exit(main())
