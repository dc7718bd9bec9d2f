"""A gateway (``mttsim serve --role gateway``, on a cluster's bus): the REST API, the websockets and the web client of
a cluster, in front of its director.

A gateway holds its clients' sockets and does their writing, which was most
of one server's time under a swarm (docs/performance.md). It keeps no state
of its own. A client's session is a connection in the director's process
(server/cluster/service.py): what the client sends goes there in one bus message per
turn of the event loop, and what it is sent comes back the same way, from the
director or from the worker playing the client's table, so a player's socket
stays on this gateway wherever their seat moves, whichever worker plays the
table. REST requests go to the director whole and come back
in pieces. Should a gateway die, its clients reconnect through another.

Each client is a ``server.hub.Connection`` here too, for its outbox: a
client the gateway cannot write to keeps its messages, up to ``max_queue``,
then it is dropped (close code 4008), as one server does.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

import msgspec
from prometheus_client import Counter, Gauge, Histogram, generate_latest
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response, StreamingResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from engine.wire import MAX_MESSAGE_BYTES, Act, incoming_decoder
from server.cluster.bus import Bus, NoAnswer, Transport
from server.cluster.vouching import IDENTITY_PATH, Identity
from server.cluster.schema import (
    ANY_HOLDER, CLOSE_SESSION_LOST, Acted, Heartbeat, HttpHead, HttpRequest, TableBatch, ToDirector, ToGateway,
    beat_for, decisions_for, deliver, frames_for, http_for, sockets_for,
)
from server.cluster.schema import Route as ClientRoute  # beside Starlette's Route
from server.processes import Process
from server.hub import CLOSE_FLOOD, CLOSE_TRY_AGAIN_LATER, Outbound, SocketConnection
from server.api.socketwire import serve, wire_of
from server.api.metrics import CONTENT_TYPE, SECONDS, process_registry
from server.api.openapi import Problem
from server.api.edge import BodyLimit, Settings, client, refused, require_admin, web_client
from server.errors import Refused
from server.turns import TurnBatch, beat

logger = logging.getLogger("mttsim.gateway")
HEARTBEAT_SECONDS = 1.0
_frames = msgspec.msgpack.Decoder(list[ToGateway])
_head = msgspec.msgpack.Decoder(HttpHead)
_heartbeat = msgspec.msgpack.Decoder(Heartbeat)
HOP_BY_HOP = {"content-length", "transfer-encoding", "connection"}


class GatewayMetrics:
    def __init__(self, clients: dict[int, SocketConnection]) -> None:
        self.registry = process_registry()
        self.connected = Gauge("mttsim_gateway_clients", "Sockets open on this gateway", registry=self.registry)
        self.connected.set_function(lambda: len(clients))
        self.messages_in = Counter("mttsim_gateway_messages_in", "Client messages passed to the director",
                                   registry=self.registry)
        self.messages_out = Counter("mttsim_gateway_messages_out", "Messages written to clients",
                                    registry=self.registry)
        self.sessions_refused = Counter("mttsim_gateway_sessions_refused", "Sockets refused: the gateway held "
                                        "its max_sessions", registry=self.registry)
        self.round_trip = Histogram("mttsim_bus_round_trip_seconds", "A REST request to the director and its "
                                    "answer's first piece", buckets=SECONDS, registry=self.registry)
        # The director keeps no outbox for a gateway's clients: how long their messages wait is measured here.
        self.event_lag_seconds = Histogram("mttsim_event_lag_seconds",
                                           "How long the oldest message of a send pass waited in the gateway",
                                           buckets=SECONDS, registry=self.registry)


class Gateway:
    """The gateway's state: its clients by number, and what waits to go to the director."""

    def __init__(self, settings: Settings, url: str, transport: Transport) -> None:
        self.settings = settings
        self.transport = transport
        self.realm = transport.realm
        self.me = Process.here("gateway", url, self.realm)
        self.subject = frames_for(self.me.id)  # where the director and the workers send its clients' frames
        self.clients: dict[int, SocketConnection] = {}
        self.metrics = GatewayMetrics(self.clients)
        # What the director sends leaves at the end of the loop's turn (or within the gathering window under load).
        self.outbound = Outbound(settings.broadcast_tick, before=lambda: None,
                                 waited=self.metrics.event_lag_seconds.observe)
        self.bus: Bus | None = None
        self._next = 0
        self._pending: TurnBatch[ToDirector] = TurnBatch(self._send)
        self._director: str | None = None  # the director process whose sessions this gateway's clients have
        self._opened_a_beat_ago = 0  # the newest client whose opening has surely reached the director
        self.seats: dict[int, tuple[str, str]] = {}  # client -> its table's subject and its player, the director's word

    async def start(self) -> None:
        self.bus = await self.transport.connect("gateway", self.metrics.round_trip.observe)
        await self.bus.listen(self.subject, self.from_director)

    async def beat(self) -> None:
        """The heartbeat, once a second until the gateway stops: by it the director knows the gateway is alive
        (and lists it), and the gateway learns whether its clients still have their sessions."""
        await beat(HEARTBEAT_SECONDS, self._beat, "the director did not answer the gateway's heartbeat", logger)

    async def _beat(self) -> None:
        assert self.bus is not None
        # A client opened since the last beat may have its opening still on its way, on another subject: it is
        # judged at the next beat.
        opened, self._opened_a_beat_ago = self._opened_a_beat_ago, self._next
        try:
            answer = _heartbeat.decode(await self.bus.request(beat_for(self.realm), msgspec.msgpack.encode(self.me)))
        except NoAnswer:  # the director starts, or is stopped: a line, not a trace
            logger.warning("no director answers the gateway's heartbeat")
            return
        self.heartbeat_answered(answer, opened)

    def heartbeat_answered(self, answer: Heartbeat, opened: int) -> None:
        """Clients the director holds no session for (the gateway was taken for gone, or a new director replaced
        the one it knew) are closed with 1012 and reconnect to one: they would otherwise hear nothing more, and
        an observer, who sends nothing, would never learn why."""
        if self._director is not None and answer.director != self._director:
            logger.warning("the director %s replaced %s", answer.director, self._director)
        self._director = answer.director
        lost = [connection for conn, connection in self.clients.items()
                if conn < answer.sessions_from and conn <= opened]
        if lost:
            logger.warning("the director holds no session for %d clients: they reconnect", len(lost))
        for connection in lost:
            connection.drop(CLOSE_SESSION_LOST, "session lost: reconnect")

    def to_director(self, item: ToDirector) -> None:
        self._pending.add(item)

    def _send(self, pending: list[ToDirector]) -> None:
        if self.bus is not None:
            self.bus.publish(sockets_for(self.realm), msgspec.msgpack.encode(pending))

    def from_director(self, data: bytes) -> None:
        """Frames for this gateway's clients, from the director or a table's worker: each client's outbox keeps
        its lines for the broadcast tick or, to those ``now``, until the end of this turn of the event loop, as one
        server's do."""
        frames = _frames.decode(data)
        for frame in frames:
            if frame.player:  # where the client plays now
                if frame.table:
                    self.seats[frame.now[0]] = (frame.table, frame.player)
                else:
                    self.seats.pop(frame.now[0], None)
        self.metrics.messages_out.inc(deliver(frames, self.clients))

    def to_table(self, client: SocketConnection, conn: int, data: bytes) -> bool:
        """A player's decision, straight to the worker playing their table: the director, which would only pass
        it on, never sees it. Anything else (and what the director must refuse in its own words) goes to the
        director. The limits on what a client sends hold here for its decisions, as the director's do for the
        rest."""
        seat = self.seats.get(conn)
        if seat is None or len(data) > MAX_MESSAGE_BYTES or self.bus is None:
            return False
        try:
            message = incoming_decoder.decode(data)
        except msgspec.DecodeError:
            return False
        if not isinstance(message, Act):
            return False
        if not client.rate_limit.allow():
            client.drop(CLOSE_FLOOD, "too many messages")
            return True
        subject, player = seat
        decision = Acted(ClientRoute(self.subject, conn, player), message)
        self.bus.publish(decisions_for(self.realm, subject), msgspec.msgpack.encode(TableBatch(ANY_HOLDER, [decision])))
        return True

    async def session(self, websocket: WebSocket, tournament: str) -> None:
        """A client's socket, its session in the director's process until either side closes it; none past the
        gateway's ``max_sessions`` (its handshake is refused, and a browser goes on through another gateway)."""
        if len(self.clients) >= self.settings.max_sessions:
            self.metrics.sessions_refused.inc()
            await websocket.close(code=CLOSE_TRY_AGAIN_LATER, reason="this gateway holds all the sessions it may")
            return
        await websocket.accept()
        wire = wire_of(websocket)
        self._next += 1
        conn, name = self._next, self.me.id
        # Its outbox's limits, and the rate of its decisions (the rest, the director's).
        connection = self.clients[conn] = client(self.settings, self.outbound, websocket.close, wire)

        def heard(data: bytes) -> None:
            self.metrics.messages_in.inc()
            if not self.to_table(connection, conn, data):
                self.to_director(ToDirector("in", name, conn, data))

        def left() -> None:
            del self.clients[conn]
            self.seats.pop(conn, None)
            self.to_director(ToDirector("gone", name, conn))

        self.to_director(ToDirector("open", name, conn, tournament=tournament, query=dict(websocket.query_params)))
        await serve(connection, wire, heard, left)


def gateway_of(request: Request | WebSocket) -> Gateway:
    gateway: Gateway = request.app.state.gateway
    return gateway


async def play(websocket: WebSocket) -> None:
    await gateway_of(websocket).session(websocket, websocket.path_params["id"])


async def lobby(websocket: WebSocket) -> None:
    await gateway_of(websocket).session(websocket, "")


async def metrics(request: Request) -> Response:
    """This gateway's own metrics (the director's are at its own ``/metrics``), with the admin token."""
    gateway = gateway_of(request)
    require_admin(request, gateway.settings)
    return Response(generate_latest(gateway.metrics.registry), media_type=CONTENT_TYPE)


async def identity(request: Request) -> Response:
    """Who this gateway is, answered here and never passed on: the director checks a gateway's advertised address
    by it before listing it for the browsers."""
    return Response(msgspec.json.encode(Identity(gateway_of(request).me.id)), media_type="application/json")


async def forward(request: Request) -> Response:
    """A REST request, answered by the director's application."""
    gateway = gateway_of(request)
    assert gateway.bus is not None
    headers = [(name, value) for name, value in request.headers.items() if name in ("authorization", "content-type")]
    asked = HttpRequest(request.method, request.url.path, request.url.query.encode(), headers, await request.body())
    try:
        first, rest = await gateway.bus.ask_in_pieces(http_for(gateway.realm), msgspec.msgpack.encode(asked))
    except NoAnswer:
        return Response(msgspec.json.encode(Problem("unavailable", "the director is not answering: try again")),
                        status_code=503, media_type="application/json")
    head = _head.decode(first)
    answer_headers = {name: value for name, value in head.headers if name.lower() not in HOP_BY_HOP}

    async def body() -> AsyncIterator[bytes]:
        async for piece in rest:
            yield piece

    return StreamingResponse(body(), status_code=head.status, headers=answer_headers)


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    gateway: Gateway = app.state.gateway
    await gateway.start()
    beat = asyncio.get_running_loop().create_task(gateway.beat())
    try:
        yield
    finally:
        beat.cancel()
        await asyncio.gather(beat, return_exceptions=True)
        for client in list(gateway.clients.values()):
            client.drop(1001, "the gateway is stopping")
        assert gateway.bus is not None
        await gateway.bus.close()


def create_gateway(settings: Settings, url: str, transport: Transport) -> Starlette:
    """The gateway's application on ``transport``'s bus; ``url`` is where it is reached, for ``GET /api/cluster``."""
    methods = ["GET", "POST", "PUT", "DELETE", "PATCH"]
    routes: list[BaseRoute] = [
        Route("/metrics", metrics, methods=["GET"]),
        Route(IDENTITY_PATH, identity, methods=["GET"]),
        Route("/api/{rest:path}", forward, methods=methods),
        WebSocketRoute("/ws/tournaments/{id}", play),
        WebSocketRoute("/ws/lobby", lobby),
    ]
    routes += web_client()
    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={Refused: refused},
                    middleware=[Middleware(BodyLimit)])
    app.state.gateway = Gateway(settings, url, transport)
    return app
