"""The engine's parts on their own: each rule tested on the part that owns its state, without building
a tournament; and the snapshots pickled before the parts had owners restore and play on."""

from __future__ import annotations

import math
import pickle
import random
from pathlib import Path

import pytest

from engine import snapshots
from engine.director import Status, Tournament, TournamentError
from engine.parts.busts import Bust
from engine.events import PlayerMoved, TableBroken, TableClosing
from engine.events import Result
from engine.parts.floor import Floor
from engine.parts.negotiation import Deal, Negotiation, Terms
from engine.parts.results import Results
from engine.parts.stacks import Stacks
from engine.parts.rounds import Rounds
from engine.parts.pending import Pending
from engine.structure import Level, Rebuys
from tests.source_only import run_from_source
from tests.tournaments import hand, running, seated, set_stacks

# Tournaments pickled by the last engine of each older layout (tests/fixtures/make_snapshots.py): before the
# parts, and before every field had a part.
FIXTURES = Path(__file__).parent / "fixtures"
SNAPSHOTS = FIXTURES / "snapshots_729e411.pickle"
LAYOUTS = [SNAPSHOTS, FIXTURES / "snapshots_df9e6d2.pickle"]


def floor_of(*sizes: int, seats: int = 6) -> Floor:
    """A floor whose tables 1, 2 ... seat ``sizes`` players, named t<table>s<seat>, between hands."""
    floor = Floor(seats)
    floor.lay_out([[f"t{number}s{seat}" if seat < size else None for seat in range(seats)]
                   for number, size in enumerate(sizes, start=1)])
    return floor


def sizes(floor: Floor) -> dict[int, int]:
    return {number: state.table.seated for number, state in floor.tables.items()}


# ------------------------------------------------------------------------------------------------- the floor

def test_the_floor_locks_a_table_of_the_fewest_players_drawn_at_random_among_them_b6():
    chosen = set()
    for seed in range(40):
        floor = floor_of(6, 4, 6, 4, 5)  # 25 players need 5 tables of 6 ... 21 need 4
        events = floor.lock_surplus(21, random.Random(seed))
        assert [type(event) for event in events] == [TableClosing]
        (closing,) = floor.breaking
        assert sizes(floor)[closing] == 4 and closing not in floor.open
        chosen.add(closing)
    assert chosen == {2, 4}  # both of the fewest, never another


def test_a_locked_table_in_a_hand_finishes_it_then_its_players_draw_open_seats_b7():
    floor = floor_of(5, 2, 5)
    floor.set_idle(2, False)  # table 2 is playing a hand
    floor.lock_surplus(12, random.Random(1))
    assert floor.breaking == {2} and not floor.breaking_idle  # it closes once its hand is over
    assert floor.lock_surplus(11, random.Random(1)) == []  # a lock stands; nothing more to lock
    floor.set_idle(2, True)
    assert floor.breaking_idle == {2}
    players = floor.tables[2].table.players
    events, unplaced = floor.close(2, 12, random.Random(7))
    assert unplaced == [] and isinstance(events[0], TableBroken) and 2 not in floor.tables
    moved = [event for event in events if isinstance(event, PlayerMoved)]
    assert sorted(event.player for event in moved) == sorted(players)
    for event in moved:
        assert floor.where[event.player] == (event.to_table, event.seat)
        assert floor.tables[event.to_table].table.seats[event.seat] == event.player
    assert sorted(sizes(floor).values()) == [6, 6] and floor.broken == 1 and floor.moves == 2


def test_while_entries_may_come_the_floor_closes_only_a_table_whose_players_all_sit_apart_m50():
    floor = floor_of(2, 5, 5)  # 12 players need two tables; table 1's two can take the one seat left at 2 and 3

    def apart(barred: dict[str, set[int]]):
        return lambda table: floor.seats_apart(table, lambda player: barred.get(player, set()))

    both_barred_from_2 = {"t1s0": {2}, "t1s1": {2}}  # each has another entry at table 2
    assert not apart(both_barred_from_2)(1)
    assert floor.lock_surplus(12, random.Random(3), apart(both_barred_from_2)) == [] and not floor.breaking
    one_barred = {"t1s0": {2}}  # t1s0 takes table 3's seat, t1s1 table 2's
    assert apart(one_barred)(1)
    floor.lock_surplus(12, random.Random(3), apart(one_barred))
    assert floor.breaking == {1}


def test_a_break_draws_a_seating_that_merges_nobody_whenever_one_exists_m51():
    """Tables 2-5 have one open seat each. x may not sit at 5 (another entry of x's person is there), w only at 4
    (others of w's are at 2, 3 and 5): the greedy draw gave x table 4 a third of the time and merged w. Now w is
    never merged, x sits at 2 or 3 at random, and where no seating exists a merge still happens."""
    people = {"t1s0": "x", "t5s0": "x", "t1s1": "w", "t2s0": "w", "t3s0": "w", "t5s1": "w"}
    person = lambda entry: people.get(entry, entry)  # noqa: E731

    def seated_with(floor: Floor):
        return lambda entry: [floor.where[other][0] for other in people
                              if other != entry and person(other) == person(entry) and other in floor.where]

    seats_of_x = set()
    for seed in range(60):
        floor = floor_of(2, 5, 5, 5, 5)
        floor.lock_surplus(22, random.Random(seed))
        assert floor.breaking == {1}
        events, unplaced = floor.close(1, 22, random.Random(seed), person, seated_with(floor))
        assert unplaced == []
        tables = {event.player: event.to_table for event in events if isinstance(event, PlayerMoved)}
        assert tables["t1s1"] == 4
        seats_of_x.add(tables["t1s0"])
    assert seats_of_x == {2, 3}
    people["t4s0"] = "w"  # now w has another entry at every table with room: w must merge, x still sits
    floor = floor_of(2, 5, 5, 5, 5)
    floor.lock_surplus(22, random.Random(0))
    events, unplaced = floor.close(1, 22, random.Random(0), person, seated_with(floor))
    assert unplaced == ["t1s1"] and [event.player for event in events if isinstance(event, PlayerMoved)] == ["t1s0"]


def test_the_floor_balances_from_a_fullest_table_between_hands_to_a_shortest_a3_a4():
    floor = floor_of(6, 3, 5)
    floor.set_idle(1, False)  # the fullest is in a hand: its player moves when it ends
    assert floor.even_out(random.Random(2)) == []
    floor.set_idle(1, True)
    (event,) = floor.even_out(random.Random(2))
    assert (event.from_table, event.to_table, event.reason) == (1, 2, "balance")
    assert sorted(sizes(floor).values()) == [4, 5, 5] and floor.open.sizes() == (4, 5)
    assert floor.where[event.player] == (2, event.seat)


def test_a_player_the_floor_unseats_leaves_the_table_and_its_size():
    floor = floor_of(3, 3)
    assert floor.unseat("t1s1") == 1
    assert "t1s1" not in floor.where and floor.open.size[1] == 2 and floor.tables[1].table.seats[1] is None


# ------------------------------------------------------------------------------------------------ the rounds

def test_a_hand_for_hand_round_waits_for_every_table_and_closes_with_all_their_busts_d15_d17():
    rounds = Rounds()
    rounds.open([1, 2, 3])
    assert rounds.under_way and rounds.to_deal == {1, 2, 3}
    rounds.dealt(1)
    assert not rounds.waits_for(1) and rounds.waits_for(2) and rounds.has_dealt(1)
    first, second = Bust("a", 100, 1, 0, ("x",)), Bust("b", 300, 2, 1, ("y",))
    assert not rounds.finished(1, [first])
    rounds.dealt(2)
    rounds.voided(2)  # its hand was called off: it deals the round's hand again
    assert rounds.waits_for(2) and rounds.to_deal == {2, 3}
    rounds.dealt(2)
    rounds.dealt(3)
    assert rounds.to_deal == set()
    assert not rounds.finished(2, [second])
    assert rounds.finished(3, [])  # the last table: the round is over
    assert rounds.close() == [first, second] and not rounds.under_way


def test_a_round_no_table_has_dealt_can_be_let_go_and_one_under_way_cannot():
    rounds = Rounds()
    rounds.open([1, 2])
    rounds.let_go()
    assert not rounds.under_way
    rounds.open([1, 2])
    rounds.dealt(1)
    rounds.let_go()
    assert rounds.under_way


# ----------------------------------------------------------------------------------------------- the pending

def test_rebuy_offers_hold_their_batch_until_the_last_answer_f25():
    pending = Pending()
    busts = [Bust("a", 500, 1, 0, ("w",)), Bust("b", 200, 1, 1, ("w",)), Bust("c", 100, 1, 2, ("w",))]
    pending.hold(busts, False, {"b": 30.0, "a": 20.0})  # c has no re-buy left: held, not offered
    assert dict(pending.offers) == {"a": 20.0, "b": 30.0} and pending.holds()
    assert pending.holds_any(["x", "c"]) and not pending.holds_any(["x", "w"])
    assert pending.expired(25.0) == ["a"] and pending.expired(40.0) == ["a", "b"]
    assert pending.answered("a", rebought=True) is None  # b has not answered yet
    held = pending.answered("b", rebought=False)
    assert held is not None and [bust.player for bust in held.busts] == ["b", "c"]  # a bought back in
    assert not pending.holds() and not pending.offers


def test_chips_bought_during_a_hand_wait_for_it_and_a_cancellation_drops_every_offer():
    pending = Pending()
    pending.add_chips("a", 1000)
    pending.add_chips("a", 500)
    assert pending.chips_of("a") == 1500 and pending.total_chips() == 1500
    assert pending.take_chips("a") == 1500 and pending.take_chips("a") == 0 and not pending.has_chips()
    pending.hold([Bust("b", 1, 1, 0, ())], False, {"b": 5.0})
    assert pending.drop_all() == ["b"] and not pending.holds() and not pending.offers


# --------------------------------------------------------------------------- a bust held while others answer

def test_a_bust_held_for_another_players_rebuy_answer_is_dealt_no_hand_wherever_it_sits():
    """Two busts of one hand, one offered a re-buy and one with none left: the one without waits, at zero chips,
    until the other answers, and is ranked with them. Moved to another table meanwhile, it is dealt no hand there
    (once that table dealt it in, and the hand refused its empty stack)."""
    rebuys = Rebuys(levels=5, price_cents=1000, chips=1000, max_count=1, allowed_at="starting_stack")
    t, dealer = running(7, 4, levels=[Level(10, 20, minutes=60)], rebuys=rebuys)
    full, short = (1, 2) if len(seated(t, 1)) == 4 else (2, 1)
    w, a, b, x = seated(t, full)
    t.rebuy(a)  # a's one re-buy, used
    others = seated(t, short)
    set_stacks(t, {w: 4000, a: 1000, b: 1000, x: 1000, others[0]: 500, others[1]: 250, others[2]: 250})
    hand(t, dealer, full, winner=w, all_in={w, a, b})
    assert t.stacks[a] == t.stacks[b] == 0 and set(t.rebuy_offers) == {b}
    t.move(a, short)
    assert short not in t.tables_ready()
    with pytest.raises(TournamentError, match="waits for a re-buy decision"):
        t.start_hand(short)
    t.decline_rebuy(b)
    assert a in t.results and b in t.results and short in t.tables_ready()


# ------------------------------------------------------------------------ snapshots of older layouts

@pytest.mark.parametrize("layout", LAYOUTS, ids=lambda path: path.stem)
@pytest.mark.parametrize("name", ["hand_for_hand_with_offers", "tables_closing_with_people", "final_with_qualified"])
def test_a_snapshot_pickled_by_an_older_layout_restores_and_plays_to_the_end(layout, name):
    t: Tournament = snapshots.loads(layout.read_bytes())[name]
    assert t.chips_in_play() == t.chips_issued and t.ledger.balances()
    in_hands = [number for number, state in t.tables.items() if state.hand is not None]
    assert in_hands and set(t.floor.where) == set(t.stacks)
    if name == "hand_for_hand_with_offers":
        assert t.hand_for_hand and t.rounds.under_way and t.rebuy_offers and t.pending.holds()
    elif name == "tables_closing_with_people":
        assert t.tables_to_break and t.people.several()
    else:
        assert t.people.qualified_entries and t.flight_entries == 18
    play(t, random.Random(9), until=math.inf)
    assert t.status is Status.FINISHED
    assert sorted(result.place for result in t.results.values()) == list(range(1, len(t.results) + 1))


def play(t: Tournament, rng: random.Random, *, until: float) -> None:
    """Bots that check, call or shove play ``t`` until it ends or has dealt ``until`` hands."""
    now = max(10_000.0, t.clock.now)
    while t.status is Status.RUNNING and t.hands_played < until:
        now += 1.0
        t.advance(now)
        for player in list(t.rebuy_offers):
            (t.rebuy if rng.random() < 0.3 else t.decline_rebuy)(player)
        for table in t.tables_ready():
            t.start_hand(table)
        for table in [number for number, state in t.tables.items() if state.hand is not None]:
            current = t.hand(table)
            assert current is not None
            while not current.finished:
                legal = current.legal_actions()
                if legal.max_raise_to is not None and rng.random() < 0.3:
                    t.act(table, "raise", legal.max_raise_to)
                else:
                    t.act(table, "check" if legal.can_check else "call")
            t.end_hand(table)
            assert t.chips_in_play() == t.chips_issued and t.ledger.balances()


CROSSED = """
import pickle, random, sys
from tests.test_parts import play
t = pickle.loads(open(sys.argv[1], "rb").read())
play(t, random.Random(5), until=t.hands_played + 40)
open(sys.argv[2], "wb").write(pickle.dumps(t))
"""


def test_a_snapshot_loads_and_plays_on_whether_the_engine_is_compiled_or_python(tmp_path):
    """A journal's snapshot moves between a machine with the compiled engine and one without (engine.pickling)."""
    t: Tournament = snapshots.loads(SNAPSHOTS.read_bytes())["hand_for_hand_with_offers"]
    play(t, random.Random(3), until=t.hands_played + 40)
    issued, played = t.chips_issued, t.hands_played
    here, there = tmp_path / "here.pickle", tmp_path / "there.pickle"
    here.write_bytes(pickle.dumps(t))
    run_from_source(CROSSED, str(here), str(there))
    back: Tournament = pickle.loads(there.read_bytes())
    assert back.hands_played >= played + 40 or back.status is Status.FINISHED
    assert back.chips_in_play() == back.chips_issued == issued and back.ledger.balances()
    play(back, random.Random(4), until=math.inf)
    assert back.status is Status.FINISHED
    assert sorted(result.place for result in back.results.values()) == list(range(1, len(back.results) + 1))


# ------------------------------------------------------------------------ the parts below every rule

def test_the_chips_keep_every_stack_and_the_chips_issued_together():
    chips = Stacks()
    chips.admit("a", 1000)
    chips.admit("b", 1500)
    chips.issue(500)  # a re-buy paid during a hand: issued now, credited when it ends
    chips.credit("a", 500)
    assert chips.stacks == {"a": 1500, "b": 1500} and chips.issued == 3000
    chips.raise_to("b", 2000)  # a better qualification (L.48)
    assert chips.withdraw("a") == 1500 and chips.issued == 2000 == sum(chips.stacks.values())
    assert chips.take("b") == 2000 and chips.issued == 2000  # merged: still issued, on another entry's stack
    chips.clear()
    assert chips.stacks == {} and chips.issued == 0


def test_a_deal_in_the_making_starts_over_when_the_players_change():
    negotiation = Negotiation()
    negotiation.press("a", True)
    negotiation.ask(Terms("a", "chip_chop", 0, None))
    assert negotiation.take_terms() is not None and negotiation.terms is None
    negotiation.propose(Deal({"a": 60, "b": 40}, 30.0, ["a", "b"]))
    negotiation.accept("a")
    assert negotiation.proposal is not None and negotiation.proposal.accepted == {"a"}
    negotiation.close()
    negotiation.ask(Terms("b", "equal", 0, None))
    negotiation.start_over()
    assert negotiation.proposal is None and negotiation.terms is None and negotiation.pressed == set()
    negotiation.paid("a", 25)
    negotiation.paid("a", 5)
    assert negotiation.dealt == {"a": 30}


def test_the_places_are_renumbered_in_the_order_the_players_went_out():
    places = Results()
    for place, player in ((12, "x"), (11, "y")):
        places.record(Result(player, place, 0))
    places.renumber("x", 20)
    assert [(result.player, result.place) for result in places.results.values()] == [("x", 20), ("y", 11)]
    places.remove_later("y", True)
    assert places.removal_of("y") is True and places.removals == {}
