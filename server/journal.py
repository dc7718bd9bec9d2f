"""Persistence: each tournament's commands, written before anything they caused is acknowledged or broadcast.

The director is deterministic: the same definition, the same seed and the
same commands in the same order give the same tournament, to the card. So the
journal keeps the commands (with the clock values they were given) and the
events each caused, and a restored server replays the commands and checks the
events it gets against the journaled ones (server/runtime.py). The hand
histories of finished hands, which users read, are also stored as PHH.

Snapshots (the runtime's state, pickled right after a hand ends) bound the
replay: a restore loads the newest one and replays only what followed.

``Storage`` is the interface a backend implements. ``SQLiteStorage`` is the
default: one file in WAL mode, where a command that moves money (a buy-in, a
re-buy, a prize, a refund, a deal) is committed with ``synchronous=FULL`` and
the rest with ``NORMAL`` (durable across a crash of the process; only a power
cut could lose the last of them, and those moved no money). Commands that
move no money are committed together once per turn of the event loop (a group
commit): a commit per decision was a tenth of the server's time under a swarm,
and nothing they caused reaches a socket before the turn ends, so a crash
cannot show a client what the journal lacks. ``MemoryStorage`` keeps
everything in the process, for tests and the demo.
"""

from __future__ import annotations

import asyncio
import sqlite3
from typing import Protocol

import msgspec


class Stored(msgspec.Struct):
    """A tournament to restore: how it was created, its newest snapshot and the commands after it."""

    id: str
    definition: bytes
    seed: int
    snapshot: bytes | None
    records: list[bytes]
    position: int  # of the last record


class HandRow(msgspec.Struct):
    hand: int
    table: int
    players: list[str]


class Storage(Protocol):
    def create(self, tournament: str, definition: bytes, seed: int) -> None: ...

    def append(self, tournament: str, record: bytes, *, money: bool) -> int:
        """Journal ``record`` and return its position (1, 2, ...) in the tournament's journal: durable at once
        when it moves ``money``, else by the next ``commit`` at the latest.
        """
        ...

    def commit(self) -> None:
        """Make every record appended so far durable (before anything they caused is sent)."""
        ...

    def snapshot(self, tournament: str, position: int, state: bytes) -> None:
        """The state after record ``position``; older snapshots and the records they cover may go."""
        ...

    def close_tournament(self, tournament: str, status: str) -> None:
        """Finished or cancelled: nothing to restore any more (its hand histories stay)."""
        ...

    def unfinished(self) -> list[Stored]: ...

    def add_hand(self, tournament: str, hand: int, table: int, players: list[str], phh: str) -> None: ...

    def hands(self, tournament: str, player: str | None = None, table: int | None = None) -> list[HandRow]: ...

    def hand(self, tournament: str, hand: int) -> str | None: ...

    def close(self) -> None: ...


class MemoryStorage:
    """The interface without a disk: what one process needs to serve hand histories."""

    def __init__(self) -> None:
        self._tournaments: dict[str, tuple[bytes, int]] = {}
        self._records: dict[str, list[bytes]] = {}
        self._snapshots: dict[str, tuple[int, bytes]] = {}
        self._open: set[str] = set()
        self._hands: dict[str, dict[int, tuple[int, list[str], str]]] = {}

    def create(self, tournament: str, definition: bytes, seed: int) -> None:
        self._tournaments[tournament] = (definition, seed)
        self._records[tournament] = []
        self._open.add(tournament)

    def append(self, tournament: str, record: bytes, *, money: bool) -> int:
        records = self._records.setdefault(tournament, [])
        records.append(record)
        return len(records)

    def snapshot(self, tournament: str, position: int, state: bytes) -> None:
        self._snapshots[tournament] = (position, state)

    def close_tournament(self, tournament: str, status: str) -> None:
        self._open.discard(tournament)

    def unfinished(self) -> list[Stored]:
        stored = []
        for tournament in sorted(self._open):
            definition, seed = self._tournaments[tournament]
            records = self._records[tournament]
            position, state = self._snapshots.get(tournament, (0, None))
            stored.append(Stored(tournament, definition, seed, state, records[position:], len(records)))
        return stored

    def add_hand(self, tournament: str, hand: int, table: int, players: list[str], phh: str) -> None:
        self._hands.setdefault(tournament, {})[hand] = (table, players, phh)

    def hands(self, tournament: str, player: str | None = None, table: int | None = None) -> list[HandRow]:
        return [HandRow(number, at, players) for number, (at, players, _) in sorted(self._hands.get(tournament, {}).items())
                if (player is None or player in players) and (table is None or table == at)]

    def hand(self, tournament: str, hand: int) -> str | None:
        found = self._hands.get(tournament, {}).get(hand)
        return found[2] if found else None

    def commit(self) -> None:
        pass

    def close(self) -> None:
        pass


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY, definition BLOB NOT NULL, seed INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'open');
CREATE TABLE IF NOT EXISTS journal (
    tournament TEXT NOT NULL, position INTEGER NOT NULL, record BLOB NOT NULL, PRIMARY KEY (tournament, position))
    WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (tournament TEXT PRIMARY KEY, position INTEGER NOT NULL, state BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS hands (
    tournament TEXT NOT NULL, hand INTEGER NOT NULL, table_id INTEGER NOT NULL, phh TEXT NOT NULL,
    PRIMARY KEY (tournament, hand)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hand_players (
    tournament TEXT NOT NULL, player TEXT NOT NULL, hand INTEGER NOT NULL, PRIMARY KEY (tournament, player, hand))
    WITHOUT ROWID;
"""


class SQLiteStorage:
    """One SQLite file in WAL mode (see the module's docstring for what is synced when)."""

    def __init__(self, path: str) -> None:
        self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.executescript(_SCHEMA)
        self._full = True
        self._sync(False)
        self._positions: dict[str, int] = {
            tournament: position for tournament, position in
            self._db.execute("SELECT tournament, MAX(position) FROM journal GROUP BY tournament")}
        # What this turn of the event loop wrote, committed together at its end (the module's docstring).
        self._records: list[tuple[str, int, bytes]] = []
        self._hands: list[tuple[tuple[str, int, int, str], list[tuple[str, str, int]]]] = []
        self._commit_due = False

    def _sync(self, full: bool) -> None:
        if full != self._full:
            self._db.execute(f"PRAGMA synchronous={'FULL' if full else 'NORMAL'}")
            self._full = full

    def create(self, tournament: str, definition: bytes, seed: int) -> None:
        self.commit()
        self._sync(True)
        self._db.execute("INSERT INTO tournaments (id, definition, seed) VALUES (?, ?, ?)",
                         (tournament, definition, seed))
        self._positions[tournament] = 0

    def append(self, tournament: str, record: bytes, *, money: bool) -> int:
        """Journal one record: a money record is committed (with FULL sync) before this returns, the others
        with the rest of this turn of the event loop (at once outside an event loop).
        """
        position = self._positions.get(tournament, 0) + 1
        self._positions[tournament] = position
        self._records.append((tournament, position, record))
        if money:
            self.commit(full=True)
        else:
            self._commit_soon()
        return position

    def _commit_soon(self) -> None:
        """Commit at the end of this turn of the event loop, with whatever else it writes (at once outside an
        event loop: a script, a test).
        """
        if self._commit_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.commit()
            return
        self._commit_due = True
        loop.call_soon(self.commit)

    def commit(self, *, full: bool = False) -> None:
        """Write and commit, in one transaction, every record and hand waiting for it."""
        self._commit_due = False
        if not self._records and not self._hands:
            return
        self._sync(full)
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO journal VALUES (?, ?, ?)", self._records)
            self._db.executemany("INSERT OR REPLACE INTO hands VALUES (?, ?, ?, ?)",
                                 [hand for hand, _ in self._hands])
            self._db.executemany("INSERT OR REPLACE INTO hand_players VALUES (?, ?, ?)",
                                 [player for _, players in self._hands for player in players])
        self._records.clear()
        self._hands.clear()

    def snapshot(self, tournament: str, position: int, state: bytes) -> None:
        self.commit()
        self._sync(False)
        with self._db:  # one transaction: the snapshot and the pruning of what it covers
            self._db.execute("BEGIN")
            self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?)", (tournament, position, state))
            self._db.execute("DELETE FROM journal WHERE tournament = ? AND position <= ?", (tournament, position))

    def close_tournament(self, tournament: str, status: str) -> None:
        self.commit()
        self._sync(True)
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("UPDATE tournaments SET status = ? WHERE id = ?", (status, tournament))
            self._db.execute("DELETE FROM journal WHERE tournament = ?", (tournament,))
            self._db.execute("DELETE FROM snapshots WHERE tournament = ?", (tournament,))

    def unfinished(self) -> list[Stored]:
        stored = []
        for tournament, definition, seed in self._db.execute(
                "SELECT id, definition, seed FROM tournaments WHERE status = 'open' ORDER BY rowid"):
            row = self._db.execute("SELECT position, state FROM snapshots WHERE tournament = ?",
                                   (tournament,)).fetchone()
            after, state = row if row else (0, None)
            records = [record for (record,) in self._db.execute(
                "SELECT record FROM journal WHERE tournament = ? AND position > ? ORDER BY position",
                (tournament, after))]
            stored.append(Stored(tournament, definition, seed, state, records,
                                 self._positions.get(tournament, after)))
        return stored

    def add_hand(self, tournament: str, hand: int, table: int, players: list[str], phh: str) -> None:
        self._hands.append(((tournament, hand, table, phh), [(tournament, player, hand) for player in players]))
        self._commit_soon()

    def hands(self, tournament: str, player: str | None = None, table: int | None = None) -> list[HandRow]:
        query = "SELECT h.hand, h.table_id FROM hands h"
        arguments: list[object] = [tournament]
        if player is not None:
            query += " JOIN hand_players p ON p.tournament = h.tournament AND p.hand = h.hand AND p.player = ?"
            arguments.insert(0, player)
        query += " WHERE h.tournament = ?"
        if table is not None:
            query += " AND h.table_id = ?"
            arguments.append(table)
        rows = self._db.execute(query + " ORDER BY h.hand", arguments).fetchall()
        players: dict[int, list[str]] = {}
        for hand, who in self._db.execute(
                "SELECT hand, player FROM hand_players WHERE tournament = ? ORDER BY hand", (tournament,)):
            players.setdefault(hand, []).append(who)
        return [HandRow(hand, at, players.get(hand, [])) for hand, at in rows]

    def hand(self, tournament: str, hand: int) -> str | None:
        row = self._db.execute("SELECT phh FROM hands WHERE tournament = ? AND hand = ?", (tournament, hand)).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        self.commit()
        self._db.close()
