"""The bus in one process (server/cluster/bus.py's interface): a broker every role of a cluster connects to,
for ``mttsim cluster --bus memory`` (a demo and a debugging aid) and for the tests of the cluster's logic.

It keeps what the NATS form keeps, and the same trust: a connection is a user (the director, the table workers,
or a gateway's realm) with its role's rights (``bus.rights``): a publish outside them is dropped with a log line
and a listen outside them refused, as the NATS server does. A realm's request is answered only if that realm's
gateway asked (``own_realm``). Leases expire by the event loop's clock unless renewed; each table's stream keeps
its last message; the seal's key is the broker's, given to the director and the workers and never to a gateway.

Delivery is a turn of the event loop later, in order, as over a network: a notice never runs inside its sender's
call, and a stopped connection hears nothing more.
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import secrets
import time
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

from server.cluster.bus import (
    Answer, Bus, Lease, NoAnswer, NotAllowed, Send, Stop, matches,
)
from server.cluster.schema import LEASE_SECONDS, REQUEST_SECONDS, STREAM_PREFIX, realm_in, stream_subject
from server.processes import Role
from server.tournament.table_stream import last_seq_kept

logger = logging.getLogger("mttsim.bus")


class _Listener:
    __slots__ = ("pattern", "heard", "bus")

    def __init__(self, pattern: str, heard: Callable[[str, bytes], None], bus: MemoryBus) -> None:
        self.pattern = pattern
        self.heard = heard
        self.bus = bus


class _Server:
    __slots__ = ("pattern", "answer", "own_realm")

    def __init__(self, pattern: str, answer: Callable[[str, bytes, MemoryBus], Any], own_realm: bool) -> None:
        self.pattern = pattern
        self.answer = answer  # (subject, data, asker) -> the answer's coroutine or bytes
        self.own_realm = own_realm


class MemoryBroker:
    """What the NATS server is to the NATS form: who listens and serves where, the leases, the streams' last
    messages and the seal's key, for the connections of one process."""

    def __init__(self, lease_seconds: float = LEASE_SECONDS) -> None:
        self.lease_seconds = lease_seconds
        self.key = secrets.token_bytes(32)
        self.listeners: list[_Listener] = []
        self.servers: list[_Server] = []
        self.leases: dict[str, tuple[str, int, float]] = {}  # key -> holder, revision, expires at
        self.streams: dict[str, bytes] = {}  # a table's stream subject -> its last message
        self._revisions = itertools.count(1)

    def transport(self, user: str) -> MemoryTransport:
        """How ``user`` reaches this broker: ``director``, ``tables``, or a gateway's realm."""
        return MemoryTransport(self, user)

    def deliver(self, subject: str, payload: bytes) -> None:
        if subject.startswith(f"{STREAM_PREFIX}."):
            self.streams[subject] = payload
        for listener in list(self.listeners):
            if matches(listener.pattern, subject) and not listener.bus.closed:
                listener.heard(subject, payload)

    def server_for(self, subject: str) -> _Server | None:
        return next((server for server in self.servers if matches(server.pattern, subject)), None)

    def revision(self) -> int:
        return next(self._revisions)

    def now(self) -> float:
        return asyncio.get_running_loop().time()


class MemoryTransport:
    """A user of a ``MemoryBroker``."""

    def __init__(self, broker: MemoryBroker, user: str) -> None:
        self.broker = broker
        self.user = user

    @property
    def realm(self) -> str:
        return self.user

    def shown(self) -> str:
        return "a bus in this process"

    async def connect(self, role: Role, round_trip: Callable[[float], None] | None = None) -> MemoryBus:
        gateway_user = self.user not in ("director", "tables")
        if (role == "gateway") != gateway_user or not gateway_user and self.user != role:
            raise NotAllowed(f"{self.user!r} may not connect as {role}")
        return MemoryBus(self.broker, role, self.user, round_trip)


class MemoryBus(Bus):
    """One connection to a ``MemoryBroker``, with its user's rights."""

    def __init__(self, broker: MemoryBroker, role: Role, user: str,
                 round_trip: Callable[[float], None] | None = None) -> None:
        super().__init__(role, user, None if role == "gateway" else broker.key, round_trip)
        self.broker = broker
        self.closed = False
        self._mine: list[_Listener] = []
        self._served: list[_Server] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def close(self) -> None:
        self._send()
        self.closed = True
        for listener in self._mine:
            self.broker.listeners.remove(listener)
        for server in self._served:
            self.broker.servers.remove(server)
        self._mine, self._served = [], []
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    def publish(self, subject: str, payload: bytes) -> None:
        if not self.closed and self.queued(subject, payload):
            asyncio.get_running_loop().call_soon(self._send)

    def _send(self) -> None:
        for subject, payload in self.taken():
            self.broker.deliver(subject, payload)

    async def _asked(self, subject: str, timeout: float) -> _Server:
        """Who answers ``subject`` for this connection, a turn later; ``NoAnswer`` (at once, as NATS's "no
        responders") when nobody may."""
        await asyncio.sleep(0)
        server = self.broker.server_for(subject) if not self.closed and self.may_publish_on(subject) else None
        if server is None:
            raise NoAnswer(f"nobody serves {subject}")
        if server.own_realm and realm_in(subject) != self.realm:
            logger.warning("a request on %s from %s, not its realm's gateway, was refused", subject, self.realm)
            await asyncio.sleep(timeout)
            raise NoAnswer(f"nobody answered on {subject}")
        return server

    async def request(self, subject: str, payload: bytes, timeout: float = REQUEST_SECONDS) -> bytes:
        started = time.perf_counter()
        server = await self._asked(subject, timeout)
        answered = server.answer(subject, payload, self)
        if answered is None:
            await asyncio.sleep(timeout)
            raise NoAnswer(f"nobody answered on {subject}")
        await asyncio.sleep(0)
        self.answered_since(started)
        return bytes(answered)

    async def ask_in_pieces(self, subject: str, payload: bytes,
                            timeout: float = REQUEST_SECONDS) -> tuple[bytes, AsyncIterator[bytes]]:
        started = time.perf_counter()
        server = await self._asked(subject, timeout)
        pieces: asyncio.Queue[bytes] = asyncio.Queue()

        async def send(data: bytes) -> None:
            pieces.put_nowait(data)

        working = server.answer(subject, payload, self)
        answering = asyncio.get_running_loop().create_task(working(send))
        self._tasks.add(answering)
        answering.add_done_callback(self._tasks.discard)
        try:
            async with asyncio.timeout(timeout):
                first = await pieces.get()
        except TimeoutError as error:
            answering.cancel()
            raise NoAnswer(f"nobody answered on {subject}") from error
        self.answered_since(started)

        async def rest() -> AsyncIterator[bytes]:
            try:
                while True:
                    async with asyncio.timeout(timeout):
                        data = await pieces.get()
                    if not data:
                        return
                    yield data
            finally:
                answering.cancel()

        return first, rest()

    def _serving(self, pattern: str, answer: Callable[[str, bytes, MemoryBus], Any], own_realm: bool) -> None:
        self.may_listen_on(pattern)
        server = _Server(pattern, answer, own_realm)
        self.broker.servers.append(server)
        self._served.append(server)

    async def serve(self, pattern: str, answer: Answer, *, own_realm: bool = False) -> None:
        self._serving(pattern, lambda subject, data, _: answer(subject, data), own_realm)

    async def serve_tasks(self, pattern: str, answer: Callable[[bytes, Send], Coroutine[Any, Any, None]], *,
                          own_realm: bool = False) -> None:
        self._serving(pattern, lambda _, data, __: lambda send: answer(data, send), own_realm)

    async def listen_from(self, pattern: str, heard: Callable[[str, bytes], None]) -> Stop:
        self.may_listen_on(pattern)
        listener = _Listener(pattern, heard, self)
        self.broker.listeners.append(listener)
        self._mine.append(listener)

        async def stop() -> None:
            if listener in self.broker.listeners:
                self.broker.listeners.remove(listener)
                self._mine.remove(listener)

        return stop

    async def last_seq(self, tournament: str, table: int) -> int:
        return last_seq_kept(self.broker.streams.get(stream_subject(tournament, table), b""))

    def _held(self, key: str) -> tuple[str, int, float] | None:
        held = self.broker.leases.get(key)
        if held is not None and held[2] <= self.broker.now():
            del self.broker.leases[key]  # expired
            return None
        return held

    async def acquire(self, key: str, holder: str) -> Lease | None:
        self._lease_holder()
        await asyncio.sleep(0)
        if self._held(key) is not None:
            return None
        revision = self.broker.revision()
        self.broker.leases[key] = (holder, revision, self.broker.now() + self.broker.lease_seconds)
        return Lease(key, revision)

    async def renew(self, lease: Lease, holder: str) -> bool:
        self._lease_holder()
        await asyncio.sleep(0)
        held = self._held(lease.key)
        if held is None or held[1] != lease.revision:
            return False
        lease.revision = self.broker.revision()
        self.broker.leases[lease.key] = (holder, lease.revision, self.broker.now() + self.broker.lease_seconds)
        return True

    async def release(self, lease: Lease) -> None:
        if self.closed:
            return  # a process gone lets go of nothing: its leases expire
        await asyncio.sleep(0)
        held = self._held(lease.key)
        if held is not None and held[1] == lease.revision:
            del self.broker.leases[lease.key]

    def _lease_holder(self) -> None:
        if self.role != "tables":
            raise NotAllowed("only a table worker holds leases")
        if self.closed:
            raise NoAnswer("the connection is closed")
