"""Statuses, registration, refunds and the start (rules.md F.23, G.30)."""

from __future__ import annotations

import random

import pytest

from engine.director import Status, Tournament, TournamentError
from engine.events import Refunded, Registered, StatusChanged
from tests.tournaments import definition


def fresh(**options) -> Tournament:
    return Tournament(definition(9, **options), random.Random(1))


def test_statuses_run_waiting_register_running_finished_order():
    tournament = fresh()
    assert tournament.status is Status.WAITING
    with pytest.raises(TournamentError, match="only in Register"):
        tournament.register("p1")
    assert tournament.open_registration() == [StatusChanged("register")]
    with pytest.raises(TournamentError, match="opens only from Waiting"):
        tournament.open_registration()
    for player in ("p1", "p2", "p3"):
        assert tournament.register(player) == [Registered(player, 1100)]
    events = tournament.start(0.0)
    assert events[0] == StatusChanged("running") and tournament.status is Status.RUNNING
    with pytest.raises(TournamentError, match="starts from Register"):
        tournament.start(0.0)


def test_unregister_refunds_buy_in_and_fee_and_frees_the_place():
    tournament = fresh(max_players=2)
    tournament.open_registration()
    tournament.register("p1")
    tournament.register("p2")
    with pytest.raises(TournamentError, match="full"):
        tournament.register("p3")
    assert tournament.unregister("p1") == [Refunded("p1", 1100, "unregistered")]
    assert tournament.entries == ["p2"]
    tournament.register("p3")
    with pytest.raises(TournamentError, match="not registered"):
        tournament.unregister("p1")


def test_refused_registrations_change_nothing():
    tournament = fresh()
    tournament.open_registration()
    tournament.register("p1")
    before = (list(tournament.entries), dict(tournament.stacks))
    for bad in ("p1", ""):
        assert not tournament.can_register(bad)
        with pytest.raises(TournamentError):
            tournament.register(bad)
    assert (tournament.entries, tournament.stacks) == before


ROLLBACK = "everything paid comes back (A1)"


def test_no_unregistering_once_running():
    tournament = fresh()
    tournament.open_registration()
    tournament.register("p1")
    tournament.register("p2")
    tournament.start(0.0)
    with pytest.raises(TournamentError, match="only in Register"):
        tournament.unregister("p1")
    tournament.cancel()
    assert tournament.ledger.pool_cents == tournament.ledger.fees_cents == 0
    with pytest.raises(TournamentError, match="cancelled tournament cannot be cancelled"):
        tournament.cancel()


def test_below_min_players_at_start_the_tournament_is_cancelled_and_everyone_refunded():
    tournament = fresh(min_players=4)
    tournament.open_registration()
    for player in ("p1", "p2", "p3"):
        tournament.register(player)
    events = tournament.start(0.0)
    assert tournament.status is Status.CANCELLED
    refunds = [Refunded(p, 1100, "cancelled", ROLLBACK) for p in ("p1", "p2", "p3")]
    assert events == [StatusChanged("cancelled"), *refunds]
    assert tournament.tables == {}


@pytest.mark.parametrize("status_steps", [0, 1])
def test_cancel_before_the_start_refunds_every_entry(status_steps):
    tournament = fresh()
    if status_steps:
        tournament.open_registration()
        tournament.register("p1")
    events = tournament.cancel()
    assert tournament.status is Status.CANCELLED
    assert events[1:] == ([Refunded("p1", 1100, "cancelled", ROLLBACK)] if status_steps else [])
    with pytest.raises(TournamentError):
        tournament.open_registration()


def test_prize_pool_is_buy_ins_only_and_paid_places_never_exceed_the_field():
    tournament = fresh(paid=5)
    tournament.open_registration()
    for player in ("p1", "p2", "p3"):
        tournament.register(player)
    tournament.start(0.0)
    assert tournament.prize_pool_cents == 3000
    assert len(tournament.prizes) == 3 and sum(tournament.prizes) == 3000
