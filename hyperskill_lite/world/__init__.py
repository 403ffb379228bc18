"""SkillWorld: an offline world of compositional agent tasks (the user guide's page docs/guide/skillworld.md).

A task generator (`make_tasks`, profiles "gaia", "webwalker", "xbench"), a simulated
memory LLM (`SimLLM`: decompose, extract, merge, judge) and a simulated executor
(`SimExecutor`) that together let the whole self-evolving loop run offline, in seconds,
on real English text. All behaviour parameters are in `WorldParams`; all text lives in
``hyperskill_lite/world/data/*.json``. It is a teaching and testing instrument: its success rates are
not the paper's and must never be presented as such.

May import: `core/`, `types.py`, `agent/` (token counts, prompt texts), `baselines/` (the
note records its baseline operations return), and `methods/` and `bench/` (the prompts
`meter` counts). Must not import: `plots/`, the runner, the sweeps or the CLI
(tests/test_layers.py). Not here: memory systems (methods/, baselines/), the runner
(runner/), embeddings (core/embed.py).
"""

from hyperskill_lite.world.contexts import (
    harmful_context,
    irrelevant_context,
    oracle_context,
    render_items,
)
from hyperskill_lite.world.diagnostics import Redundancy, redundancy, skill_latents
from hyperskill_lite.world.executor import SimExecutor
from hyperskill_lite.world.generator import PROFILES, make_tasks
from hyperskill_lite.world.latent import latent_meta, latent_of, task_latent
from hyperskill_lite.world.library import data_dir, load_library
from hyperskill_lite.world.library_types import Library
from hyperskill_lite.world.params import PHRASINGS, WorldParams
from hyperskill_lite.world.rng import stable_rng, stable_seed
from hyperskill_lite.world.simllm import SimLLM

__all__ = [
    "Redundancy",
    "redundancy",
    "skill_latents",
    "PROFILES",
    "PHRASINGS",
    "WorldParams",
    "Library",
    "SimLLM",
    "SimExecutor",
    "make_tasks",
    "data_dir",
    "load_library",
    "latent_meta",
    "latent_of",
    "task_latent",
    "oracle_context",
    "harmful_context",
    "irrelevant_context",
    "render_items",
    "stable_rng",
    "stable_seed",
]
