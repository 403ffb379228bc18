"""Tests for hyperskill_lite.world: library, generator, SimLLM, SimExecutor, contexts."""

from __future__ import annotations

import json
import math
import shutil
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.records import ContextItem, Skill
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.types import Episode, MemoryContext, Task
from hyperskill_lite.world import (
    PROFILES,
    SimExecutor,
    SimLLM,
    WorldParams,
    data_dir,
    harmful_context,
    irrelevant_context,
    latent_meta,
    load_library,
    make_tasks,
    oracle_context,
    render_items,
    stable_seed,
)
from hyperskill_lite.world.generator import allocate_levels, template_weights
from hyperskill_lite.world.library_types import count_sentences, count_words, split_sentences

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def lib():
    return load_library()


@pytest.fixture(scope="module")
def all_tasks() -> dict[str, list[Task]]:
    return {p: make_tasks(p, seed=0) for p in PROFILES}


def _task(archetypes: list[str], profile: str = "gaia", level: int = 2) -> Task:
    """A hand-built SkillWorld task with a known latent structure."""
    latent = {
        "profile": profile,
        "domain": "finance",
        "template": "hand",
        "archetypes": archetypes,
        "difficulty": level,
        "topic": "the revenue of Pellham Foods",
        "answer_type": "percent",
        "wrong_answers": ["12.0%", "-12.0%", "13.5%"],
    }
    return Task(
        id="hand-0001",
        question="By what percentage did Pellham Foods grow? Give one decimal.",
        answer="12.5%",
        benchmark="skillworld-gaia",
        meta={"skillworld": latent},
    )


def _item(kind: str, text: str = "Some text.", **latent: list[str]) -> ContextItem:
    return ContextItem(kind=kind, text=text, meta=latent_meta(**latent))


# --------------------------------------------------------------------------- library


def test_split_sentences_hand_example():
    assert split_sentences("Do A. Then B! Why? Because 2.5 is right.") == [
        "Do A.",
        "Then B!",
        "Why?",
        "Because 2.5 is right.",
    ]
    assert count_sentences("") == 0
    assert count_words("Cross-Source Validation Check") == 3


def test_library_sizes_and_structure(lib):
    assert 20 <= len(lib.archetypes) <= 30
    assert len(lib.domains) >= 8
    for a in lib.archetypes.values():
        assert len(a.steps) >= 3 and all("{topic}" in s for s in a.steps)
        assert 1 <= len(a.errors) <= 2
        assert lib.latents[a.strategy].kind == "strategy"
    # some strategies are general: they help several archetypes
    general = [s for s in lib.of_kind("strategy") if len(lib.latents[s].affects) >= 2]
    assert len(general) >= 3
    assert max(len(lib.latents[s].affects) for s in general) >= 4
    for latent in lib.latents.values():
        assert len(latent.phrasings) >= 3
        for p in latent.phrasings:
            assert 3 <= count_words(p.name) <= 5, p.name
            assert 2 <= count_sentences(p.content) <= 4, p.content
    for d in lib.domains.values():
        assert len(d.templates) >= 5
        assert {len(t.archetypes) for t in d.templates} <= {1, 2, 3, 4}
    sizes = {len(t.archetypes) for d in lib.domains.values() for t in d.templates}
    assert sizes == {1, 2, 3, 4}


def test_data_dir_default_and_env(monkeypatch, tmp_path):
    monkeypatch.delenv("HYPERSKILL_DATA_DIR", raising=False)
    assert data_dir() == REPO / "hyperskill_lite" / "world" / "data"
    monkeypatch.setenv("HYPERSKILL_DATA_DIR", str(tmp_path))
    assert data_dir() == tmp_path


def _copy_data(tmp_path: Path) -> Path:
    dst = tmp_path / "sw"
    shutil.copytree(REPO / "hyperskill_lite" / "world" / "data", dst)
    return dst


def test_missing_file_names_it(tmp_path):
    d = _copy_data(tmp_path)
    (d / "errors.json").unlink()
    with pytest.raises(FileNotFoundError, match="errors.json"):
        load_library(d)


def test_corrupt_json_names_file(tmp_path):
    d = _copy_data(tmp_path)
    (d / "domains.json").write_text('{"format": "skillworld-domains-1", ', encoding="utf-8")
    with pytest.raises(ValueError, match=r"domains\.json is not valid JSON"):
        load_library(d)


def test_wrong_format_tag_and_bad_reference_name_file(tmp_path):
    d = _copy_data(tmp_path)
    data = json.loads((d / "profiles.json").read_text())
    data["format"] = "something-else"
    (d / "profiles.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"profiles\.json: expected format"):
        load_library(d)

    d2 = tmp_path / "sw2"
    shutil.copytree(REPO / "hyperskill_lite" / "world" / "data", d2)
    data = json.loads((d2 / "archetypes.json").read_text())
    data["archetypes"][0]["strategy"] = "no_such_strategy"
    (d2 / "archetypes.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"strategies\.json|archetypes\.json"):
        load_library(d2)


def test_text_contract_violation_is_reported(tmp_path):
    d = _copy_data(tmp_path)
    data = json.loads((d / "errors.json").read_text())
    data["errors"][0]["phrasings"][0]["name"] = "Too Short"
    (d / "errors.json").write_text(json.dumps(data))
    with pytest.raises(ValueError, match=r"errors\.json.*'Too Short' must have 3-5 words"):
        load_library(d)


def test_load_library_through_params_data_dir(tmp_path):
    d = _copy_data(tmp_path)
    tasks = make_tasks("xbench", n=5, params=WorldParams(data_dir=str(d)))
    assert tasks == make_tasks("xbench", n=5)


# ------------------------------------------------------------------------- generator


def test_allocate_levels_matches_naive_largest_remainder():
    rng = np.random.default_rng(0)
    for _ in range(50):
        w = tuple(float(x) for x in rng.uniform(0.1, 5.0, size=3))
        n = int(rng.integers(0, 300))
        levels = allocate_levels(w, n, np.random.default_rng(1))
        # naive reference
        total = sum(w)
        quotas = [wi / total * n for wi in w]
        counts = [math.floor(q) for q in quotas]
        left = n - sum(counts)
        by_rem = sorted(range(3), key=lambda i: (-(quotas[i] - counts[i]), i))
        for i in by_rem[:left]:
            counts[i] += 1
        assert [int((levels == k).sum()) for k in (1, 2, 3)] == counts
    assert allocate_levels((53, 86, 26), 0, np.random.default_rng(0)).shape == (0,)


def test_template_weights_match_naive(lib):
    for profile in PROFILES:
        templates, w = template_weights(lib, profile)
        prof = lib.profiles[profile]
        for t, wj in zip(templates, w):
            cats = [prof.category_weights[lib.archetypes[a].category] for a in t.archetypes]
            prod = 1.0
            for c in cats:
                prod *= c
            assert wj == pytest.approx(prof.domain_weights[t.domain] * prod ** (1 / len(cats)))


@pytest.mark.parametrize(("profile", "size"), [("gaia", 165), ("webwalker", 170), ("xbench", 100)])
def test_every_profile_generates_valid_tasks(lib, all_tasks, profile, size):
    tasks = all_tasks[profile]
    assert len(tasks) == size
    ids = [t.id for t in tasks]
    assert len(set(ids)) == size and ids[7] == f"{profile}-0007"
    assert len({t.question for t in tasks}) == size
    for t in tasks:
        lat = t.meta["skillworld"]
        assert t.benchmark == f"skillworld-{profile}"
        assert t.question.strip() and "{" not in t.question and "}" not in t.question
        assert t.question.lstrip("'")[0].isupper() and t.question.rstrip()[-1] in ".?"
        assert t.answer and t.answer not in lat["wrong_answers"] and lat["wrong_answers"]
        assert 1 <= len(lat["archetypes"]) <= 4
        assert all(a in lib.archetypes for a in lat["archetypes"])
        assert lat["difficulty"] in (1, 2, 3) and lat["profile"] == profile
        assert lat["domain"] in lib.domains and "{" not in lat["topic"]
        json.dumps(t.meta)


def test_gaia_levels_mirror_gaia(all_tasks):
    levels = [t.meta["skillworld"]["difficulty"] for t in all_tasks["gaia"]]
    assert [levels.count(k) for k in (1, 2, 3)] == [53, 86, 26]


def test_profiles_weight_archetypes_differently(lib, all_tasks):
    def share(profile: str, category: str) -> float:
        archs = [a for t in all_tasks[profile] for a in t.meta["skillworld"]["archetypes"]]
        return sum(lib.archetypes[a].category == category for a in archs) / len(archs)

    assert share("webwalker", "navigation") > 0.5 > share("gaia", "navigation")
    assert share("gaia", "files") > share("xbench", "files") > share("webwalker", "files")
    assert share("xbench", "lookup") + share("xbench", "computation") > 0.45
    roots = sum("root_url" in t.meta for t in all_tasks["webwalker"])
    assert roots > 0.8 * len(all_tasks["webwalker"])


def test_make_tasks_is_deterministic_and_seeded():
    a = make_tasks("gaia", n=30, seed=5)
    assert a == make_tasks("gaia", n=30, seed=5)
    assert [t.question for t in a] != [t.question for t in make_tasks("gaia", n=30, seed=6)]
    assert make_tasks("webwalker", n=0) == []


def test_make_tasks_bad_input():
    with pytest.raises(ValueError, match="unknown SkillWorld profile 'gala'"):
        make_tasks("gala")
    with pytest.raises(ValueError, match="n must be a non-negative integer"):
        make_tasks("gaia", n=-1)


# --------------------------------------------------------------------------- SimLLM


def test_simllm_extraction_contracts_over_all_tasks(lib, all_tasks):
    llm = SimLLM(seed=0)
    n_harmful = n_total = 0
    for tasks in all_tasks.values():
        for t in tasks:
            archs = t.meta["skillworld"]["archetypes"]
            for success in (True, False):
                ep = Episode(task_id=t.id, success=success, steps=4)
                x = llm.extract(t, ep)
                assert 1 <= len(x.skills) <= 3
                assert len({s.name for s in x.skills}) == len(x.skills)
                assert 1 <= count_sentences(x.lesson) <= 2
                for s in x.skills:
                    assert 3 <= count_words(s.name) <= 5, s.name
                    assert 2 <= count_sentences(s.content) <= 4, s.content
                    assert s.polarity == ("success" if success else "failure")
                    sw = s.meta["skillworld"]
                    assert set(sw["strategies"]) <= set(lib.helpful_for(archs))
                    assert set(sw["errors"]) <= set(lib.errors_for(archs))
                    assert set(sw["spurious"]) <= set(lib.spurious_for(archs))
                    assert sw["harmful"] == bool(sw["spurious"])
                    assert len(sw["strategies"]) + len(sw["errors"]) + len(sw["spurious"]) == 1
                    if success:
                        assert not sw["errors"]
                    else:
                        assert not sw["strategies"]
                    n_harmful += sw["harmful"]
                lm = x.meta["skillworld"]
                assert lm["outcome"] == ("success" if success else "failure")
                assert 1 <= len(lm["strategies"]) + len(lm["errors"]) + len(lm["spurious"]) <= 2
                n_total += 1
    # spurious items appear at roughly the set rate (when the task has any)
    assert 0.04 < n_harmful / n_total < 0.2


def test_extract_spurious_switch(all_tasks):
    tasks = all_tasks["gaia"][:40]
    never = SimLLM(WorldParams(extract_spurious=0.0))
    always = SimLLM(WorldParams(extract_spurious=1.0))
    for t in tasks:
        ep = Episode(task_id=t.id, success=True, steps=3)
        assert not any(s.meta["skillworld"]["harmful"] for s in never.extract(t, ep).skills)
    lib = always.library
    for t in tasks:
        ep = Episode(task_id=t.id, success=True, steps=3)
        has_pool = bool(lib.spurious_for(t.meta["skillworld"]["archetypes"], "success"))
        got = any(s.meta["skillworld"]["harmful"] for s in always.extract(t, ep).skills)
        assert got == has_pool


def test_extract_after_failure_leads_with_reported_error():
    llm = SimLLM(WorldParams(extract_spurious=0.0))
    t = _task(["compute_percentage", "convert_units"])
    ep = Episode(
        task_id=t.id, success=False, steps=5, meta={"skillworld": {"error": "unit_mismatch"}}
    )
    x = llm.extract(t, ep)
    assert x.skills[0].meta["skillworld"]["errors"] == ["unit_mismatch"]
    assert x.skills[0].polarity == "failure"


def test_decompose_without_noise_is_one_step_per_archetype(lib, all_tasks):
    quiet = SimLLM(WorldParams(decompose_drop=0, decompose_add=0, decompose_reorder=0))
    for t in all_tasks["xbench"]:
        lat = t.meta["skillworld"]
        plan = quiet.plan(t)
        assert [a for _, a in plan] == lat["archetypes"]
        for text, a in plan:
            allowed = {s.replace("{topic}", lat["topic"]) for s in lib.archetypes[a].steps}
            assert text in allowed
        assert quiet.decompose(t) == [text for text, _ in plan]


def test_decompose_noise_rates(all_tasks):
    tasks = [t for p in PROFILES for t in all_tasks[p]]
    add = SimLLM(WorldParams(decompose_drop=0, decompose_add=1.0, decompose_reorder=0))
    drop = SimLLM(WorldParams(decompose_drop=1.0, decompose_add=0, decompose_reorder=0))
    for t in tasks:
        n = len(t.meta["skillworld"]["archetypes"])
        plan = add.plan(t)
        assert len(plan) == n + 1
        assert sum(a not in t.meta["skillworld"]["archetypes"] for _, a in plan) == 1
        assert len(drop.decompose(t)) == max(n - 1, 1)
    default = SimLLM()
    changed = sum(
        [a for _, a in default.plan(t)] != t.meta["skillworld"]["archetypes"] for t in tasks
    )
    # P(no noise) = 0.85 * 0.85 * 0.9 ~ 0.65 (a swap or drop can be invisible on 1 step)
    assert 0.2 < changed / len(tasks) < 0.5


def test_simllm_is_stateless_and_reproducible(all_tasks):
    tasks = all_tasks["gaia"][:25]
    a, b = SimLLM(seed=3), SimLLM(seed=3)
    eps = [Episode(task_id=t.id, success=i % 2 == 0, steps=4) for i, t in enumerate(tasks)]
    forward = [a.extract(t, e) for t, e in zip(tasks, eps)]
    backward = [b.extract(t, e) for t, e in zip(reversed(tasks), reversed(eps))][::-1]
    assert forward == backward
    assert [a.decompose(t) for t in tasks] == [b.decompose(t) for t in reversed(tasks)][::-1]
    other = SimLLM(seed=4)
    assert [other.decompose(t) for t in tasks] != [a.decompose(t) for t in tasks]


def test_merge_contract_and_union_meta():
    llm = SimLLM(seed=0)
    rng = llm.rng("test")
    a = llm.phrase("compute_with_code", rng)
    b = llm.phrase("unit_tracking", rng)
    m = llm.merge(a, b)
    assert m == SimLLM(seed=0).merge(a, b)
    assert 3 <= count_words(m.name) <= 5 and 2 <= count_sentences(m.content) <= 4
    assert m.polarity == "success"
    assert m.meta["skillworld"]["strategies"] == ["compute_with_code", "unit_tracking"]
    # compute_with_code helps 4 archetypes, unit_tracking 1: the name comes from the former
    assert m.name in llm.library.name_variants("compute_with_code")
    # two phrasings of one latent merge into its third phrasing
    c = llm.phrase("compute_with_code", rng, avoid=[a.name])
    m2 = llm.merge(a, c)
    assert m2.name not in {a.name, c.name}
    assert m2.meta["skillworld"]["strategies"] == ["compute_with_code"]
    # merges of merges keep the union, harmful included
    h = llm.phrase("mental_arithmetic", rng)
    m3 = llm.merge(m, h)
    assert m3.meta["skillworld"]["spurious"] == ["mental_arithmetic"]
    assert m3.meta["skillworld"]["harmful"] is True
    # skills without SkillWorld metadata merge too
    plain = llm.merge(
        Skill("Plain Old Skill", "No stop at the end"), Skill("Other Skill Here", "B.")
    )
    assert 2 <= count_sentences(plain.content) <= 4 and plain.name == "Plain Old Skill"


def test_merge_names_what_the_shared_fragments_were_about():
    from hyperskill_lite.core.records import Fragment
    from hyperskill_lite.world.latent import latent_meta

    llm = SimLLM(seed=0)
    rng = llm.rng("test")
    a = llm.phrase("compute_with_code", rng)
    b = llm.phrase("unit_tracking", rng)
    # without fragments the most general latent names it; with fragments whose lessons
    # concern unit_tracking only, a model reading them names the merge after that
    assert llm.merge(a, b).name in llm.library.name_variants("compute_with_code")
    about_units = Fragment("t", "Track units.", True, latent_meta(strategies=["unit_tracking"]))
    m = llm.merge(a, b, fragments=[about_units])
    assert m.name in llm.library.name_variants("unit_tracking")
    assert m.meta["skillworld"]["strategies"] == ["compute_with_code", "unit_tracking"]
    # fragments about neither latent change nothing
    other = Fragment("t", "x.", True, latent_meta(strategies=["primary_source_first"]))
    assert llm.merge(a, b, fragments=[other]) == llm.merge(a, b)


def test_merge_rejects_mixed_polarity():
    llm = SimLLM()
    rng = llm.rng("x")
    with pytest.raises(ValueError, match="cannot merge a 'success' skill"):
        llm.merge(llm.phrase("compute_with_code", rng), llm.phrase("unit_mismatch", rng))


def test_phrase_unknown_latent():
    llm = SimLLM()
    with pytest.raises(ValueError, match="unknown SkillWorld latent id 'nope'"):
        llm.phrase("nope", llm.rng("x"))


def test_judge_flips_at_set_rate(all_tasks):
    tasks = [t for p in PROFILES for t in all_tasks[p]]
    exact = SimLLM(WorldParams(self_judge_flip=0.0))
    liar = SimLLM(WorldParams(self_judge_flip=1.0))
    noisy = SimLLM()
    flips = 0
    for i, t in enumerate(tasks):
        right = i % 2 == 0
        ep = Episode(task_id=t.id, success=right, steps=3, answer=t.answer if right else "wrong")
        assert exact.judge(t, ep) is right
        assert liar.judge(t, ep) is (not right)
        flips += noisy.judge(t, ep) != right
    assert 0.06 < flips / len(tasks) < 0.14
    # without an answer the judge falls back to the executor's outcome
    ep = Episode(task_id="x", success=True, steps=1)
    assert exact.judge(Task(id="x", question="q", meta=tasks[0].meta), ep) is True


def test_simllm_rejects_foreign_task():
    with pytest.raises(ValueError, match="has no meta\\['skillworld'\\]"):
        SimLLM().decompose(Task(id="custom-1", question="What is 2+2?"))


# ------------------------------------------------------------------------ executor


def test_assess_hand_worked_example():
    t = _task(["compute_percentage", "convert_units"], profile="gaia", level=2)
    items = [
        _item("skill", strategies=["compute_with_code"]),  # helpful, credit 1.0
        _item("lesson", strategies=["compute_with_code"]),  # same latent: counted once
        _item("mistake", errors=["unit_mismatch"]),  # matching warning
        _item("skill", spurious=["trust_first_result"]),  # harmful elsewhere: irrelevant here
        ContextItem(kind="insight", text="Always be kind."),  # no metadata: irrelevant
    ]
    a = SimExecutor().assess(t, items)
    # raw = 0.45 + 0.25 = 0.70; gain = 1.5 (1 - exp(-0.7 / 1.5)) = 0.559366
    # logit = logit(0.30) + 0.559366 - 0.08 * 2 = -0.847298 + 0.559366 - 0.16 = -0.447931
    assert a["helpful"] == {"compute_with_code": 1.0}
    assert a["warnings"] == {"unit_mismatch": 1.0}
    assert a["harmful"] == {} and a["irrelevant"] == 2 and a["noise"] == 2.0
    assert a["gain"] == pytest.approx(0.5593664, abs=1e-6)
    assert a["logit"] == pytest.approx(-0.4479315, abs=1e-6)
    assert a["p_success"] == pytest.approx(0.3898527, abs=1e-6)
    # E[steps] = 1 + 0.8 + 0.9 (1 - 0.35) + 0.8 + 0.1 * 2 = 3.385; x1.25 on failure
    ex = SimExecutor()
    assert ex.expected_steps(t, a, True) == pytest.approx(3.385)
    assert ex.expected_steps(t, a, False) == pytest.approx(3.385 * 1.25)
    # a lesson alone earns half credit
    half = ex.assess(t, [_item("lesson", strategies=["compute_with_code"])])
    assert half["helpful"] == {"compute_with_code": 0.5}
    # ... and an irrelevant lesson distracts half as much as an irrelevant skill
    stray = ex.assess(t, [_item("lesson", strategies=["site_structure_first"])])
    assert stray["irrelevant"] == 1 and stray["noise"] == 0.5


def _naive_logit(lib, params: WorldParams, task: Task, items: list[ContextItem]) -> float:
    lat = task.meta["skillworld"]
    archs = lat["archetypes"]
    helpful = {lib.archetypes[a].strategy for a in archs}
    errors = {e for a in archs for e in lib.archetypes[a].errors}
    harmful = {
        k for k, v in lib.latents.items() if v.kind == "spurious" and set(v.affects) & set(archs)
    }
    best: dict[tuple[str, str], float] = {}
    noise = 0
    for it in items:
        sw = it.meta.get("skillworld", {})
        w = params.kind_weight.get(it.kind, 1.0)
        hits = [("h", x) for x in sw.get("strategies", []) if x in helpful]
        hits += [("e", x) for x in sw.get("errors", []) if x in errors]
        hits += [("s", x) for x in sw.get("spurious", []) if x in harmful]
        if not hits:
            noise += w
        for key in hits:
            best[key] = max(best.get(key, 0.0), w)
    raw = sum(params.helpful_logit * v for (k, _), v in best.items() if k == "h")
    raw += sum(params.warning_logit * v for (k, _), v in best.items() if k == "e")
    gain = params.max_gain_logit * (1 - math.exp(-raw / params.max_gain_logit))
    p = params.base_success[lat["profile"]][lat["difficulty"] - 1]
    logit = math.log(p / (1 - p)) + gain
    logit -= sum(params.harmful_logit * v for (k, _), v in best.items() if k == "s")
    return logit - params.noise_logit * noise


def test_assess_matches_naive_reference_on_random_contexts(lib, all_tasks):
    rng = np.random.default_rng(0)
    params = WorldParams()
    ex = SimExecutor(params)
    ids = {
        f: lib.of_kind(k)
        for f, k in [("strategies", "strategy"), ("errors", "error"), ("spurious", "spurious")]
    }
    kinds = ["skill", "mistake", "lesson", "trajectory", "insight"]
    for t in all_tasks["gaia"][:60] + all_tasks["webwalker"][:60]:
        items = []
        for _ in range(int(rng.integers(0, 9))):
            latent = {
                f: list(rng.choice(v, size=int(rng.integers(0, 2)), replace=False))
                for f, v in ids.items()
            }
            items.append(_item(str(rng.choice(kinds)), **latent))
        assert ex.assess(t, items)["logit"] == pytest.approx(_naive_logit(lib, params, t, items))


def test_same_items_from_different_methods_give_same_episode(all_tasks):
    ex = SimExecutor(seed=11)
    for t in all_tasks["webwalker"][:30]:
        ctx = oracle_context(t, seed=2)
        a = MemoryContext(
            text=ctx.text,
            items=list(ctx.items),
            retrieved=["n1", "e3"],
            plan=["x"],
            llm_calls=1,
            meta={"method": "hyperskill"},
        )
        b = MemoryContext(
            text=ctx.text,
            items=list(ctx.items),
            retrieved=["s9"],
            plan=[],
            llm_tokens=500,
            meta={"method": "flat"},
        )
        assert ex.run(t, a) == ex.run(t, b)
        assert SimExecutor(seed=11).run(t, a) == ex.run(t, a)


def test_episode_fields(all_tasks):
    ex = SimExecutor(seed=0)
    params = ex.params
    for t in all_tasks["gaia"][:50]:
        ctx = oracle_context(t) if t.id.endswith(("0", "5")) else MemoryContext()
        ep = ex.run(t, ctx)
        lat = t.meta["skillworld"]
        assert ep.task_id == t.id and ep.steps >= 1 and ep.calls >= 0
        assert (ep.answer == t.answer) is ep.success
        if not ep.success:
            assert ep.answer in lat["wrong_answers"]
            assert ep.meta["skillworld"]["failed_at"] in lat["archetypes"]
            assert "Problem:" in ep.trajectory
        assert ep.trajectory.startswith(("Step 1:", "Read "))
        assert ep.meta["context_tokens"] == count_tokens(ctx.text)
        per_step = (
            params.prompt_tokens
            + count_tokens(t.text)
            + count_tokens(ctx.text)
            + params.action_tokens
        )
        window = sum(min(k, params.window) for k in range(ep.steps))
        assert ep.tokens == ep.steps * per_step + window * params.observation_tokens
        json.dumps(ep.to_dict())


def test_oracle_helps_and_harmful_hurts_method_agnostic(all_tasks):
    ex = SimExecutor()
    for profile, (lo, hi) in {
        "gaia": (0.30, 0.37),
        "webwalker": (0.40, 0.48),
        "xbench": (0.47, 0.55),
    }.items():
        tasks = all_tasks[profile]

        def mean_p(make, tasks=tasks):
            return float(np.mean([ex.success_probability(t, make(t)) for t in tasks]))

        empty = mean_p(lambda t: MemoryContext())
        assert lo < empty < hi, (profile, empty)  # No Memory-like success rates
        assert mean_p(oracle_context) > empty + 0.15
        assert mean_p(lambda t: oracle_context(t, warnings=False)) > empty + 0.1
        assert mean_p(harmful_context) < empty - 0.1
        assert mean_p(irrelevant_context) < empty - 0.03
    # steps fall with coverage
    t = all_tasks["gaia"][0]
    a0 = ex.assess(t, [])
    a1 = ex.assess(t, list(oracle_context(t).items))
    assert ex.expected_steps(t, a1, True) < ex.expected_steps(t, a0, True)


def test_empirical_success_matches_probability(all_tasks):
    tasks = [t for p in PROFILES for t in all_tasks[p]]
    p_mean = np.mean([SimExecutor().success_probability(t, MemoryContext()) for t in tasks])
    sr = np.mean(
        [SimExecutor(seed=s).run(t, MemoryContext()).success for s in range(4) for t in tasks]
    )
    assert abs(sr - p_mean) < 0.04


def test_executor_rejects_foreign_task():
    with pytest.raises(ValueError, match="only work on tasks from world.make_tasks"):
        SimExecutor().run(Task(id="c", question="q"), MemoryContext())


# -------------------------------------------------------------------- params, contexts


def test_world_params_validation_and_round_trip():
    p = WorldParams()
    assert WorldParams.from_dict(json.loads(json.dumps(p.to_dict()))) == p
    with pytest.raises(ValueError, match="self_judge_flip must be in"):
        WorldParams(self_judge_flip=1.5)
    with pytest.raises(ValueError, match="noise_logit must be >= 0"):
        WorldParams(noise_logit=-0.1)
    with pytest.raises(ValueError, match=r"base_success\['gaia'\]"):
        WorldParams(base_success={"gaia": (0.5, 1.0, 0.2)})
    with pytest.raises(ValueError, match="unknown WorldParams fields"):
        WorldParams.from_dict({"helpfull_logit": 1.0})
    with pytest.raises(ValueError, match="no profile 'mmlu'"):
        p.base_logit("mmlu", 1)
    assert replace(p, noise_logit=0.0).noise_logit == 0.0


def test_render_items_sections():
    items = [
        ContextItem("lesson", "[success] Read the file first."),
        ContextItem("skill", "Targeted Database Search: Query a portal."),
        ContextItem("mistake", "Wrong Reference Year: Check the year."),
        ContextItem("workflow", "Open, read, answer."),
    ]
    assert render_items(items) == (
        "## Past Experience\n1. [success] Read the file first.\n\n"
        "## Relevant Skills\n1. **Targeted Database Search**: Query a portal.\n\n"
        "## Mistakes to Avoid\n1. **Wrong Reference Year**: Check the year.\n\n"
        "## Other Memory\n1. Open, read, answer."
    )
    assert render_items([]) == ""


def test_reference_contexts(lib, all_tasks):
    ex = SimExecutor()
    for t in all_tasks["xbench"][:20]:
        archs = t.meta["skillworld"]["archetypes"]
        a = ex.assess(t, list(oracle_context(t).items))
        assert set(a["helpful"]) == set(lib.helpful_for(archs))
        assert set(a["warnings"]) == set(lib.errors_for(archs))
        irr = ex.assess(t, list(irrelevant_context(t, n=4).items))
        assert irr["helpful"] == {} and irr["irrelevant"] == 4
    with pytest.raises(ValueError, match="n must be >= 0"):
        irrelevant_context(all_tasks["xbench"][0], n=-1)
    with pytest.raises(ValueError, match="unrelated strategies, asked for 99"):
        irrelevant_context(all_tasks["xbench"][0], n=99)


# --------------------------------------------------------------------- cross-process


_FINGERPRINT = """
import hashlib, json
from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks, oracle_context
from hyperskill_lite.types import MemoryContext
tasks = make_tasks("gaia", n=12, seed=9)
llm, ex = SimLLM(seed=9), SimExecutor(seed=9)
out = []
for i, t in enumerate(tasks):
    ep = ex.run(t, oracle_context(t) if i % 2 else MemoryContext())
    x = llm.extract(t, ep)
    out.append([t.question, t.answer, llm.decompose(t), ep.to_dict(), x.lesson,
                [s.text for s in x.skills], llm.judge(t, ep)])
m = llm.merge(llm.extract(tasks[0], ep).skills[0], llm.extract(tasks[1], ep).skills[0])
out.append(m.text)
print(hashlib.sha256(json.dumps(out, sort_keys=True).encode()).hexdigest())
"""


def test_determinism_across_processes():
    def run(hashseed: str) -> str:
        env = {"PYTHONHASHSEED": hashseed, "PATH": "/usr/bin:/bin"}
        res = subprocess.run(
            [sys.executable, "-c", _FINGERPRINT],
            capture_output=True,
            text=True,
            env=env,
            cwd=REPO,
            check=True,
        )
        return res.stdout.strip()

    assert run("1") == run("2")


def test_stable_seed_is_pinned():
    # BLAKE2b of "1\x1fa": fixed across processes, platforms and Python versions
    assert stable_seed(1, "a") == 17830588005661422861
    assert stable_seed(0, "gaia-0007", "execute") == 17306556678476892891
