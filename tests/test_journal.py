"""The journal: a restore (snapshot plus replay) rebuilds exactly the tournament that was running."""

from __future__ import annotations

import pickle
import random

import msgspec
import pytest

import server.tournament.persistence
from bots.strategies import seat_view, tight_aggressive
from engine.director import Status, Tournament
from engine.structure import LateRegistration, Level, Rebuys, Reentry
from server.tournament import records
from server.storage import MemoryStorage, SQLiteStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import drive
from tests.tournaments import definition


def state_of(runtime: TournamentRuntime) -> dict:
    director = runtime.director
    return {
        "stacks": dict(director.stacks), "where": dict(director.where), "results": dict(director.results),
        "ledger": director.ledger.summary(), "level": director.level, "rng": director.rng.getstate(),
        "hands": {t: msgspec.json.encode(director.hand(t).events) if director.hand(t) else None
                  for t in director.tables},
        "names": runtime.entries.names, "tokens": runtime.entries.tokens, "time_bank": runtime.entries.time_bank,
        "now": runtime.session.last_now,
        "offers": dict(director.rebuy_offers), "chips": director.chips_in_play(),
    }


@pytest.mark.parametrize("backend", ["sqlite", "memory"])
@pytest.mark.parametrize("snapshot_every", [10**9, 150])
def test_a_restore_rebuilds_the_running_tournament_exactly(tmp_path, monkeypatch, backend, snapshot_every):
    monkeypatch.setattr(server.tournament.persistence, "SNAPSHOT_EVERY", snapshot_every)
    storage = SQLiteStorage(str(tmp_path / "journal.db")) if backend == "sqlite" else MemoryStorage()
    rules = definition(6, levels=[Level(10, 20, hands=5), Level(20, 40, hands=5), Level(50, 100, minutes=60)],
                       rebuys=Rebuys(levels=2, price_cents=1000, chips=1000, max_count=2), starting_stack=3000)
    live = TournamentRuntime.create("t1", rules, storage, hand_pause=0, seed=11)
    for number in range(40):
        live.register(f"player {number}")
    live.submit(records.Start(0.0, 1.0))
    drive(live, random.Random(5), 120)
    assert any(live.director.hand(t) for t in live.director.tables), "the test wants hands in progress"

    (stored,) = storage.tournaments()
    assert (stored.snapshot is not None) == (snapshot_every < 10**9)
    restored = TournamentRuntime.restore(stored, storage, hand_pause=0)
    assert state_of(restored) == state_of(live)
    assert restored.director.chips_in_play() == restored.director.chips_issued

    # The two go on alike: same commands, same cards, same results.
    drive(live, random.Random(9), 200)
    drive(restored, random.Random(9), 200)
    assert state_of(restored) == state_of(live)
    assert live.director.hands_played >= 200, "both played on"


def test_a_closed_tournament_comes_back_to_be_shown_not_played_and_its_hand_histories_stay(tmp_path):
    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    live = TournamentRuntime.create("t2", definition(2), storage, hand_pause=0)
    live.register("a")
    live.register("b")
    live.submit(records.Start(0.0, 1.0))
    storage.add_hand("t2", 1, 1, ["p1", "p2"], "variant = \"NT\"\n")
    live.submit(records.Cancel(None))
    storage.close()
    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    (stored,) = storage.tournaments()
    assert not stored.open and stored.records == []  # its journal is gone; its final state stays
    shown = TournamentRuntime.restore(stored, storage)
    assert shown.director.status is Status.CANCELLED and shown.details().refunds == live.details().refunds
    assert storage.hand("t2", 1) == "variant = \"NT\"\n"
    assert [row.hand for row in storage.hands("t2", player="p2")] == [1]
    assert storage.hands("t2", player="p3") == [] and storage.hands("t2", table=2) == []


def test_a_restore_checks_its_replay_against_the_events_journaled_with_each_command():
    storage = MemoryStorage()
    live = TournamentRuntime.create("t3", definition(6), storage, hand_pause=0, seed=3)
    for number in range(6):
        live.register(f"player {number}")
    live.submit(records.Start(0.0, 1.0))
    live.recorder.record(records.StartHand(1))
    journal = storage._records["t3"]
    command, events, at, level = msgspec.msgpack.decode(journal[-1])  # with the tournament clock
    assert command == ["start_hand", 1] and events[0]["type"] == "hand_started" and level == 1 and at >= 0
    events[0]["button"] += 1  # a journal that does not match what the commands do
    journal[-1] = msgspec.msgpack.encode([command, events, at, level])
    with pytest.raises(RuntimeError, match="differs from its journal"):
        TournamentRuntime.restore(storage.tournaments()[0], storage)


def test_the_summary_stack_figures_follow_every_command():
    live = TournamentRuntime.create("t4", definition(6, starting_stack=2000), MemoryStorage(), hand_pause=0)
    for number in range(18):
        live.register(f"player {number}")
    assert live.summary().average_stack is None  # nobody has chips before the start
    live.submit(records.Start(0.0, 1.0))
    rng = random.Random(3)
    for hands in range(2, 40, 6):
        drive(live, rng, hands)
        stacks = live.director.stacks.values()
        shown = live.summary()
        assert (shown.average_stack, shown.largest_stack) == (sum(stacks) // len(stacks), max(stacks))
    assert live.summary().largest_stack > 2000  # chips moved, and the figures moved with them


def play_events(director: Tournament, rng: random.Random, hands: int) -> list:
    """The events of ``hands`` more hands, the tables dealt and settled in a fixed order."""
    events: list = []
    played = 0
    now = 0.0
    while played < hands and director.status is Status.RUNNING:
        now += 30.0
        events += director.advance(now)
        for table in director.tables_ready():
            events += director.start_hand(table)
            hand = director.hand(table)
            while not hand.finished:
                events += director.act(table, *tight_aggressive(seat_view(hand), rng))
            events += director.end_hand(table)
            played += 1
    return events


def flattened(state: dict) -> dict:
    """A director's state as it was pickled before its parts had owners: every field its own."""
    floor, rounds, people = state.pop("floor"), state.pop("rounds"), state.pop("people")
    pending, clock = state.pop("pending"), state.pop("clock")
    progress, chips, roster, places = (state.pop(part) for part in ("progress", "chips", "roster", "places"))
    purse, buys, negotiation, heads = (state.pop(part) for part in ("purse", "buys", "negotiation", "heads"))
    state.update(status=progress.status, flight_stopping=progress.flight_stopping, stacks=chips.stacks,
                 chips_issued=chips.issued, entries=roster.entries, reentered=roster.reentered,
                 reentries=roster.reentries, entries_closed=roster.closed, flight_entries=roster.flight_entries,
                 results=places.results,
                 knockouts=places.knockouts, removed=places.removed, removals=places.removals, refunds=places.refunds,
                 prizes=purse.prizes, prize_pool_cents=purse.pool_cents, seats_won=purse.seats_won,
                 rebuys_taken=buys.rebuys_taken, rebuy_period_over=buys.period_over, add_on_until=buys.add_on_until,
                 add_ons=buys.add_ons, deal_pressed=negotiation.pressed, deal_terms=negotiation.terms,
                 proposal=negotiation.proposal, dealt=negotiation.dealt, bounties=heads.bounties,
                 hand_for_hand=rounds.on, hand_for_hand_at=rounds.began_at, level=clock.level,
                 break_until=clock.break_until)
    state.update(tables=floor.tables, where=floor.where, tables_opened=floor.opened, tables_broken=floor.broken,
                 moves=floor.moves, _open=floor._open, _idle=floor._idle, _idle_peak=floor._idle_peak,
                 _breaking=floor._breaking, _breaking_idle=floor._breaking_idle, _h4h_points=set(rounds.points),
                 _round=rounds._round, _round_started=rounds._started, _round_to_deal=rounds._to_deal,
                 _round_busts=rounds._busts, _people=people._person, _entries_of=people._entries_of,
                 _qualified=people._qualified, qualified_entries=people.qualified_entries,
                 rebuy_offers=pending._offers, _held=pending._held, _pending_chips=pending._chips,
                 _deal_due=pending._deal_due, _now=clock._now, _level_started_at=clock._level_started_at,
                 _hands_in_level=clock._hands_in_level, _most_hands_in_level=clock._most_hands_in_level)
    return state


def test_a_director_snapshotted_before_its_tables_were_indexed_restores_and_plays_on_the_same():
    """A snapshot of the release before the table index (``_size``, ``_by_size``) still restores.

    The restored director gets its index rebuilt in the order the tables last
    changed size, and plays every later hand as the same director does when
    it never went through the old layout.
    """
    people = {f"bot{k}": f"person{k % 5}" for k in range(1, 16)}
    director = Tournament(definition(6, paid=10), random.Random(5))
    director.open_registration()
    for k in range(1, 121):
        director.register(f"bot{k}", people.get(f"bot{k}"))
    director.start(0.0)
    play_events(director, random.Random(1), 150)

    state = flattened(pickle.loads(pickle.dumps(director)).__getstate__())
    index = state.pop("_open")
    for new in ("_breaking", "_breaking_idle", "_entries_of", "_round_to_deal", "_idle_peak"):
        del state[new]
    state["_size"] = dict(index.size)
    state["_by_size"] = [{table for table, seated in index.size.items() if seated == size} for size in range(7)]
    old = Tournament.__new__(Tournament)
    old.__setstate__(state)

    assert play_events(old, random.Random(2), 200) == play_events(director, random.Random(2), 200)


def started(storage: SQLiteStorage, tournament: str, *, players: int, seed: int) -> TournamentRuntime:
    live = TournamentRuntime.create(tournament, definition(6, starting_stack=3000), storage, hand_pause=0, seed=seed)
    for number in range(players):
        live.register(f"player {number}")
    live.submit(records.Start(0.0, 1.0))
    return live


@pytest.mark.asyncio
async def test_a_snapshot_pickled_by_a_forked_process_is_the_state_at_its_record_while_play_goes_on(
        tmp_path, monkeypatch):
    """Inside the event loop a child process pickles the snapshot; the tables do not wait for it.

    Play goes on (and the state changes) while the child writes; the stored
    snapshot is still the state at the record where the fork happened, so
    the snapshot plus the records after it rebuild the live tournament.
    """
    monkeypatch.setattr(server.tournament.persistence, "SNAPSHOT_EVERY", 150)
    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    live = started(storage, "t5", players=40, seed=4)
    drive(live, random.Random(5), 60)
    forked = live.journal.snapshotting
    assert forked is not None, "a snapshot was due and is being written by a child process"
    at_fork = live.journal.snapshot_at
    drive(live, random.Random(6), 90)  # the child has not been waited for: play goes on meanwhile
    assert live.journal.position > at_fork
    await forked

    storage.commit()
    (stored,) = storage.tournaments()
    assert stored.snapshot is not None and stored.position - len(stored.records) == at_fork
    restored = TournamentRuntime.restore(stored, storage, hand_pause=0)
    assert state_of(restored) == state_of(live)


def covered(storage: SQLiteStorage, tournament: str, position: int) -> int:
    return storage._db.execute("SELECT COUNT(*) FROM journal WHERE tournament = ? AND position <= ?",
                               (tournament, position)).fetchone()[0]


def test_a_snapshot_bounds_the_replay_and_every_record_stays_for_the_audit_trail(tmp_path):
    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    storage.create("t6", b"{}", 1, b"key")
    for number in range(5_000):
        storage.append("t6", b"record %d" % number, money=False)
    storage.snapshot("t6", 4_500, b"state")
    (stored,) = storage.tournaments()
    assert stored.snapshot == b"state" and stored.records == [b"record %d" % n for n in range(4_500, 5_000)]
    assert covered(storage, "t6", 5_000) == 5_000
    assert list(storage.records("t6")) == [b"record %d" % n for n in range(5_000)]


def test_a_snapshot_written_before_snapshots_were_compressed_still_restores(tmp_path):
    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    live = started(storage, "t8", players=30, seed=8)
    drive(live, random.Random(3), 40)
    storage.snapshot("t8", live.journal.position, pickle.dumps(live.session.state(), pickle.HIGHEST_PROTOCOL))
    drive(live, random.Random(4), 60)

    (stored,) = storage.tournaments()
    assert stored.snapshot[:1] == b"\x80", "a bare pickle, as the previous release wrote"
    restored = TournamentRuntime.restore(stored, storage, hand_pause=0)
    assert state_of(restored) == state_of(live)


def test_the_audit_trail_is_every_director_event_in_order_as_the_simulator_writes_them(tmp_path):
    import json

    import msgspec

    from server.tournament.persistence import audit_lines

    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    live = started(storage, "t9", players=20, seed=9)
    said = [b'{"type":"status_changed","status":"register"}']  # the runtime opens registration at creation
    record = live.recorder.record

    def recording(command):
        events = record(command)
        if not isinstance(command, records.Act):
            said.extend(msgspec.json.encode(event) for event in events)
        return events

    said.extend(msgspec.json.encode(event) for _, event in live.log)  # the registrations and the draw, so far
    live.recorder.record = recording
    drive(live, random.Random(2), 60)
    trail = [json.loads(line) for line in audit_lines(storage.records("t9"))]
    clocks = [(event.pop("at"), event.pop("in_level")) for event in trail[1:]]  # each on the tournament clock
    assert [msgspec.json.encode(event) for event in trail] == said
    assert any(event["type"] == "hand_finished" for event in trail)
    assert clocks == sorted(clocks) and {level for _, level in clocks} == {1} and 0 <= clocks[-1][0] <= live.now()


@pytest.mark.parametrize("snapshot_every", [10**9, 40])
def test_late_entries_and_reentries_replay_exactly(monkeypatch, snapshot_every):
    monkeypatch.setattr(server.tournament.persistence, "SNAPSHOT_EVERY", snapshot_every)
    storage = MemoryStorage()
    rules = definition(6, levels=[Level(10, 20, minutes=60), Level(50, 100, minutes=60)], starting_stack=1000,
                       late_registration=LateRegistration(until_level=2, stack=1500),
                       reentry=Reentry(until_level=2, max_count=2))
    live = TournamentRuntime.create("t1", rules, storage, hand_pause=0, seed=3)
    tokens = dict(live.register(f"player {number}") for number in range(24))
    live.submit(records.Start(0.0, 1.0))
    hands, rng = 40, random.Random(5)
    drive(live, rng, hands)
    # The decks are keyed by a secret of the tournament's own (random, as a live server's): how soon someone is
    # out varies from run to run (nobody was, 40 hands in, once in a whole suite's run; 4 to 12 were in 50 runs of
    # this alone), so play on until one is.
    while not live.director.results and hands < 400:
        hands += 10
        drive(live, rng, hands)
    tokens.update(live.register(f"late {number}") for number in range(7))  # a table opens for some
    out = [player for player in live.director.results if player in tokens]
    assert out, "the test wants someone out to re-enter"
    for player in out:
        tokens[live.reenter(tokens[player])] = tokens[player]
    drive(live, random.Random(6), 90)
    assert live.director.late_entries == 7 + len(out)

    (stored,) = storage.tournaments()
    restored = TournamentRuntime.restore(stored, storage, hand_pause=0)
    assert state_of(restored) == state_of(live)
    assert restored.director.reentered == live.director.reentered
    assert restored.director.chips_in_play() == restored.director.chips_issued


def test_a_restored_tournament_draws_the_timeline_it_had(tmp_path):
    """The pictures' history (server/tournament/timeline.py) is rebuilt from the journal's clocked lines after a
    restart: the same field over time and the same levels as the live tournament had."""
    storage = SQLiteStorage(str(tmp_path / "journal.db"))
    rising = [Level(10 * 2**k, 20 * 2**k, hands=4) for k in range(10)]
    live = TournamentRuntime.create("t8", definition(6, starting_stack=3000, levels=rising), storage, hand_pause=0,
                                    seed=4)
    for number in range(40):
        live.register(f"player {number}")
    live.clock.start(0.0)  # the clock runs, so the lines carry times that move
    live.submit(records.Start(0.0, 1.0))
    drive(live, random.Random(3), 150)
    before = live.timeline.timeline()
    assert before is not None and len(before.levels) >= 2 and len(before.players) > 5
    assert before.players[0][1] == 40 and before.players[-1][1] == live.director.players_left
    stored = next(s for s in storage.tournaments() if s.id == "t8")
    assert TournamentRuntime.restore(stored, storage, hand_pause=0).timeline.timeline() == before
