"""The cluster's bus: NATS between the director process and its table workers (docs/deployment.md).

Everything crosses as small msgspec Structs encoded with MessagePack:
- a worker's commands for a table (``TableCommand``), by request and reply to the director;
- the director's notices to the workers (``TableState``), every table's of one turn of its event loop in one
  message: when a hand-for-hand round opens, two thousand tables are told at once;
- the tables to play, by request and reply.

What must outlive a process lives in JetStream's key-value store:
- the leases by which workers own tables: a key per table, created by one worker only, expiring unless
  renewed. The key's creation revision is the lease's epoch: the director fences off any older one,
  because a worker that stalled past its lease may still speak;
- the processes of the cluster, each renewing its own key, for ``GET /api/cluster``.

One ``mttsim serve`` without ``--nats`` uses none of this.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import msgspec
import nats
from nats.aio.client import Client
from nats.aio.msg import Msg
from nats.errors import NoRespondersError
from nats.js.api import Header, KeyValueConfig
from nats.js.errors import KeyNotFoundError, KeyWrongLastSequenceError
from nats.js.kv import KeyValue

COMMANDS = "mttsim.director.tables"  # a worker's commands for its tables
TABLES = "mttsim.director.list"  # which tables there are
SOCKETS = "mttsim.director.sockets"  # the gateways' clients: sessions opened, their messages, sessions closed
HTTP = "mttsim.director.http"  # REST requests a gateway passes on; the answer comes back in pieces
CHUNK_BYTES = 256 * 1024  # under NATS's default limit of a megabyte a message
LEASE_SECONDS = 4.0  # a dead worker's tables wait this long for another; a live one renews thrice as often
PROCESS_SECONDS = 3.0  # a process missing from the registry this long is gone
REQUEST_SECONDS = 5.0
CLOSE_SESSION_LOST = 1012  # RFC 6455's "service restart": a gateway's client whose session is gone reconnects
NO_RESPONDERS = "503"  # the status of the NATS server's own answer to a request nobody listens for


NOTICES = "mttsim.notices"  # what changed at the tables, for the workers holding them
NOTICES_PER_MESSAGE = 5_000  # about 150 kB


def frames_for(gateway: str) -> str:
    return f"mttsim.gateway.{gateway}"


class TableState(msgspec.Struct, array_like=True):
    """What the worker holding a table does now.

    ``kind``: ``ready`` (deal), ``wait`` (the director says not yet), ``turn`` (run the clock of ``decision``
    for ``seconds``), ``over`` (the hand is finished: show it ``seconds``, then end it), ``gone`` (the table
    is closed: let it go) or ``fenced`` (a newer lease holds it). ``version`` orders the director's answers
    and notices: an older one than the worker has seen is stale.
    """

    kind: str
    version: int
    decision: int = 0
    seconds: float = 0.0


class Notice(msgspec.Struct, array_like=True):
    tournament: str
    table: int
    state: TableState


class TableCommand(msgspec.Struct, array_like=True):
    """``take`` (a new lease), ``deal``, ``expire`` (``decision``'s clock ran out) or ``end``, under ``epoch``."""

    verb: str
    tournament: str
    table: int
    epoch: int
    decision: int = 0


class ToDirector(msgspec.Struct, array_like=True):
    """From a gateway: a client's session opened (``open``: ``tournament`` empty for the lobby), a message it
    sent (``in``), or its socket gone (``gone``)."""

    kind: str
    gateway: str
    conn: int
    data: bytes = b""
    tournament: str = ""
    query: dict[str, str] = {}


class ToGateway(msgspec.Struct, array_like=True):
    """To a gateway: messages, one a line, at once to its clients ``now`` and with the broadcast tick to those
    ``later``: one client's own, or a table's for every client of the gateway watching it. ``close`` closes the
    socket of the one client ``now`` after its lines."""

    now: list[int]
    lines: list[bytes] = []
    later: list[int] = []
    close: int = 0
    reason: str = ""


class HttpRequest(msgspec.Struct, array_like=True):
    method: str
    path: str
    query: bytes
    headers: list[tuple[str, str]]
    body: bytes


class HttpHead(msgspec.Struct, array_like=True):
    """The first piece of an answer; the body follows in pieces of at most ``CHUNK_BYTES``, then an empty one."""

    status: int
    headers: list[tuple[str, str]]


class Process(msgspec.Struct):
    """One process of the cluster, as it registers itself."""

    role: str
    id: str
    pid: int
    host: str
    started: float  # the wall clock
    tables: list[str] = []  # "tournament/table" for a worker's leases
    url: str | None = None  # where it serves HTTP, if it does

    @classmethod
    def here(cls, role: str, url: str | None = None) -> Process:
        host, pid = socket.gethostname(), os.getpid()
        return cls(role, f"{role}-{host}-{pid}", pid, host, time.time(), url=url)


class Lease:
    """A table's lease held by this process: its epoch, and the revision its next renewal must follow."""

    __slots__ = ("key", "epoch", "revision")

    def __init__(self, key: str, revision: int) -> None:
        self.key = key
        self.epoch = revision
        self.revision = revision


class Bus:
    """A NATS connection with what the roles need: requests timed, notices batched, leases and the registry."""

    def __init__(self, client: Client, leases: KeyValue, processes: KeyValue,
                 round_trip: Callable[[float], None] | None = None) -> None:
        self.client = client
        self.leases = leases
        self.processes = processes
        self.round_trip = round_trip  # observes each request's seconds (the metrics' histogram)
        self._pending: list[tuple[str, bytes]] = []
        self._flush: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, url: str, name: str, round_trip: Callable[[float], None] | None = None) -> Bus:
        client = await nats.connect(url, name=name, max_reconnect_attempts=-1, reconnect_time_wait=0.5)
        js = client.jetstream()
        leases = await js.create_key_value(KeyValueConfig(bucket="mttsim_leases", ttl=LEASE_SECONDS, history=1))
        processes = await js.create_key_value(KeyValueConfig(bucket="mttsim_processes", ttl=PROCESS_SECONDS,
                                                             history=1))
        return cls(client, leases, processes, round_trip)

    async def close(self) -> None:
        if self._flush is not None:
            await self._flush
        try:
            await self.client.drain()
        except nats.errors.Error:  # the NATS server is gone or reconnecting: nothing left to deliver
            await self.client.close()

    async def request(self, subject: str, payload: bytes, timeout: float = REQUEST_SECONDS) -> bytes:
        started = time.perf_counter()
        answer = await self.client.request(subject, payload, timeout=timeout)
        if self.round_trip is not None:
            self.round_trip(time.perf_counter() - started)
        return answer.data

    def publish(self, subject: str, payload: bytes) -> None:
        """Queue a notice; those of one turn of the event loop leave together, never awaited by the caller."""
        self._pending.append((subject, payload))
        if self._flush is None:
            self._flush = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        await asyncio.sleep(0)  # the rest of this turn's notices join
        pending, self._pending, self._flush = self._pending, [], None
        for subject, payload in pending:
            await self.client.publish(subject, payload)

    async def serve(self, subject: str, answer: Callable[[bytes], bytes]) -> None:
        """Answer requests on ``subject`` with ``answer`` (synchronous: it never interleaves with another)."""
        async def reply(message: Msg) -> None:
            await message.respond(answer(message.data))

        await self.client.subscribe(subject, cb=reply)

    async def serve_tasks(self, subject: str,
                          answer: Callable[[bytes, Callable[[bytes], Awaitable[None]]], Coroutine[Any, Any, None]],
                          ) -> None:
        """Answer each request on ``subject`` in a task of its own, in as many messages as ``answer`` sends."""
        tasks: set[asyncio.Task[None]] = set()

        async def start(message: Msg) -> None:
            async def send(data: bytes) -> None:
                await self.client.publish(message.reply, data)

            task = asyncio.get_running_loop().create_task(answer(message.data, send))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        await self.client.subscribe(subject, cb=start)

    async def ask_in_pieces(self, subject: str, payload: bytes,
                            timeout: float = REQUEST_SECONDS) -> tuple[bytes, AsyncIterator[bytes]]:
        """A request answered by several messages: the first, and the rest until an empty one."""
        inbox = self.client.new_inbox()
        subscription = await self.client.subscribe(inbox)
        try:
            await self.client.publish(subject, payload, reply=inbox)
            started = time.perf_counter()
            first = await subscription.next_msg(timeout)
            if first.headers and first.headers.get(Header.STATUS) == NO_RESPONDERS:
                # ``request`` raises this itself; a bare inbox sees an empty message with the status
                raise NoRespondersError
            if self.round_trip is not None:
                self.round_trip(time.perf_counter() - started)
        except BaseException:
            await subscription.unsubscribe()
            raise

        async def rest() -> AsyncIterator[bytes]:
            try:
                while data := (await subscription.next_msg(timeout)).data:
                    yield data
            finally:
                await subscription.unsubscribe()

        return first.data, rest()

    async def listen(self, subject: str, heard: Callable[[bytes], None]) -> Callable[[], Awaitable[None]]:
        """Call ``heard`` with each message on ``subject``; returns how to stop."""
        async def on_message(message: Msg) -> None:
            heard(message.data)

        subscription = await self.client.subscribe(subject, cb=on_message)
        return subscription.unsubscribe

    # ------------------------------------------------------------ leases

    async def acquire(self, key: str, holder: str) -> Lease | None:
        """The lease on ``key`` if nobody holds it; its creation revision is the epoch."""
        try:
            return Lease(key, await self.leases.create(key, holder.encode()))
        except KeyWrongLastSequenceError:
            return None

    async def renew(self, lease: Lease, holder: str) -> bool:
        """False if the lease expired or another took it: the table is no longer ours."""
        try:
            lease.revision = await self.leases.update(lease.key, holder.encode(), last=lease.revision)
        except (KeyWrongLastSequenceError, KeyNotFoundError):
            return False
        return True

    async def release(self, lease: Lease) -> None:
        """Let go of ``lease`` now rather than when it expires; a lease that cannot be let go expires all the same.

        A deletion under a stale revision (a renewal in flight) is refused
        with a bare ``BadRequestError`` (code 10071): nats-py names it
        ``KeyWrongLastSequenceError`` for an update, not for a delete. Left to
        rise, it stopped the worker and every table it held.
        """
        try:
            await self.leases.delete(lease.key, last=lease.revision)
        except nats.errors.Error:  # expired, taken already, renewed meanwhile, or the bus is reconnecting
            pass

    # ------------------------------------------------------------ the registry of processes

    async def register(self, process: Process) -> None:
        await self.processes.put(process.id, msgspec.json.encode(process))

    async def cluster(self, timeout: float = REQUEST_SECONDS) -> list[Process]:
        """Every process registered now, read in one watch of the registry, within ``timeout`` (TimeoutError).

        nats-py's ``keys()`` and a watch wait, without a time limit, for the
        watch's last entry to be delivered; an entry that lapses meanwhile, or
        a delivery dropped on a busy machine, would keep the caller waiting for
        ever: a worker would then take no table again, and stop registering.
        """
        watcher = await self.processes.watchall(ignore_deletes=True)
        found = []
        try:
            async with asyncio.timeout(timeout):
                async for entry in watcher:
                    if entry is None:  # what the bucket held when the watch began has all come
                        break
                    if entry.value:
                        found.append(msgspec.json.decode(entry.value, type=Process))
        finally:
            await watcher.stop()  # type: ignore[no-untyped-call]  # nats-py leaves it untyped
        return sorted(found, key=lambda process: (process.role, process.id))
