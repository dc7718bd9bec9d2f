"""The structure lab's runs: ``mttsim simulate --runs 8 --players 2000`` against eight one-run calls.

Ours: ``bots.lab.lab`` playing seeds 1-8 of the default 2,000-player structure, the runs in ``--jobs``
processes (default: one per core) and observed for the report. Peer, same run: the same eight seeds as
eight calls of ``mttsim simulate --players 2000 --seed S --json``, one after the other, each a process of
its own, as a director without the lab would get them. The goal: faster, using both cores.

The comparison: ``mttsim simulate --compare`` of two ``--compare-players`` structures (levels of
15 and 20 minutes), ``--runs`` seeds each, against one structure's lab on the same seeds, in the same run
(goal: within 2.2x; both structures' runs share one pool of processes).

Run: .venv/bin/python benchmarks/bench_lab.py [--runs 8] [--players 2000] [--jobs J] [--repeat 3]
         [--compare-players 1000]
Prints each repeat and the medians, with the ratio one-by-one / lab, and compare / one structure's lab.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import msgspec  # noqa: E402

from bots.lab import Field, compare, lab  # noqa: E402
from engine.structure import Definition, default_definition  # noqa: E402


def one_by_one(players: int, seeds: range) -> float:
    started = time.perf_counter()
    for seed in seeds:
        subprocess.run([sys.executable, "-m", "server.cli", "simulate", "--players", str(players), "--seed",
                        str(seed), "--json"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - started


def in_the_lab(players: int, seeds: range, jobs: int | None) -> float:
    started = time.perf_counter()
    lab(default_definition(players), Field(players), seeds, jobs=jobs)
    return time.perf_counter() - started


def levels_of(players: int, minutes: float) -> Definition:
    definition = default_definition(players)
    return msgspec.structs.replace(definition, name=f"{minutes:g} minutes", levels=[
        msgspec.structs.replace(level, minutes=minutes) for level in definition.levels])


def timed(play: Callable[[], object]) -> float:
    started = time.perf_counter()
    play()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--players", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--compare-players", type=int, default=1000, help="the comparison's field (0 skips)")
    args = parser.parse_args()
    seeds = range(1, args.runs + 1)
    print(f"{args.runs} runs of {args.players:,} players, {os.cpu_count()} cores, jobs {args.jobs or 'one per core'}")
    labs, singles = [], []
    for repeat in range(1, args.repeat + 1):
        labs.append(in_the_lab(args.players, seeds, args.jobs))
        singles.append(one_by_one(args.players, seeds))
        print(f"  repeat {repeat}: lab {labs[-1]:.1f} s, one by one {singles[-1]:.1f} s, "
              f"ratio {singles[-1] / labs[-1]:.2f}")
    lab_s, single_s = statistics.median(labs), statistics.median(singles)
    print(f"median: lab {lab_s:.1f} s, eight one-run calls {single_s:.1f} s: the lab {single_s / lab_s:.2f}x faster")
    if args.compare_players:
        players, field = args.compare_players, Field(args.compare_players)
        fifteen, twenty = levels_of(players, 15), levels_of(players, 20)
        print(f"compare: two {players:,}-player structures (15 and 20 minutes), {args.runs} runs each, against the "
              f"15-minute one's lab")
        ones, twos = [], []
        for repeat in range(1, args.repeat + 1):
            ones.append(timed(lambda: lab(fifteen, field, seeds, jobs=args.jobs)))
            twos.append(timed(lambda: compare([fifteen, twenty], field, seeds, jobs=args.jobs)))
            print(f"  repeat {repeat}: one structure {ones[-1]:.1f} s, two compared {twos[-1]:.1f} s, "
                  f"ratio {twos[-1] / ones[-1]:.2f}")
        one_s, two_s = statistics.median(ones), statistics.median(twos)
        print(f"median: one structure {one_s:.1f} s, two compared {two_s:.1f} s: {two_s / one_s:.2f}x "
              f"(goal within 2.2x; the 20-minute structure plays more hands, so more than 2x is its own length)")


if __name__ == "__main__":
    main()
