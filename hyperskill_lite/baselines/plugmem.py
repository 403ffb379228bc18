"""PlugMem: a knowledge-centric memory graph of prescriptive and propositional knowledge.

Mechanism (Yang et al., "PlugMem: A Task-Agnostic Plugin Memory Module for LLM Agents",
arXiv 2603.03296, ICML 2026):

- structure: each episode (episodic memory, kept as the anchor of what is derived from
  it) is turned by the model into subgoal *intents*, *prescriptive* knowledge (how to
  achieve an intent, or what to avoid: procedural memory) and *propositional* knowledge
  (facts, each under a concept: semantic memory). Intent and concept nodes index the
  knowledge nodes; a new intent or concept within cosine `node_merge` of an existing
  node is that node, so knowledge from different episodes meets under shared nodes;
- retrieve (two stages): the model names the new task's intents and concepts; each is
  matched to its nearest intent / concept nodes, whose knowledge becomes the
  candidates, ranked by the match score (then by cosine to the task); the top-k units
  are handed to a reasoning call that keeps what is relevant and distils it into
  concise guidance, the only thing the agent sees;
- update: addition with node merging (an identical knowledge text is linked, not
  duplicated); no maintenance.

Simplified here: the paper structures each step into (goal, state, action, reward)
with separate calls; this is one structuring call per episode; two nodes per query
intent or concept, k = 3 knowledge units (the shared setup), node merge threshold 0.9.

=============  ===========================  ===========================  ===================
               PlugMem                      EvolveLab                    here
=============  ===========================  ===========================  ===================
stores         episodes structured into     -                            one structuring call
               intents, prescriptions,                                   per episode
               propositions
retrieves (k)  one memory mode chosen per   -                            both knowledge kinds,
               query, then reasoning                                     top k = 3 units, then
                                                                         reasoning
updates        addition, node merging       -                            addition, node
                                                                         merging at 0.9
=============  ===========================  ===========================  ===================

EvolveLab ships no provider of this method.

Not implemented: PlugMem's choice of one memory mode (episodic, semantic or procedural)
per query; here both prescriptive and propositional units are candidates for every
query.

Prompted here, beside the memory: `PlugMemOps` (a `PromptedOps`, the class's ``OPS``)
sends the prompts `PLUGMEM_STRUCTURE`, `PLUGMEM_QUERY`, `PLUGMEM_REASON` with their reply
schemas (``SCHEMAS``) and has canned replies for the scripted test server (``CANNED``);
SimLLM's offline version is in world/plugmem_ops.py.
"""

from __future__ import annotations

from typing import Any

from hyperskill_lite.agent.prompts import NAME, PARAGRAPH, SENTENCES, fill
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops import MemoryNote
from hyperskill_lite.baselines.ops.checks import (
    _check_guidance,
    _check_knowledge,
    _dict_of_lists,
    _outcome,
    framed_notes,
)
from hyperskill_lite.baselines.ops.notes import KnowledgeUpdate
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.llm.structured import arr, boolean, integer, obj
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["PlugMem", "PlugMemOps"]


# ----------------------------------------------------------------- prompted operations
PLUGMEM_STRUCTURE = """\
You are structuring an agent's episode into knowledge for a memory graph.

Task: {query}
Trajectory:
{trajectory}
Outcome: {result}

1. List the subgoal intents the agent pursued (short phrases).
2. Prescriptive knowledge: for each intent, how to achieve it (or, if it failed there, \
what to avoid: set "avoid": true), as a general how-to.
3. Propositional knowledge: facts established in the episode, each under a concept.

Reply with ONLY JSON: {"intents": ["..."], "prescriptions": [{"intent": "...", \
"title": "...", "how_to": "...", "avoid": false}], "propositions": [{"concept": "...", \
"fact": "..."}]}"""

PLUGMEM_QUERY = """\
You are querying a knowledge memory for an agent about to start a task.

Task: {query}

List the subgoal intents the task will involve (short phrases) and the key concepts it \
is about.

Reply with ONLY JSON: {"intents": ["..."], "concepts": ["..."]}"""

PLUGMEM_REASON = """\
You are preparing memory for an agent about to start a task. From the retrieved \
knowledge below, keep only what is relevant and actionable for this task and distil it \
into concise guidance (2-4 sentences, phrased as suggestions).

Task: {query}
Retrieved knowledge:
{knowledge}

Reply with ONLY JSON: {"use": [<numbers of the knowledge used>], "guidance": "..."} \
(an empty guidance if nothing is relevant)"""

SCHEMAS: dict[str, dict[str, Any]] = {
    "plugmem": obj(
        intents=arr(NAME, 0, 6),
        prescriptions=arr(obj(intent=NAME, title=NAME, how_to=PARAGRAPH, avoid=boolean()),
                          0, 6),
        propositions=arr(obj(concept=NAME, fact=SENTENCES), 0, 6),
    ),
    "plugmem:query": obj(intents=arr(NAME, 1, 6), concepts=arr(NAME, 0, 6)),
    "plugmem:reason": obj(use=arr(integer(), 0, 10), guidance=PARAGRAPH),
}
"""The JSON schema of each reply (keyed by the operation name its `PlugMemOps` method
passes to ``chat_json``), the shape its prompt above asks for; sent as structured
output when the server supports it (llm/structured.py)."""

CANNED: list[tuple[str, Any]] = [
    (
        PLUGMEM_STRUCTURE.splitlines()[0],
        {
            "intents": ["find the source"],
            "prescriptions": [
                {
                    "intent": "find the source",
                    "title": "Official Source First",
                    "how_to": "Search the official site first.",
                    "avoid": False,
                }
            ],
            "propositions": [{"concept": "sources", "fact": "Official sites list dates."}],
        },
    ),
    (PLUGMEM_QUERY.splitlines()[0], {"intents": ["find the source"], "concepts": ["sources"]}),
    (PLUGMEM_REASON.splitlines()[0], {"use": [1], "guidance": "Consider the official site."}),
]
"""A valid reply per prompt above, by its first line (`baselines.prompts.scripted_reply`,
for the scripted test server)."""


class PlugMemOps(PromptedOps):
    """PlugMem's model operations (``structure_knowledge``, ``plugmem_query``,
    ``distill_guidance``) over a prompted chat model."""

    SCHEMAS = SCHEMAS
    CANNED = CANNED

    def structure_knowledge(self, task: Task, episode: Episode) -> KnowledgeUpdate:
        """PlugMem: subgoal intents, prescriptive (how-to) and propositional (fact)
        knowledge structured out of one episode."""
        prompt = fill(
            PLUGMEM_STRUCTURE,
            query=task.text,
            trajectory=self._traj(episode),
            result=_outcome(episode),
        )
        return self.chat_json("plugmem", prompt, lambda o: _check_knowledge(o, episode.success))

    def plugmem_query(self, task: Task) -> dict[str, list[str]]:
        """PlugMem retrieval, step 1: the task's subgoal intents and key concepts."""
        prompt = fill(PLUGMEM_QUERY, query=task.text)
        return self.chat_json(
            "plugmem:query", prompt, lambda o: _dict_of_lists(o, ("intents", "concepts"), 6)
        )

    def distill_guidance(self, task: Task, notes: list[MemoryNote]) -> MemoryNote | None:
        """PlugMem retrieval, step 2: reason over retrieved knowledge into guidance;
        None when the model judges none of it relevant."""
        prompt = fill(PLUGMEM_REASON, query=task.text,
                      knowledge=framed_notes(notes, "PlugMem's knowledge"))
        return self.chat_json("plugmem:reason", prompt, _check_guidance)


class PlugMem(BaselineMemory):
    """PlugMem on the runner's interface (module docstring).

    `intents` / `concepts` rows: key = the node text; payload ``{"knowledge": [rows]}``.
    `knowledge` rows: key = the unit's text; payload ``{"type": "prescription" |
    "proposition", "note", "episodes": [episode index]}``. `episodes`: the episodic
    anchors ``{"task_id", "success"}``.
    """

    name = "plugmem"
    OPS = PlugMemOps
    SECTIONS = (("guidance", "## Guidance from knowledge memory"),)
    STORES = ("intents", "concepts", "knowledge")

    def __init__(
        self,
        llm: Any,
        encoder: Any = None,
        k: int = 3,
        nodes_per_query: int = 2,
        node_merge: float = 0.9,
    ) -> None:
        super().__init__(llm, encoder, k)
        if nodes_per_query < 1 or not -1.0 <= node_merge <= 1.0:
            raise ValueError("plugmem: nodes_per_query must be >= 1 and node_merge in [-1, 1]")
        self.nodes_per_query, self.node_merge = int(nodes_per_query), float(node_merge)
        self.intents = self._new_store()
        self.concepts = self._new_store()
        self.knowledge = self._new_store()
        self.episodes: list[dict[str, Any]] = []

    # ------------------------------------------------------------------ retrieval
    def candidates(self, queries: dict[str, list[str]]) -> dict[int, float]:
        """Knowledge rows reached from the query's intents and concepts -> best match
        score of the node that reached them."""
        best: dict[int, float] = {}
        for store, texts in (
            (self.intents, queries.get("intents", [])),
            (self.concepts, queries.get("concepts", [])),
        ):
            for text in texts:
                for node, sim in store.topk(self._vec(text), self.nodes_per_query):
                    for row in store.payloads[node]["knowledge"]:
                        best[row] = max(best.get(row, -2.0), sim)
        return best

    def begin(self, task: Task) -> MemoryContext:
        if not len(self.knowledge):
            return MemoryContext()
        calls0 = self.llm_calls
        best = self.candidates(self._op("plugmem_query", task))
        if not best:
            return MemoryContext(llm_calls=self.llm_calls - calls0)
        q = self._vec(task.text)
        rows = sorted(best, key=lambda r: (-best[r], -float(self.knowledge.vector(r) @ q), r))
        rows = rows[: self.k]
        notes = [MemoryNote.from_dict(self.knowledge.payloads[r]["note"]) for r in rows]
        guidance = self._op("distill_guidance", task, notes)
        retrieved = [f"k{r}" for r in rows]
        if guidance is None:
            return MemoryContext(retrieved=retrieved, llm_calls=self.llm_calls - calls0)
        return self._context(
            [note_item("guidance", guidance)], retrieved, llm_calls=self.llm_calls - calls0
        )

    # ------------------------------------------------------------------ structuring
    def _node(self, store: Any, text: str) -> int:
        v = self._vec(text)
        hit = store.topk(v, 1)
        if hit and hit[0][1] >= self.node_merge:
            return hit[0][0]
        return store.add(text, v, {"knowledge": []})

    def _unit(self, kind: str, note: MemoryNote, episode_index: int) -> int:
        for r in self.knowledge.rows():
            if self.knowledge.keys[r] == note.text:
                p = dict(self.knowledge.payloads[r])
                p["episodes"] = p["episodes"] + [episode_index]
                self.knowledge.update(r, p)
                return r
        return self.knowledge.add(
            note.text,
            self._vec(note.text),
            {"type": kind, "note": note.to_dict(), "episodes": [episode_index]},
        )

    def _link(self, store: Any, node: int, row: int) -> None:
        p = store.payloads[node]
        if row not in p["knowledge"]:
            store.update(node, {"knowledge": p["knowledge"] + [row]})

    def end(self, task: Task, episode: Episode) -> None:
        ku = self._op("structure_knowledge", task, episode)
        self.t += 1
        e = len(self.episodes)
        self.episodes.append({"task_id": task.id, "success": bool(episode.success)})
        nodes = [self._node(self.intents, text) for text in ku.intents]
        for i, note in ku.prescriptions:
            if 0 <= i < len(nodes):
                self._link(self.intents, nodes[i], self._unit("prescription", note, e))
        for concept, note in ku.propositions:
            self._link(
                self.concepts,
                self._node(self.concepts, concept),
                self._unit("proposition", note, e),
            )

    def stats(self) -> dict[str, int]:
        kinds = [self.knowledge.payloads[r]["type"] for r in self.knowledge.rows()]
        return {
            "intents": len(self.intents),
            "concepts": len(self.concepts),
            "prescriptions": kinds.count("prescription"),
            "propositions": kinds.count("proposition"),
            "episodes": len(self.episodes),
        }

    def _state(self) -> dict[str, Any]:
        return {
            "episodes": self.episodes,
            "nodes_per_query": self.nodes_per_query,
            "node_merge": self.node_merge,
        }

    def _load_state(self, state: dict[str, Any]) -> None:
        self.episodes = list(state["episodes"])
        self.nodes_per_query = int(state["nodes_per_query"])
        self.node_merge = float(state["node_merge"])


register_baseline(
    PlugMem, "baseline",
    "PlugMem: knowledge structured as intents, prescriptions and propositions",
)
