"""``mttsim demo``: the server with a bot-filled tournament to watch in a browser."""

from __future__ import annotations

import argparse
from typing import Any

from server.cli.common import address_options, allow_many_sockets, command

EXAMPLE = ("  mttsim demo                      # http://127.0.0.1:8000/ : 45 bots, a table to watch\n"
            "  mttsim demo --players 90 --seats 6 --port 8080")


def add(commands: Any) -> None:
    parser = command(commands, "demo", EXAMPLE, "the server with a bot-filled tournament to watch in a browser")
    address_options(parser)
    parser.add_argument("--players", type=int, default=45, help="bots in the tournament")
    parser.add_argument("--seats", type=int, default=9, help="seats per table")
    parser.add_argument("--think-min", type=float, default=0.3, help="seconds a bot thinks, at least")
    parser.add_argument("--think-max", type=float, default=1.5, help="seconds a bot thinks, at most")
    parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    parser.add_argument("--seed", type=int, default=None, help="the bots' and the deal's seed (default: new)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start the server with a bot-filled tournament to watch in a browser (``mttsim demo``)."""
    import asyncio

    from server.demo import run_demo

    allow_many_sockets()
    try:
        asyncio.run(run_demo(args.host, args.port, args.players, args.seats, (args.think_min, args.think_max),
                             args.hand_pause, args.seed))
    except KeyboardInterrupt:
        pass
    return 0
