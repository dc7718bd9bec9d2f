"""Random whole tournaments, checked after every hand (hypothesis drives the field, seats, bots and seed)."""

from __future__ import annotations

import math

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.events import EntriesClosed, HandStarted, TournamentFinished
from engine.refunds import RefundPolicy
from engine.structure import (
    AddOn,
    Bounty,
    Envelope,
    LateRegistration,
    Level,
    Rebuys,
    Reentry,
    Satellite,
    default_definition,
)
from bots.simulator import simulate
from tests.tournaments import check_after_every_hand, definition

MIXES = st.sampled_from([None, {"random": 1}, {"station": 1, "tag": 1}, {"pushfold": 1}])


def check_results(report, players: int, pool: int, *, ordered: bool = True) -> None:
    """Every entry placed once and the pool paid in full; with ``ordered``, a better place never paid less (a
    partial deal pays by its own rule first, so after one it need not hold)."""
    money = report.money
    assert money["held"] == 0
    assert money["paid_in"] == money["prizes"] + money["tickets"] + money["bounties"] + money["fees_kept"]
    assert sorted(r["place"] for r in report.results) == list(range(1, players + 1))
    assert len({r["player"] for r in report.results}) == players
    assert sum(r["prize_cents"] for r in report.results) == pool
    places = sorted(report.results, key=lambda r: r["place"])
    assert not ordered or all(a["prize_cents"] >= b["prize_cents"] for a, b in zip(places, places[1:]))


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 90), seats=st.integers(2, 10), seed=st.integers(0, 2**32), mix=MIXES)
def test_random_tournaments_keep_every_invariant(players, seats, seed, mix):
    tournament_definition = default_definition(players, seats)
    finished = []
    watch = check_after_every_hand(players * tournament_definition.starting_stack, seats)

    def on_event(tournament, event, at=0.0):
        watch(tournament, event)
        if isinstance(event, TournamentFinished):
            finished.append(event)

    report = simulate(tournament_definition, players, seed, mix=mix, on_event=on_event)
    assert len(finished) == 1
    check_results(report, players, players * tournament_definition.buy_in_cents)


@settings(max_examples=40, deadline=None)
@given(players=st.integers(2, 40), seats=st.integers(2, 10), seed=st.integers(0, 2**32),
       paid=st.integers(1, 12), hands_per_level=st.integers(1, 6))
def test_random_tournaments_with_levels_by_hands_and_many_pay_jumps(players, seats, seed, paid, hands_per_level):
    levels = [Level(sb, 2 * sb, hands=hands_per_level) for sb in (10, 20, 40, 80, 160, 320)]
    tournament_definition = definition(seats, paid=paid, levels=levels, starting_stack=500)
    watch = check_after_every_hand(players * 500, seats)
    report = simulate(tournament_definition, players, seed, on_event=watch)
    check_results(report, players, players * 1000)


def test_the_same_seed_plays_the_same_tournament():
    first = simulate(default_definition(120), 120, 7)
    second = simulate(default_definition(120), 120, 7)
    assert (first.results, first.hands, first.moves) == (second.results, second.hands, second.moves)
    assert first.results != simulate(default_definition(120), 120, 8).results


@settings(max_examples=25, deadline=None)
@given(players=st.integers(12, 80), seats=st.integers(2, 10), seed=st.integers(0, 2**32),
       holders=st.integers(1, 4), entries_each=st.integers(2, 3))
def test_entries_of_one_person_never_share_a_table_in_any_hand(players, seats, seed, holders, entries_each):
    tables_at_start = math.ceil(players / seats)
    entries_each = min(entries_each, tables_at_start)
    people = {f"bot{holder * entries_each + k + 1}": f"person{holder}"
              for holder in range(holders) for k in range(entries_each)}
    hands_checked = []
    definition = default_definition(players, seats)
    invariants = check_after_every_hand(players * definition.starting_stack, seats)

    def watch(tournament, event, at=0.0):
        invariants(tournament, event)
        if isinstance(event, HandStarted):
            owners = [people.get(p.player, p.player) for p in event.players]
            assert len(owners) == len(set(owners)), f"two entries of one person at table {event.table}"
            hands_checked.append(event.hand)

    report = simulate(definition, players, seed, on_event=watch, people=people)
    assert hands_checked
    check_results(report, players, players * definition.buy_in_cents)


MONEY_OPTIONS = st.fixed_dictionaries({
    "rebuys": st.one_of(st.none(), st.builds(
        Rebuys, levels=st.integers(1, 3), price_cents=st.sampled_from([0, 500, 1000]), chips=st.just(1000),
        fee_cents=st.sampled_from([0, 50]), max_count=st.integers(1, 3),
        allowed_at=st.sampled_from(["zero", "starting_stack"]))),
    "deals": st.booleans(),
    "policy": st.builds(RefundPolicy, name=st.sampled_from(["A", "B"]), refund_fees=st.booleans(),
                        late_formula=st.sampled_from(["chip_equity", "chip_position"])),
    "add_on": st.booleans(),
    "bounty": st.one_of(st.none(), st.builds(Bounty, cents=st.sampled_from([1, 333, 500]),
                                             progressive_percent=st.sampled_from([0, 50, 100])),
                        st.builds(Bounty, cents=st.sampled_from([1, 333]), from_players_left=st.integers(2, 8),
                                  mystery=st.just([Envelope(500, count=3), Envelope(100)]))),
    "satellite": st.one_of(st.none(), st.builds(Satellite, seat_value_cents=st.sampled_from([700, 1100, 2500]))),
})


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 40), seats=st.integers(2, 9), seed=st.integers(0, 2**32), money=MONEY_OPTIONS,
       cancel_at=st.one_of(st.none(), st.integers(0, 120)), mix=MIXES)
def test_money_balances_after_every_event_with_rebuys_add_ons_deals_and_cancellations(
        players, seats, seed, money, cancel_at, mix):
    levels = [Level(sb, 2 * sb, hands=4) for sb in (10, 20, 40, 80, 160, 320, 640)]
    add_on = AddOn(price_cents=1000, chips=1500, fee_cents=50) if money["add_on"] and money["rebuys"] else None
    satellite = money["satellite"]
    tournament_definition = definition(seats, paid=min(players, 3), levels=levels, satellite=satellite,
                                       rebuys=None if satellite else money["rebuys"],
                                       add_on=None if satellite else add_on, deals=money["deals"] and not satellite,
                                       refund_policy=money["policy"], bounty=money["bounty"])
    seen = []

    def watch(tournament, event, at=0.0):
        check_after_every_hand(None, seats)(tournament, event)
        seen.append(type(event).__name__)

    report = simulate(tournament_definition, players, seed, mix=mix, on_event=watch, cancel_at_hand=cancel_at)
    assert report.money["held"] == 0, "a finished or cancelled tournament holds no money"
    money = report.money
    assert money["paid_in"] == (money["prizes"] + money["tickets"] + money["bounties"] + money["refunds"]
                                + money["fees_kept"])
    if report.status == "finished":
        check_results(report, players, money["paid_in"] - money["fees_kept"] - money["bounties"],
                      ordered="DealPaid" not in seen)
    else:
        assert report.status == "cancelled" and "Refunded" in seen


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 60), seats=st.integers(2, 9), seed=st.integers(0, 2**32), late=st.integers(0, 40),
       reentry=st.sampled_from([0.0, 0.5, 1.0]), until=st.integers(1, 4), paid=st.integers(1, 6),
       rebuys=st.booleans(), holders=st.integers(0, 3), mix=MIXES)
def test_late_registration_and_reentry_keep_every_invariant_and_give_every_entry_a_place(
        players, seats, seed, late, reentry, until, paid, rebuys, holders, mix):
    levels = [Level(sb, 2 * sb, minutes=10) for sb in (10, 20, 40, 80, 160, 320, 640, 1280)]
    tournament_definition = definition(
        seats, paid=min(players, paid), levels=levels, max_players=players + late // 2 + 5,
        late_registration=LateRegistration(until_level=until, stack=1500), reentry=Reentry(until_level=until,
                                                                                          max_count=2),
        rebuys=Rebuys(levels=2, price_cents=1000, chips=1000) if rebuys else None, entries_per_person=3)
    people = {f"bot{2 * holder + k + 1}": f"person{holder}" for holder in range(holders) for k in range(2)
              if 2 * holder + k + 1 <= players and players > seats}  # two tables at least
    invariants = check_after_every_hand(None, seats, exact_tables=not people)
    closed = []

    def watch(tournament, event, at=0.0):
        invariants(tournament, event)
        if isinstance(event, EntriesClosed):
            closed.append(event)
        if isinstance(event, HandStarted):
            owners = [tournament.person(p.player) for p in event.players]
            assert len(owners) == len(set(owners)), f"two entries of one person at table {event.table}"

    report = simulate(tournament_definition, players, seed, mix=mix, on_event=watch, people=people,
                      late_players=late, reentry_probability=reentry)
    entries = players + report.late_registrations + report.reentries
    money = report.money
    check_results(report, entries, money["paid_in"] - money["fees_kept"])
    assert money["paid_in"] == entries * 1100 + money["rebuys"] * 1000
    assert {event.kind for event in closed} == {"late_registration", "reentry"}
