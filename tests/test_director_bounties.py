"""Bounties (rules.md J.40-J.43): who collects, how ties split, progressive heads, merges, the end and a crash."""

from __future__ import annotations

import pytest

from engine.cards import cards
from engine.director import Status
from engine.events import BountyWon, EntriesMerged
from engine.refunds import RefundPolicy
from engine.structure import Bounty
from tests.tournaments import hand, play_out, running, seated, set_stacks

PKO = Bounty(cents=500, progressive_percent=50)


def deal_holes(tournament, dealer, table: int, holes: dict[str, str], board: str) -> list[str]:
    """Deal ``holes`` (player -> two cards) and ``board``; returns the players in dealing order."""
    seats = tournament.tables[table].table
    order = seats.occupants(seats.next_positions().dealt)
    pairs = [cards(holes[p]) for p in order]
    used = {c for pair in pairs for c in pair} | set(cards(board))
    spare = [c for c in range(52) if c not in used]
    burn = spare.pop
    flop, turn, river = cards(board)[:3], cards(board)[3], cards(board)[4]
    dealer.next = [p[0] for p in pairs] + [p[1] for p in pairs] + [burn(), *flop, burn(), turn, burn(), river] + spare
    tournament.start_hand(table)
    return order


def balanced(tournament) -> None:
    assert tournament.ledger.balances()
    assert tournament.ledger.bounties_cents == sum(tournament.bounties.values())


def test_the_bounty_goes_to_the_player_covering_the_victim_not_to_the_main_pot_winner():
    """J.41: 10k/5k/1k all-in, the 1k player wins the main pot: the 5k player's bounty goes to the 10k player."""
    tournament, dealer = running(4, 4, starting_stack=5000, bounty=PKO)
    big, middle, small, other = seated(tournament, 1)
    set_stacks(tournament, {big: 10_000, middle: 5_000, small: 1_000, other: 4_000})
    assert tournament.ledger.bounties_cents == 4 * 500 and tournament.ledger.pool_cents == 4 * 500
    deal_holes(tournament, dealer, 1, {small: "KcKd", big: "QcQd", middle: "3c4d", other: "5h6h"}, "KsKhQsJs2h")
    play_out(tournament, 1, all_in={big, middle, small})
    events = tournament.end_hand(1)
    (won,) = [e for e in events if isinstance(e, BountyWon)]
    assert won == BountyWon(middle, (big,), (250,), (250,))
    assert tournament.bounties[big] == 750 and tournament.bounties[small] == 500
    assert tournament.ledger.received_by(big) == 250
    balanced(tournament)


def test_tied_winners_split_the_bounty_with_the_odd_cent_to_the_earliest_position():
    tournament, dealer = running(3, 3, starting_stack=4000, bounty=PKO)
    order = seated(tournament, 1)
    victim = order[0]
    winners = order[1:]
    set_stacks(tournament, {victim: 2_000, winners[0]: 5_000, winners[1]: 5_000})
    tournament.heads.put(victim, 501)  # an odd bounty, the same total on heads
    tournament.heads.put(winners[0], 499)
    dealt = deal_holes(tournament, dealer, 1, {winners[0]: "AcTc", winners[1]: "AdTd", victim: "4c5d"}, "KhQdJc2s3h")
    play_out(tournament, 1, all_in=set(order))
    events = tournament.end_hand(1)
    (won,) = [e for e in events if isinstance(e, BountyWon)]
    first, second = sorted(winners, key=dealt.index)
    assert won.victim == victim and won.winners == (first, second)
    assert won.cash_cents == (125, 125) and won.head_cents == (126, 125)  # 251 and 250, cash floored
    balanced(tournament)


@pytest.mark.parametrize("progressive", [0, 50, 100])
def test_the_progressive_share_decides_cash_against_head(progressive):
    tournament, dealer = running(2, 2, bounty=Bounty(cents=400, progressive_percent=progressive))
    winner, loser = seated(tournament, 1)
    events = hand(tournament, dealer, 1, winner, all_in={winner, loser})
    (won, own) = [e for e in events if isinstance(e, BountyWon)]
    cash = 400 * (100 - progressive) // 100
    assert won == BountyWon(loser, (winner,), (cash,), (400 - cash,))
    assert own == BountyWon(winner, (winner,), (400 + 400 - cash,), (0,))  # the winner collects their own head
    assert tournament.status is Status.FINISHED
    assert tournament.ledger.received_by(winner) == 2 * 400 + tournament.results[winner].prize_cents
    assert tournament.ledger.summary()["held"] == 0 and tournament.ledger.balances()


def test_merged_entries_sum_their_bounties():
    tournament, dealer = running(6, 2, seed=1, paid=1, people={"p1": "ann", "p2": "ann"}, bounty=PKO)
    first, second = (tournament.where[p][0] for p in ("p1", "p2"))
    partner = {t: next(p for p in seated(tournament, t) if p not in ("p1", "p2")) for t in (first, second)}
    hand(tournament, dealer, first, "p1", all_in={"p1", partner[first]})
    heads = dict(tournament.bounties)
    events = hand(tournament, dealer, second, "p2", all_in={"p2", partner[second]})
    (merged,) = [e for e in events if isinstance(e, EntriesMerged)]
    assert merged.absorbed not in tournament.bounties
    assert tournament.bounties[merged.into] == heads[merged.absorbed] + heads[merged.into] + 250
    balanced(tournament)


def test_a_cancellation_gives_every_player_left_their_bounty():
    tournament, dealer = running(10, 10, bounty=PKO)
    while tournament.players_left > 6:
        a, b = seated(tournament, 1)[:2]
        hand(tournament, dealer, 1, winner=a, all_in={a, b})
    heads = dict(tournament.bounties)
    refunds = {r.player: r for r in tournament.cancellation_preview(RefundPolicy("A"))}
    assert {p: r.bounty_cents for p, r in refunds.items() if r.bounty_cents} == heads
    tournament.cancel()
    assert tournament.ledger.summary()["held"] == 0 and tournament.ledger.balances()


def test_bounties_stay_outside_a_deal_and_each_player_collects_their_own():
    tournament, dealer = running(3, 3, paid=3, deals=True, bounty=PKO)
    players = seated(tournament, 1)
    for player in players:
        tournament.press_deal(player)
    proposal = tournament.proposal
    assert sum(proposal.amounts.values()) == tournament.ledger.pool_cents == 3 * 500  # the pool, not the heads
    events = []
    for player in players:
        events += tournament.accept_deal(player)
    own = [e for e in events if isinstance(e, BountyWon)]
    assert sorted(e.victim for e in own) == sorted(players) and all(e.cash_cents == (500,) for e in own)
    assert all(tournament.ledger.received_by(p) == proposal.amounts[p] + 500 for p in players)
    assert tournament.ledger.summary()["held"] == 0


def test_knockouts_are_counted_in_every_tournament_bounty_or_not():
    """A player's knockouts (their results summary in the client) are counted with or without bounties: the
    winner of the pot holding the victim's last chips knocks them out (J.41's rule)."""
    for bounty in (None, PKO):
        t, dealer = running(3, 3, bounty=bounty)
        hand(t, dealer, 1, winner="p1", all_in={"p1", "p2"})
        out = [p for p in ("p2", "p3") if p not in t.stacks]
        assert out and t.knockouts == {"p1": len(out)}
