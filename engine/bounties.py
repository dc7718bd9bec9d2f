"""Bounties (rules.md J.40-J.43): a knocked-out player's bounty to whoever won their last chips.

Mystery bounties (issue 21, as GGPoker runs them): the bounty part of each
buy-in goes to a pool of envelopes instead of a head. The definition lists
the envelopes (``{cents, count}``); when the first knockout that may draw
comes, they are sized to the pool the entries paid (in proportion, by
largest remainder: as listed when the two agree), and from
``from_players_left`` players left each knockout draws one at random from
those left, without replacement, with the tournament's RNG (so a replay
draws the same). Knockouts before that draw nothing. Whatever no knockout
drew (more envelopes than knockouts, or entries after the envelopes were
sized) goes to the players left at the end, in equal shares.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import TYPE_CHECKING

from engine.events import BountyWon, Event, MysteryBountyDrawn
from engine.money import equal_shares, largest_remainder
from engine.status import Status

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
    shares = equal_shares(bounty, len(winners))
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


def is_mystery(t: Tournament) -> bool:
    return t.definition.bounty is not None and t.definition.bounty.mystery is not None


def draws(t: Tournament) -> bool:
    """Whether a knockout now draws an envelope: a mystery bounty, with the field at ``from_players_left`` or
    fewer before the bust (called once the bust has left the field)."""
    terms = t.definition.bounty
    return terms is not None and terms.from_players_left is not None and t.players_left < terms.from_players_left


def sized(t: Tournament) -> list[int]:
    """The envelopes in cents, in proportion to those listed, adding up to the pool the entries paid."""
    terms = t.definition.bounty
    assert terms is not None and terms.mystery is not None
    listed = [envelope.cents for envelope in terms.mystery for _ in range(envelope.count)]
    pool = t.ledger.bounties_cents
    if sum(listed) == pool:
        return listed
    return largest_remainder([Fraction(cents * pool, sum(listed)) for cents in listed], pool)


def draw(t: Tournament, victim: str, winners: Sequence[str]) -> list[Event]:
    """The knockout of ``victim`` draws one envelope at random for the winners of the pot holding their last
    chips (J.41; tied winners share it, odd cents to the earliest position)."""
    if t.envelopes is None:
        t.envelopes = sized(t)
    if not t.envelopes or not winners:
        return []
    envelope = t.envelopes.pop(t.rng.randrange(len(t.envelopes)))
    cash = equal_shares(envelope, len(winners))
    for winner, cents in zip(winners, cash):
        if cents:
            t.ledger.record("bounty", winner, cents)
    return [MysteryBountyDrawn(victim, tuple(winners), tuple(cash), envelope, len(t.envelopes))]


def undrawn(t: Tournament, players: Sequence[str]) -> list[Event]:
    """At the end: what no knockout drew, to ``players`` (those left) in equal shares, the larger stack first."""
    held = t.ledger.bounties_cents
    if not held or not players:
        return []
    order = sorted(players, key=lambda p: (-t.stacks.get(p, 0), p))
    cash = equal_shares(held, len(order))
    for player, cents in zip(order, cash):
        if cents:
            t.ledger.record("bounty", player, cents)
    left = len(t.envelopes or ())
    t.envelopes = []
    return [MysteryBountyDrawn("", tuple(order), tuple(cash), held, left)]


def unclaimed(t: Tournament, live: Sequence[str]) -> dict[str, int]:
    """A cancelled mystery bounty tournament's envelope money, as heads for the refunds: before the start each
    entry's own, once running shared equally by the players left (Decision)."""
    if t.status is Status.RUNNING:
        return dict(zip(live, equal_shares(t.ledger.bounties_cents, len(live)))) if live else {}
    paid: dict[str, int] = {}
    for movement in t.ledger.movements:
        if movement.kind == "bounty_in":
            paid[movement.player] = paid.get(movement.player, 0) + movement.cents
        elif movement.kind == "refund" and movement.account == "bounties":  # unregistered
            paid.pop(movement.player, None)
    return paid
