"""A table worker against a bus of the test's own (server/cluster/worker.py), and the bus's leases: how they are
let go."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
import contextlib

import msgspec
import pytest
from nats.js.errors import BadRequestError

from server.cluster.bus import SEAL_BYTES, SEAL_MAX_AGE, Freshness, Lease, Stamp, seal, unseal
from server.cluster.natsbus import NatsBus
from server.cluster.schema import COMMANDS, TABLES, Listed, TableCommand
from server.processes import Process
from server.tournament.remote import TableState
from server.cluster.worker import RELEASES_AT_ONCE, TableWorker, WorkerMetrics

TABLES_HELD = 2_000


class DirectorsBus:
    """Stands in for ``server.cluster.bus.Bus``: a director with ``TABLES_HELD`` tables that all wait, and leases that
    any
    worker gets; it counts the leases let go and how many were in flight at once."""

    def __init__(self) -> None:
        self.released: set[str] = set()
        self.in_flight = 0
        self.most_in_flight = 0
        self.acquired = 0

    async def listen(self, subject: str, heard: object) -> Callable[[], Awaitable[None]]:
        async def stop() -> None:
            return None

        return stop

    async def listen_from(self, subject: str, heard: object) -> Callable[[], Awaitable[None]]:
        return await self.listen(subject, heard)

    async def listen_sealed(self, subject: str, heard: object) -> Callable[[], Awaitable[None]]:
        return await self.listen(subject, heard)

    async def last_seq(self, tournament: str, table: int) -> int:
        return 0

    def publish(self, subject: str, payload: bytes) -> None:
        pass

    async def request(self, subject: str, payload: bytes) -> bytes:
        if subject == TABLES:
            assert msgspec.msgpack.decode(payload, type=Process).role == "tables"  # its heartbeat
            return msgspec.msgpack.encode(Listed([("t", table) for table in range(1, TABLES_HELD + 1)], 1))
        assert subject == COMMANDS
        commands = msgspec.msgpack.decode(payload, type=list[TableCommand])
        return msgspec.msgpack.encode([TableState("wait", 1) for _ in commands])

    async def acquire(self, key: str, holder: str) -> Lease:
        self.acquired += 1
        return Lease(key, self.acquired)

    async def renew(self, lease: Lease, holder: str) -> bool:
        return True

    async def release(self, lease: Lease) -> None:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        await asyncio.sleep(0)  # a round trip: the others in flight meanwhile
        self.in_flight -= 1
        self.released.add(lease.key)


@pytest.mark.asyncio
async def test_a_stopping_worker_lets_go_of_every_lease_together_a_few_hundred_at_a_time() -> None:
    bus = DirectorsBus()
    worker = TableWorker(bus, WorkerMetrics())  # type: ignore[arg-type]
    running = asyncio.create_task(worker.run())
    for _ in range(10_000):  # every table taken, and each table's task waiting on the director's word
        await asyncio.sleep(0.001)
        if len(worker.held) == TABLES_HELD:
            break
    assert len(worker.held) == TABLES_HELD
    running.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await running
    assert bus.released == {f"t.{table}" for table in range(1, TABLES_HELD + 1)}
    assert 1 < bus.most_in_flight <= RELEASES_AT_ONCE  # together, but never enough to overflow the client's buffer
    assert not worker.held


class RenewedMeanwhile:
    """A key-value bucket whose keys were renewed since the revision a deletion names, as NATS answers it."""

    async def delete(self, key: str, last: int | None = None) -> None:
        raise BadRequestError(code=400, err_code=10071, description="wrong last sequence: 1792")


@pytest.mark.asyncio
async def test_letting_go_of_a_lease_renewed_meanwhile_leaves_it_to_expire_and_stops_nothing() -> None:
    bus = NatsBus(None, "tables", "tables", RenewedMeanwhile(), None)  # type: ignore[arg-type]
    await bus.release(Lease("t.1", 1))  # raised, and stopped the worker with every table it held


def test_the_directors_seal_holds_for_its_subject_and_its_bytes_only() -> None:
    """A worker acted on anything that reached a table's subject, and a gateway made JetStream deliver
    a forged batch there. What the director says to a table or the workers is sealed with a key the gateways
    never hold: a forgery, a tampered batch, or one sealed for another table is dropped."""
    key, other = b"k" * 32, b"o" * 32
    stamp = Stamp(b"director", 1, 1000.0)
    sealed = seal(key, "mttsim.table.t.1", b"a batch", stamp)
    assert unseal(key, "mttsim.table.t.1", sealed) == (stamp, b"a batch")
    assert unseal(key, "mttsim.table.t.2", sealed) is None  # replayed to another table
    assert unseal(other, "mttsim.table.t.1", sealed) is None  # sealed with another key
    assert unseal(key, "mttsim.table.t.1", sealed[:-1] + b"!") is None  # tampered
    restamped = sealed[:32] + seal(key, "x", b"", Stamp(b"director", 2, 1000.0))[32:SEAL_BYTES] + b"a batch"
    assert unseal(key, "mttsim.table.t.1", restamped) is None  # its stamp changed
    assert unseal(key, "mttsim.table.t.1", b"a batch") is None  # not sealed at all
    assert unseal(key, "mttsim.table.t.1", b"") is None


def test_a_sealed_message_is_heard_once_in_order_and_while_it_is_fresh() -> None:
    """The seal had no sequence: a captured sealed batch could be sent again wherever a publish was allowed.
    Each is stamped by its sender, counted, and timed; a listener hears each once, in its sender's order."""
    heard = Freshness()
    now = 1000.0
    assert heard.fresh("s", Stamp(b"first", 1, now), now)
    assert not heard.fresh("s", Stamp(b"first", 1, now), now)  # the same message again
    assert heard.fresh("s", Stamp(b"first", 3, now), now + 1)
    assert not heard.fresh("s", Stamp(b"first", 2, now), now + 1)  # an older one of the same sender
    assert heard.fresh("other", Stamp(b"first", 2, now), now + 1)  # each subject its own
    assert not heard.fresh("s", Stamp(b"gone", 9, now - 5), now + 1)  # a sender before the last
    assert heard.fresh("s", Stamp(b"again", 1, now + 2), now + 2)  # the director started again
    assert not heard.fresh("s", Stamp(b"first", 4, now), now + 2)  # the one before it, no more
    assert not heard.fresh("new", Stamp(b"again", 5, now + 2 - SEAL_MAX_AGE - 1), now + 2)  # too old
    assert not heard.fresh("new", Stamp(b"again", 6, now + 2 + SEAL_MAX_AGE + 1), now + 2)  # from the future


@pytest.mark.asyncio
async def test_what_is_published_as_the_connection_drains_is_dropped_without_an_error() -> None:
    """A stopping worker's tables still said things as its connection drained: each left an error in the log
    ("Task exception was never retrieved")."""
    import nats

    class Draining:
        async def publish(self, subject: str, payload: bytes) -> None:
            raise nats.errors.ConnectionDrainingError

    bus = NatsBus(Draining(), "tables", "tables", None, None)  # type: ignore[arg-type]
    bus.publish("mttsim.stream.t.1", b"lines")
    sending = bus._flush
    assert sending is not None
    await sending  # raised before


@pytest.mark.asyncio
async def test_a_table_cancelled_as_a_notice_arrives_stops() -> None:
    """Python 3.11's ``wait_for`` loses a cancellation that comes just as what it waits for is done: a table
    waiting on a notice kept asking a director that was gone, and its worker, told to stop, never stopped."""
    from server.cluster.playing import WorkerOutlet

    worker = TableWorker(DirectorsBus(), WorkerMetrics())  # type: ignore[arg-type]
    arrived, stopped = asyncio.Event(), asyncio.Event()
    asked: list[str] = []

    async def ask(command_for) -> TableState:  # the worker's own ask, as _play gives it: a command's constructor
        asked.append(command_for("t", 1, 1).__struct_config__.tag)
        return TableState("wait", 1)

    played = WorkerOutlet(1, 1, lambda subject: None, lambda lines: None, arrived.set,  # type: ignore[arg-type, return-value]
                         lambda seconds: None, lambda: None)
    driving = asyncio.get_running_loop().create_task(
        worker._drive(ask, lambda: TableState("wait", 1), arrived, stopped, played))
    for _ in range(5):
        await asyncio.sleep(0)  # it took the table and waits for a notice
    assert asked == ["take"]
    arrived.set()
    await asyncio.sleep(0)  # what waits on the event is done; the table's task is yet to wake
    driving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(driving, 2)
