"""Hand-for-hand (rules.md D.14-D.17): near a pay jump, every table plays one hand per round.

No table deals the round's next hand until every table has finished this
one; the round's busts are ranked together (D.17).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from mypy_extensions import mypyc_attr

from engine.events import Event, HandForHandEnded, HandForHandStarted

if TYPE_CHECKING:
    from engine.director import Tournament
    from engine.eliminations import Bust


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Rounds:
    """The synchronised round under way, if any, and the field sizes that call for one. Written only through its
    methods: the round opens over the tables that can deal, each table deals it once, and it closes with every
    table's busts once the last has finished (D.15-D.17)."""

    def __init__(self) -> None:
        self.points: frozenset[int] = frozenset()  # the field sizes one bust away from a pay jump (D.14)
        self._round: set[int] | None = None  # tables yet to finish the round
        self._started: set[int] = set()
        self._to_deal: set[int] = set()  # tables of the round that have not dealt it yet
        self._busts: list[Bust] = []

    @property
    def under_way(self) -> bool:
        return self._round is not None

    @property
    def to_deal(self) -> set[int]:
        """The round's tables that have not dealt it yet; read it, never change it."""
        return self._to_deal

    def price(self, points: Iterable[int]) -> None:
        """The pay jumps moved (the prize table followed the pool)."""
        self.points = frozenset(points)

    def open(self, tables: Iterable[int]) -> None:
        """A round over ``tables`` (those that can deal): each deals one hand, then waits for the others (D.15)."""
        self._round = set(tables)
        self._started = set()
        self._to_deal = set(self._round)

    def waits_for(self, table: int) -> bool:
        """Whether ``table`` is in the round and has not dealt it yet."""
        return self._round is not None and table in self._round and table not in self._started

    def has_dealt(self, table: int) -> bool:
        return table in self._started

    def includes(self, table: int) -> bool:
        return self._round is not None and table in self._round

    def dealt(self, table: int) -> None:
        """``table`` dealt its hand of the round."""
        self._started.add(table)
        self._to_deal.discard(table)
        if not self._to_deal:
            self._to_deal = set()  # a fresh set: an emptied one still costs its old size to iterate

    def finished(self, table: int, busts: list[Bust]) -> bool:
        """``table``'s hand of the round ended with ``busts``; whether it was the last the round waited for."""
        assert self._round is not None
        self._busts += busts
        self._round.discard(table)
        return not self._round

    def voided(self, table: int) -> None:
        """``table``'s hand was called off: it deals the round's hand again."""
        self._started.discard(table)
        if self._round is not None and table in self._round:
            self._to_deal.add(table)

    def let_go(self) -> None:
        """The director lets go of a round no table has dealt yet."""
        if self._round is not None and not self._started:
            self._round, self._to_deal = None, set()

    def close(self) -> list[Bust]:
        """Every table has finished the round: its busts, one batch across tables (D.17)."""
        busts, self._busts, self._round = self._busts, [], None
        self._to_deal = set()
        return busts


def due(t: Tournament) -> bool:
    """D.14: two or more tables, and the next bust changes prize money by at least the jump (or the director
    says so)."""
    return len(t.floor.open) >= 2 and (t.hand_for_hand_forced or t.players_left in t.rounds.points)


def check(t: Tournament) -> list[Event]:
    """Start hand-for-hand when due; open its round once every table has finished its hand (D.15).

    A hand already in progress when hand-for-hand is called finishes as
    usual. If its busts take the field past the pay jump, the jump has
    happened and hand-for-hand ends before any synchronised round.
    """
    is_due = due(t)
    events: list[Event] = []
    if not t.hand_for_hand:
        if not is_due:
            return events
        t.hand_for_hand = True
        t.hand_for_hand_at.append(t.players_left)
        events.append(HandForHandStarted(t.players_left))
    if t.rounds.under_way:
        return events
    if not is_due:
        t.hand_for_hand = False
        events.append(HandForHandEnded(t.players_left))
        return events
    if t.floor.all_idle():
        t.rounds.open(table for table, state in t.floor.tables.items() if state.table.seated >= 2)
    return events
