"""Typed records: the journal's bytes as before they were typed, and journals of older versions still restore."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import msgspec
import pytest

from engine.director import Status
from server.tournament import records
from server.storage import SQLiteStorage
from server.tournament.runtime import TournamentRuntime

FIXTURE = Path(__file__).parent / "fixtures" / "journal_v1.db"  # written by commit 28bfdad, before typed records
encoder = msgspec.msgpack.Encoder()
decoder = msgspec.msgpack.Decoder(records.AnyRecord)

# Every kind of record, as the server wrote it as a plain list before records were typed.
AS_LISTS = [
    ["act", 3, "raise", 400, "p7", 28.5], ["act", 1, "fold", None, "p2", 0.0], ["advance", 61.25],
    ["start_hand", 4], ["end_hand", 4], ["void", 2], ["register", "p1", "Ann", "ab" * 32, None],
    ["register", "p2", "Bob", "cd" * 32, "p1"], ["qualify", "p9", "Cy", "ef" * 32, 12345], ["carry_in", 800000, 40],
    ["bot", "p3", "tag", "token", 0.3, 1.5], ["start", 0.0, 1764547200.5], ["pause", 12.5, 0.0], ["resume", 12.5, 0.0],
    ["cancel", None, 0], ["cancel", {"name": "B", "refund_fees": True, "late_formula": "chip_position", "split": "icm",
                                      "freeroll_middle": "reschedule", "satellite_middle": "seats"}, 2_200],
    ["unregister", "p4"], ["rebuy", "p5"], ["decline_rebuy", "p5"], ["add_on", "p6"], ["press_deal", "p1", True],
    ["accept_deal", "p1"], ["reject_deal", "p2", "disconnected"],
]


# The trailing fields records gained since the fixture's journal was written, as the older records read them.
ADDED_SINCE_V1 = {"pause": [0.0], "resume": [0.0]}


@pytest.mark.parametrize("as_list", AS_LISTS, ids=lambda record: f"{record[0]}-{len(record)}")
def test_every_record_kind_keeps_the_bytes_the_untyped_journal_wrote(as_list):
    old = encoder.encode(as_list)
    record = decoder.decode(old)
    assert type(record).__struct_config__.tag == as_list[0]
    assert encoder.encode(record) == old


def test_a_record_that_gained_a_field_decodes_from_its_older_form_with_the_default():
    """``carry_in`` gained the flight's number of entries and ``cancel`` an entry's price, and a
    refund policy gained fields with defaults: older records carry none."""
    assert decoder.decode(encoder.encode(["carry_in", 800000])) == records.CarryIn(800000, 0)
    assert decoder.decode(encoder.encode(["cancel", None])) == records.Cancel(None, 0)
    # The console's records gained when they were done, for the log of the director's actions.
    assert decoder.decode(encoder.encode(["pause", 12.5])) == records.Pause(12.5, 0.0)
    assert decoder.decode(encoder.encode(["adjust_clock", -60.0])) == records.AdjustClock(-60.0, 0.0)
    assert decoder.decode(encoder.encode(["remove_player", "p1", True])) == records.RemovePlayer("p1", True, 0.0)


def test_a_register_record_written_without_its_person_still_decodes():
    """A satellite's seat and another flight's entry were journaled without the person field."""
    record = decoder.decode(encoder.encode(["register", "p1", "Ann", "ab" * 32]))
    assert record == records.Register("p1", "Ann", "ab" * 32, None)


def journal_copy(tmp_path: Path) -> Path:
    path = tmp_path / "journal.db"
    shutil.copy(FIXTURE, path)
    return path


def test_a_journal_written_before_records_were_typed_restores_and_plays_on(tmp_path):
    storage = SQLiteStorage(str(journal_copy(tmp_path)))
    raw = [bytes(row[0]) for row in sqlite3.connect(FIXTURE).execute("select record from journal order by position")]
    for stored_record in raw:  # every record's bytes are what the typed record encodes to, but for fields added
        old, _ = msgspec.msgpack.decode(stored_record, type=tuple[msgspec.Raw, msgspec.Raw])
        as_list = msgspec.msgpack.decode(old)
        again = msgspec.msgpack.decode(encoder.encode(decoder.decode(old)))
        assert again[:len(as_list)] == as_list and again[len(as_list):] == ADDED_SINCE_V1.get(as_list[0], [])
    restored = {stored.id: TournamentRuntime.restore(stored, storage, hand_pause=0) for stored in storage.tournaments()}
    live, cancelled = restored["fixture"], restored["cancelled"]
    director = live.director
    assert director.status is Status.RUNNING and director.hands_played == 62 and len(director.entries) == 30
    assert director.chips_in_play() == director.chips_issued and director.ledger.balances()
    assert live.entries.bots["p1"] == ("tag", "secret", 0.3, 1.5) and live.journal.position == len(raw)
    assert cancelled.director.status is Status.CANCELLED and cancelled.director.refunds
    # and it plays on: a deal recorded as its table records one
    table = min(t for t in director.tables if director.is_ready(t))
    live.recorder.record(records.StartHand(table))
    assert director.hand(table) is not None and live.journal.position == len(raw) + 1


def test_an_event_that_gained_a_field_since_the_journal_was_written_still_replays(tmp_path):
    """Simulate a journal from a version whose ``hand_started`` had no ``button``: the restore compares the
    fields both versions know. A changed value is still a difference."""
    path = journal_copy(tmp_path)
    database = sqlite3.connect(path)
    rows = database.execute("select position, record from journal where tournament = 'fixture'").fetchall()
    for position, raw in rows:
        record, events = msgspec.msgpack.decode(raw)
        for event in events:
            if event["type"] == "hand_started":
                del event["button"]
        database.execute("update journal set record = ? where tournament = 'fixture' and position = ?",
                         (msgspec.msgpack.encode([record, events]), position))
    database.commit()
    stored = next(s for s in SQLiteStorage(str(path)).tournaments() if s.id == "fixture")
    assert TournamentRuntime.restore(stored, SQLiteStorage(str(path)), hand_pause=0).director.hands_played == 62

    position, raw = rows[-40]
    record, events = msgspec.msgpack.decode(raw)
    events.append({"type": "not_an_event"})
    database.execute("update journal set record = ? where tournament = 'fixture' and position = ?",
                     (msgspec.msgpack.encode([record, events]), position))
    database.commit()
    stored = next(s for s in SQLiteStorage(str(path)).tournaments() if s.id == "fixture")
    with pytest.raises(RuntimeError, match="differs from its journal"):
        TournamentRuntime.restore(stored, SQLiteStorage(str(path)), hand_pause=0)


@pytest.mark.asyncio
async def test_a_decision_goes_down_to_its_hand_and_out_to_its_table_never_back_through_the_runtime(monkeypatch):
    """In one process a hand's deal and decisions are recorded by the table that plays it and routed to the
    table's stream, as a cluster's worker routes them: the runtime's ``submit`` never sees one, and refuses one."""
    from server.storage import MemoryStorage
    from server.tournament.table_stream import TableStream
    from tests.live_server import until
    from tests.tournaments import definition

    submitted: list[str] = []
    submit = TournamentRuntime.submit

    def watched(runtime: TournamentRuntime, record: records.AnyRecord) -> list:
        submitted.append(type(record).__name__)
        return submit(runtime, record)

    routed: list[str] = []
    route_hand = TableStream.route_hand

    def heard(stream: TableStream, events: list) -> None:
        routed.extend(type(event).__name__ for event in events)
        route_hand(stream, events)

    monkeypatch.setattr(TournamentRuntime, "submit", watched)
    monkeypatch.setattr(TableStream, "route_hand", heard)
    runtime = TournamentRuntime.create("t", definition(3, paid=1), MemoryStorage(), hand_pause=0)
    for number in range(3):
        runtime.register(f"player {number}")  # none connects: each sits out, and the clock acts for them at once
    runtime.start()
    await until(lambda: submitted.count("EndHand") >= 3, timeout=30)
    await runtime.shutdown()
    journaled = [msgspec.msgpack.decode(raw)[0][0] for raw in runtime.storage.records("t")]
    assert journaled.count("act") > 0 and journaled.count("start_hand") > 0
    assert "Act" not in submitted and "StartHand" not in submitted and "EndHand" in submitted
    assert "Acted" in routed and "HoleDealt" in routed  # the hole cards to their owner, from the table's stream
    with pytest.raises(TypeError, match="recorded by the table that plays the hand"):
        runtime.submit(records.Act(1, "fold", None, "p1", 0.0))
