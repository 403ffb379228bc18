"""The memory widget (hyperskill_lite.widget): what `show` puts in the widget, checked
against the memory and the run folder it came from; the selection's way back to Python;
what it draws at most and what it says when it aggregates; its static copy; and its
model ids, the same in two kernels so an executed notebook is the same file. The widget
in a real JupyterLab: tests/browser/test_widget*.py."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path

import nbformat
import numpy as np
import pytest
from nbclient import NotebookClient
from PIL import Image
from widget_memory import synthetic_memory

from hyperskill_lite import show
from hyperskill_lite.cli import main
from hyperskill_lite.core.io import load_memory, save_memory
from hyperskill_lite.core.retrieval import Retrieval, retrieve
from hyperskill_lite.runner import read_records
from hyperskill_lite.studio import render
from hyperskill_lite.studio.graph import WIDGET_BUDGET, Budget, _two_step
from hyperskill_lite.studio.render import _asset, widget_module
from hyperskill_lite.widget.static import draw_png, static_bundle


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """A 24-episode SkillWorld HyperSkill run (maintenance every 3 episodes)."""
    out = tmp_path_factory.mktemp("widget") / "hs"
    assert main(["run", "--method", "hyperskill", "--profile", "gaia", "--episodes", "24",
                 "--encoder", "hashing", "--no-progress", "--out", str(out)]) == 0
    return out


def test_a_memory_shown_alone_is_drawn_whole_with_its_own_statistics(run):
    mem = load_memory(run / "state" / "memory")
    text = "What share of the budget went to programmes in the 2008 annual report?"
    w = show(mem, tasks=[text])
    g = w.data["graph"]
    drawn = {n[0] for n in g["nodes"]}
    assert drawn == set(mem.node_ids()) | set(mem.edge_ids())
    assert g["note"] == "" and w.data["kind"] == "memory"
    for sid in mem.node_ids(kind="skill"):
        node = mem.node(sid)
        assert w.data["provenance"][sid]["gamma"] == [[0, round(node.gamma, 3), node.nu,
                                                        round(node.sigma, 3)]]
    assert w.data["tasks"][0]["explain"] == retrieve(mem, text).explain()
    w.selected = "q1"
    assert w.selected_kind == "task" and w.explain() == retrieve(mem, text).explain()
    assert w.memory is mem


def test_a_run_gets_its_checkpoints_tasks_and_selection_both_ways(run):
    records = read_records(run)
    w = show(run)
    cks = w.data["graph"]["checkpoints"]
    assert w.checkpoint == len(cks) - 1 and w.run_folder == str(run)
    first = load_memory(run / "checkpoints" / cks[0]["label"])
    w.checkpoint = 0
    assert w.memory.node_ids() == first.node_ids()
    sid = max(first.node_ids(kind="skill"))
    w.selected = sid
    assert w.selected_kind in ("skill", "mistake") and w.provenance()["gamma"][0][0] == cks[0]["after"]
    task = w.data["tasks"][-1]
    w.selected = task["task_id"]
    assert w.selected_kind == "task"
    kept = Retrieval.from_record(next(r["explain"] for r in reversed(records)
                                      if r["task_id"] == task["task_id"]))
    assert w.explain() == kept.explain() == task["explain"]
    w.selected = "no-such-id"
    assert w.selected_kind == "" and "not a task" in w.explain()
    with pytest.raises(ValueError, match="out of range"):
        show(run, checkpoint=len(cks))


def test_the_browser_gets_a_trajectorys_text_and_subtasks_on_request(run):
    w = show(run)
    mem = load_memory(run / "state" / "memory")
    eid = mem.edge_ids()[3]
    got = w._source.details(eid)
    rec = next(r for r in read_records(run) if r["update"]["edge"] == eid)
    assert got["edge"][:3] == [rec["index"], rec["task_id"], bool(mem.edge(eid).success)]
    assert [u for u, _ in got["subtasks"]] == [x for x in mem.edge(eid).node_ids if x[0] == "u"]
    sent = []
    w.send = sent.append  # what would go to the browser
    for bad in ({"type": "details", "id": "s1"}, {"type": "details", "id": "e1" * 40},
                {"type": "details", "id": ["e1"]}, "e1", {"type": "other", "id": "e1"}):
        w._on_msg(w, bad, [])
    assert sent == []
    w._on_msg(w, {"type": "details", "id": eid}, [])
    assert sent == [{"type": "details", **got}]


def test_what_show_accepts_and_the_one_line_it_says_otherwise(run, tmp_path):
    mem = load_memory(run / "state" / "memory")
    save_memory(mem, tmp_path / "saved")
    assert show(tmp_path / "saved").data["kind"] == "memory"
    demo = tmp_path / "demo"
    assert main(["demo", "--episodes", "6", "--encoder", "hashing", "--out", str(demo)]) == 0
    w = show(demo)
    assert w.data["method"] == "hyperskill" and len(w.others) == 4
    (tmp_path / "empty").mkdir()
    for bad, says in ((tmp_path / "nothing", "does not exist"),
                      (tmp_path / "empty", "not a run folder"),
                      (42, "cannot show a int")):
        with pytest.raises(ValueError, match=says) as err:
            show(bad)
        assert "\n" not in str(err.value)


def test_past_its_budget_the_widget_draws_the_most_used_and_says_so():
    mem = synthetic_memory(600)
    budget = Budget(skills=40, edges=150, rings=100)
    g = show(mem, budget=budget).data["graph"]
    t = g["totals"]
    assert (t["drawn_skills"], t["drawn_hyperedges"], t["rings"]) == (40, 150, False)
    assert g["note"].startswith("Aggregated: the 40 most used of 120 skill nodes")
    assert "Subtask nodes are drawn up to 100 hyperedges" in g["note"]
    assert not any(n[1] == "u" for n in g["nodes"])
    B, ids, edges, _ = mem.skill_incidence()
    degree = dict(zip(ids, np.asarray(B.sum(axis=1)).ravel().tolist()))
    drawn = [n[0] for n in g["nodes"] if n[1] == "s"]
    assert min(degree[s] for s in drawn) >= max(degree[s] for s in ids if s not in drawn)
    whole = show(synthetic_memory(300)).data["graph"]
    assert whole["note"] == "" and whole["totals"]["drawn_hyperedges"] == 300
    assert WIDGET_BUDGET.edges == 5000


def test_a_large_component_gets_the_two_step_layout():
    rng = np.random.default_rng(0)
    n_s, n_e = 50, 900
    is_skill = np.r_[np.zeros(n_e, bool), np.ones(n_s, bool)]
    pairs = np.array([(e, n_e + s) for e in range(n_e)
                      for s in set(rng.integers(0, n_s, 2).tolist())], dtype=np.int64)
    pos = _two_step(is_skill, pairs, seed=0)
    assert np.isfinite(pos).all() and np.abs(pos).max() < 2
    assert len({tuple(p) for p in np.round(pos, 6).tolist()}) == len(pos)  # none on another
    for e in (0, 1, 2):  # a hyperedge sits near the centroid of its skills
        mine = pairs[pairs[:, 0] == e, 1]
        assert np.linalg.norm(pos[e] - pos[mine].mean(axis=0)) < 0.5


def test_the_static_copy_is_a_picture_and_a_line_the_same_every_time(run):
    w = show(run)
    a, b = static_bundle(w.data, w.checkpoint), static_bundle(w.data, w.checkpoint)
    assert a == b
    assert a["text/plain"].startswith("Memory widget: hyperskill, maint-0024 after episode 24")
    img = Image.open(io.BytesIO(base64.b64decode(a["image/png"])))
    assert img.size == (900, 520) and "Software" not in img.text
    assert img.text["Description"].startswith("Memory widget: hyperskill")
    assert draw_png({"name": "flat", "method": "flat"}, 0) is None


def test_the_page_and_the_widget_run_one_script(run):
    esm = widget_module()
    view = _asset("view.js")
    assert view in esm and esm.rstrip().endswith("export default { render };")
    assert "//# sourceMappingURL" not in esm  # nothing for the browser to fetch
    page = render({"title": "t", "runs": [], "overlay": None, "skillworld": False})
    assert view.replace("</script", "<\\/script") in page


def test_an_executed_notebook_holds_the_same_widget_ids_and_state_in_two_kernels(tmp_path):
    nb = nbformat.v4.new_notebook()
    here = str(Path(__file__).parent)
    nb.cells = [nbformat.v4.new_code_cell(
        f"import sys\nsys.path.insert(0, {here!r})\n"
        "from widget_memory import synthetic_memory\nfrom hyperskill_lite import show\n"
        "w = show(synthetic_memory(40))\nw"), nbformat.v4.new_code_cell("w.selected = 's3'")]
    done = []
    for _ in range(2):
        copy = nbformat.from_dict(json.loads(json.dumps(nb)))
        NotebookClient(copy, timeout=120, kernel_name="python3").execute()
        done.append(copy)
    views = [[o for o in d.cells[0].outputs if "application/vnd.jupyter.widget-view+json"
              in o.get("data", {})] for d in done]
    assert views[0] == views[1] and len(views[0]) == 1
    state = [d.metadata["widgets"] for d in done]
    assert json.dumps(state[0], sort_keys=True) == json.dumps(state[1], sort_keys=True)
    models = state[0]["application/vnd.jupyter.widget-state+json"]["state"]
    mid = views[0][0]["data"]["application/vnd.jupyter.widget-view+json"]["model_id"]
    assert models[mid]["state"]["selected"] == "s3"
    assert [o["output_type"] for o in done[0].cells[0].outputs] == ["display_data"] * 2
    assert "image/png" in done[0].cells[0].outputs[0]["data"]  # the static copy comes first
