"""explore.py: short SkillWorld runs with chosen knobs, and the ipywidgets panel that
re-runs one per change (driven here by setting a control's value, as a click would)."""

from __future__ import annotations

import pytest

from hyperskill_lite.explore import KNOBS, Exploration, panel, short_run


def test_short_run_applies_its_knobs():
    x = short_run(episodes=20, k=3, rho=0.2, phrasing="curated", seed=1)
    assert isinstance(x, Exploration) and len(x.records) == 20
    assert x.knobs == {**KNOBS, "episodes": 20, "k": 3, "rho": 0.2, "phrasing": "curated",
                       "seed": 1}
    cfg = x.system.memory.config
    assert (cfg.k_u, cfg.k_e, cfg.k_s, cfg.rho) == (3, 3, 3, 0.2)
    assert x.summary["SR"] == pytest.approx(
        100 * sum(r["success"] for r in x.records) / 20
    )
    # maintenance every ceil(0.1 * 20) = 2 tasks: ten cycles, each recorded
    assert sum(1 for r in x.records if r.get("maintenance")) == 10
    assert x.dedups >= 0 and x.merges >= 0
    # the same knobs give the same run
    assert short_run(episodes=20, k=3, rho=0.2, phrasing="curated", seed=1).records[-1][
        "success"
    ] == x.records[-1]["success"]


def test_short_run_refuses_unknown_knobs_and_values():
    with pytest.raises(ValueError, match=r"unknown knob\(s\) \['kk'\]"):
        short_run(kk=2)
    with pytest.raises(ValueError, match="profile must be one of"):
        short_run(profile="mars")
    with pytest.raises(ValueError, match="phrasing must be one of"):
        short_run(phrasing="poetic")


def test_panel_reruns_and_redraws_on_every_change():
    pytest.importorskip("ipywidgets")
    seen: list[dict] = []

    def draw(x: Exploration) -> str:
        seen.append(x.knobs)
        return f"SR {x.summary['SR']:.1f}"

    box = panel(draw, episodes=20)
    assert [s["episodes"] for s in seen] == [20]  # the default drawn once at build time
    k_slider = next(c for row in box.children[:3] for c in row.children if c.description == "k")
    k_slider.value = 4
    assert len(seen) == 2 and seen[-1]["k"] == 4 and seen[-1]["episodes"] == 20


def test_a_panel_offers_only_the_methods_its_drawing_can_draw():
    """Notebook 03's drawing reads `x.system.memory` (a HypergraphMemory): its panel offers
    `hypergraph_methods()`, and every one of them gives a run that has that memory."""
    pytest.importorskip("ipywidgets")
    from hyperskill_lite.core.memory import HypergraphMemory
    from hyperskill_lite.explore import hypergraph_methods

    offered = hypergraph_methods()
    assert "hyperskill" in offered and "flat" in offered
    assert "no-memory" not in offered and "memp" not in offered

    drawn = []

    def draw(x: Exploration) -> str:
        assert isinstance(x.system.memory, HypergraphMemory)  # what 03's draw_kappa reads
        drawn.append(x.knobs["method"])
        return x.knobs["method"]

    box = panel(draw, methods=offered, episodes=20)
    dropdown = next(c for row in box.children[:3] for c in row.children
                    if c.description == "method")
    assert list(dropdown.options) == offered
    for method in offered:  # each one draws without an error in the callback
        dropdown.value = method
    assert sorted(set(drawn)) == offered  # a callback that raised would not have drawn
    status = box.children[3].value
    assert status.startswith("showing:") and f"method = {offered[-1]}" in status
    with pytest.raises(ValueError, match="hold the default method"):
        panel(draw, methods=["flat"], episodes=20)
