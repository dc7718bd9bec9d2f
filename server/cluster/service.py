"""The director process of a cluster: its tables' hands are played by table workers elsewhere, over the bus.

The director process keeps every tournament's director, journal, level clock
and connections, as one ``mttsim serve`` does, deals every hand and settles
it, and runs no table tasks and holds no hand in play. A worker holding a
table's lease (server/cluster/worker.py) asks to ``take`` it and to ``deal``, is sent
each hand as dealt on the table's subject, plays it (server/cluster/playing.py) and
hands it back with ``end``. Everything the director says to a table (its
clients, the messages of its stream, their snapshots and decisions) goes on
that subject, one message per table and turn of the event loop
(``ClusterPlacement``); changes of what a worker should do (the barrier opened, the
table broke) go to the workers as notices, those of one turn in one message.

Each command carries its lease's epoch: an older one than the table's newest
is fenced off, so a worker that stalled past its lease changes nothing. A
new epoch voids the hand the last worker left in play, as a restart does.

Gateways (server/cluster/gateway.py) hold the clients' sockets. Their sessions live
here as connections like any other, whose frames leave for the gateway in
one bus message per turn of the event loop (``GatewayLink``), and their REST
requests run through this process's own application. A gateway silent for
``GATEWAY_SILENCE_SECONDS`` (no heartbeat, no client's message) is gone: its
clients' sessions end, it is told so (each client closed with 1012, and its
next heartbeat's answer), and they reconnect through another or through it.

The registry of the cluster's processes (``GET /api/cluster``) is this
process's memory of their heartbeats: a gateway beats by request on its
realm's subject, a worker with each look for tables. A read of it is exact,
and nothing one process writes can hide another.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import TYPE_CHECKING

import msgspec
from starlette.types import ASGIApp, Message

from engine.director import Status
from engine.status import TournamentError
from server.cluster.bus import ANY, Bus, Transport
from server.cluster.vouching import Vouching
from server.errors import Refused
from server.hub import CLOSE_INTERNAL, Connection, RelayedConnection, SocketConnection
from server.tournament.at_workers import GONE, FENCED, HandsAtWorkers
from server.tournament.runtime import TournamentRuntime
from server.tournament.table_stream import Clock, concerning, encoded
from server.tournament.streams import Streams, Writers
from server.tournament.tables import Tables
from server.turns import TurnBatch, beat
from server.cluster.schema import (
    BEAT, CHUNK_BYTES, CLOSE_SESSION_LOST, COMMANDS, HTTP, NO_SESSIONS, NOTICES, NOTICES_PER_MESSAGE, PROCESS_SECONDS,
    TABLES, Acted, Adopt, Back, Closed, Deal, Frames, Heartbeat, HttpHead, HttpRequest, Listed, Notice, Publish, Route,
    SnapshotFor, TableBatch, TableCommand, Take, ToDirector, ToGateway, ToTable, Watching, deliver, frames_for,
    in_realm, realm_in, sockets_for, table_subject,
)
from server.processes import Process
from engine.wire import Act, TableMessage
from server.tournament.remote import HandOut, TableState
from server.api.edge import relayed_client, replaying
from server.api.sockets import Turned, admit, leave, lobby_connection, lobby_message, receive

if TYPE_CHECKING:
    from server.api.process import Server

logger = logging.getLogger("mttsim.cluster")
encode = msgspec.msgpack.encode
_commands = msgspec.msgpack.Decoder(list[TableCommand])
_from_gateway = msgspec.msgpack.Decoder(list[ToDirector])
_http = msgspec.msgpack.Decoder(HttpRequest)
_frames = msgspec.msgpack.Decoder(list[ToGateway])
_process = msgspec.msgpack.Decoder(Process)
HEARTBEAT_SECONDS = 1.0
# A gateway is gone once it has said nothing this long, neither a heartbeat (one a second) nor a client's message:
# a gateway stopped for 5 s, or busy with a storm of 15,000 handshakes, keeps its clients' sessions.
GATEWAY_SILENCE_SECONDS = 10.0


class Registry:
    """The cluster's processes as the director heard their heartbeats: a read is exact, never a short one."""

    def __init__(self, me: Process) -> None:
        self.me = me
        self.heard: dict[str, tuple[Process, float]] = {}  # id -> the process as it last said, and when

    def beat(self, process: Process, now: float) -> None:
        self.heard[process.id] = (process, now)

    def alive(self, now: float) -> list[Process]:
        """This process, and every other heard within ``PROCESS_SECONDS``; the others are forgotten."""
        for gone in [key for key, (_, at) in self.heard.items() if now - at > PROCESS_SECONDS]:
            del self.heard[gone]
        return sorted([self.me, *(process for process, _ in self.heard.values())],
                      key=lambda process: (process.role, process.id))


class DirectorService:
    """Answers the table workers for every tournament of this process, and tells them what changed."""

    def __init__(self, bus: Bus, server: Server, app: ASGIApp) -> None:
        self.bus = bus
        self.server = server
        self.tournaments: Mapping[str, TournamentRuntime] = server.tournaments
        self.app = app  # this process's own application, which runs the REST requests gateways pass on
        self.me = server.process
        self.gateways: dict[str, GatewayLink] = {}
        # The clients of this process's own sockets (its hosted bots among them), by number, hear their tables'
        # streams from the tables' workers, as a gateway's clients do.
        self.local_subject = frames_for(self.me.id)
        self.local: dict[int, SocketConnection] = {}
        self._next_local = 0
        self.links: dict[str, ClusterPlacement] = {}  # each tournament's tables, as its runtime was built with them
        self._notices: TurnBatch[Notice] = TurnBatch(self._send_notices)
        self._heartbeat: asyncio.Task[None] | None = None
        self.registry = Registry(self.me)
        self.vouching = Vouching()

    async def start(self) -> None:
        await self.bus.serve(COMMANDS, lambda _, data: self.answer(data))
        await self.bus.serve(TABLES, lambda _, data: self.tables(data))
        await self.bus.serve(f"{BEAT}.{ANY}", self.beat, own_realm=True)
        await self.bus.listen_from(sockets_for(ANY), self.sockets)
        await self.bus.serve_tasks(f"{HTTP}.{ANY}", self.http, own_realm=True)
        await self.bus.listen(self.local_subject, self._local_frames)
        self._heartbeat = asyncio.get_running_loop().create_task(
            beat(HEARTBEAT_SECONDS, self._look_after_gateways, "the director could not look after its gateways",
                 logger), name="cluster:heartbeat")

    def processes(self) -> list[Process]:
        """Every process heard from now (``GET /api/cluster``)."""
        return self.registry.alive(asyncio.get_running_loop().time())

    def listed_gateways(self) -> list[str]:
        """The addresses of the gateways heard from now that the director has checked (``GET /api/gateways``)."""
        return self.vouching.listed(self._lives)

    def _lives(self, process: str) -> bool:
        heard = self.registry.heard.get(process)
        return heard is not None and asyncio.get_running_loop().time() - heard[1] <= PROCESS_SECONDS

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            await asyncio.gather(self._heartbeat, return_exceptions=True)
        await self.vouching.stop()
        await self.bus.close()

    def placement(self, tournament: str) -> ClusterPlacement:
        """Where ``tournament``'s tables are played: by the workers, which write their streams."""
        links = self.links[tournament] = ClusterPlacement(self, tournament)
        return links

    def route(self, connection: Connection) -> Route:
        """Where a client's frames go: its gateway, or this process for a socket of its own."""
        if isinstance(connection, RelayedConnection) and isinstance(connection.relay, GatewayLink):
            return Route(connection.relay.subject, connection.number, connection.player or "")
        assert isinstance(connection, SocketConnection), "a relayed client's relay is a gateway's link"
        if not connection.number:
            self._next_local += 1
            connection.number = self._next_local
            self.local[connection.number] = connection
        return Route(self.local_subject, connection.number, connection.player or "")

    def forget(self, connection: Connection) -> None:
        if isinstance(connection, SocketConnection):
            self.local.pop(connection.number, None)

    def _local_frames(self, data: bytes) -> None:
        deliver(_frames.decode(data), self.local)

    def notify(self, tournament: str, table: int, state: TableState) -> None:
        """Queue a notice; those of one turn of the event loop leave together."""
        self._notices.add(Notice(tournament, table, state))

    def _send_notices(self, pending: list[Notice]) -> None:
        for start in range(0, len(pending), NOTICES_PER_MESSAGE):
            self.bus.publish_sealed(NOTICES, encode(pending[start:start + NOTICES_PER_MESSAGE]))

    def tables(self, data: bytes) -> bytes:
        """A worker's heartbeat, which is its look for tables: every table of every running tournament, and how
        many workers share them."""
        now = asyncio.get_running_loop().time()
        try:
            worker = _process.decode(data)
        except msgspec.DecodeError:
            logger.warning("a worker's look for tables that did not decode was answered without registering it")
        else:
            if worker.role == "tables" and worker.id.startswith("tables-"):
                self.registry.beat(worker, now)
            else:
                logger.warning("a worker's look for tables as %r (%s) was answered without registering it",
                               worker.id, worker.role)
        workers = sum(process.role == "tables" for process in self.registry.alive(now))
        running = [runtime for runtime in self.tournaments.values() if runtime.director.status is Status.RUNNING]
        return encode(Listed([(runtime.id, table) for runtime in running for table in sorted(runtime.director.tables)],
                             max(1, workers)))

    def answer(self, data: bytes) -> bytes:
        """A worker's commands of one turn of its event loop, answered together: a round's two thousand deals
        are one request."""
        try:
            commands = _commands.decode(data)
        except msgspec.DecodeError:
            return encode([])
        return encode([self._answer(command) for command in commands])

    def _answer(self, command: TableCommand) -> TableState:
        runtime = self.tournaments.get(command.tournament)
        links = self.links.get(command.tournament)
        if runtime is None or links is None or command.table not in runtime.director.tables:
            return GONE
        hands, table = links.held, command.table
        try:
            if isinstance(command, Take):
                if not hands.take(table, command.epoch):
                    return FENCED
            elif hands.fenced(table, command.epoch):
                return FENCED
            elif isinstance(command, Deal):
                hands.deal_asked(table)
            else:
                hands.hand_back(table, command.hand)
        except (TournamentError, Refused, msgspec.DecodeError):  # the state moved on since the worker's last look
            logger.debug("table %s/%s: %s refused", command.tournament, table, type(command).__name__, exc_info=True)
        except Exception:  # a bug must not take the director down with it: logged, and the worker is told the state
            logger.exception("table %s/%s: %s failed", command.tournament, table, type(command).__name__)
        return hands.state(table)

    def beat(self, subject: str, data: bytes) -> bytes | None:
        """A gateway's heartbeat, on its realm's subject: registered if it speaks for a gateway of that realm, and
        answered with where its clients' sessions here begin."""
        try:
            gateway = _process.decode(data)
        except msgspec.DecodeError:
            logger.warning("a gateway's heartbeat that did not decode was ignored")
            return None
        realm = realm_in(subject)
        if gateway.role != "gateway" or not in_realm(realm, gateway.id):
            logger.warning("a heartbeat of %r (%s) on the subject of realm %r was refused: a gateway speaks for "
                           "itself", gateway.id, gateway.role, realm)
            return None
        now = asyncio.get_running_loop().time()
        self.registry.beat(gateway, now)
        self.vouching.heard(gateway, now, self._lives)
        link = self.gateways.get(gateway.id)
        if link is not None:
            link.heard = now
        return encode(Heartbeat(self.me.id, NO_SESSIONS if link is None else link.sessions_from))

    async def _look_after_gateways(self) -> None:
        for gateway in self.lost_gateways():
            logger.warning("gateway %s said nothing for %g s: its clients' sessions end", gateway,
                           GATEWAY_SILENCE_SECONDS)
            self.gateways.pop(gateway).end_all()

    def lost_gateways(self) -> list[str]:
        """The gateways that have said nothing, neither a heartbeat nor a client's message, for
        ``GATEWAY_SILENCE_SECONDS``."""
        now = asyncio.get_running_loop().time()
        return [gateway for gateway, link in self.gateways.items() if now - link.heard > GATEWAY_SILENCE_SECONDS]

    # ------------------------------------------------------------ the gateways' clients

    def sockets(self, subject: str, data: bytes) -> None:
        """A batch of a realm's gateways (its subject says which realm: NATS lets only that realm's user publish
        there), about their own clients alone."""
        try:
            batch = _from_gateway.decode(data)
        except msgspec.DecodeError:
            logger.warning("a malformed batch from a gateway was ignored")
            return
        realm = realm_in(subject)
        now = asyncio.get_running_loop().time()
        for item in batch:
            if not in_realm(realm, item.gateway):
                logger.warning("a message of gateway %r on the subject of realm %r was refused: a gateway speaks for "
                               "its own clients", item.gateway, realm)
                continue
            link = self.gateways.get(item.gateway)
            if link is None:  # a client below this one has no session here (its opening came before)
                sessions_from = item.conn if item.kind == "open" else item.conn + 1
                link = self.gateways[item.gateway] = GatewayLink(self.bus, item.gateway, self._left,
                                                                 self.server.outbound.before, sessions_from)
            link.heard = now
            if item.kind == "open":
                self._open(link, item)
                continue
            session = link.sessions.get(item.conn)
            if session is None:  # ended here (its gateway was taken for gone, or this director restarted)
                if item.kind == "in":  # the client reconnects, and is given a session again
                    link.frame(ToGateway([item.conn], close=CLOSE_SESSION_LOST, reason="session lost: reconnect"))
                continue
            connection, runtime = session
            if item.kind == "gone":
                link.end(item.conn)
            elif item.kind == "in":
                try:
                    if runtime is None:
                        lobby_message(self.server, connection, item.data)
                    else:
                        receive(runtime, connection, item.data, self.server.metrics)
                except Exception:  # as a local socket's: that session closes, never the director
                    logger.exception("a websocket message from a gateway could not be handled")
                    connection.drop(CLOSE_INTERNAL, "internal error")

    def _left(self, connection: Connection, runtime: TournamentRuntime | None) -> None:
        if runtime is None:
            self.server.lobby.subscribers.discard(connection)
        else:
            leave(runtime, connection)

    def _open(self, link: GatewayLink, item: ToDirector) -> None:
        server, settings, conn = self.server, self.server.settings, item.conn
        close = partial(link.close, conn)
        if not item.tournament:
            link.sessions[conn] = (lobby_connection(server, relayed_client(settings, close, link, conn, lobby=True)),
                                   None)
            return
        admitted = admit(server, item.tournament, item.query)
        if isinstance(admitted, Turned):
            link.frame(ToGateway([conn], [admitted.message], close=admitted.code, reason=admitted.reason))
            return
        connection = relayed_client(settings, close, link, conn, player=admitted.player)
        link.sessions[item.conn] = (connection, admitted.runtime)
        admitted.runtime.connect(connection, admitted.table)

    async def http(self, data: bytes, send: Callable[[bytes], Awaitable[None]]) -> None:
        """A REST request from a gateway, through this process's application; the answer goes back in pieces."""
        try:
            request = _http.decode(data)
        except msgspec.DecodeError:
            await send(encode(HttpHead(400, [("content-type", "text/plain")])))
            await send(b"malformed request")
            await send(b"")
            return
        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": request.method,
            "scheme": "http", "path": request.path, "raw_path": request.path.encode(), "root_path": "",
            "query_string": request.query, "client": ("127.0.0.1", 0), "server": ("127.0.0.1", 0),
            "headers": [(name.lower().encode("latin-1"), value.encode("latin-1")) for name, value in request.headers],
        }

        async def never() -> Message:
            await asyncio.Event().wait()  # a disconnect never comes: the request ends with its answer
            raise AssertionError("unreachable")

        async def send_answer(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = [(name.decode("latin-1"), value.decode("latin-1")) for name, value in message["headers"]]
                await send(encode(HttpHead(message["status"], headers)))
            elif message["type"] == "http.response.body":
                body: bytes = message.get("body", b"")
                for start in range(0, len(body), CHUNK_BYTES):
                    await send(body[start:start + CHUNK_BYTES])
                if not message.get("more_body", False):
                    await send(b"")

        await self.app(scope, replaying(request.body, never), send_answer)


class GatewayLink(Frames):
    """The director's side of one gateway: its clients' sessions, and the frames waiting to go to it.

    It is those clients' ``Relay`` (server/hub.py): what they are sent is
    queued here in order, a table's message once for all of them, and what
    one turn of the event loop queued leaves in one bus message (or a few).
    """

    def __init__(self, bus: Bus, gateway: str, left: Callable[[Connection, TournamentRuntime | None], None],
                 before: Callable[[], None], sessions_from: int) -> None:
        super().__init__(bus, frames_for(gateway), before)
        self.left = left  # what a session's end leaves behind
        self.sessions: dict[int, tuple[Connection, TournamentRuntime | None]] = {}  # None: the lobby's feed
        self.sessions_from = sessions_from  # the gateway's first client whose session this link may hold
        self.heard = asyncio.get_running_loop().time()  # when the gateway last said anything

    async def close(self, number: int, code: int, reason: str) -> None:
        """Close the client's socket, after what it was sent."""
        self.frame(ToGateway([number], close=code, reason=reason))

    def end(self, conn: int) -> None:
        """The client's socket is gone."""
        connection, runtime = self.sessions.pop(conn)
        connection.lost()
        self.left(connection, runtime)

    def end_all(self) -> None:
        """Every session ends, and the gateway is told at once: each client is closed with 1012 and reconnects
        (a gateway that missed these frames learns it from its next heartbeat's answer)."""
        for conn in list(self.sessions):
            self.end(conn)
            self.frame(ToGateway([conn], close=CLOSE_SESSION_LOST, reason="session lost: reconnect"))
        self.flush()


class ClusterPlacement:
    """One tournament's tables in a cluster, as its director holds them: the ``Placement`` its runtime is built
    with (server/tournament/tables.py). What the director says to each table goes to the worker holding its
    lease, under the lease's epoch, in one message per table and turn of the event loop.

    It is the ``Writers`` of the tournament's streams (server/tournament/streams.py) and the ``TableWorkers`` of its
    hands (server/tournament/at_workers.py). What is said to a table nobody holds is dropped: the worker that
    takes it is sent the table's clients, and each of them a snapshot.
    """

    def __init__(self, service: DirectorService, tournament: str) -> None:
        self.service = service
        self.tournament = tournament
        self.pending: dict[int, TurnBatch[ToTable]] = {}
        self.streams: Streams | None = None
        self._hands: HandsAtWorkers | None = None

    # ------------------------------------------------------------ as a Placement

    def writers(self, streams: Streams) -> Writers:
        self.streams = streams
        return self

    def hands(self, tables: Tables, writers: Writers) -> HandsAtWorkers:
        self._hands = HandsAtWorkers(tables, self)
        return self._hands

    @property
    def held(self) -> HandsAtWorkers:
        assert self._hands is not None, "the runtime was built with this placement"
        return self._hands

    def _queue(self, table: int, item: ToTable, size: int = 64) -> None:
        if table not in self.held.epochs:
            return
        batch = self.pending.get(table)
        if batch is None:  # a thousand observers' snapshots leave in a few messages, under NATS's limit
            batch = self.pending[table] = TurnBatch(partial(self._send, table), CHUNK_BYTES)
        batch.add(item, size)

    def _send(self, table: int, items: list[ToTable]) -> None:
        self.service.server.outbound.before()  # the journal's commit: nothing leaves that a crash could take back
        batch = TableBatch(self.held.epochs[table], items)
        self.service.bus.publish_sealed(table_subject(self.tournament, table), encode(batch))

    # ------------------------------------------------------------ as the streams' Writers

    def publish(self, table: int, message: TableMessage, clock: Clock | None = None) -> None:
        """A message of the table's stream, if anyone watches it (as one server encodes none for nobody): the
        end of a hand-for-hand round, said to two thousand tables nobody watched, held the next round's deals.
        A director event carries its ``clock`` in its object, as one server's stream has it."""
        if self.streams is not None and self.streams.watchers.get(table):
            line = encoded(message, clock)
            self._queue(table, Publish(line, concerning(message)), len(line))

    def watch(self, table: int, connection: Connection, watching: bool) -> None:
        self._queue(table, Watching(self.service.route(connection), watching))
        relay = connection.relay if isinstance(connection, RelayedConnection) else None
        if isinstance(relay, GatewayLink) and connection.player is not None:  # its decisions go there straight
            relay.frame(ToGateway([connection.number], table=table_subject(self.tournament, table) if watching else "",
                                  player=connection.player))

    def snapshot(self, table: int, connection: Connection, snapshot: bytes) -> None:
        self._queue(table, SnapshotFor(self.service.route(connection), snapshot), len(snapshot))

    def forget(self, connection: Connection) -> None:
        self.service.forget(connection)

    def seq(self, table: int) -> int:
        return 0  # the table's worker numbers its stream, and each snapshot it sends

    # ------------------------------------------------------------ as the hands' TableWorkers

    def notify(self, table: int, state: TableState) -> None:
        self.service.notify(self.tournament, table, state)

    def deal(self, table: int, out: HandOut) -> None:
        dealt = 64 + 2 * len(out.hand.deck) + 32 * len(out.hand.players)  # about its MessagePack's size
        self._queue(table, out, dealt + sum(len(event) for event in out.opening))

    def adopt(self, table: int) -> None:
        watchers = self.streams.watchers.get(table, ()) if self.streams is not None else ()
        routes = [self.service.route(connection) for connection in watchers]
        self._queue(table, Adopt(routes), 32 * len(routes))

    def act(self, table: int, connection: Connection, decision: Act) -> None:
        self._queue(table, Acted(self.service.route(connection), decision))

    def back(self, table: int, player: str) -> None:
        self._queue(table, Back(player))

    def close(self, table: int) -> None:
        self._queue(table, Closed())


def joining(transport: Transport) -> Callable[[Server, ASGIApp], Awaitable[DirectorService]]:
    """How ``server`` becomes the director of the cluster on ``transport``'s bus (``create_app``'s
    ``join_cluster``, given by the command line)."""
    async def join(server: Server, app: ASGIApp) -> DirectorService:
        return DirectorService(await transport.connect("director"), server, app)

    return join
