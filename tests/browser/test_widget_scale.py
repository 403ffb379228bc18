"""The widget at scale, in a real JupyterLab 4: memories of 1,000, 5,000 and 8,000
hyperedges (tests/widget_memory.py: built in bulk, about one skill node per five
hyperedges, 1-3 skills and 3 subtasks each) shown one after the other in the same cell,
each in view; for each, the time from the widget's data to its first drawing (the
browser's ``draw_ms``, which Python reads back as ``w.draw_ms``), and at 5,000 the time
a filter change and a selection take to be drawn. Past the widget's budget
(`WIDGET_BUDGET`: 5,000 hyperedges, 1,500 skill nodes) it draws the most used skills and
a sample of trajectories and says so.

The times are written to ``widget-draw-times.json`` in the shots folder and printed; the
test fails only past `CEILING_MS` (a regression, not the claim: the claim's figures come
from this file, with the machine's load beside them).
"""

from __future__ import annotations

import json
import os
import time

import pytest
from lab import Lab, open_notebook, run_all, run_cell, write_notebook
from support import ROOT

from hyperskill_lite.studio.graph import WIDGET_BUDGET

SIZES = (1000, 5000, 8000)
CEILING_MS = 15_000.0
"""A first drawing slower than this fails the test, whatever the machine's load."""
NOTEBOOK = "widget_scale.ipynb"


@pytest.fixture(scope="module")
def lab(tmp_path_factory, shots):
    root = tmp_path_factory.mktemp("widgetscale")
    (root / "notebooks").mkdir()
    write_notebook(root / "notebooks" / NOTEBOOK, [
        f"import sys\nsys.path.insert(0, {str(ROOT / 'tests')!r})\n"
        "from widget_memory import synthetic_memory\nfrom hyperskill_lite import show",
        "w = None",
        "print(w.draw_ms if w is not None else None)",
    ])
    server = Lab(root, shots / "jupyterlab-widget-scale.log")
    server.start()
    yield server
    server.stop()


def _timed(page, action: str) -> float:
    """ms from `action` (JS run on the widget's view, `v`) to the drawing it causes."""
    return page.evaluate("""(action) => new Promise((done) => {
        const v = document.querySelector('.hsl-widget').hslView;
        const t0 = performance.now();
        v.network.once('afterDrawing', () => done(performance.now() - t0));
        new Function('v', action)(v);
        v.network.redraw();
    })""", action)


def test_the_widget_draws_5000_hyperedges_and_aggregates_past_its_budget(lab, browser, shots):
    t_start = time.monotonic()
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(f"script error: {e}"))
    times: dict[str, object] = {"budget": {"hyperedges": WIDGET_BUDGET.edges,
                                           "skills": WIDGET_BUDGET.skills},
                                "load_average": os.getloadavg()[0]}
    try:
        open_notebook(page, lab, NOTEBOOK)
        state = run_all(page, timeout=120)
        assert not state["errors"], "\n".join(state["errors"])
        for n in SIZES:
            run_cell(page, 1, f"w = show(synthetic_memory({n}))\nw", timeout=300)
            page.locator(".hsl-widget").scroll_into_view_if_needed()
            page.wait_for_selector(".hsl-widget .network[data-draw-ms]", timeout=120_000)
            ms = float(page.locator(".hsl-widget .network").get_attribute("data-draw-ms"))
            totals = page.evaluate("() => document.querySelector('.hsl-widget').hslView"
                                   ".run.graph.totals")
            note = page.locator(".hsl-widget .aggregated")
            row: dict[str, object] = {"first_draw_ms": ms, **totals}
            if n > WIDGET_BUDGET.edges:
                assert totals["drawn_hyperedges"] == WIDGET_BUDGET.edges
                assert "Aggregated" in note.inner_text()
            else:
                assert totals["drawn_hyperedges"] == n
            if n == 5000:
                row["filter_ms"] = _timed(page, "v.setFilters({text: 'skill 1'})")
                row["select_ms"] = _timed(page, "v.select(v.run.graph.nodes[0][0])")
                row["clear_ms"] = _timed(page, "v.setFilters({text: ''})")
                page.locator(".hsl-widget").screenshot(path=shots / "widget-5000.png")
            back = run_cell(page, 2).strip()  # Python has the browser's figure
            assert back != "None" and abs(float(back) - ms) < 1.0, (back, ms)
            times[str(n)] = row
            assert ms < CEILING_MS, f"{n} hyperedges: first drawing {ms:.0f} ms"
        assert not errors, "\n".join(errors)
    finally:
        times["test_seconds"] = round(time.monotonic() - t_start, 1)
        (shots / "widget-draw-times.json").write_text(json.dumps(times, indent=1))
        print(json.dumps(times))
        page.evaluate("() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                      " return w && w.sessionContext ? w.sessionContext.shutdown() : null; }")
        page.close()
