"""Websocket clients: a bounded outbound queue each, so a slow reader never slows a table.

A table hands every client the same encoded text (encoded once per table);
``Connection.send`` never waits. Messages that pile up while a client's
previous frame is being written leave together in the next frame, one JSON
message per line: under load a client gets fewer, larger frames, and the
server pays the per-frame cost once per batch. When a client's queue is full the client is
dropped: its sender stops and the socket is closed with code 4008. Incoming
messages are limited in size (``MAX_MESSAGE_BYTES``, close code 1009) and
rate (a token bucket, close code 1008).
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


class Connection:
    """One client: who it is, which table it watches, and its outbound queue."""

    def __init__(self, websocket: WebSocket, *, player: str | None, max_queue: int,
                 rate: float, burst: int) -> None:
        self.websocket = websocket
        self.player = player
        self.table: int | None = None
        self.queue: asyncio.Queue[str] = asyncio.Queue(max_queue)
        self.rate_limit = RateLimit(rate, burst)
        self.closed = asyncio.Event()
        self.close_code: int | None = None
        self._sender: asyncio.Task[None] | None = None
        self._closing: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._sender = asyncio.create_task(self._send_loop(), name=f"sender:{self.player or 'observer'}")

    def send(self, text: str) -> None:
        """Queue a message without waiting; a client whose queue is full is dropped."""
        if self.closed.is_set():
            return
        try:
            self.queue.put_nowait(text)
        except asyncio.QueueFull:
            self.drop(CLOSE_TOO_SLOW, "too slow: the outbound queue is full")

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
        """Send what is queued; messages that queued up together leave in one frame, one per line."""
        queue = self.queue
        try:
            while True:
                text = await queue.get()
                if not queue.empty():
                    lines = [text]
                    while not queue.empty() and len(lines) < MAX_BATCH:
                        lines.append(queue.get_nowait())
                    text = "\n".join(lines)
                await self.websocket.send_text(text)
        except asyncio.CancelledError:
            raise
        except Exception:  # the peer is gone: the receive loop will notice and clean up
            self.closed.set()

    async def _close(self, code: int, reason: str) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.websocket.close(code, reason), 2.0)
