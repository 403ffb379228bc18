"""The leaderboard page an instructor can publish: one static HTML file, no script, no
request to anywhere, every string a student controls (the file name, the method's name
and description, the problem and flag lines, which quote the method's own errors)
escaped with `html.escape`.

It shows, best first, each ranked method's success rate and its paired difference to
HyperSkill and to no memory with the 95 % interval (a "*" where the interval excludes
0), its mean context tokens per task, and the flags a teacher should look at; then the
submissions that could not be ranked, each with one line. The settings are stated (the
profile, the episodes, how many world seeds) but not the seeds themselves: they are the
instructor's (ranking.json), so the page can be published while the seeds are reused.

Not here: the ranking (rank.py).
"""

from __future__ import annotations

from html import escape
from typing import Any

from hyperskill_lite.course.capstone.rank import Entry, Ranking

__all__ = ["leaderboard_html"]

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5rem; color: #1b1b1b; max-width: 70rem; }
table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
th, td { padding: 0.35rem 0.6rem; border-bottom: 1px solid #ddd; text-align: left;
         vertical-align: top; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.ref td { background: #f4f6f8; }
.flag { color: #8a4b00; font-size: 0.85rem; }
.note { color: #555; font-size: 0.9rem; }
@media (max-width: 40rem) { body { margin: 0.5rem; } table { font-size: 0.8rem; }
  .wide { overflow-x: auto; } }
"""


def _diff(e: Entry, ref: str) -> str:
    d = e.diffs.get(ref)
    if d is None:
        return "–"
    return escape(f"{d}{' *' if d.excludes_zero else ''}")


def _row(rank: str, e: Entry, css: str = "") -> str:
    flags = "".join(f'<div class="flag">flagged: {escape(f)}</div>' for f in e.flags)
    desc = f'<div class="note">{escape(e.description)}</div>' if e.description else ""
    return (f'<tr class="{css}"><td class="num">{escape(rank)}</td>'
            f"<td>{escape(e.student)}</td><td>{escape(e.name)}{desc}{flags}</td>"
            f'<td class="num">{e.sr:.1f}</td><td class="num">{_diff(e, "hyperskill")}</td>'
            f'<td class="num">{_diff(e, "no-memory")}</td>'
            f'<td class="num">{e.context_tokens:.0f}</td></tr>')


def leaderboard_html(ranking: Ranking, title: str = "Capstone leaderboard") -> str:
    """The page (module docstring)."""
    s: dict[str, Any] = ranking.settings
    head = ("<tr><th>#</th><th>student</th><th>method</th><th>SR (%)</th>"
            "<th>vs HyperSkill [95 % CI]</th><th>vs no memory [95 % CI]</th>"
            "<th>context tokens / task</th></tr>")
    rows = [_row(str(i), e) for i, e in enumerate(ranking.entries, 1)]
    refs = [_row("ref", e, "ref") for e in ranking.references.values()]
    failed = "".join(f"<li><b>{escape(e.student)}</b>: {escape(e.problem)}</li>"
                     for e in ranking.failed)
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title><style>{_CSS}</style></head><body>
<h1>{escape(title)}</h1>
<p class="note">Each method ran contained on {int(s["episodes"])} SkillWorld tasks of the
{escape(str(s["profile"]))} profile, for {len(s["seeds"])} world seed(s), in a task order
no student saw. Differences are paired by task and seed, in percentage points, with a
bootstrap 95 % interval; * marks an interval that excludes 0. SkillWorld is a simulation:
these are not the paper's numbers.</p>
<div class="wide"><table>
<thead>{head}</thead>
<tbody>{"".join(rows)}{"".join(refs)}</tbody>
</table></div>
{f"<h2>Not ranked</h2><ul>{failed}</ul>" if failed else ""}
</body></html>
"""
