"""Whole tournaments of 10,000, 50,000 and 100,000 players, simulated end to end; PokerKit replaying a sample of hands.

Ours: ``mttsim simulate`` with the default structure and bot mix: seating,
every hand with the bots' decisions, breaking, balancing, hand-for-hand and
payouts, in one process on one core. Each run is a fresh process, so its peak
resident memory is its own. The goals (docs/performance.md): hands/s at
100,000 players at least 0.8x hands/s at 10,000, and 100,000 players in under
100 s.

Peer, same run: PokerKit replaying the hands of a 300-player tournament with
the same structure, bots and seed, from their PHH (``HandHistory`` iteration:
each hand set up and every action applied). That is only the hand-playing
part of the work, without bots or a director, so the ratio understates our lead.

Run: .venv/bin/python benchmarks/bench_tournament.py [--sizes 10000,50000,100000] [--repeat R] [--sample K]
     [--compare-mix tag=4,pushfold=3,station=2,random=1]
Prints the median of R runs per size.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.structure import default_definition  # noqa: E402
from bots.simulator import simulate  # noqa: E402


def pokerkit_replay_rate(phhs: str, sample: int) -> float:
    """PokerKit hands/s replaying the first ``sample`` hands of a .phhs text."""
    from pokerkit import HandHistory

    warnings.filterwarnings("ignore", message="A card being dealt")
    histories = list(HandHistory.loads_all(phhs))[:sample]
    started = time.perf_counter()
    for history in histories:
        for _ in history:
            pass
    return len(histories) / (time.perf_counter() - started)


def simulated(players: int, seed: int, mix: str = "") -> tuple[dict, float]:
    """One ``mttsim simulate --json`` in a process of its own: its report and its peak resident memory in MB."""
    child = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "simulate", "--players", str(players), "--seed", str(seed), "--json",
         *(["--mix", mix] if mix else [])],
        cwd=ROOT, stdout=subprocess.PIPE)
    assert child.stdout is not None
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode:
        raise RuntimeError(f"simulate --players {players} exited with {child.returncode}")
    return json.loads(output), usage.ru_maxrss / 1024  # kB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,50000,100000", help="fields to simulate, comma-separated")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=2_000, help="hands PokerKit replays")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare-mix", default="", metavar="MIX",
                        help="also simulate each size with this bot mix, alternating, and print its hands/s beside "
                             "the default's (issue 37: tag=4,pushfold=3,station=2,random=1, the old default)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    other: dict[int, list[float]] = {size: [] for size in sizes}

    rates: dict[int, list[float]] = {size: [] for size in sizes}
    walls: dict[int, list[float]] = {size: [] for size in sizes}
    memory: dict[int, list[float]] = {size: [] for size in sizes}
    hands: dict[int, int] = {}
    peers = []
    for run in range(args.repeat):
        for size in sizes:
            report, peak_mb = simulated(size, args.seed + run)
            rates[size].append(report["hands_per_s"])
            walls[size].append(report["wall_s"])
            memory[size].append(peak_mb)
            hands[size] = report["hands"]
            print(f"run {run + 1}, {size:,} players: {report['hands']:,} hands, {report['wall_s']:.2f} s, "
                  f"{report['hands_per_s']:,.0f} hands/s, peak {peak_mb:,.0f} MB", flush=True)
            if args.compare_mix:
                compared, _ = simulated(size, args.seed + run, args.compare_mix)
                other[size].append(compared["hands_per_s"])
                print(f"run {run + 1}, {size:,} players, --mix {args.compare_mix}: {compared['hands']:,} hands, "
                      f"{compared['hands_per_s']:,.0f} hands/s", flush=True)
        phhs = io.StringIO()
        simulate(default_definition(300), 300, args.seed + run, hands_out=phhs)
        peers.append(pokerkit_replay_rate(phhs.getvalue(), args.sample))
        print(f"run {run + 1}: PokerKit replays {peers[-1]:,.0f} hands/s", flush=True)

    peer = statistics.median(peers)
    base = statistics.median(rates[sizes[0]])
    print(f"\nmedian of {args.repeat} runs per size:")
    print(f"{'players':>9} {'hands':>9} {'wall s':>8} {'hands/s':>9} {'vs first':>9} {'peak MB':>8} "
          f"{'MB/1k':>6} {'vs PokerKit':>12}")
    for size in sizes:
        rate, peak = statistics.median(rates[size]), statistics.median(memory[size])
        print(f"{size:>9,} {hands[size]:>9,} {statistics.median(walls[size]):>8.2f} {rate:>9,.0f} "
              f"{rate / base:>8.2f}x {peak:>8,.0f} {peak / size * 1000:>6.2f} {rate / peer:>11.0f}x")
    print(f"\nPokerKit replaying the same kind of hands: {peer:,.0f} hands/s (ours includes bots and director)")
    for size in sizes if args.compare_mix else []:
        ours, theirs = statistics.median(rates[size]), statistics.median(other[size])
        print(f"{size:,} players: the default mix {ours:,.0f} hands/s, --mix {args.compare_mix} {theirs:,.0f}: "
              f"{ours / theirs:.2f}x")
    print("goals: the largest field at 0.8x or more of the first's hands/s; 100,000 players under 100 s")


if __name__ == "__main__":
    main()
