"""The evaluation-protocol options of `run` (and, with several orders, of `compare`):
task order seed, passes, a learn/eval split with frozen or online memory, and own-task
exclusion (protocol.py). Without them a run follows the paper's protocol.

``add_arguments(group)`` adds them to an argument group; ``settings_from_args(args)``
turns the parsed options into an `EvalProtocol`. Ranges are checked at parse time
(options.py: one ``error:`` line, exit 2).

>>> from hyperskill_lite.cli.options import Parser
>>> p = Parser(prog="run")
>>> add_arguments(p.add_argument_group("evaluation protocol"))
>>> settings_from_args(p.parse_args([])).is_paper
True
>>> settings_from_args(p.parse_args(["--passes", "2", "--freeze-after", "10"])).tag
'passes-2+frozen-10'

Not here: what the settings do (protocol.py, runner/).
"""

from __future__ import annotations

import argparse

from hyperskill_lite.cli.options import at_least_0, at_least_1
from hyperskill_lite.protocol import PAPER_ORDER_SEED, EvalProtocol

__all__ = ["add_arguments", "settings_from_args"]


def add_arguments(group, several_orders: bool = False) -> None:
    """Add the protocol options to `group` (an argparse group or parser). With
    `several_orders` (compare), ``--order-seeds`` takes one or more seeds instead of
    ``--order-seed``'s one."""
    if several_orders:
        group.add_argument("--order-seeds", type=at_least_0, nargs="+",
                           default=[PAPER_ORDER_SEED], metavar="SEED",
                           help="task order seeds; each (world seed, order) is one run and "
                           "one cell of the paired statistics (default: 42, the paper's)")
    else:
        group.add_argument("--order-seed", type=at_least_0, default=PAPER_ORDER_SEED,
                           help="seed of the task order (42: the paper's fixed order)")
    group.add_argument("--passes", type=at_least_1, default=1,
                       help="run the ordered task list this many times in a row")
    split = group.add_mutually_exclusive_group()
    split.add_argument("--freeze-after", type=at_least_0, default=None, metavar="N",
                       help="learn on the first N episodes, then evaluate the rest with the "
                       "memory frozen: retrieved from, never updated or maintained (with "
                       "--passes 2, N = the task count evaluates the second pass)")
    split.add_argument("--eval-from", type=at_least_0, default=None, metavar="N",
                       help="evaluate only the episodes after the first N, the memory "
                       "still learning online (the online arm of a frozen comparison)")
    group.add_argument("--exclude-self", action="store_true",
                       help="a task never retrieves a hyperedge an earlier episode of the "
                       "same task id wrote (multi-pass runs; HyperSkill methods)")


def settings_from_args(args: argparse.Namespace) -> EvalProtocol:
    """The `EvalProtocol` of parsed options (for compare, its first order seed)."""
    seeds = getattr(args, "order_seeds", None)
    order = seeds[0] if seeds else getattr(args, "order_seed", PAPER_ORDER_SEED)
    frozen = args.freeze_after is not None
    return EvalProtocol(order_seed=order, passes=args.passes,
                        eval_from=args.freeze_after if frozen else args.eval_from,
                        frozen=frozen, exclude_self=args.exclude_self)
