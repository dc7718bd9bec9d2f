"""Satellites (rules.md K.44-K.46): seats as prizes, the remainder in cash, hand-for-hand, the end and over-shoots."""

from __future__ import annotations

import pytest

from engine.director import Status
from engine.events import PlayerEliminated, Result, TournamentFinished
from engine.structure import DefinitionError, Satellite, satellite_prizes
from tests.tournaments import definition, hand, running, seated, set_stacks


def test_seats_are_the_pool_over_the_seat_value_and_the_rest_is_cash_for_the_next_place():
    assert satellite_prizes(10_000, 2_200) == ([2_200] * 4 + [1_200], 4)
    assert satellite_prizes(6_000, 1_500) == ([1_500] * 4, 4)
    assert satellite_prizes(1_000, 1_500) == ([1_000], 0)  # not one seat: the winner takes the cash
    tournament, _ = running(10, 5, satellite=Satellite(seat_value_cents=2_200))
    assert tournament.prizes == [2_200] * 4 + [1_200] and tournament.seats_won == 4
    assert 5 in tournament.rounds.points  # hand-for-hand from seats + 1 (K.45)


def test_a_seat_for_everyone_ends_the_satellite_at_the_start_and_shares_the_rest():
    tournament, _ = running(2, 2, satellite=Satellite(seat_value_cents=700))  # 2,000 in the pool: two seats
    assert tournament.status is Status.FINISHED and tournament.hands_played == 0
    assert [(r.prize_cents, r.ticket) for r in tournament.standings()] == [(1_000, True), (1_000, True)]
    ledger = tournament.ledger.summary()
    assert (ledger["tickets"], ledger["prizes"], ledger["held"]) == (1_400, 600, 0)


def test_a_satellite_has_no_deals():
    with pytest.raises(DefinitionError, match="no deals"):
        definition(6, deals=True, satellite=Satellite(seat_value_cents=1_500))


def test_an_over_shoot_ranks_by_stack_then_position_and_everyone_left_wins_a_seat():
    """K.46: five left, four seats, two bust in one hand with equal stacks: position decides the last seat."""
    tournament, dealer = running(6, 6, starting_stack=1000, satellite=Satellite(seat_value_cents=1_500))
    players = seated(tournament, 1)
    hand(tournament, dealer, 1, players[0], all_in={players[0], players[1]})  # six to five
    assert tournament.results[players[1]] == Result(players[1], 6, 0, False)
    left = seated(tournament, 1)
    winner = max(left, key=tournament.stacks.get)
    short = [p for p in left if p != winner][:2]
    others = [p for p in left if p != winner and p not in short]
    total = sum(tournament.stacks[p] for p in left)
    set_stacks(tournament, {short[0]: 500, short[1]: 500, others[0]: 1000, others[1]: 1000,
                            winner: total - 3000})
    events = hand(tournament, dealer, 1, winner, all_in={winner, *short})
    busts = [e for e in events if isinstance(e, PlayerEliminated)]
    assert sorted(e.place for e in busts) == [4, 5]
    seat_winner = next(e.player for e in busts if e.place == 4)
    order = [p.player for p in events[0].players]
    assert order.index(seat_winner) < order.index(next(p for p in short if p != seat_winner))
    (finished,) = [e for e in events if isinstance(e, TournamentFinished)]
    assert tournament.status is Status.FINISHED
    assert [r.place for r in finished.results] == [1, 2, 3, 4, 5, 6]
    assert [r.ticket for r in finished.results] == [True] * 4 + [False] * 2
    assert {r.prize_cents for r in finished.results[:4]} == {1_500}
    ledger = tournament.ledger.summary()
    assert ledger["tickets"] == 6_000 and ledger["prizes"] == 0 and ledger["held"] == 0
