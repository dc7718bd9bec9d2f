"""A table worker (``mttsim serve --role tables``, on a cluster's bus): it holds tables' leases and plays them.

Playing a table means writing its stream and playing its hands
(server/cluster/playing.py): the director deals a hand and sends it here; the worker
takes the players' decisions and runs their clocks, shows the finished hand,
and hands it back to be journaled and settled; again. So the hands, their
decisions, their timers and their messages to the players leave the
director's process, which keeps the tournament: seats, stacks, levels,
breaking, balancing, hand-for-hand and money.

The tables are shared out by leases (server/cluster/bus.py): each worker takes
tables nobody holds up to its fair share, the tables divided by the workers
alive, and renews what it holds. When a worker dies its leases expire, the
share of the others grows, and they take its tables over: the director voids
the hands it left in progress.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import random
from collections.abc import Awaitable, Callable
from functools import partial

import msgspec
from prometheus_client import Counter, Gauge, Histogram, start_http_server

from server.cluster.bus import ANY, Bus, Lease, NoAnswer, Transport
from server.cluster.schema import (
    COMMANDS, LEASE_SECONDS, NOTICES, TABLES, Deal, End, Frames, Listed, Notice, TableCommand, Take, decisions_for,
    stream_subject, table_subject,
)
from server.processes import Process
from server.tournament.remote import TableState
from server.api.metrics import SECONDS, process_registry
from server.cluster.playing import WorkerOutlet
from server.turns import TurnBatch, beat

logger = logging.getLogger("mttsim.worker")
encode = msgspec.msgpack.encode
_states = msgspec.msgpack.Decoder(list[TableState])
_notices = msgspec.msgpack.Decoder(list[Notice])
_listed = msgspec.msgpack.Decoder(Listed)
LOOK_SECONDS = 0.5  # how often a worker looks for tables nobody holds
COMMANDS_PER_REQUEST = 100  # a request leaves once this many commands wait, not only at the end of the loop's turn
WAIT_SECONDS = 5.0  # a table told to wait asks again after this long, should a notice or a hand have been lost
CLOSED_SECONDS = 5.0  # how long a table told ``gone`` waits for the director's last word to it
LET_GO_SECONDS = 3.0  # how long a stopping worker tries to let go of its leases
RELEASES_AT_ONCE = 200  # lease deletions in flight together: two thousand at once overflow the client's buffer
FINAL = ("gone", "fenced")


class WorkerMetrics:
    """A worker's own metrics, served on ``--metrics-port``."""

    def __init__(self) -> None:
        self.registry = process_registry()
        self.leases = Gauge("mttsim_leases_held", "Table leases this worker holds", registry=self.registry)
        self.taken = Counter("mttsim_tables_taken", "Table leases this worker took", registry=self.registry)
        self.expired = Counter("mttsim_clocks_expired", "Decision clocks this worker ran out",
                               registry=self.registry)
        self.hands = Counter("mttsim_hands_played", "Hands this worker played and handed back", registry=self.registry)
        self.action_seconds = Histogram("mttsim_action_seconds", "A decision applied here and sent to the table",
                                        buckets=SECONDS, registry=self.registry)
        self.round_trip = Histogram("mttsim_bus_round_trip_seconds", "A command to the director and its answer",
                                    buckets=SECONDS, registry=self.registry)

    def serve(self, port: int) -> None:
        start_http_server(port, addr="127.0.0.1", registry=self.registry)


class TableWorker:
    """This process's share of the cluster's tables."""

    def __init__(self, bus: Bus, metrics: WorkerMetrics, instance: str = "") -> None:
        self.bus = bus
        self.metrics = metrics
        self.me = Process.here("tables", instance=instance)
        self.held: dict[str, tuple[Lease, asyncio.Task[None]]] = {}
        self.told: dict[str, Callable[[TableState], None]] = {}  # a held table's ear for the director's notices
        self.frames: dict[str, Frames] = {}  # to each gateway (and the director's own clients), shared by the tables
        self._asked: TurnBatch[tuple[TableCommand, asyncio.Future[TableState]]] = TurnBatch(
            self._send, COMMANDS_PER_REQUEST)
        self._stopped: list[Lease] = []  # the leases of tables whose task was cancelled, let go together
        self._lost: set[Lease] = set()  # leases found expired or taken: their tasks end, with nothing to let go
        self._requests: set[asyncio.Task[None]] = set()  # held, so that none is collected before it is answered

    async def run(self) -> None:
        await self.bus.listen_sealed(NOTICES, self._heard)
        try:
            await self._run()
        finally:
            await self._let_go()
            for request in list(self._requests):  # what the tables asked and nobody will read: stopped, and awaited
                request.cancel()
            await asyncio.gather(*self._requests, return_exceptions=True)

    async def _let_go(self) -> None:
        """At a stop, every lease this worker held, together, so that the others take the tables now rather than
        when the leases expire; what is not let go within ``LET_GO_SECONDS`` expires as after a crash."""
        leases, self._stopped = self._stopped, []
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(LET_GO_SECONDS):
                for start in range(0, len(leases), RELEASES_AT_ONCE):
                    await asyncio.gather(*(self.bus.release(lease) for lease in leases[start:start + RELEASES_AT_ONCE]),
                                         return_exceptions=True)

    async def _run(self) -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(self._renew())
            await beat(LOOK_SECONDS, partial(self._look, group), "looking for tables failed", logger)

    async def _look(self, group: asyncio.TaskGroup) -> None:
        """Beat (the director registers this worker as it answers), then take tables nobody holds, up to this
        worker's share."""
        self.me.tables = sorted(self.held)
        try:
            listed = _listed.decode(await self.bus.request(TABLES, encode(self.me)))
        except NoAnswer:  # expected while the director starts (again): a line, not a trace
            logger.warning("no director answers yet")
            return
        share = math.ceil(len(listed.tables) / listed.workers)
        free = [(tournament, table) for tournament, table in listed.tables if f"{tournament}.{table}" not in self.held]
        random.shuffle(free)  # workers looking at once do not all race for the same first table
        for tournament, table in free:
            if len(self.held) >= share:
                break
            key = f"{tournament}.{table}"
            lease = await self.bus.acquire(key, self.me.id)
            if lease is not None:
                self.metrics.taken.inc()
                self.held[key] = (lease, group.create_task(self._play(tournament, table, lease), name=key))
                self.metrics.leases.set(len(self.held))

    async def ask(self, command: TableCommand) -> TableState:
        """The director's answer to ``command``; the commands of one turn of the event loop go together, in
        requests of ``COMMANDS_PER_REQUEST``.

        The director answers a request in one go: a request of a thousand
        tables' ends (the end of a hand-for-hand round) would hold its loop,
        and every player's action waiting on it, for the length of it.
        """
        answer: asyncio.Future[TableState] = asyncio.get_running_loop().create_future()
        self._asked.add((command, answer))
        return await answer

    def _send(self, asked: list[tuple[TableCommand, asyncio.Future[TableState]]]) -> None:
        request = asyncio.get_running_loop().create_task(self._request(asked))
        self._requests.add(request)
        request.add_done_callback(self._requests.discard)

    async def _request(self, asked: list[tuple[TableCommand, asyncio.Future[TableState]]]) -> None:
        try:
            states = _states.decode(await self.bus.request(COMMANDS, encode([command for command, _ in asked])))
        except Exception as error:  # every table of the batch asks again
            for _, answer in asked:
                if not answer.done():
                    answer.set_exception(error)
            return
        for (_, answer), state in zip(asked, states):
            if not answer.done():
                answer.set_result(state)

    def _heard(self, data: bytes) -> None:
        for notice in _notices.decode(data):
            heard = self.told.get(f"{notice.tournament}.{notice.table}")
            if heard is not None:
                heard(notice.state)

    async def _renew(self) -> None:
        """Renew every lease each third of its time, all at once: one round trip, however many tables."""
        while True:
            await asyncio.sleep(LEASE_SECONDS / 3)
            held = list(self.held.items())
            kept = await asyncio.gather(*(self.bus.renew(lease, self.me.id) for _, (lease, _) in held),
                                        return_exceptions=True)
            for (key, (lease, task)), renewed in zip(held, kept):
                if isinstance(renewed, BaseException):  # the bus is reconnecting: the next round, while it lasts
                    logger.warning("could not renew %s: %s", key, renewed)
                elif not renewed:
                    logger.warning("lost the lease on %s", key)
                    self._lost.add(lease)
                    task.cancel()

    def frames_to(self, subject: str) -> Frames:
        frames = self.frames.get(subject)
        if frames is None:
            frames = self.frames[subject] = Frames(self.bus, subject)
        return frames

    async def _play(self, tournament: str, table: int, lease: Lease) -> None:
        """Drive one table while its lease lasts."""
        newest = TableState("wait", 0)
        arrived = asyncio.Event()  # a notice, or a hand to play
        stopped = asyncio.Event()  # the table is gone or fenced off

        def heard(state: TableState) -> None:
            nonlocal newest
            if state.version > newest.version or state.kind in FINAL:
                newest = state
                arrived.set()
                if state.kind in FINAL:
                    stopped.set()

        async def ask(command_for: Callable[[str, int, int], TableCommand]) -> TableState:
            command = command_for(tournament, table, lease.epoch)
            while True:
                try:
                    heard(await self.ask(command))
                    return newest
                except NoAnswer:  # the director restarts: ask again
                    await asyncio.sleep(0.5)

        key = f"{tournament}.{table}"
        self.told[key] = heard
        unsubscribes: list[Callable[[], Awaitable[None]]] = []
        try:
            played = WorkerOutlet(table, lease.epoch, self.frames_to, partial(self.bus.publish, stream_subject(
                tournament, table)), arrived.set, self.metrics.action_seconds.observe, self.metrics.expired.inc,
                await self._last_seq(tournament, table))
            subject = table_subject(tournament, table)
            unsubscribes.append(await self.bus.listen_sealed(subject, played.heard))
            unsubscribes.append(await self.bus.listen_from(decisions_for(ANY, subject), played.decided))
            await self._drive(ask, lambda: newest, arrived, stopped, played)
            if newest.kind == "gone":  # its last messages (the finish, a break) may still be on their way
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(CLOSED_SECONDS):
                        await played.closed.wait()
        except asyncio.CancelledError:  # the worker stops: let go with the others, at once (a lost lease is gone)
            if lease not in self._lost:
                self._stopped.append(lease)
            self._lost.discard(lease)
            raise
        except Exception:  # one table's failure lets go of its lease (another worker takes it), not of the others
            logger.exception("table %s/%s stopped", tournament, table)
            await self.bus.release(lease)
        else:
            await self.bus.release(lease)
        finally:
            self.held.pop(key, None)
            self.told.pop(key, None)
            self.metrics.leases.set(len(self.held))
            for unsubscribe in unsubscribes:
                with contextlib.suppress(Exception):
                    await unsubscribe()

    async def _last_seq(self, tournament: str, table: int) -> int:
        """Where the table's stream numbers on from: where its last worker left it, as JetStream kept it."""
        try:
            return await self.bus.last_seq(tournament, table)
        except Exception:  # the bus's errors and time-outs alike: the snapshots the clients are sent start it again
            logger.warning("the stream of %s/%s was not read; it starts again", tournament, table, exc_info=True)
            return 0

    async def _drive(self, ask: Callable[..., Awaitable[TableState]], newest: Callable[[], TableState],
                     arrived: asyncio.Event, stopped: asyncio.Event, played: WorkerOutlet) -> None:
        """Play each hand sent, ask to deal when the director says the table may, until it is gone or fenced off."""
        state = await ask(Take)
        while state.kind not in FINAL:
            if played.out is not None:
                back = await played.play(stopped)
                if back is None:
                    state = newest()
                    continue
                state = await ask(partial(End, hand=back))
                played.settled()
                self.metrics.hands.inc()
                continue
            if state.kind == "ready":
                state = await ask(Deal)
                continue
            if newest().version > state.version:
                state = newest()
                continue
            arrived.clear()
            try:  # asyncio.timeout, not wait_for: Python 3.11's wait_for loses a cancellation that comes as the
                # event is set, and one table that lost it kept asking a director gone, so its worker never stopped
                async with asyncio.timeout(WAIT_SECONDS):
                    await arrived.wait()
                state = newest()
            except TimeoutError:  # a lost notice, or a hand told ``out`` that has not come: ask again
                state = await ask(Deal)


async def work(transport: Transport, metrics_port: int | None = None) -> None:
    """``mttsim serve --role tables``, or a worker of ``mttsim cluster --bus memory``: until stopped."""
    metrics = WorkerMetrics()
    if metrics_port is not None:
        metrics.serve(metrics_port)
    bus = await transport.connect("tables", metrics.round_trip.observe)
    try:
        await TableWorker(bus, metrics).run()
    finally:
        await bus.close()
