"""The cluster's bus as one interface (docs/deployment.md): what the director process, its table workers and its
gateways say to one another, in our own words, whatever carries it.

Two forms pass one contract (tests/test_bus_contract.py): ``NatsBus``, over
a NATS server with JetStream, for a cluster of processes; and ``MemoryBus``
(server/cluster/memorybus.py), in one
process, for ``mttsim cluster --bus memory`` and the tests. A role never sees
past this module: it is handed a ``Transport`` when it is built, as a
tournament is handed its placement, and meets no error or wildcard of the
form underneath. A new backend is one module with a ``Transport`` and a
``Bus`` that pass the contract.

What a bus carries:
- notices (``publish``), those of one turn of the event loop leaving together, never awaited by the caller;
- requests, answered by one message (``request``/``serve``) or in pieces (``ask_in_pieces``/``serve_tasks``);
- listening by subject pattern (``listen_from``): a pattern's token ``ANY`` stands for any one token, and a
  last token ``REST`` for one or more;
- the leases by which workers own tables: a key per table, created by one worker only, expiring unless renewed
  within ``LEASE_SECONDS``; its creation's revision is the lease's epoch, by which the director fences off an
  older holder;
- each table's stream, as its workers numbered it: ``last_seq`` is where a worker taking a table over numbers on;
- the director's seal: what it tells the tables and the workers is sealed with a key the director and the
  workers hold and a gateway never does (``publish_sealed``/``listen_sealed``).

Who may say what (docs/security.md) is each form's to enforce, by the same table (``rights``): a role publishes
and listens only on the subjects of its role, and a gateway only on its own realm's.
"""

from __future__ import annotations

import hashlib
import hmac
import logging
import secrets
import struct
import time
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from typing import Any, NamedTuple, Protocol

from server.cluster.schema import (
    COMMANDS, NOTICES, REQUEST_SECONDS, STREAM_PREFIX, TABLES, beat_for, http_for, sockets_for,
)
from server.processes import Role

logger = logging.getLogger("mttsim.bus")
ANY = "*"  # a pattern's token that stands for any one token
REST = ">"  # a pattern's last token that stands for one token or more

Answer = Callable[[str, bytes], bytes | None]
Send = Callable[[bytes], Awaitable[None]]
Stop = Callable[[], Awaitable[None]]


class BusError(Exception):
    """The bus could not do what was asked."""


class NoAnswer(BusError):
    """A request nobody answered: nobody serves its subject, or not in time (the director starts, or is gone)."""


class NotAllowed(BusError):
    """The role may not listen on that subject."""


def matches(pattern: str, subject: str) -> bool:
    """Whether ``subject`` is one of ``pattern``'s (``ANY`` one token, a last ``REST`` one or more)."""
    wanted, tokens = pattern.split("."), subject.split(".")
    for index, token in enumerate(wanted):
        if token == REST and index == len(wanted) - 1:
            return len(tokens) > index
        if index >= len(tokens) or token not in (ANY, tokens[index]):
            return False
    return len(tokens) == len(wanted)


def rights(role: Role, realm: str = "") -> tuple[list[str], list[str]]:
    """What a role may publish (and ask) on, and listen (and serve) on, of the cluster's own subjects: least
    privilege. The director speaks to the tables and the clients; a worker asks the director, numbers the streams
    and writes its tables' clients' frames; a gateway, the edge that faces the Internet, speaks only on its own
    realm's subjects and hears only its own clients' frames. A form adds what its own machinery needs (the NATS
    form, JetStream's subjects and reply inboxes: server/cluster/launcher.py)."""
    if role == "director":
        return ["mttsim.table.>", NOTICES, "mttsim.frames.>"], ["mttsim.director.>", "mttsim.frames.>"]
    if role == "tables":
        return [COMMANDS, TABLES, "mttsim.frames.>", f"{STREAM_PREFIX}.>"], \
            [NOTICES, "mttsim.table.>", "mttsim.decisions.>"]
    return [sockets_for(realm), http_for(realm), beat_for(realm), f"mttsim.decisions.{realm}.>"], \
        [f"mttsim.frames.gateway.{realm}.>"]


def allowed(patterns: list[str], subject: str) -> bool:
    """Whether ``subject`` (a pattern itself, when listening) falls under one of ``patterns``."""
    return any(matches(pattern, subject) for pattern in patterns)


class Stamp(NamedTuple):
    """Who sealed a message and when: the sealing connection (random, new at each start), its count of sealed
    messages, and its wall clock. The seal covers it, so that a message captured and sent again is recognised."""

    sender: bytes
    seq: int
    sent: float


_STAMP = struct.Struct(">8sQd")
SEAL_BYTES = 32 + _STAMP.size  # HMAC-SHA256, then the stamp
SEAL_MAX_AGE = 60.0  # seconds a sealed message may be old (or early: the hosts' clocks may differ) to be heard


def _mac(key: bytes, subject: str, stamp: bytes, body: bytes) -> bytes:
    """The seal of ``body`` for ``subject``: it holds for this subject only, so that a batch for one table cannot
    be sent to another. Hashed in steps: a batch is not copied to be sealed."""
    mac = hmac.new(key, subject.encode() + b" ", hashlib.sha256)
    mac.update(stamp)
    mac.update(body)
    return mac.digest()


def seal(key: bytes, subject: str, body: bytes, stamp: Stamp) -> bytes:
    """``body`` with the director's seal and its stamp before it."""
    packed = _STAMP.pack(*stamp)
    return _mac(key, subject, packed, body) + packed + body


def unseal(key: bytes, subject: str, data: bytes) -> tuple[Stamp, bytes] | None:
    """The stamp and the body of a sealed message, or None if the director did not write it for ``subject``."""
    if len(data) < SEAL_BYTES:
        return None
    packed, body = data[32:SEAL_BYTES], data[SEAL_BYTES:]
    if not hmac.compare_digest(data[:32], _mac(key, subject, packed, body)):
        return None
    return Stamp(*_STAMP.unpack(packed)), body


class Freshness:
    """What a listener last heard sealed on each subject, so that nothing sealed is heard twice: from one sender
    each message must come after the last, a new sender (the director started again) must not be older than the
    last, and nothing older or earlier than ``SEAL_MAX_AGE`` is heard at all."""

    def __init__(self) -> None:
        self.last: dict[str, Stamp] = {}

    def fresh(self, subject: str, stamp: Stamp, now: float) -> bool:
        if abs(now - stamp.sent) > SEAL_MAX_AGE:
            return False
        last = self.last.get(subject)
        if last is not None and (stamp.seq <= last.seq if stamp.sender == last.sender else stamp.sent < last.sent):
            return False
        self.last[subject] = stamp
        return True


class Lease:
    """A table's lease held by this process: its epoch, and the revision its next renewal must follow."""

    __slots__ = ("key", "epoch", "revision")

    def __init__(self, key: str, revision: int) -> None:
        self.key = key
        self.epoch = revision
        self.revision = revision


class Bus(ABC):
    """One process's connection to the cluster's bus, as its role."""

    def __init__(self, role: Role, realm: str, key: bytes | None, round_trip: Callable[[float], None] | None) -> None:
        self.role = role
        self.realm = realm
        self.key = key  # the seal's, which a gateway never holds
        self.round_trip = round_trip  # observes each request's seconds (the metrics' histogram)
        # Checked here as well as by the form's server (the NATS server's permissions): a role's own mistake is
        # a clear error in our words, and a form without a server of its own enforces them all the same.
        self.may_publish, self.may_listen = rights(role, realm)
        self._pending: list[tuple[str, bytes]] = []  # this turn's notices, which leave together
        self._sender = secrets.token_bytes(8)  # this connection's mark on what it seals
        self._sealed = 0  # what it sealed so far
        self._freshness = Freshness()  # what it heard sealed, on every subject it listens to sealed

    def queued(self, subject: str, payload: bytes) -> bool:
        """Queue a notice this role may publish; True when it is the turn's first, so that the form sends the
        turn's notices once it ends."""
        if not self.may_publish_on(subject):
            return False
        self._pending.append((subject, payload))
        return len(self._pending) == 1

    def taken(self) -> list[tuple[str, bytes]]:
        """The notices queued so far, to send now; the next one queued starts another turn's."""
        pending, self._pending = self._pending, []
        return pending

    def answered_since(self, started: float) -> None:
        """A request's round trip, from ``started`` (``time.perf_counter``) to its (first) answer, observed."""
        if self.round_trip is not None:
            self.round_trip(time.perf_counter() - started)

    def may_publish_on(self, subject: str) -> bool:
        """Whether this role may publish (or ask) on ``subject``; one that may not is logged, and dropped."""
        if allowed(self.may_publish, subject):
            return True
        logger.warning("%s (%s) may not publish on %s: dropped", self.role, self.realm, subject)
        return False

    def may_listen_on(self, pattern: str) -> None:
        """``NotAllowed`` unless this role may listen (or serve) on every subject of ``pattern``."""
        if not allowed(self.may_listen, pattern):
            raise NotAllowed(f"{self.role} ({self.realm}) may not listen on {pattern}")

    @abstractmethod
    async def close(self) -> None:
        """What was published leaves; then the connection ends."""

    @abstractmethod
    def publish(self, subject: str, payload: bytes) -> None:
        """Queue a notice; those of one turn of the event loop leave together, never awaited by the caller."""

    @abstractmethod
    async def request(self, subject: str, payload: bytes, timeout: float = REQUEST_SECONDS) -> bytes:
        """The answer to ``payload``; ``NoAnswer`` when nobody answers within ``timeout``."""

    @abstractmethod
    async def ask_in_pieces(self, subject: str, payload: bytes,
                            timeout: float = REQUEST_SECONDS) -> tuple[bytes, AsyncIterator[bytes]]:
        """A request answered by several messages: the first, and the rest until an empty one."""

    @abstractmethod
    async def serve(self, pattern: str, answer: Answer, *, own_realm: bool = False) -> None:
        """Answer requests on subjects of ``pattern`` with ``answer`` (synchronous: it never interleaves with
        another), given the subject each came on; None answers nothing. With ``own_realm``, only a request from a
        gateway of the realm the subject names is answered: this process, which may publish where its askers may
        not, is no relay for them."""

    @abstractmethod
    async def serve_tasks(self, pattern: str, answer: Callable[[bytes, Send], Coroutine[Any, Any, None]], *,
                          own_realm: bool = False) -> None:
        """Answer each request on ``pattern`` in a task of its own, in as many messages as ``answer`` sends."""

    @abstractmethod
    async def listen_from(self, pattern: str, heard: Callable[[str, bytes], None]) -> Stop:
        """Call ``heard`` with the subject and the data of each message on ``pattern``; returns how to stop."""

    @abstractmethod
    async def last_seq(self, tournament: str, table: int) -> int:
        """The number of the last message of the table's stream that the bus kept, 0 if none."""

    @abstractmethod
    async def acquire(self, key: str, holder: str) -> Lease | None:
        """The lease on ``key`` if nobody holds it; its creation revision is the epoch."""

    @abstractmethod
    async def renew(self, lease: Lease, holder: str) -> bool:
        """False if the lease expired or another took it: the table is no longer ours."""

    @abstractmethod
    async def release(self, lease: Lease) -> None:
        """Let go of ``lease`` now rather than when it expires; one that cannot be let go expires all the same."""

    async def listen(self, subject: str, heard: Callable[[bytes], None]) -> Stop:
        """Call ``heard`` with each message on ``subject``; returns how to stop."""
        return await self.listen_from(subject, lambda _, data: heard(data))

    def publish_sealed(self, subject: str, payload: bytes) -> None:
        """A notice only the director may send: sealed with the key a gateway never holds, and stamped."""
        assert self.key is not None, "only the director and the workers hold the key"
        self._sealed += 1
        self.publish(subject, seal(self.key, subject, payload, Stamp(self._sender, self._sealed, time.time())))

    async def listen_sealed(self, pattern: str, heard: Callable[[bytes], None]) -> Stop:
        """Call ``heard`` with each message on ``pattern`` that the director sealed, once; log and drop the rest
        (a forgery, or a sealed message sent again)."""
        key = self.key
        assert key is not None, "only the director and the workers hold the key"
        freshness = self._freshness

        def opened(actual: str, data: bytes) -> None:
            unsealed = unseal(key, actual, data)
            if unsealed is None:
                logger.warning("a message on %s that the director did not seal was dropped", actual)
            elif not freshness.fresh(actual, unsealed[0], time.time()):
                logger.warning("a sealed message on %s heard before, or too old, was dropped", actual)
            else:
                heard(unsealed[1])

        return await self.listen_from(pattern, opened)


class Transport(Protocol):
    """How the processes of one cluster reach its bus, chosen when a role is built: a NATS server's address
    (``NatsTransport``), or a broker in this process (``MemoryTransport``)."""

    @property
    def realm(self) -> str:
        """The realm a gateway connecting through this transport speaks for."""

    def shown(self) -> str:
        """Where the bus is, without a secret, to print or log."""

    async def connect(self, role: Role, round_trip: Callable[[float], None] | None = None) -> Bus: ...
