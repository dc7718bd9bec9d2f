"""A table worker (``mttsim serve --nats URL --role tables``): it holds tables' leases and plays them.

Playing a table means driving it against the clocks: ask the director to
deal, wait out each decision's clock unless a notice says it was answered,
say when it ran out, show the finished hand, settle it, again. The rules of
all of it stay with the director (server/tables.py); the worker holds the
time, so that thousands of tables' timers and their traffic leave the
director's process.

The tables are shared out by leases (server/bus.py): each worker takes
tables nobody holds up to its fair share, the tables divided by the workers
alive, and renews what it holds. When a worker dies its leases expire, the
share of the others grows, and they take its tables over: the director voids
the hands it left in progress.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
from collections.abc import Awaitable, Callable

import msgspec
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, start_http_server

from server.bus import (
    COMMANDS, LEASE_SECONDS, TABLES, Bus, Lease, Process, TableCommand, TableState, notices,
)
from server.metrics import SECONDS

logger = logging.getLogger("mttsim.worker")
encode = msgspec.msgpack.encode
_state = msgspec.msgpack.Decoder(TableState)
_tables = msgspec.msgpack.Decoder(list[tuple[str, int]])
LOOK_SECONDS = 0.5  # how often a worker looks for tables nobody holds
WAIT_SECONDS = 5.0  # a table told to wait asks again after this long, should a notice have been lost
FINAL = ("gone", "fenced")


class WorkerMetrics:
    """A worker's own metrics, served on ``--metrics-port``."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.leases = Gauge("mttsim_leases_held", "Table leases this worker holds", registry=self.registry)
        self.taken = Counter("mttsim_tables_taken", "Table leases this worker took", registry=self.registry)
        self.expired = Counter("mttsim_clocks_expired", "Decision clocks this worker ran out",
                               registry=self.registry)
        self.round_trip = Histogram("mttsim_bus_round_trip_seconds", "A command to the director and its answer",
                                    buckets=SECONDS, registry=self.registry)

    def serve(self, port: int) -> None:
        start_http_server(port, addr="127.0.0.1", registry=self.registry)


class TableWorker:
    """This process's share of the cluster's tables."""

    def __init__(self, bus: Bus, metrics: WorkerMetrics) -> None:
        self.bus = bus
        self.metrics = metrics
        self.me = Process.here("tables")
        self.held: dict[str, tuple[Lease, asyncio.Task[None]]] = {}

    async def run(self) -> None:
        async with asyncio.TaskGroup() as group:
            group.create_task(self._renew())
            while True:
                try:
                    await self._look(group)
                except (NatsTimeout, NoRespondersError):
                    logger.info("no director answers yet")
                except Exception:
                    logger.exception("looking for tables failed")
                await asyncio.sleep(LOOK_SECONDS)

    async def _look(self, group: asyncio.TaskGroup) -> None:
        """Register, then take tables nobody holds, up to this worker's share."""
        self.me.tables = sorted(self.held)
        await self.bus.register(self.me)
        listed = _tables.decode(await self.bus.request(TABLES, b""))
        workers = max(1, sum(process.role == "tables" for process in await self.bus.cluster()))
        share = math.ceil(len(listed) / workers)
        free = [(tournament, table) for tournament, table in listed if f"{tournament}.{table}" not in self.held]
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

    async def _renew(self) -> None:
        while True:
            await asyncio.sleep(LEASE_SECONDS / 3)
            for key, (lease, task) in list(self.held.items()):
                try:
                    kept = await self.bus.renew(lease, self.me.id)
                except Exception:  # the bus is reconnecting: try at the next round, while the lease lasts
                    logger.warning("could not renew %s", key, exc_info=True)
                    continue
                if not kept:
                    logger.warning("lost the lease on %s", key)
                    task.cancel()

    async def _play(self, tournament: str, table: int, lease: Lease) -> None:
        """Drive one table while its lease lasts."""
        newest = TableState("wait", 0)
        arrived = asyncio.Event()

        def heard(data: bytes) -> None:
            nonlocal newest
            state = _state.decode(data)
            if state.version > newest.version or state.kind in FINAL:
                newest = state
                arrived.set()

        async def ask(verb: str, decision: int = 0) -> TableState:
            command = encode(TableCommand(verb, tournament, table, lease.epoch, decision))
            while True:
                try:
                    heard(await self.bus.request(COMMANDS, command))
                    return newest
                except (NatsTimeout, NoRespondersError):  # the director restarts: ask again
                    await asyncio.sleep(0.5)

        stop = await self.bus.listen(notices(tournament, table), heard)
        try:
            await self._drive(ask, lambda: newest, arrived)
        except Exception:  # one table's failure lets go of its lease (another worker takes it), not of the others
            logger.exception("table %s/%s stopped", tournament, table)
        finally:
            self.held.pop(f"{tournament}.{table}", None)
            self.metrics.leases.set(len(self.held))
            await stop()
            await self.bus.release(lease)

    async def _drive(self, ask: Callable[..., Awaitable[TableState]], newest: Callable[[], TableState],
                     arrived: asyncio.Event) -> None:
        """Deal, run the clocks, settle, until the table is gone or fenced off."""
        state = await ask("take")
        while state.kind not in FINAL:
            if state.kind == "ready":
                state = await ask("deal")
                continue
            if newest().version > state.version:
                state = newest()
                continue
            arrived.clear()
            try:
                await asyncio.wait_for(arrived.wait(), WAIT_SECONDS if state.kind == "wait" else state.seconds)
                state = newest()
            except TimeoutError:
                if state.kind == "turn":
                    self.metrics.expired.inc()
                    state = await ask("expire", state.decision)
                elif state.kind == "over":
                    state = await ask("end")
                else:
                    state = await ask("deal")


async def work(url: str, metrics_port: int | None) -> None:
    """``mttsim serve --role tables``: until stopped."""
    metrics = WorkerMetrics()
    if metrics_port is not None:
        metrics.serve(metrics_port)
    bus = await Bus.connect(url, "mttsim-tables", metrics.round_trip.observe)
    try:
        await TableWorker(bus, metrics).run()
    finally:
        await bus.close()
