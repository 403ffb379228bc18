"""The memory studio (`inspect`) in Chromium, opened from disk with the network blocked:
the checkpoint slider changes the drawing, clicking a skill lists the trajectories that
hold it, a task's explanation is `explain()` of a fresh retrieval on the memory that
task saw, and no request leaves the page. Screenshots: studio-*.png in the shots folder.
"""

from __future__ import annotations

import json

import pytest

from hyperskill_lite.cli import main
from hyperskill_lite.core.io import load_memory
from hyperskill_lite.core.retrieval import Retrieval, retrieve
from hyperskill_lite.runner import read_records

EPISODES = 40


@pytest.fixture(scope="module")
def studio(tmp_path_factory):
    root = tmp_path_factory.mktemp("studio")
    run = root / "hs"
    assert main(["run", "--method", "hyperskill", "--profile", "gaia", "--episodes",
                 str(EPISODES), "--encoder", "hashing", "--no-progress", "--out", str(run)]) == 0
    page = root / "studio.html"
    assert main(["inspect", str(run), "--out", str(page), "--samples", "200"]) == 0
    return run, page


@pytest.fixture(scope="module")
def page(browser, studio):
    """The studio page, every request recorded and any that is not the file refused."""
    _, html = studio
    p = browser.new_page()
    requests: list[str] = []
    p.on("request", lambda r: requests.append(r.url))
    p.route("**/*", lambda r: r.continue_() if r.request.url == html.as_uri() else r.abort())
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    p.goto(html.as_uri(), wait_until="load")
    p.wait_for_selector("body[data-ready='1']")
    p.requests, p.errors = requests, errors  # type: ignore[attr-defined]
    yield p
    p.close()


def _graph(page, shots, name: str) -> str:
    page.click("#tabs button[data-tab=graph]")
    page.wait_for_selector("#network-0[data-visible-nodes] canvas")
    page.evaluate("() => new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    page.screenshot(path=shots / name)
    return page.locator("#network-0 canvas").evaluate("c => c.toDataURL()")


def test_the_checkpoint_slider_changes_the_drawing(page, studio, shots):
    run, _ = studio
    last = _graph(page, shots, "studio-graph-final.png")
    net = page.locator("#network-0")
    assert net.get_attribute("data-checkpoint") == "maint-0040"
    shown_last = int(net.get_attribute("data-visible-nodes"))
    slider = page.locator("#pane-0 input.ck-slider")
    slider.focus()
    page.keyboard.press("Home")  # the first checkpoint, as a keyboard user moves it
    page.wait_for_function("() => document.querySelector('#network-0')"
                           ".getAttribute('data-checkpoint') === 'maint-0004'")
    first = _graph(page, shots, "studio-graph-first.png")
    shown_first = int(net.get_attribute("data-visible-nodes"))
    mem = load_memory(run / "checkpoints" / "maint-0004")
    assert shown_first == len(mem.node_ids()) + len(mem.edge_ids()) < shown_last
    assert first != last  # the canvas shows another picture
    assert "after episode 4" in page.locator("#pane-0 .cklabel").inner_text()
    slider.focus()
    page.keyboard.press("End")
    page.wait_for_function("() => document.querySelector('#network-0')"
                           ".getAttribute('data-checkpoint') === 'maint-0040'")


def test_clicking_a_skill_lists_its_trajectories(page, studio, shots):
    run, _ = studio
    _graph(page, shots, "studio-graph.png")
    final = load_memory(run / "checkpoints" / "maint-0040")
    holding = {s: [e for e in final.edge_ids() if s in final.edge(e).node_ids]
               for s in final.node_ids(kind="skill")}
    sid = max(holding, key=lambda s: (len(holding[s]), s))
    assert len(holding[sid]) >= 2
    x, y = page.evaluate("""(sid) => {
        const pane = window.studio.panes[0], nodes = pane.run.graph.nodes;
        const i = nodes.findIndex(n => n[0] === sid);
        pane.network.focus(i, {scale: 2.5, animation: false});
        const p = pane.network.canvasToDOM(pane.network.getPositions([i])[i]);
        const box = pane.netDiv.getBoundingClientRect();
        return [box.left + p.x, box.top + p.y];
    }""", sid)
    page.mouse.click(x, y)
    details = page.locator("#pane-0 .details")
    page.wait_for_function("(sid) => document.querySelector('#pane-0 .details')"
                           ".getAttribute('data-skill') === sid", arg=sid)
    listed = [li.get_attribute("data-edge")
              for li in details.locator("ul.trajectories li").all()]
    assert listed and set(listed) <= set(holding[sid])
    assert len(listed) == min(len(holding[sid]), 12)
    assert f"Trajectories holding it: {len(holding[sid])}" in details.inner_text()
    records = read_records(run)
    for e in listed:  # each line names the episode that wrote that trajectory
        ep = next(r["index"] for r in records if r.get("update", {}).get("edge") == e)
        text = details.locator(f"ul.trajectories li[data-edge='{e}']").inner_text()
        assert f"episode {ep} " in text and records[ep]["task_id"] in text
    page.screenshot(path=shots / "studio-provenance.png")


def test_a_tasks_explanation_is_explain_of_the_memory_it_saw(page, studio, shots):
    run, _ = studio
    records = read_records(run)
    k = 20  # the task right after the maintenance checkpoint after episode 20
    saved = Retrieval.from_record(records[k]["explain"])
    fresh = retrieve(load_memory(run / "checkpoints" / f"maint-{k:04d}"), saved.task,
                     saved.plan)
    page.click("#tabs button[data-tab=tasks]")
    sel = page.locator("#pane-0 select.task-select")
    sel.select_option(label=next(o for o in sel.locator("option").all_inner_texts()
                                 if o.startswith(f"episode {k} ")))
    page.wait_for_selector(f"#pane-0 .task-view[data-index='{k}']")
    assert page.locator("#pane-0 pre.explain").inner_text() == fresh.explain()
    assert page.locator("#pane-0 pre.context").inner_text() == (fresh.context or
                                                               "(empty: nothing retrieved)")
    page.screenshot(path=shots / "studio-retrieval.png", full_page=True)


def test_no_request_left_the_page_and_nothing_failed(page, studio, shots):
    _, html = studio
    for tab in ("run", "cycles", "hygiene"):
        page.click(f"#tabs button[data-tab={tab}]")
        page.screenshot(path=shots / f"studio-{tab}.png")
    with page.expect_download() as got:
        page.locator("#pane-0 button.csv").first.click()
    assert got.value.suggested_filename.endswith(".csv")
    assert page.requests == [html.as_uri()], page.requests
    assert page.errors == []
    assert json.loads(page.evaluate("JSON.stringify(window.studio.data.skillworld)")) is True
