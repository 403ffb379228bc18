"""The memory widget (hyperskill_lite.widget.show) in a real JupyterLab 4, as a learner
uses it: a notebook makes a SkillWorld run and shows it; the test clicks a skill in the
drawing and reads the trajectories the widget lists for it (checked against the run's
final memory), moves the checkpoint slider with the keyboard (the drawing and "what
maintenance did" change, and Python's ``w.checkpoint`` follows), runs the next cell and
finds the clicked skill in ``w.selected``; sets ``w.selected`` from Python and sees the
widget show that trajectory; picks a task and reads its retrieval (``explain()`` of the
record's), its chosen skills marked in the drawing, and the task in ``w.selected``.
Screenshots: widget-*.png in the shots folder.
"""

from __future__ import annotations

import json
import time

import pytest
from lab import CELL_STATE, Lab, open_notebook, run_all, run_cell, write_notebook

from hyperskill_lite.core.io import load_memory
from hyperskill_lite.core.retrieval import Retrieval
from hyperskill_lite.runner import read_records

NOTEBOOK = "widget_check.ipynb"
CELLS = [
    "from pathlib import Path\n"
    "from hyperskill_lite import show\n"
    "from hyperskill_lite.launch import RunSpec, execute, prepare\n"
    "run = Path('hs-run').resolve()  # beside the notebook, in the test's temporary folder\n"
    "execute(prepare(RunSpec(out=run, method='hyperskill', seed=0, episodes=24,\n"
    "                        encoder='hashing', progress=False, profile='gaia')))\n"
    "print(run)",
    "w = show(run)\nw",
    "print(repr(w.selected), w.selected_kind, w.checkpoint)",
]
WIDGET = ".hsl-widget"
WAIT = 120_000
"""ms a step may take on a loaded machine before the test fails (a redraw takes well under
a second on an idle one)."""


@pytest.fixture(scope="module")
def lab(tmp_path_factory, shots):
    root = tmp_path_factory.mktemp("widgetlab")
    (root / "notebooks").mkdir()
    write_notebook(root / "notebooks" / NOTEBOOK, CELLS)
    server = Lab(root, shots / "jupyterlab-widget.log")
    server.start()
    yield server
    server.stop()


def _click_node(page, element: str) -> None:
    """Click the drawn node `element` where the widget draws it (zoomed in on it)."""
    page.locator(WIDGET).scroll_into_view_if_needed()
    x, y = page.evaluate("""(id) => {
        const view = document.querySelector('.hsl-widget').hslView;
        const i = view.nodeIndex()[id];
        view.network.focus(i, {scale: 2.5, animation: false});
        const p = view.network.canvasToDOM(view.network.getPositions([i])[i]);
        const box = view.netDiv.getBoundingClientRect();
        return [box.left + p.x, box.top + p.y];
    }""", element)
    page.mouse.click(x, y)


def test_the_widget_in_jupyterlab_click_slider_and_selection_back_in_python(lab, browser, shots):
    t0 = time.monotonic()
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"script error: {e}"))
    try:
        open_notebook(page, lab, NOTEBOOK)
        state = run_all(page, timeout=240)
        assert not state["errors"], "\n".join(state["errors"])
        page.wait_for_selector(f"{WIDGET}[data-ready='1'] .network[data-draw-ms] canvas",
                               timeout=WAIT)
        run = page.evaluate("""() => { const p = window.jupyterapp.shell.currentWidget;
            return p.content.widgets[0].model.outputs.toJSON()
              .map(o => [].concat(o.text || []).join('')).join('').trim(); }""")
        final = load_memory(f"{run}/state/memory")
        page.locator(WIDGET).screenshot(path=shots / "widget-1-shown.png")

        # a click on the skill held by the most trajectories lists them
        holding = {s: [e for e in final.edge_ids() if s in final.edge(e).node_ids]
                   for s in final.node_ids(kind="skill")}
        sid = max(holding, key=lambda s: (len(holding[s]), s))
        _click_node(page, sid)
        page.wait_for_function("(sid) => document.querySelector('.hsl-widget .details')"
                               ".getAttribute('data-skill') === sid", arg=sid, timeout=WAIT, polling=250)
        details = page.locator(f"{WIDGET} .details")
        listed = [li.get_attribute("data-edge")
                  for li in details.locator("ul.trajectories li").all()]
        assert listed and set(listed) <= set(holding[sid])
        assert len(listed) == min(len(holding[sid]), 12)
        assert f"Trajectories holding it: {len(holding[sid])}" in details.inner_text()
        assert details.locator("table.history tr").count() >= 2  # gamma, nu, sigma over time
        page.locator(WIDGET).screenshot(path=shots / "widget-2-clicked.png")

        # the checkpoint slider, moved with the keyboard, redraws and says what changed
        net = page.locator(f"{WIDGET} .network")
        last = net.get_attribute("data-checkpoint")
        shown_last = int(net.get_attribute("data-visible-nodes"))
        slider = page.locator(f"{WIDGET} input.ck-slider")
        slider.focus()
        page.keyboard.press("Home")
        page.wait_for_function("(last) => document.querySelector('.hsl-widget .network')"
                               ".getAttribute('data-checkpoint') !== last", arg=last, timeout=WAIT, polling=250)
        first = net.get_attribute("data-checkpoint")
        assert int(net.get_attribute("data-visible-nodes")) < shown_last
        page.keyboard.press("ArrowRight")
        diff = page.locator(f"{WIDGET} .diff")
        page.wait_for_function("(first) => document.querySelector('.hsl-widget .diff')"
                               ".getAttribute('data-from') === first", arg=first, timeout=WAIT, polling=250)
        assert "maintenance cycle(s) merged" in diff.inner_text()
        page.locator(WIDGET).screenshot(path=shots / "widget-3-slider.png")

        # the next cell reads the selection and the checkpoint back in Python
        out = run_cell(page, 2)
        assert out.split()[:3] == [repr(sid), "mistake" if final.node(sid).polarity == "failure"
                                   else "skill", "1"], out

        # and a selection made in Python shows in the widget
        eid = holding[sid][0]
        run_cell(page, 2, f"w.selected = {eid!r}\nprint(w.selected_kind)")
        page.wait_for_function("(eid) => document.querySelector('.hsl-widget .details')"
                               ".getAttribute('data-edge') === eid", arg=eid, timeout=WAIT, polling=250)
        assert f"Trajectory {eid}" in details.inner_text()
        page.locator(WIDGET).screenshot(path=shots / "widget-4-python-selected.png")

        # a task picked in the widget shows its retrieval, its chosen skills marked
        records = read_records(run)
        rec = records[-1]
        kept = Retrieval.from_record(rec["explain"])
        sel = page.locator(f"{WIDGET} select.task-select")
        sel.select_option(label=next(o for o in sel.locator("option").all_inner_texts()
                                     if o.startswith(f"episode {rec['index']} ")))
        page.wait_for_function("(t) => document.querySelector('.hsl-widget .task-view')"
                               ".getAttribute('data-task') === t", arg=rec["task_id"],
                               timeout=WAIT, polling=250)
        assert page.locator(f"{WIDGET} pre.explain").inner_text() == kept.explain()
        marked = set((net.get_attribute("data-marked") or "").split())
        assert set(kept.skill_ids) <= marked and set(kept.edge_ids) <= marked
        assert run_cell(page, 2, "print(w.selected, w.selected_kind)").split() == [
            rec["task_id"], "task"]
        page.locator(WIDGET).screenshot(path=shots / "widget-5-task.png")
        state = page.evaluate(CELL_STATE)
        assert not state["errors"], "\n".join(state["errors"])
        assert not errors, "\n".join(errors)
    finally:
        page.evaluate("() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                      " return w && w.sessionContext ? w.sessionContext.shutdown() : null; }")
        page.close()
        (shots / "widget-test-seconds.json").write_text(json.dumps(
            {"seconds": round(time.monotonic() - t0, 1)}))
