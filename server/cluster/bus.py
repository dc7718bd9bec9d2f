"""The cluster's bus: NATS between the director process, its table workers and its gateways (docs/deployment.md),
carrying the messages of server/cluster/schema.py.

What must outlive a process lives in JetStream, which the director sets up and a gateway never touches:
- the leases by which workers own tables: a key per table, created by one worker only, expiring unless
  renewed. The key's creation revision is the lease's epoch: the director fences off any older one,
  because a worker that stalled past its lease may still speak;
- each table's stream as its workers numbered it (``STREAMS``): a worker taking a table over numbers on;
- the key with which the director seals what it tells the workers (``SEAL_BUCKET``): a worker acts on a
  message of a table's subject only if the director wrote it, however it came there.

Who may trust what (docs/security.md): a message that reaches a subscriber with NATS headers was delivered
by JetStream (a consumer, a direct get), never published by a process of the cluster, which sends none; such
a message is dropped, since JetStream republishes what its requester chose onto a subject of the requester's
choosing, and the NATS server checks no permission for that.

One ``mttsim serve`` without ``--nats`` uses none of this.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any

import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.errors import NoRespondersError
from nats.js.api import DiscardPolicy, Header, KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import BadRequestError, KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

from server.cluster.schema import (
    LEASE_BUCKET, LEASE_SECONDS, NO_RESPONDERS, REQUEST_SECONDS, SEAL_BUCKET, SEAL_KEY, STREAM_KEPT, STREAM_PREFIX,
    STREAM_SECONDS, STREAMS, realm_of, stream_subject,
)
from server.processes import Role
from server.tournament.stream import numbered

logger = logging.getLogger("mttsim.bus")
SEAL_BYTES = 32  # HMAC-SHA256
SET_UP_SECONDS = 1.0  # how often a worker looks for what the director sets up, while it is not there


def _mac(key: bytes, subject: str, body: bytes) -> bytes:
    """The seal of ``body`` for ``subject``: it holds for this subject only, so that a batch for one table cannot
    be sent to another. Hashed in two steps: a batch is not copied to be sealed."""
    mac = hmac.new(key, subject.encode() + b" ", hashlib.sha256)
    mac.update(body)
    return mac.digest()


def seal(key: bytes, subject: str, body: bytes) -> bytes:
    """``body`` with the director's seal before it."""
    return _mac(key, subject, body) + body


def unseal(key: bytes, subject: str, data: bytes) -> bytes | None:
    """The body of a sealed message, or None if the director did not write it for ``subject``."""
    body = data[SEAL_BYTES:]
    return body if hmac.compare_digest(data[:SEAL_BYTES], _mac(key, subject, body)) else None


def delivered_by_jetstream(message: Msg) -> bool:
    """A message with headers: no process of the cluster sends any (see the module's docstring)."""
    if message.headers:
        logger.warning("a message on %s with headers (delivered by JetStream, not sent by the cluster) was dropped",
                       message.subject)
        return True
    return False


class Lease:
    """A table's lease held by this process: its epoch, and the revision its next renewal must follow."""

    __slots__ = ("key", "epoch", "revision")

    def __init__(self, key: str, revision: int) -> None:
        self.key = key
        self.epoch = revision
        self.revision = revision


class Bus:
    """A NATS connection with what the roles need: requests timed, notices batched, leases, and the seal."""

    def __init__(self, client: NatsClient, leases: KeyValue | None, key: bytes | None,
                 round_trip: Callable[[float], None] | None = None) -> None:
        self.client = client
        self.leases = leases
        self.key = key  # the seal's, which a gateway never holds
        self.round_trip = round_trip  # observes each request's seconds (the metrics' histogram)
        self._pending: list[tuple[str, bytes]] = []
        self._flush: asyncio.Task[None] | None = None

    @classmethod
    async def connect(cls, url: str, role: Role, round_trip: Callable[[float], None] | None = None) -> Bus:
        """Connected as ``role``, whose replies come to inboxes of its own (``_INBOX.ROLE.REALM.*``): the NATS
        server's permissions let no other role read them (docs/deployment.md). A gateway touches no lease, no
        table stream and nothing of JetStream; the director sets up what the workers use, and a worker waits
        for it."""
        inbox = f"_INBOX.{role}.{realm_of(url)}" if role == "gateway" else f"_INBOX.{role}"
        client = await nats.connect(url, name=f"mttsim-{role}", max_reconnect_attempts=-1, reconnect_time_wait=0.5,
                                    inbox_prefix=inbox)
        if role == "gateway":
            return cls(client, None, None, round_trip)
        js = client.jetstream()
        key = await _set_up(js) if role == "director" else await _sealing_key(js)
        # Bound by name rather than looked up: a lookup is a JetStream request a worker has no right to.
        leases = KeyValue(name=LEASE_BUCKET, stream=f"KV_{LEASE_BUCKET}", pre=f"$KV.{LEASE_BUCKET}.", js=js,
                          direct=False)
        return cls(client, leases, key, round_trip)

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

    async def serve(self, subject: str, answer: Callable[[str, bytes], bytes | None],
                    inbox_of: Callable[[str], str] | None = None) -> None:
        """Answer requests on ``subject`` with ``answer`` (synchronous: it never interleaves with another), given
        the subject each came on; None answers nothing. With ``inbox_of``, only a request whose reply goes to the
        inbox of the subject's realm is answered: this process, which may publish where its askers may not, is
        no relay for them."""
        async def reply(message: Msg) -> None:
            if self._admitted(message, inbox_of) and (answered := answer(message.subject, message.data)) is not None:
                await message.respond(answered)

        await self.client.subscribe(subject, cb=reply)

    async def serve_tasks(self, subject: str,
                          answer: Callable[[bytes, Callable[[bytes], Awaitable[None]]], Coroutine[Any, Any, None]],
                          inbox_of: Callable[[str], str] | None = None) -> None:
        """Answer each request on ``subject`` in a task of its own, in as many messages as ``answer`` sends."""
        tasks: set[asyncio.Task[None]] = set()

        async def start(message: Msg) -> None:
            if not self._admitted(message, inbox_of):
                return

            async def send(data: bytes) -> None:
                await self.client.publish(message.reply, data)

            task = asyncio.get_running_loop().create_task(answer(message.data, send))
            tasks.add(task)
            task.add_done_callback(tasks.discard)

        await self.client.subscribe(subject, cb=start)

    @staticmethod
    def _admitted(message: Msg, inbox_of: Callable[[str], str] | None) -> bool:
        if delivered_by_jetstream(message):
            return False
        if inbox_of is not None and not message.reply.startswith(f"{inbox_of(message.subject)}."):
            logger.warning("a request on %s whose answer would go to %r, not its sender's inbox, was refused",
                           message.subject, message.reply)
            return False
        return True

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
            if not delivered_by_jetstream(message):
                heard(message.subject, message.data)

        subscription = await self.client.subscribe(subject, cb=on_message)
        return subscription.unsubscribe

    # ------------------------------------------------------------ the director's sealed word to the workers

    def publish_sealed(self, subject: str, payload: bytes) -> None:
        """A notice only the director may send: sealed with the key a gateway never holds."""
        assert self.key is not None, "only the director and the workers hold the key"
        self.publish(subject, seal(self.key, subject, payload))

    async def listen_sealed(self, subject: str, heard: Callable[[bytes], None]) -> Callable[[], Awaitable[None]]:
        """Call ``heard`` with each message on ``subject`` that the director sealed; log and drop the rest."""
        key = self.key
        assert key is not None, "only the director and the workers hold the key"

        def opened(actual: str, data: bytes) -> None:
            body = unseal(key, actual, data)
            if body is None:
                logger.warning("a message on %s that the director did not seal was dropped", actual)
            else:
                heard(body)

        return await self.listen_from(subject, opened)

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


async def _set_up(js: Any) -> bytes:
    """The director's: the leases' bucket, the tables' streams and the seal's key, made if they are not there
    (a director started again finds them, and its key, as it left them); returns the key."""
    await js.create_key_value(KeyValueConfig(bucket=LEASE_BUCKET, ttl=LEASE_SECONDS, history=1))
    streams = StreamConfig(name=STREAMS, subjects=[f"{STREAM_PREFIX}.>"],
                           storage=StorageType.FILE, discard=DiscardPolicy.OLD, max_age=STREAM_SECONDS,
                           max_msgs_per_subject=STREAM_KEPT, allow_direct=True)
    try:
        await js.add_stream(streams)
    except BadRequestError:  # there already, made by an older version with other limits
        await js.update_stream(streams)
    sealing = await js.create_key_value(KeyValueConfig(bucket=SEAL_BUCKET, history=1, direct=True,
                                                       storage=StorageType.FILE))
    try:
        await sealing.create(SEAL_KEY, secrets.token_bytes(32))
    except KeyWrongLastSequenceError:  # made by this director before a restart
        pass
    return bytes((await sealing.get(SEAL_KEY)).value or b"")


async def _sealing_key(js: Any) -> bytes:
    """A worker's: the seal's key, by a direct get, the one JetStream read it may make of that bucket; until the
    director has set the bus up, it waits."""
    while True:
        try:
            kept = await js.get_last_msg(f"KV_{SEAL_BUCKET}", f"$KV.{SEAL_BUCKET}.{SEAL_KEY}", direct=True)
            if kept.data:
                return bytes(kept.data)
        except (NotFoundError, NoRespondersError, nats.errors.TimeoutError):
            pass
        logger.warning("waiting for the director to set up the bus")
        await asyncio.sleep(SET_UP_SECONDS)
