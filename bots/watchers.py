"""The load that is not a player: spectators watching tables, and lobby pages polling the list.

A live event has more of both than players: a final table's watchers, a lobby left open in a tab. They cost
the server its broadcast fan-out and its list, and they see what a player does not (an observer's event lag,
the lobby's answer time), so each has its own row in the report and its own threshold (``watch.p99``,
``lobby.p95``).

- An ``Observer`` connects without a token, as a spectator's page does (docs/protocol.md), to a table of the
  spread, follows the server when its table closes (it is moved to the lowest open one), and measures the
  event lag of everything it is sent.
- A lobby poller reads ``GET /api/tournaments`` every few seconds, as the lobby page does, and measures the
  answer's time; an error or a timeout is a failure of that row.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array
from collections import Counter
from typing import Any

import httpx
from picows import WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

from bots.client import MAX_FRAME_BYTES, read_line, read_whole
from bots.histogram import histogram

WATCH = "watch"  # the observers' row in the report (``PREFIX_stats.csv``) and their threshold's name
LOBBY = "GET /api/tournaments"  # the lobby pollers' row
LOBBY_TIMEOUT_SECONDS = 10.0


class Observer(WSListener):
    """One spectator: connects, watches, reconnects when dropped, until the tournament is over."""

    def __init__(self, url: str, lags: array[float]) -> None:
        self.url = url
        self.lags = lags  # the observers' lags, shared
        self.connects: list[float] = []
        self.refused: Counter[str] = Counter()
        self.messages = 0
        self.over = False

    async def watch(self) -> None:
        while not self.over:
            began = time.monotonic()
            try:
                transport, _ = await ws_connect(lambda: self, self.url, max_frame_size=MAX_FRAME_BYTES)
            except OSError as error:
                self.refused[f"{type(error).__name__}: {error.strerror or error}"] += 1
                await asyncio.sleep(1.0)
                continue
            self.connects.append(time.monotonic() - began)
            try:
                await transport.wait_disconnected()
            finally:
                transport.disconnect(graceful=False)
            if not self.over:
                await asyncio.sleep(0.5)

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type != WSMsgType.TEXT:
            return
        received = time.time()
        for line in frame.get_payload_as_bytes().split(b"\n"):
            message = read_line(line)
            self.messages += 1
            if message.at:
                self.lags.append(received - message.at)
            ended = (message.type == "event" and message.event is not None
                     and message.event.type == "tournament_finished")
            if message.type == "snapshot":
                ended = read_whole(line)["tournament"]["status"] in ("finished", "cancelled")
            if ended:
                self.over = True
                transport.disconnect()
                return


class Watchers:
    """A shard's observers and lobby pollers, and what they measured."""

    def __init__(self, seed: float) -> None:
        self.rng = random.Random(seed)
        self.observers: list[Observer] = []
        self.lags: array[float] = array("d")
        self.lobby_pollers = 0
        self.lobby_times: array[float] = array("d")
        self.lobby_failures: Counter[str] = Counter()
        self.tasks: list[asyncio.Task[None]] = []

    def start(self, ws_urls: list[str], http: httpx.AsyncClient, tournament: str, tables: int, observers: int,
              lobby: int, every: float) -> None:
        """``observers`` spread over the ``tables`` open and the gateways, ``lobby`` pollers each at its own
        moment in the period (so that they do not all ask at once)."""
        for n in range(observers):
            table = 1 + n % max(1, tables)  # a table closed by then: the server gives the lowest open one
            observer = Observer(f"{ws_urls[n % len(ws_urls)]}/ws/tournaments/{tournament}?table={table}", self.lags)
            self.observers.append(observer)
            self.tasks.append(asyncio.create_task(observer.watch()))
        self.lobby_pollers = lobby
        for _ in range(lobby):
            self.tasks.append(asyncio.create_task(self._poll(http, every, self.rng.uniform(0, every))))

    async def _poll(self, http: httpx.AsyncClient, every: float, offset: float) -> None:
        await asyncio.sleep(offset)
        while True:
            began = time.monotonic()
            try:
                (await http.get("/api/tournaments", timeout=LOBBY_TIMEOUT_SECONDS)).raise_for_status()
            except httpx.HTTPError as error:
                self.lobby_failures[f"{type(error).__name__}: {error}"] += 1
            else:
                self.lobby_times.append(time.monotonic() - began)
            await asyncio.sleep(every)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)

    def report(self) -> dict[str, Any]:
        """Their counts, histograms and failures, in the report's shape (bots/swarm.py ``report_of``)."""
        refused: Counter[str] = Counter()
        for observer in self.observers:
            refused.update(observer.refused)
        return {
            "observers": len(self.observers), "observer_messages": sum(o.messages for o in self.observers),
            "lobby_pollers": self.lobby_pollers, "lobby_polls": len(self.lobby_times) + self.lobby_failures.total(),
            "histograms": {"watch_lag_ms": histogram(self.lags),
                           "watch_connect_ms": histogram(x for o in self.observers for x in o.connects),
                           "lobby_ms": histogram(self.lobby_times)},
            "failures": [*({"method": "WS", "name": WATCH, "error": error, "occurrences": n}
                           for error, n in refused.most_common()),
                         *({"method": "HTTP", "name": LOBBY, "error": error, "occurrences": n}
                           for error, n in self.lobby_failures.most_common())],
        }
