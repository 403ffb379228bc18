"""Flags for the instructor: the cells of a submission that try to game the grader.

Grading never runs a submission's notebook (grade.py), so none of this can change a
score; each attempt is still reported, naming the cell, because a student who tries
deserves a conversation. `find_flags(submission, instructor)` reads every code cell the
learner wrote or changed (a cell of the instructor's notebook left as it was is not
read; in a changed one, only the statements the instructor's version does not have)
and flags, from its syntax tree:

- an import of the grader's package (``hyperskill_lite.course``) or of modules by a
  computed name (``importlib``, ``__import__``, ``exec``, ``eval``, ``compile``);
- ``sys.modules``, ``globals()``, ``builtins`` or ``__builtins__`` touched;
- an attribute of a module set (``np.isclose = ...``, ``setattr``, ``delattr``) or a
  name the notebook imports or defines rebound (``utility = gamma``);
- files written (``open(..., "w")``, ``write_text``, ``mkdir``, ``shutil`` ...), and a
  Python module or a ``hyperskill_lite`` package among them (a shadow of the library);
- the kernel's own machinery (``get_ipython()``, ``set_custom_exc``, ``sys.excepthook``)
  and exceptions swallowed at a cell's top level (``except: pass``);
- low-level access (``ctypes``, ``gc``, frames, ``signal``, processes, sockets);
- a check or test cell edited, or an exercise's cell deleted.

A cell the instructor's notebook tags ``own-code`` (`OWN_CODE`: the capstone's method
cell, where the student writes a whole memory method of their own by design) is not read:
the capstone command reads the file that cell becomes (capstone/submission.py), and
the capstone notebook grades only written answers.

Grading adds what the sandbox saw while it ran the answer cells (contained.py) and a
recorded answer that its answer cell does not produce (grade.py).

>>> src = {"cells": [{"cell_type": "code", "id": "a", "source": "import numpy as np", "metadata": {}}]}
>>> sub = {"cells": [{"cell_type": "code", "id": "a", "source": "import numpy as np\\nnp.isclose = max", "metadata": {}}]}
>>> [str(f) for f in find_flags(sub, src)]
['cell 0 (a): sets np.isclose (an attribute of a module)']

Not here: grading (grade.py), what the sandbox refuses (contained.py).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

from hyperskill_lite.course.contained import strip_magics
from hyperskill_lite.course.exercises import cell_text, exercise_cells

__all__ = ["Flag", "find_flags", "GRADER_NAMES", "LEARNER_API", "OWN_CODE"]

GRADER_NAMES = frozenset({"check", "check_function", "verify_answer", "verify_function",
                          "ExerciseFailed", "NotAnswered", "Verdict"})
OWN_CODE = "own-code"
"""The tag of an instructor's cell whose code is the student's own by design (not read)."""
LEARNER_API = frozenset({"check", "check_function"})
"""What a notebook imports from the course package for its learner: not a flag."""
_BY_NAME = {"__import__", "exec", "eval", "compile"}
_LOW_LEVEL = {"ctypes", "gc", "signal", "subprocess", "socket", "multiprocessing", "pty",
              "_thread", "threading", "mmap", "inspect", "marshal", "pickle", "dill"}
_WRITERS = {"write_text", "write_bytes", "mkdir", "makedirs", "touch", "symlink_to",
            "hardlink_to", "rename", "replace", "copy", "copy2", "copyfile", "copytree", "move",
            "symlink", "link", "chmod", "unlink", "remove", "rmtree", "savetxt", "save"}
_KERNEL = {"get_ipython", "set_custom_exc", "excepthook", "register", "run_line_magic",
           "run_cell_magic", "showtraceback", "_showtraceback", "user_ns", "kernel"}
_ALLOWED_MAGICS = ("%matplotlib", "%config", "%time", "%timeit", "%%time", "%%timeit")


@dataclass(frozen=True)
class Flag:
    """One attempt: the cell's position and id, and what it does."""

    index: int
    cell: str
    what: str

    def __str__(self) -> str:
        where = f"cell {self.index} ({self.cell})" if self.index >= 0 else f"cell {self.cell}"
        return f"{where}: {self.what}"


def _names(tree: ast.AST) -> tuple[set[str], set[str]]:
    """(names bound by imports, names bound by def/class) at a cell's top level."""
    imported, defined = set(), set()
    for node in getattr(tree, "body", []):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for a in node.names:
                imported.add(a.asname or a.name.split(".")[0])
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            defined.add(node.name)
    return imported, defined


def _parse(source: str) -> ast.Module | None:
    try:
        return ast.parse(strip_magics(source))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def _dotted(node: ast.AST) -> str:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
    elif isinstance(node, ast.Call):
        parts.append(_dotted(node.func) + "()")
    return ".".join(reversed(parts))


def _strings(tree: ast.AST) -> list[str]:
    return [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant)
            and isinstance(n.value, str)]


class _Reader(ast.NodeVisitor):
    """What one piece of a cell does (module docstring), as short phrases."""

    def __init__(self, modules: set[str], protected: set[str], own: set[str]) -> None:
        self.modules, self.protected, self.own = modules, protected, own
        self.found: list[str] = []
        self.writes = False

    def say(self, what: str) -> None:
        if what not in self.found:
            self.found.append(what)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self._module(a.name)
            self.modules.add(a.asname or a.name.split(".")[0])
        self.generic_visit(node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = node.module or ""
        for a in node.names:
            if module == "hyperskill_lite.course" and a.name in LEARNER_API and a.asname is None:
                continue  # the learner's own checks, as the notebook imports them
            self._module(f"{module}.{a.name}" if module else a.name)
            self._bind(a.asname or a.name)

    def _module(self, name: str) -> None:
        top = name.split(".")[0]
        if name.startswith("hyperskill_lite.course") or name == "hyperskill_lite.course":
            self.say(f"imports the grader's package ({name})")
        elif top in ("importlib", "runpy", "imp"):
            self.say(f"imports modules by a computed name ({top})")
        elif top in ("builtins", "__builtin__"):
            self.say("changes or reads the builtins")
        elif top in _LOW_LEVEL:
            self.say(f"uses low-level access ({top})")
        elif top == "sys" and name.endswith(("modules", "excepthook", "_getframe")):
            self.say(f"uses {name}")

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in _BY_NAME and not isinstance(node.ctx, ast.Store):
            self.say(f"runs code or imports modules by name ({node.id})")
        elif node.id in ("globals", "vars", "locals", "__builtins__", "get_ipython"):
            what = ("uses the kernel's machinery (get_ipython)" if node.id == "get_ipython"
                    else f"reaches the notebook's namespace ({node.id})")
            self.say(what)
        if isinstance(node.ctx, ast.Store):
            self._bind(node.id)
        self.generic_visit(node)

    def _bind(self, name: str) -> None:
        if name in self.own:
            return
        if name in GRADER_NAMES:
            self.say(f"rebinds {name}, a name of the grader's")
        elif name in self.protected:
            self.say(f"rebinds {name}, a name the notebook imports or defines")

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._bind(node.name)
        self.generic_visit(node)

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._bind(node.name)
        self.generic_visit(node)

    def visit_alias(self, node: ast.alias) -> None:
        self._bind(node.asname or node.name.split(".")[0])

    def visit_Attribute(self, node: ast.Attribute) -> None:
        dotted = _dotted(node)
        if dotted.endswith(("sys.modules", "sys.excepthook", "sys._getframe", "sys.settrace",
                            "sys.setprofile", "sys.meta_path", "sys.path_hooks")):
            self.say(f"uses {dotted}")
        if node.attr in _KERNEL and "get_ipython" in dotted:
            self.say(f"changes how the kernel runs or reports cells ({node.attr})")
        if node.attr in ("__code__", "__globals__", "__defaults__", "__dict__",
                         "__subclasses__", "__closure__", "f_globals", "f_locals", "f_back"):
            self.say(f"reaches into objects' internals ({node.attr})")
        if isinstance(node.ctx, ast.Store | ast.Del):
            root = dotted.split(".")[0]
            if root in self.modules or node.attr in GRADER_NAMES or root == "sys" \
                    or "()" in dotted:
                self.say(f"sets {dotted} (an attribute of a module)")
        self.generic_visit(node)

    def visit_Subscript(self, node: ast.Subscript) -> None:
        if isinstance(node.ctx, ast.Store | ast.Del):
            dotted = _dotted(node.value)
            if dotted.endswith(("modules", "globals()", "__dict__", "__builtins__", "user_ns")):
                self.say(f"writes into {dotted}")
        self.generic_visit(node)

    def visit_Call(self, node: ast.Call) -> None:
        name = _dotted(node.func)
        method = isinstance(node.func, ast.Attribute)
        last = node.func.attr if method else name.split(".")[-1]
        if last in ("setattr", "delattr") and name in ("setattr", "delattr", "builtins.setattr"):
            self.say(f"sets attributes by name ({last})")
        if last == "import_module":
            self.say("imports modules by a computed name (importlib.import_module)")
        if name == "open" or last == "open":
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and any(
                    c in mode.value for c in "wax+"):
                self.writes = True
                self.say("writes files")
        if method and last in _WRITERS and name.split(".")[0] not in ("np", "plt", "fig", "ax",
                                                                       "pd", "df", "viz"):
            self.writes = True
            self.say(f"writes files ({last})")
        if last in ("set_custom_exc", "excepthook", "register", "run_line_magic",
                    "run_cell_magic", "set_next_input"):
            self.say(f"changes how the kernel runs or reports cells ({last})")
        if name in ("os.system", "os.popen", "os.execv", "os.fork", "os.kill", "os.chdir",
                    "os.putenv", "os.environ.update"):
            self.say(f"uses {name}")
        self.generic_visit(node)

    def visit_Try(self, node: ast.Try) -> None:
        for h in node.handlers:
            broad = h.type is None or _dotted(h.type) in ("BaseException", "Exception")
            empty = all(isinstance(s, ast.Pass) or (isinstance(s, ast.Expr)
                        and isinstance(s.value, ast.Constant)) for s in h.body)
            if broad and empty:
                self.say("swallows every exception at the cell's top level")
        self.generic_visit(node)


def _statements(tree: ast.Module | None) -> set[str]:
    return {ast.dump(s) for s in tree.body} if tree is not None else set()


def _protected(src: dict[str, Any]) -> tuple[set[str], set[str], set[str]]:
    """(modules, names the notebook imports or defines, the graded functions' names)."""
    roles = {c.index: c.role for c in exercise_cells(src["cells"])}
    modules, protected, graded = set(), set(), set()
    for i, cell in enumerate(src["cells"]):
        if cell.get("cell_type") != "code":
            continue
        tree = _parse(cell_text(cell))
        if tree is None:
            continue
        imported, defined = _names(tree)
        if roles.get(i) == "answer":
            graded |= defined
            continue
        modules |= {n for n in imported if n[:1].islower()}
        protected |= imported | defined
    return modules, protected - graded, graded


def _plain_text_flags(text: str) -> list[str]:
    """A cell that does not parse is read as text."""
    found = []
    for word, what in (("hyperskill_lite.course", "imports the grader's package"),
                       ("importlib", "imports modules by a computed name (importlib)"),
                       ("sys.modules", "uses sys.modules"),
                       ("set_custom_exc", "changes how the kernel runs or reports cells")):
        if word in text:
            found.append(what)
    return found


def find_flags(sub: dict[str, Any], src: dict[str, Any]) -> list[Flag]:
    """The flags of a submission against the instructor's notebook (module docstring)."""
    theirs = {c.get("id"): c for c in src["cells"] if isinstance(c, dict)}
    roles = {c.index: c for c in exercise_cells(sub["cells"])}
    src_roles = {src["cells"][c.index].get("id"): c for c in exercise_cells(src["cells"])}
    modules, protected, graded = _protected(src)
    flags: list[Flag] = []
    seen_ids = set()
    for i, cell in enumerate(sub["cells"]):
        if not isinstance(cell, dict):
            continue
        cid = str(cell.get("id", "?"))[:64]
        seen_ids.add(cell.get("id"))
        text = cell_text(cell)
        mine = theirs.get(cell.get("id"))
        role = roles.get(i)
        if role is not None and role.role in ("check", "test") and mine is not None \
                and cell_text(mine).strip() != text.strip():
            if role.role == "check" or "BEGIN HIDDEN TESTS" not in cell_text(mine) \
                    or text.strip() not in cell_text(mine):
                flags.append(Flag(i, cid, f"edits the {role.role} cell of {role.exercise} (the "
                                          "cell is not run in grading)"))
            continue
        if cell.get("cell_type") != "code":
            continue
        if mine is not None and cell_text(mine) == text:
            continue  # the instructor's cell as it was
        if mine is not None and OWN_CODE in (mine.get("metadata") or {}).get("tags", []):
            continue  # the student's own code by design (module docstring)
        found = [f"runs a magic or shell command ({line.strip()[:40]})"
                 for line in text.splitlines()
                 if line.lstrip().startswith(("%", "!"))
                 and not line.lstrip().startswith(_ALLOWED_MAGICS)]
        tree = _parse(text)
        if tree is None:
            found += _plain_text_flags(text)
        else:
            old = _statements(_parse(cell_text(mine))) if mine is not None else set()
            new = [s for s in tree.body if ast.dump(s) not in old]
            own = {"answer"} | (graded if role is not None and role.role == "answer" else set())
            reader = _Reader(set(modules), protected, own)
            for stmt in new:
                reader.visit(stmt)
            found += reader.found
            strings = [s for stmt in new for s in _strings(stmt)]
            if reader.writes and any("hyperskill_lite" in s or s.endswith((".py", "__init__"))
                                     for s in strings):
                found.append("writes a Python package or module (a shadow of the library?)")
        flags += [Flag(i, cid, what) for what in dict.fromkeys(found)]
    for cid, c in src_roles.items():
        if cid not in seen_ids and c.role in ("answer", "check", "test"):
            flags.append(Flag(-1, str(cid), f"deletes the {c.role} cell of {c.exercise}"))
    return flags

