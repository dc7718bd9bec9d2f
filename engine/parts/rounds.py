"""Hand-for-hand's state (a part of the tournament, engine/state.py): whether it is on, the synchronised round and
the pay jumps that call for one (rules.md D.14-D.17). Its policy is engine/handforhand.py.
"""

from __future__ import annotations

from collections.abc import Iterable

from mypy_extensions import mypyc_attr

from engine.parts.busts import Bust


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Rounds:
    """Hand-for-hand (D.14-D.17): whether it is on, the synchronised round under way, if any, and the field sizes
    that call for one. Written only through its methods: the round opens over the tables that can deal, each
    table deals it once, and it closes with every table's busts once the last has finished (D.15-D.17)."""

    def __init__(self) -> None:
        # Hand-for-hand itself (D.14-D.16): whether it is on, the field sizes it began at (replaced whole, never
        # appended to), and whether the director called it.
        self._on = False
        self._began_at: list[int] = []
        self._forced = False
        self.points: frozenset[int] = frozenset()  # the field sizes one bust away from a pay jump (D.14)
        self._round: set[int] | None = None  # tables yet to finish the round
        self._started: set[int] = set()
        self._to_deal: set[int] = set()  # tables of the round that have not dealt it yet
        self._busts: list[Bust] = []

    @property
    def on(self) -> bool:
        """Whether the tournament is playing hand-for-hand (D.14)."""
        return self._on

    @property
    def began_at(self) -> list[int]:
        """The field sizes hand-for-hand began at, in order."""
        return self._began_at

    @property
    def forced(self) -> bool:
        """Whether the director called hand-for-hand (it holds until let go)."""
        return self._forced

    def begin(self, players_left: int) -> None:
        self._on = True
        self._began_at = [*self._began_at, players_left]

    def end(self) -> None:
        self._on = False

    def force(self, on: bool) -> None:
        self._forced = on

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
