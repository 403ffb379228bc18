"""``python -m hyperskill_lite check --base-url URL --model NAME``: is this server ready
for a live run?

Runs the preflight a live ``run`` makes before it creates its folder (llm/preflight.py):
a key where the server wants one, the server reachable, the model listed by
``/v1/models``, structured outputs and native tool calls probed, and vision or
transcription when asked for (``--needs``); then the GT judge's server and model when
``--judge-model`` / ``--judge-base-url`` give it one of its own; then the page reader
(trafilatura, or the standard library's parser when it is missing) and the document
converters a run would use (agent/tools/readers.py); then the python tool's sandbox
(``--sandbox``, as ``run`` takes it: bubblewrap by default, which must be installed, or
the weaker ``process`` isolation chosen explicitly; agent/tools/sandbox.py). Prints what
it found, one check a line, and exits 0; the first failed check is one ``error:`` line
and exit 2.

Not here: the checks themselves (llm/preflight.py, agent/tools/preflight.py), the model
options (model_options.py).
"""

from __future__ import annotations

import argparse
import json
import os

from hyperskill_lite.agent.tools.preflight import check_sandbox
from hyperskill_lite.agent.tools.readers import reader_lines, reader_report
from hyperskill_lite.agent.tools.sandbox import ISOLATIONS, PythonSandbox
from hyperskill_lite.cli import model_options
from hyperskill_lite.llm.client import ENV_MODEL
from hyperskill_lite.llm.preflight import CAPABILITIES, preflight_run
from hyperskill_lite.llm.settings import make_llms

__all__ = ["add_parser", "command"]


def add_parser(sub, parents) -> argparse.ArgumentParser:
    c = sub.add_parser("check", parents=parents,
                       help="check a model server before a live run (key, model, probes)",
                       description=__doc__.split("\n\n")[1])
    c.add_argument("--base-url", default=None, help="default: $OPENAI_BASE_URL")
    c.add_argument("--model", default=None, help="default: $HYPERSKILL_MODEL")
    c.add_argument("--needs", action="append", choices=CAPABILITIES, default=None,
                   help="a capability the run needs (repeatable)")
    c.add_argument("--transcription-model", default=None,
                   help="the model to ask /audio/transcriptions for (default: --model)")
    c.add_argument("--structured", choices=["auto", "json_schema", "json_object", "off"],
                   default="auto", help="structured outputs to probe (auto: find what works)")
    c.add_argument("--sandbox", choices=ISOLATIONS, default="bwrap",
                   help="the python tool's isolation a run would use (default bwrap; "
                   "process: weaker, an explicit choice)")
    c.add_argument("--json", action="store_true",
                   help="print the findings as JSON (what a run records in run.json)")
    model_options.add_arguments(c.add_argument_group("model calls"))
    c.set_defaults(handler=command)
    return c


def command(args: argparse.Namespace) -> int:
    if not (args.model or os.environ.get(ENV_MODEL)):
        raise ValueError(f"check needs a model name: --model NAME (or set {ENV_MODEL}), as "
                         "the server lists it at /v1/models")
    settings = model_options.settings_from_args(args)
    agent, judge = make_llms(settings, base_url=args.base_url, model=args.model,
                             structured=args.structured)
    found = preflight_run(agent, judge, needs=args.needs or (),
                          transcription_model=args.transcription_model)
    isolation = check_sandbox(PythonSandbox(isolation=args.sandbox))  # PreflightError: exit 2
    if args.json:
        print(json.dumps({**found.to_dict(), "readers": reader_report(),
                          "sandbox": isolation}, indent=1, sort_keys=True))
        return 0
    for line in found.agent.lines():
        print(line)
    if found.judge is None:
        print(f"GT judge    on the agent's server and model (temperature "
              f"{settings.judge_temperature:g})")
    else:
        print(f"GT judge    {found.judge.model} at {found.judge.server} (temperature "
              f"{settings.judge_temperature:g}):")
        for line in found.judge.lines():
            print("  " + line)
    for line in reader_lines():  # the page reader and document converters a run uses
        print(line)
    print(f"sandbox     {isolation} (the python tool; --sandbox)")
    print("ready for a live run")
    return 0
