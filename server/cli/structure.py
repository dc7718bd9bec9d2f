"""``mttsim structure``: a whole definition from a few numbers."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from bots.lab import estimate, fit_structure, hours_minutes, schedule_text
from engine.structure import (
    Breaks, DefinitionError, EventOptions, Speed, generate_structure, pace_of, structure_hours,
)
from server.cli.common import command

EXAMPLE = ("  mttsim structure --players 200 --hours 4 --stack 20000   # a table with the field to expect\n"
           "  mttsim structure --players 300 --hours 6 --stack 30000 --minutes 20 --buy-in 100 --fee 10 \\\n"
           "      --late-levels 6 --reentry-levels 6 --breaks-every 4 --name 'Sunday 300' --json > sunday.json")


def add(commands: Any) -> None:
    parser = command(commands, "structure", EXAMPLE, "print a whole definition from a few numbers")
    parser.add_argument("--players", type=int, required=True, help="the expected field")
    parser.add_argument("--hours", type=float, required=True, help="about when one player is left")
    parser.add_argument("--stack", type=int, required=True, help="the starting stack")
    speed = parser.add_mutually_exclusive_group()
    speed.add_argument("--turbo", action="store_true", help="5-minute levels, 60 big blinds to start (regular: "
                                                           "10 and 100)")
    speed.add_argument("--hyper", action="store_true", help="3-minute levels, 30 big blinds to start")
    parser.add_argument("--ante", choices=["bb", "classic", "none"], default="bb",
                        help="a big-blind ante, or everyone's, from level 3; or none")
    parser.add_argument("--minutes", type=float, help="a level's length (default: the speed's)")
    parser.add_argument("--seats", type=int, default=9, help="seats a table")
    parser.add_argument("--buy-in", type=float, default=10.0, metavar="DOLLARS", help="the buy-in to the pool")
    parser.add_argument("--fee", type=float, default=1.0, metavar="DOLLARS", help="the house's fee")
    parser.add_argument("--late-levels", type=int, metavar="N", help="late registration open until level N ends")
    parser.add_argument("--reentry-levels", type=int, metavar="N", help="re-entry open until level N ends")
    parser.add_argument("--reentries", type=int, default=1, help="re-entries a person may buy")
    breaks = parser.add_mutually_exclusive_group()
    breaks.add_argument("--breaks-every", type=int, metavar="LEVELS", help="a break after every N levels")
    breaks.add_argument("--break-at", type=float, metavar="MINUTE", help="a break at this minute of every hour "
                                                                        "(default: 55)")
    parser.add_argument("--break-minutes", type=float, default=5.0, help="a break's length")
    parser.add_argument("--no-breaks", action="store_true", help="no breaks at all")
    parser.add_argument("--pace", default="online", metavar="live|online|N",
                        help="hands a full table deals in an hour, for the simulations the levels are fitted on: "
                             "live (35, a dealer at a live table), online (64, the default) or a number "
                             "(docs/config.md)")
    parser.add_argument("--max-players", type=int, metavar="N",
                        help="the field's cap (default: ten times --players, so that late entries and re-entries "
                             "are never turned away)")
    parser.add_argument("--name", help="the event's name")
    parser.add_argument("--json", action="store_true",
                        help="print the whole definition as JSON (for --config) instead of the table")
    parser.add_argument("--runs", type=int, default=3, metavar="N",
                        help="quick simulations: the levels' climb is fitted on them so that the field ends within "
                             "5%% of the length the structure says, and the table shows the field to expect "
                             "(0: none, the climb unfitted)")
    parser.set_defaults(run=run)


def options_of(args: argparse.Namespace) -> EventOptions:
    """The event's options from the command line; msgspec's ValidationError (a ValueError) when one is wrong."""
    breaks = None if args.no_breaks else Breaks(every_levels=args.breaks_every, minutes=args.break_minutes) \
        if args.breaks_every else Breaks(at_minute=55 if args.break_at is None else args.break_at,
                                         minutes=args.break_minutes)
    fields = {"name": args.name, "minutes": args.minutes, "seats": args.seats,
              "buy_in_cents": round(args.buy_in * 100), "fee_cents": round(args.fee * 100),
              "late_levels": args.late_levels, "reentry_levels": args.reentry_levels, "reentries": args.reentries,
              "breaks": breaks, "ante": args.ante, "hands_per_hour": pace_of(args.pace),
              "max_players": args.max_players}
    return msgspec.convert(fields, EventOptions)


def run(args: argparse.Namespace) -> int:
    """A structure from a few numbers: as a table a director reads, with the field and the length to expect from
    quick simulations (on which the levels' climb is fitted), or (``--json``) the whole definition, as
    ``--config`` and the admin's form read it."""
    speed: Speed = "hyper" if args.hyper else "turbo" if args.turbo else "regular"
    try:
        options = options_of(args)
        if args.runs > 0:
            definition, made = fit_structure(args.players, args.hours, args.stack, speed=speed, options=options,
                                             runs=args.runs)
        else:
            definition = generate_structure(args.players, args.hours, args.stack, speed=speed, options=options)
            made = estimate(definition, args.players, 0)
    except (DefinitionError, ValueError) as problem:
        print(f"mttsim structure: {problem}", file=sys.stderr)
        return 2
    if structure_hours(args.players, args.hours, args.stack, speed, options) > args.hours:
        # One length, the one the table states: the simulations' where there are any, else the structure's own.
        takes = made.hours.median if made.hours is not None else \
            structure_hours(args.players, args.hours, args.stack, speed, options)
        faster = next((other for other in ("turbo", "hyper") if other != speed and
                       structure_hours(args.players, args.hours, args.stack, other, options) <= args.hours), None)
        print(f"mttsim structure: in {args.hours:g} h the big blind would have to climb more than a level's step "
              f"(docs/config.md); this structure takes about {hours_minutes(takes)}, the shortest that climbs by "
              f"at most the step" + (f" (--{faster} meets {args.hours:g} h)" if faster else ""), file=sys.stderr)
    if args.json:
        print(msgspec.json.format(msgspec.json.encode(definition), indent=1).decode())
    else:
        print(schedule_text(made))
    return 0
