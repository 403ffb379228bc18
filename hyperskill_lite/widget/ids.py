"""Widget model ids that are the same every time a notebook runs.

ipywidgets names each widget model with a random id (``uuid4().hex``) unless it is given
one. A notebook's outputs and its saved widget state (``metadata.widgets``) hold those
ids, so an executed notebook would differ from the committed one on every run, and a
cell whose output was kept (tools/execute_notebooks.py keeps equivalent outputs) would
name a model the new saved state no longer has. `model_id` gives the n-th widget model
this kernel makes an id derived from n alone: executing a notebook top to bottom makes
the same ids on any machine, and within one kernel they never repeat.

Not here: the widget (model.py).
"""

from __future__ import annotations

import hashlib
import itertools

__all__ = ["model_id"]

_COUNT = itertools.count()


def model_id(role: str) -> str:
    """The next model id of this kernel: 32 hex digits (the form ipywidgets' random ids
    have, so the tools that mask those mask these too) from `role` ("memory", "layout")
    and how many ids this kernel made before.

    >>> a, b = model_id("memory"), model_id("memory")
    >>> len(a) == 32 and a != b and int(a, 16) >= 0
    True
    """
    n = next(_COUNT)
    return hashlib.sha256(f"hyperskill_lite.widget/{role}/{n}".encode()).hexdigest()[:32]
