"""Mystery bounties (engine/bounties.py): envelopes sized to the pool the entries paid, drawn at random
without replacement from ``from_players_left`` players left, journaled, the rest to the players left at the end."""

from __future__ import annotations

import pytest

from engine.director import Status
from engine.events import MysteryBountyDrawn
from engine.structure import Bounty, DefinitionError, Envelope
from bots.simulator import simulate
from tests.tournaments import definition, hand, running, seated

MYSTERY = Bounty(cents=500, mystery=[Envelope(1_000), Envelope(500, count=2), Envelope(250, count=4)],
                 from_players_left=6)  # 3,000 cents: six players' bounties, seven envelopes


def knock_out_one(t, dealer) -> list:
    """The biggest stack at the lowest table takes everything from the player on its left."""
    table = min(t.tables)
    players = seated(t, table)
    winner = max(players, key=t.stacks.__getitem__)
    victim = next(p for p in players if p != winner)
    t.chips.set(winner, t.stacks[winner] + t.stacks[victim] - 1)  # the victim is all-in for one chip; the chips
    t.chips.set(victim, 1)  # stay in play
    return hand(t, dealer, table, winner=winner, all_in={winner, victim})


def test_knockouts_draw_the_envelopes_without_replacement_from_the_point_set_and_the_rest_goes_to_the_winner():
    t, dealer = running(8, 9, bounty=MYSTERY, paid=1)
    assert t.bounties == {} and t.ledger.bounties_cents == 8 * 500  # no heads: every bounty is in the envelopes
    drawn: list[MysteryBountyDrawn] = []
    while t.status is Status.RUNNING:
        events = knock_out_one(t, dealer)
        drawn += [e for e in events if isinstance(e, MysteryBountyDrawn)]
        assert t.ledger.balances()
    # Eight players: the busts at 8 and 7 left draw nothing; from six left each of the five knockouts draws one.
    knockouts, end = drawn[:-1], drawn[-1]
    assert len(knockouts) == 5 and all(e.victim for e in knockouts) and end.victim == ""
    # 4,000 cents paid in: the listed 3,000 scaled by 4/3 (1,333.33, 666.67 x 2, 333.33 x 4), by largest
    # remainder: the two 666.67 round up, then the first of the equal remainders.
    sized = [1_334, 667, 667, 333, 333, 333, 333]
    assert sum(sized) == 4_000
    opened = [e.envelope for e in knockouts]
    assert all(opened.count(v) <= sized.count(v) for v in opened)  # without replacement
    assert [e.envelopes_left for e in knockouts] == [6, 5, 4, 3, 2]
    assert end.winners == (t.standings()[0].player,) and end.envelope == 4_000 - sum(opened) == sum(end.cash_cents)
    assert t.ledger.bounties_cents == 0 and t.ledger.summary()["bounties"] == 4_000


def test_the_same_seed_draws_the_same_envelopes_and_another_may_not():
    def draws(seed):
        d = definition(9, bounty=MYSTERY, paid=2, max_players=20)
        opened = []
        simulate(d, 12, seed, on_event=lambda t, e, at: opened.append(e.envelope)
                 if isinstance(e, MysteryBountyDrawn) else None)
        return opened
    assert draws(1) == draws(1)
    assert len({tuple(draws(seed)) for seed in range(6)}) > 1


def test_a_mystery_bounty_needs_both_its_envelopes_and_its_starting_point():
    with pytest.raises(DefinitionError, match="both mystery and from_players_left"):
        definition(9, bounty=Bounty(cents=500, mystery=[Envelope(100)]))


def test_a_cancelled_mystery_tournament_gives_back_the_envelope_money():
    t, _ = running(8, 9, bounty=MYSTERY)
    t.cancel()
    assert t.ledger.bounties_cents == 0 and t.ledger.balances()
    assert sum(r.bounty_cents for r in t.refunds) == 8 * 500
