"""The task text each benchmark gives the agent: the raw question wrapped in the
benchmark's template (`Task.prompt`), kept apart from the raw question (`Task.question`).

- GAIA: the question, plus the attachment's path when the task has a file.
- WebWalkerQA: the question and the website's root URL, where navigation must start.
- xBench (DeepSearch): the question unchanged, as xbench-evals sends it.

The wording is ours. Templates stay short on purpose: `Task.text` is also what the
memory embeds (phi(d_q), Eq. 5), so boilerplate would shift every similarity alike.
Answer-format instructions belong to the agent's system prompt (agent/loop.py), not here.

Not here: decomposition prompts (prompts.py), judge prompts (judges.py).
"""

from __future__ import annotations

__all__ = [
    "GAIA_TEMPLATE",
    "GAIA_ATTACHMENT_TEMPLATE",
    "WEBWALKERQA_TEMPLATE",
    "XBENCH_TEMPLATE",
    "gaia_prompt",
    "webwalkerqa_prompt",
    "xbench_prompt",
]

GAIA_TEMPLATE = "{question}"
"""A GAIA task without an attached file: the question as the file has it."""

GAIA_ATTACHMENT_TEMPLATE = (
    "{question}\n\n"
    "Attached file: {file_path}\n"
    "The task refers to this file; read it first (inspect_file_as_text)."
)
"""A GAIA task with an attached file: the question and the file's path."""

WEBWALKERQA_TEMPLATE = (
    "{question}\n\n"
    "Website: {root_url}\n"
    "Start by opening this root URL with crawl_page, then follow its links to the "
    "page that holds the answer."
)
"""A WebWalkerQA task: the question and the root URL where navigation starts."""

XBENCH_TEMPLATE = "{question}"
"""An xBench-DeepSearch task: the question unchanged."""


def gaia_prompt(question: str, file_path: str | None = None) -> str:
    """The GAIA task text, naming the attached file when there is one.

    >>> gaia_prompt("How many rows?")
    'How many rows?'
    >>> print(gaia_prompt("How many rows?", "/data/gaia/t1.csv"))
    How many rows?
    <BLANKLINE>
    Attached file: /data/gaia/t1.csv
    The task refers to this file; read it first (inspect_file_as_text).
    """
    if file_path:
        return GAIA_ATTACHMENT_TEMPLATE.format(question=question, file_path=file_path)
    return GAIA_TEMPLATE.format(question=question)


def webwalkerqa_prompt(question: str, root_url: str) -> str:
    """The WebWalkerQA task text with its root URL.

    >>> print(webwalkerqa_prompt("Who chairs the board?", "https://example.org/"))
    Who chairs the board?
    <BLANKLINE>
    Website: https://example.org/
    Start by opening this root URL with crawl_page, then follow its links to the page that holds the answer.
    """
    return WEBWALKERQA_TEMPLATE.format(question=question, root_url=root_url)


def xbench_prompt(question: str) -> str:
    """The xBench task text: the decrypted question unchanged.

    >>> xbench_prompt("Which river is longer?")
    'Which river is longer?'
    """
    return XBENCH_TEMPLATE.format(question=question)
