"""Whole tournaments of 10,000, 50,000 and 100,000 players, simulated end to end; PokerKit replaying a sample of hands.

Ours: ``mttsim simulate`` with the default structure and bot mix: seating,
every hand with the bots' decisions, breaking, balancing, hand-for-hand and
payouts, in one process on one core, and with ``--jobs`` its hands over more
processes (``--jobs 2`` against ``--jobs 1``, the same tournaments).
Each run is a fresh process, so its peak resident memory is its own (with
``--jobs``, the director's: the largest of its processes). The goals (docs/performance.md): hands/s at
100,000 players at least 0.8x hands/s at 10,000, and 100,000 players in under
100 s.

Peer, same run: PokerKit replaying the hands of a 300-player tournament with
the same structure, bots and seed, from their PHH (``HandHistory`` iteration:
each hand set up and every action applied). That is only the hand-playing
part of the work, without bots or a director, so the ratio understates our lead.

Run: .venv/bin/python benchmarks/bench_tournament.py [--sizes 10000,50000,100000] [--jobs 1,2] [--repeat R]
     [--sample K] [--compare-mix tag=4,pushfold=3,station=2,random=1]
Prints the median of R runs per size.
"""

from __future__ import annotations

import argparse
import io
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
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


def peer_rate(seed: int, sample: int) -> float:
    """PokerKit's hands/s on a 300-player tournament's hands, in a process of its own: Linux keeps a process's
    peak memory across exec, so a simulation started from a parent grown by PokerKit would report the parent's."""
    phhs = io.StringIO()
    simulate(default_definition(300), 300, seed, hands_out=phhs)
    return pokerkit_replay_rate(phhs.getvalue(), sample)


def simulated(players: int, seed: int, mix: str = "", jobs: int = 1) -> tuple[dict, float]:
    """One ``mttsim simulate --json`` in a process of its own: its report and its peak resident memory in MB."""
    child = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "simulate", "--players", str(players), "--seed", str(seed), "--json",
         "--jobs", str(jobs), *(["--mix", mix] if mix else [])],
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
    parser.add_argument("--jobs", default="1", help="processes per run, comma-separated: each size is played with "
                        "each, on the same seeds (1,2: --jobs 2 against one process)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sample", type=int, default=2_000, help="hands PokerKit replays")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--compare-mix", default="", metavar="MIX",
                        help="also simulate each size with this bot mix, alternating, and print its hands/s beside "
                             "the default's (tag=4,pushfold=3,station=2,random=1, the old default)")
    args = parser.parse_args()
    sizes = [int(size) for size in args.sizes.split(",")]
    jobs = [int(count) for count in args.jobs.split(",")]
    other: dict[int, list[float]] = {size: [] for size in sizes}

    rows = [(size, count) for size in sizes for count in jobs]
    rates: dict[tuple[int, int], list[float]] = {row: [] for row in rows}
    walls: dict[tuple[int, int], list[float]] = {row: [] for row in rows}
    memory: dict[tuple[int, int], list[float]] = {row: [] for row in rows}
    hands: dict[int, int] = {}
    peers = []
    for run in range(args.repeat):
        for size, count in rows:
            report, peak_mb = simulated(size, args.seed + run, jobs=count)
            rates[size, count].append(report["hands_per_s"])
            walls[size, count].append(report["wall_s"])
            memory[size, count].append(peak_mb)
            if hands.setdefault(size * 1000 + run, report["hands"]) != report["hands"]:
                raise RuntimeError(f"--jobs {count} played another tournament than --jobs {jobs[0]}")
            hands[size] = report["hands"]
            print(f"run {run + 1}, {size:,} players, --jobs {count}: {report['hands']:,} hands, "
                  f"{report['wall_s']:.2f} s, {report['hands_per_s']:,.0f} hands/s, peak {peak_mb:,.0f} MB",
                  flush=True)
            if args.compare_mix and count == jobs[0]:
                compared, _ = simulated(size, args.seed + run, args.compare_mix)
                other[size].append(compared["hands_per_s"])
                print(f"run {run + 1}, {size:,} players, --mix {args.compare_mix}: {compared['hands']:,} hands, "
                      f"{compared['hands_per_s']:,.0f} hands/s", flush=True)
        with ProcessPoolExecutor(1, mp_context=multiprocessing.get_context("spawn")) as alone:
            peers.append(alone.submit(peer_rate, args.seed + run, args.sample).result())
        print(f"run {run + 1}: PokerKit replays {peers[-1]:,.0f} hands/s", flush=True)

    peer = statistics.median(peers)
    base = statistics.median(rates[rows[0]])
    print(f"\nmedian of {args.repeat} runs per size:")
    print(f"{'players':>9} {'jobs':>5} {'hands':>9} {'wall s':>8} {'hands/s':>9} {'vs first':>9} "
          f"{'vs jobs ' + str(jobs[0]):>10} {'peak MB':>8} {'MB/1k':>6} {'vs PokerKit':>12}")
    for size, count in rows:
        rate, peak = statistics.median(rates[size, count]), statistics.median(memory[size, count])
        print(f"{size:>9,} {count:>5} {hands[size]:>9,} {statistics.median(walls[size, count]):>8.2f} {rate:>9,.0f} "
              f"{rate / base:>8.2f}x {rate / statistics.median(rates[size, jobs[0]]):>9.2f}x {peak:>8,.0f} "
              f"{peak / size * 1000:>6.2f} {rate / peer:>11.0f}x")
    print(f"\nPokerKit replaying the same kind of hands: {peer:,.0f} hands/s (ours includes bots and director)")
    for size in sizes if args.compare_mix else []:
        ours, theirs = statistics.median(rates[size, jobs[0]]), statistics.median(other[size])
        print(f"{size:,} players: the default mix {ours:,.0f} hands/s, --mix {args.compare_mix} {theirs:,.0f}: "
              f"{ours / theirs:.2f}x")
    print("goals: --jobs 2 at 1.7x or more of --jobs 1; 250,000 players under 120 s with --jobs 2; "
          "at least 15x PokerKit")


if __name__ == "__main__":
    main()
