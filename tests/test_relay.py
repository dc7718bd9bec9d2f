"""A cluster gateway's clients as the director sends to them (server/cluster/service.py's ``GatewayLink``) and as the
gateway hands them out (server/cluster/gateway.py), against a bus of the test's own: a table's message crosses once per
gateway, whoever watches, and a client's messages keep their order."""

from __future__ import annotations

import asyncio
import json

import msgspec
import pytest
from nats.errors import TimeoutError as NatsTimeout

from engine.wire import Presence
from server.cluster.schema import (
    CLOSE_SESSION_LOST, NO_SESSIONS, Heartbeat, Listed, ToDirector, ToGateway, beat_for, frames_for, sockets_for,
)
from server.cluster.service import GATEWAY_SILENCE_SECONDS, DirectorService, GatewayLink
from server.cluster.gateway import Gateway
from server.cluster.memorybus import MemoryBroker
from server.processes import GATEWAY_REALM
from server.processes import Process
from server.hub import RelayedConnection, SocketConnection
from server.storage import MemoryStorage
from server.api.edge import Settings
from server.api.process import Server
from server.tournament.runtime import TournamentRuntime
from server.tournament.streams import PRESENCE_TICK
from tests.live_server import Watcher
from tests.tournaments import definition as rules

A = "gateway.a.host-1"  # a gateway of the realm "a", by its id

frames = msgspec.msgpack.Decoder(list[ToGateway])



def a_gateway(settings: Settings) -> Gateway:
    """A gateway of the default realm, on a bus of its own that the test does not start."""
    return Gateway(settings, "http://127.0.0.1:1", MemoryBroker().transport(GATEWAY_REALM))

class GatewaysBus:
    """Stands in for ``server.cluster.bus.Bus``: keeps what is published, noting whether the journal had committed."""

    def __init__(self, journal: list[str]) -> None:
        self.journal = journal
        self.published: list[tuple[str, list[ToGateway]]] = []

    def publish(self, subject: str, payload: bytes) -> None:
        self.journal.append("published")
        self.published.append((subject, frames.decode(payload)))


class Socket:
    """Stands in for a client's websocket on the gateway: keeps the lines written to it."""

    paused = False

    def __init__(self) -> None:
        self.lines: list[bytes] = []

    def write_lines(self, messages: list[bytes]) -> bool:
        self.lines += messages
        return True


async def ignore_close(code: int, reason: str) -> None:
    return None


def clients_on(gateway: Gateway, *numbers: int) -> dict[int, Socket]:
    """Clients of ``gateway`` with those numbers; their sockets, which keep what is written to them."""
    sockets = {number: Socket() for number in numbers}
    for number, socket in sockets.items():
        gateway.clients[number] = SocketConnection(ignore_close, socket, player=None, outbound=gateway.outbound,
                                                   max_queue=10, rate=1, burst=1)
    return sockets


@pytest.fixture
def drawn() -> TournamentRuntime:
    """Nine players drawn to one table outside the event loop, so that no table deals."""
    runtime = TournamentRuntime.create("t", rules(9, action_seconds=60), MemoryStorage(), hand_pause=0)
    for number in range(9):
        runtime.register(f"player {number}")
    runtime.start()
    return runtime


@pytest.mark.asyncio
async def test_a_tables_message_crosses_once_per_gateway_and_a_clients_messages_keep_their_order(
        drawn: TournamentRuntime) -> None:
    runtime = drawn
    journal: list[str] = []
    bus = GatewaysBus(journal)
    link = GatewayLink(bus, A, lambda connection, runtime: None,  # type: ignore[arg-type]
                       lambda: journal.append("committed"), sessions_from=1)
    players = runtime.director.tables[1].table.players
    relayed = [RelayedConnection(ignore_close, link, number, player=player, rate=1, burst=1)
               for number, player in enumerate(players[:3], start=1)]
    observer = RelayedConnection(ignore_close, link, 4, player=None, rate=1, burst=1)
    local = Watcher()  # a socket of the director's own process
    for connection in [*relayed, observer]:
        runtime.connect(connection, 1)
    runtime.connect(local, 1)  # type: ignore[arg-type]
    await asyncio.sleep(2 * PRESENCE_TICK)  # what the connections cost their table has gone
    bus.published.clear()
    journal.clear()

    runtime.streams.tell(players[0], Presence(players[0], True))  # a private message first
    runtime.streams.publish(1, Presence(players[0], False))  # then the table's: it concerns players[0]
    runtime.streams.publish(1, Presence(players[1], False))
    await asyncio.sleep(0)

    assert journal == ["committed", "published"]
    ((subject, sent),) = bus.published
    assert subject == frames_for(A)
    assert [(frame.now, sorted(frame.later), len(frame.lines)) for frame in sent] == [
        ([1], [], 1),  # the private message, to its player only
        ([1], [2, 3, 4], 1),  # the table's message once: at once to whom it concerns, with the tick to the others
        ([2], [1, 3, 4], 1),
    ]
    told, concerning_first, concerning_second = (json.loads(frame.lines[0]) for frame in sent)
    assert told["type"] == "private" and concerning_first["event"]["player"] == players[0]
    assert concerning_second["event"]["player"] == players[1]
    assert [message["event"]["player"] for message in local.messages[-2:]] == [players[0], players[1]]

    runtime.streams.tell(players[2], Presence(players[2], True))
    runtime.streams.tell(players[2], Presence(players[2], False))
    await asyncio.sleep(0)
    assert [(frame.now, len(frame.lines)) for frame in bus.published[-1][1]] == [([3], 2)]  # in a row: one frame


@pytest.mark.asyncio
async def test_a_gateway_gives_each_client_its_lines_at_once_or_with_the_tick_and_closes_after_them() -> None:
    gateway = a_gateway(Settings(admin_token="x", broadcast_tick=60.0))
    sockets = clients_on(gateway, 1, 2, 3)
    gateway.from_director(msgspec.msgpack.encode([
        ToGateway([1], [b"turn"], [2]),
        ToGateway([3], [b"bye"], close=4001, reason="gone"),
        ToGateway([9], [b"to a client gone already"]),
    ]))
    await asyncio.sleep(0.01)
    assert sockets[1].lines == [b"turn"] and sockets[2].lines == []  # the others wait for the broadcast tick
    assert sockets[3].lines == [b"bye"] and gateway.clients[3].close_code == 4001
    gateway.outbound.tick_now()
    assert sockets[2].lines == [b"turn"]


def heartbeat(service: DirectorService, realm: str, gateway: str) -> Heartbeat | None:
    """The director's answer to ``gateway``'s heartbeat on ``realm``'s subject (None: refused)."""
    process = Process("gateway", gateway, 1, "host", 0.0, url="http://127.0.0.1:1")
    answer = service.beat(beat_for(realm), msgspec.msgpack.encode(process))
    return None if answer is None else msgspec.msgpack.decode(answer, type=Heartbeat)


@pytest.mark.asyncio
async def test_a_gateway_is_gone_only_when_silent_and_then_its_clients_are_told_at_once() -> None:
    """One short read of the registry ended a live gateway's sessions, silently. A gateway is alive
    while it beats or its clients speak; one silent for ``GATEWAY_SILENCE_SECONDS`` loses its sessions, and each
    of its clients is closed with 1012 at once (it reconnects); a message for a session the director no longer
    has does the same."""
    server = Server(Settings(admin_token="x"))
    bus = GatewaysBus([])
    service = DirectorService(bus, server, app=None)  # type: ignore[arg-type]
    service.sockets(sockets_for("a"), msgspec.msgpack.encode([ToDirector("open", A, 1), ToDirector("open", A, 2)]))
    assert service.lost_gateways() == []  # heard from just now
    service.gateways[A].heard -= GATEWAY_SILENCE_SECONDS + 1
    assert heartbeat(service, "a", A) == Heartbeat(service.me.id, 1)  # its sessions begin at its first client
    assert service.lost_gateways() == []  # the heartbeat counts, whether or not its clients speak
    assert [process.id for process in service.processes() if process.role == "gateway"] == [A]

    service.gateways[A].heard -= GATEWAY_SILENCE_SECONDS + 1
    assert service.lost_gateways() == [A]
    await service._look_after_gateways()
    await asyncio.sleep(0)
    closed = [frame for subject, sent in bus.published if subject == frames_for(A) for frame in sent if frame.close]
    assert sorted(frame.now[0] for frame in closed) == [1, 2]
    assert {frame.close for frame in closed} == {CLOSE_SESSION_LOST}
    assert heartbeat(service, "a", A) == Heartbeat(service.me.id, NO_SESSIONS)  # its next beat says so too

    bus.published.clear()
    service.sockets(sockets_for("a"), msgspec.msgpack.encode([ToDirector("in", A, 1, b'{"type":"sync"}')]))
    await asyncio.sleep(0)
    ((subject, (frame,)),) = bus.published
    assert subject == frames_for(A)
    assert frame.now == [1] and frame.close == CLOSE_SESSION_LOST
    assert heartbeat(service, "a", A) == Heartbeat(service.me.id, 2)  # a link begun by a lost client holds none


@pytest.mark.asyncio
async def test_a_heartbeat_for_another_realm_or_role_or_that_does_not_decode_registers_nothing(
        caplog: pytest.LogCaptureFixture) -> None:
    """A bad entry blinded every process, and a lying one shrank the workers' shares. What a process
    says of itself is checked against where it said it: a gateway only for its own realm, a worker only as a
    worker; what does not decode is logged and skipped, and the rest of the registry stands."""
    service = DirectorService(GatewaysBus([]), Server(Settings(admin_token="x")), app=None)  # type: ignore[arg-type]
    with caplog.at_level("WARNING", logger="mttsim.cluster"):
        assert heartbeat(service, "b", A) is None  # a's gateway, on b's subject
        assert service.beat(beat_for("a"), b"garbage") is None
        tables = Process("tables", "tables-host-9", 9, "host", 0.0)
        assert service.beat(beat_for("a"), msgspec.msgpack.encode(tables)) is None  # a gateway claiming a worker
        worker = msgspec.msgpack.decode(service.tables(b"garbage"), type=Listed)  # a worker's look still answered
        liar = Process("gateway", A, 1, "host", 0.0)
        assert msgspec.msgpack.decode(service.tables(msgspec.msgpack.encode(liar)), type=Listed).workers == 1
    assert worker.workers == 1
    assert [process.id for process in service.processes()] == [service.me.id]
    assert sum("refused" in record.getMessage() or "without registering" in record.getMessage()
               or "did not decode" in record.getMessage() for record in caplog.records) == 5
    heartbeat(service, "a", A)
    for number in (1, 2):
        service.tables(msgspec.msgpack.encode(Process("tables", f"tables-host-{number}", number, "host", 0.0)))
    assert sorted(process.id for process in service.processes()) == sorted(
        [service.me.id, A, "tables-host-1", "tables-host-2"])
    assert msgspec.msgpack.decode(service.tables(msgspec.msgpack.encode(
        Process("tables", "tables-host-1", 1, "host", 0.0))), type=Listed).workers == 2


@pytest.mark.asyncio
async def test_the_director_refuses_what_a_realm_says_for_a_gateway_of_another(caplog: pytest.LogCaptureFixture):
    """A gateway's clients' messages name their gateway; the subject they come on names the realm whose user
    alone may publish there. A gateway that names another realm's gateway would speak for its clients: it is
    refused, with a log line, and no session opens."""
    service = DirectorService(GatewaysBus([]), Server(Settings(admin_token="x")), app=None)  # type: ignore[arg-type]
    with caplog.at_level("WARNING", logger="mttsim.cluster"):
        service.sockets(sockets_for("b"), msgspec.msgpack.encode([ToDirector("open", A, 1),
                                                                  ToDirector("in", A, 1, b'{"type":"sync"}')]))
    assert service.gateways == {} and sum("refused" in record.getMessage() for record in caplog.records) == 2
    with caplog.at_level("WARNING", logger="mttsim.cluster"):  # a word the bus does not have: malformed
        service.sockets(sockets_for("a"), msgspec.msgpack.encode([["take", A, 1, b"", "", {}]]))
    assert service.gateways == {} and "malformed" in caplog.records[-1].getMessage()
    service.sockets(sockets_for("a"), msgspec.msgpack.encode([ToDirector("open", A, 1)]))
    assert list(service.gateways) == [A] and list(service.gateways[A].sessions) == [1]


@pytest.mark.asyncio
async def test_a_gateway_closes_the_clients_its_director_holds_no_session_for_and_no_other() -> None:
    """A restarted director, or one that took the gateway for gone, has none of its clients' sessions: they
    must reconnect to get one. A client opened since the last heartbeat may not have reached the director yet,
    and is judged at the next one."""
    gateway = a_gateway(Settings(admin_token="x"))
    clients_on(gateway, 1, 2, 3, 4)
    gateway.heartbeat_answered(Heartbeat("director-a", 1), opened=4)
    assert not any(client.closed for client in gateway.clients.values())
    gateway.heartbeat_answered(Heartbeat("director-a", 3), opened=4)  # 1 and 2 lost, 3 and 4 held
    assert [client.close_code for client in gateway.clients.values()] == [CLOSE_SESSION_LOST] * 2 + [None] * 2
    gateway.heartbeat_answered(Heartbeat("director-b", NO_SESSIONS), opened=3)  # a new director; 4 just opened
    assert [client.close_code for client in gateway.clients.values()][2:] == [CLOSE_SESSION_LOST, None]


class Unanswered:
    """A bus on which the director never answers (stopped, or the NATS server is)."""

    def __init__(self) -> None:
        self.asked = 0

    async def request(self, subject: str, payload: bytes) -> bytes:
        self.asked += 1
        raise NatsTimeout  # what nats-py raises for a request nobody answered in time


@pytest.mark.asyncio
async def test_a_gateway_whose_heartbeat_goes_unanswered_keeps_every_client() -> None:
    """A director or NATS server stopped for a few seconds ends no session: only an answer saying
    the sessions are gone closes a client."""
    gateway = a_gateway(Settings(admin_token="x"))
    clients_on(gateway, 1, 2)
    gateway.bus = bus = Unanswered()  # type: ignore[assignment]
    beating = asyncio.get_running_loop().create_task(gateway.beat())
    try:
        for _ in range(600):
            if bus.asked >= 3:
                break
            await asyncio.sleep(0.05)
        assert bus.asked >= 3  # once a second, unanswered
        assert not any(client.closed for client in gateway.clients.values())
    finally:
        beating.cancel()
        await asyncio.gather(beating, return_exceptions=True)


class RawBus:
    """Stands in for ``server.cluster.bus.Bus``: keeps what is published, undecoded."""

    def __init__(self) -> None:
        self.published: list[tuple[str, bytes]] = []

    def publish(self, subject: str, payload: bytes) -> None:
        self.published.append((subject, payload))


@pytest.mark.asyncio
async def test_a_gateway_sends_a_players_decisions_straight_to_their_tables_worker_and_the_rest_to_the_director():
    """The director only passed decisions on to the worker playing the table: they go there from the gateway,
    which the director tells where each of its players plays (and as whom), within the same limits."""
    from server.cluster.schema import ANY_HOLDER, TableBatch

    gateway = a_gateway(Settings(admin_token="x"))
    gateway.bus = RawBus()  # type: ignore[assignment]
    clients_on(gateway, 1, 2)
    act = b'{"type":"act","action":"raise","amount":60}'
    assert not gateway.to_table(gateway.clients[1], 1, act)  # told nothing yet: to the director
    gateway.from_director(msgspec.msgpack.encode([ToGateway([1], table="mttsim.table.t.3", player="p7")]))
    assert gateway.to_table(gateway.clients[1], 1, act)
    assert not gateway.to_table(gateway.clients[1], 1, b'{"type":"back"}')  # not a decision
    assert not gateway.to_table(gateway.clients[1], 1, b'{"type":"act","action":')  # the director's error to give
    assert not gateway.to_table(gateway.clients[2], 2, act)  # an observer: the director refuses it
    ((subject, payload),) = gateway.bus.published  # type: ignore[attr-defined]
    batch = msgspec.msgpack.decode(payload, type=TableBatch)
    assert subject == "mttsim.decisions.gateway.t.3" and batch.epoch == ANY_HOLDER  # never the director's subject
    ((decision),) = batch.items
    assert (decision.route.subject, decision.route.number, decision.route.player) == (gateway.subject, 1, "p7")
    assert (decision.decision.action, decision.decision.amount) == ("raise", 60)
    assert gateway.to_table(gateway.clients[1], 1, act)  # past its burst of one: dropped as one server drops it
    assert gateway.clients[1].close_code == 1008
    gateway.from_director(msgspec.msgpack.encode([ToGateway([1], player="p7")]))  # busted: it plays nowhere
    assert not gateway.to_table(gateway.clients[1], 1, act)
