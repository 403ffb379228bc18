"""Every "Eq. N" in the package, the benchmarks, the README, the user guide and the notebooks names the
equation the compiled paper prints as (N): each of the paper's `equation` environments is
numbered in order, so (1) is the objective, (3) gamma, (9) S_q, (14) the merge candidates.

A reference passes when the text around it (the same line and its neighbours) mentions a
symbol or word of that equation; a range "Eqs. a-b" passes when it mentions one of any
equation in the range. Named references ("Eq. prune", "Eq. act") are refused: the paper
numbers them (11) and (10)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

EQUATIONS: dict[int, tuple[str, ...]] = {
    1: ("objective", "max_", "maximi", "argmax"),
    2: ("node", "tuple", "(c, l", "v_i", "v ="),
    3: ("gamma", "γ", "utility", "stats", "statistic", "T_bar", "T_min", "sigma"),
    4: ("R_u", "r_u", "k_u", "subtask", "decompos", "P_0", "cos(plan", "plan",
        "\\mathcal{E}_{\\mathrm{sub}}", "e_sub"),
    5: ("E_traj", "e_traj", "trajectory", "h_e", "d_q", "k_e", "\\mathcal{E}_{\\mathrm{traj}}"),
    6: ("E*", "E\\*", "e_star", "E_sub", "e_sub", "union", "fuse", "\\mathcal{E}^*"),
    7: ("R_s", "candidate"),
    8: ("kappa", "κ", "\\kappa", "co-occurrence", "count", "e_star"),
    9: ("S_q", "top-k_s", "k_s", "kappa", "κ", "rank", "retriev"),
    10: ("action", "a_t", "window", "agent", "steps"),
    11: ("prune", "pruning", "N_min", "tau", "τ", "remove", "delete"),
    12: ("W", "affinity", "homophily", "co-occurrence", "V_e", "edge_sizes"),
    13: ("propagat", "alpha", "α", "Z", "W_hat", "Ŵ", "smooth", "neighbour"),
    14: ("merge", "merging", "delta_merge", "δ_merge", "candidate", "pair"),
}
"""Paper equation number -> words or symbols that name it (lower case where a word)."""

REF = re.compile(r"Eqs?\.\s*(\d+)(?:\s*[-–]\s*(\d+))?|Eqs?\.\s*([a-z]+)\b")


def _texts() -> list[tuple[str, str]]:
    out = []
    for path in sorted((ROOT / "hyperskill_lite").rglob("*.py")) + sorted(
        (ROOT / "benchmarks").glob("*.py")
    ):
        out.append((str(path.relative_to(ROOT)), path.read_text(encoding="utf-8")))
    out.append(("README.md", (ROOT / "README.md").read_text(encoding="utf-8")))
    for page in sorted((ROOT / "docs" / "guide").glob("*.md")):  # the user guide
        out.append((str(page.relative_to(ROOT)), page.read_text(encoding="utf-8")))
    for nb in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(nb.read_text(encoding="utf-8"))["cells"]
        for i, cell in enumerate(cells):
            out.append((f"{nb.name} cell {i}", "".join(cell["source"])))
    return out


def _mentions(window: str, numbers: range) -> bool:
    """Short symbols (W, Z, a_t, ...) must stand alone and match case; words match any
    case inside longer words ("propagat" in "Propagation")."""
    low = window.lower()
    for n in numbers:
        for word in EQUATIONS.get(n, ()):
            if len(word) <= 3 or word != word.lower():
                if re.search(rf"(?<![A-Za-z0-9_]){re.escape(word)}(?![A-Za-z0-9])", window):
                    return True
            elif word in low:
                return True
    return False


def references() -> list[tuple[str, int, str, str]]:
    """(where, line, the reference, its surrounding text) for every reference."""
    found = []
    for where, text in _texts():
        lines = text.splitlines()
        for no, line in enumerate(lines):
            for m in REF.finditer(line):
                around = "\n".join(lines[max(0, no - 1) : no + 2])
                found.append((where, no + 1, m.group(0), around))
    return found


def test_the_table_covers_every_equation_of_the_paper():
    assert sorted(EQUATIONS) == list(range(1, 15))


def test_every_equation_reference_names_the_papers_equation():
    bad = []
    refs = references()
    assert len(refs) > 50  # the scan sees the references
    for where, line, ref, around in refs:
        m = REF.fullmatch(ref)
        if m.group(3):
            bad.append(f"{where}:{line}: {ref!r} is named, not numbered")
            continue
        a = int(m.group(1))
        b = int(m.group(2) or a)
        if not (1 <= a <= b <= 14) or not _mentions(around, range(a, b + 1)):
            bad.append(f"{where}:{line}: {ref!r} does not match: {around.strip()[:160]!r}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "text, ok",
    [
        ("the utility gamma (Eq. 3)", True),
        ("the utility gamma (Eq. 1)", False),
        ("dual-path retrieval (Eqs. 4-9): R_u first", True),
        ("merge candidates (Eq. 14)", True),
        ("W (Eq. 8)", False),
    ],
)
def test_the_check_itself_on_hand_examples(text, ok):
    m = REF.search(text)
    a, b = int(m.group(1)), int(m.group(2) or m.group(1))
    assert _mentions(text, range(a, b + 1)) == ok
