"""Where players sit: the initial draw, seats for a broken table's players, balancing moves.

Every choice that the rules leave to chance (rules.md A.1, B.6-B.7) is drawn
from the RNG passed in, so a seeded run is reproducible. Every function honours
the multi-entry constraint (rules.md M.50): ``person`` maps an entry to the
person holding it, and two entries of one person never share a table.
"""

from __future__ import annotations

import math
import random
from bisect import bisect_right
from collections.abc import Callable, Mapping
from itertools import accumulate

from engine.table import Table

Person = Callable[[str], str]


class SeatingError(ValueError):
    """The constraint 'entries of one person never share a table' cannot be met."""


def person_of(people: Mapping[str, str]) -> Person:
    """An entry's person; an entry without one is a person of its own."""
    return lambda entry: people.get(entry, entry)


def initial_draw(entries: list[str], seats_per_table: int, rng: random.Random,
                 person: Person | None = None) -> list[list[str | None]]:
    """Random seats for a field: as few tables as possible, sizes differing by at most one (A.1, B.5).

    Returns each table's seats. People holding several entries are placed
    first, each entry at a different table, into the tables with the most room
    left: that greedy order finds a placement whenever one exists. Everyone
    else fills the remaining places in random order.
    """
    if not entries:
        return []
    tables = math.ceil(len(entries) / seats_per_table)
    base, extra = divmod(len(entries), tables)
    room = [base + 1] * extra + [base] * (tables - extra)
    rng.shuffle(room)

    by_person: dict[str, list[str]] = {}
    for entry in entries:
        by_person.setdefault(person(entry) if person else entry, []).append(entry)
    groups = list(by_person.values())
    rng.shuffle(groups)
    groups.sort(key=len, reverse=True)  # stable: ties stay in random order

    members: list[list[str]] = [[] for _ in range(tables)]
    singles: list[str] = []
    for group in groups:
        if len(group) == 1:
            singles.append(group[0])
            continue
        order = sorted(range(tables), key=lambda t: (-room[t], rng.random()))[:len(group)]
        if len(order) < len(group) or room[order[-1]] == 0:
            raise SeatingError(
                f"{len(group)} entries of one person ({group[0]}, ...) cannot sit at {tables} different tables")
        for table, entry in zip(order, group):
            members[table].append(entry)
            room[table] -= 1
    places = [t for t in range(tables) for _ in range(room[t])]
    rng.shuffle(places)
    for table, entry in zip(places, singles):
        members[table].append(entry)

    layout: list[list[str | None]] = []
    for group in members:
        seats: list[str | None] = [None] * seats_per_table
        for seat, entry in zip(rng.sample(range(seats_per_table), len(group)), group):
            seats[seat] = entry
        layout.append(seats)
    return layout


def shares_table(entry: str, table: Table, person: Person | None) -> bool:
    """Whether another entry of the same person already sits at ``table``."""
    if person is None:
        return False
    who = person(entry)
    return any(p is not None and person(p) == who for p in table.seats)


def draw_open_seats(players: list[str], tables: Mapping[int, Table], rng: random.Random,
                    person: Person | None = None) -> tuple[list[tuple[str, int, int]], list[str]]:
    """Seats for a broken table's players: each draws a uniformly random open seat (B.7).

    The players draw in random order, except that players with another entry
    at one of the tables draw first, while the most seats are open to them; a
    player is never given a table where another entry of theirs sits.
    ``person=None`` means every entry is its own person, which skips that
    check. Returns the placements ``(player, table id, seat)`` and the players
    for whom no open seat was allowed (their entries must merge, M.51).
    """
    order = list(players)
    rng.shuffle(order)
    if person is not None:
        order.sort(key=lambda p: not any(shares_table(p, table, person) for table in tables.values()))
    ids = list(tables)
    open_seats = {table_id: tables[table_id].open_seats() for table_id in ids}
    placed: list[tuple[str, int, int]] = []
    unplaced: list[str] = []
    for player in order:
        rooms = [0 if shares_table(player, tables[t], person) else len(open_seats[t]) for t in ids]
        cumulative = list(accumulate(rooms))
        if not cumulative or cumulative[-1] == 0:
            unplaced.append(player)
            continue
        pick = rng.randrange(cumulative[-1])
        index = bisect_right(cumulative, pick)
        table_id = ids[index]
        seat = open_seats[table_id].pop(pick - (cumulative[index - 1] if index else 0))
        tables[table_id].seat(player, seat)
        placed.append((player, table_id, seat))
    return placed, unplaced


def worst_seat(table: Table) -> int:
    """The open seat that posts the big blind soonest, never the small blind (rules.md A.4, TDA 11A).

    Seats are taken clockwise from the last big blind: the first open seat
    there is dealt in as the next big blind, even if its player just had the
    big blind at their old table. The last big blind's seat is the next small
    blind, so it is chosen only when it is the only seat open. Before the
    table's first hand any open seat is as good as another: the lowest.
    """
    open_seats = table.open_seats()
    if not open_seats:
        raise SeatingError("the table is full")
    last_bb = table.last_bb_seat
    if last_bb is None:
        return open_seats[0]
    return min(open_seats, key=lambda seat: (seat - last_bb - 1) % table.size)


def balancing_mover(table: Table, destination: Table, person: Person | None = None) -> int:
    """The seat of the player to move: the one due the big blind next (A.4).

    When that player's person already sits at the destination, the next
    player clockwise goes instead.
    """
    bb_seat = table.next_positions().bb_seat
    for step in range(table.size):
        seat = (bb_seat + step) % table.size
        player = table.seats[seat]
        if player is not None and not shares_table(player, destination, person):
            return seat
    raise SeatingError("every player here has another entry at the destination table")
