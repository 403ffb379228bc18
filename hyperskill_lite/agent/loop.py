"""AgentExecutor: the live agent, a tool-calling loop over an OpenAI-compatible model.

One task is run as a loop of steps (Eq. 10): at step t the model sees the system
message (instructions and the memory context m = (S_q, L_q), injected once, at the
start), the task, and only the last w = 3 steps (``hist_{t-w:t-1}``; older steps are
dropped from the messages), then either calls tools or gives the final answer. Two
protocols:

- "tools": the OpenAI tools format (works with vLLM's OpenAI server started with
  ``--enable-auto-tool-choice --tool-call-parser ...``); a ``final_answer`` tool and a
  plain "FINAL ANSWER: ..." reply both end the run;
- "json": for servers without tool calling, each reply is one JSON object
  ``{"tool": name, "arguments": {...}}`` or ``{"final_answer": "..."}`` in the text.
  "auto" (the default) asks the server once (`resolve_protocol`: a request that forces a
  call of a trivial tool) and uses "tools" when a tool call comes back, "json" when the
  server refuses tools or answers in text; it also switches to "json" for good when the
  server later answers 400 about tools. In "json", the action is sent as structured
  output (`prompts.action_schema`) when the model client uses structured outputs, so
  even a small model writes a well-formed action.

The episode counts steps (model calls of the loop), tool calls and tokens (from the
API's usage), renders a readable trajectory, keeps a reasoning server's
``reasoning_content`` per step in ``meta["reasoning"]`` (never in the trajectory, so
never in the memory), and records failures instead of raising:
an API error after retries or a reply still malformed after one re-ask ends the run
with ``Episode.error`` set and ``success=False``. Tool results go through the LLM's
cassette too, so a replay needs no network and no tool backends.

The step budget (``max_steps = 10``) is our choice: the paper gives none. Tool results are cut at `max_observation_chars` in the messages;
the tools themselves return long pages and files in pages, so nothing is lost to the cut.

The memory context reaches the model framed as data too (framing.py `frame_memory`, our
addition): fenced in ``<memory_data source=...>`` with the memory named (the runner puts
the memory system's name in ``context.meta["source"]``), its chat-template tokens and
forged role lines defused, like a within-episode note. What a memory stored was written
from pages and replies of earlier episodes.

Every tool result reaches the model framed as data (framing.py, our addition): fenced in
``<tool_output tool=... source=...>`` with the tool and its source (the URL, the file,
the search query) named, chat-template tokens and forged role lines inside it defused,
and a line saying it is data, not instructions; the trajectory keeps each observation
with the same lines defused, so a page cannot forge a step of it either. A tool that
failed ("Error: ...") is listed in ``meta["tool_errors"]`` (step, tool, the line).

Not here: reading a reply as an answer or an action and the step it makes (actions.py),
judging the answer (the runner's judge decides `success`), memory retrieval and update
(methods/, baselines/), the tools themselves (tools/).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from hyperskill_lite.agent.actions import (
    FINAL_ANSWER_TOOL,
    Malformed,
    Step,
    failed_calls,
    parse_final_answer,
    short,
    text_action,
)
from hyperskill_lite.agent.framing import defuse, frame, frame_memory, tool_source, unframe
from hyperskill_lite.agent.prompts import action_schema, agent_system_prompt
from hyperskill_lite.agent.tools.files import ATTACHMENT_KEYS
from hyperskill_lite.agent.tools.toolbox import Toolbox
from hyperskill_lite.errors import LLMError, LLMRequestError
from hyperskill_lite.llm.client import PromptedLLM
from hyperskill_lite.llm.replies import scrub_surrogates, strip_thinking
from hyperskill_lite.llm.structured import TOOL_PROBE, TOOL_PROBE_MESSAGES
from hyperskill_lite.llm.structured import response_format as structured_format
from hyperskill_lite.llm.text import REASK, fill
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.llm.usage import UsageSnapshot
from hyperskill_lite.llm.wire import ChatReply
from hyperskill_lite.types import Episode, MemoryContext, ResolvesStructured, Task

__all__ = ["AgentExecutor"]

class AgentExecutor:
    """Runs a task with a memory context through a live model and tools (Executor).

    Parameters
    ----------
    llm
        The model client; its cassette (if any) also records tool results.
    tools
        The toolbox; None gives ``Toolbox()`` (python and inspect_file_as_text).
    max_steps
        Model calls per task; the last one is told to answer (10: our choice, the paper
        gives no budget).
    window
        w, the number of recent steps kept in the messages (Eq. 10; 3 in the paper).
    protocol
        "auto", "tools" or "json" (see the module docstring).
    max_observation_chars
        Tool results are cut to this length in the messages.
    trajectory_chars
        Tool results are cut to this length in `Episode.trajectory`.

    A file named in ``task.meta["file"]`` (or "file_path", "attachment") may be read
    with inspect_file_as_text during that task, wherever it is.
    """

    def __init__(
        self,
        llm: PromptedLLM,
        tools: Toolbox | None = None,
        *,
        max_steps: int = 10,
        window: int = 3,
        protocol: Literal["auto", "tools", "json"] = "auto",
        max_observation_chars: int = 6000,
        trajectory_chars: int = 1000,
    ) -> None:
        if max_steps < 1:
            raise ValueError(f"max_steps must be >= 1, got {max_steps}")
        if window < 0:
            raise ValueError(f"window must be >= 0, got {window}")
        if protocol not in ("auto", "tools", "json"):
            raise ValueError(f"protocol must be 'auto', 'tools' or 'json', got {protocol!r}")
        self.llm = llm
        self.tools = tools if tools is not None else Toolbox()
        self.max_steps = max_steps
        self.window = window
        self.protocol = protocol
        self._auto = protocol == "auto"
        self.protocol_probe: str | None = None
        """What `resolve_protocol` found ("tool call returned", "refused (HTTP 400)", ...)."""
        self.max_observation_chars = max_observation_chars
        self.trajectory_chars = trajectory_chars

    # -- public ------------------------------------------------------------------
    def resolve_protocol(self) -> str:
        """For "auto": ask the server once whether it returns native tool calls (a
        request that forces a call of a trivial ``ping`` tool); "tools" if it does,
        "json" otherwise. Returns the protocol in use. In replay the probe comes from the
        cassette, so a replayed run resolves the same protocol."""
        if self.protocol != "auto":
            return self.protocol
        try:
            reply = self.llm.chat(TOOL_PROBE_MESSAGES, [TOOL_PROBE], op="tools:probe",
                                  tool_choice={"type": "function", "function": {"name": "ping"}},
                                  temperature=0.0, max_tokens=64)
        except LLMRequestError as e:
            self.protocol, self.protocol_probe = "json", f"refused (HTTP {e.status})"
            return self.protocol
        called = any(c.get("function", {}).get("name") == "ping" for c in reply.tool_calls)
        self.protocol = "tools" if called else "json"
        self.protocol_probe = "tool call returned" if called else "answered in text"
        return self.protocol

    def run(self, task: Task, context: MemoryContext) -> Episode:
        """Run `task` with `context`; model failures are recorded in the Episode, never raised."""
        self._attach(task)
        protocol = self.resolve_protocol()  # once per run; not counted in this episode
        start = self.llm.usage.snapshot()
        steps: list[Step] = []
        answer: str | None = None
        error: str | None = None
        stopped = "max_steps"
        notes = ""  # the latest within-episode memory note (context.during)
        memory_errors: list[str] = []
        reasoning: list[dict[str, Any]] = []  # the server's reasoning_content, per step
        t = 0
        while t < self.max_steps:
            t += 1
            last = t == self.max_steps
            try:
                reply = self._ask(task, context, steps, protocol, last, notes)
            except LLMRequestError as e:
                if (
                    protocol == "tools"
                    and self._auto
                    and e.status == 400
                    and "tool" in e.detail.lower()
                ):
                    protocol = "json"
                    self.protocol = "json"  # remember for the next tasks
                    t -= 1
                    continue
                error, stopped = f"{type(e).__name__}: {e}", "error"
                break
            except LLMError as e:
                error, stopped = f"{type(e).__name__}: {e}", "error"
                break
            if reply.reasoning:
                reasoning.append({"step": t, "text": reply.reasoning})
            try:
                answer, step = self._act(reply, protocol, t)
            except Malformed as bad:
                try:
                    reply = self._reask(task, context, steps, protocol, last, reply, str(bad),
                                        notes)
                    if reply.reasoning:
                        reasoning.append({"step": t, "text": reply.reasoning})
                    answer, step = self._act(reply, protocol, t)
                except Malformed as e:
                    error = f"LLMResponseError: agent: step {t}: reply still malformed after a re-ask: {e}"
                    stopped = "error"
                    break
                except LLMError as e:
                    error, stopped = f"{type(e).__name__}: {e}", "error"
                    break
            steps.append(step)
            if answer is not None:
                stopped = "answer"
                break
            if context.during is not None:  # within-episode memory (types.MemoryContext)
                try:
                    note = context.during(t, step.text)
                except (LLMError, ValueError) as e:  # the memory's trouble, not the agent's
                    memory_errors.append(f"step {t}: {type(e).__name__}: {e}")
                    note = None
                if note:
                    notes = note
        used = self.llm.usage.since(start)
        return self._episode(task, context, steps, answer, error, stopped, protocol, used,
                             memory_errors, reasoning)

    def _episode(
        self,
        task: Task,
        context: MemoryContext,
        steps: list[Step],
        answer: str | None,
        error: str | None,
        stopped: str,
        protocol: str,
        used: UsageSnapshot,
        memory_errors: list[str],
        reasoning: list[dict[str, Any]],
    ) -> Episode:
        """The Episode of a finished `run`: its trajectory text ends with the final answer,
        the failure or the step limit; `used` is the usage of this episode's model calls."""
        n_calls = sum(len(s.tool_calls) for s in steps)
        tool_errors = [e for s in steps for e in s.errors]
        trajectory = "\n\n".join(s.text for s in steps)
        if answer is not None:
            trajectory += f"\n\nFinal answer: {answer}"
        elif error:
            trajectory += f"\n\nRun failed: {error}"
        else:
            trajectory += f"\n\nNo final answer within {self.max_steps} steps."
        return Episode(
            task_id=task.id,
            success=answer is not None and error is None,
            steps=len(steps),
            calls=n_calls,
            answer=answer,
            trajectory=trajectory.strip(),
            tokens=used.total_tokens,
            error=error,
            meta={
                "context_tokens": count_tokens(context.text),
                "prompt_tokens": used.prompt_tokens,
                "completion_tokens": used.completion_tokens,
                "llm_calls": used.calls,
                "protocol": protocol,
                "stopped": stopped,
                "tools_used": [n for s in steps for n in s.tool_calls],
                **({"memory_errors": memory_errors} if memory_errors else {}),
                **({"tool_errors": tool_errors} if tool_errors else {}),
                **({"reasoning": reasoning} if reasoning else {}),
            },
        )

    # -- messages ----------------------------------------------------------------
    def _messages(
        self, task: Task, context: MemoryContext, steps: list[Step], protocol: str, last: bool,
        notes: str = "",
    ) -> list[dict[str, Any]]:
        source = str(context.meta.get("source") or "past tasks")
        system = agent_system_prompt(
            context.text, self.tools.schemas(), json_protocol=protocol == "json", source=source
        )
        user = f"Task: {task.text}"
        if notes:  # within-episode memory, shown until a newer note replaces it
            user += f"\n\n## Noted so far in this task\n{frame_memory(notes, source + ' notes')}"
        dropped = max(0, len(steps) - self.window)
        if dropped:
            user += f"\n\n(Steps 1-{dropped} are no longer shown; the most recent steps follow.)"
        msgs = [{"role": "system", "content": system}, {"role": "user", "content": user}]
        for s in steps[dropped:]:  # the sliding window hist_{t-w:t-1} (Eq. 10)
            msgs.extend(s.messages)
        if last:
            msgs.append(
                {
                    "role": "user",
                    "content": "This is your last step: reply now with "
                    "FINAL ANSWER: <answer>"
                    + (" (as JSON final_answer)" if protocol == "json" else ""),
                }
            )
        return msgs

    def _tool_schemas(self) -> list[dict[str, Any]]:
        return [*self.tools.schemas(), FINAL_ANSWER_TOOL]

    def _ask(
        self, task: Task, context: MemoryContext, steps: list[Step], protocol: str, last: bool,
        notes: str = "",
    ) -> ChatReply:
        msgs = self._messages(task, context, steps, protocol, last, notes)
        if protocol == "tools":
            return self.llm.chat(msgs, self._tool_schemas(), op="agent")
        return self.llm.chat(msgs, op="agent", **self._action_format())

    def _action_format(self) -> dict[str, Any]:
        """The JSON-protocol action as structured output, when the client uses them."""
        mode = self.llm.resolve_structured() if isinstance(self.llm, ResolvesStructured) \
            else "off"
        fmt = structured_format(mode, "agent_action", action_schema(self.tools.schemas()))
        return {"response_format": fmt} if fmt is not None else {}

    def _reask(
        self,
        task: Task,
        context: MemoryContext,
        steps: list[Step],
        protocol: str,
        last: bool,
        bad: ChatReply,
        problem: str,
        notes: str = "",
    ) -> ChatReply:
        msgs = self._messages(task, context, steps, protocol, last, notes)
        msgs += [
            {"role": "assistant", "content": bad.content},
            {"role": "user", "content": fill(REASK, error=problem)},
        ]
        self.llm.usage.reasks += 1
        if protocol == "tools":
            return self.llm.chat(msgs, self._tool_schemas(), op="agent:reask")
        return self.llm.chat(msgs, op="agent:reask", **self._action_format())

    # -- acting --------------------------------------------------------------------
    def _act(self, reply: ChatReply, protocol: str, t: int) -> tuple[str | None, Step]:
        """Turn a reply into (final answer or None, step); raises Malformed."""
        thought = strip_thinking(reply.content)
        if protocol == "tools" and reply.tool_calls:
            return self._tool_step(reply, thought, t)
        action = text_action(thought)
        said = {"role": "assistant", "content": reply.content}
        if action is None and protocol == "tools":
            # no tool call: the reply is the answer ("FINAL ANSWER: ..." or plain text)
            answer = parse_final_answer(thought) or thought
            if not answer:
                raise Malformed("the reply is empty: call a tool or reply FINAL ANSWER: <answer>")
            return answer, Step([said], f"Step {t}\nThought: {short(thought, 600)}")
        if action is None:
            answer = parse_final_answer(thought)
            if answer is None:
                raise Malformed(
                    'expected one JSON object {"tool": ..., "arguments": {...}} or '
                    '{"final_answer": ...}; got ' + repr(short(" ".join(thought.split()), 160))
                )
            action = {"final_answer": answer}
        note = f"Step {t}\nThought: {short(str(action.get('thought', '')), 600)}"
        if "final_answer" in action:
            return str(action["final_answer"]).strip(), Step([said], note)
        name, args = action["tool"], action["arguments"]
        obs = self._run_tool(name, args)
        observe = {
            "role": "user",
            "content": f"Observation from {name}:\n"
            + frame(short(obs, self.max_observation_chars), name, tool_source(name, args)),
        }
        note += (
            f"\nAction: {name}({short(json.dumps(args, ensure_ascii=False), 300)})"
            f"\nObservation: {defuse(short(obs, self.trajectory_chars))}"
        )
        return None, Step([said, observe], note, [name], failed_calls(t, name, obs))

    def _tool_step(self, reply: ChatReply, thought: str, t: int) -> tuple[str | None, Step]:
        messages: list[dict[str, Any]] = [dict(reply.message)]
        lines = [f"Step {t}"] + ([f"Thought: {short(thought, 600)}"] if thought else [])
        names: list[str] = []
        errors: list[dict[str, Any]] = []
        answer = None
        for call in reply.tool_calls:
            fn = call.get("function", {})
            name, raw = fn.get("name", ""), fn.get("arguments") or "{}"
            try:
                args = scrub_surrogates(json.loads(raw) if isinstance(raw, str) else raw)
                if not isinstance(args, dict):
                    raise ValueError("not an object")
            except (ValueError, RecursionError) as e:
                obs = f"Error: the arguments of {name} are not a JSON object ({e}); call it again with valid JSON"
                args = None
            if args is not None and name == "final_answer":
                answer = str(args.get("answer", "")).strip()
                obs = "Final answer recorded."
            elif args is not None:
                obs = self._run_tool(name, args)
                names.append(name)
                errors += failed_calls(t, name, obs)
                obs = frame(short(obs, self.max_observation_chars), name, tool_source(name, args))
            messages.append(
                {
                    "role": "tool",
                    "tool_call_id": call.get("id", ""),
                    "content": obs,  # framed, or the loop's own short line
                }
            )
            shown = raw if isinstance(raw, str) else json.dumps(raw)
            lines.append(f"Action: {name}({short(shown, 300)})")
            if name != "final_answer":
                lines.append(f"Observation: {defuse(short(unframe(obs), self.trajectory_chars))}")
        return answer, Step(messages, "\n".join(lines), names, errors)

    def _run_tool(self, name: str, args: dict[str, Any]) -> str:
        """Run a tool through the cassette. Model calls a tool makes itself (a page
        summary, a file question, an image) are counted in the usage under their
        ``tool:...`` ops and recorded with the result, so a replay, which never runs the
        tool, counts the same tokens."""
        cassette = self.llm.cassette
        request = {"name": name, "arguments": args}
        if cassette is None:
            return self.tools.call(name, args)
        if cassette.replaying:
            recorded = cassette.lookup("tool", request, op=name)
            if isinstance(recorded, dict) and "text" in recorded:
                for op, calls, prompt, completion in recorded.get("usage", []):
                    _add_usage(self.llm.usage, op, int(calls), int(prompt), int(completion))
                return str(recorded["text"])
            return str(recorded)
        before = {op: dict(row) for op, row in self.llm.usage.by_op.items()}
        obs = self.tools.call(name, args)
        spent = []
        for op, row in self.llm.usage.by_op.items():
            was = before.get(op, {"calls": 0, "prompt_tokens": 0, "completion_tokens": 0})
            if row["calls"] > was["calls"]:
                spent.append([op, row["calls"] - was["calls"],
                              row["prompt_tokens"] - was["prompt_tokens"],
                              row["completion_tokens"] - was["completion_tokens"]])
        cassette.record("tool", request, {"text": obs, "usage": spent} if spent else obs, op=name)
        return obs

    def _attach(self, task: Task) -> None:
        self.tools.attachments = set()
        for k in ATTACHMENT_KEYS:
            v = task.meta.get(k)
            if isinstance(v, (str, Path)) and str(v):
                self.tools.attachments.add(Path(v).expanduser().resolve())


def _add_usage(usage: Any, op: str, calls: int, prompt: int, completion: int) -> None:
    """Count `calls` model calls of `op` with these token totals (a replayed tool's)."""
    usage.add(op, prompt, completion)
    if calls > 1:
        usage.calls += calls - 1
        usage.by_op[op]["calls"] += calls - 1
