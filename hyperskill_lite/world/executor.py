"""SimExecutor: the simulated agent of SkillWorld (implements `Executor`).

It reads only the memory context's items (kind, text, hidden ``meta["skillworld"]``),
the context text (for token counts) and the task's hidden structure; never
`context.retrieved`, `context.plan` or anything naming the memory system. Its random
draws come from (seed, task.id, "execute") alone, so two memory systems that hand it the
same items get the same episode.

The model (all weights in `WorldParams`)::

    credit(x)  = max over items expressing latent x of kind_weight[item.kind]   (each latent once)
    raw        = helpful_logit * sum credit(helpful strategies of the task's archetypes)
               + warning_logit * sum credit(error patterns of the task's archetypes)
    gain       = G * (1 - exp(-raw / G))                        (diminishing returns, G = max_gain_logit)
    logit      = base(profile, level) + gain
               - harmful_logit * sum credit(spurious strategies concerning the task)
               - noise_logit * sum kind_weight[item.kind] over items with nothing relevant to the task
    success    ~ Bernoulli(sigmoid(logit))
    E[steps]   = step_base + level extra + sum_a steps_mean[a] * (1 - step_saving * credit(strategy of a))
               + harmful and noise detours, times failure_step_factor on failure
    calls      ~ Poisson(steps * calls_per_step)

Not here: which items a memory retrieves, any embedding, any real tool.
"""

from __future__ import annotations

import math
from typing import Any

from hyperskill_lite.core.records import ContextItem
from hyperskill_lite.llm.tokens import count_tokens
from hyperskill_lite.types import Episode, MemoryContext, Task
from hyperskill_lite.world.latent import latent_of, task_latent
from hyperskill_lite.world.library import load_library
from hyperskill_lite.world.library_types import Library
from hyperskill_lite.world.params import WorldParams
from hyperskill_lite.world.rng import stable_rng

__all__ = ["SimExecutor"]


class SimExecutor:
    """Simulated executor; see the module docstring for the model.

    >>> from hyperskill_lite.world.generator import make_tasks
    >>> task = make_tasks("webwalker", n=1, seed=0)[0]
    >>> ex = SimExecutor(seed=1)
    >>> ep = ex.run(task, MemoryContext())
    >>> ep == SimExecutor(seed=1).run(task, MemoryContext())
    True
    >>> ep.steps >= 1, ep.meta["context_tokens"]
    (True, 0)
    """

    name = "skillworld"

    def __init__(self, params: WorldParams | None = None, seed: int = 0) -> None:
        self.params = params or WorldParams()
        self.seed = int(seed)
        self.library: Library = load_library(self.params.data_dir)

    def assess(self, task: Task, items: list[ContextItem]) -> dict[str, Any]:
        """What the context does for this task, deterministically (no randomness).

        Returns a JSON-ready dict: ``helpful``, ``warnings``, ``harmful`` (latent id ->
        credit), ``irrelevant`` (number of items with nothing relevant), ``noise`` (their
        summed kind weights), ``gain`` (after saturation), ``logit`` and ``p_success``.
        """
        lat = task_latent(task)
        lib, p = self.library, self.params
        archs = list(lat["archetypes"])
        want = {
            "strategies": set(lib.helpful_for(archs)),
            "errors": set(lib.errors_for(archs)),
            "spurious": set(lib.spurious_for(archs)),
        }
        credit: dict[str, dict[str, float]] = {f: {} for f in want}
        irrelevant, noise = 0, 0.0
        for item in items:
            w = float(p.kind_weight.get(item.kind, 1.0))
            found = latent_of(item.meta)
            relevant = False
            for f, ids in found.items():
                for i in ids:
                    if i in want[f]:
                        relevant = True
                        credit[f][i] = max(credit[f].get(i, 0.0), w)
            if not relevant:
                irrelevant += 1
                noise += w
        raw = p.helpful_logit * sum(credit["strategies"].values())
        raw += p.warning_logit * sum(credit["errors"].values())
        gain = p.max_gain_logit * (1.0 - math.exp(-raw / p.max_gain_logit))
        logit = p.base_logit(lat["profile"], int(lat["difficulty"])) + gain
        logit -= p.harmful_logit * sum(credit["spurious"].values())
        logit -= p.noise_logit * noise
        return {
            "helpful": dict(sorted(credit["strategies"].items())),
            "warnings": dict(sorted(credit["errors"].items())),
            "harmful": dict(sorted(credit["spurious"].items())),
            "irrelevant": irrelevant,
            "noise": noise,
            "gain": gain,
            "logit": logit,
            "p_success": 1.0 / (1.0 + math.exp(-logit)),
        }

    def success_probability(self, task: Task, context: MemoryContext) -> float:
        """P(success) of `task` with `context` (the Bernoulli parameter of `run`)."""
        return float(self.assess(task, list(context.items))["p_success"])

    def expected_steps(self, task: Task, assessment: dict[str, Any], success: bool) -> float:
        """E[steps] of an episode given `assess`'s result and its outcome."""
        lat = task_latent(task)
        lib, p = self.library, self.params
        mean = p.step_base + p.level_extra_steps[int(lat["difficulty"]) - 1]
        for a in lat["archetypes"]:
            arch = lib.archetypes[a]
            mean += arch.steps_mean * (
                1.0 - p.step_saving * assessment["helpful"].get(arch.strategy, 0.0)
            )
        mean += p.harmful_extra_steps * sum(assessment["harmful"].values())
        mean += p.noise_extra_steps * assessment["noise"]
        return mean if success else mean * p.failure_step_factor

    def run(self, task: Task, context: MemoryContext) -> Episode:
        """Run `task` with the memory `context` and return the episode (success as the
        executor sees it; the runner's judge decides r_i)."""
        lat = task_latent(task)
        lib, p = self.library, self.params
        items = list(context.items)
        a = self.assess(task, items)
        rng = stable_rng(self.seed, task.id, "execute")
        success = bool(rng.random() < a["p_success"])
        archs = list(lat["archetypes"])
        # where a failure happens: uncovered archetypes are likelier culprits
        w = [
            1.0 if lib.archetypes[x].strategy not in a["helpful"] else p.covered_failure_weight
            for x in archs
        ]
        total = sum(w)
        fail_at = (
            archs[int(rng.choice(len(archs), p=[x / total for x in w]))] if total > 0 else archs[0]
        )
        errs = lib.archetypes[fail_at].errors
        error = errs[int(rng.integers(len(errs)))]
        wrong = list(lat.get("wrong_answers") or ["unknown"])
        wrong_answer = wrong[int(rng.integers(len(wrong)))]
        mean = self.expected_steps(task, a, success)
        steps = 1 + int(rng.poisson(max(mean - 1.0, 0.0)))
        calls = int(rng.poisson(steps * p.calls_per_step))
        step_lines = [self._step_line(x, lat["topic"], rng) for x in archs]
        answer = task.answer if success else wrong_answer

        ctx_tokens = count_tokens(context.text)
        per_step = p.prompt_tokens + count_tokens(task.text) + ctx_tokens + p.action_tokens
        history = sum(min(t, p.window) for t in range(steps))  # observations kept in the window
        tokens = steps * per_step + history * p.observation_tokens

        lines = []
        if items:
            lines.append(f"Read {len(items)} retrieved memory items before starting.")
        for k, (x, line) in enumerate(zip(archs, step_lines), start=1):
            lines.append(f"Step {k}: {line}")
            if not success and x == fail_at:
                lines.append(f"Problem: {lib.latents[error].symptom}")
                break
        lines.append(f"Final answer: {answer} (after {steps} steps and {calls} tool calls).")
        meta: dict[str, Any] = {
            "context_tokens": ctx_tokens,
            "skillworld": {
                **a,
                "failed_at": None if success else fail_at,
                "error": None if success else error,
                # what the trajectory showed the agent, for the model that summarises it
                "seen": [{"text": i.text, "latent": latent_of(i.meta)} for i in items],
            },
        }
        return Episode(
            task_id=task.id,
            success=success,
            steps=steps,
            calls=calls,
            answer=answer,
            trajectory="\n".join(lines),
            tokens=int(tokens),
            meta=meta,
        )

    def _step_line(self, archetype_id: str, topic: str, rng: Any) -> str:
        arch = self.library.archetypes[archetype_id]
        return arch.steps[int(rng.integers(len(arch.steps)))].replace("{topic}", topic)
