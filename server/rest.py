"""What every REST endpoint and websocket shares: the server's settings and state, the request's admin token and
tournament, bodies decoded (and limited in size), and JSON answers."""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from starlette.websockets import WebSocket

from engine.structure import MAX_NESTING, Definition, nesting_depth
from server import feeds
from server.bus import Process
from server.errors import Refused
from server.hub import Outbound, RateLimit
from server.journal import MemoryStorage, SQLiteStorage, Storage
from server.metrics import Metrics
from server.openapi import Problem
from server.runtime import TournamentRuntime

if TYPE_CHECKING:
    from server.cluster import DirectorService

CONNECTIONS_PER_SECOND, CONNECTION_BURST = 2.0, 10  # per player token: a reload or a flaky line, not a loop
MAX_BODY_BYTES = 16 * 1024  # a registration, a cancel's policy, a bots request: a few hundred bytes
MAX_DEFINITION_BYTES = 1024 * 1024  # a tournament's definition: a few kilobytes, with room for long structures


class Settings(msgspec.Struct):
    """Server limits and pacing; ``mttsim serve`` sets them from its options."""

    admin_token: str
    hand_pause: float = 2.0  # seconds a finished hand stays on the table before the next deal
    max_queue: int = 512  # outbound messages a client may fall behind before it is dropped
    broadcast_tick: float = 0.05  # seconds other players' actions may wait, to leave in fewer, larger frames
    rate: float = 50.0  # incoming messages a second per connection, on average (a fast bot makes ~40)
    burst: int = 100
    db: str | None = None  # the SQLite journal; None keeps everything in memory (tests, the demo)
    ws_url: str | None = None  # where the server's own bots reach it, to bring them back after a restore
    nats: str | None = None  # a cluster's bus: this process is its director, and table workers play the tables


class Server:
    """The application's state: its settings, its tournaments and their storage."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.tournaments: dict[str, TournamentRuntime] = {}
        self.storage: Storage = SQLiteStorage(settings.db) if settings.db else MemoryStorage()
        self.metrics = Metrics(self.tournaments.values)
        self.outbound = Outbound(settings.broadcast_tick, before=self.storage.commit,
                                 waited=self.metrics.event_lag_seconds.observe)
        self.connection_rates: dict[tuple[str, str], RateLimit] = {}
        self.damaged: dict[str, str] = {}  # tournaments whose journal is damaged: reported, never restored
        self.lobby = feeds.lobby(self.tournaments.values)
        url = settings.ws_url.replace("ws", "http", 1) if settings.ws_url else None
        self.process = Process.here("director" if settings.nats else "single", url)
        self.cluster: DirectorService | None = None  # with settings.nats, set up by the app's lifespan

    def connection_rate(self, tournament: str, player: str) -> RateLimit:
        """How fast one player may open connections: ``CONNECTIONS_PER_SECOND``, bursts of ``CONNECTION_BURST``."""
        key = (tournament, player)
        limit = self.connection_rates.get(key)
        if limit is None:
            limit = self.connection_rates[key] = RateLimit(CONNECTIONS_PER_SECOND, CONNECTION_BURST)
        return limit

    def add(self, runtime: TournamentRuntime) -> None:
        self.tournaments[runtime.id] = runtime
        runtime.registry = self.tournaments
        runtime.tables.barrier = self.metrics.barrier_seconds.observe
        if self.cluster is not None:
            self.cluster.attach(runtime)

    def create(self, definition: Definition) -> TournamentRuntime:
        """A new tournament, journaled, in the lobby and on its clock."""
        runtime = TournamentRuntime.create(secrets.token_hex(4), definition, self.storage,
                                           hand_pause=self.settings.hand_pause)
        self.add(runtime)
        runtime.keep_time()
        return runtime


def server_of(request: Request | WebSocket) -> Server:
    server: Server = request.app.state.server
    return server


Body = TypeVar("Body")


def reply(body: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(body), status_code=status, media_type="application/json")


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else None


def is_admin(request: Request) -> bool:
    token = bearer(request)
    admin_token = server_of(request).settings.admin_token.encode()
    return token is not None and secrets.compare_digest(token.encode(), admin_token)


def require_admin(request: Request) -> None:
    if not is_admin(request):
        raise Refused("admin_only", "this needs the admin token: Authorization: Bearer <token>")


def runtime_of(request: Request) -> TournamentRuntime:
    server, tournament = server_of(request), request.path_params["id"]
    runtime = server.tournaments.get(tournament)
    if runtime is None and tournament in server.damaged:
        raise Refused("damaged", f"tournament {tournament!r} is not restored: {server.damaged[tournament]}")
    if runtime is None:
        raise Refused("no_tournament", f"no tournament {tournament!r}")
    return runtime


async def body_of(request: Request, kind: type[Body], empty: bytes | None = None) -> Body:
    """The request's JSON body as ``kind``; a malformed one is refused naming the field."""
    body = await request.body() or empty or b""
    if nesting_depth(body) > MAX_NESTING:
        raise Refused("bad_request", f"the body nests deeper than {MAX_NESTING} brackets")
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.DecodeError as problem:
        raise Refused("bad_request", str(problem)) from None


class BodyLimit:
    """Refuse a request body over its limit with 413, before it is read whole: ``MAX_DEFINITION_BYTES`` for a
    tournament's definition, ``MAX_BODY_BYTES`` for every other body (docs/security.md)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = MAX_DEFINITION_BYTES if scope["path"] == "/api/tournaments" else MAX_BODY_BYTES
        declared = dict(scope["headers"]).get(b"content-length", b"0")
        too_big = Response(msgspec.json.encode(Problem("too_large", f"a request body is at most {limit} bytes here")),
                           status_code=413, media_type="application/json")
        if not declared.isdigit() or int(declared) > limit:
            await too_big(scope, receive, send)
            return
        chunks, size = [], 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return  # the client left
            chunks.append(message.get("body", b""))
            size += len(chunks[-1])
            if size > limit:
                await too_big(scope, receive, send)
                return
            if not message.get("more_body", False):
                break
        body = b"".join(chunks)
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if replayed:
                return await receive()
            replayed = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)
