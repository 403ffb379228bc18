"""The memory studio (studio/, `inspect`): the page's data checked against the run folder
and independent references, the page itself self-contained and safe with hostile text,
and the command's folders and errors. The page in a real browser: tests/browser/."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.core.io import load_memory
from hyperskill_lite.core.retrieval import Retrieval
from hyperskill_lite.runner import read_records
from hyperskill_lite.studio import StudioOptions, read_run, render, studio_data
from hyperskill_lite.studio.charts import MAX_POINTS, run_charts
from hyperskill_lite.studio.history import memory_history
from hyperskill_lite.studio.hygiene import similar_pairs
from hyperskill_lite.studio.provenance import edge_info, provenance


@pytest.fixture(scope="module")
def demo(tmp_path_factory):
    """A small demo folder: the five core methods, 30 SkillWorld episodes each."""
    out = tmp_path_factory.mktemp("studio") / "demo"
    assert main(["demo", "--episodes", "30", "--encoder", "hashing", "--out", str(out)]) == 0
    return out


@pytest.fixture(scope="module")
def data(demo):
    runs = [read_run(demo / m) for m in ("hyperskill", "no-memory")]
    return studio_data(runs, StudioOptions(samples=200))


def _page_data(html: str) -> dict:
    m = re.search(r'<script type="application/json" id="studio-data">(.*?)</script>', html, re.S)
    assert m, "no data element"
    return json.loads(m.group(1))


def test_the_graph_follows_the_checkpoints(demo, data):
    hs = data["runs"][0]
    cks = hs["graph"]["checkpoints"]
    folders = sorted((demo / "hyperskill" / "checkpoints").glob("maint-*"))
    assert [c["label"] for c in cks] == [f.name for f in folders]  # the last is the final state
    nodes = hs["graph"]["nodes"]
    for ck, folder in zip(cks, folders):
        mem = load_memory(folder)
        live = set(mem.node_ids()) | set(mem.edge_ids())
        assert {nodes[i][0] for i in ck["present"]} == live  # everything drawn (small run)
        for i, g, nu in zip(ck["present"], ck["gamma"], ck["nu"]):
            nid = nodes[i][0]
            view = mem.edge(nid) if nid[0] == "e" else mem.node(nid)
            assert (round(view.gamma, 3), view.nu) == (g, nu)
        links = {(nodes[a][0], nodes[b][0]) for a, b in (hs["graph"]["links"][k] for k in ck["links"])}
        assert links == {(e, n) for e in mem.edge_ids() for n in mem.edge(e).node_ids}
    assert data["runs"][1]["hypergraph"] is False and "graph" not in data["runs"][1]


def test_a_skills_provenance_lists_its_trajectories_and_history(demo, data):
    hs = data["runs"][0]
    final = load_memory(demo / "hyperskill" / "state" / "memory")
    records = read_records(demo / "hyperskill")
    for sid in final.node_ids(kind="skill"):
        p = hs["provenance"][sid]
        holding = [e for e in final.edge_ids() if sid in final.edge(e).node_ids]
        assert p["n_trajectories"] == len(holding)
        assert set(p["trajectories"]) <= set(holding) and p["trajectories"]
        assert p["gamma"][-1][1:] == [round(final.node(sid).gamma, 3), final.node(sid).nu,
                                   round(final.node(sid).sigma, 3)]
        shown = [r["index"] for r in records if sid in r["retrieved"]]
        assert p["n_retrieved"] == len(shown)
        born = p["born"]
        if born["how"] == "extracted":
            assert records[born["episode"]]["update"]["edge"] == born["edge"]
        else:
            rec = records[born["after"] - 1]["maintenance"]
            assert any(m["new_id"] == sid for m in rec["merges"])
    for e in {e for p in hs["provenance"].values() for e in p["trajectories"]}:
        ep, tid, ok, task, _ = hs["edges"][e]
        assert records[ep]["task_id"] == tid and final.edge(e).task.startswith(task[:50])


def test_the_provenance_of_some_skills_is_theirs_in_the_provenance_of_all(demo):
    """A large run keeps provenance for the skills the page names only (a faster path
    over the records): each is exactly what the whole computation gives it."""
    run = read_run(demo / "hyperskill")
    snaps = memory_history(run.path, len(run.records))
    full = provenance(run.records, snaps)
    some = sorted(full, key=lambda s: int(s[1:]))[::3]
    positions: dict[str, int] = {}
    assert provenance(run.records, snaps, some, positions) == {s: full[s] for s in some}
    edges = {e for p in full.values() for e in p["trajectories"]}
    assert edge_info(run.records, snaps, edges, positions) == edge_info(run.records, snaps, edges)


def test_the_run_charts_are_the_records_thinned_and_say_so():
    records = [{"index": i, "success": i % 3 == 0, "tokens": 100 + i, "memory_tokens": 10,
                "seconds": 0.5, "sizes": {"hyperedges": i + 1, "success_skills": i // 2},
                **({"maintenance": {"pruned": 0}} if i % 500 == 499 else {})}
               for i in range(3000)]
    c = run_charts(records, "hs", "hyperskill")
    sr = c["sr"]["series"][0]
    assert len(sr["x"]) == MAX_POINTS and sr["x"][0] == 1 and sr["x"][-1] == 3000
    k = sr["x"][123]
    assert sr["y"][123] == round(100 * sum(r["success"] for r in records[:k]) / k, 2)
    assert sr["lo"][123] < sr["y"][123] < sr["hi"][123]
    assert "800 of 3000 episodes" in c["sr"]["note"]
    growth = {line["name"]: line for line in c["growth"]["series"]}
    assert set(growth) == {"skills", "hyperedges"} and growth["hyperedges"]["y"][-1] == 3000
    assert c["growth"]["vlines"] == [500, 1000, 1500, 2000, 2500, 3000]
    tokens = c["cost"]["series"][0]
    assert tokens["y"][-1] == pytest.approx(sum(110 + i for i in range(2700, 3000)) / 300)


def test_each_cycle_and_each_explanation_is_the_records(demo, data):
    hs = data["runs"][0]
    records = read_records(demo / "hyperskill")
    maint = [r for r in records if "maintenance" in r]
    assert [c["after"] for c in hs["cycles"]] == [r["index"] + 1 for r in maint]
    for c, r in zip(hs["cycles"], maint):
        assert (c["pruned"], c["merged"]) == (r["maintenance"]["pruned"], r["maintenance"]["merged"])
        assert [p[0] for p in c["pruned_nodes"]] == [p["id"] for p in r["maintenance"]["pruned_nodes"]]
    assert sum(c["n_dedups"] for c in hs["cycles"]) == sum(
        r["update"]["dedup"] for r in records[: maint[-1]["index"] + 1])
    for t in hs["tasks"]:
        rec = records[t["index"]]
        assert t["explain"] == Retrieval.from_record(rec["explain"]).explain()
        assert t["context"] == rec["explain"]["context"]
    assert all(t["explain"] is None and t["retrieved"] == [] for t in data["runs"][1]["tasks"])


def test_hygiene_lists_match_a_dense_reference(demo, data):
    h = data["runs"][0]["hygiene"]
    final = load_memory(demo / "hyperskill" / "state" / "memory")
    ids = final.node_ids(kind="skill")
    Z = final.skill_embeddings(ids).astype(np.float64)
    cos = Z @ Z.T
    lo, hi = h["window"]
    pol = {s: final.node(s).polarity for s in ids}
    near = {(ids[a], ids[b]) for a, b in zip(*np.triu_indices(len(ids), 1))
            if lo <= cos[a, b] < hi}
    assert {(r[0], r[3]) for r in h["near_duplicates"]} == near
    contra = {(ids[a], ids[b]) for a, b in zip(*np.triu_indices(len(ids), 1))
              if cos[a, b] >= h["contradiction"] and pol[ids[a]] != pol[ids[b]]}
    assert {(r[0], r[3]) for r in h["contradictions"]} == contra
    assert {r[0] for r in h["never_retrieved"]} == {s for s in ids if final.node(s).nu == 0}
    assert h["n_skills"] == len(ids) == len(h["utility"])
    pairs, n = similar_pairs(Z, 0.0, limit=3)  # the cut keeps the largest
    assert n == np.triu(cos >= 0.0, 1).sum() and len(pairs) == 3
    assert pairs[0, 2] == pytest.approx(np.max(np.triu(cos, 1)), abs=1e-5)


def test_the_page_is_self_contained_and_hostile_text_stays_text(data):
    run = data["runs"][0]
    evil = "</script><script>window.pwned=1</script><img src=x onerror=alert(1)>"
    run["tasks"][0]["context"] = evil
    html = render(data)
    assert html.count("</script>") == 3  # the data, vis-network and the app: nothing else
    assert not re.search(r"""(src|href)=["']?https?://""", html)
    assert "Content-Security-Policy" in html and "connect-src 'none'" in html
    assert _page_data(html)["runs"][0]["tasks"][0]["context"] == evil
    assert "vis-network" in html and "@DATA@" not in html and "@TITLE@" not in html


def test_inspect_writes_one_page_for_a_demo_folder_and_keeps_other_files(demo, tmp_path, capsys):
    out = tmp_path / "page.html"
    assert main(["inspect", str(demo), "--out", str(out), "--samples", "100"]) == 0
    assert "5 runs" in capsys.readouterr().out
    page = _page_data(out.read_text())
    assert [r["method"] for r in page["runs"]] == ["flat", "hyperskill", "hyperskill-no-subtask",
                                                   "hyperskill-no-trajectory", "no-memory"]
    assert page["skillworld"]
    overlay = page["overlay"]  # the SR of every run, as numbers the page draws
    assert [sr["name"] for sr in overlay["series"]] == [r["name"] for r in page["runs"]]
    hs = next(sr for sr in overlay["series"] if sr["name"] == "hyperskill")
    ok = [r["success"] for r in read_records(demo / "hyperskill")]
    assert hs["x"] == list(range(1, len(ok) + 1))
    assert hs["y"] == [round(100 * sum(ok[:k]) / k, 2) for k in hs["x"]]
    assert "lo" not in hs  # five bands would hide each other
    assert main(["inspect", str(demo), "--out", str(out), "--samples", "0"]) == 0  # ours: replaced
    mine = tmp_path / "mine.html"
    mine.write_text("<html>my notes</html>")
    assert main(["inspect", str(demo / "hyperskill"), "--out", str(mine)]) == 2
    assert mine.read_text() == "<html>my notes</html>"
    assert "not a studio page" in capsys.readouterr().err
    assert main(["inspect", str(demo / "hyperskill"), "--out", str(tmp_path)]) == 2
    assert main(["inspect", str(tmp_path / "nothing")]) == 2
    assert "no such run folder" in capsys.readouterr().err


def test_report_takes_a_demo_folder_and_its_star(demo, tmp_path, capsys):
    assert main(["report", str(demo), "--out", str(tmp_path / "a")]) == 0
    table = capsys.readouterr().out
    assert all(f"{m} memory:" in table for m in ("hyperskill", "flat", "no-memory"))
    star = sorted(str(p) for p in demo.iterdir())  # what a shell makes of runs/demo/*
    assert any(s.endswith("demo.json") for s in star) and any(s.endswith("figures") for s in star)
    assert main(["report", *star, "--out", str(tmp_path / "b")]) == 0
    assert capsys.readouterr().out.replace(f"{tmp_path}/b", f"{tmp_path}/a") == table
