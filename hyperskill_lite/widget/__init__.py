"""The memory widget: a memory or a run, interactive, in the notebook (JupyterLab 4,
VS Code, Colab), what the user picks there back in Python (``w = show(run); w`` then
``w.selected``). docs/guide/studio.md, "The widget"; notebook 10.

===================  ====================================================================
module               what it holds
===================  ====================================================================
show.py              `show`: the widget of a memory, a saved memory or a run folder
source.py            what a widget shows (the studio's run view, built by studio/) and
                     what it reads later: checkpoints' memories, retrievals, details
model.py             `MemoryWidget` (anywidget): traits both ways, the static copy first
static.py            the static copy: a PNG of the drawing and one line of text
ids.py               widget model ids that are the same on every run of a notebook
===================  ====================================================================

The browser side is the studio page's own script (studio/templates/view.js) with the
widget's glue (widget.js): the page and the widget share one data model and one script.
The page (``python -m hyperskill_lite inspect RUN``) stays the way to share a run. Our
addition: the paper has no such tool.

May import: core, types, runner, studio. Not here: the data model and the drawing's
script (studio/), running anything.
"""

from hyperskill_lite.widget.show import show

__all__ = ["show"]
