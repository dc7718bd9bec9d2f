"""The bus over NATS (server/cluster/bus.py's interface): a cluster of processes, each its role's NATS user.

What must outlive a process lives in JetStream, which the director sets up and a gateway never touches:
- the leases, a key-value bucket whose keys expire unless renewed (``LEASE_BUCKET``);
- each table's stream as its workers numbered it (``STREAMS``): a worker taking a table over numbers on;
- the key with which the director seals what it tells the workers (``SEAL_BUCKET``).

Who may trust what (docs/security.md): a message that reaches a subscriber with NATS headers was delivered
by JetStream (a consumer, a direct get), never published by a process of the cluster, which sends none; such
a message is dropped, since JetStream republishes what its requester chose onto a subject of the requester's
choosing, and the NATS server checks no permission for that. Each role's replies come to inboxes of its own
(``_INBOX.ROLE.REALM.*``), which the NATS server lets no other role read; a realm's requests are answered only
on its own gateways' inbox. The bus's patterns are NATS's own subjects (``ANY`` is ``*``, ``REST`` is ``>``).
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable, Coroutine
from typing import Any

import nats
from nats.aio.client import Client as NatsClient
from nats.aio.msg import Msg
from nats.aio.subscription import Subscription
from nats.errors import NoRespondersError
from nats.errors import TimeoutError as NatsTimeout
from nats.js.api import DiscardPolicy, Header, KeyValueConfig, StorageType, StreamConfig
from nats.js.errors import BadRequestError, KeyNotFoundError, KeyWrongLastSequenceError, NotFoundError
from nats.js.kv import KeyValue

from server.cluster.bus import Answer, Bus, Lease, NoAnswer, Send, Stop
from server.cluster.launcher import shown
from server.cluster.schema import (
    LEASE_BUCKET, LEASE_SECONDS, REALM_PATTERN, REQUEST_SECONDS, SEAL_BUCKET, SEAL_KEY, STREAM_KEPT, STREAM_PREFIX,
    STREAM_SECONDS, STREAMS, realm_in, stream_subject,
)
from server.processes import GATEWAY_REALM, Role
from server.tournament.table_stream import last_seq_kept

logger = logging.getLogger("mttsim.bus")
SET_UP_SECONDS = 1.0  # how often a worker looks for what the director sets up, while it is not there
NO_RESPONDERS = "503"  # the status of the NATS server's own answer to a request nobody listens for


def realm_of(url: str) -> str:
    """The realm of a gateway connecting with ``url``: its user, which must be one token of a subject."""
    first = urllib.parse.urlsplit(url.split(",")[0])
    user = first.username
    if user is None or first.password is None:
        return GATEWAY_REALM  # a bare user in the URL is a token
    if not REALM_PATTERN.fullmatch(user):
        raise ValueError(f"a gateway's NATS user is its realm, one token of a subject: letters, digits, - and _, "
                         f"not {user!r}")
    return user


def inbox_of_realm(subject: str) -> str:
    """Where the answer to a request on a realm's subject must go: that realm's gateways' own inbox, which
    NATS lets no other user read."""
    return f"_INBOX.gateway.{realm_in(subject)}"


def delivered_by_jetstream(message: Msg) -> bool:
    """A message with headers: no process of the cluster sends any (see the module's docstring)."""
    if message.headers:
        logger.warning("a message on %s with headers (delivered by JetStream, not sent by the cluster) was dropped",
                       message.subject)
        return True
    return False


class NatsTransport:
    """A NATS server's address, with the role's user and password (or a token) in it."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.realm = realm_of(url)

    def shown(self) -> str:
        return shown(self.url)

    async def connect(self, role: Role, round_trip: Callable[[float], None] | None = None) -> NatsBus:
        """Connected as ``role``, whose replies come to inboxes of its own. A gateway touches no lease, no table
        stream and nothing of JetStream; the director sets up what the workers use, and a worker waits for it."""
        inbox = f"_INBOX.{role}.{self.realm}" if role == "gateway" else f"_INBOX.{role}"
        client = await nats.connect(self.url, name=f"mttsim-{role}", max_reconnect_attempts=-1,
                                    reconnect_time_wait=0.5, inbox_prefix=inbox)
        if role == "gateway":
            return NatsBus(client, role, self.realm, None, None, round_trip)
        js = client.jetstream()
        key = await _set_up(js) if role == "director" else await _sealing_key(js)
        # Bound by name rather than looked up: a lookup is a JetStream request a worker has no right to.
        leases = KeyValue(name=LEASE_BUCKET, stream=f"KV_{LEASE_BUCKET}", pre=f"$KV.{LEASE_BUCKET}.", js=js,
                          direct=False)
        return NatsBus(client, role, role, leases, key, round_trip)


class NatsBus(Bus):
    """A NATS connection: requests timed, notices batched, leases in a key-value bucket, streams in JetStream."""

    def __init__(self, client: NatsClient, role: Role, realm: str, leases: KeyValue | None, key: bytes | None,
                 round_trip: Callable[[float], None] | None = None) -> None:
        super().__init__(role, realm, key, round_trip)
        self.client = client
        self.leases = leases
        self._flush: asyncio.Task[None] | None = None
        self._answering: set[asyncio.Task[None]] = set()  # requests answered in pieces, each in a task
        # The inboxes of answers in pieces not read to their end: one its reader left (a gateway's HTTP client
        # that hung up mid-body) would hold ``drain`` for its whole timeout (30 s) when the bus closes.
        self._unread: set[Subscription] = set()

    async def close(self) -> None:
        if self._flush is not None:
            await self._flush
        while self._unread:
            await self._unread.pop().unsubscribe()
        for task in list(self._answering):
            task.cancel()
        await asyncio.gather(*self._answering, return_exceptions=True)
        try:
            await self.client.drain()
        except nats.errors.Error:  # the NATS server is gone or reconnecting: nothing left to deliver
            await self.client.close()

    async def last_seq(self, tournament: str, table: int) -> int:
        try:
            # Read directly from the stream: through JetStream's API, two thousand tables taken at once queued
            # ahead of the lease creations, which that API serves one at a time.
            kept = await self.client.jetstream().get_last_msg(STREAMS, stream_subject(tournament, table), direct=True)
        except NotFoundError:
            return 0
        return last_seq_kept(kept.data or b"")

    async def request(self, subject: str, payload: bytes, timeout: float = REQUEST_SECONDS) -> bytes:
        if not self.may_publish_on(subject):
            raise NoAnswer(f"{self.role} may not ask on {subject}")
        started = time.perf_counter()
        try:
            answer = await self.client.request(subject, payload, timeout=timeout)
        except (NatsTimeout, NoRespondersError) as error:
            raise NoAnswer(f"nobody answered on {subject}") from error
        self.answered_since(started)
        return answer.data

    def publish(self, subject: str, payload: bytes) -> None:
        if self.queued(subject, payload):
            self._flush = asyncio.get_running_loop().create_task(self._send())

    async def _send(self) -> None:
        await asyncio.sleep(0)  # the rest of this turn's notices join
        pending, self._flush = self.taken(), None
        try:
            for subject, payload in pending:
                await self.client.publish(subject, payload)
        except (nats.errors.ConnectionClosedError, nats.errors.ConnectionDrainingError):
            pass  # the process stops: what it had still to say is lost with it, as it would be a moment later

    async def serve(self, pattern: str, answer: Answer, *, own_realm: bool = False) -> None:
        self.may_listen_on(pattern)

        async def reply(message: Msg) -> None:
            if self._admitted(message, own_realm) and (answered := answer(message.subject, message.data)) is not None:
                await message.respond(answered)

        await self.client.subscribe(pattern, cb=reply)

    async def serve_tasks(self, pattern: str, answer: Callable[[bytes, Send], Coroutine[Any, Any, None]], *,
                          own_realm: bool = False) -> None:
        self.may_listen_on(pattern)

        async def start(message: Msg) -> None:
            if not self._admitted(message, own_realm):
                return

            async def send(data: bytes) -> None:
                await self.client.publish(message.reply, data)

            task = asyncio.get_running_loop().create_task(answer(message.data, send))
            self._answering.add(task)
            task.add_done_callback(self._answering.discard)

        await self.client.subscribe(pattern, cb=start)

    @staticmethod
    def _admitted(message: Msg, own_realm: bool) -> bool:
        if delivered_by_jetstream(message):
            return False
        if own_realm and not message.reply.startswith(f"{inbox_of_realm(message.subject)}."):
            logger.warning("a request on %s whose answer would go to %r, not its sender's inbox, was refused",
                           message.subject, message.reply)
            return False
        return True

    async def ask_in_pieces(self, subject: str, payload: bytes,
                            timeout: float = REQUEST_SECONDS) -> tuple[bytes, AsyncIterator[bytes]]:
        if not self.may_publish_on(subject):
            raise NoAnswer(f"{self.role} may not ask on {subject}")
        inbox = self.client.new_inbox()
        subscription = await self.client.subscribe(inbox)
        try:
            await self.client.publish(subject, payload, reply=inbox)
            started = time.perf_counter()
            try:
                first = await subscription.next_msg(timeout)
            except NatsTimeout as error:
                raise NoAnswer(f"nobody answered on {subject}") from error
            if first.headers and first.headers.get(Header.STATUS) == NO_RESPONDERS:
                # ``request`` raises this itself; a bare inbox sees an empty message with the status
                raise NoAnswer(f"nobody serves {subject}")
            self.answered_since(started)
        except BaseException:
            await subscription.unsubscribe()
            raise

        self._unread.add(subscription)

        async def rest() -> AsyncIterator[bytes]:
            try:
                while data := (await subscription.next_msg(timeout)).data:
                    yield data
            finally:
                if subscription in self._unread:
                    self._unread.discard(subscription)
                    await subscription.unsubscribe()

        return first.data, rest()

    async def listen_from(self, pattern: str, heard: Callable[[str, bytes], None]) -> Stop:
        self.may_listen_on(pattern)

        async def on_message(message: Msg) -> None:
            if not delivered_by_jetstream(message):
                heard(message.subject, message.data)

        subscription = await self.client.subscribe(pattern, cb=on_message)
        return subscription.unsubscribe

    @property
    def _leases(self) -> KeyValue:
        if self.leases is None:
            raise RuntimeError("a gateway's bus holds no lease")
        return self.leases

    async def acquire(self, key: str, holder: str) -> Lease | None:
        try:
            return Lease(key, await self._leases.create(key, holder.encode()))
        except KeyWrongLastSequenceError:
            return None

    async def renew(self, lease: Lease, holder: str) -> bool:
        try:
            lease.revision = await self._leases.update(lease.key, holder.encode(), last=lease.revision)
        except (KeyWrongLastSequenceError, KeyNotFoundError):
            return False
        return True

    async def release(self, lease: Lease) -> None:
        """A deletion under a stale revision (a renewal in flight) is refused with a bare ``BadRequestError``
        (code 10071): nats-py names it ``KeyWrongLastSequenceError`` for an update, not for a delete. Left to
        rise, it stopped the worker and every table it held."""
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
        except (NotFoundError, NoRespondersError, NatsTimeout):
            pass
        logger.warning("waiting for the director to set up the bus")
        await asyncio.sleep(SET_UP_SECONDS)
