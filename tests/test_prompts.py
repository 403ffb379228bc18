"""Tests for the prompts (methods/hyperskill/prompts.py: the paper's; agent/prompts.py: the
agent's; the self-judge's in bench/judges.py): filled safely, and the memory format."""

from __future__ import annotations

import re

import pytest

from hyperskill_lite.agent import prompts as A
from hyperskill_lite.bench.judges import judge_prompt
from hyperskill_lite.llm.replies import extract_json
from hyperskill_lite.llm.text import clip_middle, fill
from hyperskill_lite.methods.hyperskill import prompts as P
from hyperskill_lite.methods.hyperskill.replies import check_extraction, check_merged, check_steps


@pytest.mark.parametrize(
    ("benchmark", "first_line", "must_have"),
    [
        (
            "gaia",
            "Decompose this task into 1-3 SHORT steps. Minimize steps to save context window.",
            ["inspect_file_as_text(path)", "If a file is attached, read it FIRST"],
        ),
        (
            "webwalkerqa",
            "Decompose this web navigation task into 2-4 steps.",
            ["ALWAYS start by crawling the root URL", '"name": "explore_site"'],
        ),
        (
            "xbench",
            "Decompose this data task into 2-4 steps. Each step must specify WHICH DATA to get and HOW to process it.",
            ["python code: Run calculations, unit conversions, comparisons"],
        ),
    ],
)
def test_decomposition_prompts_follow_the_paper(benchmark, first_line, must_have):
    p = P.decomposition_prompt("How tall is the tower?", benchmark)
    assert p.splitlines()[0] == first_line
    for s in must_have:
        assert s in p
    assert "Task: How tall is the tower?" in p
    assert "{query}" not in p
    assert "Return ONLY a JSON array" in p


def test_decomposition_benchmark_names_are_checked():
    assert P.decomposition_prompt("q", "WebWalker") == P.decomposition_prompt("q", "webwalkerqa")
    with pytest.raises(ValueError, match="unknown benchmark 'hotpotqa'"):
        P.decomposition_prompt("q", "hotpotqa")


def _tool_block(prompt: str) -> list[str]:
    return prompt.split("Available tools:\n")[1].split("\n\n")[0].splitlines()


def test_decomposition_prompt_lists_exactly_the_runs_tools():
    paper = P.decomposition_prompt("q", "gaia")
    # the run's tools, in the box's order, each with the paper's words
    full = P.decomposition_prompt("q", "gaia", ["python", "web_search", "crawl_page",
                                                "inspect_file_as_text", "inspect_file_as_image"])
    assert full == paper
    no_image = P.decomposition_prompt("q", "gaia", ["web_search", "crawl_page", "python",
                                                    "inspect_file_as_text"])
    assert "inspect_file_as_image" not in no_image
    assert len(_tool_block(no_image)) == 4
    # a tool another box names gets that box's line; audio (no box names it) gets ours
    ww = P.decomposition_prompt("q", "webwalkerqa", ["web_search", "crawl_page", "python",
                                                     "inspect_file_as_audio"])
    assert _tool_block(ww) == [
        "- web_search(query): Search for specific pages on the website",
        "- crawl_page(url): Read content from a URL",
        "- inspect_file_as_audio(path): Listen to audio files (transcribed)",
        "- python code: Calculations, counting, data processing",
    ]
    assert "ALWAYS start by crawling the root URL" in ww  # the rest of the box is kept
    xb = P.decomposition_prompt("q", "xbench", ["python"])
    assert _tool_block(xb) == ["- python code: Run calculations, unit conversions, comparisons"]
    assert "format_memory" not in P.__all__ and not hasattr(P, "format_memory")


def test_fill_is_single_pass_and_keeps_json_braces():
    # a task that itself contains a placeholder name is inserted literally, never re-filled
    out = fill('T: {query} / R: {result} / {"name": "x"}', query="{result}", result="ok")
    assert out == 'T: {result} / R: ok / {"name": "x"}'
    assert fill("{unknown} {query}", query="q") == "{unknown} q"


def test_extraction_prompts_success_and_failure():
    s = P.extraction_prompt("task text", "step 1 ...", "SUCCESS. Final answer: 4", True)
    f = P.extraction_prompt("task text", "step 1 ...", "FAILURE. Final answer: (none)", False)
    assert s.startswith("Extract reusable knowledge from this SUCCESSFUL task.")
    assert f.startswith("Extract reusable lessons from this FAILED task.")
    for p in (s, f):
        assert "CRITICAL RULES:" in p
        assert 'Bad: "Search for Zip Codes". Good: "Targeted Database Search".' in p
        assert "Extract 1-3 items max." in p
        # the paper's wording, the trajectory fenced as quoted data (our addition)
        assert ("Task: task text\nTrajectory: <quoted_data what=\"trajectory\">\nstep 1 ...\n"
                "</quoted_data>\nResult: ") in p
    assert '"skills"' in s and '"mistakes"' not in s
    assert '"mistakes"' in f and "Extract mistakes (what went wrong and how to avoid it)." in f


def test_the_json_examples_in_the_prompts_pass_our_own_contract_checks():
    # the example each prompt shows the model must be accepted by the check of that operation
    s = extract_json(P.EXTRACT_SUCCESS.split("Extract as JSON:")[1])
    f = extract_json(P.EXTRACT_FAILURE.split("Extract as JSON:")[1])
    assert check_extraction(s, "success").skills[0].name == "Short Skill Name"
    assert check_extraction(f, "failure").skills[0].name == "Short Mistake Name"
    webwalker_example = P.DECOMPOSE_WEBWALKERQA.split('university.edu":')[1].split("Task:")[0]
    assert check_steps(extract_json(webwalker_example))[0] == (
        "explore_site: crawl_page(root_url) to find navigation menu"
    )
    gaia_example = P.DECOMPOSE_GAIA.rsplit("Return ONLY a JSON array:", 1)[1]
    assert check_steps(extract_json(gaia_example)) == [
        "action_name: use <tool> to <specific action>"
    ]
    assert check_merged(extract_json(P.MERGE.rsplit("JSON:", 1)[1]), "success").name == "..."


def test_merge_prompt_fills_type_and_TYPE():
    p = P.merge_prompt("Alpha Check", "Check alpha.", "Beta Check", "Check beta.", "mistake")
    assert p.startswith(
        "These two mistakes are structurally and semantically related. "
        "Consolidate them into ONE higher-order mistake"
    )
    assert "MISTAKE A:\nName: Alpha Check\nContent: Check alpha." in p
    assert "MISTAKE B:\nName: Beta Check\nContent: Check beta." in p
    assert "Reply with ONLY JSON" in p
    assert not re.search(r"\{(type|TYPE|name_a|content_b)\}", p)
    with pytest.raises(ValueError, match="merge kind"):
        P.merge_prompt("a", "b", "c", "d", "lesson")


def test_judge_prompt_has_no_gold_answer_and_names_the_answer():
    p = judge_prompt("Q?", "Step 1 ...", None)
    assert "Final answer: (no answer given)" in p
    assert "You do not know the correct answer" in p
    assert '{"success": true or false' in p


def test_agent_system_prompt_memory_once_and_json_protocol():
    schemas = [
        {
            "type": "function",
            "function": {
                "name": "python",
                "description": "Run code.",
                "parameters": {
                    "type": "object",
                    "properties": {"code": {"type": "string"}},
                    "required": ["code"],
                },
            },
        }
    ]
    plain = A.agent_system_prompt("## Relevant Skills\n1. **X**: y", schemas)
    assert plain.count("## Relevant Skills") == 1
    assert '"final_answer"' not in plain
    js = A.agent_system_prompt("", schemas, json_protocol=True)
    assert "memory from past tasks" not in js
    assert '{"thought": "<why>", "tool": "<tool name>", "arguments": {<arguments>}}' in js
    assert "- python(code: string): Run code." in js


def test_clip_middle_keeps_head_and_tail():
    text = "".join(str(i % 10) for i in range(100))
    out = clip_middle(text, 20)
    assert out.startswith(text[:10]) and out.endswith(text[-10:])
    assert "[... 80 characters omitted ...]" in out
