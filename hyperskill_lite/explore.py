"""A world the learner can turn: short SkillWorld runs with chosen knobs, and a panel of
ipywidgets controls that re-runs one and redraws.

`short_run(**knobs)` runs one memory method for a few dozen SkillWorld episodes in a
scratch directory and returns an `Exploration` (the records, the memory system, the
summary). The knobs are the ones the notebooks discuss: retrieval budget k, the
maintenance ratio rho, beta, delta_dedup, delta_merge, the world's phrasing variant,
profile, seed and method. With the hashing encoder (the default here) a 60-episode run
answers in a second or two; with MiniLM it is fast once its embedding cache is warm.

`panel(draw, methods=None, **defaults)` builds the controls: each change re-runs
`short_run` and calls ``draw(exploration)`` to redraw. `methods` limits the method
dropdown to the ones `draw` can draw: a drawing that reads the hypergraph passes
`hypergraph_methods()` (HyperSkill, its ablations, flat retrieval), since the baselines
and no-memory keep no `HypergraphMemory`. In a notebook, a plain cell draws the default settings as
a static figure (what nbval checks); the panel cell beside it carries
``# NBVAL_IGNORE_OUTPUT`` because a widget's output is live. A status line under the
controls says which knobs the figure below it shows (`describe`), or that a run is under
way; the panel's parts carry stable CSS classes (``hsl-panel``, ``hsl-knob-<name>``,
``hsl-panel-status``, ``hsl-panel-output``) so a browser test can find them
(tests/browser/).

May import: everything but the CLI. Not here: the plots themselves (plots/), the
runner's logic (runner/).
"""

from __future__ import annotations

import html
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperskill_lite.core.embed import encoder_by_name
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.launch import RunSpec, execute, prepare
from hyperskill_lite.methods import METHODS
from hyperskill_lite.methods.registry import make_method
from hyperskill_lite.protocol import PAPER_ORDER_SEED, EvalProtocol
from hyperskill_lite.runner.summary import summarize
from hyperskill_lite.types import KeepsHypergraph, MemorySystem
from hyperskill_lite.world.generator import PROFILES
from hyperskill_lite.world.params import PHRASINGS
from hyperskill_lite.world.simllm import SimLLM

__all__ = ["Exploration", "KNOBS", "describe", "hypergraph_methods", "short_run", "panel"]

KNOBS: dict[str, Any] = {
    "method": "hyperskill",
    "profile": "gaia",
    "seed": 0,
    "episodes": 60,
    "k": 2,
    "rho": 0.1,
    "beta": 0.7,
    "delta_dedup": 0.9,
    "delta_merge": 0.85,
    "phrasing": "calibrated",
    "encoder": "hashing",
}
"""The knobs `short_run` takes, with their defaults (the paper's values for the
hyperparameters)."""


@dataclass
class Exploration:
    """One short run: its `knobs`, the episode `records`, the memory `system` at the end
    and the Table-1 `summary` (runner.summarize)."""

    knobs: dict[str, Any]
    records: list[dict[str, Any]]
    system: MemorySystem
    summary: dict[str, float] = field(default_factory=dict)

    @property
    def dedups(self) -> int:
        """Skills joined into an existing node at insertion, over the run."""
        return sum((r.get("update") or {}).get("dedup", 0) for r in self.records)

    @property
    def merges(self) -> int:
        """Structure-informed merges over the run's maintenance cycles."""
        return sum((r.get("maintenance") or {}).get("merged", 0) for r in self.records)


def short_run(order_seed: int = PAPER_ORDER_SEED, **knobs: Any) -> Exploration:
    """Run one method for a few SkillWorld episodes with the given knobs (`KNOBS`), in the
    task order of `order_seed` (42, the paper's, by default), as the `run` command would
    (a `launch.RunSpec` through `launch.execute`) in a scratch folder."""
    unknown = set(knobs) - set(KNOBS)
    if unknown:
        raise ValueError(f"short_run: unknown knob(s) {sorted(unknown)}; known: {sorted(KNOBS)}")
    k = {**KNOBS, **knobs}
    if k["profile"] not in PROFILES:
        raise ValueError(f"short_run: profile must be one of {PROFILES}, got {k['profile']!r}")
    if k["phrasing"] not in PHRASINGS:
        raise ValueError(f"short_run: phrasing must be one of {PHRASINGS}, got {k['phrasing']!r}")
    scratch = "/dev/shm" if Path("/dev/shm").is_dir() else None
    with tempfile.TemporaryDirectory(dir=scratch) as d:
        spec = RunSpec(out=Path(d) / "run", method=k["method"], seed=int(k["seed"]),
                       episodes=int(k["episodes"]), encoder=k["encoder"], k=int(k["k"]),
                       rho=k["rho"], profile=k["profile"], phrasing=k["phrasing"],
                       overrides={"beta": k["beta"], "delta_dedup": k["delta_dedup"],
                                  "delta_merge": k["delta_merge"]},
                       evaluation=EvalProtocol(order_seed=int(order_seed)),
                       progress=False, durable=False)
        parts = prepare(spec)
        records = execute(parts)
    return Exploration(k, records, parts.system, summarize(records))


def hypergraph_methods() -> list[str]:
    """The registered methods whose system keeps a `HypergraphMemory` (``system.memory``),
    sorted: what a drawing of the hypergraph can show. Found by building each method
    once with the hashing encoder (no run).

    >>> "hyperskill" in hypergraph_methods() and "no-memory" not in hypergraph_methods()
    True
    """
    encoder = encoder_by_name("hashing")
    return sorted(m for m in METHODS
                  if _keeps_hypergraph(make_method(m, SimLLM(seed=0), encoder)))


def _keeps_hypergraph(system: Any) -> bool:
    return isinstance(system, KeepsHypergraph) and isinstance(system.memory, HypergraphMemory)


def describe(knobs: dict[str, Any]) -> str:
    """One line naming the knobs of a run, in `KNOBS` order (what the panel's status line
    shows).

    >>> describe({"k": 3, "delta_merge": 0.80, "method": "flat"})
    'method = flat · k = 3 · delta_merge = 0.8'
    """
    def fmt(v: Any) -> str:
        return f"{v:g}" if isinstance(v, float) else str(v)

    return " · ".join(f"{name} = {fmt(knobs[name])}" for name in KNOBS if name in knobs)


def panel(draw: Callable[[Exploration], Any], methods: Sequence[str] | None = None,
          **defaults: Any) -> Any:
    """ipywidgets controls for every knob; each change re-runs `short_run` and calls
    `draw` on the result inside the panel's output area. `methods`: the methods the
    dropdown offers (default: every registered one); the default method must be among
    them. Returns the panel (a VBox)."""
    import ipywidgets as w
    from IPython.display import display

    k = {**KNOBS, **defaults}
    offered = sorted(METHODS) if methods is None else list(methods)
    unknown = set(offered) - set(METHODS)
    if unknown or k["method"] not in offered:
        raise ValueError(f"panel: methods must be registered and hold the default method "
                         f"{k['method']!r}; got {offered}")

    controls = {
        "method": w.Dropdown(options=offered, value=k["method"], description="method"),
        "profile": w.Dropdown(options=list(PROFILES), value=k["profile"], description="profile"),
        "phrasing": w.Dropdown(options=list(PHRASINGS), value=k["phrasing"],
                               description="phrasing"),
        "seed": w.IntSlider(value=k["seed"], min=0, max=9, description="seed"),
        "episodes": w.IntSlider(value=k["episodes"], min=20, max=170, step=10,
                                description="episodes"),
        "k": w.IntSlider(value=k["k"], min=1, max=8, description="k"),
        "rho": w.FloatSlider(value=k["rho"], min=0.0, max=0.5, step=0.05, description="rho"),
        "beta": w.FloatSlider(value=k["beta"], min=0.0, max=1.0, step=0.05, description="beta"),
        "delta_dedup": w.FloatSlider(value=k["delta_dedup"], min=0.7, max=1.0, step=0.01,
                                     description="δ_dedup"),
        "delta_merge": w.FloatSlider(value=k["delta_merge"], min=0.6, max=1.0, step=0.01,
                                     description="δ_merge"),
    }
    out = w.Output()
    status = w.HTML(value="", layout=w.Layout(width="100%"))  # HTML wraps; a Label would not
    for name, c in controls.items():
        c.add_class(f"hsl-knob-{name}")
    out.add_class("hsl-panel-output")
    status.add_class("hsl-panel-status")

    def rerun(*_: Any) -> None:
        # a float slider snaps to min + n * step: 0.7 + 20 * 0.01 is 0.8999999999999999
        knobs = {name: round(c.value, 10) if isinstance(c.value, float) else c.value
                 for name, c in controls.items()}
        knobs["encoder"] = k["encoder"]
        status.value = html.escape(f"running: {describe(knobs)} ...")
        with out:  # an error in draw shows its traceback here, and the status stays "running"
            out.clear_output(wait=True)
            x = short_run(**knobs)
            display(draw(x))
            status.value = html.escape(f"showing: {describe(x.knobs)}")

    for c in controls.values():
        c.observe(rerun, names="value")
    rerun()
    rows = list(controls.values())
    box = w.VBox([w.HBox(rows[:4]), w.HBox(rows[4:7]), w.HBox(rows[7:]), status, out])
    box.add_class("hsl-panel")
    return box
