"""The server's own bots: players that play a tournament's seats over the websocket, like any client.

Their tasks belong to their tournament: it awaits them when it shuts down,
and a restore brings them back (each hosted seat is journaled). A bot that
is out re-enters with the chance it was given, while re-entry is open, and
its new entry is played by a bot of its own.
"""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import Callable
from typing import TYPE_CHECKING

from bots.client import play_seat, strategy_for
from server.tournament import records as r
from server.errors import Refused

if TYPE_CHECKING:
    from server.tournament.runtime import TournamentRuntime

logger = logging.getLogger("mttsim.server")


class HostedBots:
    """One tournament's bot tasks, and where they reach the server."""

    def __init__(self, tournament_id: str) -> None:
        self.id = tournament_id
        self.ws_url: str | None = None
        self.tasks: set[asyncio.Task[None]] = set()
        self.out: Callable[[str], None] | None = None  # told when a bot's player is out

    def play(self, player: str, token: str, tag: str, rng: random.Random, think: tuple[float, float]) -> None:
        """Start ``player``'s bot (once ``ws_url`` is known)."""
        if self.ws_url is None:
            return
        ws_url = self.ws_url
        strategy, fault = strategy_for(tag)

        async def play() -> None:
            try:
                report = await play_seat(ws_url, self.id, player, token, strategy, rng, think, fault)
            except Exception:  # a bot's failure is the bot's: the tournament plays on and its clock acts for it
                logger.exception("bot %s stopped", player)
                return
            if report.place is not None and self.out is not None:
                self.out(player)

        task = asyncio.get_running_loop().create_task(play(), name=f"bot:{self.id}:{player}")
        self.tasks.add(task)
        task.add_done_callback(self.tasks.discard)

    async def done(self) -> None:
        """Until every bot has stopped (they stop when their tournament ends)."""
        while self.tasks:
            await asyncio.gather(*self.tasks, return_exceptions=True)

    async def stop(self) -> None:
        for task in self.tasks:
            task.cancel()
        await self.done()


def host(runtime: TournamentRuntime, player: str, tag: str, token: str, think: tuple[float, float],
         rng: random.Random, reentry: float = 0.0) -> None:
    """``player`` is played by the server's own bot, now and after a restore."""
    runtime.submit(r.HostBot(player, tag, token, think[0], think[1]))
    if reentry:
        runtime.submit(r.BotReentry(player, reentry))
    runtime.bots.play(player, token, tag, rng, think)


def reenter_if_it_will(runtime: TournamentRuntime, player: str) -> None:
    """A bot that is out re-enters with its chance while re-entry is open; a bot plays the new entry."""
    chance = runtime.entries.bot_reentry.get(player, 0.0)
    if not chance or not runtime.director.entries_open("reentry") or random.random() >= chance:
        return
    tag, token, think_min, think_max = runtime.entries.bots[player]
    try:
        entry = runtime.reenter(token)
    except Refused:
        return  # its person has used them all
    host(runtime, entry, tag, token, (think_min, think_max), random.Random(), chance)


def add_bots(runtime: TournamentRuntime, count: int, ws_url: str, *, mix: dict[str, float],
             think: tuple[float, float], rng: random.Random, reentry: float = 0.0) -> list[str]:
    """Register ``count`` bots, strategies drawn from ``mix``, that play over the websocket (bots/client.py)."""
    names, weights = list(mix), list(mix.values())
    runtime.bots.ws_url = ws_url
    added = []
    for _ in range(count):
        tag = rng.choices(names, weights)[0]
        player, token = runtime.register(f"{tag} bot {runtime.entries.next_number + 1}")
        host(runtime, player, tag, token, think, random.Random(rng.random()), reentry)
        added.append(player)
    return added
