"""A bot playing one seat over the real wire protocol (docs/protocol.md), as any client would.

It keeps no table state: the server's ``your_turn`` message carries what a
strategy needs (legal actions, own cards, board, pot, stack). It follows
table moves without reconnecting, because the server moves its connection.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import dataclass, field

from websockets.asyncio.client import connect

from bots.strategies import SeatView, Strategy
from engine.hand import LegalActions


@dataclass
class SeatReport:
    """What one bot saw: its result, its moves, errors the server sent it, its decisions."""

    player: str
    decisions: int = 0
    errors: list[dict] = field(default_factory=list)
    moves: list[dict] = field(default_factory=list)
    decisions_before_move: list[int] = field(default_factory=list)
    place: int | None = None
    timed_out: int = 0
    snapshots: int = 0


def view_of(turn: dict) -> SeatView:
    legal = LegalActions(0, turn["can_fold"], turn["can_check"], turn["call"], turn["min_raise_to"],
                         turn["max_raise_to"])
    return SeatView(legal, tuple(turn["hole"]), tuple(turn["board"]), turn["pot"], turn["stack"], turn["big_blind"])


async def play_seat(ws_url: str, tournament: str, player: str, token: str, strategy: Strategy,
                    rng: random.Random, think: tuple[float, float] = (0.0, 0.0)) -> SeatReport:
    """Play until the player is out or the tournament is over; returns what happened.

    ``think`` is a range of seconds the bot waits before each decision, so a
    person watching can follow the play.
    """
    report = SeatReport(player)
    async with connect(f"{ws_url}/ws/tournaments/{tournament}?token={token}") as websocket:
        async for text in websocket:
            message = json.loads(text)
            kind = message["type"]
            if kind == "error":
                report.errors.append(message)
            elif kind == "snapshot":
                report.snapshots += 1
                result = message["you"]["result"]
                if result is not None or message["tournament"]["status"] in ("finished", "cancelled"):
                    report.place = result["place"] if result else None
                    return report
            elif kind == "private":
                event = message["event"]
                if event["type"] == "your_turn":
                    if think[1] > 0:
                        await asyncio.sleep(rng.uniform(*think))
                    action, amount = strategy(view_of(event), rng)
                    await websocket.send(json.dumps({"type": "act", "action": action, "amount": amount}))
                    report.decisions += 1
                elif event["type"] == "moved":
                    report.moves.append(event)
                    report.decisions_before_move.append(report.decisions)
            elif kind == "event":
                event = message["event"]
                if event["type"] == "player_eliminated" and event["player"] == player:
                    report.place = event["place"]
                    return report
                if event["type"] == "timed_out" and event["player"] == player:
                    report.timed_out += 1
                if event["type"] == "tournament_finished":
                    report.place = next(r["place"] for r in event["results"] if r["player"] == player)
                    return report
    return report
