"""What a process that faces HTTP clients needs, and no tournament: its settings, bodies decoded and limited in
size, bearer tokens, JSON answers and the web client's files. The director's application and a cluster's
gateway (which keeps no state of its own) both stand on it."""

from __future__ import annotations

import secrets
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any, TypeVar

import msgspec
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Mount
from starlette.staticfiles import StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from engine.structure import MAX_NESTING, nesting_depth
from server.errors import Code, Refused
from server.hub import Outbound, RelayedConnection, Relay, SocketConnection, Wire
from server.api.openapi import Problem

MAX_BODY_BYTES = 16 * 1024  # a registration, a cancel's policy, a bots request: a few hundred bytes
MAX_DEFINITION_BYTES = 1024 * 1024  # a tournament's definition: a few kilobytes, with room for long structures
WEB_DIR = Path(__file__).resolve().parents[2] / "web"


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
    clustered: bool = False  # this process is a cluster's director, and table workers play the tables
    plan_runs: int = 0  # quick simulations of a started tournament's field, for its plan (0: none)
    # A gateway's sessions at once: past it a socket is refused, so that a browser goes on through another
    # gateway. Each session is a socket, and a process may open only so many files (docs/deployment.md).
    max_sessions: int = 15_000


Body = TypeVar("Body")


def reply(body: Any, status: int = 200) -> Response:
    return Response(msgspec.json.encode(body), status_code=status, media_type="application/json")


def bearer(request: Request) -> str | None:
    header = request.headers.get("authorization", "")
    return header[7:].strip() if header.lower().startswith("bearer ") else None


def is_admin(request: Request, settings: Settings) -> bool:
    """The one admin check, of the director's endpoints and a gateway's own."""
    token = bearer(request)
    return token is not None and secrets.compare_digest(token.encode(), settings.admin_token.encode())


def require_admin(request: Request, settings: Settings) -> None:
    if not is_admin(request, settings):
        raise Refused("admin_only", "this needs the admin token: Authorization: Bearer <token>")


# Every refusal code and its HTTP status: the only place statuses are chosen (the websocket sends the code).
STATUS_OF: dict[Code, int] = {
    "bad_request": 400, "bad_definition": 400,
    "admin_only": 401, "bad_token": 401,
    "observer": 403,
    "no_tournament": 404, "no_finished_hand": 404, "no_table": 404,
    "refused": 409, "not_running": 409, "not_paused": 409, "player_cannot_watch": 409, "no_hand": 409,
    "not_your_turn": 409, "stale": 409, "not_yet": 409, "illegal_action": 409, "name_taken": 409,
    "too_large": 413,
    "too_many_connections": 429, "chat_limit": 429,
    "damaged": 503, "unavailable": 503,
}


async def refused(request: Request, exc: Exception) -> Response:
    """A refusal as a problem document, with its code's status (the exception handler of both applications)."""
    assert isinstance(exc, Refused)
    return reply(Problem(exc.code, exc.message), STATUS_OF[exc.code])


LOBBY_RATE, LOBBY_BURST = 1.0, 5  # messages a lobby session may send (each asks for the snapshot again)


def _rate(settings: Settings, lobby: bool) -> tuple[float, int]:
    """How many messages a session may send: a lobby's rate is its own."""
    return (LOBBY_RATE, LOBBY_BURST) if lobby else (settings.rate, settings.burst)


def client(settings: Settings, outbound: Outbound, close: Callable[[int, str], Awaitable[None]], wire: Wire,
           *, player: str | None = None, lobby: bool = False) -> SocketConnection:
    """The one way a session whose socket is here is built: its outbox's limits and its rate, by the settings."""
    rate, burst = _rate(settings, lobby)
    return SocketConnection(close, wire, player=player, outbound=outbound, max_queue=settings.max_queue, rate=rate,
                            burst=burst)


def relayed_client(settings: Settings, close: Callable[[int, str], Awaitable[None]], relay: Relay, number: int,
                   *, player: str | None = None, lobby: bool = False) -> RelayedConnection:
    """The one way a session whose socket is at a cluster's gateway (``relay``, where it is ``number``) is
    built: its rate, by the settings; its outbox is the gateway's."""
    rate, burst = _rate(settings, lobby)
    return RelayedConnection(close, relay, number, player=player, rate=rate, burst=burst)


async def body_of(request: Request, kind: type[Body], empty: bytes | None = None) -> Body:
    """The request's JSON body as ``kind``; a malformed one is refused naming the field."""
    body = await request.body() or empty or b""
    if nesting_depth(body) > MAX_NESTING:
        raise Refused("bad_request", f"the body nests deeper than {MAX_NESTING} brackets")
    try:
        return msgspec.json.decode(body, type=kind)
    except msgspec.DecodeError as problem:
        raise Refused("bad_request", str(problem)) from None


def web_client() -> list[BaseRoute]:
    """The browser client's files at ``/``, where a checkout has them (an installed wheel has none)."""
    return [Mount("/", StaticFiles(directory=WEB_DIR, html=True))] if WEB_DIR.is_dir() else []


class CountRequests:
    """Every HTTP request answered, counted by method, route (its template: ``/api/tournaments/{id}``, never a
    tournament's id, so the series stay few) and status, for ``mttsim_http_requests_total``."""

    def __init__(self, app: ASGIApp, counted: Callable[[str, str, int], None]) -> None:
        self.app = app
        self.counted = counted

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = 500

        async def answered(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, answered)
        finally:
            route = scope.get("route")
            self.counted(scope["method"], getattr(route, "path", "unmatched"), status)


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
        await self.app(scope, replaying(b"".join(chunks), receive), send)


def replaying(body: bytes, then: Receive) -> Receive:
    """An ASGI ``receive`` that gives ``body`` whole, once, then what ``then`` gives (the client leaving): a body
    read ahead (to check its size here, or from a gateway's message) handed on to the application."""
    replayed = False

    async def receive() -> Message:
        nonlocal replayed
        if replayed:
            return await then()
        replayed = True
        return {"type": "http.request", "body": body, "more_body": False}

    return receive
