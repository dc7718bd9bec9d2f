"""The cluster's bus: NATS between the director process, its table workers and its gateways (docs/deployment.md),
carrying the messages of server/cluster/schema.py.

What must outlive a process lives in JetStream:
- the leases by which workers own tables: a key per table, created by one worker only, expiring unless
  renewed. The key's creation revision is the lease's epoch: the director fences off any older one,
  because a worker that stalled past its lease may still speak;
- the processes of the cluster, each renewing its own key, for ``GET /api/cluster``;
- each table's stream as its workers numbered it (``STREAMS``): a worker taking a table over numbers on.

One ``mttsim serve`` without ``--nats`` uses none of this.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import msgspec
import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.errors import NoRespondersError
from nats.js.api import DiscardPolicy, Header, KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import BadRequestError, KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

from server.cluster.schema import (
    LEASE_SECONDS, NO_RESPONDERS, PROCESS_SECONDS, REQUEST_SECONDS, STREAM_KEPT, STREAM_PREFIX, STREAM_SECONDS,
    STREAMS, realm_of, stream_subject,
)
from server.processes import Process, Role
from server.tournament.stream import numbered


class Lease:
    """A table's lease held by this process: its epoch, and the revision its next renewal must follow."""

    __slots__ = ("key", "epoch", "revision")

    def __init__(self, key: str, revision: int) -> None:
        self.key = key
        self.epoch = revision
        self.revision = revision


class Bus:
    """A NATS connection with what the roles need: requests timed, notices batched, leases and the registry."""

    def __init__(self, client: NatsClient, leases: KeyValue | None, processes: KeyValue,
                 round_trip: Callable[[float], None] | None = None) -> None:
        self.client = client
        self.leases = leases
        self.processes = processes
        self.round_trip = round_trip  # observes each request's seconds (the metrics' histogram)
        self._pending: list[tuple[str, bytes]] = []
        self._flush: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, url: str, role: Role, round_trip: Callable[[float], None] | None = None) -> Bus:
        """Connected as ``role``, whose replies come to inboxes of its own (``_INBOX.ROLE.REALM.*``): the NATS
        server's permissions let no other role read them (docs/deployment.md). A gateway touches no lease and no
        table stream, so it neither makes them nor may."""
        inbox = f"_INBOX.{role}.{realm_of(url)}" if role == "gateway" else f"_INBOX.{role}"
        client = await nats.connect(url, name=f"mttsim-{role}", max_reconnect_attempts=-1, reconnect_time_wait=0.5,
                                    inbox_prefix=inbox)
        js = client.jetstream()
        processes = await js.create_key_value(KeyValueConfig(bucket="mttsim_processes", ttl=PROCESS_SECONDS,
                                                             history=1))
        if role == "gateway":
            return cls(client, None, processes, round_trip)
        leases = await js.create_key_value(KeyValueConfig(bucket="mttsim_leases", ttl=LEASE_SECONDS, history=1))
        streams = StreamConfig(name=STREAMS, subjects=[f"{STREAM_PREFIX}.>"],
                               storage=StorageType.FILE, discard=DiscardPolicy.OLD, max_age=STREAM_SECONDS,
                               max_msgs_per_subject=STREAM_KEPT, allow_direct=True)
        try:
            await js.add_stream(streams)
        except BadRequestError:  # there already, made by an older version with other limits
            await js.update_stream(streams)
        return cls(client, leases, processes, round_trip)

    async def close(self) -> None:
        if self._flush is not None:
            await self._flush
        try:
            await self.client.drain()
        except nats.errors.Error:  # the NATS server is gone or reconnecting: nothing left to deliver
            await self.client.close()

    async def last_seq(self, tournament: str, table: int) -> int:
        """The number of the last message of the table's stream that JetStream kept, 0 if none."""
        try:
            # Read directly from the stream: through JetStream's API, two thousand tables taken at once queued
            # ahead of the lease creations, which that API serves one at a time.
            kept = await self.client.jetstream().get_last_msg(STREAMS, stream_subject(tournament, table), direct=True)
        except NotFoundError:
            return 0
        last = (kept.data or b"").rsplit(b"\n", 1)[-1]
        return numbered.decode(last).seq if last else 0

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
        try:
            for subject, payload in pending:
                await self.client.publish(subject, payload)
        except (nats.errors.ConnectionClosedError, nats.errors.ConnectionDrainingError):
            pass  # the process stops: what it had still to say is lost with it, as it would be a moment later

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
        return await self.listen_from(subject, lambda _, data: heard(data))

    async def listen_from(self, subject: str, heard: Callable[[str, bytes], None]) -> Callable[[], Awaitable[None]]:
        """Call ``heard`` with the subject (``subject`` has wildcards) and the data of each message."""
        async def on_message(message: Msg) -> None:
            heard(message.subject, message.data)

        subscription = await self.client.subscribe(subject, cb=on_message)
        return subscription.unsubscribe

    # ------------------------------------------------------------ leases

    @property
    def _leases(self) -> KeyValue:
        if self.leases is None:
            raise RuntimeError("a gateway's bus holds no lease")
        return self.leases

    async def acquire(self, key: str, holder: str) -> Lease | None:
        """The lease on ``key`` if nobody holds it; its creation revision is the epoch."""
        try:
            return Lease(key, await self._leases.create(key, holder.encode()))
        except KeyWrongLastSequenceError:
            return None

    async def renew(self, lease: Lease, holder: str) -> bool:
        """False if the lease expired or another took it: the table is no longer ours."""
        try:
            lease.revision = await self._leases.update(lease.key, holder.encode(), last=lease.revision)
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
            await self._leases.delete(lease.key, last=lease.revision)
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
