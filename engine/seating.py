"""Where players sit: the initial draw, seats for a broken table's players, balancing moves.

Every choice that the rules leave to chance (rules.md A.1, B.6-B.7) is drawn
from the RNG passed in, so a seeded run is reproducible. Every function honours
the multi-entry constraint (rules.md M.50): ``person`` maps an entry to the
person holding it, and two entries of one person never share a table.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr

import math
import random
from collections.abc import Callable, Iterable, Mapping

from engine.fenwick import Fenwick
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


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class OpenTables:
    """The open tables not being broken: players seated at each, which are between hands, and their open seats.

    What the director asks per hand, bust and move, each in O(log n) of the
    number of tables: the shortest and fullest sizes, the k-th table of a size
    by id (the random pick among the fewest, B.6), the lowest table of a size
    between hands (a balancing move's source, A.3), and a uniformly random
    open seat over every table (B.7). ``size`` keeps the tables in the order
    their size last changed, and the draw numbers the open seats in that
    order, so a seeded tournament seats its players exactly as before this
    index existed (when every draw listed every table).
    """

    def __init__(self, seats_per_table: int, tables: int) -> None:
        """For tables with ids ``1 .. tables``."""
        self.seats_per_table = seats_per_table
        self.size: dict[int, int] = {}
        self._by_id = [Fenwick([0] * (tables + 1)) for _ in range(seats_per_table + 1)]  # 1 per table of a size
        self._idle_by_id = [Fenwick([0] * (tables + 1)) for _ in range(seats_per_table + 1)]  # of those, idle
        self._slot: dict[int, int] = {}  # table -> its place in the order of last change
        self._table_at: list[int] = []  # slot -> table; 0 once the table has moved on
        self._open = Fenwick([])  # open seats, by slot

    def __len__(self) -> int:
        return len(self.size)

    def __contains__(self, table: object) -> bool:
        return table in self.size

    def resize(self, table: int, size: int) -> None:
        """The table now seats ``size`` players; it moves to the end of the order (or enters it, in a hand)."""
        self._make_room(table)
        idle = self.drop(table)
        if len(self._table_at) == self._open.capacity:
            self._compact()
        self.size[table] = size
        self._by_id[size].add(table, 1)
        if idle:
            self._idle_by_id[size].add(table, 1)
        slot = len(self._table_at)
        self._slot[table] = slot
        self._table_at.append(table)
        self._open.add(slot, self.seats_per_table - size)

    def drop(self, table: int) -> bool:
        """The table no longer counts (it is being broken); returns whether it was between hands."""
        size = self.size.pop(table, None)
        if size is None:
            return False
        self._by_id[size].add(table, -1)
        idle = self._idle_by_id[size].counts[table] == 1
        if idle:
            self._idle_by_id[size].add(table, -1)
        slot = self._slot.pop(table)
        self._table_at[slot] = 0
        self._open.add(slot, -self._open.counts[slot])
        return idle

    def idle(self, table: int, idle: bool) -> None:
        """Whether the counted table is between hands (a table not counted is ignored)."""
        size = self.size.get(table)
        if size is not None and self._idle_by_id[size].counts[table] != idle:
            self._idle_by_id[size].add(table, 1 if idle else -1)

    def sizes(self) -> tuple[int, int]:
        """The shortest and the fullest table's number of players (at least one table is counted)."""
        present = [size for size, tables in enumerate(self._by_id) if tables.total]
        return present[0], present[-1]

    def count_of_size(self, size: int) -> int:
        return self._by_id[size].total

    def draw_of_size(self, size: int, rng: random.Random, accept: Callable[[int], bool]) -> int | None:
        """A table seating ``size`` players, drawn at random; while ``accept`` refuses it, another among the
        rest. None when every one is refused.

        The draws cost O(log n) each, where shuffling every such table would
        cost their number (which balancing keeps small, though in a field of
        100,000 it reached 76). A single candidate takes no draw.
        """
        ranked = self._by_id[size]
        refused: list[int] = []
        try:
            while ranked.total:
                table = ranked.find(rng.randrange(ranked.total) if ranked.total > 1 else 0)[0]
                if accept(table):
                    return table
                ranked.add(table, -1)  # out of the draw until this one is over
                refused.append(table)
            return None
        finally:
            for table in refused:
                ranked.add(table, 1)

    def nth_of_size(self, size: int, rank: int) -> int:
        """The table with the ``rank``-th lowest id (0-based) among those seating ``size`` players."""
        return self._by_id[size].find(rank)[0]

    def lowest_idle(self, size: int) -> int | None:
        """The lowest id among the tables seating ``size`` players that are between hands."""
        ranked = self._idle_by_id[size]
        return ranked.find(0)[0] if ranked.total else None

    def draw(self, rng: random.Random, excluded: Iterable[int] = ()) -> tuple[int, int] | None:
        """A uniformly random open seat away from the ``excluded`` tables: its table and its rank among the
        table's open seats (lowest first); None when there is none."""
        held = [(self._slot[table], self._open.counts[self._slot[table]]) for table in set(excluded)
                if table in self._slot]
        for slot, count in held:
            self._open.add(slot, -count)
        try:
            if not self._open.total:
                return None
            slot, rank = self._open.find(rng.randrange(self._open.total))
            return self._table_at[slot], rank
        finally:
            for slot, count in held:
                self._open.add(slot, count)

    def take(self, table: int) -> None:
        """One of the table's open seats was taken during a draw (its size is given after the draw)."""
        self._open.add(self._slot[table], -1)

    def _make_room(self, table: int) -> None:
        """A table opened after the start (for a late entry) may lie beyond the indexes: they double."""
        capacity = self._by_id[0].capacity
        if table < capacity:
            return
        extra = [0] * (max(table + 1, 2 * capacity) - capacity)
        self._by_id = [Fenwick(ranked.counts + extra) for ranked in self._by_id]
        self._idle_by_id = [Fenwick(ranked.counts + extra) for ranked in self._idle_by_id]

    def _compact(self) -> None:
        """Renumber the slots in order, with room to grow: amortised O(1) per change of size."""
        order = list(self.size)
        counts = [self._open.counts[self._slot[table]] for table in order]
        self._slot = {table: slot for slot, table in enumerate(order)}
        self._table_at = order
        self._open = Fenwick(counts + [0] * (len(order) + 8))


def draw_open_seats(players: list[str], tables: OpenTables, table_of: Callable[[int], Table], rng: random.Random,
                    person: Person | None = None, seated_with: Callable[[str], Iterable[int]] | None = None,
                    ) -> tuple[list[tuple[str, int, int]], list[str]]:
    """Seats for a broken table's players: each draws a uniformly random open seat (B.7).

    The players draw in random order, except that players with another entry
    at one of the tables draw first, while the most seats are open to them; a
    player is never given a table where another entry of theirs sits, nor one
    that would leave a player still to draw with no seat away from their
    other entries where a seating of them all exists (M.51: merge only when
    none does). Such a draw is redrawn among the other tables, so the seating
    is still random among the ones that merge nobody, and a field with no such
    conflict draws exactly as before. ``person=None`` means every entry is its
    own person, which skips those checks; otherwise ``seated_with(player)``
    names the tables where the player's other entries sit. Returns the
    placements ``(player, table id, seat)`` and the players for whom no open
    seat was allowed (their entries must merge, M.51).
    """
    order = list(players)
    rng.shuffle(order)
    placed_by: dict[str, set[int]] = {}  # person -> the tables this draw has seated them at

    def others(player: str) -> set[int]:
        """The tables the player may not draw: where another entry of theirs sits."""
        if person is None or seated_with is None:
            return set()
        return {table for table in seated_with(player) if table in tables} | placed_by.get(person(player), set())

    bars: dict[str, set[int]] = {}
    if person is not None:
        bars = {player: barred for player in order if (barred := others(player))}
        order.sort(key=lambda p: p not in bars)
    room = {table: tables.seats_per_table - size for table, size in tables.size.items()
            if size < tables.seats_per_table} if bars else {}
    placed: list[tuple[str, int, int]] = []
    unplaced: list[str] = []
    for index, player in enumerate(order):
        later = [other for other in order[index + 1:] if other in bars]
        drawn = _draw_sparing(player, later, tables, rng, others(player), bars, room)
        if drawn is None:
            unplaced.append(player)
            continue
        table_id, rank = drawn
        table = table_of(table_id)
        seat = table.open_seats()[rank]
        table.seat(player, seat)
        tables.take(table_id)
        if room:
            room[table_id] -= 1
        if person is not None:
            placed_by.setdefault(person(player), set()).add(table_id)
        placed.append((player, table_id, seat))
    return placed, unplaced


def _draw_sparing(player: str, later: list[str], tables: OpenTables, rng: random.Random, excluded: set[int],
                  bars: Mapping[str, set[int]], room: dict[int, int]) -> tuple[int, int] | None:
    """A random open seat for ``player`` outside ``excluded`` that costs none of the ``later`` players with barred
    tables a seat a matching could give them: a draw that would is redrawn among the other tables."""
    most = seatable([player, *later], bars, room) if later else 0
    while True:
        drawn = tables.draw(rng, excluded)
        if drawn is None or not later:
            return drawn
        room[drawn[0]] -= 1
        keeps = 1 + seatable(later, bars, room) == most
        room[drawn[0]] += 1
        if keeps:
            return drawn
        excluded = excluded | {drawn[0]}


def seatable(players: list[str], bars: Mapping[str, set[int]], room: Mapping[int, int]) -> int:
    """How many of ``players`` can sit at once, each at a table with ``room`` left and none at a table ``bars``
    names for them: the size of a largest matching (Kuhn's augmenting paths, a table taking as many as its room).
    The players without bars take what room is left."""
    seated: dict[int, list[str]] = {}

    def place(player: str, tried: set[int]) -> bool:
        barred = bars.get(player, set())
        for table, free in room.items():
            if table in barred or table in tried or free <= 0:
                continue
            tried.add(table)
            there = seated.setdefault(table, [])
            if len(there) < free:
                there.append(player)
                return True
            for moved in list(there):
                if place(moved, tried):
                    there.remove(moved)
                    there.append(player)
                    return True
        return False

    barred = [player for player in players if player in bars]
    matched = sum(place(player, set()) for player in barred)
    left = sum(max(free, 0) for free in room.values()) - matched
    return matched + min(left, len(players) - len(barred))


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
