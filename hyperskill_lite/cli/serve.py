"""``python -m hyperskill_lite serve --memory DIR``: the memory as an MCP server, for any
agent (Claude Desktop / Claude Code style hosts, Cursor, the SDK's own client, ...).

Over stdio by default (the host starts the command); ``--http HOST:PORT`` serves
streamable HTTP instead (``/mcp``), on loopback unless a bearer token is given. The
memory's model calls go to a configured OpenAI-compatible model (the options of
``run``), or to the client's own model through MCP sampling, or nowhere
(``--no-llm``). The server loads its encoder, memory and model probe before it reports
ready (serve/warmup.py). docs/guide/mcp.md says how to connect and what is stored where.

Not here: the server (serve/app.py), the tools (serve/service.py), the shared memory
folder (serve/shared.py).
"""

from __future__ import annotations

import argparse
import ipaddress
import os
import signal
import sys
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from hyperskill_lite import logs
from hyperskill_lite.cli import model_options
from hyperskill_lite.cli.options import at_least_0, at_least_1
from hyperskill_lite.core.config import HyperSkillConfig
from hyperskill_lite.core.embed import ENCODERS, encoder_by_name
from hyperskill_lite.llm.settings import make_llms
from hyperskill_lite.serve.bounds import SCOPE_PATTERN
from hyperskill_lite.serve.sessions import SessionLimits

__all__ = ["add_parser", "command", "TOKEN_ENV", "parse_bind", "is_loopback"]

TOKEN_ENV = "HYPERSKILL_MCP_TOKEN"
"""The environment variable holding the HTTP bearer token (instead of ``--token``)."""


def parse_bind(text: str) -> tuple[str, int]:
    """``HOST:PORT`` (``[::1]:PORT`` for IPv6) -> (host, port); port 0 lets the OS choose.

    >>> parse_bind("127.0.0.1:8765"), parse_bind("[::1]:0")
    (('127.0.0.1', 8765), ('::1', 0))
    """
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit() or int(port) > 65535:
        raise argparse.ArgumentTypeError(f"expected HOST:PORT, got {text!r}")
    return host.strip("[]"), int(port)


def _scope(text: str) -> str:
    if not SCOPE_PATTERN.match(text):
        raise argparse.ArgumentTypeError(f"expected a scope label (lowercase letters, digits, "
                                         f"_ . -, at most 64), got {text!r}")
    return text


def _score(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not -1.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"expected a number in [-1, 1], got {text!r}")
    return value


def add_parser(sub, parents) -> argparse.ArgumentParser:
    s = sub.add_parser("serve", parents=parents, help="serve a skill memory to any agent "
                       "over MCP (stdio or HTTP)", description=__doc__.split("\n\n")[1])
    s.add_argument("--memory", type=Path, required=True, metavar="DIR",
                   help="the memory folder (made when missing or empty); its journal of "
                   "updates is DIR.journal beside it")
    s.add_argument("--http", type=parse_bind, default=None, metavar="HOST:PORT",
                   help="serve streamable HTTP on HOST:PORT (path /mcp) instead of stdio")
    s.add_argument("--token", default=None,
                   help=f"bearer token HTTP clients must send (default: ${TOKEN_ENV}); "
                   "required for a bind beyond loopback")
    s.add_argument("--token-file", type=Path, default=None, metavar="FILE",
                   help="more bearer tokens, one a line: TOKEN, or TOKEN SCOPE for a token "
                   "bound to one scope ('#' starts a comment)")
    s.add_argument("--scope", type=_scope, default=None,
                   help="bind every caller without a token-bound scope to this scope")
    s.add_argument("--max-scopes", type=at_least_1, default=64, metavar="N",
                   help="scopes the folder may hold (DIR.scopes/)")
    s.add_argument("--min-score", type=_score, default=None, metavar="X",
                   help="default relevance floor of recall, a cosine in [-1, 1] (default: "
                   "the one measured for the memory's encoder; -1 keeps everything)")
    s.add_argument("--max-sessions", type=at_least_1, default=256, metavar="N",
                   help="HTTP sessions open at once; at the cap the least recently active "
                   "idle one is ended")
    s.add_argument("--max-sessions-per-token", type=at_least_1, default=64, metavar="N",
                   help="HTTP sessions open at once per bearer token (every client of a "
                   "server without tokens counts as one)")
    s.add_argument("--session-idle", type=at_least_1, default=600, metavar="SECONDS",
                   help="end an HTTP session after this long without a request")
    s.add_argument("--allow-host", action="append", default=None, metavar="HOST[:PORT]",
                   help="a Host header to accept besides loopback names (DNS-rebinding "
                   "protection; repeatable; 'name:*' for any port)")
    s.add_argument("--allow-origin", action="append", default=None, metavar="ORIGIN",
                   help="an Origin to accept besides loopback origins (repeatable)")
    s.add_argument("--encoder", choices=ENCODERS, default=None,
                   help="encoder of a new memory (default: minilm when installed); an "
                   "existing memory keeps its own")
    s.add_argument("--k", type=at_least_1, default=None,
                   help="default retrieval budget k_u = k_e = k_s (default: the memory's)")
    s.add_argument("--expected-tasks", type=at_least_1, default=100, metavar="N",
                   help="N of the paper's schedule: maintenance every ceil(0.1 N) learned "
                   "tasks")
    s.add_argument("--maintain-every", type=at_least_0, default=None, metavar="K",
                   help="maintenance every K learned tasks instead (0: only on a "
                   "maintain call)")
    s.add_argument("--checkpoint-every", type=at_least_0, default=100, metavar="K",
                   help="save the memory folder after K journal records (0: only after "
                   "maintenance and at shutdown)")
    logs.add_arguments(s)
    m = s.add_argument_group("the memory's model calls (decomposition, extraction, merging)")
    m.add_argument("--llm", choices=["auto", "model", "sampling", "none"], default="auto",
                   help="model: the configured one; sampling: the client's own; auto: the "
                   "configured one if any, else the client's when it offers sampling")
    m.add_argument("--no-llm", action="store_const", const="none", dest="llm",
                   help="no model: store and retrieve on the trajectory path alone")
    m.add_argument("--base-url", default=None, help="default: $OPENAI_BASE_URL")
    m.add_argument("--model", default=None, help="default: $HYPERSKILL_MODEL")
    m.add_argument("--benchmark", choices=["gaia", "webwalkerqa", "xbench"], default="gaia",
                   help="which of the paper's decomposition prompts to use")
    m.add_argument("--structured", choices=["auto", "json_schema", "json_object", "off"],
                   default="auto", help="structured outputs of the configured model")
    m.add_argument("--sampling-max-tokens", type=at_least_1, default=1024,
                   help="max tokens asked of the client's model per sampling request")
    model_options.add_arguments(m)
    for action in m._group_actions:  # the GT judge has no part in a server
        if action.dest.startswith("judge_"):
            action.help = argparse.SUPPRESS
    s.set_defaults(handler=command)
    return s


def _model_config(args: argparse.Namespace) -> Any:
    from hyperskill_lite.serve.models import ModelConfig  # lazy: the serve extra (anyio)

    model = args.model or os.environ.get("HYPERSKILL_MODEL")
    llm = None
    if args.llm in ("auto", "model") and model:
        agent, _judge = make_llms(
            model_options.settings_from_args(args), base_url=args.base_url, model=model,
            benchmark=args.benchmark, structured=args.structured)
        llm = agent
    elif args.llm in ("sampling", "none") and args.model:
        raise ValueError(f"--model has no use with --llm {args.llm}")
    return ModelConfig(args.llm, llm, args.benchmark, args.sampling_max_tokens,
                       args.temperature)


def is_loopback(host: str) -> bool:
    """Is `host` a loopback name or address? (Here, not in serve/app.py, so that a
    refused bind is said before the SDK is imported.)

    >>> is_loopback("127.0.0.1"), is_loopback("localhost"), is_loopback("0.0.0.0")
    (True, True, False)
    """
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def command(args: argparse.Namespace) -> int:
    token = args.token or os.environ.get(TOKEN_ENV) or None
    if args.http is not None and not is_loopback(args.http[0]) and not (token or
                                                                        args.token_file):
        raise ValueError(f"--http {args.http[0]}:{args.http[1]} is reachable beyond this "
                         f"machine: give --token (or set {TOKEN_ENV}) so that only your "
                         "clients get in, or bind 127.0.0.1")
    try:  # lazy: the serve extra (the MCP SDK, anyio, pydantic), said as one error line
        from hyperskill_lite.serve import app, httpd, service, shared, warmup
    except ImportError as exc:
        raise ValueError(f"the MCP server needs the serve extra ({exc.name} is missing): "
                         "pip install 'hyperskill_lite[serve]'") from None

    tokens = httpd.Tokens.load(token, args.token_file) if args.http is not None else None
    models = _model_config(args)
    every = (args.maintain_every if args.maintain_every is not None
             else HyperSkillConfig().maintain_every(args.expected_tasks))
    encoder = encoder_by_name(args.encoder) if args.encoder else None
    mem = shared.SharedMemory(args.memory, encoder, checkpoint_every=args.checkpoint_every)
    svc = service.MemoryService(mem, models, maintain_every=every, k=args.k,
                                min_score=args.min_score, max_scopes=args.max_scopes)
    sizes = mem.memory.stats()
    where = "stdio" if args.http is None else "HTTP"
    print(f"hyperskill serve: {mem.path} ({sizes['hyperedges']} trajectories, "
          f"{sizes['skill_nodes']} skills); memory model: {models.describe()}; "
          f"maintenance every {every or 'maintain call'}; encoder "
          f"{getattr(mem.memory.encoder, 'name', '?')}; relevance floor {svc.floor:g}; "
          f"over {where}", file=sys.stderr, flush=True)
    signal.signal(signal.SIGTERM, _stop)
    try:
        took = warmup.warm_up(svc)
        print("hyperskill serve: ready (" + ", ".join(f"{k} {v:.1f} s" for k, v in
                                                      took.items()) + ")",
              file=sys.stderr, flush=True)
        if args.http is None:
            app.build_server(svc, default_scope=args.scope,
                             log_level=args.log_level).run("stdio")
        else:
            _serve_http(app, httpd, svc, args, tokens)
    except KeyboardInterrupt:
        print("hyperskill serve: stopped", file=sys.stderr, flush=True)
    finally:  # the checkpoint is not cut short by a second signal (SIGKILL still could:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)  # the journal keeps every record)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        svc.close()
    return 0


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _serve_http(app: Any, httpd: Any, svc: Any, args: argparse.Namespace, tokens: Any) -> None:
    import anyio
    import uvicorn

    host, port = args.http
    sock = httpd.bind_socket(host, port)
    port = sock.getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    server = app.build_server(svc, tokens=tokens, default_scope=args.scope,
                              issuer_url=f"http://{shown}:{port}", log_level=args.log_level)
    limits = SessionLimits(args.max_sessions, min(args.max_sessions_per_token,
                                                  args.max_sessions), float(args.session_idle))
    asgi = httpd.http_app(server, host, allowed_hosts=args.allow_host or (),
                          allowed_origins=args.allow_origin or (), tokens=tokens,
                          limits=limits, samples=svc.models.may_sample)
    if not is_loopback(host) and not args.allow_host:
        print(f"hyperskill serve: note: only requests whose Host header is a loopback name "
              f"get in; add --allow-host NAME:{port} for the name your clients use",
              file=sys.stderr, flush=True)
    config = uvicorn.Config(asgi, log_level=args.log_level.lower(), lifespan="on",
                            timeout_keep_alive=httpd.KEEP_ALIVE)
    print(f"hyperskill serve: listening on http://{shown}:{port}/mcp"
          f"{' (bearer token required)' if tokens else ''}", file=sys.stderr, flush=True)
    anyio.run(lambda: uvicorn.Server(config).serve(sockets=[sock]),  # uvloop: less CPU a call
              backend_options={"use_uvloop": find_spec("uvloop") is not None})
