"""A bot playing one seat over the real wire protocol (docs/protocol.md), as any client would.

It keeps no table state: the server's ``your_turn`` message (or, after a
reconnect, the snapshot) carries what a strategy needs, and an ``offer``
(a re-buy, the add-on, a deal) what ``money_choice`` needs. It follows table
moves without reconnecting, because the server moves its connection. It
records what a load test measures: action-to-acknowledgement latency, event
delivery lag, errors, missed deadlines and reconnections.

Fault injectors play like ``random`` but misbehave on purpose:
- ``slow`` lets the clock run out on about half its turns, then says ``back``;
- ``flaky`` drops its connection now and then and reconnects with its token;
- ``rude`` sends malformed and out-of-turn messages and expects errors.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from dataclasses import dataclass, field
from typing import Any, Literal

from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from bots.strategies import STRATEGIES, MoneyView, SeatView, Strategy, money_choice, random_player
from engine.hand import LegalActions

Fault = Literal["slow", "flaky", "rude"]
FAULTS: tuple[Fault, ...] = ("slow", "flaky", "rude")


@dataclass
class SeatReport:
    """What one bot saw and measured."""

    player: str
    decisions: int = 0
    errors: list[dict] = field(default_factory=list)  # error replies the bot did not provoke
    provoked_errors: int = 0  # error replies to a rude bot's bad messages
    moves: list[dict] = field(default_factory=list)
    decisions_before_move: list[int] = field(default_factory=list)
    place: int | None = None
    timed_out: int = 0  # the clock acted for this bot
    missed_deadlines: int = 0  # ... although it meant to act
    reconnections: int = 0
    snapshots: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds from sending an action to seeing it acted
    lags: list[float] = field(default_factory=list)  # seconds from the server's stamp to receipt
    messages: int = 0


def view_of(turn: dict[str, Any]) -> SeatView:
    legal = LegalActions(0, turn["can_fold"], turn["can_check"], turn["call"], turn["min_raise_to"],
                         turn["max_raise_to"])
    return SeatView(legal, tuple(turn["hole"]), tuple(turn["board"]), turn["pot"], turn["stack"], turn["big_blind"])


def turn_from_snapshot(snapshot: dict[str, Any]) -> dict[str, Any] | None:
    """The pending decision in a snapshot (after a reconnect), in ``your_turn``'s shape."""
    you, table, tournament = snapshot["you"], snapshot["table"], snapshot["tournament"]
    if not you or not you.get("legal") or not table:
        return None
    return {**you["legal"], "hole": you["hole"] or [], "board": table["board"], "pot": table["pot"],
            "stack": you["stack"] or 0, "big_blind": tournament["big_blind"]}


class SeatBot:
    """One seat: strategy, optional fault, think time, and its report."""

    def __init__(self, ws_url: str, tournament: str, player: str, token: str, strategy: Strategy,
                 rng: random.Random, think: tuple[float, float] = (0.0, 0.0), fault: Fault | None = None) -> None:
        self.url = f"{ws_url}/ws/tournaments/{tournament}?token={token}"
        self.player = player
        self.strategy = strategy
        self.rng = rng
        self.think = think
        self.fault = fault
        self.report = SeatReport(player)
        self.style = next((name for name, play in STRATEGIES.items() if play is strategy), "random")
        self._stack = 0
        self._starting_stack = 0
        self._sent_at: float | None = None
        self._ignored_turn = False
        self._done = False
        self._thinking: asyncio.Task[None] | None = None

    async def play(self) -> SeatReport:
        """Play until the player is out or the tournament is over; returns the report.

        A dropped connection, or a server that is not there (restarting after
        a crash), is retried with the same token, for up to a minute of
        refusals in a row.
        """
        refused = 0
        while not self._done:
            try:
                async with connect(self.url, max_queue=None) as websocket:
                    refused = 0
                    await self._session(websocket)
            except ConnectionClosed:
                if self._done:
                    break
            except OSError:
                refused += 1
                if refused > 120:
                    raise
            finally:
                if self._thinking is not None:
                    self._thinking.cancel()
            if not self._done:  # a flaky bot hung up, or the connection dropped: come back with the token
                self.report.reconnections += 1
                await asyncio.sleep(self.rng.uniform(0.1, 0.5))
        return self.report

    async def _session(self, websocket: Any) -> None:
        async for frame in websocket:
            for text in frame.split("\n"):  # a frame carries one or more messages, one per line
                if await self._handle(websocket, json.loads(text)):
                    return
            if self.fault == "flaky" and self.rng.random() < 0.005:
                return  # hang up; play() reconnects

    async def _handle(self, websocket: Any, message: dict[str, Any]) -> bool:
        """One message; True when this connection's session is over."""
        report = self.report
        received = time.time()
        report.messages += 1
        kind = message["type"]
        if "at" in message:
            report.lags.append(received - message["at"])
        if kind == "error":
            if self.fault == "rude":
                report.provoked_errors += 1
            else:
                report.errors.append(message)
        elif kind == "snapshot":
            report.snapshots += 1
            self._starting_stack = message["tournament"]["starting_stack"]
            if message["you"] and message["you"]["stack"] is not None:
                self._stack = message["you"]["stack"]
            result = message["you"]["result"] if message["you"] else None
            if result is not None or message["tournament"]["status"] in ("finished", "cancelled"):
                report.place = result["place"] if result else None
                self._done = True
                return True
            turn = turn_from_snapshot(message)
            if turn is not None:
                await self._decide(websocket, turn)
        elif kind == "private":
            await self._private(websocket, message["event"])
        elif kind == "event":
            if await self._public(websocket, message["event"]):
                self._done = True
                return True
        return False

    async def _private(self, websocket: Any, event: dict[str, Any]) -> None:
        if event["type"] == "your_turn":
            self._stack = event["stack"]
            await self._decide(websocket, event)
        elif event["type"] == "offer":
            await self._answer(websocket, event)
        elif event["type"] == "moved":
            self.report.moves.append(event)
            self.report.decisions_before_move.append(self.report.decisions)

    async def _public(self, websocket: Any, event: dict[str, Any]) -> bool:
        """Handle a public event; True when this bot's tournament is over."""
        report = self.report
        kind = event["type"]
        mine = event.get("player") == self.player
        if kind == "acted" and mine and self._sent_at is not None:
            report.latencies.append(time.monotonic() - self._sent_at)
            self._sent_at = None
        elif kind == "timed_out" and mine:
            report.timed_out += 1
            if not self._ignored_turn:
                report.missed_deadlines += 1
            self._ignored_turn = False
            self._sent_at = None
            await websocket.send('{"type": "back"}')
        elif kind == "turn" and not mine and self.fault == "rude" and self.rng.random() < 0.05:
            await websocket.send(json.dumps({"type": "act", "action": "fold"}))  # out of turn
        elif kind == "player_eliminated" and mine:
            report.place = event["place"]
            return True
        elif kind == "tournament_finished":
            report.place = next((r["place"] for r in event["results"] if r["player"] == self.player), report.place)
            return True
        return False

    async def _answer(self, websocket: Any, offer: dict[str, Any]) -> None:
        """Say yes or no to a re-buy, the add-on, pressing Deal or a deal's amounts."""
        kind = offer["kind"]
        stacks = offer.get("stacks") or {}
        amounts = offer.get("amounts") or {}
        stack = stacks.get(self.player, 0 if kind == "rebuy" else self._stack)
        view = MoneyView(kind, stack, self._starting_stack, stack / (sum(stacks.values()) or 1),
                         amounts.get(self.player, 0), sum(amounts.values()))
        yes = money_choice(self.style, view, self.rng)
        reply: dict[str, Any] | None = {
            "rebuy": {"type": "rebuy" if yes else "decline_rebuy"},
            "add_on": {"type": "add_on"} if yes else None,
            "press_deal": {"type": "deal", "on": True} if yes else None,
            "deal": {"type": "deal_answer", "accept": yes},
        }[kind]
        if reply is not None:
            try:
                await websocket.send(json.dumps(reply))
            except ConnectionClosed:
                return

    async def _decide(self, websocket: Any, turn: dict[str, Any]) -> None:
        if self.fault == "slow" and self.rng.random() < 0.5:
            self._ignored_turn = True  # let the clock run out
            return
        if self.fault == "rude" and self.rng.random() < 0.2:
            await websocket.send('{"type": "act", "action": ')  # malformed
        if self.think[1] > 0:
            # Think in the background: the bot keeps reading while it thinks, so what it measures is the
            # server's delivery, not its own pause.
            self._thinking = asyncio.create_task(self._act(websocket, turn, self.rng.uniform(*self.think)))
        else:
            await self._act(websocket, turn, 0.0)

    async def _act(self, websocket: Any, turn: dict[str, Any], delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        action, amount = self.strategy(view_of(turn), self.rng)
        self._sent_at = time.monotonic()
        try:
            await websocket.send(json.dumps({"type": "act", "action": action, "amount": amount}))
        except ConnectionClosed:
            return  # the session ended while thinking; the clock acts for the seat
        self.report.decisions += 1


def strategy_for(tag: str) -> tuple[Strategy, Fault | None]:
    """A mix tag: a strategy name, or a fault injector (which plays like ``random``)."""
    for fault in FAULTS:
        if tag == fault:
            return random_player, fault
    return STRATEGIES[tag], None


async def play_seat(ws_url: str, tournament: str, player: str, token: str, strategy: Strategy,
                    rng: random.Random, think: tuple[float, float] = (0.0, 0.0),
                    fault: Fault | None = None) -> SeatReport:
    """Play one seat to its end (see SeatBot)."""
    return await SeatBot(ws_url, tournament, player, token, strategy, rng, think, fault).play()
