"""The floor's state (a part of the tournament, engine/state.py): the tables in play, who sits where, and the index
of the open ones by size, with the rules that need no more than the tables (B.5-B.8, A.3-A.4: which table
closes, seats drawn for its players, balancing moves), so that they are tested on a floor alone. The policy
that sequences them with the rest of the tournament is engine/floor.py.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from mypy_extensions import mypyc_attr

from engine import pickling
from engine.events import Event, PlayerMoved, TableBroken, TableClosing, TableKept
from engine.hand import Hand
from engine.seating import OpenTables, Person, SeatingError, balancing_mover, draw_open_seats, seatable, worst_seat
from engine.table import Table


PLAYING_FIELDS = ("id", "table", "hand", "number", "breaking")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Playing:
    """One open table: its seats, its hand in progress, and whether it is to be broken."""

    __slots__ = PLAYING_FIELDS

    def __init__(self, table_id: int, table: Table) -> None:
        self.id = table_id
        self.table = table
        self.hand: Hand | None = None
        self.number = 0  # the tournament-wide number of its current or last hand
        self.breaking = False

    def __getstate__(self) -> dict[str, Any]:
        return pickling.state(self, PLAYING_FIELDS)

    def __setstate__(self, pickled: pickling.State) -> None:
        pickling.restore(self, pickled)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Floor:
    """The tables and who sits where, with the indexes that make each step cost the logarithm of the field.

    Only this class writes them: the tables open and closing, the seats, the
    tables between hands (``idle``), the sizes of the open ones. A policy
    seats, unseats, locks and moves through its methods, so the indexes never
    disagree with the seats. The breaking and balancing rules that need no
    more than the tables (B.6-B.7, A.3-A.4) are methods too, so that they are
    tested on a floor alone.
    """

    # The director's moves and balance asked during a hand, made when it ends; defaults, so that a floor
    # pickled before they were kept has them too. ``queued`` is replaced whole, never changed in place.
    queued: dict[str, int] = {}  # player -> the table they move to
    balance_asked = False

    def __init__(self, seats_per_table: int) -> None:
        self.seats_per_table = seats_per_table
        self.tables: dict[int, Playing] = {}
        self.where: dict[str, tuple[int, int]] = {}  # player -> (table id, seat)
        self.opened = 0  # the highest table id given, so that a table opened late never takes a broken one's
        self.broken = 0
        self.moves = 0
        self._open = OpenTables(seats_per_table, 0)  # the tables not being broken, by size
        self._idle: set[int] = set()  # open tables with no hand in progress
        self._idle_peak = 0  # the most tables _idle has held since it was last rebuilt
        self._breaking: set[int] = set()  # tables locked to close (B.7)
        self._breaking_idle: set[int] = set()  # those of them between hands, to close now

    @property
    def open(self) -> OpenTables:
        """The sizes of the tables not being broken; read it, change it through the floor."""
        return self._open

    @property
    def idle(self) -> set[int]:
        """The tables between hands; read it, change it with ``set_idle``."""
        return self._idle

    @property
    def breaking(self) -> set[int]:
        return self._breaking

    @property
    def breaking_idle(self) -> set[int]:
        return self._breaking_idle

    def all_idle(self) -> bool:
        return len(self._idle) == len(self.tables)

    def set_idle(self, table: int, idle: bool) -> None:
        """A table enters or leaves ``idle``, which stays dense.

        A Python set never shrinks when emptied, and iterating it costs its
        largest size: every table is idle before the first deal, so without a
        rebuild ``tables_ready`` would pay for the whole starting field per hand.
        """
        if idle:
            self._idle.add(table)
            self._idle_peak = max(self._idle_peak, len(self._idle))
            if table in self._breaking:
                self._breaking_idle.add(table)
        else:
            self._idle.discard(table)
            if len(self._idle) * 8 < self._idle_peak:
                self._idle = set(self._idle)
                self._idle_peak = len(self._idle)
            self._breaking_idle.discard(table)
        self._open.idle(table, idle)

    def hand_dealt(self, table: int, hand: Hand, number: int) -> None:
        """``table`` deals ``hand``, the tournament's hand ``number``: it is no longer between hands."""
        state = self.tables[table]
        state.hand = hand
        state.number = number
        self.set_idle(table, False)

    def hand_over(self, table: int) -> Hand:
        """``table``'s hand is over (settled or void): the table is between hands; returns the hand."""
        state = self.tables[table]
        hand = state.hand
        assert hand is not None
        state.hand = None
        self.set_idle(table, True)
        return hand

    def queue_move(self, player: str, table: int) -> None:
        """The director's move of ``player`` waits for their hand to end (a new ask replaces the old)."""
        self.queued = {**self.queued, player: table}

    def unqueue_move(self, player: str) -> int:
        """The queued move of ``player`` is off (made, dropped or withdrawn); returns the table it was to."""
        queued = dict(self.queued)
        table = queued.pop(player)
        self.queued = queued
        return table

    def ask_balance(self, asked: bool) -> None:
        self.balance_asked = asked

    def lay_out(self, layout: list[list[str | None]]) -> list[tuple[str, int, int]]:
        """The draw's tables, numbered from 1, between hands; returns who sits where."""
        self._open = OpenTables(self.seats_per_table, len(layout))
        self.opened = len(layout)
        seated: list[tuple[str, int, int]] = []
        for number, seats in enumerate(layout, start=1):
            table = Table(self.seats_per_table)
            self.tables[number] = Playing(number, table)
            for seat, player in enumerate(seats):
                if player is not None:
                    table.seat(player, seat)
                    self.where[player] = (number, seat)
                    seated.append((player, number, seat))
            self._open.resize(number, len(table.players))
            self.set_idle(number, True)
        return seated

    def open_table(self) -> int:
        """A new, empty table (a late entry found every table full); its id follows every id given before."""
        number = max(self.opened, max(self.tables, default=0)) + 1
        self.opened = number
        self.tables[number] = Playing(number, Table(self.seats_per_table))
        self._open.resize(number, 0)
        self.set_idle(number, True)
        return number

    def seat(self, player: str, table: int, seat: int) -> None:
        """``player`` sits down at an open table (a late entry)."""
        self.tables[table].table.seat(player, seat)
        self.where[player] = (table, seat)
        self._open.resize(table, self._open.size[table] + 1)

    def unseat(self, player: str) -> int:
        """``player`` leaves the tournament's tables (out, or taken out); returns the table they sat at."""
        table, seat = self.where.pop(player)
        self.tables[table].table.remove(seat)
        if table in self._open:
            self._open.resize(table, self._open.size[table] - 1)
        return table

    def forget(self, player: str) -> int | None:
        """``player``, whose table closed with no open seat for them, sits nowhere now (their entry merges, M.51);
        the table they sat at, or None for an entry merged at the draw, never seated."""
        seat = self.where.pop(player, None)
        return None if seat is None else seat[0]

    def relocate(self, player: str, table: int) -> tuple[int, int]:
        """``player`` takes the seat at ``table`` that posts the big blind soonest (A.4); returns the table they
        left and the seat they took."""
        source_id, seat = self.where[player]
        to = self.tables[table].table
        to_seat = worst_seat(to)
        to.seat(self.tables[source_id].table.remove(seat), to_seat)
        self.where[player] = (table, to_seat)
        if source_id in self._open:
            self._open.resize(source_id, self._open.size[source_id] - 1)
        self._open.resize(table, self._open.size[table] + 1)
        self.moves += 1
        return source_id, to_seat

    def lock_surplus(self, players_left: int, rng: random.Random,
                     apart: Callable[[int], bool] | None = None) -> list[Event]:
        """Lock tables to close while more are open than ceil(N/S) (B.5, B.8): fewest players, ties at random (B.6).

        A table mid-hand counts with the players seated at it, and a lock stands
        until the table closes: a hand elsewhere that leaves another table shorter
        meanwhile changes nothing (B.7). Each lock is an event, so that the audit
        trail shows which tables were open, and how full, when the choice was made.
        With ``apart``, only a table it accepts closes while a table of two or more can
        still deal (one whose players all sit apart from their persons' others, M.50).
        """
        events: list[Event] = []
        needed = math.ceil(players_left / self.seats_per_table)
        while len(self._open) > needed:
            fewest, _ = self._open.sizes()
            chosen = None
            if apart is not None:
                chosen = self._open.draw_of_size(fewest, rng, apart)
                if chosen is None and self._open.sizes()[1] >= 2:
                    break  # play goes on at a table of two or more; the break waits for the windows to close
            # A break that must merge goes ahead when no table could deal otherwise (Decision: not a stuck field).
            table = chosen if chosen is not None else \
                self._open.nth_of_size(fewest, rng.randrange(self._open.count_of_size(fewest)))
            self.tables[table].breaking = True
            self._breaking.add(table)
            if table in self._idle:
                self._breaking_idle.add(table)
            events.append(TableClosing(table, self._open.size[table], players_left))
            self._open.drop(table)
        return events

    def keep_needed(self, players_left: int) -> list[Event]:
        """Tables locked to close (B.7) that a grown field needs again stay open (Decision): breaking one and
        then opening another for its players would move them for nothing."""
        needed = math.ceil(players_left / self.seats_per_table)
        kept: list[Event] = []
        while self._breaking and len(self._open) < needed:
            table = min(self._breaking)
            self._breaking.discard(table)
            self._breaking_idle.discard(table)
            state = self.tables[table]
            state.breaking = False
            self._open.resize(table, len(state.table.players))
            self._open.idle(table, table in self._idle)
            kept.append(TableKept(table, players_left))
        return kept

    def close(self, table: int, players_left: int, rng: random.Random, person: Person | None = None,
              seated_with: Callable[[str], list[int]] | None = None) -> tuple[list[Event], list[str]]:
        """Close a locked table after its hand; its players draw open seats at the other tables (B.7). Returns the
        events and the players no open seat would take (their entries merge, M.51)."""
        state = self.tables.pop(table)
        self.set_idle(table, False)
        self._breaking.discard(table)
        self.broken += 1
        events: list[Event] = [TableBroken(table, players_left)]
        placed, unplaced = draw_open_seats(state.table.players, self._open, lambda other: self.tables[other].table,
                                           rng, person, seated_with)
        for player, to_table, seat in placed:
            self.where[player] = (to_table, seat)
            self._open.resize(to_table, self._open.size[to_table] + 1)
            events.append(PlayerMoved(player, table, to_table, seat, "break"))
        self.moves += len(placed)
        return events, unplaced

    def seats_apart(self, table: int, barred: Callable[[str], set[int]]) -> bool:
        """Whether ``table``'s players all find an open seat at another table, none at a table ``barred`` names
        for them (M.50): a matching of them to the tables with room (``seating.seatable``)."""
        players = self.tables[table].table.players
        room = {other: self.seats_per_table - size for other, size in self._open.size.items()
                if other != table and size < self.seats_per_table}
        bars = {player: found for player in players if (found := barred(player))}
        return seatable(players, bars, room) == len(players)

    def even_out(self, rng: random.Random, person: Person | None = None) -> list[Event]:
        """While the open tables differ by two or more, move from a fullest table between hands (A.3-A.4)."""
        events: list[Event] = []
        while len(self._open) >= 2:
            shortest, fullest = self._open.sizes()
            if fullest - shortest < 2:
                break
            source_id = self._open.lowest_idle(fullest)
            if source_id is None:
                break  # a fullest table moves someone when its hand ends
            drawn = self._destination(self.tables[source_id].table, shortest, rng, person)
            if drawn is None:
                break  # every candidate has another entry at each shortest table: wait for the next hand
            to, seat = drawn
            player = self.tables[source_id].table.seats[seat]
            assert player is not None
            _, to_seat = self.relocate(player, to)
            events.append(PlayerMoved(player, source_id, to, to_seat, "balance"))
        return events

    def _destination(self, source: Table, shortest: int, rng: random.Random,
                     person: Person | None) -> tuple[int, int] | None:
        """A table of the shortest size drawn at random (A.3), the next at random while none of the source's
        players may sit there (M.50), and the seat of the player who moves; None when no table will do."""
        movers: dict[int, int] = {}

        def takes_a_mover(candidate: int) -> bool:
            try:
                movers[candidate] = balancing_mover(source, self.tables[candidate].table, person)
            except SeatingError:
                return False
            return True

        drawn = self._open.draw_of_size(shortest, rng, takes_a_mover)
        return None if drawn is None else (drawn, movers[drawn])

    def first_mover(self, shortest: int, fullest: int, person: Person | None) -> bool | None:
        """For "balance now": None when every fullest table is in a hand; else whether a player of the one that
        moves first may sit at some shortest table (looked at in turn: a query draws nothing)."""
        source_id = self._open.lowest_idle(fullest)
        if source_id is None:
            return None
        source = self.tables[source_id].table
        for table, size in self._open.size.items():
            if size == shortest:
                try:
                    balancing_mover(source, self.tables[table].table, person)
                    return True
                except SeatingError:
                    pass
        return False
