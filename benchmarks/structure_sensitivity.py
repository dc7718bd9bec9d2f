"""How a simulated tournament's length answers its structure, with the old bot mix and the realistic default.

A director simulates a structure to learn about the structure. With bots that give their chips away
the length barely moves when the blinds do. Each structure below is the default one for the field with one
change (levels twice as long, a starting stack twice as deep, no antes), played over the same seeds by the
structure lab (bots/lab.py); the figure is the median simulated duration and its ratio to the unchanged one.

Beside each ratio, the blinds' own: a tournament ends when its chips are a few big blinds, so with the stack
doubled it ends where the big blind has climbed twice as high as where the unchanged one ended, and with levels
twice as long the same climb takes twice the minutes. That ratio is what the structure alone allows to players
whose play depends on their depth in big blinds; the simulator's is held against it (``vs blinds``).

Run: .venv/bin/python benchmarks/structure_sensitivity.py [--players 300] [--runs 5]
     [--event benchmarks/real-events/wsop2019-e28.json --pace 35] (a published structure instead of the default)
Figures, not timing: the same seeds give the same numbers on any machine.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import msgspec
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.lab import Field, lab  # noqa: E402
from bots.strategies import DEFAULT_MIX  # noqa: E402
from engine.structure import Definition, default_definition, level_starts, load_definition  # noqa: E402

OLD_MIX = {"tag": 4.0, "pushfold": 3.0, "station": 2.0, "random": 1.0}  # the default before the regular players


def structures(base: Definition) -> dict[str, Definition]:
    replace = msgspec.structs.replace
    return {
        "unchanged": base,
        "levels twice as long": replace(base, levels=[replace(level, minutes=2 * level.minutes)
                                                      if level.minutes else level for level in base.levels]),
        "stack twice as deep": replace(base, starting_stack=2 * base.starting_stack),
        "no antes": replace(base, levels=[replace(level, ante=0, bb_ante=False) for level in base.levels]),
    }


def ladder(definition: Definition) -> tuple[list[float], list[float]]:
    """Each level's start in hours (breaks included, as the clock keeps them) and the log of its big blind: the
    blinds' climb, run straight from one level's to the next's over the level."""
    starts = [start / 60 for start in level_starts(definition) if start is not None]
    return starts, [math.log(level.big_blind) for level in definition.levels[:len(starts)]]


def blinds_ratio(base: Definition, changed: Definition, hours: float) -> float:
    """The length ``changed`` would have if the chips over the big blind alone decided the end, over ``hours``,
    the unchanged structure's: where ``base``'s blinds stood at its end, times the change in chips."""
    starts, climbs = ladder(base)
    climb = float(np.interp(hours, starts, climbs)) + math.log(changed.starting_stack / base.starting_stack)
    starts, climbs = ladder(changed)
    return float(np.interp(climb, climbs, starts)) / hours


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--event", type=Path, help="a definition's JSON to change instead of the default structure")
    parser.add_argument("--pace", type=float, help="hands a full table deals in an hour (default: the definition's)")
    args = parser.parse_args()
    seeds = range(1, args.runs + 1)
    unchanged = load_definition(args.event.read_bytes()) if args.event else default_definition(args.players)
    if args.pace:
        unchanged = msgspec.structs.replace(unchanged, hands_per_hour=args.pace)
    print(f"{unchanged.name}, {args.players} players, seeds 1-{args.runs}: median simulated hours (ratio to the "
          f"unchanged structure)")
    changes = structures(unchanged)
    for name, mix in (("old mix tag=4,pushfold=3,station=2,random=1", OLD_MIX), ("realistic default", DEFAULT_MIX)):
        print(f"  {name}")
        base = 0.0
        for change, definition in changes.items():
            report = lab(definition, Field(args.players, mix), seeds)
            hours = report.hours.median
            base = base or hours
            blinds = blinds_ratio(unchanged, definition, base)
            busts = report.levels[0].eliminations.median if report.levels else 0
            print(f"    {change:<22} {hours:5.2f} h  x{hours / base:.2f}   blinds alone x{blinds:.2f}, "
                  f"vs blinds {hours / base / blinds:.2f}   (busts in level 1: {busts:.0f}, "
                  f"p10-p90 {report.hours.p10:.2f}-{report.hours.p90:.2f} h)", flush=True)


if __name__ == "__main__":
    main()
