"""The Starlette app: every route on one screen (docs/protocol.md describes the wire, /api/openapi.json the REST)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Annotated

import msgspec
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket

from bots.client import FAULTS
from bots.strategies import STRATEGIES, parse_mix
from engine.refunds import RefundPolicy
from engine.structure import DefinitionError, load_definition
from server.hub import CLOSE_FLOOD, CLOSE_TOO_BIG, WIRE, Connection, Outbound, WebSocketProtocol
from server.openapi import openapi_document
from server.protocol import (
    MAX_MESSAGE_BYTES, Act, Back, Incoming, Sync, Watch, describe_decode_error, error_message, incoming_decoder,
)
from server.journal import MemoryStorage, SQLiteStorage, Storage
from server.runtime import Refused, TournamentRuntime
from server.simulator import DEFAULT_MIX

WEB_DIR = Path(__file__).resolve().parents[1] / "web"
# The websocket transport: the protocol the table streams write through (server/hub.py), a frame limit over the
# app's own message limit, and no per-message compression, which cost a quarter of the server's time under a
# swarm (docs/performance.md) for small JSON messages.
UVICORN_WEBSOCKETS = {"ws": WebSocketProtocol, "ws_max_size": 65536, "ws_per_message_deflate": False}


class RegisterRequest(msgspec.Struct, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


class BotsRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Fill a tournament with bots that play over the websocket (``mix`` as in ``mttsim simulate --mix``)."""

    count: Annotated[int, msgspec.Meta(ge=1, le=10_000)]
    mix: str | None = None
    think_min: Annotated[float, msgspec.Meta(ge=0)] = 0.3
    think_max: Annotated[float, msgspec.Meta(ge=0)] = 1.5


class CancelRequest(msgspec.Struct, forbid_unknown_fields=True):
    """An optional refund policy for this cancellation; without one, the tournament's own applies."""

    policy: RefundPolicy | None = None


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


def error(status: int, code: str, message: str) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


def create_app(settings: Settings) -> Starlette:
    tournaments: dict[str, TournamentRuntime] = {}
    holder: dict[str, asyncio.TaskGroup] = {}
    storage: Storage = SQLiteStorage(settings.db) if settings.db else MemoryStorage()
    outbound = Outbound(settings.broadcast_tick, before=storage.commit)

    def bearer(request: Request) -> str | None:
        header = request.headers.get("authorization", "")
        return header[7:].strip() if header.lower().startswith("bearer ") else None

    def admin(request: Request) -> Response | None:
        token = bearer(request)
        if token is None or not secrets.compare_digest(token, settings.admin_token):
            return error(401, "admin_only", "this needs the admin token: Authorization: Bearer <token>")
        return None

    def runtime_of(request: Request) -> TournamentRuntime:
        runtime = tournaments.get(request.path_params["id"])
        if runtime is None:
            raise Refused(404, "no_tournament", f"no tournament {request.path_params['id']!r}")
        return runtime

    async def list_tournaments(request: Request) -> Response:
        return JSONResponse([runtime.summary() for runtime in tournaments.values()])

    async def create_tournament(request: Request) -> Response:
        if (refusal := admin(request)) is not None:
            return refusal
        body = await request.body()
        try:
            definition = load_definition(body, toml="toml" in request.headers.get("content-type", ""))
        except DefinitionError as problem:
            return error(400, "bad_definition", str(problem))
        tournament_id = secrets.token_hex(4)
        tournaments[tournament_id] = TournamentRuntime.create(tournament_id, definition, storage,
                                                              hand_pause=settings.hand_pause)
        tournaments[tournament_id].registry = tournaments
        return JSONResponse({"id": tournament_id}, status_code=201)

    async def show_tournament(request: Request) -> Response:
        return JSONResponse(runtime_of(request).details())

    async def register(request: Request) -> Response:
        runtime = runtime_of(request)
        try:
            body = msgspec.json.decode(await request.body(), type=RegisterRequest)
        except msgspec.DecodeError as problem:
            return error(400, "bad_request", str(problem))
        player, token = runtime.register(body.name, another_of=bearer(request))
        return JSONResponse({"player_id": player, "token": token}, status_code=201)

    async def unregister(request: Request) -> Response:
        runtime = runtime_of(request)
        refund = runtime.unregister(bearer(request) or "")
        return JSONResponse({"refund_cents": refund})

    async def admin_command(request: Request) -> Response:
        if (refusal := admin(request)) is not None:
            return refusal
        runtime = runtime_of(request)
        command = request.path_params["command"]
        if command == "start":
            runtime.start(holder["tasks"])
        elif command == "pause":
            runtime.pause()
        elif command == "resume":
            runtime.resume()
        elif command == "cancel":
            try:
                body = msgspec.json.decode(await request.body() or b"{}", type=CancelRequest)
            except msgspec.DecodeError as problem:
                return error(400, "bad_request", str(problem))
            runtime.cancel(body.policy)
        else:
            return error(404, "no_command", f"unknown command {command!r}: start, pause, resume or cancel")
        return JSONResponse(runtime.summary())

    async def cancellation_preview(request: Request) -> Response:
        """What a cancellation would refund now, under the tournament's policy or ``?policy=A|B``."""
        if (refusal := admin(request)) is not None:
            return refusal
        runtime = runtime_of(request)
        name = request.query_params.get("policy")
        if name not in (None, "A", "B"):
            return error(400, "bad_request", "policy: A or B")
        policy = msgspec.structs.replace(runtime.definition.refund_policy, name=name) if name else None
        return JSONResponse({"refunds": runtime.cancellation_preview(policy)})

    async def add_bots(request: Request) -> Response:
        if (refusal := admin(request)) is not None:
            return refusal
        runtime = runtime_of(request)
        try:
            body = msgspec.json.decode(await request.body() or b"{}", type=BotsRequest)
            mix = parse_mix(body.mix, [*STRATEGIES, *FAULTS]) if body.mix else DEFAULT_MIX
        except (msgspec.DecodeError, ValueError) as problem:
            return error(400, "bad_request", str(problem))
        ws_url = f"ws://{request.url.hostname}:{request.url.port}"
        added = runtime.add_bots(body.count, ws_url, holder["tasks"], mix=mix, think=(body.think_min, body.think_max),
                                 rng=random.Random())
        return JSONResponse({"players": added}, status_code=201)

    async def hand_list(request: Request) -> Response:
        """Finished hands, optionally of one ``player`` or at one ``table``."""
        runtime = runtime_of(request)
        table = request.query_params.get("table")
        if table is not None and not table.isdigit():
            return error(400, "bad_request", "table: a table number")
        rows = storage.hands(runtime.id, request.query_params.get("player"), int(table) if table else None)
        return JSONResponse({"hands": msgspec.to_builtins(rows)})

    async def hand_history(request: Request) -> Response:
        """One finished hand as PHH (the poker hand history format PokerKit reads)."""
        runtime = runtime_of(request)
        number = request.path_params["hand"]
        text = storage.hand(runtime.id, int(number)) if number.isdigit() else None
        if text is None:
            return error(404, "no_hand", f"no finished hand {number!r} in this tournament")
        return PlainTextResponse(text, media_type="text/plain; charset=utf-8")

    async def openapi(request: Request) -> Response:
        return JSONResponse(openapi_document())

    async def play(websocket: WebSocket) -> None:
        """A player (``?token=``) or an observer (``?table=``) on a tournament's tables."""
        runtime = tournaments.get(websocket.path_params["id"])
        token = websocket.query_params.get("token")
        player = runtime.player_for(token) if runtime is not None and token else None
        await websocket.accept()
        if runtime is None or (token and player is None):
            reason = "no such tournament" if runtime is None else "unknown player token"
            await websocket.send_text(error_message("refused", reason).decode())
            await websocket.close(4404 if runtime is None else 4401, reason)
            return
        wire = websocket.scope["extensions"].get(WIRE)
        if wire is None:
            raise RuntimeError("run the app under uvicorn with server.app.UVICORN_WEBSOCKETS (mttsim serve does)")
        table = websocket.query_params.get("table")
        connection = Connection(websocket, wire, player=player, outbound=outbound, max_queue=settings.max_queue,
                                rate=settings.rate, burst=settings.burst)
        runtime.connect(connection, int(table) if table and table.isdigit() else None)
        wire.attach(lambda data: receive(runtime, connection, data), connection.lost, connection.flush)
        try:
            await connection.ended
        finally:
            runtime.disconnect(connection)
            await connection.stop()

    def receive(runtime: TournamentRuntime, connection: Connection, data: bytes) -> None:
        """One incoming message: limits first, then a clear error or the command, and never an exception."""
        if connection.closed:
            return
        if len(data) > MAX_MESSAGE_BYTES:
            connection.drop(CLOSE_TOO_BIG, f"message over {MAX_MESSAGE_BYTES} bytes")
            return
        if not connection.rate_limit.allow():
            connection.drop(CLOSE_FLOOD, "too many messages")
            return
        try:
            request = incoming_decoder.decode(data)
        except msgspec.DecodeError as problem:
            connection.send(error_message(*describe_decode_error(problem)))
            return
        try:
            handle(runtime, connection, request)
        except Refused as refusal:
            connection.send(refusal.wire_message())

    def handle(runtime: TournamentRuntime, connection: Connection, request: Incoming) -> None:
        if isinstance(request, Sync):
            connection.send(runtime.snapshot_message(connection))
        elif isinstance(request, Watch):
            runtime.watch(connection, request.table)
        elif connection.player is None:
            raise Refused(403, "observer", "observers cannot act; connect with your player token")
        elif isinstance(request, Act):
            runtime.player_act(connection.player, request)
        elif isinstance(request, Back):
            runtime.player_back(connection.player)
        else:
            runtime.player_money(connection.player, request)

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        return error(exc.status, exc.code, exc.message)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with asyncio.TaskGroup() as tasks:
            holder["tasks"] = tasks
            for stored in storage.tournaments():  # a restart: open tournaments play on, closed ones are shown
                try:
                    runtime = TournamentRuntime.restore(stored, storage, hand_pause=settings.hand_pause)
                    tournaments[runtime.id] = runtime
                    runtime.registry = tournaments
                    runtime.ws_url = settings.ws_url
                    if stored.open:
                        runtime.resume_after_restore(tasks, settings.ws_url)
                except Exception:  # one tournament's broken journal must not keep the others down
                    logging.getLogger("mttsim.server").exception("tournament %s could not be restored", stored.id)
            yield
            for runtime in tournaments.values():
                await runtime.shutdown()
            for task in asyncio.all_tasks():  # the server's own bots play until their tournament ends: stop them
                if task.get_name().startswith("bot:"):
                    task.cancel()
        storage.close()

    routes = [
        Route("/api/openapi.json", openapi),
        Route("/api/tournaments", list_tournaments, methods=["GET"]),
        Route("/api/tournaments", create_tournament, methods=["POST"]),
        Route("/api/tournaments/{id}", show_tournament),
        Route("/api/tournaments/{id}/register", register, methods=["POST"]),
        Route("/api/tournaments/{id}/unregister", unregister, methods=["POST"]),
        Route("/api/tournaments/{id}/bots", add_bots, methods=["POST"]),
        Route("/api/tournaments/{id}/cancellation", cancellation_preview, methods=["GET"]),
        Route("/api/tournaments/{id}/hands", hand_list, methods=["GET"]),
        Route("/api/tournaments/{id}/hands/{hand}", hand_history, methods=["GET"]),
        Route("/api/tournaments/{id}/{command}", admin_command, methods=["POST"]),
        WebSocketRoute("/ws/tournaments/{id}", play),
    ]
    if WEB_DIR.is_dir():
        routes.append(Mount("/", StaticFiles(directory=WEB_DIR, html=True)))
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={Refused: refused})
    app.state.tournaments = tournaments
    app.state.storage = storage
    return app
