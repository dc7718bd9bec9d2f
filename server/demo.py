"""``mttsim demo``: the server, a tournament filled with bots, and a browser to watch it in.

The bots play over the same websocket protocol as any client (bots/client.py);
only their registration is done in-process, as the server's own operator
would. Bots think for a moment before each decision so a person can follow.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Callable

import uvicorn

from bots.strategies import DEFAULT_MIX
from engine.status import Status
from engine.structure import AddOn, Bounty, Breaks, Definition, LateRegistration, Level, Rebuys, default_payouts
from server.tournament import hosted
from server.api.app import create_app, uvicorn_websockets
from server.api.edge import Settings
from server.api.process import Server
from server.tournament.runtime import TournamentRuntime

DEMO_LEVELS = [Level(sb, 2 * sb, ante=2 * sb if number >= 2 else 0, bb_ante=number >= 2, minutes=3)
               for number, sb in enumerate((10, 15, 25, 40, 60, 100, 150, 250, 400, 600, 1000, 1500, 2500))]


LATE_SEATS = 30  # room for people who join the demo from the lobby while its late registration is open


def demo_definition(players: int, seats: int) -> Definition:
    """A progressive knockout with re-buys for three levels and an add-on: the formats show on the tables.
    Registration stays open for those three levels, so a person can join the bots from the lobby."""
    return Definition(
        name="Demo PKO re-buy", seats_per_table=seats, starting_stack=3000, buy_in_cents=500, fee_cents=50,
        min_players=2, max_players=players + LATE_SEATS, levels=DEMO_LEVELS, payouts=default_payouts(players),
        breaks=Breaks(every_levels=6, minutes=1), action_seconds=8, time_bank_seconds=15,
        bounty=Bounty(cents=250, progressive_percent=50),
        rebuys=Rebuys(levels=3, price_cents=500, fee_cents=50, chips=3000, max_count=1, offer_seconds=10),
        add_on=AddOn(price_cents=500, fee_cents=50, chips=4500, offer_seconds=30),
        late_registration=LateRegistration(until_level=3),
    )


async def run_demo(host: str, port: int, players: int, seats: int, think: tuple[float, float],
                   hand_pause: float, seed: int | None, announce: Callable[[str], None] = print) -> None:
    admin_token = secrets.token_urlsafe(18)
    app = create_app(Settings(admin_token=admin_token, hand_pause=hand_pause, plan_runs=3))
    serving_with = uvicorn.Server(uvicorn.Config(app, host=host, port=port, log_level="warning",
                                                 **uvicorn_websockets()))
    serving = asyncio.create_task(serving_with.serve())
    while not serving_with.started:
        if serving.done():
            await serving  # the port was taken: let uvicorn's error through
        await asyncio.sleep(0.05)
    bound = serving_with.servers[0].sockets[0].getsockname()[1]
    rng = random.Random(seed)
    server: Server = app.state.server
    # In the app's storage, as any tournament: its hand histories are then served like the others.
    runtime = TournamentRuntime.create("demo", demo_definition(players, seats), server.storage,
                                       hand_pause=hand_pause, placement=server.placement("demo"))
    server.add(runtime)
    hosted.add_bots(runtime, players, f"ws://{host}:{bound}", mix=DEFAULT_MIX, think=think, rng=rng)
    await asyncio.sleep(0.5)  # let the bots connect
    runtime.start()
    announce(f"mttsim demo: {players} bots at {seats}-seat tables.\n"
             f"Watch it at http://{host}:{bound}/  (admin token: {admin_token})\n"
             f"Late registration is open for its first three levels: join from the lobby.\n"
             f"Ctrl-C stops the demo.")
    await runtime.bots.done()  # the tournament is over, or the server is stopping (Ctrl-C)
    director = runtime.director
    if director.status is Status.FINISHED:
        winner = director.standings()[0]
        announce(f"The tournament is over: {runtime.entries.name(winner.player)} wins "
                 f"${winner.prize_cents / 100:,.2f}. The server keeps running; Ctrl-C stops it.")
    else:  # stopping is not a finish: nobody has won
        announce(f"The demo stopped at level {director.level + 1} with {director.players_left} players still in.")
    await serving
