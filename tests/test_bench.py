"""Tests for hyperskill_lite.bench: loaders, xBench cipher, GAIA scorer, judges.

Every record here is synthetic (invented questions, answers, URLs and canaries), written
in each benchmark's schema; no benchmark item is used.
"""

from __future__ import annotations

import base64
import csv
import json
import random
import re
import string
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from hyperskill_lite.bench import (
    GT_JUDGE_PROMPT,
    BenchmarkDataError,
    ExactJudge,
    LLMJudge,
    SelfJudge,
    gaia_scorer,
    load_benchmark,
    load_gaia,
    load_tasks_jsonl,
    load_webwalkerqa,
    load_xbench,
    make_judge,
    parse_verdict,
    xbench_decrypt,
    xbench_encrypt,
)
from hyperskill_lite.types import Episode, Task

FIXTURES = Path(__file__).resolve().parents[1] / "data" / "fixtures"
CANARY = "made-up canary for tests 0f3a"


# --- helpers -------------------------------------------------------------------------


def write_jsonl(path: Path, rows: list, blank_every: int = 0) -> Path:
    lines = []
    for i, r in enumerate(rows, start=1):
        lines.append(r if isinstance(r, str) else json.dumps(r, ensure_ascii=False))
        if blank_every and i % blank_every == 0:
            lines.append("")
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def write_xbench(path: Path, rows: list[list[str]], header=None, bom: bool = False) -> Path:
    header = header or ["id", "prompt", "answer", "reference_steps", "canary"]
    with path.open("w", encoding="utf-8-sig" if bom else "utf-8", newline="") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)
    return path


def xrow(rid: str, question: str, answer: str, canary: str = CANARY) -> list[str]:
    return [rid, xbench_encrypt(question, canary), xbench_encrypt(answer, canary), "", canary]


def gaia_row(task_id: str, level="1", answer="7", file_name="", question=None) -> dict:
    return {
        "task_id": task_id,
        "Question": question or f"Synthetic question {task_id}?",
        "Level": level,
        "Final answer": answer,
        "file_name": file_name,
    }


def wqa_row(i: int) -> dict:
    return {
        "question": f"Invented question number {i} about site {i % 7}?",
        "answer": f"answer {i}",
        "root_url": f"https://site{i % 7}.example.org/",
        "info": {"domain": "synthetic", "difficulty_level": "easy", "lang": "en"},
    }


# --- GAIA scorer ---------------------------------------------------------------------


def reference_gaia(pred, gold: str) -> bool:
    """GAIA's published normalisation, written out plainly as an independent reference."""
    pred = "None" if pred is None else pred

    def is_number(x):
        try:
            float(x)
        except ValueError:
            return False
        return True

    def as_number(x):
        x = x.replace("$", "").replace("%", "").replace(",", "")
        return float(x) if is_number(x) else float("inf")

    def squash(x, punct):
        x = re.sub(r"\s", "", x).lower()
        return "".join(c for c in x if c not in string.punctuation) if punct else x

    if is_number(gold):
        return as_number(pred) == float(gold)
    if "," in gold or ";" in gold:
        g, p = re.split("[,;]", gold), re.split("[,;]", pred)
        if len(g) != len(p):
            return False
        out = []
        for a, b in zip(p, g):
            out.append(as_number(a) == float(b) if is_number(b) else squash(a, 0) == squash(b, 0))
        return all(out)
    return squash(pred, 1) == squash(gold, 1)


@pytest.mark.parametrize(
    ("pred", "gold", "expected"),
    [
        ("$1,234.50", "1234.5", True),  # $ and , stripped, 1234.50 == 1234.5
        ("12%", "12", True),
        ("17.0", "17", True),  # floats compare: 17.0 == 17.0
        ("17 km", "17", False),  # "17km" does not parse -> inf
        ("seventeen", "17", False),
        ("apple, Pear; FIG", "apple,pear,fig", True),  # lists: spaces and case ignored
        ("apple, pear", "apple, pear, fig", False),  # 2 elements vs 3
        ("1.50, $2", "1.5; 2", True),  # numeric list elements compare as floats
        ("a.b, c", "ab, c", False),  # punctuation kept inside list elements
        ("st petersburg!", "St. Petersburg", True),  # strings: punctuation dropped
        ("Saint Petersburg", "St. Petersburg", False),
        ("1000", "1,000", False),  # quirk: "1,000" is a list ["1", "000"], not a number
        ("1,000", "1,000", True),
        (None, "none", True),  # quirk: a missing prediction is the string "None"
        (42, "42", True),  # non-str predictions are str()-ed
    ],
)
def test_gaia_scorer_hand_worked(pred, gold, expected):
    assert gaia_scorer(pred, gold) is expected
    assert reference_gaia(pred if pred is None else str(pred), gold) is expected


def test_gaia_scorer_gold_number_and_none():
    assert gaia_scorer("3", 3) is True  # a numeric gold (from parquet) is str()-ed
    with pytest.raises(ValueError, match="gold answer is None"):
        gaia_scorer("x", None)


_ATOMS = ["12", "12.0", "$12", "12%", "1,2", "a", "A", " a ", "a.", "b;c", "b, c", "1e3", "x y"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=3),
    st.lists(st.sampled_from(_ATOMS), min_size=1, max_size=3),
    st.sampled_from([", ", ";", ","]),
)
def test_gaia_scorer_matches_reference(pred_parts, gold_parts, sep):
    pred, gold = sep.join(pred_parts), sep.join(gold_parts)
    assert gaia_scorer(pred, gold) == reference_gaia(pred, gold)


# --- xBench cipher -------------------------------------------------------------------


def test_xbench_encrypt_hand_worked():
    # 'h' ^ 'k' = 0x68 ^ 0x6B = 0x03, 'i' ^ 'k' = 0x69 ^ 0x6B = 0x02; base64(03 02) = "AwI="
    assert xbench_encrypt("hi", "k") == "AwI="
    assert xbench_decrypt("AwI=", "k") == "hi"


def naive_xor_b64(text: str, key: str) -> str:
    data, k = text.encode("utf-8"), key.encode("utf-8")
    out = bytearray()
    for i in range(len(data)):
        out.append(data[i] ^ k[i % len(k)])
    return base64.b64encode(bytes(out)).decode()


@settings(max_examples=100, deadline=None)
@given(
    st.text(st.characters(blacklist_categories=("Cc", "Cs")), min_size=1, max_size=60),
    st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=20),
)
def test_xbench_round_trip_and_reference(text, canary):
    enc = xbench_encrypt(text, canary)
    assert enc == naive_xor_b64(text, canary)
    assert xbench_decrypt(enc, canary) == text


def test_xbench_decrypt_errors():
    with pytest.raises(ValueError, match="not valid base64"):
        xbench_decrypt("@@not base64@@", "k")
    with pytest.raises(ValueError, match="canary is empty"):
        xbench_decrypt("AwI=", "")
    enc = xbench_encrypt("Ein synthetischer Satz über Flüsse und Brücken", "key one")
    with pytest.raises(ValueError, match="wrong canary"):
        xbench_decrypt(enc, "another key")


# --- GAIA loader ---------------------------------------------------------------------


def test_load_gaia_fixture_folder():
    tasks = load_gaia(FIXTURES / "gaia")
    assert [t.id for t in tasks] == ["syn-gaia-001", "syn-gaia-002", "syn-gaia-003", "syn-gaia-004"]
    assert [t.meta["level"] for t in tasks] == [1, 2, 1, 3]  # int and str Levels both read
    assert all(t.benchmark == "gaia" for t in tasks)
    first, with_file = tasks[0], tasks[1]
    assert first.prompt == first.question and first.meta["file_path"] is None
    assert first.answer == "144" and first.meta["row"] == 1
    path = Path(with_file.meta["file_path"])
    assert path.is_file() and path.is_absolute() and path.parent == (FIXTURES / "gaia").resolve()
    assert with_file.prompt.startswith(with_file.question) and str(path) in with_file.prompt


def test_load_gaia_file_and_layouts(tmp_path):
    rows = [gaia_row("a", level=1), gaia_row("b", level="2"), gaia_row("c", level=" 3 ")]
    nested = tmp_path / "GAIA" / "2023" / "validation"
    nested.mkdir(parents=True)
    write_jsonl(nested / "metadata.jsonl", rows)
    for p in (nested / "metadata.jsonl", nested, tmp_path / "GAIA"):
        assert [t.id for t in load_gaia(p)] == ["a", "b", "c"]


@pytest.mark.parametrize(
    ("level", "ids"),
    [
        (1, ["syn-gaia-001", "syn-gaia-003"]),
        ("2", ["syn-gaia-002"]),
        ([2, "3"], ["syn-gaia-002", "syn-gaia-004"]),
    ],
)
def test_load_gaia_level_filter(level, ids):
    assert [t.id for t in load_gaia(FIXTURES / "gaia", level=level)] == ids


def test_load_gaia_bad_level_argument():
    with pytest.raises(ValueError, match="level must be 1, 2 or 3"):
        load_gaia(FIXTURES / "gaia", level=4)
    with pytest.raises(ValueError, match="level must be 1, 2 or 3"):
        load_gaia(FIXTURES / "gaia", level="hard")


def test_load_gaia_errors(tmp_path):
    with pytest.raises(BenchmarkDataError, match="not found") as e:
        load_gaia(tmp_path / "nowhere" / "metadata.jsonl")
    assert e.value.path.name == "metadata.jsonl"
    with pytest.raises(BenchmarkDataError, match="no GAIA metadata found"):
        load_gaia(tmp_path)

    meta = tmp_path / "metadata.jsonl"
    write_jsonl(meta, [gaia_row("a"), "{not json", gaia_row("c")])
    with pytest.raises(BenchmarkDataError, match=r"metadata.jsonl, row 2: bad JSON") as e:
        load_gaia(meta)
    assert e.value.row == 2

    bad = gaia_row("b")
    del bad["Final answer"]
    write_jsonl(meta, [gaia_row("a"), bad])
    with pytest.raises(BenchmarkDataError, match=r"row 2: missing field 'Final answer'"):
        load_gaia(meta)

    write_jsonl(meta, [gaia_row("a", level="one")])
    with pytest.raises(BenchmarkDataError, match=r"row 1: Level 'one' is not a level number"):
        load_gaia(meta)

    write_jsonl(meta, [gaia_row("a"), gaia_row("a")])
    with pytest.raises(
        BenchmarkDataError, match=r"row 2: duplicate id 'a' \(first seen in row 1\)"
    ):
        load_gaia(meta)

    write_jsonl(meta, [gaia_row("a", question="  ")])
    with pytest.raises(BenchmarkDataError, match="row 1: Question is empty"):
        load_gaia(meta)

    write_jsonl(meta, [[1, 2]])
    with pytest.raises(BenchmarkDataError, match="row 1: expected a JSON object, got list"):
        load_gaia(meta)


def test_load_gaia_attachment_missing(tmp_path):
    meta = write_jsonl(
        tmp_path / "metadata.jsonl", [gaia_row("a"), gaia_row("b", file_name="t.xlsx")]
    )
    with pytest.raises(BenchmarkDataError, match=r"row 2: attachment 't.xlsx' not found"):
        load_gaia(meta)
    tasks = load_gaia(meta, check_files=False)
    assert tasks[1].meta["file_path"] == str(tmp_path.resolve() / "t.xlsx")


def test_load_gaia_parquet(tmp_path):
    pd = pytest.importorskip("pandas")
    path = tmp_path / "metadata.parquet"
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        path.write_bytes(b"PAR1 not really parquet")
        with pytest.raises(BenchmarkDataError, match="needs pyarrow"):
            load_gaia(tmp_path)
        return
    pd.DataFrame([gaia_row("a", level="1"), gaia_row("b", level="3")]).to_parquet(path)
    assert [(t.id, t.meta["level"]) for t in load_gaia(tmp_path)] == [("a", 1), ("b", 3)]
    pd.DataFrame([{"task_id": "a", "Question": "q"}]).to_parquet(path)
    with pytest.raises(BenchmarkDataError, match="missing columns"):
        load_gaia(path)


# --- WebWalkerQA loader --------------------------------------------------------------


def test_load_webwalkerqa_fixture_all_rows():
    tasks = load_webwalkerqa(FIXTURES / "webwalkerqa_synthetic.jsonl", subset=None)
    assert [t.id for t in tasks] == [f"wqa-{i:04d}" for i in range(1, 7)]
    second = tasks[1]  # written with the dataset card's capitalised fields
    assert second.question.startswith("When does registration close")
    assert second.answer == "Registration closes on 14 March 2031."
    assert second.meta["root_url"] == "https://harbour-data.example.org/"
    assert second.meta["info"]["Domain"] == "conference"
    assert all(t.benchmark == "webwalkerqa" for t in tasks)
    for t in tasks:
        assert t.prompt.startswith(t.question) and t.meta["root_url"] in t.prompt


def test_load_webwalkerqa_subset_matches_reference_sampler(tmp_path):
    rows = [wqa_row(i) for i in range(1, 201)]
    path = write_jsonl(tmp_path / "wqa.jsonl", rows, blank_every=9)  # blank lines are skipped

    state = random.getstate()  # the reference sampler uses the global generator
    try:
        random.seed(42)
        expected = random.sample(rows, 170)
    finally:
        random.setstate(state)

    tasks = load_webwalkerqa(path)  # subset=170, seed=42 by default
    assert len(tasks) == 170
    assert [t.question for t in tasks] == [r["question"] for r in expected]
    assert [t.id for t in tasks] == [f"wqa-{rows.index(r) + 1:04d}" for r in expected]
    assert len({t.id for t in tasks}) == 170


def test_load_webwalkerqa_subset_hand_pinned():
    # random.seed(42); random.sample(range(6), 3) == [5, 0, 4] -> rows 6, 1, 5
    tasks = load_webwalkerqa(FIXTURES / "webwalkerqa_synthetic.jsonl", subset=3)
    assert [t.id for t in tasks] == ["wqa-0006", "wqa-0001", "wqa-0005"]
    assert load_webwalkerqa(FIXTURES / "webwalkerqa_synthetic.jsonl", subset=0) == []


def test_load_webwalkerqa_ids_and_json_array(tmp_path):
    rows = [dict(wqa_row(1), id="w-1"), wqa_row(2)]
    tasks = load_webwalkerqa(write_jsonl(tmp_path / "a.jsonl", rows), subset=None)
    assert [t.id for t in tasks] == ["w-1", "wqa-0002"]
    arr = tmp_path / "a.json"
    arr.write_text(json.dumps(rows), encoding="utf-8")
    assert [t.id for t in load_webwalkerqa(arr, subset=None)] == ["w-1", "wqa-0002"]


def test_load_webwalkerqa_errors(tmp_path):
    path = write_jsonl(tmp_path / "wqa.jsonl", [wqa_row(i) for i in range(5)])
    with pytest.raises(
        BenchmarkDataError, match=r"subset=170 asks for more rows than the file has \(5\)"
    ):
        load_webwalkerqa(path)
    with pytest.raises(ValueError, match="subset must be a non-negative int or None"):
        load_webwalkerqa(path, subset=-1)
    with pytest.raises(ValueError, match="subset must be a non-negative int or None"):
        load_webwalkerqa(path, subset="all")

    no_url = wqa_row(2)
    del no_url["root_url"]
    write_jsonl(path, [wqa_row(1), no_url])
    with pytest.raises(
        BenchmarkDataError, match=r"wqa.jsonl, row 2: missing field 'root_url' or 'Root_Url'"
    ):
        load_webwalkerqa(path, subset=None)

    write_jsonl(path, [wqa_row(1), "", '{"question": "cut off'])
    with pytest.raises(BenchmarkDataError, match="row 3: bad JSON"):
        load_webwalkerqa(path, subset=None)

    with pytest.raises(BenchmarkDataError, match="file not found"):
        load_webwalkerqa(tmp_path / "missing.jsonl")

    path.write_bytes(b'{"question": "caf\xe9"}\n')
    with pytest.raises(BenchmarkDataError, match="not UTF-8"):
        load_webwalkerqa(path, subset=None)


# --- xBench loader -------------------------------------------------------------------


def test_load_xbench_fixture():
    path = FIXTURES / "xbench_synthetic.csv"
    tasks = load_xbench(path)
    assert [t.id for t in tasks] == ["1", "2", "3"]
    assert tasks[0].answer == "Mount Quist"
    assert tasks[2].question.startswith("Welche erfundene Stadt")  # non-ASCII round trip
    assert all(t.prompt == t.question and t.benchmark == "xbench" for t in tasks)
    on_disk = path.read_text(encoding="utf-8")
    assert all(t.question not in on_disk and t.answer not in on_disk for t in tasks)


def test_load_xbench_bom_and_no_plaintext_written(tmp_path):
    path = write_xbench(
        tmp_path / "DeepSearch.csv",
        [
            xrow("7", "Which invented lake is deeper, Orm or Pell?", "Pell"),
            xrow(
                "8", "How many towers has the fictional castle Drest?", "4", canary="other canary"
            ),
        ],
        bom=True,
    )
    before = sorted(p.name for p in tmp_path.iterdir())
    tasks = load_xbench(path)
    assert [(t.id, t.answer) for t in tasks] == [("7", "Pell"), ("8", "4")]
    assert sorted(p.name for p in tmp_path.iterdir()) == before
    assert "Pell" not in path.read_text(encoding="utf-8-sig")


def test_load_xbench_errors(tmp_path):
    path = tmp_path / "x.csv"
    write_xbench(path, [["1", "AwI=", "AwI="]], header=["id", "prompt", "answer"])
    with pytest.raises(BenchmarkDataError, match=r"x.csv: missing columns \['canary'\]"):
        load_xbench(path)

    good = xrow("1", "An invented question about a fictional bridge?", "Nowhere Bridge")
    bad_b64 = ["2", "%%%", good[2], "", CANARY]
    write_xbench(path, [good, bad_b64])
    with pytest.raises(
        BenchmarkDataError, match=r"x.csv, row 2: column 'prompt': not valid base64"
    ) as e:
        load_xbench(path)
    assert e.value.row == 2

    wrong = xrow("2", "Ein erfundener Satz über einen Fluss?", "Orlen")
    wrong[4] = "a different canary"
    write_xbench(path, [good, wrong])
    with pytest.raises(BenchmarkDataError, match=r"row 2: column 'prompt': .*wrong canary"):
        load_xbench(path)

    empty = xrow("2", "q?", "a")
    empty[4] = ""
    write_xbench(path, [good, empty])
    with pytest.raises(BenchmarkDataError, match="row 2: canary is empty"):
        load_xbench(path)

    write_xbench(path, [good, good])
    with pytest.raises(BenchmarkDataError, match="row 2: duplicate id '1'"):
        load_xbench(path)

    write_xbench(path, [good, [*good, "extra"]])
    with pytest.raises(BenchmarkDataError, match="row 2: more fields than the header"):
        load_xbench(path)

    with pytest.raises(BenchmarkDataError, match="file not found"):
        load_xbench(tmp_path / "missing.csv")


# --- dispatch and plain task files ---------------------------------------------------


def test_load_benchmark_dispatch():
    assert len(load_benchmark("GAIA", FIXTURES / "gaia", level=1)) == 2
    assert len(load_benchmark("wqa", FIXTURES / "webwalkerqa_synthetic.jsonl", subset=None)) == 6
    assert len(load_benchmark("xbench", FIXTURES / "xbench_synthetic.csv")) == 3
    with pytest.raises(ValueError, match="unknown benchmark 'mmlu'"):
        load_benchmark("mmlu", FIXTURES)


def test_load_tasks_jsonl(tmp_path):
    rows = [
        {"id": "t1", "question": "What is 2+2?", "answer": 4},
        {"question": "Name an invented colour.", "meta": {"topic": "art"}},
    ]
    tasks = load_tasks_jsonl(write_jsonl(tmp_path / "t.jsonl", rows))
    assert [(t.id, t.answer, t.benchmark) for t in tasks] == [
        ("t1", "4", "custom"),
        ("task-0002", None, "custom"),
    ]
    assert tasks[1].meta == {"topic": "art", "row": 2} and tasks[1].text == tasks[1].question
    write_jsonl(tmp_path / "t.jsonl", [{"id": "x"}])
    with pytest.raises(BenchmarkDataError, match="row 1: missing field 'question'"):
        load_tasks_jsonl(tmp_path / "t.jsonl")


# --- judges --------------------------------------------------------------------------


class ScriptedJSONModel:
    """Plays JSON replies in order under the chat_json contract: validate, one re-ask."""

    def __init__(self, replies):
        self.replies = list(replies)
        self.calls: list[tuple[str, str]] = []

    def chat_json(self, op, prompt, validate=None, schema=None):
        self.calls.append((op, prompt))
        reply = self.replies.pop(0)
        if validate is None:
            return reply
        try:
            return validate(reply)
        except ValueError:
            if not self.replies:
                raise
            self.calls.append((op, "re-ask"))
            return validate(self.replies.pop(0))


class ScriptedSelfJudgeModel:
    def __init__(self, verdicts):
        self.verdicts = list(verdicts)
        self.seen: list[str] = []

    def judge(self, task, episode):
        self.seen.append(task.id)
        return self.verdicts.pop(0)


TASK = Task("t1", "Which invented city hosts the Lumen Fair?", answer="Carrowby", prompt="P")


def ep(answer, error=None):
    return Episode("t1", success=True, steps=3, answer=answer, error=error)


def test_exact_judge():
    judge = ExactJudge()
    e = ep("carrowby.")
    assert judge(TASK, e) is True and e.meta["judge"] == {
        "kind": "exact",
        "correct": True,
        "reason": "",
    }
    assert judge(TASK, ep("Carrow")) is False
    e = ep(None)
    assert judge(TASK, e) is False and e.meta["judge"]["reason"] == "no answer"
    with pytest.raises(ValueError, match="has no gold answer"):
        judge(Task("t2", "q"), ep("x"))


def test_llm_judge_prompt_and_verdicts():
    model = ScriptedJSONModel([{"correct": True, "reason": "same city"}, {"correct": "no"}])
    judge = LLMJudge(model)
    e = ep("It is Carrowby, on the coast")
    assert judge(TASK, e) is True
    op, prompt = model.calls[0]
    assert op == "judge"
    assert prompt == GT_JUDGE_PROMPT.format(
        question=TASK.question, gold="Carrowby", prediction="It is Carrowby, on the coast"
    )
    assert e.meta["judge"] == {"kind": "llm", "correct": True, "reason": "same city"}
    assert judge(TASK, ep("Dunmere")) is False  # "no" repaired to False


def test_llm_judge_reask_and_failure():
    model = ScriptedJSONModel([{"verdict_text": "yes"}, {"correct": False, "reason": "differs"}])
    assert LLMJudge(model)(TASK, ep("Dunmere")) is False
    assert [c[1] for c in model.calls][1] == "re-ask"
    model = ScriptedJSONModel([["not", "an", "object"]])
    with pytest.raises(ValueError, match="expected a JSON object"):
        LLMJudge(model)(TASK, ep("Dunmere"))


def test_llm_judge_shortcuts():
    model = ScriptedJSONModel([])
    assert LLMJudge(model)(TASK, ep("  ")) is False  # no answer: no call
    assert LLMJudge(model, exact_first=True)(TASK, ep("CARROWBY")) is True  # exact: no call
    assert model.calls == []
    with pytest.raises(ValueError, match="has no gold answer"):
        LLMJudge(model)(Task("t2", "q"), ep("x"))
    with pytest.raises(TypeError, match="needs a model with chat_json"):
        LLMJudge(object())


def test_self_judge():
    model = ScriptedSelfJudgeModel([True, False])
    judge = SelfJudge(model)
    no_gold = Task("t1", "q without gold")
    assert judge(no_gold, ep("x")) is True
    assert judge(no_gold, ep("y")) is False
    e = ep(None, error="API error after retries")
    assert judge(no_gold, e) is False and model.seen == ["t1", "t1"]  # failed run: no call
    assert e.meta["judge"]["reason"].startswith("run failed")
    with pytest.raises(TypeError, match=r"needs a model with judge\(task, episode\)"):
        SelfJudge(object())


def test_make_judge():
    assert isinstance(make_judge("exact"), ExactJudge)
    assert isinstance(make_judge("llm", ScriptedJSONModel([])), LLMJudge)
    assert make_judge("GT", ScriptedJSONModel([]), exact_first=True).exact_first is True
    assert isinstance(make_judge("self", ScriptedSelfJudgeModel([])), SelfJudge)
    with pytest.raises(ValueError, match="needs a model"):
        make_judge("self")
    with pytest.raises(ValueError, match="unknown judge 'vote'"):
        make_judge("vote")


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ({"correct": True}, True),
        ({"correct": 0, "reason": None}, False),
        ({"correct": " Correct "}, True),
        ({"judgement": "incorrect"}, False),
    ],
)
def test_parse_verdict_repairs(reply, expected):
    assert parse_verdict(reply)["correct"] is expected


def test_parse_verdict_rejects():
    with pytest.raises(ValueError, match="missing 'correct'"):
        parse_verdict({"answer": "yes"})
    with pytest.raises(ValueError, match="must be true or false"):
        parse_verdict({"correct": 2})


def test_llm_judge_through_prompted_llm_and_scripted_server():
    llm_mod = pytest.importorskip("hyperskill_lite.llm.client")
    server_mod = pytest.importorskip("hyperskill_lite.testing.scripted_server")
    replies = [
        'Here is my verdict:\n```json\n{"correct": true, "reason": "same city"}\n```',
        "I think it is wrong.",  # malformed: no JSON -> one re-ask
        '{"correct": false, "reason": "different city"}',
    ]
    with server_mod.ScriptedServer(replies) as srv:
        llm = llm_mod.PromptedLLM(srv.base_url, "scripted-model", api_key="sk-test", max_retries=0)
        judge = make_judge("llm", llm)
        assert judge(TASK, ep("Carrowby")) is True
        assert judge(TASK, ep("Dunmere")) is False
        assert len(srv.requests) == 3
        first = json.dumps(srv.requests[0]["messages"])
        assert "Carrowby" in first and TASK.question in first


def test_self_judge_through_prompted_llm_sees_no_gold():
    llm_mod = pytest.importorskip("hyperskill_lite.llm.client")
    server_mod = pytest.importorskip("hyperskill_lite.testing.scripted_server")
    with server_mod.ScriptedServer(['{"success": false, "reason": "no evidence"}']) as srv:
        llm = llm_mod.PromptedLLM(srv.base_url, "scripted-model", api_key="sk-test", max_retries=0)
        e = ep("Dunmere")
        assert make_judge("self", llm)(TASK, e) is False
        assert e.meta["judge"] == {"kind": "self", "correct": False, "reason": "no evidence"}
        sent = json.dumps(srv.requests[0]["messages"])
        assert "Dunmere" in sent and "Carrowby" not in sent  # the gold answer is never shown
