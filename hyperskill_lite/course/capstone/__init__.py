"""The capstone's ranking: each student's own memory method (a `MethodSpec` in one file,
submission.py), run contained on SkillWorld against HyperSkill and no memory, ranked with
paired confidence intervals on task orders the students never saw, and a leaderboard
page to publish.

- submission.py: the submission format, and a first look at a file (flags);
- child.py: the contained side (the student's method and nothing else);
- remote.py: the grader's side of one contained method (the world, the limits);
- rank.py: the runs, the paired intervals, the order;
- leaderboard.py: the HTML page.

``python -m hyperskill_lite.course capstone SUBMISSIONS --out OUT`` (course/__main__.py)
runs it; docs/course/capstone.md is the instructor's page. Our addition: the paper has
no course.
"""

from __future__ import annotations

from hyperskill_lite.course.capstone.leaderboard import leaderboard_html
from hyperskill_lite.course.capstone.rank import (
           REFERENCES,
           Entry,
           Ranking,
           RankingError,
           rank_class,
)
from hyperskill_lite.course.capstone.remote import Limits, MethodFailed
from hyperskill_lite.course.capstone.submission import find_submissions, scan_submission

__all__ = ["REFERENCES", "Entry", "Limits", "MethodFailed", "Ranking", "RankingError",
           "find_submissions", "leaderboard_html", "rank_class", "scan_submission"]
