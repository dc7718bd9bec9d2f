"""``mttsim structure``: a whole definition from a few numbers."""

from __future__ import annotations

import argparse
import sys
from typing import Any

import msgspec

from bots.lab import estimate, schedule_text
from engine.structure import DefinitionError, Speed, generate_structure, structure_hours
from server.cli.common import command

EXAMPLE = ("  mttsim structure --players 200 --hours 4 --stack 20000   # a table with the field to expect\n"
               "  mttsim structure --players 200 --hours 4 --stack 20000 --json > structure.json")


def add(commands: Any) -> None:
    parser = command(commands, "structure", EXAMPLE, "print a whole definition from a few numbers")
    parser.add_argument("--players", type=int, required=True, help="the expected field")
    parser.add_argument("--hours", type=float, required=True, help="about when one player is left")
    parser.add_argument("--stack", type=int, required=True, help="the starting stack")
    speed = parser.add_mutually_exclusive_group()
    speed.add_argument("--turbo", action="store_true", help="5-minute levels (regular: 10)")
    speed.add_argument("--hyper", action="store_true", help="3-minute levels")
    parser.add_argument("--ante", choices=["bb", "classic"], default="bb",
                        help="a big-blind ante, or everyone's, from level 3")
    parser.add_argument("--json", action="store_true",
                        help="print the whole definition as JSON (for --config) instead of the table")
    parser.add_argument("--runs", type=int, default=3, metavar="N",
                        help="quick simulations for the field and length to expect (0: none)")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """A structure from a few numbers: as a table a director reads, with the field and the length to expect from
    quick simulations, or (``--json``) the whole definition, as ``--config`` and the admin's form read it."""
    speed: Speed = "hyper" if args.hyper else "turbo" if args.turbo else "regular"
    try:
        definition = generate_structure(args.players, args.hours, args.stack, speed=speed, ante=args.ante)
    except DefinitionError as problem:
        print(f"mttsim structure: {problem}", file=sys.stderr)
        return 2
    made = structure_hours(args.players, args.hours, args.stack, speed)
    if made > args.hours:
        faster = next((other for other in ("turbo", "hyper") if other != speed and
                       structure_hours(args.players, args.hours, args.stack, other) <= args.hours), None)
        print(f"mttsim structure: in {args.hours:g} h the big blind would have to more than double a level; this "
              f"structure takes about {made:g} h, the shortest that climbs at most twice a level"
              + (f" (--{faster} meets {args.hours:g} h)" if faster else ""), file=sys.stderr)
    if args.json:
        print(msgspec.json.format(msgspec.json.encode(definition), indent=1).decode())
    else:
        print(schedule_text(estimate(definition, args.players, args.runs)))
    return 0
