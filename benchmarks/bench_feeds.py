"""What a tournament's page costs the server: the board feed (server/tournament/feeds.py) next to the polling it
replaced.

A running tournament of N entries (3,000 by default, as the issue measured).
The peer, measured in the same run: the page as it was, every viewer asking
for the whole tournament (``GET /api/tournaments/{id}``, built and encoded)
every 2 s. The feed: one build of the board's rows a second per tournament,
however many watch, after a hand has changed six stacks; each viewer then
gets only the changed rows. The figures: milliseconds of server time a
second for 1, 10 and 100 viewers, and the bytes each viewer receives.

Run: .venv/bin/python benchmarks/bench_feeds.py [--players N] [--repeat R]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.structure import default_definition
from server.tournament import feeds
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime

POLL_SECONDS = 2.0  # how often each page asked before


def running(players: int) -> TournamentRuntime:
    definition = default_definition(players)
    runtime = TournamentRuntime.create("bench", definition, MemoryStorage(), hand_pause=0)
    for number in range(players):
        runtime.register(f"player {number}")
    runtime.start()  # outside an event loop: the draw is routed at once and no table plays
    return runtime


def a_hand(runtime: TournamentRuntime, hand: int) -> None:
    """Six stacks change, as a hand at one table changes them (the feed sees a new version)."""
    director = runtime.director
    table = sorted(director.tables)[hand % len(director.tables)]
    players = director.tables[table].table.players
    for giver, taker in zip(players[::2], players[1::2]):
        director.chips.set(giver, director.stacks[giver] - 10)
        director.chips.set(taker, director.stacks[taker] + 10)
    runtime.journal.position += 1


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=3000)
    parser.add_argument("--repeat", type=int, default=21)
    options = parser.parse_args()
    runtime = running(options.players)
    board = feeds.board(runtime)
    board.refresh()
    polls, builds, sizes, deltas = [], [], [], []
    for hand in range(options.repeat):
        a_hand(runtime, hand)
        started = time.perf_counter()
        details = msgspec.json.encode(runtime.details())
        polls.append(time.perf_counter() - started)
        sizes.append(len(details))
        started = time.perf_counter()
        changes = board.refresh()
        builds.append(time.perf_counter() - started)
        deltas.append(len(msgspec.json.encode(changes)))
    poll, build = median_ms(polls), median_ms(builds)
    print(f"{options.players} entries, {len(runtime.director.tables)} tables; medians of {options.repeat} runs")
    size = statistics.median(sizes) / 1024
    print(f"  polling (peer): {poll:.2f} ms and {size:.0f} KiB per viewer every {POLL_SECONDS:.0f} s")
    print(f"  board feed:     {build:.2f} ms a second per tournament; {statistics.median(deltas)} bytes per viewer "
          f"per change (the snapshot once: {len(msgspec.json.encode(board.rows)) / 1024:.0f} KiB)")
    for viewers in (1, 10, 100):
        before = poll * viewers / POLL_SECONDS
        print(f"  {viewers:>3} viewers: server time {before:8.2f} ms/s polling, {build:6.2f} ms/s feed: "
              f"{before / build:6.1f}x less")


if __name__ == "__main__":
    main()
