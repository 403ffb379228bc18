"""tools/execute_notebooks.py keeps a committed output byte for byte when the new one
differs only in what nbval's sanitizers mask (timings, temporary paths) or in a widget's
random model id, keeps a `volatile` cell's measurement while its code is unchanged, and
takes every other new output: so re-running an unchanged notebook changes no file."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]


def tool():
    spec = importlib.util.spec_from_file_location("execute_notebooks",
                                                  ROOT / "tools" / "execute_notebooks.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _nb(*cells):
    nb = nbformat.v4.new_notebook()
    for i, (source, text, tags) in enumerate(cells):
        c = nbformat.v4.new_code_cell(source)
        c.id = f"c{i}"
        c.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
        c.metadata["tags"] = list(tags)
        nb.cells.append(c)
    return nb


def test_equivalent_outputs_keep_their_committed_bytes_and_real_changes_are_taken():
    t = tool()
    subs = t.sanitizers()
    old = _nb(("run()", "took 3.2 s in /tmp/abc/x\n", ()), ("print(sr)", "SR 56.00\n", ()),
              ("lat()", "latency 5.1 ms\n", ("volatile",)),
              ("show()", '{"model_id": "' + "a" * 32 + '"}\n', ()))
    new = _nb(("run()", "took 4.9 s in /tmp/xyz/x\n", ()), ("print(sr)", "SR 57.00\n", ()),
              ("lat()", "latency 7.4 ms\n", ("volatile",)),
              ("show()", '{"model_id": "' + "b" * 32 + '"}\n', ()))
    assert t.keep_unchanged(old, new, subs) == 1  # only the SR really changed
    assert new.cells[0].outputs == old.cells[0].outputs  # a timing and a temp path
    assert new.cells[1].outputs[0]["text"] == "SR 57.00\n"
    assert new.cells[2].outputs == old.cells[2].outputs  # volatile, code unchanged
    assert new.cells[3].outputs == old.cells[3].outputs  # a widget's model id


def test_a_changed_cell_source_takes_its_new_outputs_and_the_run_time_is_written():
    t = tool()
    old = _nb(("lat()", "latency 5.1 ms\n", ("volatile",)))
    new = _nb(("lat(2)", "latency 7.4 ms\n", ("volatile",)))
    assert t.keep_unchanged(old, new, t.sanitizers()) == 1
    assert new.cells[0].outputs[0]["text"] == "latency 7.4 ms\n"
    head = nbformat.v4.new_notebook()
    head.cells.append(nbformat.v4.new_markdown_cell(
        "> **Study time:** about 60 min.  \n"
        "> **Compute time:** about 40 s alone, 60 s with two at once (2 CPU cores)."))
    assert t.write_run_time(head, 12.6) and "about 15 s alone, 60 s with two" in head.cells[0].source
    assert not t.write_run_time(head, 14.0)  # rounds to the same 15 s: nothing to write
    assert t.write_run_time(head, 31, workers=2)
    assert "about 15 s alone, 30 s with two at once" in head.cells[0].source
    assert "Study time:** about 60 min" in head.cells[0].source  # written by hand, kept


def test_a_print_cut_into_chunks_is_one_output_and_keeps_the_committed_bytes():
    """How the kernel cuts a print into stream chunks depends on the machine's load: the
    chunks are joined, and equal to the committed output, which is kept."""
    t = tool()
    old = _nb(("show()", "s9 'a merged skill'\n", ()))
    new = _nb(("show()", "s9", ()))
    new.cells[0].outputs.append(nbformat.v4.new_output("stream", name="stdout",
                                                       text=" 'a merged skill'\n"))
    assert t.keep_unchanged(old, new, t.sanitizers()) == 0
    assert new.cells[0].outputs == old.cells[0].outputs


def test_a_widget_view_keeps_its_committed_bytes_whatever_its_key_order():
    """A panel's output: the kernel sends the view's keys in its own order, the committed
    file holds them sorted, and the model id is random on every run."""
    t = tool()

    def panel(view):
        nb = nbformat.v4.new_notebook()
        c = nbformat.v4.new_code_cell("panel()")
        c.id = "p"
        c.outputs = [nbformat.v4.new_output("execute_result", execution_count=3, data={
            "application/vnd.jupyter.widget-view+json": view, "text/plain": "VBox()"})]
        nb.cells.append(c)
        return nb

    old = panel({"model_id": "a" * 32, "version_major": 2, "version_minor": 0})
    new = panel({"version_major": 2, "version_minor": 0, "model_id": "b" * 32})
    assert t.keep_unchanged(old, new, t.sanitizers()) == 0
    assert new.cells[0].outputs == old.cells[0].outputs
