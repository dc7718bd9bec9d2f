"""Money through the director: the ledger, re-buys and add-ons (F.25-F.26), ICM deals (H.36), cancellation (I)."""

from __future__ import annotations

import msgspec
import pytest

from engine.director import Status, TournamentError
from engine.events import (
    AddOnEnded, AddOnOffered, AddOnTaken, DealProposed, DealRejected, HandVoided, PlayerEliminated, RebuyDeclined,
    RebuyOffered, RebuyTaken, Refunded, TournamentFinished,
)
from engine.icm import equities
from engine.refunds import RefundPolicy
from engine.structure import AddOn, Level, Rebuys
from tests.tournaments import deal, hand, play_out, running, seated, set_stacks

REBUYS = Rebuys(levels=1, price_cents=1_000, fee_cents=100, chips=1_000, max_count=2, offer_seconds=20)
LEVELS = [Level(10, 20, minutes=10), Level(20, 40, minutes=10)]


def balanced(tournament) -> None:
    ledger = tournament.ledger
    assert ledger.balances()
    assert tournament.chips_in_play() == tournament.chips_issued


def four_at_one_table(**options):
    tournament, dealer = running(4, 4, levels=LEVELS, rebuys=REBUYS, **options)
    return tournament, dealer, seated(tournament, 1)


def test_a_bust_in_the_period_is_offered_a_rebuy_and_the_table_waits_for_the_answer():
    tournament, dealer, (a, b, c, d) = four_at_one_table()
    events = hand(tournament, dealer, 1, winner=a, all_in={a, b})
    assert [e for e in events if isinstance(e, RebuyOffered)] == [RebuyOffered(b, 20.0, 1_100, 1_000)]
    assert not any(isinstance(e, PlayerEliminated) for e in events)
    assert tournament.players_left == 4 and tournament.stacks[b] == 0
    assert not tournament.is_ready(1)
    with pytest.raises(TournamentError, match="no hand is missed"):
        tournament.start_hand(1)
    taken = tournament.rebuy(b)
    assert taken == [RebuyTaken(b, 1_000, 1, 1_100)]
    assert tournament.stacks[b] == 1_000 and tournament.is_ready(1)
    assert tournament.prize_pool_cents == 5_000 and sum(tournament.prizes) == 5_000
    assert tournament.ledger.paid_by(b) == {"buy_in": 1_000, "fee": 100, "rebuy": 1_000, "rebuy_fee": 100}
    balanced(tournament)


@pytest.mark.parametrize("rebuyer", [None, "c"])
def test_a_declined_rebuy_after_a_simultaneous_bust_ranks_by_start_of_hand_stacks(rebuyer):
    """Edge case 5: two busts in one hand; whoever declines is ranked in that hand's batch."""
    tournament, dealer, (a, b, c, d) = four_at_one_table()
    set_stacks(tournament, {a: 1_600, b: 400, c: 1_000, d: 1_000})
    events = hand(tournament, dealer, 1, winner=a, all_in={a, b, c})
    assert {e.player for e in events if isinstance(e, RebuyOffered)} == {b, c}
    first = tournament.decline_rebuy(b)
    assert first == [RebuyDeclined(b, "declined")]  # the batch waits for c
    after = tournament.rebuy(c) if rebuyer else tournament.decline_rebuy(c)
    places = {e.player: e.place for e in after if isinstance(e, PlayerEliminated)}
    assert places == ({b: 4} if rebuyer else {b: 4, c: 3})
    balanced(tournament)


def test_an_unanswered_offer_expires_on_the_clock():
    tournament, dealer, (a, b, c, d) = four_at_one_table()
    hand(tournament, dealer, 1, winner=a, all_in={a, b})
    assert tournament.advance(19.9) == []
    events = tournament.advance(20.0)
    assert events[0] == RebuyDeclined(b, "expired")
    assert PlayerEliminated(b, 4, 0, 1) in events
    with pytest.raises(TournamentError, match="no re-buy offer"):
        tournament.decline_rebuy(b)


def test_rebuys_stop_at_the_maximum_and_after_the_period():
    tournament, dealer, (a, b, c, d) = four_at_one_table()
    for _ in range(2):
        hand(tournament, dealer, 1, winner=a, all_in={a, b})
        tournament.rebuy(b)
    events = hand(tournament, dealer, 1, winner=a, all_in={a, b})
    assert not any(isinstance(e, RebuyOffered) for e in events)  # the third bust is final
    assert tournament.results[b].place == 4
    tournament.advance(600.0)
    events = hand(tournament, dealer, 1, winner=a, all_in={a, c})
    assert not any(isinstance(e, RebuyOffered) for e in events)
    balanced(tournament)


def test_a_short_stack_may_rebuy_between_hands_when_the_tournament_allows_it():
    tournament, dealer, (a, b, c, d) = four_at_one_table()
    with pytest.raises(TournamentError, match="only at zero"):
        tournament.rebuy(b)
    lenient_rules = msgspec.structs.replace(REBUYS, allowed_at="starting_stack")
    lenient, lenient_dealer = running(4, 4, levels=LEVELS, rebuys=lenient_rules)
    a, b, c, d = seated(lenient, 1)
    set_stacks(lenient, {a: 1_200, b: 800})
    with pytest.raises(TournamentError, match="at or below the starting stack"):
        lenient.rebuy(a)
    assert lenient.rebuy(b)[0].chips == 1_000 and lenient.stacks[b] == 1_800
    # During a hand the re-buy is taken and paid at once, and its chips arrive when the hand ends (as the
    # add-on's do), so a live table, which never pauses between hands, can take it.
    deal(lenient, lenient_dealer, 1)
    before = lenient.stacks[c]
    assert lenient.rebuy(c)[0].chips == 1_000 and lenient.stacks[c] == before
    assert lenient.chips_in_play() == lenient.chips_issued
    play_out(lenient, 1)
    played = lenient.hand(1)
    after_the_hand = played.stacks[played.players.index(c)]
    lenient.end_hand(1)
    assert lenient.stacks[c] == after_the_hand + 1_000
    balanced(lenient)


def test_the_add_on_is_offered_to_everyone_when_the_period_ends_and_closes_on_its_clock():
    tournament, dealer = running(4, 4, levels=LEVELS, rebuys=REBUYS, add_on=AddOn(price_cents=1_500, chips=3_000))
    a, b, c, d = seated(tournament, 1)
    with pytest.raises(TournamentError, match="end of the re-buy period"):
        tournament.add_on(a)
    deal(tournament, dealer, 1)
    events = tournament.advance(600.0)
    assert AddOnOffered(660.0, 1_500, 3_000) in events
    in_hand = tournament.hand(1).players[0]
    assert tournament.add_on(in_hand) == [AddOnTaken(in_hand, 3_000, 1_500)]
    assert tournament.chips_in_play() == tournament.chips_issued == 7_000
    with pytest.raises(TournamentError, match="already taken"):
        tournament.add_on(in_hand)
    before = tournament.stacks[in_hand]
    play_out(tournament, 1)
    tournament.end_hand(1)
    assert tournament.stacks[in_hand] >= 3_000 and tournament.stacks[in_hand] != before
    assert tournament.advance(660.0) == [AddOnEnded()]
    with pytest.raises(TournamentError, match="end of the re-buy period"):
        tournament.add_on(b)
    assert tournament.prize_pool_cents == 5_500
    balanced(tournament)


def three_handed_final(**options):
    tournament, dealer = running(3, 3, paid=3, deals=True, deal_seconds=30, **options)
    return tournament, dealer, seated(tournament, 1)


def test_a_deal_everyone_accepts_pays_the_icm_amounts_and_ends_the_tournament():
    tournament, dealer, players = three_handed_final()
    set_stacks(tournament, dict(zip(players, (1_500, 1_000, 500))))
    assert tournament.press_deal(players[0])[0].pressed == 1
    tournament.press_deal(players[1])
    proposal = tournament.press_deal(players[2])[-1]
    assert isinstance(proposal, DealProposed) and proposal.until == 30.0
    pool = tournament.prize_pool_cents
    assert sum(proposal.amounts.values()) == pool
    exact = dict(zip(players, equities([1_500, 1_000, 500], tournament.prizes)))
    assert all(abs(proposal.amounts[p] - exact[p]) < 1 for p in players)
    assert not tournament.is_ready(1)
    tournament.accept_deal(players[0])
    tournament.accept_deal(players[1])
    finished = tournament.accept_deal(players[2])
    (summary,) = [e for e in finished if isinstance(e, TournamentFinished)]
    assert summary.deal and [r.player for r in summary.results] == players  # places follow the stacks
    assert {r.player: r.prize_cents for r in summary.results} == proposal.amounts
    assert tournament.status is Status.FINISHED
    assert tournament.ledger.pool_cents == tournament.ledger.fees_cents == 0 and tournament.ledger.balances()


def test_any_no_or_the_clock_ends_the_proposal_and_play_continues():
    tournament, dealer, players = three_handed_final()
    for player in players:
        tournament.press_deal(player)
    assert tournament.can_answer_deal(players[0]) and tournament.can_answer_deal(players[1])
    assert tournament.reject_deal(players[1]) == [DealRejected(players[1], "rejected")]
    assert not tournament.can_answer_deal(players[0])
    assert tournament.proposal is None and tournament.deal_pressed == set() and tournament.is_ready(1)
    deal(tournament, dealer, 1)
    for player in players:
        tournament.press_deal(player)
    assert tournament.proposal is None  # a hand is on: the proposal waits for its end
    play_out(tournament, 1)
    events = tournament.end_hand(1)
    assert isinstance(events[-1], DealProposed)
    assert tournament.advance(29.0) == []
    assert tournament.advance(30.0) == [DealRejected("", "expired")]
    tournament.press_deal(players[0])
    tournament.press_deal(players[0], False)
    assert tournament.deal_pressed == set()


def test_deals_are_refused_before_the_money_or_before_the_final_table():
    tournament, _ = running(4, 4, paid=2, deals=True)
    with pytest.raises(TournamentError, match="in the money"):
        tournament.press_deal(seated(tournament, 1)[0])
    plain, _ = running(3, 3)
    with pytest.raises(TournamentError, match="does not allow deals"):
        plain.press_deal(seated(plain, 1)[0])


def test_cancelling_mid_hand_voids_it_and_refunds_from_start_of_hand_stacks():
    tournament, dealer = running(20, 10, paid=3, levels=LEVELS)
    table = 1
    start = dict(tournament.stacks)
    deal(tournament, dealer, table)
    tournament.act(table, "raise", 200)
    preview = tournament.cancellation_preview()
    assert all("A1" in refund.rule and refund.cents == 1_100 for refund in preview)  # nobody out: rollback
    events = tournament.cancel()
    assert events[0] == HandVoided(table, 1)
    assert sum(e.refund_cents for e in events if isinstance(e, Refunded)) == 20 * 1_100
    assert tournament.status is Status.CANCELLED and tournament.stacks == {}
    assert tournament.chips_in_play() == tournament.chips_issued == 0  # cashed in: no chip is left in play
    assert tournament.ledger.pool_cents == tournament.ledger.fees_cents == 0 and tournament.ledger.balances()
    assert start  # the refunds above did not depend on the voided raise


def test_cancelling_late_uses_the_stacks_and_the_chosen_policy():
    tournament, dealer = running(10, 10, paid=3)
    players = seated(tournament, 1)
    while tournament.players_left > 3:  # bust players one by one: the winner covers everyone
        a, b = seated(tournament, 1)[:2]
        hand(tournament, dealer, 1, winner=a, all_in={a, b})
    left = seated(tournament, 1)
    set_stacks(tournament, dict(zip(left, (5_000, 4_000, 1_000))))
    before_the_hand = tournament.cancellation_preview(RefundPolicy("B"))
    deal(tournament, dealer, 1)
    play_out(tournament, 1, all_in=set(left))  # chips move in the hand, but a cancellation voids it
    assert tournament.cancellation_preview(RefundPolicy("B")) == before_the_hand
    pool = tournament.ledger.pool_cents
    by_a = {r.player: r.cents for r in tournament.cancellation_preview(RefundPolicy("A"))}
    by_b = {r.player: r.cents for r in tournament.cancellation_preview(RefundPolicy("B"))}
    assert sum(by_a.values()) == sum(by_b.values()) == pool
    assert by_a != by_b and len(by_a) == 3
    assert min(by_b.values()) >= tournament.prizes[2]
    tournament.cancel(RefundPolicy("B"))
    assert {p: tournament.ledger.received_by(p) for p in left} == by_b
    assert len(players) == 10 and tournament.ledger.balances() and tournament.ledger.pool_cents == 0
