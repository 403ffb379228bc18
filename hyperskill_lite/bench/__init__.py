"""Benchmarks of the paper: GAIA, WebWalkerQA and xBench-DeepSearch loaders, GAIA's
exact-match scorer, the judges (exact, LLM GT-judge, self-judge; none and outcome for
GAIA's test split) and GAIA leaderboard submissions (submission.py).

Users bring the data (GAIA is gated and must not be reshared; xBench asks that its
plain text not be posted online); nothing here downloads or writes benchmark items.

May import: `core/`, `types.py`, `agent/` (the judges call a model). Must not import:
`baselines/`, `world/`, `plots/`, or the top-level runner, registry and CLI.

>>> from hyperskill_lite.bench import gaia_scorer
>>> gaia_scorer("1,024", "1024")
True
"""

from hyperskill_lite.bench.cipher import xbench_decrypt, xbench_encrypt
from hyperskill_lite.bench.errors import BenchmarkDataError
from hyperskill_lite.bench.gaia import GAIA_SPLITS, load_gaia
from hyperskill_lite.bench.judges import (
    GT_JUDGE_PROMPT,
    JUDGES,
    ExactJudge,
    LLMJudge,
    NoJudge,
    OutcomeJudge,
    SelfJudge,
    make_judge,
    parse_verdict,
)
from hyperskill_lite.bench.loaders import (
    load_benchmark,
    load_tasks_jsonl,
    load_webwalkerqa,
    load_xbench,
)
from hyperskill_lite.bench.rows import resolve_snapshot
from hyperskill_lite.bench.scoring import gaia_scorer
from hyperskill_lite.bench.submission import SUBMISSION, submission_rows, write_submission
from hyperskill_lite.bench.templates import gaia_prompt, webwalkerqa_prompt, xbench_prompt

__all__ = [
    "GAIA_SPLITS",
    "NoJudge",
    "OutcomeJudge",
    "SUBMISSION",
    "resolve_snapshot",
    "submission_rows",
    "write_submission",
    "JUDGES",
    "GT_JUDGE_PROMPT",
    "BenchmarkDataError",
    "ExactJudge",
    "LLMJudge",
    "SelfJudge",
    "gaia_prompt",
    "gaia_scorer",
    "load_benchmark",
    "load_gaia",
    "load_tasks_jsonl",
    "load_webwalkerqa",
    "load_xbench",
    "make_judge",
    "parse_verdict",
    "webwalkerqa_prompt",
    "xbench_decrypt",
    "xbench_encrypt",
    "xbench_prompt",
]
