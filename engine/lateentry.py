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

from typing import TYPE_CHECKING

from engine import prizes, registration
from engine.events import Event, Reentered, Seated, TableOpened
from engine.seating import shares_table
from engine.status import Status, TournamentError
from engine.windows import WINDOWS, any_open, close, until_level, verify_open

if TYPE_CHECKING:
    from engine.state import State

def check(t: State) -> list[Event]:
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


def level_ended(t: State, number: int) -> list[Event]:
    """Level ``number`` has ended: the windows that run until it close."""
    ending = tuple(window for window in WINDOWS if (until_level(t, window) or number + 1) <= number)
    return close(t, "level", ending) if ending else []


def seat(t: State, player: str) -> list[Event]:
    """A seat at random among the shortest tables that take ``player`` (A.2, M.50); a new table when none does.

    A table of the next size up is tried only when every shorter one holds
    another entry of the person; balancing then evens the tables out, as
    after a move.
    """
    events = t.floor.keep_needed(t.players_left)  # breaking a table the grown field needs would move it for nothing
    person = t.people.person_of()
    open_tables = t.floor.open

    def takes(table: int) -> bool:
        return not shares_table(player, t.tables[table].table, person)

    chosen: int | None = None
    if len(open_tables):
        shortest, fullest = open_tables.sizes()
        for size in range(shortest, min(fullest, t.definition.seats_per_table - 1) + 1):
            chosen = open_tables.draw_of_size(size, t.rng, takes) if open_tables.count_of_size(size) else None
            if chosen is not None:
                break
    if chosen is None:
        chosen = t.floor.open_table()
        events.append(TableOpened(chosen))
    seat_number = t.rng.choice(t.tables[chosen].table.open_seats())
    t.floor.seat(player, chosen, seat_number)
    events.append(Seated(player, chosen, seat_number, t.stacks[player]))
    return events  # the director balances the tables then (between rounds under hand-for-hand, D.15)


def verify_reenter(t: State, player: str, new_entry: str) -> None:
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


def reenter(t: State, player: str, new_entry: str) -> list[Event]:
    """A new entry for the eliminated ``player``'s person (F.27): buy-in and fee, a new stack, a new random seat
    and its own place; ``player`` keeps the place it finished in. Its person's other live entries, where
    multi-entry allows them, never share its table (M.50)."""
    verify_reenter(t, player, new_entry)
    person = t.person(player)
    if not t.people.known(person):
        t.people.belongs(player, person)  # a person of its own until now
    t.people.belongs(new_entry, person)
    t.roster.reentered_as(player, new_entry, person)
    t.roster.came_late()
    paid = registration.admit(t, new_entry, t.definition.late_stack)
    prizes.price(t)
    return [Reentered(new_entry, player, paid), *seat(t, new_entry)]  # the director balances, then checks
