"""Late registration and re-entry (rules.md A.2, C.10, F.24, F.27, M.50): entries bought while the tournament runs.

Each window closes when its own level ends, or earlier, both together, at
the first of: the field at capacity, the bubble, the end of the re-buy
period (F.24). F.24 says "first prize awarded"; closing on the bubble, one
bust before it, fixes the prize table before any place can be paid, and the
bubble is then played hand-for-hand as usual (Decision).

A late entry or a re-entry pays the buy-in and fee into the ledger, and the
prize table follows the pool, as with re-buys. It sits at an open seat
drawn at random among the shortest tables (A.2), never beside another entry
of its person (M.50), and waits if that seat lies between the button and
the small blind (C.10, engine.table). When no open table will take it, a
new table opens, and balancing fills it. While either window is open no
table is broken into a merge (M.50): the floor closes only a table where
nobody has another entry, or none.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Literal

import msgspec

from engine import floor
from engine.events import EntriesClosed, Event, Reentered, Seated, TableKept, TableOpened
from engine.seating import shares_table
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.director import Tournament

Window = Literal["late_registration", "reentry"]
Reason = Literal["level", "capacity", "bubble", "rebuys_over"]
WINDOWS: tuple[Window, ...] = ("late_registration", "reentry")
_NAMES = {"late_registration": "late registration", "reentry": "re-entry"}
_REASONS = {"level": "its last level has ended", "capacity": "the tournament is full",
            "bubble": "the field has reached the bubble", "rebuys_over": "the re-buy period has ended"}


def until_level(t: Tournament, window: Window) -> int | None:
    """The level at whose end the window closes; None when the tournament has no such window."""
    terms = t.definition.late_registration if window == "late_registration" else t.definition.reentry
    return terms.until_level if terms is not None else None


def is_open(t: Tournament, window: Window) -> bool:
    return t.status is Status.RUNNING and until_level(t, window) is not None and window not in t.entries_closed


def any_open(t: Tournament) -> bool:
    return is_open(t, "late_registration") or is_open(t, "reentry")


def closes_at(t: Tournament, window: Window) -> float | None:
    """When the window's last level ends on the caller's clock, unless something closes it first; None when it
    is closed or a level of hands comes before. Breaks count: every ``every_levels``, and the hourly ones."""
    last = until_level(t, window)
    if last is None or not is_open(t, window):
        return None
    definition = t.definition
    breaks = definition.breaks
    number = t.level + 1
    if t.break_until is not None and not t.break_keeps_level:  # between levels: the next starts after the break
        at, number = t.break_until, number + 1
    else:
        at = t._level_started_at
    next_hourly = t.next_break_at
    while number <= last:
        minutes = definition.levels[number - 1].minutes
        if minutes is None:
            return None
        at += minutes * 60
        while breaks is not None and next_hourly < at:
            at += breaks.minutes * 60
            next_hourly += 3600
        if number == last:
            return at
        if breaks is not None and breaks.every_levels is not None and number % breaks.every_levels == 0:
            at += breaks.minutes * 60
        number += 1
    return None


def verify_open(t: Tournament, window: Window) -> None:
    name = _NAMES[window]
    if until_level(t, window) is None:
        raise TournamentError(f"this tournament has no {name} (F.24, F.27)")
    if t.status is not Status.RUNNING:
        raise TournamentError(f"{name} is only while Running; the tournament is {t.status}")
    reason = t.entries_closed.get(window)
    if reason is not None:
        raise TournamentError(f"{name} is closed: {_REASONS[reason]} (F.24)")


def close(t: Tournament, reason: Reason, windows: tuple[Window, ...] = WINDOWS) -> list[Event]:
    events: list[Event] = []
    for window in windows:
        if until_level(t, window) is not None and window not in t.entries_closed:
            t.entries_closed[window] = reason
            events.append(EntriesClosed(window, reason))
    if events and t.late_entries and not any_open(t):
        number_places(t)
    return events


def number_places(t: Tournament) -> None:
    """The places of the entries out while entries could still come, now that the field is known: the first out
    is last (entries - removed), in the order they went out (Decision, as the big rooms rank them).

    While the windows were open a bust took the place the field had then,
    which a later entry could give again; none of those places is paid
    (the windows close before the bubble bursts), so no money moves.
    """
    place = t.players_left + len(t.results)
    for player, result in list(t.results.items()):  # in the order they went out, each batch worst first
        t.results[player] = msgspec.structs.replace(result, place=place)
        place -= 1


def before_ranking(t: Tournament, busts: int) -> list[Event]:
    """A batch of busts that takes the field into the money (past the bubble by several at once, or down to its
    winner) closes the windows first, so that it is ranked in the final field."""
    if t.prizes and t.players_left - busts <= len(t.prizes) and any_open(t):
        return close(t, "bubble")
    return []


def check(t: Tournament) -> list[Event]:
    """Close both windows at capacity, on the bubble, or once the re-buy period is over (F.24)."""
    if len(t.entries_closed) == len(WINDOWS) or t.status is not Status.RUNNING or not any_open(t):
        return []
    if len(t.entries) >= t.definition.max_players:
        return close(t, "capacity")
    if t.prizes and t.players_left <= len(t.prizes) + 1:
        return close(t, "bubble")
    if t.definition.rebuys is not None and t.rebuy_period_over:
        return close(t, "rebuys_over")
    return []


def level_ended(t: Tournament, number: int) -> list[Event]:
    """Level ``number`` has ended: the windows that run until it close."""
    ending = tuple(window for window in WINDOWS if (until_level(t, window) or number + 1) <= number)
    return close(t, "level", ending) if ending else []


def keep_tables_needed_again(t: Tournament) -> list[Event]:
    """Tables locked to close (B.7) that the grown field needs again stay open (Decision): breaking one and
    then opening another for its players would move them for nothing."""
    needed = math.ceil(t.players_left / t.definition.seats_per_table)
    kept: list[Event] = []
    while t._breaking and len(t._open) < needed:
        table = min(t._breaking)
        t._breaking.discard(table)
        t._breaking_idle.discard(table)
        state = t.tables[table]
        state.breaking = False
        t._open.resize(table, len(state.table.players))
        t._open.idle(table, table in t._idle)
        kept.append(TableKept(table, t.players_left))
    return kept


def seat(t: Tournament, player: str) -> list[Event]:
    """A seat at random among the shortest tables that take ``player`` (A.2, M.50); a new table when none does.

    A table of the next size up is tried only when every shorter one holds
    another entry of the person; balancing then evens the tables out, as
    after a move.
    """
    events = keep_tables_needed_again(t)
    person = t._person

    def takes(table: int) -> bool:
        return not shares_table(player, t.tables[table].table, person)

    chosen: int | None = None
    if len(t._open):
        shortest, fullest = t._open.sizes()
        for size in range(shortest, min(fullest, t.definition.seats_per_table - 1) + 1):
            chosen = t._open.draw_of_size(size, t.rng, takes) if t._open.count_of_size(size) else None
            if chosen is not None:
                break
    if chosen is None:
        chosen = t._open_table()
        events.append(TableOpened(chosen))
    table = t.tables[chosen].table
    seat_number = t.rng.choice(table.open_seats())
    table.seat(player, seat_number)
    t.where[player] = (chosen, seat_number)
    t._open.resize(chosen, t._open.size[chosen] + 1)
    events.append(Seated(player, chosen, seat_number, t.stacks[player]))
    return events + (floor.balance(t) if t._round is None else [])  # under hand-for-hand, between rounds (D.15)


def verify_reenter(t: Tournament, player: str, new_entry: str) -> None:
    terms = t.definition.reentry
    verify_open(t, "reentry")
    assert terms is not None
    if not isinstance(new_entry, str) or not new_entry or new_entry in t.stacks or new_entry in t.results:
        raise TournamentError(f"{new_entry!r} cannot name a new entry: it is empty or taken")
    if player not in t.results or player in t.removed:
        raise TournamentError(f"{player} has not been eliminated: only an entry that is out re-enters (F.27)")
    if player in t.reentered:
        raise TournamentError(f"{player} has already re-entered as {t.reentered[player]}")
    person = t.person(player)
    if t.reentries.get(person, 0) >= terms.max_count:
        raise TournamentError(f"{person} has used all {terms.max_count} re-entries (F.27)")


def reenter(t: Tournament, player: str, new_entry: str) -> list[Event]:
    """A new entry for the eliminated ``player``'s person (F.27): buy-in and fee, a new stack, a new random seat
    and its own place; ``player`` keeps the place it finished in. Its person's other live entries, where
    multi-entry allows them, never share its table (M.50)."""
    verify_reenter(t, player, new_entry)
    person = t.person(player)
    if person not in t._entries_of:
        t._belongs(player, person)  # a person of its own until now
    t._belongs(new_entry, person)
    t.reentered[player] = new_entry
    t.reentries[person] = t.reentries.get(person, 0) + 1
    t.late_entries += 1
    paid = t._admit(new_entry, t.definition.late_stack)
    t._price_prizes()
    return [Reentered(new_entry, player, paid), *seat(t, new_entry), *check(t)]
