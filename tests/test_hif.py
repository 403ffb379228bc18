"""HIF interchange (core/io/hif.py): a memory round-trips through HIF with every field, the
export is HIF as the standard describes it, and HyperNetX and XGI read it.

HyperNetX 2.4's ``from_hif`` downloads the HIF JSON schema before it reads a file; with no
network here, the test serves a schema written from the standard's description (the
"incidences" / "nodes" / "edges" records and their fields) on a loopback port and points
HyperNetX at it, so HyperNetX's own validation and reader run for real.
"""

from __future__ import annotations

import functools
import http.server
import json
import threading

import numpy as np
import pytest

from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.io import (
    MemoryFormatError,
    from_hif,
    load_memory,
    read_hif,
    save_memory,
    to_hif,
    to_state,
    write_hif,
)
from hyperskill_lite.core.maintenance import maintain
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.template_merger import TemplateMerger

ID = {"type": ["string", "integer"]}
RECORD = {"type": "object", "additionalProperties": False}
HIF_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "type": "object",
    "additionalProperties": False,
    "required": ["incidences"],
    "properties": {
        "network-type": {"enum": ["undirected", "directed", "asc"]},
        "metadata": {"type": "object"},
        "incidences": {"type": "array", "items": {
            **RECORD, "required": ["edge", "node"],
            "properties": {"edge": ID, "node": ID, "weight": {"type": "number"},
                           "direction": {"enum": ["head", "tail"]},
                           "attrs": {"type": "object"}}}},
        "nodes": {"type": "array", "items": {
            **RECORD, "required": ["node"],
            "properties": {"node": ID, "weight": {"type": "number"},
                           "attrs": {"type": "object"}}}},
        "edges": {"type": "array", "items": {
            **RECORD, "required": ["edge"],
            "properties": {"edge": ID, "weight": {"type": "number"},
                           "attrs": {"type": "object"}}}},
    },
}
"""The HIF structure as the standard's README describes it (written here, not copied)."""


def _skill(name: str, pol: str = "success", **meta) -> Skill:
    return Skill(name, f"{name}: do it carefully. Check twice.", pol, dict(meta))


@pytest.fixture
def memory() -> HypergraphMemory:
    """A memory that has been through everything: dedup, both polarities, meta, retrieval
    stats, a prune that empties a hyperedge, and a merge (so ids have gaps and the
    counters run ahead of the live ids)."""
    cfg = HyperSkillConfig(delta_merge=0.2, prune_mode="threshold", n_min=1, tau_prune=0.6)
    mem = HypergraphMemory(HashingEncoder(dim=32, seed=3), cfg)
    a, b = _skill("Official Source First", hint=[1, 2]), _skill("Official Source Firsts")
    mem.add_trajectory("Find the GDP of France", ["open the statistics office", "read it"],
                       [a, _skill("Units Trap", "failure"), _skill("Cite The Table")],
                       "Official tables win.", True, 4, calls=3, meta={"task_id": "t1"})
    mem.add_trajectory("Find the GDP of Spain", ["search"], [b, a], "Same again.", False, 7)
    mem.add_trajectory("Count the medals", ["count"], [_skill("Count By Hand")], "Lesson.",
                       True, 2)

    class Used:  # the third trajectory's nodes fail, so pruning empties it
        retrieved_ids = ["u4", "s5", "e1", "e2"]

    mem.record_use(Used(), success=False, steps=5)
    report = maintain(mem, TemplateMerger())
    assert report.n_pruned == 2 and report.n_merged == 1, report.rows()
    mem.validate()
    return mem


def _same(a: HypergraphMemory, b: HypergraphMemory) -> None:
    sa, sb = to_state(a), to_state(b)
    assert sa["manifest"] == sb["manifest"]
    assert sa["text"] == sb["text"]
    assert sa["arrays"].keys() == sb["arrays"].keys()
    for k in sa["arrays"]:
        assert np.array_equal(sa["arrays"][k], sb["arrays"][k]), k
    ids = a.node_ids() + a.edge_ids()
    assert ids == b.node_ids() + b.edge_ids()
    assert np.array_equal(a.gammas(ids), b.gammas(ids))
    assert a.config == b.config and a.t_range == b.t_range


def test_a_round_trip_keeps_every_field(memory):
    doc = json.loads(json.dumps(to_hif(memory)))  # through real JSON text
    back = from_hif(doc, HashingEncoder(dim=32, seed=3))
    back.validate()
    _same(memory, back)
    # and the copy goes on like the original: same next ids, same update
    for m in (memory, back):
        m.add_trajectory("Another", ["step"], [_skill("New One")], "L", True, 3)
    _same(memory, back)


def test_without_embeddings_the_texts_are_embedded_again(memory):
    doc = to_hif(memory, embeddings=False)
    assert "embedding" not in doc["nodes"][0]["attrs"]
    _same(memory, from_hif(doc, HashingEncoder(dim=32, seed=3)))
    with pytest.raises(MemoryFormatError, match="encoder"):
        from_hif(doc, HashingEncoder(dim=16))


def test_the_export_is_hif(memory):
    fastjsonschema = pytest.importorskip("fastjsonschema")
    doc = to_hif(memory)
    fastjsonschema.compile(HIF_SCHEMA)(doc)
    skills = {n["node"]: n["attrs"] for n in doc["nodes"] if n["attrs"]["kind"] == "skill"}
    assert {a["polarity"] for a in skills.values()} == {"success", "failure"}
    for sid, attrs in skills.items():
        view = memory.node(sid)
        assert (attrs["gamma"], attrs["nu"], attrs["name"]) == (view.gamma, view.nu, view.name)
    emptied = [e for e in memory.edge_ids() if not memory.edge(e).node_ids]
    assert emptied and {e["edge"] for e in doc["edges"]} == set(memory.edge_ids())
    members = {(i["edge"], i["node"]) for i in doc["incidences"]}
    assert members == {(e, n) for e in memory.edge_ids() for n in memory.edge(e).node_ids}


def test_files_round_trip_and_refuse_what_is_not_ours(memory, tmp_path):
    path = write_hif(memory, tmp_path / "memory.hif.json")
    _same(memory, read_hif(path))  # the recorded encoder, by name
    saved = tmp_path / "saved"
    save_memory(memory, saved)
    _same(load_memory(saved), read_hif(path))
    (tmp_path / "bad.json").write_text("{not json")
    with pytest.raises(MemoryFormatError, match="bad.json"):
        read_hif(tmp_path / "bad.json")
    doc = to_hif(memory)
    foreign = {"incidences": doc["incidences"]}
    with pytest.raises(MemoryFormatError, match="not a memory written by to_hif"):
        from_hif(foreign)
    broken = json.loads(json.dumps(doc))
    broken["incidences"].append({"edge": "e1", "node": "s999"})
    with pytest.raises(MemoryFormatError, match="s999"):
        from_hif(broken)
    broken = json.loads(json.dumps(doc))
    broken["nodes"][0]["attrs"]["embedding"] = "!!"
    with pytest.raises(MemoryFormatError, match="base64"):
        from_hif(broken)
    broken = json.loads(json.dumps(doc))
    del broken["edges"][0]["attrs"]["steps"]
    with pytest.raises(MemoryFormatError, match="e1"):
        from_hif(broken)


@pytest.fixture
def schema_server(tmp_path):
    """The HIF schema on a loopback port (HyperNetX fetches it on every from_hif)."""
    (tmp_path / "schema.json").write_text(json.dumps(HIF_SCHEMA))

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/schema.json"
    server.shutdown()


def test_hypernetx_reads_the_export(memory, schema_server, monkeypatch):
    hnx_hif = pytest.importorskip("hypernetx.hif")
    monkeypatch.setattr(hnx_hif, "schema_url", schema_server)
    H = hnx_hif.from_hif(to_hif(memory))
    assert H is not None, "HyperNetX refused the export (its validator failed)"
    nonempty = [e for e in memory.edge_ids() if memory.edge(e).node_ids]
    assert set(H.edges) >= set(nonempty)
    for e in nonempty:
        assert set(H.edges[e]) == set(memory.edge(e).node_ids)
    s = memory.node_ids(kind="skill", polarity="failure")[0]
    props = H.nodes.properties.loc[s]
    got = props.get("polarity", props["misc_properties"].get("polarity")
                    if "misc_properties" in props else None)
    assert got == "failure"


def test_xgi_reads_the_export(memory, tmp_path):
    xgi = pytest.importorskip("xgi")
    path = write_hif(memory, tmp_path / "m.json")
    H = xgi.read_hif(str(path))
    assert set(H.nodes) == set(memory.node_ids())
    for e in memory.edge_ids():
        assert set(H.edges.members(e)) == set(memory.edge(e).node_ids)
    s = memory.node_ids(kind="skill")[0]
    assert H.nodes[s]["gamma"] == memory.node(s).gamma
    assert H.edges[memory.edge_ids()[0]]["task"] == memory.edge(memory.edge_ids()[0]).task
