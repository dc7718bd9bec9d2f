"""The kinds of deals beside ICM (engine/deals.py; rules.md H.36-H.37): a chip chop, an equal split, custom
amounts and a partial deal that keeps an amount in play for the winner; each to the cent, by the same
all-must-accept flow, with the ledger balanced."""

from __future__ import annotations

import pytest

from engine.director import Status
from engine.events import DealAsked, DealPaid, DealProposed, DealRejected, LevelChanged, TournamentFinished
from engine.icm import equities
from engine.status import TournamentError
from engine.structure import Level
from tests.tournaments import deal, hand, play_out, running, seated, set_stacks

STACKS = (5_000, 3_000, 1_000)


def final_three(**options):
    """Three players left of three paid (pool $30.00 plus ``added_cents``: 50% / 25% / 25%), stacks 5k/3k/1k."""
    t, dealer = running(3, 3, paid=3, deals=True, starting_stack=3_000, **{"deal_seconds": 30, **options})
    players = seated(t, 1)
    set_stacks(t, dict(zip(players, STACKS)))
    return t, dealer, players


def everyone_accepts(t, players, proposer):
    events = []
    for player in players:
        if player != proposer:
            events += t.accept_deal(player)
    return events


def test_a_chip_chop_gives_each_the_smallest_prize_left_and_shares_the_rest_by_the_chips_to_the_cent():
    t, _, players = final_three()
    proposal = t.propose_deal(players[1], "chip_chop")[0]
    assert isinstance(proposal, DealProposed) and proposal.kind == "chip_chop" and proposal.proposer == players[1]
    # Each the smallest prize left (750 cents), then the other 750 by the chips (5/9, 3/9, 1/9): 1,166.67 / 1,000 /
    # 833.33, the odd cent to the largest remainder.
    assert [proposal.amounts[p] for p in players] == [1_167, 1_000, 833]
    assert t.proposal.accepted == {players[1]}  # proposing is accepting
    finished = [e for e in everyone_accepts(t, players, players[1]) if isinstance(e, TournamentFinished)]
    assert finished and finished[0].deal and t.status is Status.FINISHED
    assert {r.player: r.prize_cents for r in t.standings()} == proposal.amounts
    assert t.ledger.pool_cents == 0 and t.ledger.balances()


def test_an_equal_split_gives_the_odd_cents_to_the_larger_stacks():
    t, _, players = final_three(added_cents=2)  # 3,002 cents: 1,000.67 each
    proposal = t.propose_deal(players[2], "equal")[0]
    assert [proposal.amounts[p] for p in players] == [1_001, 1_001, 1_000]


def test_a_custom_proposal_is_the_amounts_typed_and_must_add_up():
    t, _, players = final_three()
    typed = dict(zip(players, (1_400, 900, 700)))
    for bad, message in (({**typed, players[0]: 1_401}, r"add up to \$30.01, not the \$30.00"),
                         ({players[0]: 3_000}, "one for every player left"),
                         ({**typed, players[0]: -1, players[1]: 2_301}, "0 or more"),
                         ({**typed, players[0]: 1_400.0}, "whole numbers of cents")):
        with pytest.raises(TournamentError, match=message):
            t.propose_deal(players[0], "custom", amounts=bad)
    with pytest.raises(TournamentError, match="only a custom deal names them"):
        t.propose_deal(players[0], "equal", amounts=typed)
    with pytest.raises(TournamentError, match="a deal is one of"):
        t.propose_deal(players[0], "coin_flip")
    assert t.proposal is None
    proposal = t.propose_deal(players[0], "custom", amounts=typed)[0]
    assert proposal.amounts == typed
    assert t.reject_deal(players[2]) == [DealRejected(players[2], "rejected")]  # any no: play goes on
    assert t.proposal is None and t.is_ready(1)


def test_a_partial_deal_pays_everyone_now_and_play_goes_on_for_what_is_kept():
    t, dealer, players = final_three()
    with pytest.raises(TournamentError, match="keeps at most the first prize"):
        t.propose_deal(players[0], "icm", keep_cents=1_501)
    with pytest.raises(TournamentError, match="keep_cents"):
        t.propose_deal(players[0], "chip_chop", keep_cents=3_000)
    proposal = t.propose_deal(players[0], "icm", keep_cents=500)[0]
    exact = dict(zip(players, equities(list(STACKS), [1_500 - 500, 750, 750])))
    assert sum(proposal.amounts.values()) == 2_500 and proposal.keep_cents == 500
    assert all(abs(proposal.amounts[p] - exact[p]) < 1 for p in players)
    assert DealPaid(proposal.amounts, 500) in everyone_accepts(t, players, players[0])
    assert t.status is Status.RUNNING and t.ledger.pool_cents == 500 and t.is_ready(1)
    # Play goes on: the two who bust get nothing more, the winner takes the 500 kept.
    winner = players[0]
    while t.status is Status.RUNNING:
        hand(t, dealer, 1, winner=winner, all_in=set(t.stacks))
    results = {r.player: r.prize_cents for r in t.standings()}
    assert results[winner] == proposal.amounts[winner] + 500
    assert all(results[p] == proposal.amounts[p] for p in players[1:])
    assert t.standings()[0].player == winner
    assert t.ledger.pool_cents == 0 and t.ledger.balances() and t.ledger.prizes_cents == 3_000


def test_a_proposal_asked_for_during_a_hand_comes_when_it_ends_and_a_bust_calls_it_off():
    t, dealer, players = final_three()
    deal(t, dealer, 1)
    # Told at once, so that the table shows it waiting and nobody proposes over it unawares
    assert t.propose_deal(players[0], "equal") == [DealAsked(players[0], "equal")] and t.proposal is None
    with pytest.raises(TournamentError, match="already made: it is on the table when the hand ends"):
        t.propose_deal(players[1], "chip_chop")
    play_out(t, 1)
    proposed = t.end_hand(1)[-1]
    assert isinstance(proposed, DealProposed) and proposed.kind == "equal"
    # The figures are the hand's end's: the stacks it left, and what ICM would pay of them beside the proposal
    assert proposed.stacks == {p: t.stacks[p] for p in players} and proposed.icm_cents == t.deal_figures().icm_cents
    with pytest.raises(TournamentError, match="already on the table"):
        t.propose_deal(players[1], "chip_chop")
    t.reject_deal(players[1])
    deal(t, dealer, 1, winner=players[0])
    t.propose_deal(players[0], "chip_chop")
    play_out(t, 1, all_in={players[0], players[2]})  # the short stack busts: the field changed, the request lapses
    events = t.end_hand(1)
    assert t.players_left == 2 and players[2] not in t.stacks
    assert not any(isinstance(e, DealProposed) for e in events) and t.deal_terms is None


@pytest.mark.parametrize("ending", ["rejected", "expired", "partial"])
def test_the_levels_clock_stands_still_while_the_players_decide_on_a_deal(ending):
    """The rooms pause for a deal (H.36): a level of 60 minutes whose deal was open from minute 50 for 20 s
    ends 20 s later, and not during the deal, however long it runs past the level's end."""
    t, _, players = final_three(levels=[Level(10, 20, minutes=60), Level(20, 40, minutes=60)])  # deals open 30 s
    t.advance(50 * 60.0)
    t.propose_deal(players[0], "icm", keep_cents=500 if ending == "partial" else 0)
    assert t.level_ends_at() == 60 * 60.0
    t.advance(50 * 60 + 20.0)
    assert t.level_ends_at() == 60 * 60 + 20.0  # as if it were settled now: the clock on the wall shows it frozen
    if ending == "rejected":
        t.reject_deal(players[1])
    elif ending == "partial":
        everyone_accepts(t, players, players[0])
    else:
        assert [e for e in t.advance(50 * 60 + 45.0) if isinstance(e, DealRejected)]  # lapsed at 30 s, not 45
    stood = 30.0 if ending == "expired" else 20.0
    assert t.proposal is None and t.level_ends_at() == 60 * 60 + stood
    assert not [e for e in t.advance(60 * 60 + stood - 1) if isinstance(e, LevelChanged)]
    assert [e for e in t.advance(60 * 60 + stood) if isinstance(e, LevelChanged)]


def test_a_level_that_would_end_during_a_deal_waits_for_it():
    t, _, players = final_three(levels=[Level(10, 20, minutes=1), Level(20, 40, minutes=1)], deal_seconds=600)
    t.propose_deal(players[0], "equal")
    assert not [e for e in t.advance(300.0) if isinstance(e, LevelChanged)] and t.level == 0
    t.reject_deal(players[1])
    assert t.level_ends_at() == 60 + 300.0


def test_a_cancellation_after_a_partial_deal_shares_what_was_kept_and_rolls_nothing_back():
    t, _, players = final_three()
    t.propose_deal(players[0], "equal", keep_cents=600)
    everyone_accepts(t, players, players[0])
    assert t.ledger.pool_cents == 600
    t.cancel()
    assert t.status is Status.CANCELLED and t.ledger.pool_cents == 0 and t.ledger.balances()
    assert sum(refund.pool_cents for refund in t.refunds) == 600  # the deal's 2,400 stay paid
    assert t.ledger.prizes_cents == 2_400


def test_a_deals_figures_are_what_each_kind_would_propose_with_the_stacks_and_the_sum_to_split():
    t, _, players = final_three()
    figures = t.deal_figures(500)
    assert (figures.pool_cents, figures.keep_cents, figures.split_cents) == (3_000, 500, 2_500)
    assert figures.players == players and [figures.stacks[p] for p in players] == list(STACKS)
    assert sum(figures.icm_cents.values()) == sum(figures.chip_chop_cents.values()) == 2_500
    assert figures.prizes_left_cents == [1_500, 750, 750]
    icm = t.propose_deal(players[0], "icm", keep_cents=500)[0]
    assert icm.amounts == figures.icm_cents
    t.reject_deal(players[1])
    chop = t.propose_deal(players[0], "chip_chop", keep_cents=500)[0]
    assert chop.amounts == figures.chip_chop_cents and not t.ended_by_deal
    with pytest.raises(TournamentError, match=r"keep: from \$0 to below the \$30.00"):
        t.deal_figures(3_000)
    everyone_accepts(t, players, players[0])  # a partial deal: play goes on for what is kept
    assert not t.ended_by_deal and t.status is Status.RUNNING
    t.propose_deal(players[0], "equal")
    everyone_accepts(t, players, players[0])
    assert t.ended_by_deal and t.status is Status.FINISHED
    with pytest.raises(TournamentError, match="at the final table, while the tournament runs"):
        t.deal_figures()


def test_a_rebuy_bought_after_a_partial_deal_goes_to_the_first_place_and_the_dealt_table_stands():
    """Three players in the money deal in the re-buy period and keep $3 in play; two re-buy afterwards (free here).
    Every place but the first pays nothing more (H.36): the prize table is not drawn again from the whole pool,
    which would pay more than the pool holds."""
    from bots.simulator import simulate
    from engine.refunds import RefundPolicy
    from engine.structure import Level, Rebuys
    from tests.tournaments import definition

    levels = [Level(sb, 2 * sb, hands=4) for sb in (10, 20, 40, 80, 160, 320, 640)]
    rules = definition(3, paid=3, levels=levels, deals=True, refund_policy=RefundPolicy(name="A"),
                       rebuys=Rebuys(levels=3, price_cents=0, chips=1000, max_count=1, allowed_at="zero"))
    seen: list[object] = []
    report = simulate(rules, 3, 586, on_event=lambda tournament, event, at=0.0: seen.append(event))
    paid = next(event for event in seen if isinstance(event, DealPaid))
    assert paid.keep_cents == 300 and any(type(event).__name__ == "RebuyTaken" for event in seen[seen.index(paid):])
    assert report.status == "finished" and report.money["held"] == 0
    finished = next(event for event in seen if isinstance(event, TournamentFinished))
    assert sum(result.prize_cents for result in finished.results) == 3 * 1000  # the whole pool, no more
