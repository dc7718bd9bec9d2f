"""The cluster's messages and subjects, whatever bus carries them (docs/deployment.md): what one tournament's
tables hand out and take back (``HandOut``, ``HandBack``, ``TableState``) is read here by a plain ``mttsim serve``
too, which never imports a bus (server/cluster/bus.py).

Everything crosses as small msgspec Structs encoded with MessagePack:
- a worker's commands for a table (``TableCommand``), by request and reply to the director;
- the director's notices to the workers (``TableState``), every table's of one turn of its event loop in one
  message: when a hand-for-hand round opens, two thousand tables are told at once;
- what the director says to a table (``TableBatch``: a hand dealt, its clients, its stream's messages, their
  snapshots and decisions), on the table's own subject, which the worker holding its lease listens to;
- a gateway's clients' decisions, on a subject of its realm (``decisions_for``);
- the frames for a gateway's clients (``ToGateway``), from the director and from the workers;
- the tables to play, by request and reply.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Literal, Protocol, TypeAlias

import msgspec

from engine.wire import Act
from server.tournament.remote import HandBack, HandOut, TableState
from server.turns import TurnBatch

COMMANDS = "mttsim.director.tables"  # a worker's commands for its tables
TABLES = "mttsim.director.list"  # which tables there are
SOCKETS = "mttsim.director.sockets"  # .REALM: a gateway's clients: sessions opened, their messages, sessions closed
HTTP = "mttsim.director.http"  # .REALM: REST requests a gateway passes on; the answer comes back in pieces
BEAT = "mttsim.director.beat"  # .REALM: a gateway's heartbeat, by request: the director answers with its sessions
CHUNK_BYTES = 256 * 1024  # under the NATS form's default limit of a megabyte a message
LEASE_SECONDS = 4.0  # a dead worker's tables wait this long for another; a live one renews thrice as often
PROCESS_SECONDS = 3.0  # a process not heard from this long is no longer listed (it beats every second)
REQUEST_SECONDS = 5.0
CLOSE_SESSION_LOST = 1012  # RFC 6455's "service restart": a gateway's client whose session is gone reconnects


LEASE_BUCKET = "mttsim_leases"
SEAL_BUCKET, SEAL_KEY = "mttsim_seal", "key"  # the director's key, which the workers alone may read
STREAMS = "MTTSIM_TABLES"  # the JetStream stream of every table's stream
STREAM_PREFIX = "mttsim.stream"
STREAM_KEPT = 1_000  # messages kept a table: each the lines of one turn of its worker's event loop
STREAM_SECONDS = 3600.0
NOTICES = "mttsim.notices"  # what changed at the tables, for the workers holding them
NOTICES_PER_MESSAGE = 5_000  # about 150 kB


# The bus's words, checked by mypy where they are written and by msgspec where they are read: a typo is an error
# at the desk, and a message with a word outside them is malformed (refused with a log line), never a KeyError.
SocketKind: TypeAlias = Literal["open", "in", "gone"]


def frames_for(process: str) -> str:
    """Where the frames for a process's clients go (a gateway's, or the director's own)."""
    return f"mttsim.frames.{process}"


# A gateway's realm is the user it connects to the bus as (docs/deployment.md): what its clients do leaves on
# subjects ending in its realm, which the bus lets only that user publish on, so that a gateway speaks for its own
# clients alone. Its process id begins with it, and so does the subject of its clients' frames.
DECISIONS_PREFIX = "mttsim.decisions."
REALM_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,64}")  # a realm is one token of a subject


def in_realm(realm: str, process: str) -> bool:
    """Whether ``process`` (a gateway's id, as a message names it) is a gateway of ``realm``."""
    return process.startswith(f"gateway.{realm}.")


def sockets_for(realm: str) -> str:
    return f"{SOCKETS}.{realm}"


def http_for(realm: str) -> str:
    return f"{HTTP}.{realm}"


def beat_for(realm: str) -> str:
    return f"{BEAT}.{realm}"


def decisions_for(realm: str, table: str) -> str:
    """Where a realm's gateways send their clients' decisions at ``table`` (its ``table_subject``; ``*`` for any
    realm), for the worker holding it. Never the table's own subject, on which the director alone may speak."""
    return f"{DECISIONS_PREFIX}{realm}.{table.removeprefix(TABLE_PREFIX)}"


def realm_in(subject: str) -> str:
    """The realm of a subject of ``sockets_for``, ``http_for``, ``beat_for`` or ``decisions_for``."""
    for prefix in (f"{SOCKETS}.", f"{HTTP}.", f"{BEAT}.", DECISIONS_PREFIX):
        if subject.startswith(prefix):
            return subject.removeprefix(prefix).split(".")[0]
    raise ValueError(f"{subject!r} is not a realm's subject")


class Heartbeat(msgspec.Struct, array_like=True):
    """The director's answer to a gateway's beat: who it is, and from which of the gateway's clients on it holds
    their sessions (``NO_SESSIONS``: none). A client numbered below that has no session any more (the gateway
    was taken for gone, or the director is new): the gateway closes it, and it reconnects to one."""

    director: str
    sessions_from: int


NO_SESSIONS = 2**62


class Listed(msgspec.Struct, array_like=True):
    """The director's answer to a worker's look for tables: every table to play, and how many workers are alive
    to share them (the asker counted)."""

    tables: list[tuple[str, int]]
    workers: int


class Notice(msgspec.Struct, array_like=True):
    tournament: str
    table: int
    state: TableState


class Take(msgspec.Struct, tag="take", array_like=True):
    """A worker took the table's lease with ``epoch``."""

    tournament: str
    table: int
    epoch: int


class Deal(msgspec.Struct, tag="deal", array_like=True):
    """The worker asks for the table's hand: the next one if it may deal, or the one out, sent again."""

    tournament: str
    table: int
    epoch: int


class End(msgspec.Struct, tag="end", array_like=True):
    """The hand the worker played, handed back."""

    tournament: str
    table: int
    epoch: int
    hand: HandBack


TableCommand: TypeAlias = Take | Deal | End  # a worker's, under its lease's epoch, answered with a TableState


TABLE_PREFIX = "mttsim.table."


def table_subject(tournament: str, table: int) -> str:
    """Where the director's batches for a table go, to the worker holding its lease."""
    return f"{TABLE_PREFIX}{tournament}.{table}"


def stream_subject(tournament: str, table: int | str) -> str:
    """A table's stream, as its workers wrote it: JetStream keeps it (``STREAMS``), and a worker that takes the
    table over numbers on from it."""
    return f"{STREAM_PREFIX}.{tournament}.{table}"


class Route(msgspec.Struct, array_like=True):
    """A client watching a table: the subject of its frames (its gateway's, or the director's for a client of
    the director's own), its number there, and its player (empty for an observer)."""

    subject: str
    number: int
    player: str = ""


class Adopt(msgspec.Struct, tag="adopt", array_like=True):
    """The table's clients, for a worker that has just taken its lease; their snapshots follow."""

    routes: list[Route]


class Publish(msgspec.Struct, tag="publish", array_like=True):
    """A message of the table's stream (encoded), for the worker to number; ``concerned`` hears it at once."""

    message: bytes
    concerned: str = ""


class Watching(msgspec.Struct, tag="watch", array_like=True):
    route: Route
    on: bool


class SnapshotFor(msgspec.Struct, tag="snapshot", array_like=True):
    """The director's snapshot for one client, for the worker to number and to complete with the hand."""

    route: Route
    snapshot: bytes


class Acted(msgspec.Struct, tag="act", array_like=True):
    """A player's decision as the client sent it (the turn it answers named), from the client at ``route``,
    which hears of a refusal."""

    route: Route
    decision: Act


class Back(msgspec.Struct, tag="back", array_like=True):
    player: str


class Closed(msgspec.Struct, tag="closed", array_like=True):
    """The table is gone (broken, or its tournament over): nothing follows what came before this. A worker told
    ``gone`` waits for it before it lets go, so that the table's last messages (the finish) reach its clients."""


ToTable = HandOut | Adopt | Publish | Watching | SnapshotFor | Acted | Back | Closed


ANY_HOLDER = 0  # a TableBatch's epoch from a gateway, which knows no lease: decisions only, for whoever holds it


class TableBatch(msgspec.Struct, array_like=True):
    """What one turn of the director's event loop sends a table, under the epoch of the lease it knows; or a
    gateway's client's decision, under ``ANY_HOLDER``."""

    epoch: int
    items: list[ToTable]


class ToDirector(msgspec.Struct, array_like=True):
    """From a gateway: a client's session opened (``open``: ``tournament`` empty for the lobby), a message it
    sent (``in``), or its socket gone (``gone``)."""

    kind: SocketKind
    gateway: str
    conn: int
    data: bytes = b""
    tournament: str = ""
    query: dict[str, str] = {}


class ToGateway(msgspec.Struct, array_like=True):
    """To a gateway: messages, one a line, at once to its clients ``now`` and with the broadcast tick to those
    ``later``: one client's own, or a table's for every client of the gateway watching it. ``close`` closes the
    socket of the one client ``now`` after its lines. ``player`` (the director's word): the one client ``now``
    plays as ``player`` at the table whose subject is ``table`` (none if empty), where the gateway sends its
    decisions."""

    now: list[int]
    lines: list[bytes] = []
    later: list[int] = []
    close: int = 0
    reason: str = ""
    table: str = ""
    player: str = ""


class Publisher(Protocol):
    """Where frames leave: ``server.cluster.bus.Bus``, whose publishes of one turn of the event loop leave together."""

    def publish(self, subject: str, payload: bytes) -> None: ...


class Frames:
    """What waits to go to one gateway's clients (or the director's own), in order: a table's message once for
    all of them, and what one turn of the event loop queued in one bus message (or a few, under
    ``CHUNK_BYTES`` each).

    The director's sends pass ``before``, its journal's commit: nothing leaves that a crash could take back.
    """

    def __init__(self, bus: Publisher, subject: str, before: Callable[[], None] = lambda: None) -> None:
        self.bus = bus
        self.subject = subject
        self.before = before
        self.pending: TurnBatch[ToGateway] = TurnBatch(self._publish, CHUNK_BYTES)

    def send(self, number: int, message: bytes, urgent: bool) -> None:
        if urgent:
            self.broadcast(message, [number], [])
        else:
            self.broadcast(message, [], [number])

    def broadcast(self, message: bytes, now: list[int], later: list[int]) -> None:
        """``message`` to the clients ``now`` and ``later``; the messages in a row to the same clients share a
        frame (a player's turn follows the last action at their table)."""
        queued = self.pending.items
        last = queued[-1] if queued else None
        if last is not None and not last.close and last.now == now and last.later == later:
            last.lines.append(message)
            self.pending.grow(len(message) + 8)
        else:
            self.frame(ToGateway(now, [message], later))

    def frame(self, frame: ToGateway) -> None:
        self.pending.add(frame, sum(len(line) + 8 for line in frame.lines) + 8 * (len(frame.now) + len(frame.later)))

    def flush(self) -> None:
        self.pending.flush()

    def _publish(self, frames: list[ToGateway]) -> None:
        self.before()
        self.bus.publish(self.subject, msgspec.msgpack.encode(frames))


class Client(Protocol):
    """A client's outbox (server/hub.py's ``Connection``)."""

    def send(self, message: bytes, *, urgent: bool = True) -> None: ...

    def flush(self) -> None: ...

    def drop(self, code: int, reason: str) -> None: ...


def deliver(frames: list[ToGateway], clients: Mapping[int, Client]) -> int:
    """Frames to the clients they name: into each one's outbox, for the broadcast tick or, to those ``now``,
    the end of this turn of the event loop. Returns the lines handed out."""
    sent = 0
    for frame in frames:
        for numbers, urgent in ((frame.now, True), (frame.later, False)):
            for number in numbers:
                client = clients.get(number)
                if client is not None:
                    sent += len(frame.lines)
                    for line in frame.lines:
                        client.send(line, urgent=urgent)
        if frame.close and (closed := clients.get(frame.now[0])) is not None:
            closed.flush()
            closed.drop(frame.close, frame.reason)
    return sent


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


