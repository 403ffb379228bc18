"""SkillWorld's text model calibrated on real extractions (world/calibration.py,
tools/calibrate_world.py, the calibrated phrasing of SimLLM).

The slow test runs the calibration statistics over the world's own extractions in a
165-task gaia HyperSkill run (MiniLM; the demo's run, tests/conftest.py's `demo_folder`) and
compares them with hyperskill_lite/world/data/calibration.json.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.embed import encoder_by_name, minilm_available
from hyperskill_lite.runner import read_records
from hyperskill_lite.types import Episode
from hyperskill_lite.world import SimLLM, WorldParams, make_tasks
from hyperskill_lite.world.calibration import (
    compare_to_target,
    extraction_stream,
    load_calibration,
    nearest_earlier,
    separation,
    stream_stats,
    summarize_cosines,
)
from hyperskill_lite.world.latent import latent_of

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import calibrate_world  # noqa: E402


class Table:
    """A fixed text -> vector table (unit rows), for hand-worked examples."""

    name, dim = "table", 2

    def __init__(self, vectors: dict[str, tuple[float, float]]) -> None:
        self.v = {k: np.asarray(x, dtype=np.float32) / np.linalg.norm(x) for k, x in vectors.items()}

    def encode(self, texts):
        return np.stack([self.v[t] for t in texts]).astype(np.float32)


# ------------------------------------------------------------------- the statistics
def test_nearest_earlier_equals_a_naive_reference():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 8)).astype(np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    want = [np.nan] + [max(float(X[i] @ X[j]) for j in range(i)) for i in range(1, 40)]
    got = nearest_earlier(X, block=7)
    assert np.isnan(got[0]) and np.allclose(got[1:], want[1:], atol=1e-6)


def test_stream_stats_hand_worked():
    # "a" and "a'" at 0 degrees apart in name+content, "b" orthogonal to both
    enc = Table({"A: x": (1, 0), "A: y": (1, 0), "B: z": (0, 1),
                 "A": (1, 0), "B": (0, 1), "x": (1, 0), "y": (0.6, 0.8)})
    s = stream_stats(enc, ["x", "y", "z"], ["A", "A", "B"])
    # nearest earlier: item 2 -> 1.0 (item 1), item 3 -> 0.0; quantiles of [1.0, 0.0]
    assert s["items"] == 3
    assert s["text"]["n"] == 2 and s["text"]["q50"] == pytest.approx(0.5)
    assert s["text"]["ge_0.90"] == pytest.approx(0.5)
    assert s["name_repeat_rate"] == pytest.approx(0.5)  # "A" again; "B" new
    assert s["name_words"] == 1.0 and s["content_words"] == 1.0
    nameless = stream_stats(enc, ["x", "y"], ["", ""])  # unnamed items: no name stats
    assert nameless["name"] is None and nameless["name_repeat_rate"] is None


def test_summary_and_separation_hand_worked():
    assert summarize_cosines(np.array([np.nan])) == {"n": 0}
    X = np.array([[1, 0], [0.99, 0.141], [0, 1], [0.6, 0.8]], dtype=np.float32)
    X /= np.linalg.norm(X, axis=1, keepdims=True)
    s = separation(X, ["a", "a", "b", "c"])
    assert s["nn_same_share"] == 1.0  # both "a" items see each other first
    assert s["same_pair_median"] == pytest.approx(float(X[0] @ X[1]), abs=1e-6)


def test_compare_to_target_reports_differences():
    stats = {"text": dict.fromkeys(("q10", "q50", "q90", "ge_0.85", "ge_0.90"), 0.5),
             "name": None, "name_repeat_rate": 0.3}
    target = {"text": dict.fromkeys(("q10", "q50", "q90", "ge_0.85", "ge_0.90"), 0.4),
              "name": None, "name_repeat_rate": 0.25}
    cmp = compare_to_target(stats, target)
    assert cmp["text.q50"]["diff"] == pytest.approx(0.1)
    assert cmp["name_repeat_rate"]["rel"] == pytest.approx(0.2)


# ------------------------------------------------------------------- calibration.json
def test_calibration_file_names_every_source_and_the_target():
    cal = load_calibration()
    assert cal["format"] == "skillworld-calibration-1" and "minilm" in cal["encoder"]
    ids = {s["id"] for s in cal["sources"]}
    assert {"reflexion-alfworld", "skillrl-alfworld-mistakes", "voyager-minecraft"} <= ids
    for s in cal["sources"]:
        assert s["repository"].startswith("https://github.com/")
        assert len(s["commit"]) == 40 and all(c in "0123456789abcdef" for c in s["commit"])
        assert s["licence"] and s["model"] and s["paths"] and s["items"] > 0
        assert s["stats"]["items"] == s["items"]
    repos = {s["repository"] for s in cal["sources"] if s["id"] in cal["target"]["streams"]}
    assert len(repos) >= 2, "the target rests on at least two independent sources"
    for k in ("q10", "q50", "q90"):
        assert 0 < cal["target"]["text"][k] <= 1


def test_a_missing_or_foreign_calibration_file_is_refused(tmp_path):
    with pytest.raises(FileNotFoundError, match="calibrate_world.py writes it"):
        load_calibration(tmp_path / "none.json")
    (tmp_path / "c.json").write_text('{"format": "other"}')
    with pytest.raises(ValueError, match="not a SkillWorld calibration file"):
        load_calibration(tmp_path / "c.json")


def _write(root: Path, rel: str, obj) -> None:
    p = root / rel
    p.parent.mkdir(parents=True, exist_ok=True)
    p.write_text(obj if isinstance(obj, str) else json.dumps(obj))


def test_the_script_reads_each_source_layout(tmp_path):
    """Synthetic checkouts in each repository's layout (no real data): every stream is
    read in order, and provenance and the target are written."""
    refl, skr, voy = tmp_path / "reflexion", tmp_path / "SkillRL", tmp_path / "Voyager"
    _write(refl, "LICENSE", "MIT License\n")
    for t, mem in enumerate([["r1"], ["r1", "r2"]]):  # r1 is repeated in trial 1: once
        _write(refl, f"alfworld_runs/root/reflexion_run_logs/env_results_trial_{t}.json",
               [{"name": "env_0", "memory": mem, "is_success": False}])
    gm = [{"content": {"strategic_guidelines": {"strategic_guidelines": {
        "planning_pattern": f"Find [X] -> Use [X] {i}",
        "mistakes_to_avoid": [{"trigger_condition": f"t{i}", "bad_action": f"b{i}"}]}}}}
        for i in range(3)]
    _write(skr, "memory_data/alfworld/generated_memories_alfworld_total.json", gm)
    _write(skr, "memory_data/alfworld/claude_style_skills.json", {
        "general_skills": [{"title": "Look Everywhere", "principle": "Search each spot."}],
        "task_specific_skills": {"clean": [{"title": "Rinse First", "principle": "Rinse it."}]},
        "common_mistakes": [{"description": "Forgot to place it."}],
        "metadata": {}})
    for k in (1, 2):
        _write(voy, f"skill_library/trial{k}/skill/skills.json", {
            "mineWoodLog": {"description": "async function f(bot) {\n    // Mines one log.\n}"},
            f"craftThing{k}": {"description": "async function g(bot) {\n    // Crafts it.\n}"}})
    subprocess.run(["git", "init", "-q", str(voy)], check=True)
    subprocess.run(["git", "-C", str(voy), "add", "."], check=True)
    subprocess.run(["git", "-C", str(voy), "-c", "user.email=t@t", "-c", "user.name=t",
                    "commit", "-qm", "x"], check=True)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert calibrate_world.main([str(refl), str(skr), str(voy), "--encoder", "hashing"]) == 0
    doc = json.loads(out.getvalue())
    rows = {r["id"]: r for r in doc["sources"]}
    assert rows["reflexion-alfworld"]["items"] == 2
    assert rows["reflexion-alfworld"]["commit"].startswith("unknown")
    assert rows["reflexion-alfworld"]["licence"] == "MIT License"
    assert rows["skillrl-alfworld-mistakes"]["items"] == 3
    assert rows["skillrl-alfworld-workflows"]["kind"] == "workflow"
    assert rows["skillrl-skill-banks"]["items"] == 3  # the nameless mistake counts too
    v = rows["voyager-minecraft"]
    assert v["items"] == 4 and len(v["commit"]) == 40
    assert v["stats"]["name_repeat_rate"] == pytest.approx(1 / 3)  # "mine Wood Log" again
    assert "skillrl-alfworld-workflows" not in doc["target"]["streams"]
    assert doc["target"]["name_streams"] == ["voyager-minecraft"]


def test_the_script_refuses_an_unknown_checkout(tmp_path):
    with pytest.raises(SystemExit, match="not a checkout of Reflexion, SkillRL or Voyager"):
        calibrate_world.main([str(tmp_path), "--encoder", "hashing"])


# ------------------------------------------------------------------- the text model
def _fresh(params: WorldParams, per_latent: int = 6):
    llm = SimLLM(params, seed=0)
    texts, labels = [], []
    for lid in llm.library.latents:
        for k in range(per_latent):
            s = llm.phrase(lid, llm.rng("sep", lid, k))
            texts.append(f"{s.name}: {s.content}")
            labels.append(lid)
    return texts, labels


@pytest.mark.skipif(not minilm_available(), reason="needs all-MiniLM-L6-v2")
def test_calibrated_texts_separate_strategies_and_curated_ones_do_not():
    enc = encoder_by_name("minilm")
    texts, labels = _fresh(WorldParams())
    s = separation(enc.encode(texts), labels)
    assert s["nn_same_share"] >= 0.9
    assert s["same_pair_median"] > s["nearest_other_median"]
    texts, labels = _fresh(WorldParams(phrasing="curated"), per_latent=3)
    cur = separation(enc.encode(list(dict.fromkeys(texts))), labels[: len(set(texts))])
    assert cur["nn_same_share"] < 0.7  # the earlier text model: kept to show the contrast


def _task_and_episode(success: bool = True):
    task = make_tasks("gaia", n=1, seed=3)[0]
    llm = SimLLM(seed=0)
    lid = llm.library.helpful_for(task.meta["skillworld"]["archetypes"])[0]
    return task, llm, lid


def test_calibrated_phrasing_reemits_a_skill_the_context_showed():
    task, llm, lid = _task_and_episode()
    seen = {"text": "**Seen Strategy Name**: Do the seen thing first. It works well.",
            "latent": {"strategies": [lid], "errors": [], "spurious": []}}
    ep = Episode(task.id, True, 3, meta={"skillworld": {"seen": [seen]}})
    always = SimLLM(WorldParams(reemit=1.0, reemit_verbatim=1.0), seed=0)
    got = {(s.name, s.content) for s in always.extract(task, ep).skills}
    picked = [s for s in always.extract(task, ep).skills if lid in latent_of(s.meta)["strategies"]]
    if picked:  # the extraction chose this latent: it was copied verbatim
        assert ("Seen Strategy Name", "Do the seen thing first. It works well.") in got
    never = SimLLM(WorldParams(reemit=0.0), seed=0)
    assert all(s.name != "Seen Strategy Name" for s in never.extract(task, ep).skills)
    curated = SimLLM(WorldParams(phrasing="curated", reemit=1.0), seed=0)
    phr = {(p.name, p.content) for lat in curated.library.latents.values() for p in lat.phrasings}
    assert all((s.name, s.content) in phr for s in curated.extract(task, ep).skills)


def test_calibrated_phrasing_draws_names_and_slots_from_the_library():
    llm = SimLLM(WorldParams(lead_in=0.0), seed=0)
    lid = next(iter(llm.library.latents))
    slots = llm.library.content_slots(lid)
    for k in range(30):
        s = llm.phrase(lid, llm.rng("t", k))
        assert s.name in llm.library.name_variants(lid)
        assert 3 <= len(s.name.split()) <= 5
        sents = [x for x in slots if any(alt in s.content for alt in x)]
        assert len(sents) == len(slots)  # one sentence from every slot
    with pytest.raises(ValueError, match="phrasing must be one of"):
        WorldParams(phrasing="fancy")


# ------------------------------------------------------------------- against the target
@pytest.fixture(scope="module")
def gaia_stream(demo_folder):
    """HyperSkill's 165-task gaia run (seed 0, the paper's order, the calibrated world,
    MiniLM, the default config): the demo's, which tests/test_readme.py also checks."""
    if not minilm_available():
        pytest.skip("needs all-MiniLM-L6-v2")
    records = read_records(demo_folder[1] / "hyperskill")
    names, contents = extraction_stream(records)
    return records, stream_stats(encoder_by_name("minilm"), contents, names)


def test_the_world_extracts_like_the_measured_real_streams(gaia_stream):
    """Each quantile of the nearest-earlier cosine of "name: content" within 0.05 of the
    target, the exact-name repeat rate within 25 % (relative), the name-only q50 and q90
    within 0.05. The name-only q10 is looser (0.10): the one named source, Voyager,
    names Minecraft functions from a handful of verbs ("mine ...", "craft ..."), so even
    its new names resemble an earlier one more than SkillWorld's web-research names do;
    matching it would mean tuning SkillWorld's names to that one domain."""
    _, stats = gaia_stream
    cmp = compare_to_target(stats, load_calibration()["target"])
    for q in ("q10", "q50", "q90"):
        assert abs(cmp[f"text.{q}"]["diff"]) <= 0.05, (q, cmp[f"text.{q}"])
    for q in ("q50", "q90"):
        assert abs(cmp[f"name.{q}"]["diff"]) <= 0.05, (q, cmp[f"name.{q}"])
    assert abs(cmp["name.q10"]["diff"]) <= 0.10, cmp["name.q10"]
    assert abs(cmp["name_repeat_rate"]["rel"]) <= 0.25, cmp["name_repeat_rate"]


def test_the_run_records_its_dedups_and_merges(gaia_stream):
    records, _ = gaia_stream
    assert all("update" in r for r in records if not r["error"])
    dedups = sum(r["update"]["dedup"] for r in records if "update" in r)
    maint = [r["maintenance"] for r in records if "maintenance" in r]
    assert len(maint) == 9 and all("merges" in m for m in maint)
    assert dedups == sum(s["dedup"] for r in records for s in r.get("update", {}).get("skills", []))
    assert dedups > 0  # the calibrated world does deduplicate at insertion
    for m in maint:
        assert m["merged"] == len(m["merges"])
