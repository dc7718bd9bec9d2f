"""How long the event loop stops at the edges of a large live tournament: the start, and a snapshot.

A 10,000-player tournament on the real runtime with its SQLite journal; every
player has a connection (the server's own ``Connection`` and ``Outbound``,
writing to a socket stand-in that takes every frame, so the server's own work
is measured, not the kernel's). A task that sleeps 1 ms at a time records
the longest gap between its turns: what every table and client waited.

- The start: from ``start`` (the draw, journaled) until every table has dealt
  its first hand. Peer, same run: the old way, the draw routed to every
  connection in one turn (``_route``), measured the same way.
- A snapshot, once every table has played three hands (the clock acting for
  everyone within 10 ms) and with a hand in progress at each: ``_maybe_snapshot``
  with a snapshot due (a forked child pickles the state, the parent stores
  it), next to the peer, pickling the same state on the loop as before. The
  tables are stopped first, so that only the snapshot's own stalls count.

- Every table dealing at once, at the end of a pause (as at the end of a
  break or of a hand-for-hand round), next to the peer waking every table in
  one turn, as before.

Goals (docs/performance.md): the start never stops the loop for more than
50 ms at a time, a snapshot for more than 20 ms.

Run: .venv/bin/python benchmarks/bench_stalls.py [--players N] [--repeat R]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import pickle
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import msgspec

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import server.tournament.persistence
import server.tournament.tables
from engine.structure import default_definition
from server.tournament import records
from server.hub import Outbound, SocketConnection
from server.storage import SQLiteStorage
from server.tournament.runtime import TournamentRuntime


class Socket:
    """Takes every frame at once."""

    paused = False

    def write_lines(self, lines: list[bytes]) -> bool:
        return True


class Stalls:
    """The longest wait of a task that asks for the loop every millisecond."""

    def __init__(self) -> None:
        self.longest = 0.0

    async def watch(self, stop: asyncio.Event) -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while not stop.is_set():
            await asyncio.sleep(0.001)
            now = loop.time()
            self.longest = max(self.longest, now - last - 0.001)
            last = now


async def a_field(players: int, scratch: str, run: int, *, action_seconds: float = 15.0) -> TournamentRuntime:
    """``players`` registered and connected; nobody acts, so the clock acts for them after ``action_seconds``."""
    storage = SQLiteStorage(os.path.join(scratch, f"journal-{run}.db"))
    definition = msgspec.structs.replace(default_definition(players), action_seconds=action_seconds,
                                         time_bank_seconds=0.0)
    runtime = TournamentRuntime.create(f"t{run}", definition, storage, hand_pause=0.2, seed=run)
    outbound = Outbound(0.05, storage.commit)
    for number in range(players):
        player, _ = runtime.register(f"player {number}")
        runtime.connect(SocketConnection(None, Socket(), player=player, outbound=outbound,
                                         max_queue=10_000, rate=50, burst=100), None)
    storage.commit()
    return runtime


async def start_stall(players: int, scratch: str, run: int, *, spread: bool) -> float:
    """The longest stall from the start until every table has dealt; ``spread=False`` routes the draw at once."""
    runtime = await a_field(players, scratch, run)
    stalls, stop = Stalls(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        tasks.create_task(stalls.watch(stop))
        await asyncio.sleep(0.01)
        if spread:
            runtime.start()
        else:  # the old start: every connection's snapshot in the start's own turn, then the tables
            runtime.clock.start()
            record = records.Start(runtime.now(), time.time())
            events = records.apply(runtime.session, record)
            runtime.journal.append(record, events, runtime.now(), runtime.director.level + 1)
            runtime.streams.route(events)
            runtime._task = tasks.create_task(runtime.run())
        director = runtime.director
        while director.hands_played < len(director.tables):
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        stop.set()
        await runtime.shutdown()
    runtime.storage.close()
    return stalls.longest


async def snapshot_stall(players: int, scratch: str, run: int) -> tuple[float, float, int]:
    """The longest stall around a forked snapshot, and the time the same pickle takes on the loop."""
    runtime = await a_field(players, scratch, 100 + run, action_seconds=0.01)
    stalls, stop = Stalls(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        runtime.start()
        director = runtime.director
        while director.hands_played < 3 * len(director.tables):  # the tables play on, the clock acting for all
            await asyncio.sleep(0.05)
        # The tables stop (the state stays, hands in progress included), so that the stalls measured are the
        # snapshot's own and not those of a thousand clocks acting at once.
        assert runtime._task is not None
        runtime._task.cancel()
        await asyncio.sleep(0.2)
        watching = tasks.create_task(stalls.watch(stop))
        await asyncio.sleep(0.05)
        persistence = server.tournament.persistence
        persistence.SNAPSHOT_EVERY = persistence.SNAPSHOT_RECORDS_PER_ENTRY = 0  # a snapshot is due now
        runtime.journal.maybe_snapshot(runtime.session)
        forked = runtime.journal.snapshotting
        assert forked is not None
        await forked
        server.tournament.persistence.SNAPSHOT_EVERY = 10**12
        await asyncio.sleep(0.05)
        stop.set()
        await watching  # before the peer's pickle, which would stall it too
        started = time.perf_counter()
        state = pickle.dumps(runtime.session.state(), pickle.HIGHEST_PROTOCOL)
        inline = time.perf_counter() - started
        await runtime.shutdown()
    runtime.storage.close()
    return stalls.longest, inline, len(state)


async def resume_stall(players: int, scratch: str, run: int, *, spread: bool) -> float:
    """The longest stall when every table deals at once: the end of a pause (as of a break).

    ``spread=False`` wakes every table in one turn, as before.
    """
    runtime = await a_field(players, scratch, 200 + run + (0 if spread else 50), action_seconds=0.01)
    stalls, stop = Stalls(), asyncio.Event()
    async with asyncio.TaskGroup() as tasks:
        runtime.start()
        director = runtime.director
        while director.hands_played < len(director.tables):
            await asyncio.sleep(0.05)
        runtime.pause()
        while any(director.hand(table) for table in director.tables):  # every table finishes its hand
            await asyncio.sleep(0.05)
        # From here players have the usual clock, so that no decision times out while the deals are measured.
        runtime.director.definition = msgspec.structs.replace(runtime.definition, action_seconds=15.0)
        watching = tasks.create_task(stalls.watch(stop))
        await asyncio.sleep(0.05)
        dealt = director.hands_played
        if spread:
            runtime.resume()
        else:
            with patched(server.tournament.tables, "TABLES_STARTED_PER_TURN", 10**9):
                runtime.resume()
        while director.hands_played < dealt + len(director.tables):
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        stop.set()
        await watching
        await runtime.shutdown()
    runtime.storage.close()
    return stalls.longest


@contextlib.contextmanager
def patched(module: object, name: str, value: object) -> Iterator[None]:
    old = getattr(module, name)
    setattr(module, name, value)
    try:
        yield
    finally:
        setattr(module, name, old)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    server.tournament.persistence.SNAPSHOT_EVERY = 10**12
    starts, peers, forked, inline, resumes, resume_peers = [], [], [], [], [], []
    with tempfile.TemporaryDirectory() as scratch:
        for run in range(args.repeat):
            starts.append(asyncio.run(start_stall(args.players, scratch, run, spread=True)) * 1000)
            peers.append(asyncio.run(start_stall(args.players, scratch, 50 + run, spread=False)) * 1000)
            stall, pickled, size = asyncio.run(snapshot_stall(args.players, scratch, run))
            forked.append(stall * 1000)
            inline.append(pickled * 1000)
            resumes.append(asyncio.run(resume_stall(args.players, scratch, run, spread=True)) * 1000)
            resume_peers.append(asyncio.run(resume_stall(args.players, scratch, run, spread=False)) * 1000)
            print(f"run {run + 1}: start {starts[-1]:.1f} ms (draw routed at once: {peers[-1]:.1f} ms); "
                  f"snapshot {forked[-1]:.1f} ms (pickled on the loop: {inline[-1]:.1f} ms, {size / 1e6:.1f} MB); "
                  f"every table dealing again {resumes[-1]:.1f} ms (in one turn: {resume_peers[-1]:.1f} ms)",
                  flush=True)
    print(f"\n{args.players:,} players, longest loop stall, median of {args.repeat}:")
    print(f"  start:    {statistics.median(starts):6.1f} ms; the draw routed in one turn: "
          f"{statistics.median(peers):6.1f} ms (goal: under 50 ms)")
    print(f"  snapshot: {statistics.median(forked):6.1f} ms; pickled on the loop:      "
          f"{statistics.median(inline):6.1f} ms (goal: under 20 ms)")
    print(f"  resume:   {statistics.median(resumes):6.1f} ms; every table in one turn:   "
          f"{statistics.median(resume_peers):6.1f} ms")


if __name__ == "__main__":
    main()
