"""A JupyterLab server on a loopback port, over a temporary copy of the notebooks, and the
steps a learner takes in it: open a notebook, run all its cells, find its panel.

The copy keeps the committed notebooks as they are (their outputs are never rewritten
here); the notebooks find ``../figures`` beside the copy, as they do in the repository.
JupyterLab runs with a fresh settings and workspace folder, no announcements and no
update check (the network is closed), and the application object exposed in the page so
a test can tell when every cell has run.

Also: run one cell (after writing its source) and read its output, write a small
notebook for a test (the widget tests).

Not here: the browser (conftest.py) and the assertions (test_lab.py, test_widget*.py).
"""

from __future__ import annotations

import os
import secrets
import shutil
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

CELL_STATE = """() => {
  const panel = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  if (!panel || !panel.content || !panel.sessionContext) return null;
  const code = panel.content.widgets.filter(c => c.model.type === 'code');
  const errors = [];
  code.forEach((c, i) => {
    for (const o of c.model.outputs.toJSON()) {
      if (o.output_type === 'error') errors.push(`cell ${i}: ${o.ename}: ${o.evalue}`);
      if (o.output_type === 'stream' && o.name === 'stderr')
        errors.push(`cell ${i} wrote to stderr: ${String(o.text).slice(0, 300)}`);
    }
  });
  const kernel = panel.sessionContext.session && panel.sessionContext.session.kernel;
  return {cells: code.length, run: code.filter(c => c.model.executionCount !== null).length,
          kernel: kernel ? kernel.status : 'none', errors};
}"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    """``jupyter lab`` serving `root` on 127.0.0.1 (start with `start`, end with `stop`)."""

    def __init__(self, root: Path, log: Path) -> None:
        self.root, self.log = root, log
        self.port = _free_port()
        self.token = secrets.token_hex(16)
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 90) -> None:
        jupyter = Path(sys.executable).with_name("jupyter")
        home = self.root / ".lab"
        notify = home / "settings" / "@jupyterlab" / "apputils-extension"
        notify.mkdir(parents=True, exist_ok=True)  # no "get Jupyter news?" toast on the page
        (notify / "notification.jupyterlab-settings").write_text(
            '{"fetchNews": "false", "checkForUpdates": false}', encoding="utf-8")
        env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(home / "settings"),
               "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces")}
        args = [str(jupyter), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
                f"--ServerApp.port={self.port}", "--ServerApp.port_retries=0",
                f"--IdentityProvider.token={self.token}", f"--ServerApp.root_dir={self.root}",
                "--LabApp.expose_app_in_browser=True", "--LabApp.news_url=None",
                "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"]
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            args.append("--allow-root")
        with self.log.open("wb") as f:
            self.proc = subprocess.Popen(args, stdout=f, stderr=subprocess.STDOUT, env=env,
                                         cwd=self.root)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"jupyter lab exited with {self.proc.returncode}; "
                                   f"its log: {self.log}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}",
                                            timeout=2):
                    return
            except (urllib.error.URLError, OSError):
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"jupyter lab did not answer in {timeout:.0f} s; its log: {self.log}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def copy_notebooks(src: Path, root: Path) -> Path:
    """Copy ``src/*.ipynb`` into ``root/notebooks`` (and make ``root/figures``)."""
    dest = root / "notebooks"
    dest.mkdir(parents=True)
    (root / "figures").mkdir()
    for nb in sorted(src.glob("*.ipynb")):
        shutil.copy2(nb, dest / nb.name)
    return dest


def open_notebook(page: Any, lab: Lab, name: str) -> None:
    """Open notebook `name` in JupyterLab and wait for its kernel to be idle."""
    page.goto(f"{lab.url}/lab/tree/notebooks/{name}?token={lab.token}&reset",
              wait_until="domcontentloaded")
    page.wait_for_function("() => window.jupyterapp && window.jupyterapp.shell.currentWidget"
                           " && window.jupyterapp.shell.currentWidget.sessionContext", timeout=90_000)
    wait_idle(page, timeout=120)


def wait_idle(page: Any, timeout: float) -> dict[str, Any]:
    """Poll the notebook until its kernel is idle with nothing queued; return its state."""
    deadline = time.monotonic() + timeout
    state: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        state = page.evaluate(CELL_STATE)
        if state and state["kernel"] == "idle":
            return state
        page.wait_for_timeout(500)
    raise AssertionError(f"the kernel did not become idle in {timeout:.0f} s: {state}")


def run_all(page: Any, timeout: float) -> dict[str, Any]:
    """Clear every output, run every cell (JupyterLab's Edit > Clear Outputs of All Cells,
    then Run > Run All Cells) and wait until all have run; return the notebook's state
    (cells, cells run, errors)."""
    page.evaluate("window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function(f"() => ({CELL_STATE})().run === 0")
    page.evaluate("window.jupyterapp.commands.execute('notebook:run-all-cells')")
    deadline = time.monotonic() + timeout
    state: dict[str, Any] | None = None
    while time.monotonic() < deadline:
        state = page.evaluate(CELL_STATE)
        if state and state["errors"]:
            return state
        if state and state["run"] == state["cells"] and state["kernel"] == "idle":
            return state
        page.wait_for_timeout(1000)
    raise AssertionError(f"Run All did not finish in {timeout:.0f} s: {state}")


def cell_outputs(page: Any, index: int) -> list[dict[str, Any]]:
    """The outputs of code cell `index` (0-based among all cells) as nbformat JSON."""
    return page.evaluate("""(i) => {
      const panel = window.jupyterapp.shell.currentWidget;
      return panel.content.widgets[i].model.outputs.toJSON();
    }""", index)


def run_cell(page: Any, index: int, source: str | None = None, timeout: float = 60) -> str:
    """Run cell `index` of the open notebook (after replacing its source with `source`,
    when given), wait until the kernel is idle with that cell run, and return its text
    output (stdout, and any text/plain result)."""
    page.evaluate("""([i, src]) => {
      const panel = window.jupyterapp.shell.currentWidget;
      const cell = panel.content.widgets[i];
      if (src !== null) cell.model.sharedModel.setSource(src);
      cell.model.outputs.clear();
      cell.model.executionCount = null;
      panel.content.activeCellIndex = i;
      return window.jupyterapp.commands.execute('notebook:run-cell');
    }""", [index, source])
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        done = page.evaluate("""(i) => {
          const panel = window.jupyterapp.shell.currentWidget;
          const k = panel.sessionContext.session && panel.sessionContext.session.kernel;
          return panel.content.widgets[i].model.executionCount !== null && k && k.status === 'idle';
        }""", index)
        if done:
            break
        page.wait_for_timeout(200)
    else:
        raise AssertionError(f"cell {index} did not finish in {timeout:.0f} s")
    text = []
    for o in cell_outputs(page, index):
        if o.get("output_type") == "stream":
            text.append("".join(o["text"]) if isinstance(o["text"], list) else o["text"])
        elif o.get("output_type") == "error":
            raise AssertionError(f"cell {index}: {o.get('ename')}: {o.get('evalue')}")
        elif "text/plain" in o.get("data", {}):
            t = o["data"]["text/plain"]
            text.append("".join(t) if isinstance(t, list) else t)
    return "".join(text)


def write_notebook(path: Path, cells: list[str]) -> None:
    """A notebook of code cells with the given sources, for a test to open in the lab."""
    import nbformat  # lazy: the browser extra's; the rest of this module needs none of it

    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(c) for c in cells]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                 "language": "python"}
    nbformat.write(nb, path)
