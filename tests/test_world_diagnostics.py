"""world.diagnostics: skill nodes per hidden latent and same-latent cosines, against a
hand-built memory and a naive pairwise loop, and on a real SkillWorld run."""

from __future__ import annotations

import itertools
import tempfile
from pathlib import Path

import numpy as np
import pytest

from hyperskill_lite.core.embed import HashingEncoder
from hyperskill_lite.core.memory import HypergraphMemory
from hyperskill_lite.core.records import Skill
from hyperskill_lite.methods import make_method
from hyperskill_lite.protocol import shuffled
from hyperskill_lite.runner import run_episodes
from hyperskill_lite.world import SimExecutor, SimLLM, make_tasks, redundancy, skill_latents
from hyperskill_lite.world.latent import latent_meta


def _memory() -> HypergraphMemory:
    code = latent_meta(strategies=["compute_with_code"])
    mem = HypergraphMemory(HashingEncoder(dim=64))
    skills = [
        Skill("Use Python", "Compute every figure in Python.", meta=code),
        Skill("Code The Maths", "Run the arithmetic as code.", meta=code),
        Skill("Read Sources", "Open the primary page first.",
              meta=latent_meta(strategies=["primary_source"])),
        Skill("Early Guess", "Committing to the first entity.", "failure",
              meta=latent_meta(errors=["premature_entity"])),
        Skill("Hand Written", "No metadata at all."),
    ]
    mem.add_trajectory("task", ["step"], skills, "lesson", success=True, steps=3)
    return mem


def test_hand_built_memory_counts_and_matches_a_naive_pair_loop():
    mem = _memory()
    lat = skill_latents(mem)
    assert lat == {"s1": ["compute_with_code"], "s2": ["compute_with_code"],
                   "s3": ["primary_source"], "s4": ["premature_entity"], "s5": []}
    r = redundancy(mem)
    assert r.latents == ["compute_with_code", "premature_entity", "primary_source"]
    assert r.skills_per_latent.tolist() == [2, 1, 1]
    assert r.untagged == 1
    # naive: every same-polarity pair of tagged skills, split by a shared latent
    same, other = [], []
    for a, b in itertools.combinations(["s1", "s2", "s3", "s4"], 2):
        if mem.node(a).polarity != mem.node(b).polarity:
            continue
        za, zb = mem.embedding(a), mem.embedding(b)
        c = float(za @ zb / np.linalg.norm(za) / np.linalg.norm(zb))
        (same if set(lat[a]) & set(lat[b]) else other).append(c)
    assert sorted(r.same) == pytest.approx(sorted(same))
    assert sorted(r.other) == pytest.approx(sorted(other))
    assert len(r.same) == 1 and len(r.other) == 2  # s1-s2; s1-s3, s2-s3 (s4 has no partner)
    s, o = r.share_over(-1.0)
    assert (s, o) == (1.0, 1.0)
    row = r.summary({"delta_merge": 0.85})
    assert row["skill nodes"] == 5 and row["nodes per latent (max)"] == 2
    assert "% same-latent >= delta_merge" in row and "% other >= delta_merge" in row


def test_on_a_skillworld_run_wordings_of_one_strategy_are_closer_than_the_rest():
    tasks = shuffled(make_tasks("xbench", seed=0), seed=42)[:30]
    system = make_method("hyperskill", SimLLM(seed=0), HashingEncoder(dim=256))
    with tempfile.TemporaryDirectory() as tmp:
        run_episodes(system, tasks, SimExecutor(seed=0), Path(tmp), progress=False)
    r = redundancy(system.memory)
    assert r.untagged == 0  # every skill SkillWorld writes names its latents
    assert len(r.same) > 0 and len(r.other) > 0
    assert r.skills_per_latent.sum() >= len(r.skill_ids)
    assert np.median(r.same) > np.median(r.other)


def test_empty_and_single_skill_memories():
    mem = HypergraphMemory(HashingEncoder(dim=32))
    assert redundancy(mem).skill_ids == []
    mem.add_trajectory("t", ["s"], [Skill("Only One", "alone.")], "l", success=True, steps=1)
    r = redundancy(mem)
    assert len(r.same) == 0 and np.isnan(r.share_over(0.5)[0])
