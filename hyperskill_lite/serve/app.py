"""The MCP server: HyperSkill's memory as tools and resources on the official ``mcp`` SDK
(``MCPServer``), over stdio or streamable HTTP.

Tools: ``recall``, ``learn``, ``maintain``, ``explain``, ``skill``, ``stats`` (service.py
says what each does; their docstrings below are what a client's model reads). Resources:
``hyperskill://skills`` (the skill list by utility) and ``hyperskill://health`` (the
memory's health). A tool never raises: a bad argument, a failed model call or a busy
memory is one line in an error result (``isError``).

HTTP (`http_app`): the SDK's streamable HTTP app, bound to loopback by default, with
the SDK's DNS-rebinding protection on (``Host`` and ``Origin`` checked against
loopback names, or the names given); a bind to any other address needs a bearer token,
checked by the SDK's bearer middleware through `StaticToken` (constant-time compare).

Not here: what the tools do (service.py), the command line (cli/serve.py).
"""

from __future__ import annotations

import hmac
import json
import logging
import socket
from collections.abc import Awaitable, Sequence
from typing import Annotated, Any

import mcp.types as types
from mcp.server.auth.provider import AccessToken
from mcp.server.auth.settings import AuthSettings
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.transport_security import TransportSecuritySettings
from pydantic import Field

from hyperskill_lite.errors import LLMError
from hyperskill_lite.serve.bounds import LIMITS, BoundsError
from hyperskill_lite.serve.journal import JournalBusy, JournalError
from hyperskill_lite.serve.records import RecordError
from hyperskill_lite.serve.sampling import NeedsInput
from hyperskill_lite.serve.service import MemoryService, OperationError

__all__ = ["build_server", "http_app", "StaticToken", "bind_socket", "INSTRUCTIONS"]

log = logging.getLogger(__name__)

INSTRUCTIONS = """\
HyperSkill is a procedural memory learned from agent trajectories (a hypergraph of
subtask steps, strategies and mistakes, ranked by how often they co-occur and by their
utility). Before a task, call recall(task) and put the returned `context` in front of
your work; keep `used_ids`. After the task, call learn(task, trajectory, outcome, steps,
used_ids) with what you did and whether it worked: the memory extracts reusable skills
(or mistakes to avoid) and credits the items you used. The memory is shared by every
client of this server."""

Result = dict[str, Any] | types.InputRequiredResult

_USER_ERRORS = (BoundsError, OperationError, LLMError, JournalBusy, JournalError, RecordError,
                OSError)


async def _run(op: str, call: Awaitable[Any]) -> Any:
    """Await a service call; what goes wrong becomes one line in an error result."""
    try:
        return await call
    except NeedsInput as need:  # 2026-07-28: the client answers sampling, then calls again
        return need.result
    except _USER_ERRORS as exc:
        raise ToolError(" ".join(str(exc).split())[:2000]) from None
    except Exception as exc:  # a bug of ours: logged with its traceback, one line out
        log.exception("%s failed", op)
        raise ToolError(f"internal error ({type(exc).__name__}); see the server's log"
                        ) from None


def _client_name(ctx: Context | None) -> str:
    try:
        info = ctx.session.client_params.client_info  # type: ignore[union-attr]
        return f"{info.name} {info.version}"[:80]
    except AttributeError:
        return ""


Task = Annotated[str, Field(description="The task, as the user or your plan states it "
                            f"(at most {LIMITS.task_bytes} bytes).")]
K = Annotated[int | None, Field(description="How many subtask nodes, trajectories and "
                                "skills to retrieve (k_u = k_e = k_s; default: the "
                                "memory's, 2).", ge=1, le=LIMITS.k)]


def build_server(service: MemoryService, *, token: str | None = None,
                 issuer_url: str = "http://127.0.0.1", log_level: str = "WARNING") -> MCPServer:
    """The MCP server over `service`. With `token`, HTTP requests must carry
    ``Authorization: Bearer <token>`` (`issuer_url`: this server's own URL; there is no
    OAuth server, the token is static)."""
    auth = dict(token_verifier=StaticToken(token),
                auth=AuthSettings(issuer_url=issuer_url, resource_server_url=None)
                ) if token else {}
    mcp = MCPServer("hyperskill", title="HyperSkill skill memory", instructions=INSTRUCTIONS,
                    version=_version(), log_level=log_level.upper(), **auth)
    _memory_tools(mcp, service)
    _inspection_tools(mcp, service)
    _resources(mcp, service)
    return mcp


_READ_ONLY = types.ToolAnnotations(read_only_hint=True, open_world_hint=False)


def _memory_tools(mcp: MCPServer, service: MemoryService) -> None:
    """recall, learn, maintain: the memory's use and update."""

    @mcp.tool(annotations=_READ_ONLY)
    async def recall(task: Task, k: K = None, ctx: Context = None) -> Result:  # type: ignore[assignment]
        """Retrieve what the memory learned that helps with `task`, before you start it.

        Returns `context` (markdown: past lessons, relevant skills, mistakes to avoid; put
        it in front of your work), `used_ids` (pass them to learn afterwards, so the
        items that helped or misled are credited), the skills with their co-occurrence
        count kappa, the plan the task was decomposed into, and `notes` on anything
        skipped. An empty context means the memory holds nothing relevant yet."""
        return await _run("recall", service.recall(task, k, ctx))

    @mcp.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=False,
                                                idempotent_hint=False, open_world_hint=False))
    async def learn(
        task: Task,
        trajectory: Annotated[str, Field(description=(
            "What you did: your steps, tool calls and observations, in order, as text "
            f"(at most {LIMITS.trajectory_bytes} bytes; the model sees the first and "
            "last parts of a long one)."))],
        outcome: Annotated[str, Field(description="'success' if the task was solved, "
                                      "'failure' if not.", pattern="^(success|failure)$")],
        steps: Annotated[int | None, Field(description="How many steps (actions or tool "
                                           "calls) the task took; fewer is better.",
                                           ge=0, le=LIMITS.steps)] = None,
        used_ids: Annotated[list[str] | None, Field(description=(
            "The used_ids your recall returned for this task (credited with this "
            "outcome)."), max_length=LIMITS.ids)] = None,
        ctx: Context = None,  # type: ignore[assignment]
    ) -> Result:
        """Teach the memory from a finished task: call it once per task, after it ended,
        successful or not.

        The memory extracts reusable strategies (after a success) or mistakes to avoid
        (after a failure) and a one-line lesson, and stores them with the task's subtask
        steps as one trajectory; the items in `used_ids` are credited with the outcome.
        Returns the new trajectory's id, the skills stored (and whether each joined an
        existing one), and `notes`. Every few learned tasks it also runs a maintenance
        cycle (reported under `maintenance`)."""
        return await _run("learn", service.learn(task, trajectory, outcome, steps, used_ids,
                                                 ctx, client=_client_name(ctx)))

    @mcp.tool(annotations=types.ToolAnnotations(read_only_hint=False, destructive_hint=True,
                                                idempotent_hint=False, open_world_hint=False))
    async def maintain(ctx: Context = None) -> Result:  # type: ignore[assignment]
        """Run one maintenance cycle now: prune low-utility items (often retrieved, rarely
        helpful) and merge skills that keep appearing together into one. It also runs on
        its own every few learned tasks; call it only to tidy up now. Returns what was
        pruned and merged."""
        return await _run("maintain", service.maintain(ctx))


def _inspection_tools(mcp: MCPServer, service: MemoryService) -> None:
    """explain, skill, stats: reading the memory, crediting nothing."""

    @mcp.tool(annotations=_READ_ONLY)
    async def explain(task: Task, k: K = None, ctx: Context = None) -> Result:  # type: ignore[assignment]
        """Explain how a recall of `task` is put together: the subtask path and the
        trajectory path, the trajectories found, and for each skill its co-occurrence
        count and similarity. Credits nothing; for inspecting the memory."""
        return await _run("explain", service.explain(task, k, ctx))

    @mcp.tool(annotations=_READ_ONLY)
    async def skill(id: Annotated[str, Field(description="A skill, subtask or trajectory id "
                                             "from recall or the skill list, e.g. 's12'.",
                                             pattern=r"^[use][1-9][0-9]{0,11}$")]) -> Result:
        """One skill (or subtask step, or trajectory) in full: its text, polarity
        (strategy or mistake), utility and counts, and the trajectories it came from."""
        return await _run("skill", _now(service.skill, id))

    @mcp.tool(annotations=_READ_ONLY)
    async def stats() -> Result:
        """The memory's size (subtask steps, strategies, mistakes, trajectories), where it
        is stored, the journal of updates since the last checkpoint, and which model the
        memory's own operations use."""
        return await _run("stats", _now(service.stats))


def _resources(mcp: MCPServer, service: MemoryService) -> None:
    """The skill list and the memory's health."""

    @mcp.resource("hyperskill://skills", name="skills", mime_type="application/json",
                  description="The skills of the memory, highest utility (Eq. 3) first "
                  "(at most 1,000), with their polarity, counts and content.")
    def skills_resource() -> str:
        return json.dumps(service.skills_list(), ensure_ascii=False)

    @mcp.resource("hyperskill://health", name="health", mime_type="application/json",
                  description="The memory's health: what it stored, showed and pruned since "
                  "the server started, and its size.")
    def health_resource() -> str:
        return json.dumps(service.health(), ensure_ascii=False)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("hyperskill_lite")
    except PackageNotFoundError:  # a source tree that was never installed
        return "0+unknown"


async def _now(fn: Any, *args: Any) -> Any:
    import anyio.to_thread

    return await anyio.to_thread.run_sync(fn, *args)


class StaticToken:
    """A `TokenVerifier` for one shared bearer token (``--token`` or
    ``$HYPERSKILL_MCP_TOKEN``), compared in constant time."""

    def __init__(self, token: str) -> None:
        if len(token) < 16:
            raise ValueError("the bearer token must have at least 16 characters")
        self._token = token.encode()

    async def verify_token(self, token: str) -> AccessToken | None:
        if hmac.compare_digest(token.encode(), self._token):
            return AccessToken(token="***", client_id="bearer", scopes=[])
        return None


def http_app(server: MCPServer, host: str, *, allowed_hosts: Sequence[str] = (),
             allowed_origins: Sequence[str] = ()) -> Any:
    """The streamable HTTP app of `server` for a bind to `host`, DNS-rebinding protection
    on: ``Host`` must be a loopback name (any port) or one of `allowed_hosts`
    (``name:port`` or ``name:*``), ``Origin`` absent or a loopback origin or one of
    `allowed_origins`."""
    hosts = ["127.0.0.1:*", "localhost:*", "[::1]:*", *allowed_hosts]
    origins = ["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*", *allowed_origins]
    security = TransportSecuritySettings(enable_dns_rebinding_protection=True,
                                         allowed_hosts=hosts, allowed_origins=origins)
    return server.streamable_http_app(transport_security=security, host=host)


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on (host, port); port 0 lets the OS choose."""
    family = socket.AF_INET6 if ":" in host.strip("[]") else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host.strip("[]"), port))
    sock.listen(128)
    sock.set_inheritable(True)
    return sock
