"""A cluster gateway's clients as the director sends to them (server/cluster/director.py's ``GatewayLink``) and as the
gateway hands them out (server/cluster/gateway.py), against a bus of the test's own: a table's message crosses once per
gateway, whoever watches, and a client's messages keep their order."""

from __future__ import annotations

import asyncio
import json

import msgspec
import pytest

from engine.wire import Presence
from server.cluster.schema import CLOSE_SESSION_LOST, ToDirector, ToGateway, frames_for, sockets_for
from server.cluster.director import GATEWAY_SILENCE_SECONDS, DirectorService, GatewayLink
from server.cluster.gateway import Gateway
from server.tournament.hub import Connection, Outbound
from server.storage import MemoryStorage
from server.api.edge import Settings
from server.api.rest import Server
from server.tournament.runtime import TournamentRuntime
from server.tournament.streams import PRESENCE_TICK
from tests.live_server import Watcher
from tests.tournaments import definition as rules

A = "gateway.a.host-1"  # a gateway of the realm "a", by its id

frames = msgspec.msgpack.Decoder(list[ToGateway])


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
        gateway.clients[number] = Connection(ignore_close, socket, player=None, outbound=gateway.outbound,
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
                       lambda: journal.append("committed"))
    outbound = Outbound(0.05, before=lambda: None)
    players = runtime.director.tables[1].table.players
    relayed = [Connection(ignore_close, None, player=player, outbound=outbound, max_queue=10, rate=1, burst=1,
                          relay=link, number=number) for number, player in enumerate(players[:3], start=1)]
    observer = Connection(ignore_close, None, player=None, outbound=outbound, max_queue=10, rate=1, burst=1,
                          relay=link, number=4)
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
    gateway = Gateway(Settings(admin_token="x", broadcast_tick=60.0), "http://127.0.0.1:1")
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


@pytest.mark.asyncio
async def test_a_busy_gateway_keeps_its_sessions_and_a_message_from_a_lost_one_asks_its_client_to_reconnect() -> None:
    """A gateway missing from the registry but heard from lately is busy, not gone (a storm of handshakes made
    one miss its registrations and lose every session); a message for a session the director no longer has
    (its gateway taken for gone, or the director restarted) closes that client's socket with 1012, and the
    client comes back with a session."""
    server = Server(Settings(admin_token="x"))
    bus = GatewaysBus([])
    service = DirectorService(bus, server, app=None)  # type: ignore[arg-type]
    service.sockets(sockets_for("a"), msgspec.msgpack.encode([ToDirector("open", A, 1)]))  # a lobby session
    assert service.lost_gateways(registered=set()) == []  # heard from just now: busy at worst
    service.gateways[A].heard -= GATEWAY_SILENCE_SECONDS + 1
    assert service.lost_gateways(registered={A}) == []  # registered
    assert service.lost_gateways(registered=set()) == [A]

    service.gateways.pop(A).end_all()
    await asyncio.sleep(0)
    bus.published.clear()
    service.sockets(sockets_for("a"), msgspec.msgpack.encode([ToDirector("in", A, 1, b'{"type":"sync"}')]))
    await asyncio.sleep(0)
    ((subject, (frame,)),) = bus.published
    assert subject == frames_for(A)
    assert frame.now == [1] and frame.close == CLOSE_SESSION_LOST


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
async def test_a_gateway_closes_its_clients_with_1012_when_a_new_director_replaces_the_one_it_knew() -> None:
    """A restarted director has none of the gateway's sessions: the clients must reconnect to get one."""
    gateway = Gateway(Settings(admin_token="x"), "http://127.0.0.1:1")
    clients_on(gateway, 1, 2)
    for seen in ({"director-a"}, {"director-a", "director-b"}, set()):  # the first; its successor starting; none
        gateway.directors_seen(seen)
        assert not any(client.closed for client in gateway.clients.values()), seen
    gateway.directors_seen({"director-b"})  # the one it knew is gone, and another serves
    assert [client.close_code for client in gateway.clients.values()] == [CLOSE_SESSION_LOST] * 2


class StuckRegistry:
    """A bus whose read of the registry never ends (a watch stuck on a busy or reconnecting NATS server)."""

    def __init__(self) -> None:
        self.registrations = 0

    async def register(self, process: object) -> None:
        self.registrations += 1

    async def cluster(self) -> list[object]:
        await asyncio.Event().wait()
        return []


@pytest.mark.asyncio
async def test_a_gateway_keeps_registering_while_its_read_of_the_registry_is_stuck() -> None:
    """Issue 38: the director twice took a live gateway for gone. The gateway registered, then read the registry,
    in one loop: a read that hung for its time-out (5 s) let the registration lapse (3 s), and a director that
    had heard nothing from its clients for 10 s ended their sessions. The registration has a loop of its own."""
    gateway = Gateway(Settings(admin_token="x"), "http://127.0.0.1:1")
    gateway.bus = bus = StuckRegistry()  # type: ignore[assignment]
    beating = asyncio.get_running_loop().create_task(gateway.beat())
    try:
        for _ in range(600):
            if bus.registrations >= 3:
                break
            await asyncio.sleep(0.05)
        assert bus.registrations >= 3  # once a heartbeat, although the first read of the registry never ended
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

    gateway = Gateway(Settings(admin_token="x"), "http://127.0.0.1:1")
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
    assert (decision.action, decision.amount) == ("raise", 60)
    assert gateway.to_table(gateway.clients[1], 1, act)  # past its burst of one: dropped as one server drops it
    assert gateway.clients[1].close_code == 1008
    gateway.from_director(msgspec.msgpack.encode([ToGateway([1], player="p7")]))  # busted: it plays nowhere
    assert not gateway.to_table(gateway.clients[1], 1, act)
