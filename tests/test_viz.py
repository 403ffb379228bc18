"""Tests of the viz helpers that compute something (subgraph pick, incidence table,
cosine matrix, gamma grid, rankings, maintenance totals, spread) and smoke tests of the
drawings on the Agg backend. HashingEncoder only: no MiniLM here."""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from hyperskill_lite import plots as viz
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.core.retrieval import retrieve
from hyperskill_lite.core.utility import utility

A = Skill("Cross Source Validation", "Confirm a figure in two sources.")
B = Skill("Targeted Database Search", "Query the registry with exact identifiers.")
C = Skill("Compute With Code", "Do arithmetic in Python.")
M = Skill("Premature Entity Assumption", "Do not commit to the first match.", "failure")


@pytest.fixture()
def memory() -> HypergraphMemory:
    """e1 {A, B} ok, e2 {B, C} ok, e3 {M} failed, e4 {A, B, C} ok, e5 (no skills) ok."""
    mem = HypergraphMemory(HashingEncoder(dim=64))
    rows = [
        ("task one", ["step a"], [A, B], True, 3),
        ("task two", ["step b", "step c"], [B, C], True, 4),
        ("task three", ["step d"], [M], False, 8),
        ("task four", ["step e"], [A, B, C], True, 5),
        ("task five", ["step f"], [], True, 2),
    ]
    for task, plan, skills, ok, steps in rows:
        mem.add_trajectory(task, plan, skills, "lesson", success=ok, steps=steps)
    return mem


def test_node_role():
    assert [viz.node_role(i, p) for i, p in [("u1", None), ("s2", "success"), ("s3", "failure")]] == [
        "subtask",
        "skill",
        "mistake",
    ]


def test_representative_edges_hand_worked(memory):
    # skill ids: A=s1, B=s2, C=s3, M=s4; degrees A 2, B 3, C 2, M 1.
    # e4 {A,B,C} has the largest summed degree (7) -> first; then e1 and e2 share 2 skills
    # each with {A,B,C}; both have 2 skills -> earlier id e1; then e2. All three are
    # successes, so the last pick is swapped for the only failed trajectory, e3.
    assert viz.representative_edges(memory, 3) == ["e4", "e1", "e3"]
    assert viz.representative_edges(memory, 2) == ["e4", "e3"]
    # n = 4: e4, e1, e2, then e3 (the only one left with skills); no swap needed
    assert viz.representative_edges(memory, 4) == ["e4", "e1", "e2", "e3"]
    assert viz.representative_edges(memory, 10) == ["e4", "e1", "e2", "e3"]  # e5 has no skill


def test_representative_edges_swaps_in_a_failure():
    mem = HypergraphMemory(HashingEncoder(dim=64))
    for task, skills, ok in [("t1", [A, B], True), ("t2", [A, B], True), ("t3", [A, M], False)]:
        mem.add_trajectory(task, ["s"], skills, "l", success=ok, steps=3)
    # greedy picks e1 then e2 (shares 2); the swap replaces e2 by the failed e3
    assert viz.representative_edges(mem, 2) == ["e1", "e3"]


def test_representative_edges_errors_and_empty(memory):
    with pytest.raises(ValueError, match="n must be >= 1"):
        viz.representative_edges(memory, 0)
    assert viz.representative_edges(HypergraphMemory(HashingEncoder(dim=16)), 3) == []


def test_incidence_table_matches_naive(memory):
    B, rows, cols = viz.incidence_table(memory)
    assert cols == memory.edge_ids()
    naive = [[int(n in memory.edge(e).node_ids) for e in cols] for n in rows]
    assert B.tolist() == naive
    assert B.dtype == np.int8
    # every node of the memory is in some hyperedge here, subtasks first
    assert rows == memory.node_ids()
    B2, rows2, cols2 = viz.incidence_table(memory, ["e3"])
    assert (rows2, cols2, B2.tolist()) == (["u4", "s4"], ["e3"], [[1], [1]])


def test_cosine_matrix_against_naive_and_errors():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(5, 3))
    Z[2] = 0.0
    S = viz.cosine_matrix(Z)
    for i, j in itertools.product(range(5), repeat=2):
        ni, nj = np.linalg.norm(Z[i]), np.linalg.norm(Z[j])
        want = 0.0 if ni == 0 or nj == 0 else float(Z[i] @ Z[j] / (ni * nj))
        assert S[i, j] == pytest.approx(want, abs=1e-12)
    with pytest.raises(ValueError, match="must be 2-D"):
        viz.cosine_matrix(np.ones(3))


def test_gamma_grid_matches_utility_and_hand_value():
    rates, steps = [0.0, 0.5, 1.0], [2.0, 5.0, 8.0, 11.0]
    G = viz.gamma_grid(rates, steps, t_min=2, t_max=11, beta=0.7, nu=4)
    assert G.shape == (4, 3)
    for (i, s), (j, r) in itertools.product(enumerate(steps), enumerate(rates)):
        assert G[i, j] == pytest.approx(utility([r * 4], [4], [s], 2, 11, beta=0.7)[0])
    # hand-worked: rate 0.5, 5 steps in [2, 11]: 0.7 * 0.5 + 0.3 * (1 - 3 / 9) = 0.55
    assert G[1, 1] == pytest.approx(0.55)


def test_rank_comparison_on_a_real_retrieval(memory):
    r = retrieve(memory, "task four", ["step e"], k_u=2, k_e=2, k_s=2)
    rows = viz.rank_comparison(r, {"s1": "A"})
    assert [x["id"] for x in rows] == list(r.kappa)
    assert [x["rank_kappa"] for x in rows] == list(range(1, len(rows) + 1))
    assert sorted(x["rank_cosine"] for x in rows) == list(range(1, len(rows) + 1))
    by_cos = sorted(rows, key=lambda x: (-x["cosine"], int(x["id"][1:])))
    assert [x["rank_cosine"] for x in by_cos] == list(range(1, len(rows) + 1))
    assert {x["id"] for x in rows if x["in_S_q"]} == set(r.skill_ids)
    assert next(x for x in rows if x["id"] == "s1")["name"] == "A"
    flat = retrieve(memory, "task four", mode="flat")
    with pytest.raises(ValueError, match="flat"):
        viz.rank_comparison(flat)


def test_maintenance_totals_and_mean_spread():
    recs = [{"maintenance": None}, {"maintenance": {"pruned": 1, "merged": 0}}, {}]
    pruned, merged = viz.maintenance_totals(recs)
    assert pruned.tolist() == [0, 1, 1] and merged.tolist() == [0, 0, 0]
    mean, std, lo, hi = viz.mean_spread(np.array([[1.0, 2.0, 6.0]]))
    assert (mean[0], lo[0], hi[0]) == (3.0, 1.0, 6.0)
    assert std[0] == pytest.approx(np.sqrt(((1 - 3) ** 2 + (2 - 3) ** 2 + (6 - 3) ** 2) / 2))
    assert viz.mean_spread(np.array([[5.0]]))[1].tolist() == [0.0]
    with pytest.raises(ValueError, match="n_settings, n_seeds"):
        viz.mean_spread(np.array([1.0, 2.0]))


def test_draw_hypergraph_styles_edges_and_nodes(memory):
    fig, ax = plt.subplots()
    try:
        viz.draw_hypergraph(memory, ["e1", "e3"], ax=ax, seed=1)
        labels = [t.get_text() for t in ax.get_legend().get_texts()]
        assert labels == ["success trajectory", "failure trajectory", "skill (success)",
                          "mistake (failure)", "subtask"]
        markers = {line.get_marker(): line.get_markeredgecolor() for line in ax.lines}
        assert markers == {"D": viz.COLORS["success_edge"], "s": viz.COLORS["failure_edge"]}
        texts = {t.get_text() for t in ax.texts}
        assert {"e1", "e3", "Cross Source\nValidation"} <= texts  # wrapped, not cut
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="no hyperedge with nodes"):
        viz.draw_hypergraph(memory, [])


def test_plot_helpers_validate_shapes(memory):
    with pytest.raises(ValueError, match="labels give"):
        viz.plot_heatmap(np.zeros((2, 2)), ["a"])
    with pytest.raises(ValueError, match="one length"):
        viz.plot_prune_map([1, 2], [0.1], [True, False])
    fig, axes = plt.subplots(1, 3)
    try:
        viz.plot_incidence(memory, ax=axes[0])
        assert len(axes[0].collections[0].get_offsets()) == int(viz.incidence_table(memory)[0].sum())
        viz.plot_prune_map([1, 4], [0.1, 0.1], [False, True], ax=axes[1])
        assert len(axes[1].collections) == 2
        G = viz.gamma_grid(np.linspace(0, 1, 5), np.linspace(2, 10, 5), 2, 10)
        viz.plot_gamma_surface(np.linspace(0, 1, 5), np.linspace(2, 10, 5), G, ax=axes[2])
        assert axes[2].get_xlabel() == "success rate sigma / nu"
    finally:
        plt.close(fig)


def test_method_colors_are_distinct_and_stable():
    from hyperskill_lite.methods import METHODS

    assert set(METHODS) <= set(viz.METHOD_COLORS)  # every registered method has its colour
    assert len(set(viz.METHOD_COLORS.values())) == len(viz.METHOD_COLORS)
    assert viz.method_color("someone-elses") == viz.method_color("someone-elses")


def test_place_labels_never_overlaps_in_a_crowd():
    rng = np.random.default_rng(3)
    xs, ys = rng.uniform(0, 1, 14), rng.uniform(0, 1, 14)
    xs[1], ys[1] = xs[0] + 0.01, ys[0]  # two points almost on top of each other
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.scatter(xs, ys, s=100)
    ax.set_xlim(-0.3, 1.3)
    ax.set_ylim(-0.3, 1.3)
    texts = viz.place_labels(ax, xs, ys, [f"method-{i}" for i in range(14)], radii_pt=np.sqrt(100 / np.pi))
    r = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(r) for t in texts]
    assert sorted(t.get_text() for t in texts) == sorted(f"method-{i}" for i in range(14))
    assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    plt.close(fig)


def test_plot_cost_bubbles_areas_follow_sr_per_token():
    fig, ax = plt.subplots()
    viz.plot_cost_bubbles(["hyperskill", "awm", "no-memory"], [60.0, 30.0, 30.0],
                          [2000.0, 2000.0, 4000.0], ax=ax)
    drawn = {tuple(c.get_offsets()[0]): c for c in ax.collections[:3]}
    sizes = [drawn[(2.0, 60.0)].get_sizes()[0], drawn[(2.0, 30.0)].get_sizes()[0],
             drawn[(4.0, 30.0)].get_sizes()[0]]
    # SR / tokens: 30, 15 and 7.5 points per 1K tokens, areas min-max scaled between
    # BUBBLE_AREA: the largest ratio the largest bubble, the smallest the smallest
    lo, hi = viz.BUBBLE_AREA
    assert sizes == pytest.approx([hi, lo + (hi - lo) * (15 - 7.5) / (30 - 7.5), lo])
    edge = drawn[(2.0, 60.0)].get_edgecolor()[0][:3]
    assert edge == pytest.approx((0, 0, 0))  # highlighted
    assert ax.collections[2] is drawn[(2.0, 60.0)]  # drawn last, on top
    with pytest.raises(ValueError, match="one of each per method"):
        viz.plot_cost_bubbles(["a"], [1.0, 2.0], [1.0], ax=ax)
    with pytest.raises(ValueError, match="must be > 0"):
        viz.plot_cost_bubbles(["a"], [1.0], [0.0], ax=ax)
    plt.close(fig)


def test_hyperskill_is_drawn_on_top_and_its_ablations_apart():
    fig, ax = plt.subplots()
    recs = [{"success": i % 2 == 0} for i in range(6)]
    names = ["hyperskill", "hyperskill-no-subtask", "hyperskill-no-trajectory", "flat",
             "no-memory"]
    viz.plot_cumulative_sr({n: recs for n in names}, ax=ax)  # five identical curves
    lines = {ln.get_label(): ln for ln in ax.get_lines()}
    top = max(lines.values(), key=lambda ln: ln.get_zorder())
    assert top.get_label() == "hyperskill" and top.get_linewidth() > 2
    family = names[:4]
    assert len({lines[n].get_color() for n in family}) == 4  # four colours, four dashes
    assert len({str(lines[n]._unscaled_dash_pattern) for n in family}) == 4
    assert [t.get_text() for t in ax.get_legend().get_texts()] == names  # legend keeps order
    plt.close(fig)


def test_method_dots_zoom_to_the_data_and_mark_the_reference():
    fig, ax = plt.subplots()
    values = np.array([[58.0, 60.0], [47.0, 49.0], [55.0, 56.0]])
    viz.plot_method_dots(["memp", "no-memory", "hyperskill"], values, ax=ax)
    lo, hi = ax.get_xlim()
    assert 40 < lo < 47 and 60 < hi < 70  # not squeezed into 0-100
    assert any(abs(ln.get_xdata()[0] - 48.0) < 1e-9 for ln in ax.get_lines())  # reference
    with pytest.raises(ValueError, match="len\\(names\\)=3"):
        viz.plot_method_dots(["a", "b", "c"], values[:2], ax=ax)
    plt.close(fig)


def test_truncated_labels_never_read_alike():
    cut = viz.short_labels(["Query Specialised Data Sources", "Query Specialised Data Sets",
                            "Query Specialised Data Sources"], 26, ids=["s1", "s2", "s3"])
    assert len(set(cut)) == 3
    assert cut[0].endswith("(s1)") and cut[2].endswith("(s3)")


def test_save_figure_refuses_a_figure_wider_than_the_cap(tmp_path):
    wide, ok = plt.subplots(figsize=(16, 3))[0], plt.subplots(figsize=(12, 3))[0]
    try:
        with pytest.raises(ValueError, match=r"over the 1400 px cap; use a figure at most 12.7 in"):
            viz.save_figure(wide, tmp_path / "wide.png")
        assert not (tmp_path / "wide.png").exists()  # nothing written
        viz.save_figure(ok, tmp_path / "ok.png")
        from PIL import Image

        assert Image.open(tmp_path / "ok.png").size[0] <= viz.MAX_FIGURE_PX
    finally:
        plt.close(wide)
        plt.close(ok)


def test_every_committed_figure_fits_the_cap():
    from pathlib import Path

    from PIL import Image

    figures = sorted((Path(__file__).resolve().parents[1] / "figures").glob("*.png"))
    assert figures, "figures/ has no PNG"
    wide = {f.name: Image.open(f).size[0] for f in figures if Image.open(f).size[0] > viz.MAX_FIGURE_PX}
    assert not wide, f"figures wider than {viz.MAX_FIGURE_PX} px: {wide}"


def test_one_layout_before_and_after_a_merge_with_the_merged_node_ringed(memory):
    # merge A (s1) and B (s2): every hyperedge keeps its place, the new node sits midway
    pos = viz.hypergraph_layout(memory, seed=0)
    assert set(pos) == set(memory.edge_ids()) | set(memory.node_ids())  # every id placed
    new = memory.merge_nodes("s1", "s2", Skill("Validate And Search", "Both in one."))
    after = viz.carry_layout(pos, [{"a": "s1", "b": "s2", "new_id": new}])
    assert after[new] == pytest.approx((pos["s1"] + pos["s2"]) / 2)
    fig, ax = plt.subplots(figsize=(6, 5))
    try:
        viz.draw_hypergraph(memory, ["e1", "e2", "e4"], ax=ax, pos=after, highlight=[new],
                            highlight_label="merged skill")
        edge_markers = {tuple(np.round(line.get_xydata()[0], 9)) for line in ax.lines}
        assert edge_markers == {tuple(np.round(pos[e], 9)) for e in ("e1", "e2", "e4")}
        rings = [p for p in ax.patches if getattr(p, "get_radius", None)
                 and p.get_edgecolor()[:3] == pytest.approx(matplotlib.colors.to_rgb(viz.COLORS["highlight"]))]
        assert len(rings) == 1 and rings[0].center == pytest.approx(tuple(after[new]))
        assert "merged skill" in [t.get_text() for t in ax.get_legend().get_texts()]
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="pos places neither hyperedge e3"):
        viz.draw_hypergraph(memory, ["e3"], pos={"e1": np.zeros(2)})


def test_drawing_labels_do_not_overlap_each_other(memory):
    fig, ax = plt.subplots(figsize=(6, 5))
    try:
        viz.draw_hypergraph(memory, ax=ax, seed=0)
        r = fig.canvas.get_renderer()
        names = {memory.node(i).name[:20] for i in memory.node_ids(kind="skill")}  # labels cut at 36
        def text_box(t):  # the text alone, not its leader line, where it is drawn
            t.update_positions(r)
            return matplotlib.text.Text.get_window_extent(t, r)

        boxes = [text_box(t) for t in ax.texts if t.get_text().replace("\n", " ")[:20] in names]
        assert len(boxes) == len(names)
        assert not any(a.overlaps(b) for a, b in itertools.combinations(boxes, 2))
    finally:
        plt.close(fig)


def test_place_labels_keeps_clear_of_avoided_markers():
    fig, ax = plt.subplots(figsize=(4, 4))
    ax.set_xlim(0, 10)
    ax.set_ylim(0, 10)
    # a big marker to the right of the point: the label must go elsewhere
    (t,) = viz.place_labels(ax, [5.0], [5.0], ["label"], radii_pt=3.0, avoid=[(6.2, 5.0, 25.0)])
    r = fig.canvas.get_renderer()
    box = t.get_window_extent(r)
    cx, cy = ax.transData.transform((6.2, 5.0))
    rad = 25.0 * fig.dpi / 72.0
    assert box.x1 < cx - rad or box.x0 > cx + rad or box.y1 < cy - rad or box.y0 > cy + rad
    plt.close(fig)


def test_maintenance_ops_colour_by_operation_and_name_silent_series():
    runs = {"gaia": [{}, {"maintenance": {"pruned": 2, "merged": 0}}, {}],
            "xbench": [{}, {"maintenance": {"pruned": 1, "merged": 3}}, {}]}
    fig, ax = plt.subplots()
    try:
        viz.plot_maintenance_ops(runs, ax=ax)
        drawn = {line.get_label(): line for line in ax.lines}
        assert set(drawn) == {"gaia: pruned", "xbench: pruned", "xbench: merged"}
        assert drawn["xbench: merged"].get_color() == viz.OP_COLORS["merged"]
        assert drawn["gaia: pruned"].get_color() == drawn["xbench: pruned"].get_color()
        assert drawn["gaia: pruned"].get_linestyle() != drawn["xbench: pruned"].get_linestyle()
        assert any("gaia: merged" in t.get_text() for t in ax.texts)  # the all-zero series
    finally:
        plt.close(fig)


def test_paired_differences_and_prune_map_legends():
    fig, axes = plt.subplots(1, 2)
    try:
        viz.plot_paired_differences(["a", "b"], np.array([[1.0, 3.0], [-1.0, 0.0]]), ax=axes[0])
        assert [p.get_width() for p in axes[0].patches] == pytest.approx([2.0, -0.5])
        with pytest.raises(ValueError, match="must be"):
            viz.plot_paired_differences(["a"], np.zeros((2, 3)), ax=axes[0])
        viz.plot_prune_map([1, 4, 5], [0.9, 0.1, 0.5], [False, True, False],
                           roles=["subtask", "skill", "mistake"], ax=axes[1])
        labels = [t.get_text() for t in axes[1].get_legend().get_texts()]
        assert labels == ["kept mistake", "kept subtask", "pruned", "N_min = 3 (eligible right)",
                          "tau = 0.2"]
    finally:
        plt.close(fig)


def test_heatmap_wraps_long_labels_at_word_boundaries():
    fig, ax = plt.subplots()
    try:
        viz.plot_heatmap(np.eye(2), ["Premature Entity Assumption Under Pressure", "Short"], ax=ax)
        ticks = [t.get_text() for t in ax.get_yticklabels()]
        assert ticks[0] == "Premature Entity\nAssumption Under…" and ticks[1] == "Short"
    finally:
        plt.close(fig)


# --- figures designed for the site's column, byte-stable across runs -------------------

def test_heatmap_values_never_read_minus_zero():
    fig, ax = plt.subplots(figsize=(4, 4))
    try:
        viz.plot_heatmap(np.array([[1e-17, -1e-17], [-0.004, -0.26]]), ["a", "b"], ax=ax)
        assert [t.get_text() for t in ax.texts] == ["0.00", "0.00", "0.00", "-0.26"]
    finally:
        plt.close(fig)
    assert viz.number(-0.0) == viz.number(0.0) == "0.00"


def test_heatmap_values_are_written_only_where_they_read_in_the_column():
    names = [f"skill {i}" for i in range(8)]
    M = np.random.default_rng(0).uniform(-0.3, 1.0, (8, 8))
    wide, axes = plt.subplots(1, 3, figsize=(12.6, 4.9))  # shrunk to the column: too small
    column, ax = plt.subplots(figsize=(6.5, 5.5))
    try:
        for a in axes:
            viz.plot_heatmap(M, names, ax=a)
        assert all(len(a.texts) == 0 for a in axes)
        viz.plot_heatmap(M, names, ax=ax)
        assert len(ax.texts) == 64
        assert min(viz.shown_pt(column, t.get_fontsize()) for t in ax.texts) >= viz.MIN_TEXT_PT
        viz.plot_heatmap(M, names, ax=axes[0], annotate=True)  # asked for: written if it fits
        assert len(axes[0].texts) == 64
    finally:
        plt.close(wide)
        plt.close(column)


def test_the_similarity_figure_fits_the_column_and_writes_each_pair_once():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(6, 8))
    before, after = viz.cosine_matrix(Z), viz.cosine_matrix(Z + Z.mean(axis=0))
    fig = viz.plot_similarity_change(before, after, [f"skill {i}" for i in range(6)])
    try:
        assert fig.get_size_inches()[0] == viz.COLUMN_IN
        top, bottom = [a for a in fig.axes if a.get_label() != "<colorbar>"]
        assert len(top.texts) == 30 and len(bottom.texts) == 15  # off-diagonal; lower triangle
        shown = {t.get_text() for t in top.texts}
        assert viz.number(before[3, 1]) in shown and viz.number(after[1, 3]) in shown
        assert viz.number(after[3, 1] - before[3, 1]) in {t.get_text() for t in bottom.texts}
        assert "plain embeddings Z" in viz.describe_figure(fig)
    finally:
        plt.close(fig)
    with pytest.raises(ValueError, match="must both be"):
        viz.plot_similarity_change(before, after[:3, :3], list("abcdef"))


def test_before_after_drawing_is_one_column_figure_with_the_merge_ringed(memory):
    import copy

    before = copy.deepcopy(memory)
    new = memory.merge_nodes("s1", "s2", Skill("Validate And Search", "Both in one."))
    fig = viz.draw_before_after(before, memory, [{"a": "s1", "b": "s2", "new_id": new}],
                                highlight=["s1", "s2"])
    try:
        assert fig.get_size_inches()[0] == viz.COLUMN_IN and len(fig.axes) == 2
        gold = matplotlib.colors.to_rgb(viz.COLORS["highlight"])
        rings = [sum(1 for p in ax.patches if getattr(p, "get_radius", None)
                     and p.get_edgecolor()[:3] == pytest.approx(gold)) for ax in fig.axes]
        assert rings == [2, 1]  # the pair before, the merged node after
        assert min(t.get_fontsize() for ax in fig.axes for t in ax.texts) >= 8
    finally:
        plt.close(fig)


def test_describe_figure_is_the_png_description(tmp_path):
    from PIL import Image

    fig, ax = plt.subplots(figsize=viz.column_figsize())
    ax.plot([0, 1], [0, 1])
    ax.set(title="memory growth", xlabel="episode", ylabel="count")
    viz.save_figure(fig, tmp_path / "f.png")
    plt.close(fig)
    with Image.open(tmp_path / "f.png") as im:
        text = dict(im.text)
        chunks = im.info
    assert text == {"Title": "memory growth", "Description": "memory growth (axes: episode / count)"}
    assert "Software" not in text and "dpi" in chunks


FIGURE_SCRIPT = r"""
import sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite import plots as viz
from hyperskill_lite.types import Skill

sign = float(sys.argv[2])  # float noise of either sign, as two runs of a notebook give
M = np.array([[1.0, 0.84, 0.0], [0.84, 1.0, 0.35], [0.0, 0.35, 1.0]])
noise = sign * 1e-16 * np.ones_like(M)
fig = viz.plot_similarity_change(M, M + noise, ["a", "b", "c"], title="noise")
viz.save_figure(fig, sys.argv[1] + "/sim.png")
mem = HypergraphMemory(HashingEncoder(dim=32))
for i, ok in enumerate([True, True, False]):
    mem.add_trajectory(f"task {i}", [f"step {i}"], [Skill(f"Skill {i}", "do it"),
                       Skill("Shared Skill", "always")], "lesson", success=ok, steps=3 + i)
fig, ax = viz.hypergraph_figure()
viz.draw_hypergraph(mem, ax=ax, seed=0, title="three trajectories")
viz.save_figure(fig, sys.argv[1] + "/drawing.png")
"""


def test_saved_figures_are_byte_identical_across_runs(tmp_path):
    """Two runs in fresh processes, with different hash seeds and float noise of opposite
    signs, write the same bytes (no signed zero, no software tag or date, fixed fonts)."""
    import os
    import subprocess
    import sys

    outs = []
    for seed, sign in (("1", "1"), ("2", "-1")):
        out = tmp_path / seed
        out.mkdir()
        env = {**os.environ, "PYTHONHASHSEED": seed, "MPLBACKEND": "Agg"}
        subprocess.run([sys.executable, "-c", FIGURE_SCRIPT, str(out), sign], check=True,
                       env=env, timeout=300)
        outs.append(out)
    for name in ("sim.png", "drawing.png"):
        first, second = (o / name for o in outs)
        assert first.read_bytes() == second.read_bytes(), name
        assert b"tIME" not in first.read_bytes() and b"Matplotlib" not in first.read_bytes()
