"""A sweep file: the grid of runs (method x profile or benchmark x seed x backbone x config
fields), read from TOML and checked field by field::

    [sweep]
    episodes = 20            # tasks per cell (default: every task of the profile / benchmark)
    encoder = "hashing"      # "minilm" (default) or "hashing"
    phrasing = "calibrated"  # SkillWorld's text model (default calibrated)
    reference = "hyperskill"  # optional: pair every setting with it too (besides no-memory)
    temperature = 0.7        # model settings for every backbone (see below)
    sandbox = "bwrap"        # live cells' python tool: bwrap (default) or process (weaker)

    [grid]
    method = ["hyperskill", "memp"]
    profile = ["gaia", "xbench"]   # SkillWorld profiles (offline; no [[backbone]] needed)
    seed = [0, 1]
    order_seed = [42, 7]          # optional: task orders (run --order-seed; default 42)
    k = [2, 5]                     # optional config fields: k, rho, prune_mode

    [[benchmark]]                  # live benchmarks instead of profiles (need a backbone)
    name = "gaia"                  # gaia | webwalkerqa | xbench
    data = "data/gaia/2023/validation"
    judge = "llm"                  # optional: exact | llm | self
    split = "validation"           # optional: "test" for GAIA's test split (a submission)

    [[backbone]]                   # live models (OpenAI-compatible)
    name = "qwen3-30b"
    model = "Qwen/Qwen3-30B-A3B"
    base_url = "http://gpu-node:8000/v1"
    key_env = "VLLM_KEY"           # the environment variable holding its key (optional)
    max_concurrent = 8             # cells at once against this server (default 4)
    extra_body = { chat_template_kwargs = { enable_thinking = false } }
    judge_model = "gpt-4o"         # the GT judge's own model and server (optional)
    judge_base_url = "https://api.openai.com/v1"
    judge_key_env = "OPENAI_API_KEY"

Model settings (`MODEL_FIELDS`, the `run` options of the same names: temperature, top_p,
max_tokens, timeout, max_retries, extra_body, judge_model, judge_base_url,
judge_temperature) may be set for the whole sweep in ``[sweep]`` and for one backbone in
its ``[[backbone]]`` table, which wins; each is checked as `llm.settings.ModelSettings`
checks it. ``judge_key_env`` names the variable holding the judge server's key.

Each cell is exactly one `run` (`Cell.argv`: ``python -m hyperskill_lite run ...``) with
its own output folder under the sweep's output folder; execute.py runs SkillWorld cells
as that command in a process of their own and live cells in threads of the sweep's
process (network-bound), with the same settings (`Cell.settings`).

>>> spec = parse_sweep({"grid": {"method": ["hyperskill"], "profile": ["gaia"], "seed": [0, 1]},
...                     "sweep": {"episodes": 5, "encoder": "hashing"}})
>>> [c.key for c in spec.cells()]
['skillworld/gaia/hyperskill/seed-0', 'skillworld/gaia/hyperskill/seed-1']

Not here: running the cells (execute.py), the results (results.py).
"""

from __future__ import annotations

import itertools
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hyperskill_lite.agent.tools.sandbox import ISOLATIONS
from hyperskill_lite.bench.gaia import GAIA_SPLITS
from hyperskill_lite.bench.judges import JUDGES
from hyperskill_lite.core.config import PRUNE_MODES
from hyperskill_lite.core.embed import ENCODERS
from hyperskill_lite.llm.client import BENCHMARKS
from hyperskill_lite.llm.settings import MODEL_FIELDS, ModelSettings
from hyperskill_lite.methods import METHODS
from hyperskill_lite.protocol import PAPER_ORDER_SEED, EvalProtocol
from hyperskill_lite.world.generator import PROFILES
from hyperskill_lite.world.params import PHRASINGS

__all__ = ["SweepError", "SweepSpec", "Backbone", "Benchmark", "Cell", "load_sweep", "parse_sweep"]

CONFIG_FIELDS = {"k": int, "rho": float, "prune_mode": str}
"""Config fields a grid may vary (the `run` options of the same names)."""
DEFAULT_MAX_CONCURRENT = 4
SKILLWORLD = "skillworld"


class SweepError(ValueError):
    """A sweep file that cannot be run; the message names the file and the field."""


@dataclass(frozen=True)
class Backbone:
    """A live model behind an OpenAI-compatible server."""

    name: str
    model: str
    base_url: str | None = None
    key_env: str | None = None
    max_concurrent: int = DEFAULT_MAX_CONCURRENT
    settings: tuple[tuple[str, Any], ...] = ()
    """Model settings (`MODEL_FIELDS`) set for this backbone, the sweep's included."""
    judge_key_env: str | None = None

    def model_settings(self) -> ModelSettings:
        """The backbone's settings as `ModelSettings` (keys named by key_env)."""
        values: dict[str, Any] = dict(self.settings)
        if self.key_env:
            values["api_key_env"] = self.key_env
        if self.judge_key_env:
            values["judge_api_key_env"] = self.judge_key_env
        return ModelSettings.from_dict(values)


@dataclass(frozen=True)
class Benchmark:
    """A benchmark file or folder the user provides (bench/ loaders read it)."""

    name: str
    data: str
    judge: str | None = None
    split: str | None = None


@dataclass(frozen=True)
class Cell:
    """One run of the grid."""

    method: str
    seed: int
    backbone: Backbone | None  # None: SkillWorld's simulated model
    profile: str | None = None
    benchmark: Benchmark | None = None
    config: tuple[tuple[str, Any], ...] = ()
    episodes: int | None = None
    encoder: str = "minilm"
    phrasing: str = "calibrated"
    order_seed: int = PAPER_ORDER_SEED
    """The task order's seed (`run --order-seed`; 42, the paper's, by default)."""
    sandbox: str = "bwrap"
    """A live cell's python tool isolation (`run --sandbox`)."""
    judge: str | None = None
    """A SkillWorld cell's learning judge: None (the world's truth) or "self" (`run
    --judge self`: the memory learns from the simulated self-judge; compare.py)."""
    evaluation: EvalProtocol | None = None
    """The evaluation protocol besides the order seed (passes, learn/eval split, own-task
    exclusion: `run`'s protocol options); None: the paper's."""
    folder: str | None = None
    """Its folder under the output, instead of the sweep's layout (`key`): compare.py's
    preset grid keeps ``<profile>/<method>/seed-<s>``."""

    @property
    def protocol(self) -> EvalProtocol:
        """The cell's evaluation protocol, its order seed included."""
        base = self.evaluation if self.evaluation is not None else EvalProtocol()
        return base.replace(order_seed=self.order_seed)

    @property
    def backbone_name(self) -> str:
        return self.backbone.name if self.backbone else SKILLWORLD

    @property
    def task_set(self) -> str:
        """The profile or benchmark name."""
        return self.profile if self.benchmark is None else self.benchmark.name  # type: ignore[return-value]

    @property
    def setting(self) -> str:
        """The method with its config fields, e.g. ``hyperskill`` or ``hyperskill k=5``."""
        return " ".join([self.method, *(f"{k}={v}" for k, v in self.config)])

    @property
    def key(self) -> str:
        """Its folder under the sweep's output, e.g. ``skillworld/gaia/hyperskill/seed-0``."""
        if self.folder is not None:
            return self.folder
        parts = [self.backbone_name, self.task_set, self.method]
        parts += [f"{k}-{v}" for k, v in self.config]
        order = "" if self.order_seed == PAPER_ORDER_SEED else f"-order-{self.order_seed}"
        return "/".join(_safe(p) for p in parts) + f"/seed-{self.seed}{order}"

    def argv(self, out_root: Path) -> list[str]:
        """The `run` command line of this cell (after ``python -m hyperskill_lite``)."""
        out = ["run", "--method", self.method, "--seed", str(self.seed),
               "--out", str(Path(out_root) / self.key), "--encoder", self.encoder,
               "--no-progress"]
        if self.episodes is not None:
            out += ["--episodes", str(self.episodes)]
        if self.order_seed != PAPER_ORDER_SEED:  # the default keeps older command lines
            out += ["--order-seed", str(self.order_seed)]
        for k, v in self.config:
            out += [f"--{k.replace('_', '-')}", str(v)]
        out += _protocol_argv(self.evaluation)
        if self.backbone is None:
            out += ["--world", "skillworld", "--profile", str(self.profile),
                    "--phrasing", self.phrasing]
            if self.judge is not None:
                out += ["--judge", self.judge]
        else:
            b, bb = self.benchmark, self.backbone
            assert b is not None
            out += ["--backend", "openai", "--model", bb.model, "--benchmark", b.name,
                    "--data", b.data]
            if bb.base_url:
                out += ["--base-url", bb.base_url]
            if b.judge:
                out += ["--judge", b.judge]
            if b.split:
                out += ["--split", b.split]
            if self.sandbox != "bwrap":  # the default keeps older command lines
                out += ["--sandbox", self.sandbox]
            for k, v in bb.settings:
                value = json.dumps(v, sort_keys=True) if isinstance(v, dict) else str(v)
                out += [f"--{k.replace('_', '-')}", value]
        return out

    @property
    def settings(self) -> ModelSettings | None:
        """The live cell's model settings (None for SkillWorld)."""
        return None if self.backbone is None else self.backbone.model_settings()


def _protocol_argv(evaluation: EvalProtocol | None) -> list[str]:
    """`run`'s protocol options (besides --order-seed) for `evaluation`; none for the
    paper's, so older command lines stay as they were."""
    if evaluation is None:
        return []
    out: list[str] = []
    if evaluation.passes != 1:
        out += ["--passes", str(evaluation.passes)]
    if evaluation.eval_from is not None:
        out += ["--freeze-after" if evaluation.frozen else "--eval-from",
                str(evaluation.eval_from)]
    if evaluation.exclude_self:
        out += ["--exclude-self"]
    return out


@dataclass
class SweepSpec:
    """A checked sweep file."""

    methods: list[str]
    seeds: list[int]
    profiles: list[str] = field(default_factory=list)
    benchmarks: list[Benchmark] = field(default_factory=list)
    backbones: list[Backbone] = field(default_factory=list)
    config: dict[str, list[Any]] = field(default_factory=dict)
    episodes: int | None = None
    encoder: str = "minilm"
    phrasing: str = "calibrated"
    source: str = "<sweep>"
    orders: list[int] = field(default_factory=lambda: [PAPER_ORDER_SEED])
    """Task order seeds (``[grid] order_seed``); each (seed, order) is one cell."""
    reference: str | None = None
    """A method every setting's SR is also paired with in the tables (``[sweep]
    reference``), besides no-memory."""
    sandbox: str = "bwrap"
    """The live cells' python tool isolation (``[sweep] sandbox``; `run --sandbox`)."""

    def cells(self) -> Iterator[Cell]:
        """Every cell, backbone by backbone, task set, method, config, seed, order."""
        keys = sorted(self.config)
        combos = list(itertools.product(*(self.config[k] for k in keys))) or [()]
        worlds: list[tuple[Backbone | None, str | None, Benchmark | None]] = []
        worlds += [(None, p, None) for p in self.profiles]
        worlds += [(bb, None, b) for bb in self.backbones for b in self.benchmarks]
        for (bb, prof, bench), method, combo, seed, order in itertools.product(
            worlds, self.methods, combos, self.seeds, self.orders
        ):
            yield Cell(method, seed, bb, prof, bench, tuple(zip(keys, combo)), self.episodes,
                       self.encoder, self.phrasing, order, self.sandbox)


def _safe(s: str) -> str:
    return re.sub(r"[^A-Za-z0-9._=-]+", "_", s)


def load_sweep(path: str | Path) -> SweepSpec:
    """Read and check a sweep file. Raises SweepError naming the file and the field."""
    try:
        import tomllib
    except ImportError:  # Python 3.10
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise SweepError("reading a sweep file needs Python 3.11+ (or pip install tomli)") from None
    path = Path(path)
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise SweepError(f"{path}: no such sweep file") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise SweepError(f"{path}: not valid TOML: {exc}") from None
    return parse_sweep(raw, source=str(path))


def parse_sweep(raw: dict[str, Any], source: str = "<sweep>") -> SweepSpec:
    """Check a parsed sweep document (see the module docstring)."""
    def fail(where: str, msg: str) -> SweepError:
        return SweepError(f"{source}: {where}: {msg}")

    unknown = set(raw) - {"sweep", "grid", "benchmark", "backbone"}
    if unknown:
        raise fail(sorted(unknown)[0], "unknown table (expected [sweep], [grid], "
                   "[[benchmark]], [[backbone]])")
    head = _table(raw, "sweep", fail, required=False)
    grid = _table(raw, "grid", fail, required=True)
    known_head = {"episodes", "encoder", "phrasing", "reference", "sandbox", *MODEL_FIELDS,
                  "judge_key_env"}
    for k in head:
        if k not in known_head:
            raise fail(f"sweep.{k}", f"unknown field (expected one of {sorted(known_head)})")
    episodes = head.get("episodes")
    if episodes is not None and (not isinstance(episodes, int) or isinstance(episodes, bool)
                                 or episodes < 1):
        raise fail("sweep.episodes", f"must be an integer >= 1, got {episodes!r}")
    encoder = _choice(head.get("encoder", "minilm"), ENCODERS, "sweep.encoder", fail)
    phrasing = _choice(head.get("phrasing", "calibrated"), PHRASINGS, "sweep.phrasing", fail)
    sandbox = _choice(head.get("sandbox", "bwrap"), ISOLATIONS, "sweep.sandbox", fail)

    known_grid = {"method", "profile", "seed", "order_seed", *CONFIG_FIELDS}
    for k in grid:
        if k not in known_grid:
            raise fail(f"grid.{k}", f"unknown field (expected one of {sorted(known_grid)})")
    methods = _list(grid, "method", str, fail, required=True)
    for i, m in enumerate(methods):
        if m not in METHODS:
            raise fail(f"grid.method[{i}]", f"unknown method {m!r}; choose from {sorted(METHODS)}")
    seeds = _list(grid, "seed", int, fail, required=False) or [0]
    orders = _list(grid, "order_seed", int, fail, required=False) or [PAPER_ORDER_SEED]
    for i, o in enumerate(orders):
        if o < 0:
            raise fail(f"grid.order_seed[{i}]", f"must be >= 0, got {o}")
    reference = head.get("reference")
    if reference is not None and reference not in methods:
        raise fail("sweep.reference", f"must be one of grid.method {methods}, got {reference!r}")
    profiles = _list(grid, "profile", str, fail, required=False)
    for i, p in enumerate(profiles):
        _choice(p, PROFILES, f"grid.profile[{i}]", fail)
    config: dict[str, list[Any]] = {}
    for k, typ in CONFIG_FIELDS.items():
        vals = _list(grid, k, typ, fail, required=False)
        if vals:
            config[k] = vals
    for i, v in enumerate(config.get("k", [])):
        if v < 1:
            raise fail(f"grid.k[{i}]", f"must be >= 1, got {v}")
    for i, v in enumerate(config.get("rho", [])):
        if not 0.0 <= v < 1.0:
            raise fail(f"grid.rho[{i}]", f"must be in [0, 1), got {v}")
    for i, v in enumerate(config.get("prune_mode", [])):
        _choice(v, PRUNE_MODES, f"grid.prune_mode[{i}]", fail)

    shared = _model_settings(head, "sweep", fail)
    judge_key_env = _env_name(head, "judge_key_env", "sweep", fail)
    benchmarks = [_benchmark(b, i, fail) for i, b in enumerate(_array(raw, "benchmark", fail))]
    backbones = [_backbone(b, i, fail, shared, judge_key_env)
                 for i, b in enumerate(_array(raw, "backbone", fail))]
    names = [b.name for b in backbones]
    if len(set(names)) != len(names) or SKILLWORLD in names:
        raise fail("backbone.name", f"names must be distinct and not {SKILLWORLD!r}: {names}")
    if benchmarks and not backbones:
        raise fail("benchmark", "a live benchmark needs at least one [[backbone]]")
    if backbones and not benchmarks:
        raise fail("backbone", "a backbone needs at least one [[benchmark]] to run on "
                   "(SkillWorld profiles use the simulated model)")
    if not profiles and not benchmarks:
        raise fail("grid.profile", "give SkillWorld profiles or [[benchmark]] tables: "
                   "the sweep has nothing to run on")
    return SweepSpec(methods, seeds, profiles, benchmarks, backbones, config, episodes,
                     encoder, phrasing, source, orders, reference, sandbox)


def _table(raw: dict[str, Any], name: str, fail: Any, required: bool) -> dict[str, Any]:
    if name not in raw:
        if required:
            raise fail(f"[{name}]", "missing table")
        return {}
    if not isinstance(raw[name], dict):
        raise fail(name, "must be a table ([" + name + "])")
    return raw[name]


def _array(raw: dict[str, Any], name: str, fail: Any) -> list[dict[str, Any]]:
    v = raw.get(name, [])
    if not isinstance(v, list) or not all(isinstance(x, dict) for x in v):
        raise fail(name, f"must be an array of tables ([[{name}]])")
    return v


def _list(table: dict[str, Any], name: str, typ: type, fail: Any, required: bool) -> list[Any]:
    if name not in table:
        if required:
            raise fail(f"grid.{name}", "missing (a list of values)")
        return []
    v = table[name]
    if not isinstance(v, list):
        v = [v]
    if required and not v:
        raise fail(f"grid.{name}", "must not be empty")
    out = []
    for i, x in enumerate(v):
        ok = isinstance(x, typ) and not isinstance(x, bool)
        if typ is float and isinstance(x, int) and not isinstance(x, bool):
            x, ok = float(x), True
        if not ok:
            raise fail(f"grid.{name}[{i}]", f"must be {typ.__name__}, got {x!r}")
        out.append(x)
    if len(set(out)) != len(out):
        raise fail(f"grid.{name}", f"has repeated values: {out}")
    return out


def _choice(v: Any, choices: tuple[str, ...], where: str, fail: Any) -> str:
    if v not in choices:
        raise fail(where, f"must be one of {list(choices)}, got {v!r}")
    return v


def _str_field(t: dict[str, Any], k: str, where: str, fail: Any, required: bool) -> str | None:
    if k not in t:
        if required:
            raise fail(f"{where}.{k}", "missing")
        return None
    if not isinstance(t[k], str) or not t[k].strip():
        raise fail(f"{where}.{k}", f"must be a non-empty string, got {t[k]!r}")
    return t[k]


def _benchmark(t: dict[str, Any], i: int, fail: Any) -> Benchmark:
    where = f"benchmark[{i}]"
    extra = set(t) - {"name", "data", "judge", "split"}
    if extra:
        raise fail(f"{where}.{sorted(extra)[0]}",
                   "unknown field (expected name, data, judge, split)")
    name = _choice(_str_field(t, "name", where, fail, True), BENCHMARKS, f"{where}.name", fail)
    data = _str_field(t, "data", where, fail, True)
    judge = _str_field(t, "judge", where, fail, False)
    if judge is not None:
        _choice(judge, JUDGES, f"{where}.judge", fail)
    split = _str_field(t, "split", where, fail, False)
    if split is not None:
        _choice(split, GAIA_SPLITS, f"{where}.split", fail)
        if split == "test" and name != "gaia":
            raise fail(f"{where}.split", "split = \"test\" applies to gaia only")
    return Benchmark(name, data, judge, split)  # type: ignore[arg-type]


def _model_settings(t: dict[str, Any], where: str, fail: Any) -> dict[str, Any]:
    """The model settings of a table, each checked (`ModelSettings`)."""
    out = {k: t[k] for k in MODEL_FIELDS if k in t}
    for k, v in out.items():
        try:
            ModelSettings.from_dict({k: v})
        except (TypeError, ValueError) as e:
            msg = str(e).replace(f"--{k.replace('_', '-')} ", "")
            raise fail(f"{where}.{k}", msg) from None
    return out


def _env_name(t: dict[str, Any], k: str, where: str, fail: Any) -> str | None:
    v = _str_field(t, k, where, fail, False)
    if v is not None and not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", v):
        raise fail(f"{where}.{k}", f"must be an environment variable name, got {v!r}")
    return v


def _backbone(t: dict[str, Any], i: int, fail: Any, shared: dict[str, Any] | None = None,
              judge_key_env: str | None = None) -> Backbone:
    where = f"backbone[{i}]"
    known = {"name", "model", "base_url", "key_env", "max_concurrent", "judge_key_env",
             *MODEL_FIELDS}
    extra = set(t) - known
    if extra:
        raise fail(f"{where}.{sorted(extra)[0]}", f"unknown field (expected {sorted(known)})")
    if "api_key" in t or "key" in t:  # pragma: no cover - caught above as unknown
        raise fail(where, "keys never go in a sweep file; name their variable in key_env")
    mc = t.get("max_concurrent", DEFAULT_MAX_CONCURRENT)
    if not isinstance(mc, int) or isinstance(mc, bool) or mc < 1:
        raise fail(f"{where}.max_concurrent", f"must be an integer >= 1, got {mc!r}")
    key_env = _env_name(t, "key_env", where, fail)
    settings = {**(shared or {}), **_model_settings(t, where, fail)}
    return Backbone(
        _str_field(t, "name", where, fail, True),  # type: ignore[arg-type]
        _str_field(t, "model", where, fail, True),  # type: ignore[arg-type]
        _str_field(t, "base_url", where, fail, False),
        key_env,
        mc,
        tuple(sorted(settings.items())),
        _env_name(t, "judge_key_env", where, fail) or judge_key_env,
    )
