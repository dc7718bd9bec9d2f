"""Test helpers: a real server on an ephemeral port of 127.0.0.1, and bots that play it over websockets."""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import os
import random
import socket
import subprocess
import sys
import time
import weakref
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import msgspec
import uvicorn

from bots.client import SeatReport, play_seat
from bots.strategies import STRATEGIES, seat_view, tight_aggressive
from engine.director import Status
from server.tournament import records
from server.api.app import create_app, uvicorn_websockets
from server.api.edge import Settings
from server.tournament.runtime import TournamentRuntime
from server.tournament.clock import Clock
from tests.tournaments import definition as tournament_definition

ADMIN = {"Authorization": "Bearer admin-token"}


@dataclass
class Live:
    app: Any
    http: str
    ws: str
    bot_tasks: list[asyncio.Task[SeatReport]] = field(default_factory=list)  # cancelled when the server stops

    def runtime(self, tournament: str) -> TournamentRuntime:
        return self.app.state.server.tournaments[tournament]


@contextlib.asynccontextmanager
async def live_server(clock: Clock | None = None, **settings: Any) -> AsyncIterator[Live]:
    """A server on a free loopback port; with ``clock`` (tests/clocks.py), its tournaments' decisions and clocks
    run on the test's time."""
    app = create_app(Settings(admin_token="admin-token", **settings), clock=clock)
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=0, log_level="warning", lifespan="on",
                                           **uvicorn_websockets()))
    serving = asyncio.create_task(server.serve())
    while not server.started:
        await asyncio.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    live = Live(app, f"http://127.0.0.1:{port}", f"ws://127.0.0.1:{port}")
    try:
        yield live
    finally:
        for bot in live.bot_tasks:
            bot.cancel()
        await asyncio.gather(*live.bot_tasks, return_exceptions=True)
        server.should_exit = True
        await asyncio.wait_for(serving, 10)


def definition(players: int, seats: int, *, action_seconds: float = 2.0, time_bank_seconds: float = 0.0,
               paid: int = 1, stack: int = 1000, **more: Any) -> dict[str, Any]:
    """The REST body of tests.tournaments' definition (the one builder), for at most ``players``; ``more`` are
    the body's own fields, as JSON gives them."""
    body: dict[str, Any] = msgspec.to_builtins(tournament_definition(
        seats, starting_stack=stack, paid=paid, max_players=players, action_seconds=action_seconds,
        time_bank_seconds=time_bank_seconds))
    return {**body, "name": "live test", **more}


async def create(live: Live, body: dict[str, Any], players: int) -> tuple[str, list[tuple[str, str]]]:
    """Create a tournament and register ``players`` entries; returns its id and (player id, token) pairs."""
    async with httpx.AsyncClient(base_url=live.http) as client:
        created = await client.post("/api/tournaments", json=body, headers=ADMIN)
        assert created.status_code == 201, created.text
        tournament = created.json()["id"]
        seats = []
        for number in range(players):
            response = await client.post(f"/api/tournaments/{tournament}/register", json={"name": f"bot {number}"})
            assert response.status_code == 201, response.text
            seats.append((response.json()["player_id"], response.json()["token"]))
    return tournament, seats


async def person_among_stations(live: Live, body: dict[str, Any], players: int, *,
                                think: tuple[float, float] = (0.0, 0.0)) -> tuple[str, str, str]:
    """A tournament where p1 is the test's own client and everyone else is a calling-station bot.

    Returns the tournament id, p1's player id and p1's token.
    """
    tournament, seats = await create(live, body, players)
    (me, token), others = seats[0], seats[1:]
    bots(live, tournament, others, "station", think=think)
    return tournament, me, token


async def admin(live: Live, tournament: str, command: str) -> httpx.Response:
    async with httpx.AsyncClient(base_url=live.http) as client:
        return await client.post(f"/api/tournaments/{tournament}/{command}", headers=ADMIN)


def bots(live: Live, tournament: str, seats: list[tuple[str, str]], strategy: str, seed: int = 0, *,
         think: tuple[float, float] = (0.0, 0.0)) -> list[asyncio.Task[SeatReport]]:
    rng = random.Random(seed)
    tasks = [asyncio.create_task(play_seat(live.ws, tournament, player, token, STRATEGIES[strategy],
                                           random.Random(rng.random()), think))
             for player, token in seats]
    live.bot_tasks += tasks
    return tasks


async def connected(live: Live, tournament: str, seats: list[tuple[str, str]]) -> None:
    """Until every one of ``seats`` has its socket open at the server: a player not connected at the start sits
    out as one who never came."""
    streams = live.runtime(tournament).streams
    await until(lambda: all(streams.connected(player) for player, _ in seats), timeout=60)


_pending: weakref.WeakKeyDictionary[Any, list[dict[str, Any]]] = weakref.WeakKeyDictionary()


async def receive_json(websocket: Any, timeout: float = 10.0) -> dict[str, Any]:
    """The next message; a frame may carry several, one per line (docs/protocol.md)."""
    queue = _pending.setdefault(websocket, [])
    while not queue:
        frame = await asyncio.wait_for(websocket.recv(), timeout)
        queue.extend(json.loads(line) for line in frame.split("\n"))
    return queue.pop(0)


class SilentClient:
    """A websocket client that sends but never reads: its tiny receive buffer fills and stays full.

    Written on a raw socket because a websocket library reads into its own
    buffers in the background, which would hide the backlog from the server.
    """

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock

    @classmethod
    async def open(cls, live: Live, path: str) -> SilentClient:
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.setblocking(False)
        host, port = live.http.removeprefix("http://").split(":")
        await loop.sock_connect(sock, (host, int(port)))
        key = base64.b64encode(os.urandom(16)).decode()
        request = (f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                   f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
        await loop.sock_sendall(sock, request.encode())
        answer = await loop.sock_recv(sock, 1024)
        assert answer.startswith(b"HTTP/1.1 101"), answer
        return cls(sock)

    async def send(self, text: str) -> None:
        """One masked text frame, as RFC 6455 asks of a client (payloads under 126 bytes)."""
        data = text.encode()
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(data))
        await asyncio.get_running_loop().sock_sendall(self.sock, bytes([0x81, 0x80 | len(data)]) + mask + masked)

    def close(self) -> None:
        self.sock.close()


def player_url(live, tournament: str, token: str) -> str:
    return f"{live.ws}/ws/tournaments/{tournament}?token={token}"


async def until(condition, timeout: float = 20.0, step: float = 0.02) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "timed out waiting"
        await asyncio.sleep(step)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Watcher:
    """A stand-in connection that keeps what it is sent."""

    def __init__(self, player: str | None = None) -> None:
        self.player = player
        self.table: int | None = None
        self.messages: list[dict] = []
        self.relay = None  # a socket of this process, not a gateway's

    def send(self, message: bytes, *, urgent: bool = True) -> None:
        self.messages += [json.loads(line) for line in message.split(b"\n") if line]


def drive(runtime: TournamentRuntime, rng: random.Random, hands: int) -> None:
    """Play ``hands`` hands through the runtime's journaled commands (a hand's deal and decisions recorded as its
    table records them), leaving some in progress at the end."""
    director = runtime.director
    now = 0.0
    while director.hands_played < hands and director.status is Status.RUNNING:
        now += 5.0
        runtime.submit(records.Advance(now))
        for player in list(director.rebuy_offers):
            runtime.submit((records.Rebuy if rng.random() < 0.5 else records.DeclineRebuy)(player))
        for table in director.tables_ready():
            runtime.recorder.record(records.StartHand(table))
        for table in sorted(director.tables):
            hand = director.hand(table)
            if hand is None or rng.random() < 0.3:
                continue  # this table's hand stays in progress a while longer
            while not hand.finished:
                action, amount = tight_aggressive(seat_view(hand), rng)
                player = hand.players[hand.actor]
                bank = runtime.entries.time_bank[player] - 0.5
                runtime.recorder.record(records.Act(table, action, amount, player, bank))
            runtime.submit(records.EndHand(table))
            runtime.journal.maybe_snapshot(runtime.session)
    for table in director.tables_ready():  # and leave hands in progress, one decision in
        runtime.recorder.record(records.StartHand(table))
        hand = director.hand(table)
        action, amount = tight_aggressive(seat_view(hand), rng)
        runtime.recorder.record(records.Act(table, action, amount, hand.players[hand.actor], 1.0))


TOKEN = "crash-test-token"


def serve(port: int, db: str) -> subprocess.Popen:
    """``mttsim serve`` with its journal in ``db``, once it answers on ``port``."""
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--db", db, "--admin-token", TOKEN,
         "--hand-pause", "0.02"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    return serving(process, port, lambda: process.stderr.read())


def serving(process: subprocess.Popen[str], port: int, log: Callable[[], str]) -> subprocess.Popen[str]:
    """``process``, once it answers HTTP on ``port``; ``log`` says why it stopped, if it does first."""
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/", timeout=2)
            return process
        except httpx.TransportError:
            assert process.poll() is None, log()
            assert time.monotonic() < deadline, f"{process.args} did not come up"
            time.sleep(0.05)
