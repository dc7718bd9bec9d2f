"""A tournament over time, for its pictures: the field after busts and late entries, and each level's beginning.

Built as the runtime submits records (the director events it journals carry the tournament clock, docs/events.md)
and, after a restart, from the journal's lines again. The field is thinned to about ``POINTS`` points, however
large: the board feed sends the whole row whenever it changes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import msgspec

from engine.director import Tournament
from engine.events import Event, LevelChanged, PlayerEliminated, PlayerRemoved, Seated
from engine.wire import LevelMark, Timeline
from server.tournament import records
from server.tournament.persistence import Line

POINTS = 300


class TimelineBuilder:
    __slots__ = ("players", "levels", "_step")

    def __init__(self) -> None:
        self.players: list[tuple[float, int]] = []
        self.levels: list[LevelMark] = []
        self._step = 1

    def saw(self, events: Iterable[Event], director: Tournament, at: float) -> None:
        """The events of one record, the director as they left it, at ``at`` tournament seconds."""
        changed = False
        for event in events:
            if isinstance(event, LevelChanged):
                left = director.players_left
                average = director.chips_issued / left / event.big_blind if left else 0.0
                self.levels.append(LevelMark(event.level, round(at, 1), left, round(average, 1)))
                changed = True
            elif isinstance(event, (PlayerEliminated, PlayerRemoved, Seated)):
                changed = True
        if changed:
            self.point(round(at, 1), director.players_left, len(director.entries))

    def point(self, at: float, left: int, entries: int) -> None:
        """The field at ``at``, kept if it moved by a step (every move, in a small field)."""
        if not self.players:
            self._step = max(1, entries // POINTS)
            self.players.append((at, left))
            return
        last = self.players[-1][1]
        if left != last and (abs(left - last) >= self._step or left <= POINTS):
            self.players.append((at, left))

    def timeline(self) -> Timeline | None:
        return Timeline(list(self.players), list(self.levels)) if self.levels else None


_lines = msgspec.msgpack.Decoder(Line[msgspec.Raw, list[dict[str, Any]]])
# Most lines are decisions, which move neither the field nor the level: skipped by their first bytes (a line is
# an array whose record, an array too, starts with its tag), as the director's log skips them.
_DECISION = msgspec.msgpack.encode(records.Act.__struct_config__.tag)
_WANTED = (b"level_changed", b"player_eliminated", b"seated", b"player_removed", b"rebuy_taken", b"add_on_taken")


def rebuilt(records: Iterable[bytes]) -> TimelineBuilder:
    """The timeline of a restored tournament from its journal, as the live one was built: only the lines that
    could move it are decoded, and the field and the chips issued are counted from their events."""
    builder = TimelineBuilder()
    left = entries = chips = 0
    for raw in records:
        if raw[2:].startswith(_DECISION) or not any(word in raw for word in _WANTED):
            continue
        line = _lines.decode(raw)
        if line.at is None:  # journaled before the clock was kept: no time to draw it at
            continue
        moved = False
        for event in line.events:
            kind = event.get("type")
            if kind == "seated":
                left, entries, chips, moved = left + 1, entries + 1, chips + event["stack"], True
            elif kind == "player_eliminated":
                left, moved = left - 1, True
            elif kind == "player_removed":
                left, chips, moved = left - 1, chips - event["chips"], True
            elif kind in ("rebuy_taken", "add_on_taken"):
                chips += event["chips"]
            elif kind == "level_changed":
                average = chips / left / event["big_blind"] if left else 0.0
                builder.levels.append(LevelMark(event["level"], line.at, left, round(average, 1)))
                moved = True
        if moved:
            builder.point(line.at, left, entries)
    return builder
