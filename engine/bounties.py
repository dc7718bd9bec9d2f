"""Bounties (rules.md J.40-J.43): a knocked-out player's bounty to whoever won their last chips.

The kind of bounty is a rule object chosen from the definition (``rule_for``):
no bounty, classic (the whole bounty in cash), progressive (part of it on the
winner's own head) or mystery. Each says what an entry's bounty becomes, what a
knockout pays, what a merge and a removal do with a head, what the players left
collect at the end and what a cancellation refunds, so no policy asks which
kind it is and a new kind is one class here.

Mystery bounties (as GGPoker runs them): the bounty part of each
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
from engine.structure import Bounty

if TYPE_CHECKING:
    from engine.state import State


def pay(t: State, victim: str, winners: tuple[str, ...], on_head_percent: int) -> BountyWon:
    """The victim's bounty to the winners of the pot holding their last chips (J.40-J.42).

    Tied winners split it, odd cents to the earliest position; each
    share's cash part is floored to the cent and the rest goes on the
    winner's own head. With no knocker found (none can be, short of a
    bug) the bounty goes back to its owner. A knocker who has left by the
    time the knockout is settled (it waited on a re-buy answer) takes it
    all in cash. At the end, the players left collect their own (J.43).
    """
    bounty = t.heads.take(victim)
    assert t.definition.bounty is not None
    winners = winners or (victim,)
    shares = equal_shares(bounty, len(winners))
    cash_percent = 100 - on_head_percent if victim not in winners else 100
    cash = [amount * cash_percent // 100 for amount in shares]
    cash = [amount if winner not in t.bounties else paid for winner, amount, paid in zip(winners, shares, cash)]
    heads = [amount - paid for amount, paid in zip(shares, cash)]
    for winner, paid, head in zip(winners, cash, heads):
        if paid:
            t.ledger.record("bounty", winner, paid)
        if head:
            t.heads.grow(winner, head)
    return BountyWon(victim, winners, tuple(cash), tuple(heads))


def draws(t: State) -> bool:
    """Whether a knockout now draws an envelope: a mystery bounty, with the field at ``from_players_left`` or
    fewer before the bust (called once the bust has left the field)."""
    terms = t.definition.bounty
    return terms is not None and terms.from_players_left is not None and t.players_left < terms.from_players_left


def sized(t: State) -> list[int]:
    """The envelopes in cents, in proportion to those listed, adding up to the pool the entries paid."""
    terms = t.definition.bounty
    assert terms is not None and terms.mystery is not None
    listed = [envelope.cents for envelope in terms.mystery for _ in range(envelope.count)]
    pool = t.ledger.bounties_cents
    if sum(listed) == pool:
        return listed
    return largest_remainder([Fraction(cents * pool, sum(listed)) for cents in listed], pool)


def draw(t: State, victim: str, winners: Sequence[str]) -> list[Event]:
    """The knockout of ``victim`` draws one envelope at random for the winners of the pot holding their last
    chips (J.41; tied winners share it, odd cents to the earliest position)."""
    if t.envelopes is None:
        t.heads.size(sized(t))
    envelopes = t.envelopes
    if not envelopes or not winners:
        return []
    envelope = t.heads.draw(t.rng.randrange(len(envelopes)))
    cash = equal_shares(envelope, len(winners))
    for winner, cents in zip(winners, cash):
        if cents:
            t.ledger.record("bounty", winner, cents)
    return [MysteryBountyDrawn(victim, tuple(winners), tuple(cash), envelope, len(envelopes))]


def undrawn(t: State, players: Sequence[str]) -> list[Event]:
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
    t.heads.empty()
    return [MysteryBountyDrawn("", tuple(order), tuple(cash), held, left)]


def unclaimed(t: State, live: Sequence[str]) -> dict[str, int]:
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


class Rule:
    """No bounty: nothing on anyone's head, nothing paid (also the base of the kinds that have one)."""

    def entered(self, t: State, player: str, cents: int) -> None:
        """An entry paid ``cents`` of bounty (already in the ledger)."""

    def knocked_out(self, t: State, victim: str, winners: tuple[str, ...]) -> list[Event]:
        """``winners`` won ``victim``'s last chips; ``victim`` has left the field."""
        return []

    def taken_out(self, t: State, player: str) -> list[Event]:
        """The director took ``player`` out: a head nobody won goes back to its owner (J.43)."""
        return []

    def merged(self, t: State, absorbed: str, into: str) -> None:
        """``absorbed``'s stack merged into ``into`` (M.51)."""

    def at_end(self, t: State) -> list[Event]:
        """The tournament is over: what the players left collect."""
        return []

    def refundable(self, t: State, live: Sequence[str]) -> dict[str, int]:
        """The bounty money a cancellation gives back, by entry."""
        return dict(t.bounties)


class Classic(Rule):
    """A bounty on each head, paid whole in cash to whoever knocks it off."""

    on_head_percent = 0

    def entered(self, t: State, player: str, cents: int) -> None:
        t.heads.put(player, cents)

    def knocked_out(self, t: State, victim: str, winners: tuple[str, ...]) -> list[Event]:
        return [pay(t, victim, winners, self.on_head_percent)] if victim in t.bounties else []

    def taken_out(self, t: State, player: str) -> list[Event]:
        return [pay(t, player, (player,), self.on_head_percent)] if player in t.bounties else []

    def merged(self, t: State, absorbed: str, into: str) -> None:
        if absorbed in t.bounties:  # the heads are summed with the stacks (M.51)
            t.heads.merge(absorbed, into)

    def at_end(self, t: State) -> list[Event]:
        return [pay(t, player, (player,), self.on_head_percent) for player in sorted(t.bounties)]


class Progressive(Classic):
    """Part of each bounty won goes on the winner's own head (J.42)."""

    def __init__(self, on_head_percent: int) -> None:
        self.on_head_percent = on_head_percent


class Mystery(Rule):
    """Envelopes drawn at random by the knockouts from ``from_players_left`` players left."""

    def knocked_out(self, t: State, victim: str, winners: tuple[str, ...]) -> list[Event]:
        return draw(t, victim, winners) if draws(t) else []

    def at_end(self, t: State) -> list[Event]:
        return undrawn(t, list(t.stacks))

    def refundable(self, t: State, live: Sequence[str]) -> dict[str, int]:
        return unclaimed(t, live)


def rule_for(terms: Bounty | None) -> Rule:
    if terms is None:
        return Rule()
    if terms.mystery is not None:
        return Mystery()
    return Progressive(terms.progressive_percent) if terms.progressive_percent else Classic()
