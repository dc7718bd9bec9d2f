"""The bus's contract (server/cluster/bus.py), one suite for both forms: the bus in memory, and NATS with
JetStream (a real nats-server, with the cluster's users and permissions). A new backend passes these."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable

import msgspec
import pytest
import pytest_asyncio

from engine.wire import Presence, encoder
from server.cluster.bus import ANY, REST, Bus, Lease, NoAnswer, NotAllowed, Send
from server.cluster.memorybus import MemoryBroker
from server.cluster.schema import (
    COMMANDS, LEASE_SECONDS, NOTICES, beat_for, decisions_for, frames_for, http_for, stream_subject, table_subject,
)
from server.processes import Role
from server.tournament.table_stream import Numbered

Connect = Callable[[str], Awaitable[Bus]]  # a user (director, tables, gateway-1, gateway-2) -> its connection
ROLES: dict[str, Role] = {"director": "director", "tables": "tables", "gateway-1": "gateway", "gateway-2": "gateway"}


@contextlib.asynccontextmanager
async def memory() -> AsyncIterator[Connect]:
    broker = MemoryBroker()
    opened: list[Bus] = []

    async def connect(user: str) -> Bus:
        opened.append(await broker.transport(user).connect(ROLES[user]))
        return opened[-1]

    try:
        yield connect
    finally:
        for bus in opened:
            await bus.close()


@contextlib.asynccontextmanager
async def nats() -> AsyncIterator[Connect]:
    from server.cluster.natsbus import NatsTransport
    from tests.cluster import nats_server

    with nats_server() as users:
        urls = {"director": users.director, "tables": users.tables, "gateway-1": users.gateways[0],
                "gateway-2": users.gateways[1]}
        opened: list[Bus] = []

        async def connect(user: str) -> Bus:
            opened.append(await NatsTransport(urls[user]).connect(ROLES[user]))
            return opened[-1]

        try:
            opened.append(await NatsTransport(urls["director"]).connect("director"))  # it sets JetStream up
            yield connect
        finally:
            for bus in opened:
                await bus.close()


FORMS = [pytest.param(memory, id="memory"), pytest.param(nats, id="nats", marks=pytest.mark.cluster)]


@pytest_asyncio.fixture(params=FORMS)
async def connect(request: pytest.FixtureRequest) -> AsyncIterator[Connect]:
    """Connections to one form of the bus, each test's own."""
    async with request.param() as connecting:
        yield connecting


async def heard_within(got: list, count: int, seconds: float = 5.0) -> None:
    for _ in range(int(seconds / 0.01)):
        if len(got) >= count:
            return
        await asyncio.sleep(0.01)


async def quiet(seconds: float = 0.3) -> None:
    """Long enough for a message that was going to arrive to arrive."""
    await asyncio.sleep(seconds)


@pytest.mark.asyncio
async def test_notices_reach_the_listeners_of_their_pattern_in_order_and_a_stopped_one_hears_no_more(
        connect: Connect) -> None:
    director, worker = await connect("director"), await connect("tables")
    every_table: list[tuple[str, bytes]] = []
    one_table: list[bytes] = []
    stop_all = await worker.listen_from(f"mttsim.table.{REST}", lambda subject, data: every_table.append(
        (subject, data)))
    await worker.listen(table_subject("t", 1), one_table.append)
    await quiet(0.1)
    for number in range(5):  # one turn of the loop: they leave together, in order
        director.publish(table_subject("t", 1 + number % 2), b"%d" % number)
    await heard_within(every_table, 5)
    assert every_table == [(table_subject("t", 1 + n % 2), b"%d" % n) for n in range(5)]
    assert one_table == [b"0", b"2", b"4"]
    await stop_all()
    director.publish(table_subject("t", 1), b"after")
    await heard_within(one_table, 4)
    await quiet()
    assert one_table[-1] == b"after" and len(every_table) == 5


@pytest.mark.asyncio
async def test_a_request_is_answered_by_whoever_serves_it_and_one_nobody_serves_gets_no_answer(
        connect: Connect) -> None:
    director, worker = await connect("director"), await connect("tables")
    with pytest.raises(NoAnswer):
        await worker.request(COMMANDS, b"anyone?", timeout=1.0)
    await director.serve(COMMANDS, lambda subject, data: subject.encode() + b":" + data[::-1])
    await quiet(0.1)
    assert await worker.request(COMMANDS, b"abc") == COMMANDS.encode() + b":cba"


@pytest.mark.asyncio
async def test_an_answer_in_pieces_comes_whole_and_in_order_to_the_realm_that_asked_only(connect: Connect) -> None:
    director, first, second = await connect("director"), await connect("gateway-1"), await connect("gateway-2")

    async def answer(data: bytes, send: Send) -> None:
        for piece in (b"head", data, b"tail", b""):
            await send(piece)

    await director.serve_tasks(f"mttsim.director.http.{ANY}", answer, own_realm=True)
    await quiet(0.1)
    head, rest = await first.ask_in_pieces(http_for("gateway-1"), b"body")
    assert head == b"head" and [piece async for piece in rest] == [b"body", b"tail"]
    with pytest.raises(NoAnswer):  # gateway-1 asking as gateway-2: not allowed, and never answered
        await first.ask_in_pieces(http_for("gateway-2"), b"body", timeout=1.0)
    head, rest = await second.ask_in_pieces(http_for("gateway-2"), b"body")
    assert head == b"head" and [piece async for piece in rest] == [b"body", b"tail"]
    head, _ = await second.ask_in_pieces(http_for("gateway-2"), b"left unread")
    assert head == b"head"  # its reader left after the head: closing the bus (at the teardown) does not wait for it


@pytest.mark.asyncio
async def test_a_realms_heartbeat_is_answered_only_when_that_realms_gateway_asks(connect: Connect) -> None:
    director, first = await connect("director"), await connect("gateway-1")
    await director.serve(f"mttsim.director.beat.{ANY}", lambda subject, data: b"alive", own_realm=True)
    await quiet(0.1)
    assert await first.request(beat_for("gateway-1"), b"me") == b"alive"
    with pytest.raises(NoAnswer):
        await first.request(beat_for("gateway-2"), b"me", timeout=1.0)


@pytest.mark.asyncio
async def test_a_role_speaks_and_listens_only_where_its_rights_say(connect: Connect) -> None:
    worker, first = await connect("tables"), await connect("gateway-1")
    with pytest.raises(NotAllowed):
        await first.listen("mttsim.director.sockets.gateway-1", print)  # the director's to hear
    with pytest.raises(NotAllowed):
        await first.listen(frames_for("gateway.gateway-2.host-1"), print)  # another realm's clients' frames
    with pytest.raises(NotAllowed):
        await worker.serve(COMMANDS, lambda subject, data: b"I am the director")
    decisions: list[bytes] = []
    await worker.listen(decisions_for(ANY, table_subject("t", 1)), decisions.append)
    await quiet(0.1)
    first.publish(decisions_for("gateway-2", table_subject("t", 1)), b"as gateway-2")  # dropped
    first.publish(table_subject("t", 1), b"as the director")  # dropped
    first.publish(decisions_for("gateway-1", table_subject("t", 1)), b"its own")
    await heard_within(decisions, 1)
    await quiet()
    assert decisions == [b"its own"]


@pytest.mark.asyncio
async def test_a_lease_has_one_holder_renewed_by_it_alone_and_is_taken_with_a_newer_epoch_once_let_go_or_expired(
        connect: Connect) -> None:
    one, other = await connect("tables"), await connect("tables")
    lease = await one.acquire("t.1", "one")
    assert lease is not None and await other.acquire("t.1", "other") is None
    epoch = lease.epoch
    assert await one.renew(lease, "one") and lease.epoch == epoch and lease.revision > epoch
    old = Lease("t.1", epoch)
    assert not await other.renew(old, "other")  # a revision gone: the lease is not theirs
    await one.release(lease)
    taken = await other.acquire("t.1", "other")
    assert taken is not None and taken.epoch > epoch
    for _ in range(int((LEASE_SECONDS + 6) / 0.25)):  # never renewed: it expires
        await asyncio.sleep(0.25)
        if (again := await one.acquire("t.1", "one")) is not None:
            break
    assert again is not None and again.epoch > taken.epoch
    assert not await other.renew(taken, "other")


@pytest.mark.asyncio
async def test_a_tables_stream_keeps_its_last_number_for_the_next_worker(connect: Connect) -> None:
    def line(table: int, seq: int) -> bytes:
        return encoder.encode(Numbered(seq, table, msgspec.Raw(encoder.encode(Presence("p1", True))), 0.0))

    worker = await connect("tables")
    assert await worker.last_seq("t", 1) == 0
    worker.publish(stream_subject("t", 1), line(1, 5) + b"\n" + line(1, 6))  # a loop turn's lines
    worker.publish(stream_subject("t", 2), line(2, 9))
    worker.publish(stream_subject("t", 1), line(1, 7))
    for _ in range(100):
        if (await worker.last_seq("t", 1), await worker.last_seq("t", 2)) == (7, 9):
            break
        await asyncio.sleep(0.05)
    assert (await worker.last_seq("t", 1), await worker.last_seq("t", 2)) == (7, 9)


@pytest.mark.asyncio
async def test_the_directors_sealed_word_reaches_a_worker_and_an_unsealed_one_does_not(connect: Connect) -> None:
    director, worker, gateway = await connect("director"), await connect("tables"), await connect("gateway-1")
    assert gateway.key is None and director.key == worker.key and len(director.key or b"") == 32
    heard: list[bytes] = []
    await worker.listen_sealed(NOTICES, heard.append)
    await quiet(0.1)
    director.publish(NOTICES, b"unsealed")
    director.publish_sealed(NOTICES, b"sealed")
    await heard_within(heard, 1)
    await quiet()
    assert heard == [b"sealed"]


@pytest.mark.asyncio
async def test_a_sealed_word_sent_again_is_not_heard_again(connect: Connect) -> None:
    """A captured sealed batch was heard as often as it was sent, wherever a publish was allowed."""
    director, worker = await connect("director"), await connect("tables")
    heard: list[bytes] = []
    captured: list[bytes] = []
    await worker.listen_sealed(NOTICES, heard.append)
    await worker.listen_from(NOTICES, lambda _, data: captured.append(data))
    await quiet(0.1)
    director.publish_sealed(NOTICES, b"once")
    await heard_within(captured, 1)
    director.publish(NOTICES, captured[0])  # the same bytes, sent again by one who may publish there
    director.publish_sealed(NOTICES, b"twice")
    await heard_within(heard, 2)
    await quiet()
    assert heard == [b"once", b"twice"] and len(captured) == 3
