"""Persistence: each tournament's commands, written before anything they caused is acknowledged or broadcast.

The director is deterministic: the same definition, the same seed and the
same commands in the same order give the same tournament, to the card. So the
journal keeps the commands (with the clock values they were given) and the
events each caused, and a restored server replays the commands and checks the
events it gets against the journaled ones (server/tournament/runtime.py). The hand
histories of finished hands, which users read, are also stored as PHH.

Snapshots (the runtime's state, pickled right after a hand ends) bound the
replay: a restore loads the newest one and replays only what followed. The
records stay, before a snapshot and after a tournament closes: they are its
audit trail (``events``, ``GET /api/tournaments/{id}/events``).

``Storage`` is the interface a backend implements. ``SQLiteStorage`` is the
default: one file in WAL mode, where a command that moves money (a buy-in, a
re-buy, a prize, a refund, a deal) is committed with ``synchronous=FULL`` and
the rest with ``NORMAL`` (durable across a crash of the process; only a power
cut could lose the last of them, and those moved no money). Commands that
move no money are committed together (a group commit): right before anything
is sent to a client (``server.hub.Outbound`` calls ``commit``), and at most
``COMMIT_WITHIN`` seconds after they were written. A commit per decision was
a quarter of the server's time under a swarm; and as nothing a command caused
reaches a socket before it is committed, a crash cannot show a client what the
journal lacks. ``MemoryStorage`` keeps everything in the process, for tests
and the demo.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import sqlite3
import time
import zlib
from collections.abc import Iterator
from typing import Protocol

import msgspec


logger = logging.getLogger("mttsim.server")


class Head:
    """The last record position of each tournament, in a small file beside the journal, rewritten after
    every commit: a journal found ending before it (a WAL deleted or truncated) is damaged, not an older
    truth. Tournaments whose rows are gone altogether stay listed here as damaged.

    Written without its own sync, in one ``pwrite`` at the start of a file kept open (3 us; opening,
    writing and renaming a file after every group commit cost 140 us, a twentieth of the server at 6,000
    actions a second): after a crash of the process it is as current as the journal; after a power cut it
    may be ahead of the last unsynced decisions, which it then reports (docs/security.md).
    """

    def __init__(self, path: str) -> None:
        self.path = path
        try:
            with open(path) as file:
                saved = json.loads(file.read().strip() or "{}")
        except (OSError, ValueError):
            saved = {}
        self._file = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        self._size = os.fstat(self._file).st_size
        self._positions: dict[str, int] = saved.get("positions", {})
        self._damaged: dict[str, str] = saved.get("damaged", {})

    def position(self, tournament: str) -> int:
        return self._positions.get(tournament, 0)

    def damage(self, tournament: str) -> str | None:
        return self._damaged.get(tournament)

    def gone(self, present: set[str]) -> dict[str, str]:
        """The tournaments this file knew of that the journal no longer holds, and why."""
        for tournament in set(self._positions) - present:
            self._damaged.setdefault(tournament, "its rows are gone from the journal file")
        return dict(self._damaged)

    def lost_everything(self, why: str) -> None:
        for tournament in self._positions:
            self._damaged.setdefault(tournament, why)

    def mark(self, tournament: str, why: str) -> None:
        """``tournament`` is damaged: it stays reported (with the position it had reached) across restarts."""
        self._damaged[tournament] = why

    def write(self, positions: dict[str, int]) -> None:
        self._positions = {**positions, **{t: p for t, p in self._positions.items() if t in self._damaged}}
        data = json.dumps({"positions": self._positions, "damaged": self._damaged}).encode()
        os.pwrite(self._file, data.ljust(self._size), 0)  # spaces over a longer old text: JSON ignores them
        self._size = max(self._size, len(data))

    def close(self) -> None:
        os.close(self._file)


class Stored(msgspec.Struct):
    """A tournament to restore: how it was created, its newest snapshot and the commands after it.

    A closed (finished or cancelled) tournament has its final state as its snapshot and no commands: it
    comes back to be shown, not played.
    """

    id: str
    definition: bytes
    seed: int
    snapshot: bytes | None
    records: list[bytes]
    position: int  # of the last record
    open: bool = True
    secret: bytes | None = None  # the key of its decks (engine.cards.keyed_deck); None before decks were keyed
    damage: str | None = None  # what is wrong with its journal: then it is not restored (docs/security.md)


class HandRow(msgspec.Struct):
    hand: int
    table: int
    players: list[str]


class Storage(Protocol):
    def create(self, tournament: str, definition: bytes, seed: int, secret: bytes) -> None: ...

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

    def close_tournament(self, tournament: str, status: str, final_state: bytes) -> None:
        """Finished or cancelled: its journal goes, and its final state stays to be shown after a restart
        (with its hand histories).
        """
        ...

    def tournaments(self) -> list[Stored]:
        """Every tournament, in the order created, to bring back after a restart."""
        ...

    def add_hand(self, tournament: str, hand: int, table: int, players: list[str], phh: str) -> None: ...

    def hands(self, tournament: str, player: str | None = None, table: int | None = None) -> list[HandRow]: ...

    def hand(self, tournament: str, hand: int) -> str | None: ...

    def records(self, tournament: str) -> Iterator[bytes]:
        """Every record the tournament journaled, in order (its audit trail)."""
        ...

    def close(self) -> None: ...

    def damaged(self) -> dict[str, str]:
        """Tournaments the storage knows of but cannot give back at all (their rows are gone), and why."""
        ...

    def health(self) -> str:
        """'ok', or what the storage's own check found wrong."""
        ...


class MemoryStorage:
    """The interface without a disk: what one process needs to serve hand histories."""

    def __init__(self) -> None:
        self._tournaments: dict[str, tuple[bytes, int, bytes]] = {}
        self._records: dict[str, list[bytes]] = {}
        self._snapshots: dict[str, tuple[int, bytes]] = {}
        self._open: set[str] = set()
        self._hands: dict[str, dict[int, tuple[int, list[str], str]]] = {}

    def create(self, tournament: str, definition: bytes, seed: int, secret: bytes) -> None:
        self._tournaments[tournament] = (definition, seed, secret)
        self._records[tournament] = []
        self._open.add(tournament)

    def append(self, tournament: str, record: bytes, *, money: bool) -> int:
        records = self._records.setdefault(tournament, [])
        records.append(record)
        return len(records)

    def snapshot(self, tournament: str, position: int, state: bytes) -> None:
        self._snapshots[tournament] = (position, state)

    def close_tournament(self, tournament: str, status: str, final_state: bytes) -> None:
        self._open.discard(tournament)
        self._snapshots[tournament] = (len(self._records[tournament]), final_state)

    def tournaments(self) -> list[Stored]:
        stored = []
        for tournament, (definition, seed, secret) in self._tournaments.items():
            records = self._records[tournament]
            position, state = self._snapshots.get(tournament, (0, None))
            stored.append(Stored(tournament, definition, seed, state, records[position:], len(records),
                                 tournament in self._open, secret))
        return stored

    def add_hand(self, tournament: str, hand: int, table: int, players: list[str], phh: str) -> None:
        self._hands.setdefault(tournament, {})[hand] = (table, players, phh)

    def hands(self, tournament: str, player: str | None = None, table: int | None = None) -> list[HandRow]:
        hands = sorted(self._hands.get(tournament, {}).items())
        return [HandRow(number, at, players) for number, (at, players, _) in hands
                if (player is None or player in players) and (table is None or table == at)]

    def hand(self, tournament: str, hand: int) -> str | None:
        found = self._hands.get(tournament, {}).get(hand)
        return found[2] if found else None

    def commit(self) -> None:
        pass

    def close(self) -> None:
        pass

    def damaged(self) -> dict[str, str]:
        return {}

    def records(self, tournament: str) -> Iterator[bytes]:
        return iter(list(self._records.get(tournament, ())))

    def health(self) -> str:
        return "ok"


_SCHEMA = """
CREATE TABLE IF NOT EXISTS tournaments (
    id TEXT PRIMARY KEY, definition BLOB NOT NULL, seed INTEGER NOT NULL, status TEXT NOT NULL DEFAULT 'open',
    secret BLOB);
CREATE TABLE IF NOT EXISTS journal (
    tournament TEXT NOT NULL, position INTEGER NOT NULL, record BLOB NOT NULL, checksum INTEGER,
    PRIMARY KEY (tournament, position)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS snapshots (
    tournament TEXT PRIMARY KEY, position INTEGER NOT NULL, state BLOB NOT NULL, checksum INTEGER);
-- A hand's players are a text (' p1 p5 p9 '): finding one player's hands scans the tournament's, which a
-- history request can afford; a row per player and hand cost 200 us per hand, a tenth of a busy server's time.
CREATE TABLE IF NOT EXISTS hand_histories (
    tournament TEXT NOT NULL, hand INTEGER NOT NULL, table_id INTEGER NOT NULL, players TEXT NOT NULL,
    phh TEXT NOT NULL, PRIMARY KEY (tournament, hand));
"""


class SQLiteStorage:
    """One SQLite file in WAL mode (see the module's docstring for what is synced when)."""

    COMMIT_WITHIN = 0.01  # seconds a record that caused nothing sent yet may wait for the group commit

    def __init__(self, path: str) -> None:
        self._path = path
        self._head = Head(path + ".head")
        self._health = "ok"
        try:
            self._db = self._open(path)
            self._positions = self._last_positions()
        except sqlite3.DatabaseError as error:  # zeroed or overwritten: keep it for whoever investigates
            self._set_aside(error)
        self._full = True
        self._sync(False)
        # What was written since the last commit, committed together (the module's docstring).
        self._records: list[tuple[str, int, bytes]] = []
        self._hands: list[tuple[str, int, int, str, str]] = []
        self._commit_due = False
        self._commit_timer: asyncio.TimerHandle | None = None

    def _last_positions(self) -> dict[str, int]:
        """The last position of each tournament, one index seek each (the journal is kept whole, for the audit,
        so a scan of it would grow with every tournament ever played); a snapshot may hold the last position."""
        positions = {}
        for (tournament,) in self._db.execute("SELECT id FROM tournaments").fetchall():
            last = max(self._db.execute(f"SELECT MAX(position) FROM {table} WHERE tournament = ?",
                                        (tournament,)).fetchone()[0] or 0 for table in ("journal", "snapshots"))
            if last:
                positions[tournament] = last
        return positions

    def _set_aside(self, error: sqlite3.DatabaseError) -> None:
        """A file SQLite cannot read, whatever it raised and wherever: moved aside with its WAL, reported, and a
        new one begun, so that the server starts (a supervisor would otherwise restart it into the same crash)."""
        with contextlib.suppress(AttributeError, sqlite3.Error):
            self._db.close()
        kept = f"{self._path}.damaged-{int(time.time())}"
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(self._path + suffix):
                os.replace(self._path + suffix, kept + suffix)
        self._health = f"the journal file was unreadable ({error}); it is kept as {kept}"
        logger.error("storage: %s", self._health)
        self._head.lost_everything(self._health)
        self._db = self._open(self._path)
        self._positions = {}

    def _open(self, path: str) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA)
        for table, column in (("tournaments", "secret"), ("journal", "checksum"), ("snapshots", "checksum")):
            if column not in {name for _, name, *_ in db.execute(f"PRAGMA table_info({table})")}:
                db.execute(f"ALTER TABLE {table} ADD COLUMN {column} {'BLOB' if column == 'secret' else 'INTEGER'}")
        problems = [row[0] for row in db.execute("PRAGMA quick_check")]
        if problems != ["ok"]:
            self._health = "SQLite's check of the journal file: " + "; ".join(problems[:5])
            logger.error("storage: %s", self._health)
        return db

    def records(self, tournament: str) -> Iterator[bytes]:
        """In batches, so that a long journal is read a part at a time."""
        self.commit()
        after = 0
        while True:
            batch = self._db.execute("SELECT position, record FROM journal WHERE tournament = ? AND position > ? "
                                     "ORDER BY position LIMIT 5000", (tournament, after)).fetchall()
            if not batch:
                return
            after = batch[-1][0]
            for _, record in batch:
                yield record

    def damaged(self) -> dict[str, str]:
        present = {tournament for (tournament,) in self._db.execute("SELECT id FROM tournaments")}
        return {t: why for t, why in self._head.gone(present).items() if t not in present}

    def health(self) -> str:
        return self._health

    def _sync(self, full: bool) -> None:
        if full != self._full:
            self._db.execute(f"PRAGMA synchronous={'FULL' if full else 'NORMAL'}")
            self._full = full

    def create(self, tournament: str, definition: bytes, seed: int, secret: bytes) -> None:
        self.commit()
        self._sync(True)
        self._db.execute("INSERT INTO tournaments (id, definition, seed, secret) VALUES (?, ?, ?, ?)",
                         (tournament, definition, seed, secret))
        self._positions[tournament] = 0

    def append(self, tournament: str, record: bytes, *, money: bool) -> int:
        """Journal one record: a money record is committed (with FULL sync) before this returns, the others
        by the group commit (at once outside an event loop).
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
        """Commit within ``COMMIT_WITHIN`` seconds, with whatever else is written meanwhile, or sooner when
        something is about to be sent (at once outside an event loop: a script, a test).
        """
        if self._commit_due:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self.commit()
            return
        self._commit_due = True
        self._commit_timer = loop.call_later(self.COMMIT_WITHIN, self.commit)

    def commit(self, *, full: bool = False) -> None:
        """Write and commit, in one transaction, every record and hand waiting for it."""
        self._commit_due = False
        if self._commit_timer is not None:  # this commit is the one it would have made
            self._commit_timer.cancel()
            self._commit_timer = None
        if not self._records and not self._hands:
            return
        self._sync(full)
        with self._db:
            self._db.execute("BEGIN")
            self._db.executemany("INSERT INTO journal VALUES (?, ?, ?, ?)",
                                 [(*row, zlib.crc32(row[2])) for row in self._records])
            self._db.executemany("INSERT OR REPLACE INTO hand_histories VALUES (?, ?, ?, ?, ?)", self._hands)
        self._records.clear()
        self._hands.clear()
        self._head.write(self._positions)

    def snapshot(self, tournament: str, position: int, state: bytes) -> None:
        self.commit()
        self._sync(False)
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                             (tournament, position, state, zlib.crc32(state)))

    def close_tournament(self, tournament: str, status: str, final_state: bytes) -> None:
        self.commit()
        self._sync(True)
        with self._db:
            self._db.execute("BEGIN")
            self._db.execute("UPDATE tournaments SET status = ? WHERE id = ?", (status, tournament))
            self._db.execute("INSERT OR REPLACE INTO snapshots VALUES (?, ?, ?, ?)",
                             (tournament, self._positions.get(tournament, 0), final_state, zlib.crc32(final_state)))
        self._head.write(self._positions)

    def tournaments(self) -> list[Stored]:
        """Every tournament to bring back, each checked: a record or snapshot whose checksum fails, a gap in
        the records, a journal that ends before the last record the head file saw written, or rows SQLite
        cannot read, is damage. A file whose list of tournaments cannot be read is set aside whole."""
        try:
            listed = self._db.execute(
                "SELECT id, definition, seed, status, secret FROM tournaments ORDER BY rowid").fetchall()
        except sqlite3.DatabaseError as error:
            self._set_aside(error)
            return []
        stored = []
        for tournament, definition, seed, status, secret in listed:
            try:
                row = self._db.execute("SELECT position, state, checksum FROM snapshots WHERE tournament = ?",
                                       (tournament,)).fetchone()
                after, state, state_sum = row if row else (0, None, None)
                if status != "open" and state is None:  # closed by an older version, which kept no final state
                    continue
                rows = self._db.execute("SELECT position, record, checksum FROM journal WHERE tournament = ? "
                                        "AND position > ? ORDER BY position", (tournament, after)).fetchall()
                unreadable = None
            except sqlite3.DatabaseError as error:
                after, state, state_sum, rows, unreadable = 0, None, None, [], error
            last = self._positions.get(tournament, after)
            damage = None
            if unreadable is not None:
                damage = f"SQLite cannot read its journal ({unreadable})"
            elif state is not None and state_sum is not None and zlib.crc32(state) != state_sum:
                damage = f"the snapshot at record {after} fails its checksum"
            elif bad := next((p for p, record, checksum in rows
                              if checksum is not None and zlib.crc32(record) != checksum), None):
                damage = f"record {bad} fails its checksum"
            elif [p for p, _, _ in rows] != list(range(after + 1, last + 1)):
                damage = f"records are missing between {after + 1} and {last}"
            elif self._head.position(tournament) > last:
                damage = (f"the journal ends at record {last}, but record {self._head.position(tournament)} "
                          f"was written: its end is missing (a deleted or truncated WAL?)")
            damage = damage or self._head.damage(tournament)
            if damage is not None:
                logger.error("tournament %s: %s; it is not restored", tournament, damage)
                self._head.mark(tournament, damage)
            stored.append(Stored(tournament, definition, seed, state, [record for _, record, _ in rows],
                                 last, status == "open", secret, damage))
        return stored

    def add_hand(self, tournament: str, hand: int, table: int, players: list[str], phh: str) -> None:
        self._hands.append((tournament, hand, table, f" {' '.join(players)} ", phh))
        self._commit_soon()

    def hands(self, tournament: str, player: str | None = None, table: int | None = None) -> list[HandRow]:
        self.commit()
        query = "SELECT hand, table_id, players FROM hand_histories WHERE tournament = ?"
        arguments: list[object] = [tournament]
        if player is not None:
            query += " AND instr(players, ?) > 0"
            arguments.append(f" {player} ")
        if table is not None:
            query += " AND table_id = ?"
            arguments.append(table)
        return [HandRow(hand, at, players.split())
                for hand, at, players in self._db.execute(query + " ORDER BY hand", arguments)]

    def hand(self, tournament: str, hand: int) -> str | None:
        self.commit()
        row = self._db.execute("SELECT phh FROM hand_histories WHERE tournament = ? AND hand = ?",
                               (tournament, hand)).fetchone()
        return row[0] if row else None

    def close(self) -> None:
        """Commit what waits and close the file."""
        self.commit()
        self._head.close()
        self._db.close()
