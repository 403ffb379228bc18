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

Its model operations, here beside the memory: `PlugMemOps` (a `PromptedOps`, the class's
``OPS``) declares ``structure_knowledge``, ``plugmem_query``, ``distill_guidance`` once
each: the prompts, reply schemas (``SCHEMAS``), canned replies for the scripted test
server (``CANNED``), the prompted implementation and the simulated one inside SkillWorld
(`simulated_structure_knowledge`, `simulated_plugmem_query`,
`simulated_distill_guidance`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from hyperskill_lite.agent.prompts import NAME, PARAGRAPH, SENTENCES
from hyperskill_lite.agent.replies import clean_name
from hyperskill_lite.baselines.base import BaselineMemory, note_item, register_baseline
from hyperskill_lite.baselines.ops.checks import _body, _dict_of_lists, _outcome, framed_notes
from hyperskill_lite.baselines.ops.notes import MAX_NOTE_CHARS, MemoryNote, _as_list, _clean
from hyperskill_lite.baselines.ops.prompted import PromptedOps
from hyperskill_lite.core.records import Polarity
from hyperskill_lite.llm.structured import arr, boolean, integer, obj
from hyperskill_lite.llm.text import fill
from hyperskill_lite.methods.operations import operation
from hyperskill_lite.types import Episode, MemoryContext, Task

__all__ = ["PlugMem", "PlugMemOps", "KnowledgeUpdate", "simulated_structure_knowledge",
           "simulated_plugmem_query", "simulated_distill_guidance"]


@dataclass
class KnowledgeUpdate:
    """What PlugMem structures out of one episode: the subgoal `intents` it pursued,
    `prescriptions` (how-to knowledge) as ``(intent index, note)`` and `propositions`
    (facts) as ``(concept, note)``."""

    intents: list[str] = field(default_factory=list)
    prescriptions: list[tuple[int, MemoryNote]] = field(default_factory=list)
    propositions: list[tuple[str, MemoryNote]] = field(default_factory=list)


def _check_knowledge(obj: Any, success: bool) -> KnowledgeUpdate:
    """PlugMem's structuring reply as a `KnowledgeUpdate`."""
    if not isinstance(obj, dict):
        raise ValueError(
            f'expected {{"intents", "prescriptions", "propositions"}}, got {type(obj).__name__}'
        )
    intents = [s for s in (_clean(x) for x in _as_list(obj.get("intents"))) if s][:6]
    pres, props = [], []
    for it in _as_list(obj.get("prescriptions")):
        if not isinstance(it, dict) or not _body(it):
            continue
        intent = _clean(it.get("intent") or "")
        if intent and intent not in intents:
            intents.append(intent)
        i = intents.index(intent) if intent else 0
        pol: Polarity = "success" if success or not it.get("avoid") else "failure"
        pres.append((i, MemoryNote(clean_name(it.get("title") or ""), _body(it), polarity=pol)))
    for it in _as_list(obj.get("propositions")):
        if isinstance(it, dict) and _body(it):
            props.append((_clean(it.get("concept") or "general"), MemoryNote("", _body(it))))
    if pres and not intents:
        raise ValueError('prescriptions need "intents" to attach to')
    if not pres and not props:
        raise ValueError("no prescriptions and no propositions")
    return KnowledgeUpdate(intents, pres, props)


def _check_guidance(obj: Any) -> MemoryNote | None:
    """PlugMem's reasoning reply: one guidance note, or None when it has none."""
    if not isinstance(obj, dict):
        raise ValueError(f'expected {{"use", "guidance"}}, got {type(obj).__name__}')
    text = _clean(obj.get("guidance") or "")
    return MemoryNote("Guidance", text[:MAX_NOTE_CHARS]) if text else None


# ----------------------------------------------------------------- model operations
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


def simulated_structure_knowledge(sim: Any, task: Task, episode: Episode) -> KnowledgeUpdate:
    """PlugMem: the decomposition's steps as intents; after a success a prescription
    (the archetype's strategy) per step plus, at ``extract_spurious``, a spurious one;
    after a failure the reported error under the step where it happened; a success
    also yields one proposition (the established fact, no strategy in it)."""
    lib, p = sim.library, sim.params
    rng = sim.rng("plugmem", task.id, sim.outcome(episode))
    lat = sim.task_latent(task)
    plan = sim.plan(task)
    intents = [t for t, _ in plan]
    pres: list[tuple[int, MemoryNote]] = []
    props: list[tuple[str, MemoryNote]] = []
    seen = sim.seen(episode)
    if episode.success:
        for i, (_, arch) in enumerate(plan):
            strategy = lib.archetypes[arch].strategy
            pres.append((i, sim.note(strategy, rng, "plugmem", seen=seen)))
        spurious = lib.spurious_for(list(lat["archetypes"]), "success")
        if spurious and rng.random() < p.extract_spurious:
            sp = spurious[int(rng.integers(len(spurious)))]
            pres.append((int(rng.integers(len(plan))), sim.note(sp, rng, "plugmem", seen=seen)))
        fact = f"For {lat['topic']}, the established answer was {episode.answer}."
        props.append(
            (
                lat["topic"],
                MemoryNote("", fact, "", "success", 1, sim.latent_meta(source="plugmem")),
            )
        )
    else:
        lid = sim.picks(task, episode, rng)[0]
        at = [i for i, (_, a) in enumerate(plan) if lid in lib.archetypes[a].errors]
        pres.append((at[0] if at else 0, sim.note(lid, rng, "plugmem", seen=seen)))
    return KnowledgeUpdate(intents, pres, props)


def simulated_plugmem_query(sim: Any, task: Task) -> dict[str, list[str]]:
    """PlugMem retrieval, step 1: the decomposition's steps and the task's topic."""
    lat = sim.task_latent(task)
    return {"intents": sim.decompose(task), "concepts": [lat["topic"]]}


def simulated_distill_guidance(sim: Any, task: Task, notes: list[MemoryNote]) -> MemoryNote | None:
    """PlugMem retrieval, step 2: keep the notes that concern the archetypes of the
    model's own reading of the task (its decomposition, `plan`, with the same noise:
    a dropped step misses relevant knowledge, an added one lets unrelated knowledge
    through); relevance is judged, soundness is not. Their first sentences joined
    are the guidance, with the union of their metadata; None when nothing is kept."""
    archs = list(dict.fromkeys(a for _, a in sim.plan(task)))
    kept = [n for n in notes if sim.concerns(n, archs)]
    if not kept:
        return None
    body = " ".join(f"Consider: {sim.first_sentence(n.content)}" for n in kept)
    return MemoryNote(
        "Guidance", body, "", "success", 1, sim.union(*[n.meta for n in kept], source="plugmem")
    )


class PlugMemOps(PromptedOps):
    """PlugMem's model operations (``structure_knowledge``, ``plugmem_query``,
    ``distill_guidance``) over a prompted chat model."""

    @operation(prompts=(PLUGMEM_STRUCTURE,), schemas={"plugmem": SCHEMAS["plugmem"]}, canned=CANNED,
               simulated=simulated_structure_knowledge)
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

    @operation(
        prompts=(PLUGMEM_QUERY,),
        schemas={"plugmem:query": SCHEMAS["plugmem:query"]},
        canned=CANNED,
        simulated=simulated_plugmem_query,
    )
    def plugmem_query(self, task: Task) -> dict[str, list[str]]:
        """PlugMem retrieval, step 1: the task's subgoal intents and key concepts."""
        prompt = fill(PLUGMEM_QUERY, query=task.text)
        return self.chat_json(
            "plugmem:query", prompt, lambda o: _dict_of_lists(o, ("intents", "concepts"), 6)
        )

    @operation(
        prompts=(PLUGMEM_REASON,),
        schemas={"plugmem:reason": SCHEMAS["plugmem:reason"]},
        canned=CANNED,
        simulated=simulated_distill_guidance,
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
