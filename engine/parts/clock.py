"""The tournament clock's state (a part of the tournament, engine/state.py): the level under way and when it
started, the caller's clock as last given, hands dealt in the level, breaks under way and the next hourly one
(rules.md E.19-E.22). Its rules are engine/clock.py.
"""

from __future__ import annotations

import math

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Clock:
    """The level under way (an index into the definition's levels) and when it started, the caller's clock as last
    given, the hands dealt in the level per table, the break under way and the next hourly one. Written only
    through its methods."""

    def __init__(self) -> None:
        self._now = 0.0  # the caller's clock at the last start() or advance()
        self._level_started_at = 0.0
        self._hands_in_level: dict[int, int] = {}
        self._most_hands_in_level = 0
        self._level = 0
        self._break_until: float | None = None
        self._break_keeps_level = False  # the break under way was called by hand: the level goes on after it
        self._next_break_at = math.inf  # synchronised breaks (``breaks.at_minute``): when the next one starts

    @property
    def now(self) -> float:
        return self._now

    @property
    def level(self) -> int:
        return self._level

    @property
    def break_until(self) -> float | None:
        """When the break under way ends; None when there is none."""
        return self._break_until

    @property
    def break_keeps_level(self) -> bool:
        return self._break_keeps_level

    @property
    def next_break_at(self) -> float:
        return self._next_break_at

    def next_level(self) -> None:
        self._level += 1

    def begin_break(self, until: float, keeps_level: bool) -> None:
        self._break_until = until
        self._break_keeps_level = keeps_level

    def end_break(self) -> None:
        self._break_until = None
        self._break_keeps_level = False

    def extend_break(self, seconds: float) -> None:
        assert self._break_until is not None
        self._break_until += seconds

    def schedule_hourly(self, at: float) -> None:
        """The next synchronised break starts at ``at``."""
        self._next_break_at = at

    @property
    def level_started_at(self) -> float:
        return self._level_started_at

    @property
    def most_hands_in_level(self) -> int:
        return self._most_hands_in_level

    def tick(self, now: float) -> None:
        self._now = now

    def start_level(self, at: float) -> None:
        self._level_started_at = at

    def shift(self, seconds: float) -> None:
        """The level under way ends ``seconds`` later (a break that stops its clock, or the director's word)."""
        self._level_started_at += seconds

    def dealt(self, table: int) -> None:
        """``table`` dealt a hand at this level."""
        dealt = self._hands_in_level.get(table, 0) + 1
        self._hands_in_level[table] = dealt
        self._most_hands_in_level = max(self._most_hands_in_level, dealt)

    def restart_hands(self) -> None:
        """A new level: no hand dealt in it yet."""
        self._hands_in_level.clear()
        self._most_hands_in_level = 0
