"""The "turn the world" panels of notebooks 03, 05 and 08, driven in a real JupyterLab.

For each notebook: open it, clear and run every cell, check that no cell shows an error
(or writes to stderr), find the panel (``hsl-panel``, hyperskill_lite.explore.panel),
change one control as a learner would (k with the keyboard on its slider, δ_merge the
same way, the method from its dropdown) and wait until the panel shows the figure for the
new value: its status line names the knobs of the run the figure below it was drawn from
(``showing: ... k = 3 ...``) and the image is a new one. A traceback in the panel's output
fails at once; a callback that never redraws fails at the timeout.

The notebooks come from a temporary copy (``$HYPERSKILL_BROWSER_NOTEBOOKS`` or
notebooks/), so the committed ones are never modified. Screenshots of each step:
``lab-NN-1-opened.png``, ``-2-ran.png``, ``-3-panel-before.png``, ``-4-panel-after.png``.
"""

from __future__ import annotations

import os
import re
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from lab import CELL_STATE, Lab, copy_notebooks, open_notebook, run_all
from support import ROOT

RUN_TIMEOUT = float(os.environ.get("HYPERSKILL_BROWSER_RUN_TIMEOUT", 400))
REDRAW_TIMEOUT = 180.0
PANEL_ERRORS = ".hsl-panel-output .jp-OutputArea-output[data-mime-type*='stderr']"


@dataclass(frozen=True)
class Turn:
    """One control to change in one notebook's panel."""

    notebook: str
    knob: str
    how: str  # "right" / "left": arrow key on the slider; else a dropdown option to select


TURNS = [
    Turn("03_cooccurrence_ranking.ipynb", "k", "right"),
    Turn("05_propagation_merging.ipynb", "delta_merge", "left"),
    Turn("08_ablations_and_sensitivity.ipynb", "method", "flat"),
]


@pytest.fixture(scope="module")
def lab(tmp_path_factory, shots):
    src = Path(os.environ.get("HYPERSKILL_BROWSER_NOTEBOOKS", ROOT / "notebooks"))
    root = tmp_path_factory.mktemp("lab")
    copy_notebooks(src, root)
    server = Lab(root, shots / "jupyterlab.log")
    server.start()
    yield server
    server.stop()


def _status(page) -> str:
    """The panel's status line, as the DOM holds it (textContent: JupyterLab's windowed
    notebook may take a cell out of the rendered view, where innerText reads "")."""
    return (page.locator(".hsl-panel .hsl-panel-status").text_content() or "").strip()


def _image(page) -> str | None:
    img = page.locator(".hsl-panel .hsl-panel-output img")
    return img.first.get_attribute("src") if img.count() else None


def _panel_errors(page) -> list[str]:
    return [e.inner_text()[-1500:] for e in page.locator(PANEL_ERRORS).all()]


def _knob_value(status: str, knob: str) -> str | None:
    m = re.search(rf"(?:^|· |: ){re.escape(knob)} = ([^ ·]+)", status)
    return m.group(1) if m else None


def _same(a: str | None, b: str | None) -> bool:
    if a is None or b is None:
        return False
    try:
        return abs(float(a) - float(b)) < 1e-9
    except ValueError:
        return a == b


def _wait_for_figure(page, knob: str, value: str, old_image: str | None) -> str:
    """Wait until the panel shows the figure drawn for ``knob = value``; return the status."""
    deadline = time.monotonic() + REDRAW_TIMEOUT
    status, stale_polls = "", 0
    while time.monotonic() < deadline:
        errors = _panel_errors(page)
        assert not errors, "the panel's callback failed:\n" + "\n".join(errors)
        status = _status(page)
        image = _image(page)
        if status.startswith("showing:") and _same(_knob_value(status, knob), value):
            if image and image != old_image:
                return status
            # the run for the new value is done (the status is set after the figure is
            # shown), yet the figure is the old one: ten more looks, then fail
            stale_polls += 1
            if stale_polls > 10:
                raise AssertionError(
                    f"the panel says it shows {knob} = {value} but its figure is the one "
                    "drawn before the change: the callback did not redraw")
        page.wait_for_timeout(500)
    raise AssertionError(f"the panel did not redraw for {knob} = {value} in "
                         f"{REDRAW_TIMEOUT:.0f} s; its status line: {status!r}")


def _panel_ready(page) -> tuple[str, str | None]:
    """Wait for the panel's first figure; return its status line and image."""
    page.locator(".hsl-panel").scroll_into_view_if_needed()
    page.wait_for_function(
        "() => { const s = document.querySelector('.hsl-panel .hsl-panel-status');"
        " return s && s.textContent.startsWith('showing:')"
        " && document.querySelector('.hsl-panel .hsl-panel-output img'); }",
        timeout=REDRAW_TIMEOUT * 1000)
    return _status(page), _image(page)


def _turn(page, turn: Turn, before: str) -> str:
    """Change the control as a learner would; return its new value."""
    control = page.locator(f".hsl-panel .hsl-knob-{turn.knob}")
    if turn.how in ("right", "left"):
        control.locator(".noUi-handle").focus()
        page.keyboard.press("ArrowRight" if turn.how == "right" else "ArrowLeft")
        page.wait_for_function(
            "([sel, old]) => { const r = document.querySelector(sel); return r &&"
            " r.textContent.trim() && parseFloat(r.textContent) !== parseFloat(old); }",
            arg=[f".hsl-panel .hsl-knob-{turn.knob} .widget-readout", before])
        value = control.locator(".widget-readout").inner_text().strip()
    else:
        control.locator("select").select_option(turn.how)
        value = turn.how
    assert not _same(value, before), f"{turn.knob} did not change from {before}"
    return value


def _shutdown(page) -> None:
    page.evaluate("() => { const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;"
                  " return w && w.sessionContext ? w.sessionContext.shutdown() : null; }")


@pytest.mark.parametrize("turn", TURNS, ids=lambda t: t.notebook[:2])
def test_a_panel_redraws_for_the_value_a_learner_picks(turn, lab, browser, shots):
    page = browser.new_page()
    console: list[str] = []
    page.on("pageerror", lambda e: console.append(f"script error: {e}"))
    tag = f"lab-{turn.notebook[:2]}"
    try:
        open_notebook(page, lab, turn.notebook)
        page.screenshot(path=shots / f"{tag}-1-opened.png")

        state = run_all(page, timeout=RUN_TIMEOUT)
        page.screenshot(path=shots / f"{tag}-2-ran.png")
        assert not state["errors"], f"{turn.notebook}: " + "\n".join(state["errors"])

        panel = page.locator(".hsl-panel")
        assert panel.count() == 1, f"{turn.notebook}: expected one panel, found {panel.count()}"
        before_status, before_image = _panel_ready(page)
        before = _knob_value(before_status, turn.knob)
        assert before is not None, f"the status line does not name {turn.knob}: {before_status!r}"
        panel.screenshot(path=shots / f"{tag}-3-panel-before.png")

        value = _turn(page, turn, before)
        after = _wait_for_figure(page, turn.knob, value, before_image)
        panel.scroll_into_view_if_needed()
        panel.screenshot(path=shots / f"{tag}-4-panel-after.png")
        page.screenshot(path=shots / f"{tag}-5-notebook-after.png")
        assert after != before_status
        state = page.evaluate(CELL_STATE)
        assert not state["errors"], "\n".join(state["errors"])
        assert not console, "\n".join(console)
    finally:
        _shutdown(page)
        page.close()


# --- the check itself, on small panels broken on purpose --------------------------------

BROKEN = {
    "raises": ('    if x.knobs["k"] != 2:\n        raise ValueError("broken on purpose")\n',
               "the panel's callback failed"),
    "stale": ('    global FIRST\n    FIRST = FIRST or make(x)\n    return FIRST\n',
              "its figure is the one drawn before the change"),
}


def _broken_notebook(path: Path, how: str) -> None:
    import nbformat

    body = BROKEN[how][0]
    code = ("%matplotlib inline\n"  # as the course notebooks do: figures display as PNGs
            "import matplotlib.pyplot as plt\n"
            "from hyperskill_lite import panel\n"
            "FIRST = None\n\n"
            "def make(x):\n"
            "    fig, ax = plt.subplots(figsize=(3, 2))\n"
            "    ax.set_title(f\"k = {x.knobs['k']}\")\n"
            "    plt.close(fig)\n"
            "    return fig\n\n"
            "def draw(x):\n" + body + "    return make(x)\n\n"
            "panel(draw, episodes=20)")
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)


@pytest.mark.parametrize("how", sorted(BROKEN))
def test_the_check_fails_on_a_broken_callback(how, lab, browser):
    name = f"zz_broken_{how}.ipynb"
    _broken_notebook(lab.root / "notebooks" / name, how)
    page = browser.new_page()
    try:
        open_notebook(page, lab, name)
        run_all(page, timeout=120)
        before_status, before_image = _panel_ready(page)
        turn = Turn(name, "k", "right")
        value = _turn(page, turn, _knob_value(before_status, "k"))
        with pytest.raises(AssertionError, match=BROKEN[how][1]):
            _wait_for_figure(page, "k", value, before_image)
    finally:
        _shutdown(page)
        page.close()
