"""The director's console: floor decisions a tournament director takes by hand (docs/director.md).

Time added to or taken from the level or break under way, a break called
now, hand-for-hand forced on or let go, a level not yet started edited, and
an entry removed from the tournament with its buy-in and fee refunded or not
(the director's moves of players follow the floor's rules: engine/floor.py). Each is a command with
its ``verify_`` query, journaled like any other, so a restore replays it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from engine import bounties, clock, prizes, standings
from engine.events import ClockAdjusted, Event, PlayerRemoved
from engine.status import Status, TournamentError
from engine.structure import Definition

if TYPE_CHECKING:
    from engine.state import State

MAX_BREAK_MINUTES = 24 * 60


def _running(t: State, what: str) -> None:
    if t.status is not Status.RUNNING:
        raise TournamentError(f"{what} only while Running; the tournament is {t.status}")


def verify_adjust_clock(t: State, seconds: float) -> float:
    """When the level (or the break) under way ends now; refused for the last level, which has no end."""
    _running(t, "the clock is adjusted")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool) or seconds == 0 or abs(seconds) > 86_400:
        raise TournamentError("seconds: a non-zero number of seconds, at most a day either way")
    if t.break_until is not None:
        return t.break_until
    ends_at = clock.level_ends_at(t)
    if ends_at is None:
        raise TournamentError("this level has no time to adjust (the last level, or a level of hands)")
    return ends_at


def adjust_clock(t: State, seconds: float) -> list[Event]:
    """Move the end of the level or break under way; taking more than is left ends it at the next advance."""
    ends_at = verify_adjust_clock(t, seconds)
    if t.break_until is not None:
        t.clock.extend_break(seconds)
        if t.break_keeps_level:  # the level's clock stands still until the break ends
            t.clock.shift(seconds)
    else:
        t.clock.shift(seconds)
    return [ClockAdjusted(seconds, ends_at + seconds)]


def verify_call_break(t: State, minutes: float) -> None:
    _running(t, "a break is called")
    if t.break_until is not None:
        raise TournamentError("the tournament is already on a break")
    if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not 0 < minutes <= MAX_BREAK_MINUTES:
        raise TournamentError(f"minutes: more than 0 and at most {MAX_BREAK_MINUTES}")


def call_break(t: State, now: float, minutes: float) -> list[Event]:
    """A break from ``now``: hands in progress finish, no new hand starts, and the level's time stands still
    (it goes on where it stopped when the break ends, at the same level)."""
    verify_call_break(t, minutes)
    return [clock.hold_break(t, now, minutes)]


def verify_force_hand_for_hand(t: State, on: bool) -> None:
    _running(t, "hand-for-hand is called")
    if on and len(t.floor.open) < 2:
        raise TournamentError("hand-for-hand needs two tables or more (D.14)")


def force_hand_for_hand(t: State, on: bool) -> list[Event]:
    """Hand-for-hand on the director's word: it holds until let go (``on`` false), and then lasts only
    while the pay jump calls for it (D.14)."""
    verify_force_hand_for_hand(t, on)
    t.rounds.force(on)
    if not on:  # a round no table has dealt yet is let go now
        t.rounds.let_go()
    return []  # the director checks hand-for-hand at once


def _count(value: object, name: str, *, least: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not least <= value <= 10**12:
        raise TournamentError(f"{name}: a whole number of chips, at least {least}")
    return value


def verify_edit_level(t: State, level: int, small_blind: int, big_blind: int, ante: int = 0,
                      minutes: float | None = None) -> None:
    """A level may change until it starts: never the one under way or one played (its hands were dealt at it)."""
    if t.status in (Status.FINISHED, Status.CANCELLED):
        raise TournamentError(f"the levels of a tournament {t.status} are what was played")
    levels = t.definition.levels
    if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= len(levels):
        raise TournamentError(f"level: 1 to {len(levels)}")
    if t.status is Status.RUNNING and level <= t.level + 1:
        raise TournamentError(f"level {level} has started (the tournament is at level {t.level + 1}): only a "
                              f"level not yet started can be edited")
    big = _count(big_blind, "big_blind", least=1)
    if _count(small_blind, "small_blind", least=0) > big:
        raise TournamentError("small_blind: at most the big blind")
    _count(ante, "ante", least=0)
    if minutes is not None:
        if levels[level - 1].minutes is None:
            raise TournamentError(f"level {level} lasts a number of hands, not minutes")
        if not isinstance(minutes, (int, float)) or isinstance(minutes, bool) or not 0 < minutes <= MAX_BREAK_MINUTES:
            raise TournamentError(f"minutes: more than 0 and at most {MAX_BREAK_MINUTES}")


def edited_level(t: State, level: int, small_blind: int, big_blind: int, ante: int = 0,
                 minutes: float | None = None) -> Definition:
    """The definition with level ``level`` (from 1) as the director now wants it; ``minutes`` None keeps its
    length. The face holds it: the definition is what every view and the clock read, so the edit is the level
    played."""
    verify_edit_level(t, level, small_blind, big_blind, ante, minutes)
    levels = list(t.definition.levels)
    old = levels[level - 1]
    new = msgspec.structs.replace(old, small_blind=small_blind, big_blind=big_blind, ante=ante,
                                  minutes=old.minutes if minutes is None else minutes)
    levels[level - 1] = new
    return msgspec.structs.replace(t.definition, levels=levels)


def verify_remove(t: State, player: str, refund: bool) -> None:
    _running(t, "a player is removed")
    if player not in t.stacks:
        raise TournamentError(f"{player!r} is not playing in this tournament")
    if player in t.removals:
        raise TournamentError(f"{player} is already to be removed when their hand ends")
    if refund and t.ledger.prizes_cents:
        raise TournamentError("prizes are being paid: a refund now would take from them; remove without a refund")
    if t.proposal is not None:
        raise TournamentError("the players are deciding on a deal: remove a player once it is settled")


def remove(t: State, player: str, refund: bool) -> list[Event]:
    """Take ``player`` out: at once between their hands, else when their hand ends (before its busts are ranked,
    so that places stay one after another). See ``take_out``."""
    verify_remove(t, player, refund)
    if t.in_hand(player):
        t.places.remove_later(player, refund)
        return []
    return take_out(t, player, refund) + standings.after_a_bust(t)  # the director's sequence follows


def removed_after_hand(t: State, players: tuple[str, ...], busted: bool) -> list[Event]:
    """At a hand's end: the players of it the director removed meanwhile (one it busted is out anyway). With no
    bust to rank, what one would settle follows here (one player left wins)."""
    events: list[Event] = []
    for player in players:
        if player in t.removals:
            refund = t.places.removal_of(player)
            if t.stacks.get(player):
                events += take_out(t, player, refund)
    if events and not busted:
        events += standings.after_a_bust(t)
    return events


def take_out(t: State, player: str, refund: bool) -> list[Event]:
    """Their chips leave play and they get no place; with ``refund``, their buy-in's prize-pool part and fee go
    back to them and the prize table follows the smaller pool. Their bounty, which nobody won, goes back to them
    as a player left collects their own at the end (J.43), refund or not: with it they get all they paid."""
    table = t.floor.unseat(player)
    chips = t.chips.withdraw(player)
    t.pending.withdraw(player)
    t.negotiation.press(player, False)
    t.places.removed_now(player, refund)
    cents = 0
    if refund:
        definition = t.definition
        pool_part = definition.buy_in_cents - (definition.bounty.cents if definition.bounty is not None else 0)
        if pool_part:  # the buy-in's bounty part is on the head, which comes back below
            t.ledger.record("refund", player, pool_part, account="pool")
        if definition.fee_cents:
            t.ledger.record("refund", player, definition.fee_cents, account="fees")
        cents = pool_part + definition.fee_cents
        prizes.price(t)
    events: list[Event] = [PlayerRemoved(player, table, chips, cents)]
    return events + bounties.rule_for(t.definition.bounty).taken_out(t, player)
