"""Bounties (rules.md J.40-J.43): a knocked-out player's bounty to whoever won their last chips."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import BountyWon

if TYPE_CHECKING:
    from engine.director import Tournament


def pay(t: Tournament, victim: str, winners: tuple[str, ...]) -> BountyWon:
    """The victim's bounty to the winners of the pot holding their last chips (J.40-J.42).

    Tied winners split it, odd cents to the earliest position; each
    share's cash part is floored to the cent and the rest goes on the
    winner's own head. With no knocker found (none can be, short of a
    bug) the bounty goes back to its owner. A knocker who has left by the
    time the knockout is settled (it waited on a re-buy answer) takes it
    all in cash. At the end, the players left collect their own (J.43).
    """
    bounty = t.bounties.pop(victim)
    assert t.definition.bounty is not None
    winners = winners or (victim,)
    share, odd = divmod(bounty, len(winners))
    shares = [share + (1 if k < odd else 0) for k in range(len(winners))]
    cash_percent = 100 - t.definition.bounty.progressive_percent if victim not in winners else 100
    cash = [amount * cash_percent // 100 for amount in shares]
    cash = [amount if winner not in t.bounties else paid for winner, amount, paid in zip(winners, shares, cash)]
    heads = [amount - paid for amount, paid in zip(shares, cash)]
    for winner, paid, head in zip(winners, cash, heads):
        if paid:
            t.ledger.record("bounty", winner, paid)
        if head:
            t.bounties[winner] += head
    return BountyWon(victim, winners, tuple(cash), tuple(heads))
