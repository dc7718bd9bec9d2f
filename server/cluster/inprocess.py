"""A whole cluster in this one process, on a ``MemoryBus`` (server/cluster/memorybus.py): ``mttsim cluster --bus
memory`` (a demo, and a debugging aid: one process to step through), and the tests of the cluster's logic.

The director, its table workers and its gateways are the same classes as in a cluster of processes, each
connected to the bus as its own user with its role's rights; only the transport differs. Each web server (the
director's and each gateway's) listens on its own loopback port, as its process would. A worker can be stopped as
a process is (its leases let go at once), or crash (its leases left to expire, while it says nothing more).
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator, Iterator
from typing import Any

import uvicorn
from starlette.applications import Starlette

from server.api.app import create_app, uvicorn_websockets
from server.api.edge import Settings
from server.cluster.service import joining
from server.cluster.gateway import create_gateway
from server.cluster.memorybus import MemoryBroker, MemoryBus
from server.cluster.worker import TableWorker, WorkerMetrics


class _Server(uvicorn.Server):
    """A web server of the cluster: the cluster, not each server, answers the process's signals."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        port: int = probe.getsockname()[1]
        return port


class Worker:
    """One table worker of the cluster, as a process of its own would be."""

    def __init__(self, bus: MemoryBus, number: int) -> None:
        self.bus = bus
        self.table_worker = TableWorker(bus, WorkerMetrics(), instance=f"-{number}")
        self.task = asyncio.get_running_loop().create_task(self._run(), name="cluster:worker")

    async def _run(self) -> None:
        try:
            await self.table_worker.run()
        finally:
            await self.bus.close()

    async def stop(self) -> None:
        """Stopped as SIGTERM stops a worker: its leases let go at once."""
        self.task.cancel()
        await asyncio.gather(self.task, return_exceptions=True)

    async def crash(self) -> None:
        """Gone as SIGKILL leaves a worker: it says nothing more, and its leases expire."""
        await self.bus.close()
        await self.stop()


class InProcessCluster:
    """A director, ``table_workers`` workers and ``gateways`` gateways on one broker, started by ``running``."""

    def __init__(self, admin_token: str, *, table_workers: int = 2, gateways: int = 1, host: str = "127.0.0.1",
                 port: int | None = None, hand_pause: float = 2.0, db: str | None = None,
                 broker: MemoryBroker | None = None, **settings: Any) -> None:
        self.broker = broker or MemoryBroker()
        self.host = host
        ports = [free_port(host) for _ in range(gateways + 1)] if port is None else \
            [port + number for number in range(gateways + 1)]
        self.gateway_urls = [f"http://{host}:{number}" for number in ports[:gateways]]
        self.director_url = f"http://{host}:{ports[gateways]}"
        self.director = create_app(Settings(admin_token=admin_token, hand_pause=hand_pause, db=db,
                                            ws_url=self.director_url.replace("http", "ws", 1), clustered=True,
                                            **settings), join_cluster=joining(self.broker.transport("director")))
        self.gateways = [create_gateway(Settings(admin_token=admin_token, **settings), url,
                                        self.broker.transport(f"gateway-{number}"))
                         for number, url in enumerate(self.gateway_urls, start=1)]
        self.table_workers = table_workers
        self.workers: list[Worker] = []
        self._servers: list[tuple[_Server, asyncio.Task[None]]] = []

    async def add_worker(self) -> Worker:
        worker = Worker(await self.broker.transport("tables").connect("tables"), len(self.workers) + 1)
        self.workers.append(worker)
        return worker

    async def _serve(self, app: Starlette, url: str) -> None:
        port = int(url.rsplit(":", 1)[1])
        server = _Server(uvicorn.Config(app, host=self.host, port=port, log_level="warning", lifespan="on",
                                        **uvicorn_websockets()))
        task = asyncio.get_running_loop().create_task(server.serve(), name=f"cluster:{url}")
        self._servers.append((server, task))
        while not server.started:
            if task.done():
                await task  # it could not start: say why
            await asyncio.sleep(0.01)

    @contextlib.asynccontextmanager
    async def running(self) -> AsyncIterator[InProcessCluster]:
        """Every role started, the director first; at the end stopped, the gateways first and the director last."""
        try:
            await self._serve(self.director, self.director_url)
            for _ in range(self.table_workers):
                await self.add_worker()
            for app, url in zip(self.gateways, self.gateway_urls):
                await self._serve(app, url)
            yield self
        finally:
            for server, _ in reversed(self._servers[1:]):
                server.should_exit = True
            await asyncio.gather(*(task for _, task in self._servers[1:]), return_exceptions=True)
            await asyncio.gather(*(worker.stop() for worker in self.workers))
            if self._servers:
                director, task = self._servers[0]
                director.should_exit = True
                await task
