"""A damaged journal is found, reported and kept out of play, and the other tournaments play on."""

from __future__ import annotations

import random
import shutil
import sqlite3

import httpx
import pytest

from server.tournament import records
from server.storage import SQLiteStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import drive, live_server
from tests.tournaments import definition


def two_tournaments(path: str, more_hands: int = 0) -> SQLiteStorage:
    """'kept' and 'hurt', each with some hands played; the storage is left open. With ``more_hands``, the
    file is checkpointed after the first hands, so that the later ones are in the WAL only."""
    storage = SQLiteStorage(path)
    lives = []
    for name in ("kept", "hurt"):
        live = TournamentRuntime.create(name, definition(6), storage, hand_pause=0, seed=3)
        for number in range(12):
            live.register(f"player {number}")
        live.submit(records.Start(0.0, 1.0))
        drive(live, random.Random(1), 10)
        lives.append(live)
    storage.commit()
    if more_hands:
        storage._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        for live in lives:
            drive(live, random.Random(2), 10 + more_hands)
        storage.commit()
    return storage


def restored(path: str) -> dict[str, str | None]:
    """Each tournament's damage as a new server would find it (None: restored as it was)."""
    found = {}
    storage = SQLiteStorage(path)
    for stored in storage.tournaments():
        found[stored.id] = stored.damage
        if stored.damage is None:
            assert TournamentRuntime.restore(stored, storage, hand_pause=0).director.hands_played >= 10
    found.update(storage.damaged())
    storage.close()
    return found


def test_an_undamaged_journal_restores_every_tournament(tmp_path):
    path = str(tmp_path / "journal.db")
    two_tournaments(path).close()
    assert restored(path) == {"kept": None, "hurt": None}


def test_one_records_changed_bytes_damage_its_tournament_only(tmp_path):
    path = str(tmp_path / "journal.db")
    two_tournaments(path).close()
    database = sqlite3.connect(path)
    (record,) = database.execute("SELECT record FROM journal WHERE tournament = 'hurt' AND position = 30").fetchone()
    changed = bytearray(record)
    changed[-1] ^= 0x01
    database.execute("UPDATE journal SET record = ? WHERE tournament = 'hurt' AND position = 30", (bytes(changed),))
    database.commit()
    database.close()
    found = restored(path)
    assert found["kept"] is None and "record 30 fails its checksum" in found["hurt"]
    assert "record 30" in restored(path)["hurt"]  # and it stays reported


@pytest.mark.parametrize("harm", ["deleted", "truncated"])
def test_a_lost_or_cut_wal_is_found_not_taken_for_the_current_state(tmp_path, harm):
    """Each tournament comes back at the last record it wrote, or is reported: never an older state."""
    path = str(tmp_path / "journal.db")
    storage = two_tournaments(path, more_hands=5)
    written = dict(storage._positions)
    copy = str(tmp_path / "copy.db")  # the files as a crash with a damaged WAL leaves them
    shutil.copy(path, copy)
    shutil.copy(path + ".head", copy + ".head")
    if harm == "truncated":
        with open(path + "-wal", "rb") as wal:
            data = wal.read()
        with open(copy + "-wal", "wb") as wal:
            wal.write(data[:len(data) // 2])
    storage.close()
    again = SQLiteStorage(copy)
    damaged = 0
    for stored in again.tournaments():
        if stored.damage is None:
            assert stored.position == written[stored.id]
        else:
            assert "its end is missing" in stored.damage
            damaged += 1
    assert damaged >= 1


def test_a_zeroed_file_is_kept_aside_and_its_tournaments_reported(tmp_path):
    path = str(tmp_path / "journal.db")
    two_tournaments(path).close()
    size = len(open(path, "rb").read())
    with open(path, "wb") as file:
        file.write(b"\0" * size)
    storage = SQLiteStorage(path)
    assert "unreadable" in storage.health() and storage.tournaments() == []
    assert set(storage.damaged()) == {"kept", "hurt"}
    assert list(tmp_path.glob("journal.db.damaged-*"))


@pytest.mark.asyncio
async def test_the_api_reports_a_damaged_tournament_and_serves_the_others(tmp_path):
    path = str(tmp_path / "journal.db")
    two_tournaments(path).close()
    database = sqlite3.connect(path)
    database.execute("DELETE FROM journal WHERE tournament = 'hurt' AND position = 20")
    database.commit()
    database.close()
    async with live_server(db=path) as live, httpx.AsyncClient(base_url=live.http) as client:
        health = (await client.get("/api/health")).json()
        assert "records are missing" in health["damaged"]["hurt"] and health["storage"] == "ok"
        refused = await client.get("/api/tournaments/hurt")
        assert refused.status_code == 503 and refused.json()["error"] == "damaged"
        assert [t["id"] for t in (await client.get("/api/tournaments")).json()] == ["kept"]
        assert (await client.get("/api/tournaments/kept")).json()["status"] == "running"


def test_bytes_flipped_anywhere_in_the_file_never_stop_the_start(tmp_path):
    """Of 30 restarts on a journal damaged at random offsets, one (8 bytes flipped in the database
    file) raised ``sqlite3.DatabaseError`` from the restore's query, and the server could not start at all. At
    every offset, the storage opens and lists what it can: each tournament is restored or reported, and a file
    that cannot be read is kept aside."""
    original = str(tmp_path / "original.db")
    two_tournaments(original).close()
    data = open(original, "rb").read()
    chance = random.Random(53)
    offsets = sorted({*range(0, len(data), 4096), *(chance.randrange(len(data) - 8) for _ in range(40))})
    outcomes = set()
    for offset in offsets:
        trial = tmp_path / f"at-{offset}"
        trial.mkdir()
        path = str(trial / "journal.db")
        flipped = bytearray(data)
        for at in range(offset, min(offset + 8, len(data))):
            flipped[at] ^= 0xFF
        open(path, "wb").write(bytes(flipped))
        storage = SQLiteStorage(path)  # raised before
        reported = dict(storage.damaged())
        for stored in storage.tournaments():
            if stored.damage is not None:
                reported[stored.id] = stored.damage
                continue
            try:
                TournamentRuntime.restore(stored, storage, hand_pause=0)
            except Exception as error:  # as the server's start reports it, and serves the others
                reported[stored.id] = str(error)
        reported.update(storage.damaged())
        aside = bool(list(trial.glob("journal.db.damaged-*")))
        assert not aside or "unreadable" in storage.health()
        outcomes.add("set aside" if aside else "reported" if reported else "restored")
        storage.close()
    assert "restored" in outcomes and len(outcomes) >= 2, outcomes  # the offsets reach data and the file's heart
