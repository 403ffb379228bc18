"""One run from its settings: what ``python -m hyperskill_lite run`` does, as a library call.

`RunSpec` holds every setting of one run (which memory method, which tasks, which world
or model and its `ModelSettings`, where to write); `check_spec` refuses impossible
combinations with a `ValueError` naming the setting; `prepare` builds the parts (tasks
in the run's order, the memory system, the executor, the agent's and the judge's model
clients, the judges, and the settings written to ``OUT/run.json``) without touching the
output folder; `check_server` runs the preflight of a live run (llm/preflight.py)
before its folder exists; `execute` runs the parts through the resumable runner
(runner/), recording what the preflight and the probes found as run.json's
``observed`` (facts, not settings: a resume does not compare them), and writes GAIA's
``submission.jsonl`` for a test-split run. The CLI turns its arguments into a RunSpec and
a sweep turns a cell into one, so both run exactly the same code.

>>> spec = RunSpec(out=Path("runs/x"), episodes=5, encoder="hashing")
>>> spec.live, spec.task_source
(False, 'SkillWorld gaia')

Not here: argument parsing and printing (cli/), the episode loop (runner/loop.py), the
memory systems (methods/), the world (world/), the model client and tools (agent/).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field, replace
from functools import partial
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.loop import AgentExecutor
from hyperskill_lite.agent.tools.preflight import check_sandbox, needs_for
from hyperskill_lite.agent.tools.settings import ToolSettings
from hyperskill_lite.agent.tools.toolbox import build_toolbox
from hyperskill_lite.bench.judges import JUDGES, make_judge
from hyperskill_lite.bench.loaders import load_benchmark, load_tasks_jsonl
from hyperskill_lite.bench.submission import write_submission
from hyperskill_lite.core.config import PRUNE_MODES, HyperSkillConfig
from hyperskill_lite.core.embed import ENCODERS, encoder_by_name, encoder_known
from hyperskill_lite.llm.cassette import Cassette
from hyperskill_lite.llm.client import BENCHMARKS
from hyperskill_lite.llm.preflight import preflight_run
from hyperskill_lite.llm.settings import ModelSettings, make_llms, usage_totals
from hyperskill_lite.methods import METHODS
from hyperskill_lite.methods.registry import make_method, registered, spec_of
from hyperskill_lite.protocol import EvalProtocol
from hyperskill_lite.runner.files import read_records
from hyperskill_lite.runner.loop import run_episodes
from hyperskill_lite.types import Task
from hyperskill_lite.world.executor import SimExecutor
from hyperskill_lite.world.generator import PROFILES, make_tasks
from hyperskill_lite.world.params import PHRASINGS, WorldParams
from hyperskill_lite.world.simllm import SimLLM

__all__ = ["RunSpec", "RunParts", "check_spec", "config_of", "retrieval_of", "prepare",
           "check_server", "execute", "skillworld_parts", "encoder_name", "make_encoder"]

PAPER_PROTOCOL = EvalProtocol()
"""The paper's protocol: online memory, one pass, the seed-42 order (frozen, shared)."""


@dataclass(frozen=True)
class RunSpec:
    """Every setting of one run. Field names are the `run` command's options.

    The tasks come from SkillWorld (`profile`, offline; the default) or, for a live run
    against an OpenAI-compatible model (`backend="openai"`), from a benchmark file
    (`benchmark` + `data`) or a JSONL task file (`tasks`).
    """

    out: Path
    """The run folder: records, state, checkpoints (a rerun resumes)."""
    method: str = "hyperskill"
    seed: int = 0
    """World seed (SkillWorld) or model seed; the task order is `evaluation.order_seed`."""
    episodes: int | None = None
    """How many tasks of the ordered list to run (None: all)."""
    encoder: Any = "minilm"
    """"minilm", "hashing", a recorded encoder name such as "hashing(dim=64,seed=3)", or an
    encoder instance (library callers; run.json records its ``name``)."""
    k: int | None = None
    """The method's retrieval count (``--k``; None: its own default): HyperSkill's k_u, k_e
    and k_s (the config's, 2), a baseline's k (3; ExpeL's rules too); a method that does
    not say how it takes one refuses it (`MethodSpec.takes_k`). run.json records what the
    built method uses ("retrieval", `retrieval_of`)."""
    prune_mode: str | None = None
    rho: float | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    """Further `HyperSkillConfig` fields (beta, delta_dedup, ...; explore.py's knobs),
    applied after `k`, `prune_mode` and `rho`."""
    progress: bool = True
    durable: bool = True
    """fsync every record (a scratch run of explore.py passes False)."""
    # -- offline world
    profile: str = "gaia"
    phrasing: str = "calibrated"
    # -- live model
    backend: str | None = None
    base_url: str | None = None
    model: str | None = None
    tasks: Path | None = None
    benchmark: str | None = None
    data: Path | None = None
    judge: str | None = None
    score_judge: str | None = None
    subset: str | None = None
    level: tuple[int, ...] | None = None
    max_steps: int = 10
    split: str | None = None
    """GAIA's split ("validation", "test"); "test" writes submission.jsonl, judges nothing."""
    settings: ModelSettings = field(default_factory=ModelSettings)
    """The model calls' settings (temperature, extra_body, the judge's model, ...)."""
    needs: tuple[str, ...] = ()
    """Capabilities the preflight checks besides those the tasks' files need
    (llm/preflight.py: vision, transcription)."""
    tools: Any = None
    """The agent's tools (`agent.tools.ToolSettings`); None: the defaults (search by
    the provider whose key is set, pages over HTTP, files, the python sandbox)."""
    structured: str = "auto"
    protocol: str = "auto"
    record: Path | None = None
    replay: Path | None = None
    evaluation: EvalProtocol = PAPER_PROTOCOL
    """The evaluation protocol: task order seed, passes, learn/eval split with frozen or
    online memory, own-task exclusion (protocol.py; default the paper's)."""
    extra: dict[str, Any] = field(default_factory=dict)
    """Settings of later option groups, by name (kept in run.json)."""

    @property
    def live(self) -> bool:
        """True for a run against a model server (or its cassette)."""
        return self.backend is not None or self.benchmark is not None or self.tasks is not None

    @property
    def task_source(self) -> str:
        """Where the tasks come from, in words."""
        if not self.live:
            return f"SkillWorld {self.profile}"
        if self.benchmark:
            return f"{self.benchmark} ({self.data})"
        return str(self.tasks)


def check_spec(spec: RunSpec) -> RunSpec:
    """Refuse settings that cannot run, with a `ValueError` naming the setting and what to
    do; returns `spec` (with `backend` filled in for a live run).

    >>> check_spec(RunSpec(out=Path("o"), rho=2.0))
    Traceback (most recent call last):
    ...
    ValueError: --rho must be in [0, 1] (the share of entries pruned per cycle), got 2.0
    """
    if spec.method not in METHODS:
        raise ValueError(f"unknown method {spec.method!r}; choose one of {', '.join(METHODS)} "
                         "(`python -m hyperskill_lite methods` describes them)")
    if spec.episodes is not None and spec.episodes < 1:
        raise ValueError(f"--episodes must be >= 1, got {spec.episodes}")
    if spec.k is not None and spec.k < 1:
        raise ValueError(f"--k must be >= 1 (retrieval budget), got {spec.k}")
    if spec.rho is not None and not 0.0 <= spec.rho <= 1.0:
        raise ValueError(f"--rho must be in [0, 1] (the share of entries pruned per cycle), "
                         f"got {spec.rho}")
    if spec.prune_mode is not None and spec.prune_mode not in PRUNE_MODES:
        raise ValueError(f"--prune-mode must be one of {', '.join(PRUNE_MODES)}, "
                         f"got {spec.prune_mode!r}")
    if spec.evaluation.exclude_self and not spec_of(spec.method).exclude_self:
        able = [s.name for s in registered() if s.exclude_self]
        raise ValueError(f"--exclude-self needs a method that can leave a task's own "
                         f"memories out ({', '.join(able)}); {spec.method} cannot")
    if spec.k is not None and spec_of(spec.method).takes_k is None:
        raise ValueError(f"--k: method {spec.method!r} does not take a retrieval count (its "
                         f"registration does not say how, MethodSpec.takes_k); run it without --k")
    if isinstance(spec.encoder, str) and not encoder_known(spec.encoder):
        raise ValueError(f"--encoder must be one of {', '.join(ENCODERS)}, got {spec.encoder!r}")
    if not spec.live:
        if spec.profile not in PROFILES:
            raise ValueError(f"--profile must be one of {', '.join(PROFILES)}, got {spec.profile!r}")
        if spec.phrasing not in PHRASINGS:
            raise ValueError(f"--phrasing must be one of {', '.join(PHRASINGS)}, "
                             f"got {spec.phrasing!r}")
        if spec.judge not in (None, "self"):
            raise ValueError(f"--judge {spec.judge} needs a live model; SkillWorld takes "
                             "--judge self (the memory learns from the simulated self-judge)")
        if spec.score_judge is not None:
            raise ValueError("--score-judge applies to live runs with --judge self only")
        return spec
    if not (spec.model or os.environ.get("HYPERSKILL_MODEL")):
        raise ValueError("a live run needs a model name: --model NAME (or set "
                         "HYPERSKILL_MODEL), as the server lists it at /v1/models")
    if spec.benchmark is not None and spec.tasks is not None:
        raise ValueError("give either --benchmark NAME --data PATH or --tasks FILE, not both")
    if spec.benchmark is not None and spec.benchmark not in BENCHMARKS:
        raise ValueError(f"--benchmark must be one of {', '.join(BENCHMARKS)}, "
                         f"got {spec.benchmark!r}")
    if spec.benchmark is not None and spec.data is None:
        raise ValueError("--benchmark needs --data PATH (the benchmark file or folder you "
                         "downloaded)")
    if spec.benchmark is None and spec.tasks is None:
        raise ValueError("a live run needs --benchmark NAME --data PATH or --tasks FILE")
    if spec.record is not None and spec.replay is not None:
        raise ValueError("--record and --replay are exclusive")
    if spec.max_steps < 1:
        raise ValueError(f"--max-steps must be >= 1, got {spec.max_steps}")
    if spec.judge is not None and spec.judge not in JUDGES:
        raise ValueError(f"--judge must be one of {', '.join(JUDGES)}, got {spec.judge!r}")
    spec.settings.check()
    if spec.split is not None and spec.split not in ("validation", "test"):
        raise ValueError(f"--split must be validation or test, got {spec.split!r}")
    if spec.split == "test":
        if spec.benchmark != "gaia":
            raise ValueError("--split test applies to --benchmark gaia only (its test answers "
                             "are withheld; the other benchmarks publish theirs)")
        if spec.judge not in (None, "self") or spec.score_judge is not None:
            raise ValueError("--split test is never judged (its answers are withheld): leave "
                             "out --judge (the memory learns from the agent's own outcome) or "
                             "pass --judge self")
    if spec.subset is not None and spec.subset != "all":
        try:
            if int(spec.subset) < 1:
                raise ValueError
        except ValueError:
            raise ValueError(f"--subset must be a number >= 1 or 'all', got {spec.subset!r}") from None
    return replace(spec, backend=spec.backend or "openai")


def config_of(spec: RunSpec) -> HyperSkillConfig:
    """The HyperSkill configuration a run uses: the defaults with `k`, `prune_mode` and
    `rho` applied."""
    cfg = HyperSkillConfig()
    if spec.k is not None:
        cfg = cfg.with_k(spec.k)
    changes: dict[str, Any] = {}
    if spec.prune_mode is not None:
        changes["prune_mode"] = spec.prune_mode
    if spec.rho is not None:
        changes["rho"] = spec.rho
    changes.update(spec.overrides)
    return cfg.replace(**changes) if changes else cfg


def encoder_name(encoder: Any) -> str:
    """The name run.json records for a spec's encoder (its ``name`` for an instance)."""
    return encoder if isinstance(encoder, str) else str(encoder.name)


def make_encoder(encoder: Any) -> Any:
    """The encoder of a spec: built by name (shared per name), or the instance given."""
    return encoder_by_name(encoder) if isinstance(encoder, str) else encoder


def ordered(tasks: list[Task], episodes: int | None,
            evaluation: EvalProtocol = PAPER_PROTOCOL) -> tuple[list[Task], int]:
    """The tasks in the protocol's order (the paper's: seed 42), cut to `episodes`,
    repeated for each pass; also how many tasks there were, so a caller can say when
    `episodes` asked for more."""
    return evaluation.arrange(tasks, episodes), len(tasks)


def skillworld_parts(profile: str, seed: int, episodes: int | None,
                     phrasing: str = "calibrated", evaluation: EvalProtocol = PAPER_PROTOCOL,
                     ) -> tuple[list[Task], Any, Any, int]:
    """SkillWorld's tasks (in the run's order), simulated model and executor for one
    world seed; and the number of tasks the profile has."""
    params = WorldParams(phrasing=phrasing)
    tasks, available = ordered(make_tasks(profile, seed=seed, params=params), episodes,
                               evaluation)
    return tasks, SimLLM(params, seed=seed), SimExecutor(params, seed=seed), available


@dataclass
class RunParts:
    """What `prepare` builds for one run."""

    spec: RunSpec
    system: Any
    """The memory system (methods/)."""
    tasks: list[Task]
    executor: Any
    llm: Any
    judge: Any = None
    learn_judge: Any = None
    info: dict[str, Any] = field(default_factory=dict)
    """The run's settings, written to OUT/run.json (a resume must match them)."""
    available: int = 0
    """Tasks the source has (``len(tasks) < available`` when `episodes` cut the list)."""
    usage: Any = None
    """Callable returning cumulative model usage (live runs), for per-episode counts."""
    judge_llm: Any = None
    """The GT judge's own model client (live runs; see `ModelSettings`)."""

    @property
    def config(self) -> HyperSkillConfig:
        return config_of(self.spec)

    @property
    def maintain_every(self) -> int:
        """Maintenance period of the run: ceil(0.1 N) over the tasks of one pass."""
        return self.config.maintain_every(len(self.tasks) // self.spec.evaluation.passes)


def retrieval_of(system: Any) -> dict[str, Any] | None:
    """The retrieval counts a built memory uses (its ``retrieval_budget()``), as run.json
    records them: ``{"k_u": 2, "k_e": 2, "k_s": 2}`` for HyperSkill, ``{"k": 3}`` for a
    baseline (ExpeL adds ``insights_k``), ``{}`` for a memory that retrieves nothing, None
    for one that does not say (a plugin without the method)."""
    report = getattr(system, "retrieval_budget", None)
    return dict(report()) if callable(report) else None


def prepare(spec: RunSpec) -> RunParts:
    """Build the parts of a run (see the module docstring); nothing is written.

    Raises ValueError for settings that cannot run (`check_spec`),
    `BenchmarkDataError` for unreadable task files.
    """
    spec = check_spec(spec)
    cfg = config_of(spec)
    info: dict[str, Any] = {"method": spec.method, "seed": spec.seed,
                            "encoder": encoder_name(spec.encoder),
                            "config": cfg.to_dict()}
    if not spec.live:
        tasks, llm, executor, available = skillworld_parts(
            spec.profile, spec.seed, spec.episodes, spec.phrasing, spec.evaluation)
        info.update(world="skillworld", profile=spec.profile, phrasing=spec.phrasing)
        judge = learn_judge = usage = judge_llm = None
        if spec.judge == "self":  # SR stays the world's truth; the memory learns from SimLLM
            learn_judge = llm.judge
            info.update(score_judge="world", learn_judge="self")
    else:
        llm, judge_llm, executor, tasks, available, judge, learn_judge, judges = \
            _live_parts(spec, cfg)
        usage = partial(usage_totals, llm, judge_llm)
        info.update(backend=spec.backend, model=llm.model, benchmark=spec.benchmark,
                    tasks=str(spec.tasks or spec.data), judge=spec.judge, **judges,
                    structured=spec.structured, tool_protocol=spec.protocol,
                    tools=executor.tools.settings.to_dict(),
                    model_settings=spec.settings.to_dict())
        if spec.split is not None:
            info["split"] = spec.split
    info.update(spec.extra)
    if spec.evaluation.eval_from is not None and spec.evaluation.eval_from >= len(tasks):
        raise ValueError(f"--freeze-after/--eval-from {spec.evaluation.eval_from} leaves "
                         f"nothing to evaluate: the run has {len(tasks)} episodes")
    system = make_method(spec.method, llm, make_encoder(spec.encoder), cfg, k=spec.k)
    info["retrieval"] = retrieval_of(system)
    return RunParts(spec, system, tasks, executor, llm, judge, learn_judge, info, available,
                    usage, judge_llm)


def _live_parts(spec: RunSpec, cfg: HyperSkillConfig):
    if spec.benchmark:
        kw: dict[str, Any] = {}
        if spec.benchmark == "webwalkerqa" and spec.subset is not None:
            kw["subset"] = None if spec.subset == "all" else int(spec.subset)
        if spec.benchmark == "gaia" and spec.level:
            kw["level"] = list(spec.level)
        if spec.split is not None:
            kw["split"] = spec.split
        raw = load_benchmark(spec.benchmark, spec.data, **kw)
        prompt_kind = spec.benchmark
    else:
        raw = load_tasks_jsonl(spec.tasks)
        prompt_kind = "auto"
    if not raw:
        raise ValueError(_no_tasks(spec))
    tasks, available = ordered(raw, spec.episodes, spec.evaluation)
    cassette = None
    if spec.record:  # nothing written until the run starts (`_run`)
        cassette = Cassette(spec.record, mode="record", defer=True)
    elif spec.replay:
        cassette = Cassette(spec.replay, mode="replay")
    llm, judge_llm = make_llms(spec.settings, base_url=spec.base_url, model=spec.model,
                               benchmark=prompt_kind, cassette=cassette,
                               structured=spec.structured)
    settings = spec.tools if spec.tools is not None else ToolSettings()
    source = spec.data if spec.benchmark else spec.tasks
    files_root = (source if source.is_dir() else source.parent) if source else None
    tools = build_toolbox(settings, llm, files_root=files_root,
                          require_keys=spec.replay is None)
    llm.tool_names = tools.names  # the decomposition prompt lists exactly these tools
    executor = AgentExecutor(llm, tools, max_steps=spec.max_steps, window=cfg.window,
                             protocol=spec.protocol)
    if spec.split == "test":  # answers withheld: score nothing, call no judge (a submission)
        learn = "self" if spec.judge == "self" else "outcome"
        return (llm, judge_llm, executor, tasks, available, make_judge("none"),
                make_judge(learn, llm if learn == "self" else None),
                {"score_judge": "none", "learn_judge": learn})
    has_gold = all(t.answer is not None for t in tasks)
    gt_kind = "llm" if spec.benchmark and has_gold else "exact" if has_gold else "self"
    kind = spec.judge or gt_kind
    if spec.score_judge and not (kind == "self" and has_gold):
        raise ValueError("--score-judge applies to --judge self on data with answers only")

    def judge_of(k: str):  # the GT judge on its own client; the self-judge on the agent's
        return make_judge(k, judge_llm if k == "llm" else llm)

    judge = judge_of(kind)
    learn_judge = None
    judges = {"score_judge": kind, "learn_judge": kind}
    if kind == "self" and has_gold:  # the paper's robustness study: learn from the self-judge,
        score = spec.score_judge or gt_kind  # score SR with the GT run's judge
        judge, learn_judge = judge_of(score), judge
        judges = {"score_judge": score, "learn_judge": "self"}
    return llm, judge_llm, executor, tasks, available, judge, learn_judge, judges


def _no_tasks(spec: RunSpec) -> str:
    """The one line for a task source that holds no task."""
    if spec.tasks is not None:
        return (f"{spec.tasks}: the file is empty (no tasks); write one task per line as "
                'JSON, e.g. {"id": "t1", "question": "...", "answer": "..."}')
    kept = " after --level/--subset" if spec.level or spec.subset else ""
    return f"{spec.data}: no {spec.benchmark} tasks{kept}; check --data and the filters"


def probe(parts: RunParts) -> dict[str, Any]:
    """Ask a live server what it supports (structured outputs, native tool calls); the
    answers, for run.json's ``observed`` (the preflight asked already: no new calls).
    SkillWorld runs probe nothing."""
    if not parts.spec.live:
        return {}
    mode = parts.llm.resolve_structured()
    if parts.judge_llm is not None:  # a judge on the agent's server and model: no 2nd probe
        parts.judge_llm.adopt_structured(parts.llm)
    return {"structured_mode": mode,
            "structured_probe": parts.llm.structured_probe,
            "protocol_used": parts.executor.resolve_protocol(),
            "protocol_probe": parts.executor.protocol_probe,
            "readers": parts.executor.tools.readers()}


def check_server(parts: RunParts) -> dict[str, Any]:
    """The preflight of a live run (llm/preflight.py, agent/tools/preflight.py), to call
    before its folder is created: raises `PreflightError` (a ValueError: one line, exit
    2) when the python tool's sandbox cannot be had here (`check_sandbox`: the default
    needs bubblewrap) or the server cannot serve the run; else what it found, for
    run.json's ``observed``.
    SkillWorld runs check nothing; replays check the sandbox only."""
    spec = parts.spec
    if not spec.live:
        return {}
    sandbox = parts.executor.tools.sandbox  # a live run's Toolbox: None without python
    if sandbox is not None:  # replays run the python tool too: checked before anything
        check_sandbox(sandbox)
    if spec.replay is not None:
        return {}
    tools = parts.executor.tools.settings
    needs = {*spec.needs, *needs_for(parts.tasks, media=tools.media)}
    return preflight_run(parts.llm, parts.judge_llm, executor=parts.executor, needs=needs,
                         transcription_model=tools.audio_model or "whisper-1",
                         vision_model=tools.vision_model, vision_base_url=tools.vision_base_url,
                         audio_base_url=tools.audio_base_url).to_dict()


def execute(spec: RunSpec | RunParts, observed: dict[str, Any] | None = None,
            ) -> list[dict[str, Any]]:
    """Run (or resume) a run in ``spec.out``; its records, every episode. The one path
    every run takes: the `run` command, `compare` and sweeps (through the sweep executor),
    and explore.py's short runs.

    `spec` is a `RunSpec` (`prepare` builds its parts and `check_server` runs the live
    preflight, before the folder exists) or the `RunParts` a caller prepared already
    (to print what it is about to run, or to keep the memory system). `observed` (what
    `check_server` found) is recorded in run.json with the probes' answers and the
    transport settings, as this invocation's observation."""
    if isinstance(spec, RunSpec):
        parts = prepare(spec)
        observed = check_server(parts) if observed is None else observed
    else:
        parts = spec
    return _run(parts, observed)


def _run(parts: RunParts, observed: dict[str, Any] | None) -> list[dict[str, Any]]:
    spec = parts.spec
    seen = {**(observed or {}), **probe(parts)}
    if spec.live:
        seen["transport"] = spec.settings.transport()
    cassette = getattr(parts.llm, "cassette", None)
    if cassette is not None:
        cassette.begin()  # the run starts: the recording is written from here
    run_episodes(parts.system, parts.tasks, parts.executor, spec.out, judge=parts.judge,
                 learn_judge=parts.learn_judge,
                 maintain_every=parts.maintain_every,
                 run_info=parts.info, observed=seen or None, protocol=spec.evaluation,
                 progress=spec.progress, usage=parts.usage, durable=spec.durable)
    records = read_records(spec.out)
    if spec.split == "test":
        write_submission(records, spec.out)
    return records
