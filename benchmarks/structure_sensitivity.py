"""How a simulated tournament's length answers its structure, with the old bot mix and the realistic default.

A director simulates a structure to learn about the structure. With bots that give their chips away
the length barely moves when the blinds do. Each structure below is the default one for the field with one
change (levels twice as long, a starting stack twice as deep, no antes), played over the same seeds by the
structure lab (bots/lab.py); the figure is the median simulated duration and its ratio to the unchanged one.

Run: .venv/bin/python benchmarks/structure_sensitivity.py [--players 300] [--runs 5]
Figures, not timing: the same seeds give the same numbers on any machine.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bots.lab import Field, lab  # noqa: E402
from bots.strategies import DEFAULT_MIX  # noqa: E402
from engine.structure import Definition, default_definition  # noqa: E402

OLD_MIX = {"tag": 4.0, "pushfold": 3.0, "station": 2.0, "random": 1.0}  # the default before the regular players


def structures(players: int) -> dict[str, Definition]:
    base = default_definition(players)
    replace = msgspec.structs.replace
    return {
        "the default": base,
        "levels twice as long": replace(base, levels=[replace(level, minutes=2 * level.minutes)
                                                      if level.minutes else level for level in base.levels]),
        "stack twice as deep": replace(base, starting_stack=2 * base.starting_stack),
        "no antes": replace(base, levels=[replace(level, ante=0, bb_ante=False) for level in base.levels]),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=300)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    seeds = range(1, args.runs + 1)
    print(f"{args.players} players, seeds 1-{args.runs}: median simulated hours (ratio to the default)")
    for name, mix in (("old mix tag=4,pushfold=3,station=2,random=1", OLD_MIX), ("realistic default", DEFAULT_MIX)):
        print(f"  {name}")
        base = None
        for change, definition in structures(args.players).items():
            report = lab(definition, Field(args.players, mix), seeds)
            hours = report.hours.median
            base = base or hours
            busts = report.levels[0].eliminations.median if report.levels else 0
            print(f"    {change:<22} {hours:5.2f} h  x{hours / base:.2f}   (busts in level 1: {busts:.0f}, "
                  f"p10-p90 {report.hours.p10:.2f}-{report.hours.p90:.2f} h)", flush=True)


if __name__ == "__main__":
    main()
