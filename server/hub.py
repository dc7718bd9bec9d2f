"""Websocket clients: what waits to be sent to each, and a way around ASGI for the table streams.

A table encodes each message once and hands the same bytes to every client
watching it; ``Connection.send`` never waits. What a client has to answer,
or what answers it (its turn, its own action, an offer, a snapshot, an
error), leaves at once (within ``Outbound.gather`` seconds under load); the
rest (other players' actions at its table, observers' streams) waits for the
next broadcast tick, at most ``Outbound.tick`` seconds. Messages that leave together leave in one
frame, one JSON message per line: every frame is a write to the socket, and
those writes were most of the server's time under a swarm
(docs/performance.md).

A connection writes through a ``Wire`` (server/api/socketwire.py's protocol, on
uvicorn's socket), which this module knows only as a protocol: one tournament
imports no web server.

A client that falls ``max_queue`` messages behind (its socket stopped taking
data) is dropped and closed with code 4008. Incoming messages are limited in
size (``MAX_MESSAGE_BYTES``, close code 1009) and rate (a token bucket, close
code 1008).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Protocol

MAX_FLUSHES_PER_TURN = 1_000  # clients written to per turn of the event loop
CLOSE_TOO_SLOW = 4008
CLOSE_TOO_BIG = 1009
CLOSE_FLOOD = 1008
CLOSE_INTERNAL = 1011
CLOSE_TRY_AGAIN_LATER = 1013
logger = logging.getLogger("mttsim.server")


class RateLimit:
    """A token bucket: ``rate`` messages a second on average, bursts up to ``burst``."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = float(burst)
        self.last = time.monotonic()

    def allow(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.last) * self.rate)
        self.last = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


class Outbound:
    """When messages leave: at once (at the end of this turn of the event loop, or ``gather`` seconds after
    the last time urgent messages left, when that is later), or with the next broadcast tick.

    Before anything leaves, ``before`` runs: the journal commits what caused
    it, so no client ever sees what a crash could take back. Under load the
    ``gather`` window lets one commit and one pass cover many decisions (a
    commit per decision was a quarter of the server's time at 5,000
    decisions a second); an idle server sends at once. The tick is armed
    only while some client is waiting, so an idle server does not tick.
    """

    def __init__(self, tick: float, before: Callable[[], None], gather: float = 0.002,
                 waited: Callable[[float], None] | None = None, flushed: Callable[[int], None] | None = None) -> None:
        """``waited`` hears, at each send pass, how long its oldest message waited, and ``flushed`` how many
        frames it wrote (server/api/metrics.py)."""
        self.tick = tick
        self.before = before
        self.gather = gather
        self.waited = waited
        self.flushed = flushed
        self._now_since = self._later_since = 0.0  # when the first client now waiting began to
        self._now: set[SocketConnection] = set()
        self._later: set[SocketConnection] = set()
        self._soon: asyncio.Handle | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._last_now = 0.0

    def now(self, connection: SocketConnection) -> None:
        if not self._now:
            self._now_since = time.monotonic()
        self._now.add(connection)
        if self._soon is None:
            loop = asyncio.get_running_loop()
            wait = self._last_now + self.gather - loop.time()
            self._soon = loop.call_soon(self._flush_now) if wait <= 0 else loop.call_later(wait, self._flush_now)

    def later(self, connection: SocketConnection) -> None:
        if not self._later:
            self._later_since = time.monotonic()
        self._later.add(connection)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._flush_later)

    def _flush_now(self) -> None:
        self._soon = None
        self._last_now = asyncio.get_running_loop().time()
        waiting, self._now = self._now, set()
        self._waited(self._now_since)
        self._write(waiting)

    def _flush_later(self) -> None:
        self._timer = None
        waiting, self._later = self._later, set()
        self._waited(self._later_since)
        self._write(waiting)

    def _waited(self, since: float) -> None:
        if self.waited is not None and since:
            self.waited(time.monotonic() - since)

    def tick_now(self) -> None:
        """The broadcast tick, now: what waits for it leaves (a test's way to be the clock)."""
        if self._timer is not None:
            self._timer.cancel()
        self._flush_later()

    def _write(self, waiting: set[SocketConnection] | list[SocketConnection]) -> None:
        """Flush the waiting clients, ``MAX_FLUSHES_PER_TURN`` per turn of the event loop.

        A tournament-wide event reaches every client: 10,000 writes in one
        turn would stop the tables for tens of milliseconds. A client's
        messages keep their order whichever flush takes them.
        """
        self.before()
        clients = list(waiting)
        batch = clients[:MAX_FLUSHES_PER_TURN]
        if self.flushed is not None:
            self.flushed(sum(1 for connection in batch if connection.outbox))  # each writes its outbox as a frame
        for connection in batch:
            connection.flush()
        if len(clients) > MAX_FLUSHES_PER_TURN:
            asyncio.get_running_loop().call_soon(self._write, clients[MAX_FLUSHES_PER_TURN:])


class Wire(Protocol):
    """Where a connection's frames go: its socket here (``WebSocketProtocol``), or a cluster's gateway."""

    @property
    def paused(self) -> bool: ...

    def write_lines(self, messages: list[bytes]) -> bool: ...


class Relay(Protocol):
    """A cluster's gateway, where some clients' sockets are (server/cluster/service.py).

    What such a client is sent goes to its gateway at once and in order,
    with no outbox here: the client's outbox, the broadcast tick and the drop
    of a slow reader are the gateway's. A table's message goes there once,
    with the numbers of the gateway's clients watching the table, rather
    than once a client.
    """

    def send(self, number: int, message: bytes, urgent: bool) -> None: ...

    def broadcast(self, message: bytes, now: list[int], later: list[int]) -> None: ...


class Connection:
    """One client: who it is, which table it watches, and how what it is sent leaves: a socket here
    (``SocketConnection``) or at a cluster's gateway (``RelayedConnection``)."""

    def __init__(self, close: Callable[[int, str], Awaitable[None]], *, player: str | None, rate: float,
                 burst: int, number: int = 0) -> None:
        self.close = close  # closes the socket with a code and a reason
        self.number = number  # its number where its frames go (its gateway, or the director's own clients)
        self.player = player
        self.table: int | None = None
        self.rate_limit = RateLimit(rate, burst)
        self.closed = False
        self.close_code: int | None = None
        self.ended = asyncio.get_running_loop().create_future()  # done when the socket is gone or dropped
        self._closing: asyncio.Task[None] | None = None

    def send(self, message: bytes, *, urgent: bool = True) -> None:
        """Queue a message without waiting: to leave at once when ``urgent``, else with the next tick."""
        raise NotImplementedError

    def lost(self) -> None:
        """The socket is gone."""
        self.closed = True
        if not self.ended.done():
            self.ended.set_result(None)

    def drop(self, code: int, reason: str) -> None:
        """Stop sending and close the socket, without waiting on a peer that may not be reading."""
        if self.closed:
            return
        self.close_code = code
        self.lost()
        self._closing = asyncio.create_task(self._close(code, reason))

    async def stop(self) -> None:
        """The handler ends: let a close frame in flight go out first."""
        self.closed = True
        if self._closing is not None:
            # A cancellation of the handler travels on; the close's own failure (a peer gone) is no news.
            await asyncio.wait([self._closing])
            if not self._closing.cancelled():
                self._closing.exception()  # retrieved: the task's failure is not logged as never retrieved

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.close(code, reason), 2.0)


class SocketConnection(Connection):
    """A client whose socket is in this process: an outbox, written as one frame a flush, and dropped when it
    falls ``max_queue`` messages behind."""

    def __init__(self, close: Callable[[int, str], Awaitable[None]], wire: Wire | None, *, player: str | None,
                 outbound: Outbound, max_queue: int, rate: float, burst: int) -> None:
        super().__init__(close, player=player, rate=rate, burst=burst)
        self.wire = wire
        self.outbound = outbound
        self.max_queue = max_queue
        self.outbox: list[bytes] = []

    def send(self, message: bytes, *, urgent: bool = True) -> None:
        """A client whose outbox is full is dropped."""
        if self.closed:
            return
        if len(self.outbox) >= self.max_queue:
            self.drop(CLOSE_TOO_SLOW, "too slow: the outbound queue is full")
            return
        self.outbox.append(message)
        if urgent:
            self.outbound.now(self)
        else:
            self.outbound.later(self)

    def flush(self) -> None:
        """Write what waits, as one frame; a peer that is not reading keeps it waiting."""
        if self.closed or not self.outbox or self.wire is None or self.wire.paused:
            return
        outbox, self.outbox = self.outbox, []
        if not self.wire.write_lines(outbox):
            self.lost()

    def drop(self, code: int, reason: str) -> None:
        if not self.closed:
            self.outbox.clear()
        super().drop(code, reason)


class RelayedConnection(Connection):
    """A client whose socket is at a cluster's gateway (``relay``), where it is ``number``: what it is sent goes
    there at once and in order; its outbox, the broadcast tick and the drop of a slow reader are the gateway's."""

    def __init__(self, close: Callable[[int, str], Awaitable[None]], relay: Relay, number: int, *,
                 player: str | None, rate: float, burst: int) -> None:
        super().__init__(close, player=player, rate=rate, burst=burst, number=number)
        self.relay = relay

    def send(self, message: bytes, *, urgent: bool = True) -> None:
        if not self.closed:
            self.relay.send(self.number, message, urgent)
