"""Websocket clients: a bounded outbound queue each, so a slow reader never slows a table.

A table hands every client the same encoded text (encoded once per table);
``Connection.send`` never waits. What a client has to answer, or what answers
it (its turn, its own action, an offer, a snapshot, an error), leaves at
once; the rest (other players' actions at its table, observers' streams)
waits for the next broadcast tick, at most ``Pacer.tick`` seconds. Messages
that wait together leave together in one frame, one JSON message per line:
every frame is a write to the socket, and those writes were most of the
server's time under a swarm (docs/performance.md). When a client falls
``max_queue`` messages behind, it is dropped: its sender stops and the socket
is closed with code 4008. Incoming messages are limited in size
(``MAX_MESSAGE_BYTES``, close code 1009) and rate (a token bucket, close code
1008).
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from starlette.websockets import WebSocket

MAX_BATCH = 64  # messages per frame at most
CLOSE_TOO_SLOW = 4008
CLOSE_TOO_BIG = 1009
CLOSE_FLOOD = 1008


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


class Pacer:
    """The broadcast tick: wakes, once per ``tick``, the clients holding messages that may wait.

    It is armed only while some client is waiting, so an idle server does not tick.
    """

    def __init__(self, tick: float) -> None:
        self.tick = tick
        self._waiting: set[Connection] = set()
        self._timer: asyncio.TimerHandle | None = None

    def later(self, connection: Connection) -> None:
        self._waiting.add(connection)
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._flush)

    def _flush(self) -> None:
        self._timer = None
        waiting, self._waiting = self._waiting, set()
        for connection in waiting:
            connection.ready.set()


class Connection:
    """One client: who it is, which table it watches, and what is waiting to be sent to it."""

    def __init__(self, websocket: WebSocket, *, player: str | None, max_queue: int, pacer: Pacer,
                 rate: float, burst: int) -> None:
        self.websocket = websocket
        self.player = player
        self.table: int | None = None
        self.max_queue = max_queue
        self.pacer = pacer
        self.outbox: list[str] = []
        self.ready = asyncio.Event()  # something in the outbox should leave now
        self.rate_limit = RateLimit(rate, burst)
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self._sender: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sender = asyncio.create_task(self._send_loop(), name=f"sender:{self.player or 'observer'}")

    def send(self, text: str, *, urgent: bool = True) -> None:
        """Queue a message without waiting: at once when ``urgent``, else with the next tick.

        A client whose outbox is full is dropped.
        """
        if self.closed.is_set():
            return
        if len(self.outbox) >= self.max_queue:
            self.drop(CLOSE_TOO_SLOW, "too slow: the outbound queue is full")
            return
        self.outbox.append(text)
        if urgent:
            self.ready.set()
        elif not self.ready.is_set():
            self.pacer.later(self)

    def drop(self, code: int, reason: str) -> None:
        """Stop sending and close the socket, without waiting on a peer that may not be reading."""
        if self.closed.is_set():
            return
        self.close_code = code
        self.closed.set()
        if self._sender is not None:
            self._sender.cancel()
        self._closing = asyncio.create_task(self._close(code, reason))

    async def stop(self) -> None:
        """The handler ends: stop the sender, and let a close frame in flight go out first."""
        self.closed.set()
        for task in (self._sender, self._closing):
            if task is None:
                continue
            if task is self._sender:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task

    async def _send_loop(self) -> None:
        """Send what waits in the outbox, up to ``MAX_BATCH`` messages a frame, one per line."""
        try:
            while True:
                await self.ready.wait()
                self.ready.clear()
                while self.outbox:
                    batch, self.outbox = self.outbox[:MAX_BATCH], self.outbox[MAX_BATCH:]
                    await self.websocket.send_text("\n".join(batch))
        except asyncio.CancelledError:
            raise
        except Exception:  # the peer is gone: the receive loop will notice and clean up
            self.closed.set()

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.websocket.close(code, reason), 2.0)
