"""Places, prizes and the end (rules.md G.28-G.30, J.43, K.45): what every policy that takes a player out shares.

A primitive: a bust ranked (engine.eliminations), an entry merged into
another (engine.floor), a removal (engine.console) and a deal
(engine.deals) record places, pay prizes and end the tournament through
it, and it calls no policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from engine import bounties, prizes, windows
from engine.events import Event, Result, StatusChanged, TournamentFinished
from engine.money import equal_shares
from engine.status import Status

if TYPE_CHECKING:
    from engine.state import State


def prize(t: State, place: int) -> int:
    return t.prizes[place - 1] if place <= len(t.prizes) else 0


def pay_prize(t: State, player: str, cents: int, *, ticket: bool = False) -> None:
    if cents:
        t.ledger.record("ticket" if ticket else "prize", player, cents)


def record(t: State, result: Result) -> Result:
    """A place, its prize counting what a partial deal paid the player before (engine.deals)."""
    if t.dealt:
        result = msgspec.structs.replace(result, prize_cents=result.prize_cents + t.dealt.get(result.player, 0))
    t.places.record(result)
    return result


def after_a_bust(t: State) -> list[Event]:
    """A satellite with a seat for everyone left is over (K.45); one player left wins, or qualifies from a flight."""
    if t.players_left <= t.seats_won:
        return seat_everyone_left(t)
    if t.players_left == 1:
        if not prizes.kind(t.definition).wins_alone:
            t.progress.stop_flight()  # the last player standing qualifies from a flight, which pays no prize
            return []
        return finish(t)
    return []


def seat_everyone_left(t: State) -> list[Event]:
    """A satellite ends at the end of the hand in which players left <= seats: each left wins a seat (K.45).

    Their stacks no longer matter; places go by stack for the record, and
    hands still in progress at other tables are void (Decision). Cash the
    pool still holds with nobody left to take it (more seats than players
    from the start) is shared among them, the odd cents to the better
    placed (Decision).
    """
    events: list[Event] = [t.void(table) for table, state in sorted(t.tables.items()) if state.hand is not None]
    events += windows.close(t, "bubble")  # before the places of those left are given
    left = sorted(t.stacks, key=lambda p: (-t.stacks[p], t.where[p]))
    cash = t.ledger.pool_cents - sum(prize(t, place) for place in range(1, len(left) + 1))
    for place, (player, extra) in enumerate(zip(left, equal_shares(cash, len(left))), start=1):
        t.places.record(Result(player, place, prize(t, place) + extra, True))
        pay_prize(t, player, prize(t, place), ticket=True)
        pay_prize(t, player, extra)
    return events + end(t)


def finish(t: State) -> list[Event]:
    """The last player wins first place: what the pool still holds (the prize table's first prize)."""
    events = windows.close(t, "bubble")  # a merge can end it while entries could still come (engine.floor)
    (winner,) = t.stacks
    prize = t.ledger.pool_cents
    pay_prize(t, winner, prize)
    record(t, Result(winner, 1, prize))
    return events + end(t)


def end(t: State, *, deal: bool = False) -> list[Event]:
    """The tournament is over: the players left collect their own bounties (J.43), or what no knockout drew of a
    mystery bounty's envelopes; the house keeps the fees."""
    events = bounties.rule_for(t.definition.bounty).at_end(t)
    t.progress.move_to(Status.FINISHED)
    t.rounds.end()
    if t.ledger.fees_cents:
        t.ledger.record("fee_kept", "", t.ledger.fees_cents)
    return [*events, TournamentFinished(tuple(t.standings()), deal), StatusChanged(Status.FINISHED.value)]
