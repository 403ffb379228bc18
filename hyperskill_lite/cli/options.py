"""What every command of the CLI shares: the parser class, the help format, argument
types that check ranges at parse time, and the global options.

Every bad argument ends in one line, ``error: <what> (see <command> --help)``, and exit
code 2 (`Parser.error`); help shows each option's default.

>>> at_least_1("3"), fraction("0.25")
(3, 0.25)
>>> at_least_1("0")
Traceback (most recent call last):
...
argparse.ArgumentTypeError: must be an integer >= 1, got 0

Not here: the commands themselves (one module each in this folder).
"""

from __future__ import annotations

import argparse
import copy
import sys
from typing import NoReturn

from hyperskill_lite.methods import METHODS

__all__ = ["Parser", "Formatter", "at_least_1", "at_least_0", "fraction", "method_name",
           "method_help",
           "global_options", "GLOBAL"]


class Formatter(argparse.RawDescriptionHelpFormatter):
    """Help text as written, with each option's default appended when it has one worth
    showing (not None, not False; 0 is shown); an option without help text shows its
    default alone."""

    @staticmethod
    def _default(action: argparse.Action) -> str | None:
        default = action.default
        if (default is None or default is False or default == argparse.SUPPRESS
                or not action.option_strings
                or isinstance(action, argparse._HelpAction | argparse._VersionAction)):
            return None
        return " ".join(map(str, default)) if isinstance(default, list | tuple) else str(default)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        shown = self._default(action)
        if shown is None or "%(default)" in text or "default:" in text:
            return text
        return f"{text} (default: {shown})"

    def _format_action(self, action: argparse.Action) -> str:
        if not action.help and self._default(action) is not None:
            action = copy.copy(action)
            action.help = f"default: {self._default(action)}"
        return super()._format_action(action)


class Parser(argparse.ArgumentParser):
    """An ArgumentParser whose errors are one line and exit 2."""

    def __init__(self, *args, **kwargs) -> None:
        kwargs.setdefault("formatter_class", Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        print(f"error: {message} (see {self.prog} --help)", file=sys.stderr)
        raise SystemExit(2)


def _int(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be an integer, got {text!r}") from None


def at_least_1(text: str) -> int:
    """An integer >= 1."""
    v = _int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be an integer >= 1, got {v}")
    return v


def at_least_0(text: str) -> int:
    """An integer >= 0."""
    v = _int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be an integer >= 0, got {v}")
    return v


def fraction(text: str) -> float:
    """A number in [0, 1]."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {text!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError(f"must be a number in [0, 1], got {v:g}")
    return v


def method_name(text: str) -> str:
    """A registered memory method (`python -m hyperskill_lite methods`): the package's and
    those installed distributions add (entry-point group ``hyperskill_lite.methods``)."""
    if text not in METHODS:
        raise argparse.ArgumentTypeError(
            f"unknown method {text!r}; choose one of {', '.join(METHODS)}")
    return text


def method_help(lead: str = "memory method") -> str:
    """Help for a ``--method`` option, listing every registered method (plugins too).

    >>> method_help().startswith("memory method: one of hyperskill, ")
    True
    """
    return f"{lead}: one of {', '.join(METHODS)} (`methods` describes each)"


GLOBAL = ("no_cache",)
"""Destinations of the global options (accepted before and after the subcommand)."""


def global_options(top: bool) -> argparse.ArgumentParser:
    """The global options as a parent parser. On subcommands their default is SUPPRESS, so
    an option given before the subcommand is not reset by the subcommand's parser."""
    p = argparse.ArgumentParser(add_help=False)
    default = False if top else argparse.SUPPRESS
    p.add_argument("--no-cache", action="store_true", default=default,
                   help="do not read or write the persistent embedding cache "
                   "(same as HYPERSKILL_CACHE=off)")
    return p
