"""The floor: which tables close, who moves where, and merges (rules.md A.3-A.4, B.5-B.8, M.51).

Between hands a tournament closes the tables no longer needed (fewest
players first, ties at random), seats their players at open seats drawn at
random, and balances the rest so that no two tables differ by two or more. The
director may move a player, or ask for the balance, by the same rules.
The sizes of the open tables are indexed (engine.seating.OpenTables), so
each step costs the logarithm of the field, not the field.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from mypy_extensions import mypyc_attr

from engine import pickling, standings, windows
from engine.events import (
    BalanceQueued, EntriesMerged, Event, MoveQueued, PlayerEliminated, PlayerMoved, QueuedMoveDropped, Result,
    TableBroken, TableClosing, TableKept,
)
from engine.hand import Hand
from engine.seating import (
    OpenTables, Person, SeatingError, balancing_mover, draw_open_seats, seatable, shares_table, worst_seat,
)
from engine.status import Status, TournamentError
from engine.table import Table

if TYPE_CHECKING:
    from engine.director import Tournament


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

    def move(self, player: str, table: int) -> tuple[int, int]:
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

    def balance(self, rng: random.Random, person: Person | None = None) -> list[Event]:
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
            _, to_seat = self.move(player, to)
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


def seated_with(t: Tournament, entry: str) -> list[int]:
    """The tables where the other entries of ``entry``'s person sit."""
    where = t.floor.where
    return [where[other][0] for other in t.people.entries_of(t.person(entry)) if other != entry and other in where]


def after_change(t: Tournament) -> list[Event]:
    """Between hands: close tables no longer needed, and balance (the director's sequence goes on with the
    windows and hand-for-hand)."""
    events = plan_breaks(t)
    # Only the tables locked to close that are between hands: in a large field many more are locked and
    # still playing their hand, and looking at those after every hand would cost more than the hand.
    for table in sorted(t.floor.breaking_idle):
        events += break_table(t, table)
    return events + balance(t)


def plan_breaks(t: Tournament) -> list[Event]:
    """Lock the tables the field no longer needs (B.5-B.8, ``Floor.lock_surplus``). While entries may come, only
    a table whose players can all sit apart from their persons' others closes (M.50, issue 54)."""
    needed = math.ceil(t.players_left / t.definition.seats_per_table)
    may_merge = not (len(t.floor.open) > needed and t.people.several() and windows.any_open(t))
    apart = None if may_merge else lambda table: seats_everyone_apart(t, table)
    return t.floor.lock_surplus(t.players_left, t.rng, apart)


def seats_everyone_apart(t: Tournament, table: int) -> bool:
    """Whether breaking ``table`` needs no merge: each of its players has an open seat at another table, away
    from their person's other entries (M.50, rules.md: a merge happens only "if the number of tables is reduced
    whereby a player has more seats than there are tables"; issue 54)."""
    return t.floor.seats_apart(table, lambda player: set(seated_with(t, player)))


def break_table(t: Tournament, table: int) -> list[Event]:
    """Close a locked table after its hand; its players draw open seats at the other tables (B.7), and those
    none would take merge into their persons' other entries (M.51)."""
    events, unplaced = t.floor.close(table, t.players_left, t.rng, t.people.person_of(),
                                     lambda entry: seated_with(t, entry))
    for player in unplaced:
        events += merge(t, player)
    return events


def merge(t: Tournament, absorbed: str) -> list[Event]:
    """Merge a seatless entry into another entry of its person (M.51, Decision: the lowest open place).

    The stack goes to the person's entry not in a hand if there is one
    (else the one with the lowest id), and is added when its hand ends.
    """
    into = min((p for p in t.people.entries_of(t.person(absorbed)) if p != absorbed and p in t.stacks),
               key=lambda p: (t.in_hand(p), p))
    place = t.players_left
    chips = t.stacks.pop(absorbed)
    table = t.floor.where.pop(absorbed, t.floor.where[into])[0]  # merged at the draw, never seated: its person's
    if t.in_hand(into):
        t.pending.add_chips(into, chips)
    else:
        t.stacks[into] += chips
    prize = standings.prize(t, place)
    ticket = place <= t.seats_won
    t.results[absorbed] = Result(absorbed, place, prize, ticket)
    standings.pay_prize(t, absorbed, prize, ticket=ticket)
    t.bounty_rule.merged(t, absorbed, into)
    events: list[Event] = [EntriesMerged(absorbed, into, chips), PlayerEliminated(absorbed, place, prize, table)]
    if t.players_left <= t.seats_won:
        return events + standings.seat_everyone_left(t)
    if t.players_left == 1:
        return events + standings.finish(t)
    return events


def merged_at_draw(t: Tournament) -> list[str]:
    """The entries that cannot sit apart from their person's others at the draw (rules.md M.51, seed 000:
    a person who qualified twice for a one-table final): each person keeps as many entries as there are
    tables, the ones that sort first, and the rest merge into those once seated (Decision: the later
    qualification goes into the earlier). Fewer entries may need fewer tables, hence the loop."""
    seats = t.definition.seats_per_table
    tables = math.ceil(len(t.entries) / seats)
    while True:
        merged = [entry for entries in t.people.groups()
                  for entry in sorted(entry for entry in entries if entry in t.stacks)[tables:]]
        fewer = math.ceil((len(t.entries) - len(merged)) / seats)
        if fewer == tables:
            return merged
        tables = fewer


def balance(t: Tournament) -> list[Event]:
    """Balancing between hands (A.3-A.4, ``Floor.balance``), never seating an entry beside its person's (M.50)."""
    return t.floor.balance(t.rng, t.people.person_of())


def waits_for_a_hand(t: Tournament, player: str) -> bool:
    """Whether a move of ``player`` waits: their table is in a hand (A.4), or a hand-for-hand round is under way
    (D.18). It is made when that ends, as a floor person waits for the hand."""
    return t.rounds.under_way or t.floor.tables[t.floor.where[player][0]].hand is not None


def verify_move(t: Tournament, player: str, table: int) -> None:
    """The director's move keeps the floor's rules: to an open table with a seat, never beside another entry of
    the person (M.50), and leaving no two tables two or more apart (A.3), which balancing would undo at once.
    Asked during the player's hand (or a hand-for-hand round), it is queued and checked again when that ends."""
    if t.status is not Status.RUNNING:
        raise TournamentError(f"a player is moved only while Running; the tournament is {t.status}")
    floor = t.floor
    if player not in floor.where:
        raise TournamentError(f"{player!r} is not seated in this tournament")
    source = floor.where[player][0]
    if table == source:
        raise TournamentError(f"{player} already sits at table {table}")
    if not isinstance(table, int) or isinstance(table, bool) or table not in floor.open:
        closing = isinstance(table, int) and table in floor.tables
        raise TournamentError(f"table {table} is closing (B.7)" if closing else f"no open table {table}")
    if player in t.rebuy_offers:
        raise TournamentError(f"{player} is answering a re-buy offer: move them once it is answered")
    destination = floor.tables[table].table
    if not destination.open_seats():
        raise TournamentError(f"table {table} is full")
    if shares_table(player, destination, t.people.person_of()):
        raise TournamentError(f"another entry of {player}'s person sits at table {table} (M.50)")
    sizes = {open_table: len(floor.tables[open_table].table.players) for open_table in floor.open.size}
    if source in sizes:
        sizes[source] -= 1
    sizes[table] += 1
    most, fewest = max(sizes.values()), min(sizes.values())
    if most - fewest >= 2:
        fullest = min(number for number, size in sizes.items() if size == most)
        shortest = min(number for number, size in sizes.items() if size == fewest)
        raise TournamentError(f"after the move table {fullest} would seat {most} players and table {shortest} "
                              f"{fewest}: tables stay within one player of each other (A.3)")


def move(t: Tournament, player: str, table: int) -> list[Event]:
    """The director moves a player to ``table`` by the balancing rules (A.3-A.4, M.50): now between their hands,
    else when their hand (or the hand-for-hand round) ends. A new ask replaces a queued one."""
    verify_move(t, player, table)
    if waits_for_a_hand(t, player):
        t.floor.queue_move(player, table)
        return [MoveQueued(player, t.floor.where[player][0], table)]
    source, seat = t.floor.move(player, table)
    return [PlayerMoved(player, source, table, seat, "director")]


def verify_withdraw_move(t: Tournament, player: str) -> None:
    if player not in t.floor.queued:
        raise TournamentError(f"no move of {player!r} is waiting for a hand to end")


def withdraw_move(t: Tournament, player: str) -> list[Event]:
    """The director takes back a queued move before the hand ends."""
    verify_withdraw_move(t, player)
    return [QueuedMoveDropped(player, t.floor.unqueue_move(player), "withdrawn")]


def queued_after_hand(t: Tournament) -> list[Event]:
    """The queued moves and balance whose hands are over, made now or dropped with the rule that forbids them
    (the player is out, the table gone or full). Called after a hand's eliminations, breaks and balancing, so
    that the checks read the tables the next hands are dealt at."""
    events: list[Event] = []
    floor = t.floor
    running = t.status is Status.RUNNING
    for player, table in list(floor.queued.items()):
        if running and player in floor.where and waits_for_a_hand(t, player):
            continue
        floor.unqueue_move(player)
        if not running or player not in floor.where:
            events.append(QueuedMoveDropped(player, table, "the player is no longer seated"))
            continue
        try:
            verify_move(t, player, table)
        except TournamentError as refusal:
            events.append(QueuedMoveDropped(player, table, str(refusal)))
            continue
        source, seat = floor.move(player, table)
        events.append(PlayerMoved(player, source, table, seat, "director"))
    if floor.balance_asked and not (running and (t.rounds.under_way or _balance_due(t) is None)):
        floor.ask_balance(False)
        events.append(BalanceQueued(False))
        if running:
            events += balance(t)
    return events


def _balance_due(t: Tournament) -> bool | None:
    """Whether a balancing move can be made now; None while every table one would come from is in a hand."""
    if len(t.floor.open) < 2:
        return False
    shortest, fullest = t.floor.open.sizes()
    if fullest - shortest < 2:
        return False
    return t.floor.first_mover(shortest, fullest, t.people.person_of())


def verify_balance_now(t: Tournament) -> None:
    """Why no balancing move can be asked now: the tables are within one of each other, or no player of the
    fullest may sit at a shortest table (M.50). Asked while the fullest tables are in a hand, or a hand-for-hand
    round is under way, the balance is queued for its end (A.4, D.18)."""
    if t.status is not Status.RUNNING:
        raise TournamentError(f"the tables are balanced only while Running; the tournament is {t.status}")
    if len(t.floor.open) < 2:
        raise TournamentError("one table is open: there is nothing to balance")
    shortest, fullest = t.floor.open.sizes()
    if fullest - shortest < 2:
        raise TournamentError(f"the tables are balanced ({fullest} and {shortest} players): a player moves only "
                              f"when two tables differ by two or more (A.3)")
    if t.floor.first_mover(shortest, fullest, t.people.person_of()) is False:
        raise TournamentError("every player who could move has another entry at each shortest table (M.50)")


def balance_now(t: Tournament) -> list[Event]:
    """The balancing moves due now; queued when the tables they come from are in a hand; refused, with the rule,
    when there is none to make."""
    verify_balance_now(t)
    if t.rounds.under_way or _balance_due(t) is None:
        t.floor.ask_balance(True)
        return [BalanceQueued(True)]
    return balance(t)


def verify_withdraw_balance(t: Tournament) -> None:
    if not t.floor.balance_asked:
        raise TournamentError("no balance is waiting for a hand to end")


def withdraw_balance(t: Tournament) -> list[Event]:
    verify_withdraw_balance(t)
    t.floor.ask_balance(False)
    return [BalanceQueued(False)]
