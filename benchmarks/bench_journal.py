"""The journal's cost: restoring a 1,000-table tournament, and what journaling adds to each action.

Restore: an 11,000-player tournament at 9-seat tables (over 1,000 tables still open at the crash) is played
through the runtime's journaled commands into an SQLite file, with snapshots
as the server takes them, and left with hands in progress. The figure is the
time from opening the file to a runtime ready to play (read, unpickle the
snapshot, replay the commands after it, void the interrupted hands). Its peer
in the same run is the same restore without snapshots: a replay of the whole
journal.

Per action: the same decisions through ``_command`` with the SQLite journal
(NORMAL sync, as for every decision; FULL for money) and with the in-memory
storage, whose difference is the journal's cost.

Run: .venv/bin/python benchmarks/bench_journal.py [--repeat R] [--hands H]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import server.tournament.persistence  # noqa: E402
from bots.strategies import seat_view, tight_aggressive  # noqa: E402
from engine.structure import default_definition  # noqa: E402
from server.tournament import records
from server.storage import MemoryStorage, SQLiteStorage, Storage  # noqa: E402
from server.tournament.runtime import TournamentRuntime  # noqa: E402

PLAYERS = 11_000  # 1,223 tables at 9 seats when it starts; over 1,000 still open at the crash


def play(runtime: TournamentRuntime, hands: int, rng: random.Random) -> int:
    """Deal and play ``hands`` hands table by table through journaled commands; returns the decisions made."""
    director = runtime.director
    decisions = 0
    now = 0.0
    while director.hands_played < hands:
        now += 1.0
        runtime.submit(records.Advance(now))
        for table in director.tables_ready():
            if director.hands_played >= hands:
                break
            if not director.is_ready(table):  # broken or waiting since the list was made
                continue
            runtime.recorder.record(records.StartHand(table))
            hand = director.hand(table)
            while not hand.finished:
                action, amount = tight_aggressive(seat_view(hand), rng)
                player = hand.players[hand.actor]
                runtime.recorder.record(records.Act(table, action, amount, player, 30.0))
                decisions += 1
            runtime.submit(records.EndHand(table))
            runtime.journal.maybe_snapshot(runtime.session)
    for table in director.tables_ready():  # the crash comes with a hand in progress at every table
        runtime.recorder.record(records.StartHand(table))
    return decisions


def build(storage: Storage, hands: int) -> tuple[TournamentRuntime, int, float]:
    definition = default_definition(PLAYERS, 9)
    runtime = TournamentRuntime.create("bench", definition, storage, hand_pause=0)
    for number in range(PLAYERS):
        runtime.register(f"player {number}")
    runtime.submit(records.Start(0.0, 0.0))
    start = time.perf_counter()
    decisions = play(runtime, hands, random.Random(1))
    return runtime, decisions, time.perf_counter() - start


def restore_seconds(path: str) -> float:
    start = time.perf_counter()
    storage = SQLiteStorage(path)
    (stored,) = storage.tournaments()
    runtime = TournamentRuntime.restore(stored, storage, hand_pause=0)
    for table in sorted(runtime.director.tables):
        if runtime.director.hand(table) is not None:
            runtime.submit(records.VoidHand(table))
    seconds = time.perf_counter() - start
    assert runtime.director.chips_in_play() == runtime.director.chips_issued
    storage.close()
    return seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--hands", type=int, default=6_000, help="hands played before the crash")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        figures = {}
        for label, every in (("with snapshots", server.tournament.persistence.SNAPSHOT_EVERY), ("replay only", 10**12)):
            server.tournament.persistence.SNAPSHOT_EVERY = every
            path = f"{scratch}/{label.replace(' ', '-')}.db"
            runtime, decisions, played = build(SQLiteStorage(path), args.hands)
            tables = len(runtime.director.tables)
            runtime.storage.close()
            figures[label] = statistics.median(restore_seconds(path) for _ in range(args.repeat))
            print(f"{label}: {tables} tables, {args.hands:,} hands and {decisions:,} decisions journaled "
                  f"in {played:.1f} s; restore {figures[label]:.2f} s (median of {args.repeat})")
        print(f"restore of {tables:,} tables: {figures['with snapshots']:.2f} s with snapshots, "
              f"{figures['replay only']:.2f} s replaying everything "
              f"({figures['replay only'] / figures['with snapshots']:.1f}x); goal under 5 s")

        server.tournament.persistence.SNAPSHOT_EVERY = 10**12
        per_action = {}
        for label, storage in (("sqlite", SQLiteStorage(f"{scratch}/actions.db")), ("memory", MemoryStorage())):
            runs = []
            for _ in range(args.repeat):
                runtime, decisions, played = build(storage, 3_000)
                runs.append(played / decisions * 1e6)
                storage = SQLiteStorage(f"{scratch}/actions-{len(runs)}.db") if label == "sqlite" else MemoryStorage()
            per_action[label] = statistics.median(runs)
        print(f"per decision (dealing and settling included): {per_action['sqlite']:.1f} us journaled to SQLite, "
              f"{per_action['memory']:.1f} us in memory: the journal adds "
              f"{per_action['sqlite'] - per_action['memory']:.1f} us "
              f"({per_action['sqlite'] / per_action['memory']:.2f}x)")

        storage = SQLiteStorage(f"{scratch}/money.db")
        storage.create("m", b"{}", 1, b"key")
        for money in (False, True):
            start = time.perf_counter()
            for _ in range(200):
                storage.append("m", b"\x91\xa6record", money=money)
            print(f"one record committed with synchronous={'FULL' if money else 'NORMAL'}: "
                  f"{(time.perf_counter() - start) / 200 * 1e6:.0f} us")


if __name__ == "__main__":
    main()
