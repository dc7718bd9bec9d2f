"""The entries (a part of the tournament's state, engine/state.py): every entry in registration order, the late
ones and the re-entries, the late-entry windows closed and why, and a final's flights' entrants (rules.md F.23,
F.24, F.27, I.39)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Roster:
    """Written only through its methods."""

    def __init__(self) -> None:
        self._entries: list[str] = []  # registration order
        self._late_entries = 0  # entries bought while running (late registrations and re-entries)
        self._reentered: dict[str, str] = {}  # an eliminated entry -> the entry its person bought after it
        self._reentries: dict[str, int] = {}  # person -> re-entries bought
        self._closed: dict[str, str] = {}  # late registration, re-entry -> why it closed (engine.windows)
        self._flight_entries = 0  # a final: the entries of the flights whose pools it carries

    @property
    def entries(self) -> list[str]:
        return self._entries

    @property
    def late_entries(self) -> int:
        return self._late_entries

    @property
    def reentered(self) -> dict[str, str]:
        return self._reentered

    @property
    def reentries(self) -> dict[str, int]:
        return self._reentries

    @property
    def closed(self) -> dict[str, str]:
        return self._closed

    @property
    def flight_entries(self) -> int:
        return self._flight_entries

    def enter(self, player: str) -> None:
        self._entries.append(player)

    def leave(self, player: str) -> None:
        """An entry unregistered, or a qualification withdrawn before the start."""
        self._entries.remove(player)

    def came_late(self) -> None:
        self._late_entries += 1

    def reentered_as(self, previous: str, entry: str, person: str) -> None:
        self._reentered[previous] = entry
        self._reentries[person] = self._reentries.get(person, 0) + 1

    def close(self, window: str, reason: str) -> None:
        self._closed[window] = reason

    def carried(self, entries: int) -> None:
        """A flight's entries joined its final's count of entrants."""
        self._flight_entries += entries
