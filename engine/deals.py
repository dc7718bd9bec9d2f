"""Deals at the final table (rules.md H.31-H.37): a proposal every player must accept.

Once every player left has pressed Deal, the proposal comes between hands:
the ICM split of what the pool still holds. A player may instead propose a
kind of deal (``propose``): ICM, a chip chop (the smallest prize left to
each, the rest in proportion to the chips),
an equal split, or custom amounts they type; any of them may keep an amount
in play for the winner (a partial deal). Any no, a disconnection or the
deadline ends it and play continues. When the last player accepts, the
amounts are paid: a whole deal ends the tournament; a partial one goes on
for the amount kept, the winner's. Every amount is in cents by largest
remainder, ties to the larger stack, then the seat order (G.30).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

import msgspec

from engine import standings
from engine.events import DealAccepted, DealAsked, DealPaid, DealPressed, DealProposed, DealRejected, Event, Result
from engine.icm import equities
from engine.money import dollars, largest_remainder
from engine.parts.negotiation import KINDS, Deal, Terms
from engine.parts.negotiation import Kind as Kind  # the kinds a deal may be, named here for its callers
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.state import State


class Figures(msgspec.Struct):
    """A deal's figures (``figures``): the pool, what is kept in play and the sum to split, in cents; the players
    in seat order with their stacks; what ICM and a chip chop would pay each; the prizes left, first to last."""

    pool_cents: int
    keep_cents: int
    split_cents: int
    players: list[str]
    stacks: dict[str, int]
    icm_cents: dict[str, int]
    chip_chop_cents: dict[str, int]
    prizes_left_cents: list[int]


def verify_press(t: State, player: str, on: bool = True) -> None:
    if not t.definition.deals:
        raise TournamentError("this tournament does not allow deals (H.36)")
    if t.status is not Status.RUNNING:
        raise TournamentError(f"deals are only while Running; the tournament is {t.status}")
    if player not in t.stacks:
        raise TournamentError(f"{player} is not playing")
    if len(t.tables) != 1 or t.players_left > len(t.prizes):
        raise TournamentError("deals are only at the final table once every player left is in the money (H.36)")
    if t.proposal is not None:
        raise TournamentError("a deal proposal is already on the table")
    if t.deal_terms is not None:
        raise TournamentError("a deal proposal is already made: it is on the table when the hand ends")
    if not isinstance(on, bool):
        raise TournamentError("pressing Deal is on (true) or off (false)")


def press(t: State, player: str, on: bool = True) -> list[Event]:
    """Press (or un-press) Deal; once everyone has, the proposal comes at the end of the hand (H.36)."""
    verify_press(t, player, on)
    t.negotiation.press(player, on)
    events: list[Event] = [DealPressed(player, on, len(t.deal_pressed), t.players_left)]
    t.pending.set_deal_due(len(t.deal_pressed) == t.players_left)
    if t.pending.deal_due and not any(state.hand for state in t.tables.values()) and not t.pending.holds():
        events.append(propose(t))
    return events


def verify_propose(t: State, player: str, kind: object, keep_cents: object = 0,
                   amounts: object = None) -> None:
    verify_press(t, player)
    if kind not in KINDS:
        raise TournamentError(f"a deal is one of {', '.join(KINDS)}, not {kind!r} (H.37)")
    pool = t.ledger.pool_cents
    if not isinstance(keep_cents, int) or isinstance(keep_cents, bool) or not 0 <= keep_cents < pool:
        raise TournamentError(f"keep_cents: a whole number of cents from 0 to below the {pool} cents left")
    if kind == "icm" and keep_cents > prizes_left(t)[0]:
        raise TournamentError("keep_cents: an ICM deal keeps at most the first prize in play")
    if kind != "custom":
        if amounts is not None:
            raise TournamentError(f"amounts: only a custom deal names them, not {kind}")
        return
    if not isinstance(amounts, dict) or set(amounts) != set(t.stacks):
        raise TournamentError("amounts: one for every player left, in cents")
    if any(not isinstance(cents, int) or isinstance(cents, bool) or cents < 0 for cents in amounts.values()):
        raise TournamentError("amounts: whole numbers of cents, 0 or more")
    if sum(amounts.values()) != pool - keep_cents:
        raise TournamentError(f"amounts: they add up to {dollars(sum(amounts.values()))}, not the "
                              f"{dollars(pool - keep_cents)} the pool holds beyond what is kept")


def propose_kind(t: State, player: str, kind: Kind, keep_cents: int = 0,
                 amounts: dict[str, int] | None = None) -> list[Event]:
    """``player`` proposes a deal of ``kind``, and accepts it by asking; between hands it is on the table at
    once, else when the hand in progress ends (H.36-H.37)."""
    verify_propose(t, player, kind, keep_cents, amounts)
    t.negotiation.ask(Terms(player, kind, keep_cents, dict(amounts) if amounts is not None else None))
    t.pending.set_deal_due(True)
    if not any(state.hand for state in t.tables.values()) and not t.pending.holds():
        return [propose(t)]
    return [DealAsked(player, kind, keep_cents)]


def verify_answer(t: State, player: str) -> None:
    if t.proposal is None:
        raise TournamentError("there is no deal proposal")
    if player not in t.proposal.amounts:
        raise TournamentError(f"{player} is not part of the deal")
    if player in t.proposal.accepted:
        raise TournamentError(f"{player} has already accepted")


def accept(t: State, player: str) -> list[Event]:
    """Accept the ICM proposal; when the last player does, the amounts are paid and the tournament ends."""
    verify_answer(t, player)
    deal = t.proposal
    assert deal is not None
    t.negotiation.accept(player)
    events: list[Event] = [DealAccepted(player)]
    if len(deal.accepted) == len(deal.amounts):
        events += close(t, deal)
    return events


def reject(t: State, player: str, reason: str = "rejected") -> list[Event]:
    """Any no (or a disconnection, ``reason='disconnected'``) ends the proposal; play continues (H.36)."""
    verify_answer(t, player)
    return no_deal(t, player, "disconnected" if reason == "disconnected" else "rejected")


def expire(t: State, now: float) -> list[Event]:
    """A proposal whose deadline has passed fails."""
    if t.proposal is not None and now >= t.proposal.until:
        return no_deal(t, "", "expired")
    return []


def prizes_left(t: State) -> list[int]:
    """The prizes of places 1..n for the n players left, the first taking whatever else the pool holds."""
    prizes = t.prizes[:t.players_left]
    prizes[0] += t.ledger.pool_cents - sum(prizes)
    return prizes


def players_in_seat_order(t: State) -> list[str]:
    (state,) = t.tables.values()
    return list(state.table.players)  # every player left, dealt in next hand or not


def shares(t: State, kind: Kind, keep_cents: int) -> dict[str, int]:
    """What a deal of ``kind`` pays each player left of what the pool holds beyond ``keep_cents``, in cents (a
    custom deal's are the players' own: as an equal split here)."""
    seat_order = players_in_seat_order(t)
    stacks = [t.stacks[p] for p in seat_order]
    shared = t.ledger.pool_cents - keep_cents
    parts: list[Fraction] | list[float]
    if kind == "icm":
        prizes = prizes_left(t)
        prizes[0] -= keep_cents
        parts = equities(stacks, prizes)
    elif kind == "chip_chop":  # each the smallest prize left first, then the rest by the chips
        floor = min(prizes_left(t)[-1], shared // len(stacks))
        rest = shared - floor * len(stacks)
        parts = [floor + Fraction(rest * stack, sum(stacks)) for stack in stacks]
    else:
        parts = [Fraction(shared, len(stacks))] * len(stacks)
    tie_rank = {p: order for order, p in enumerate(sorted(seat_order, key=lambda p: -t.stacks[p]))}
    return dict(zip(seat_order, largest_remainder(parts, shared, [tie_rank[p] for p in seat_order])))


def icm_shares(t: State, keep_cents: int) -> dict[str, int]:
    """What ICM pays each player left of the pool beyond ``keep_cents``, which comes off the first prize as far as
    it goes (an ICM deal keeps no more; for the figures beside another kind, the first prize is all it takes)."""
    return shares(t, "icm", min(keep_cents, prizes_left(t)[0]))


def verify_figures(t: State, keep_cents: int) -> None:
    if not t.definition.deals:
        raise TournamentError("this tournament allows no deal (H.31)")
    if t.status is not Status.RUNNING or len(t.tables) != 1:
        raise TournamentError("a deal is made at the final table, while the tournament runs (H.31)")
    pool = t.ledger.pool_cents
    if not 0 <= keep_cents < pool:
        raise TournamentError(f"keep: from $0 to below the {dollars(pool)} the pool holds")


def figures(t: State, keep_cents: int = 0) -> Figures:
    """What a player deciding on a deal looks at: each stack, what ICM and a chip chop would pay, and the sum to
    split beyond what is kept in play (H.31-H.37)."""
    verify_figures(t, keep_cents)
    seat_order = players_in_seat_order(t)
    return Figures(t.ledger.pool_cents, keep_cents, t.ledger.pool_cents - keep_cents, seat_order,
                   {p: t.stacks[p] for p in seat_order}, icm_shares(t, keep_cents),
                   shares(t, "chip_chop", keep_cents), prizes_left(t))


def propose(t: State) -> DealProposed:
    """The proposal asked for (ICM when everyone pressed Deal) of what the pool still holds, in cents (H.31-H.37,
    G.30). ICM keeping an amount in play takes it off the first prize; a chip chop gives everyone the smallest
    prize left, then shares the rest in proportion to the chips (PokerStars' chip-count deal: nobody gets less
    than busting next would pay); an equal split shares evenly."""
    terms = t.negotiation.take_terms() or Terms("", "icm", 0, None)
    t.pending.set_deal_due(False)
    seat_order = players_in_seat_order(t)
    stacks = [t.stacks[p] for p in seat_order]
    icm = icm_shares(t, terms.keep_cents)
    if terms.amounts is not None:
        cents = [terms.amounts[p] for p in seat_order]
    else:
        share = icm if terms.kind == "icm" else shares(t, terms.kind, terms.keep_cents)
        cents = [share[p] for p in seat_order]
    deal = Deal(dict(zip(seat_order, cents)), t.clock.now + t.definition.deal_seconds, seat_order, terms.kind,
                terms.keep_cents, t.clock.now, icm)
    t.negotiation.propose(deal)
    if terms.proposer in t.stacks:
        t.negotiation.accept(terms.proposer)
    return DealProposed(dict(deal.amounts), dict(zip(seat_order, stacks)), deal.until, terms.kind,
                        terms.keep_cents, terms.proposer, dict(icm))


def resume_level(t: State, deal: Deal) -> None:
    """The deal is settled: the level's clock, stood still since it was proposed, goes on (H.36: the game pauses
    for it, as the rooms' clocks do)."""
    if deal.opened_at is not None:
        t.clock.shift(min(t.clock.now, deal.until) - deal.opened_at)


def no_deal(t: State, player: str, reason: Any) -> list[Event]:
    if t.proposal is not None:
        resume_level(t, t.proposal)
    t.negotiation.close()
    t.negotiation.start_over()
    t.pending.set_deal_due(False)
    return [DealRejected(player, reason)]


def close(t: State, deal: Deal) -> list[Event]:
    """Everyone accepted: pay the amounts. A whole deal ends the tournament, places following the stacks, then
    the seat numbers; a partial one goes on, every place but the first now paying nothing more."""
    t.negotiation.close()
    resume_level(t, deal)
    if deal.keep_cents:
        for player in deal.seat_order:
            standings.pay_prize(t, player, deal.amounts[player])
            t.negotiation.paid(player, deal.amounts[player])
        left = t.players_left
        t.purse.price([t.ledger.pool_cents] + [0] * (left - 1) + t.prizes[left:], t.prize_pool_cents)
        t.negotiation.start_over()
        return [DealPaid(dict(deal.amounts), deal.keep_cents)]
    order = sorted(deal.seat_order, key=lambda p: (-t.stacks[p], deal.seat_order.index(p)))
    for place, player in enumerate(order, start=1):
        standings.pay_prize(t, player, deal.amounts[player])
        standings.record(t, Result(player, place, deal.amounts[player]))
    t.progress.end_by_deal()
    events = standings.end(t, deal=True)  # the players left collect their bounties first
    t.chips.settle()
    return events
