"""ExpeL: an experience pool of trajectories plus a list of voted insights (rules).

Mechanism (Zhao et al., "ExpeL: LLM Agents Are Experiential Learners", AAAI 2024):

- store: every episode goes into the experience pool, keyed by its task; successful
  trajectories are the ones retrieved later as examples;
- insights: the model compares experiences (a failure against a similar success, or a
  success against another) and edits a shared rule list with operations ADD (a new
  rule, importance 2), EDIT (rewrite, +1), UPVOTE (+1) and DOWNVOTE (-1); a rule whose
  importance reaches 0 is removed;
- retrieve: insights plus the top-k successful trajectories of the most similar tasks
  (phi(task) against the pool keys) as in-context examples.

Closed here: ExpeL's full-list rule (LeapLabTHU/ExpeL, agent/expel.py `update_rules` and
`create_rules`, configs/agent/expel.yaml): with ``max_num_rules`` 20, a DOWNVOTE (their
REMOVE) costs 3 instead of 1 once the list holds 20 + 5 rules (`max_rules`).

=============  ===========================  ===========================  ===================
               ExpeL                        EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         successes and failures       insights and success         every episode; a
               (Reflexion retries); a rule  trajectories                 rule list with
               list with importance counts                               importance counts
retrieves (k)  the whole rule list; top-k   top 3 insights and top 3     top 3 rules by
               successful trajectories by   successes (hybrid text +     cosine (``insights_
               task similarity              semantic search)             k=None``: all) and
                                                                         top 3 successes
updates        ADD +2, EDIT +1, AGREE +1,   (offline extraction)         ADD / EDIT / UPVOTE
               REMOVE -1 (-3 when full),                                 / DOWNVOTE after
               removed at 0; offline                                     every episode
=============  ===========================  ===========================  ===================

Simplified here: ExpeL gathers experience with Reflexion retries and extracts insights
offline in batches: failure-vs-success pairs of the same task, and successes compared
with one another in chunks of 8 (``success_critique_num``, `success_critique`). This
online version runs one insight-extraction call after every episode, comparing it with
the most similar stored experience of the opposite outcome (if any; a success meets a
failure, never another success, so there is no success-vs-success critique). ExpeL puts
the whole rule list in the prompt; with the shared setup (retrieval count 3, as the
MemEvolve codebase the HyperSkill paper builds on does) the top-3 rules by cosine to
the task are shown (`insights_k=None` shows all, by importance).

Its model operation, here beside the memory: `ExpeLOps` (a `PromptedOps`, the class's
``OPS``) declares ``insight_ops`` once: the prompt `EXPEL_INSIGHTS`, its reply schema
(``SCHEMAS``) and check (`check_insight_ops`), a canned reply for the scripted test server
(``CANNED``), the prompted implementation and the simulated one inside SkillWorld
(`simulated_insight_ops`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hyperskill_lite.agent.framing import defuse, fence_memory
from hyperskill_lite.agent.prompts import SENTENCES
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _items, _outcome, framed_notes
from hyperskill_lite.baselines.ops.notes import MAX_NOTE_CHARS, MemoryNote, _clean
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.core.records import ContextItem
from hyperskill_lite.llm.structured import arr, integer, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["ExpeL", "ExpeLOps", "InsightOp", "INSIGHT_OPS", "check_insight_ops", "EDIT_RATE"]

INSIGHT_OPS = ("ADD", "EDIT", "UPVOTE", "DOWNVOTE")
_OP_SYNONYMS = {"AGREE": "UPVOTE", "REMOVE": "DOWNVOTE", "DISAGREE": "DOWNVOTE"}


@dataclass
class InsightOp:
    """One ExpeL rule operation on the list the model was shown: ``ADD`` a new rule
    (`note`), ``EDIT`` rule `index` into `note`, ``UPVOTE`` or ``DOWNVOTE`` rule `index`
    (0-based)."""

    op: str
    index: int | None = None
    note: MemoryNote | None = None


def check_insight_ops(obj: Any, n_rules: int) -> list[InsightOp]:
    """Validate ExpeL operations ``[{"op", "rule_number", "rule"}]`` (rule numbers are
    1-based as shown to the model). AGREE/REMOVE are read as UPVOTE/DOWNVOTE; an
    operation naming a rule that does not exist is dropped.

    >>> ops = check_insight_ops({"operations": [{"op": "AGREE", "rule_number": 2},
    ...     {"op": "ADD", "rule": "Verify totals twice."}]}, n_rules=3)
    >>> [(o.op, o.index, o.note and o.note.content) for o in ops]
    [('UPVOTE', 1, None), ('ADD', None, 'Verify totals twice.')]
    """
    out = []
    for it in _items(obj, ("operations", "ops")):
        if not isinstance(it, dict):
            continue
        op = str(it.get("op") or it.get("operation") or "").strip().upper()
        op = _OP_SYNONYMS.get(op, op)
        if op not in INSIGHT_OPS:
            continue
        index = None
        if op != "ADD":
            try:
                index = int(it.get("rule_number") or it.get("index")) - 1
            except (TypeError, ValueError):
                continue
            if not 0 <= index < n_rules:
                continue
        note = None
        if op in ("ADD", "EDIT"):
            text = _clean(it.get("rule") or it.get("text") or it.get("insight") or "")
            if not text:
                continue
            note = MemoryNote(title="", content=text[:MAX_NOTE_CHARS], count=2)
        out.append(InsightOp(op, index, note))
    return out


# ----------------------------------------------------------------- model operations
EXPEL_INSIGHTS = """\
You maintain a list of general rules (insights) that help an agent solve research tasks.

Existing rules:
{rules}

New experience:
Task: {query}
Trajectory:
{trajectory}
Outcome: {result}
{contrast}
Compare the experience(s) and update the rules. Allowed operations:
- ADD: a new rule that is general and different from every existing rule;
- EDIT <rule number>: rewrite an existing rule to be more general or more correct;
- UPVOTE <rule number>: the experience confirms an existing rule;
- DOWNVOTE <rule number>: the experience contradicts a rule, or the rule duplicates another.
Use at most 4 operations. Rules must not mention task-specific names or values.

Reply with ONLY JSON: {"operations": [{"op": "ADD", "rule": "..."}, \
{"op": "EDIT", "rule_number": 1, "rule": "..."}, {"op": "UPVOTE", "rule_number": 2}]}"""

_CONTRAST = """\
A similar earlier experience, which {outcome}:
Task: {query}
Trajectory:
{trajectory}
"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "expel": obj(operations=arr(
        obj(("rule_number", "rule"), op={"type": "string",
                                         "enum": ["ADD", "EDIT", "UPVOTE", "DOWNVOTE"]},
            rule_number=integer(), rule=SENTENCES), 0, 4)),
}
"""The JSON schema of each reply (keyed by the operation name its `ExpeLOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        EXPEL_INSIGHTS.splitlines()[0],
        {
            "operations": [
                {"op": "ADD", "rule": "Check the official source before secondary pages."}
            ]
        },
    ),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


def expel_prompt(
    rules: str,
    query: str,
    trajectory: str,
    result: str,
    contrast_query: str | None = None,
    contrast_trajectory: str | None = None,
    contrast_success: bool | None = None,
) -> str:
    """ExpeL's rule-update prompt; the contrasting experience is optional.

    >>> "A similar earlier experience" in expel_prompt("(none yet)", "q", "t", "SUCCESS")
    False
    """
    contrast = ""
    if contrast_query is not None:  # a stored experience: framed, each piece defused (ours)
        contrast = fence_memory(fill(
            _CONTRAST,
            outcome="succeeded" if contrast_success else "failed",
            query=defuse(contrast_query),
            trajectory=defuse(contrast_trajectory or ""),
        ), "ExpeL's earlier experience") + "\n"
    return fill(
        EXPEL_INSIGHTS,
        rules=rules,
        query=query,
        trajectory=trajectory,
        result=result,
        contrast=contrast,
    )


EDIT_RATE = 0.3
"""Inside SkillWorld: probability that ExpeL meets knowledge its rule list already holds
with EDIT (a rephrasing) rather than UPVOTE."""


def simulated_insight_ops(
    sim: Any,
    rules: list[MemoryNote],
    task: Task,
    episode: Episode,
    contrast: MemoryNote | None = None,
) -> list[InsightOp]:
    """``insight_ops`` inside SkillWorld: UPVOTE (or, at `EDIT_RATE`, EDIT) a rule that
    already expresses a pick, ADD the others; after a failure with a contrasting success,
    DOWNVOTE rules that misled on this task (noticed at the world's rate, `sim.notices`)."""
    rng = sim.rng("expel", task.id, sim.outcome(episode))
    archs = sim.archetypes(task)
    where: dict[str, int] = {}
    for i, r in enumerate(rules):
        for lid in sim.latent_ids(r.meta):
            where.setdefault(lid, i)
    ops: list[InsightOp] = []
    seen = sim.seen(episode)
    for lid in sim.picks(task, episode, rng):
        if lid in where:
            i = where[lid]
            if rng.random() < EDIT_RATE:
                new = sim.note(lid, rng, "expel", avoid=(rules[i].title,), seen=seen)
                new.meta = sim.union(rules[i].meta, new.meta, source="expel")
                ops.append(InsightOp("EDIT", i, new))
            else:
                ops.append(InsightOp("UPVOTE", i))
        else:
            note = sim.note(lid, rng, "expel", seen=seen)
            note.count = 2
            ops.append(InsightOp("ADD", None, note))
    if contrast is not None and contrast.polarity == "success" and not episode.success:
        for i, r in enumerate(rules):
            if sim.misleading(r, archs) and sim.notices(rng):
                ops.append(InsightOp("DOWNVOTE", i))
    return ops


class ExpeLOps(PromptedOps):
    """ExpeL's model operation (``insight_ops``) over a prompted chat model."""

    @operation(prompts=(EXPEL_INSIGHTS,), schemas=SCHEMAS, canned=CANNED,
               simulated=simulated_insight_ops)
    def insight_ops(
        self,
        rules: list[MemoryNote],
        task: Task,
        episode: Episode,
        contrast: MemoryNote | None = None,
    ) -> list[InsightOp]:
        """ExpeL: rule operations from this episode (and a contrasting one, if any)."""
        prompt = expel_prompt(
            framed_notes(rules, "ExpeL's rules"),
            task.text,
            self._traj(episode),
            _outcome(episode),
            contrast.title if contrast else None,
            contrast.content if contrast else None,
            contrast.polarity == "success" if contrast else None,
        )
        return self.chat_json("expel", prompt, lambda o: check_insight_ops(o, len(rules)))


class ExpeL(BaselineMemory):
    """ExpeL on the runner's interface (module docstring).

    `pool` rows: key = task text; payload ``{"task_id", "task", "success", "trajectory",
    "meta"}``. `rules` rows: key = the rule text; payload = the rule note (count =
    importance).
    """

    name = "expel"
    OPS = ExpeLOps
    SECTIONS = (
        ("insight", "## Insights from past experience"),
        ("trajectory", "## Successful trajectories of similar tasks"),
    )
    STORES = ("pool", "rules")

    def __init__(
        self, llm: Any, encoder: Any = None, k: int = 3, insights_k: int | None = 3,
        max_rules: int = 20,
    ) -> None:
        super().__init__(llm, encoder, k)
        if insights_k is not None and insights_k < 1:
            raise ValueError(f"expel: insights_k must be >= 1 or None, got {insights_k}")
        if max_rules < 1:
            raise ValueError(f"expel: max_rules must be >= 1, got {max_rules}")
        self.insights_k = insights_k
        self.max_rules = int(max_rules)
        """ExpeL's ``max_num_rules``: a DOWNVOTE costs 3 once the list holds max_rules + 5."""
        self.pool = self._new_store()
        self.rules = self._new_store()
        self.removed_rules = 0

    def _rule_list(self) -> list[int]:
        """Live rule rows by importance (desc), then age: the order shown to the model."""
        rows = self.rules.rows()
        return sorted(rows, key=lambda r: (-self.rules.payloads[r]["count"], r))

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.pool) and not len(self.rules):
            return MemoryContext()
        q = self._vec(task.text)
        if self.insights_k is None:
            rule_rows = self._rule_list()
        else:
            rule_rows = [r for r, _ in self.rules.topk(q, self.insights_k)]
        items: list[ContextItem] = []
        retrieved = []
        for r in rule_rows:
            items.append(note_item("insight", MemoryNote.from_dict(self.rules.payloads[r])))
            retrieved.append(f"rule{r}")
        for r, _ in self.pool.topk(q, self.k, where=lambda p: p["success"]):
            p = self.pool.payloads[r]
            items.append(
                ContextItem("trajectory", f"Task: {p['task']}\n{p['trajectory']}", dict(p["meta"]))
            )
            retrieved.append(f"traj{r}")
        return self._context(items, retrieved)

    def end(self, task: Task, episode: Episode) -> None:
        q = self._vec(task.text)
        shown = self._rule_list()
        rules = [MemoryNote.from_dict(self.rules.payloads[r]) for r in shown]
        contrast = None
        hit = self.pool.topk(q, 1, where=lambda p: p["success"] != bool(episode.success))
        if hit:
            p = self.pool.payloads[hit[0][0]]
            contrast = MemoryNote(
                p["task"],
                p["trajectory"],
                polarity="success" if p["success"] else "failure",
                meta=dict(p["meta"]),
            )
        ops = self._op("insight_ops", rules, task, episode, contrast)
        self._apply(ops, shown)
        self.t += 1
        self.pool.add(
            task.text,
            q,
            {
                "task_id": task.id,
                "task": task.text,
                "success": bool(episode.success),
                "trajectory": episode.trajectory,
                "meta": self._meta_of(task, episode),
            },
        )

    def _apply(self, ops: list[Any], shown: list[int]) -> None:
        """Apply rule operations; indices refer to `shown` (the list the model saw)."""
        for op in ops:
            if op.op == "ADD" and op.note is not None:
                note = MemoryNote.from_dict(op.note.to_dict())
                note.count = 2
                self.rules.add(note.text, self._vec(note.text), note.to_dict())
                continue
            if op.index is None or not 0 <= op.index < len(shown):
                continue
            row = shown[op.index]
            if row not in self.rules.rows():  # removed earlier in this batch
                continue
            cur = MemoryNote.from_dict(self.rules.payloads[row])
            if op.op == "EDIT" and op.note is not None:
                new = MemoryNote.from_dict(op.note.to_dict())
                new.count = cur.count + 1
                self.rules.update(row, new.to_dict(), key=new.text, vec=self._vec(new.text))
            elif op.op == "UPVOTE":
                cur.count += 1
                self.rules.update(row, cur.to_dict())
            elif op.op == "DOWNVOTE":
                cur.count -= 3 if len(self.rules) >= self.max_rules + 5 else 1  # full list
                if cur.count <= 0:
                    self.rules.remove(row)
                    self.removed_rules += 1
                else:
                    self.rules.update(row, cur.to_dict())

    def stats(self) -> dict[str, int]:
        succ = sum(1 for r in self.pool.rows() if self.pool.payloads[r]["success"])
        return {"experiences": len(self.pool), "successes": succ, "insights": len(self.rules)}

    def retrieval_budget(self) -> dict[str, Any]:
        """Trajectories (k) and rules (insights_k; None: all) retrieved per task."""
        return {"k": self.k, "insights_k": self.insights_k}

    def _state(self) -> dict[str, Any]:
        return {"removed_rules": self.removed_rules, "insights_k": self.insights_k,
                "max_rules": self.max_rules}

    def _load_state(self, state: dict[str, Any]) -> None:
        self.removed_rules = int(state["removed_rules"])
        self.insights_k = state["insights_k"]
        self.max_rules = int(state.get("max_rules", 20))  # saved before it was recorded


register_baseline(
    ExpeL, "baseline",
    "ExpeL: an insight list edited by ADD/EDIT/UPVOTE/DOWNVOTE, plus success examples",
    build=lambda llm, enc, k: ExpeL(llm, enc, k, insights_k=k),  # --k: both counts
)
