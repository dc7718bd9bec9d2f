"""The late-entry windows (rules.md F.24, F.27): late registration and re-entry, when each is open and closing
them. A primitive the policies share (engine.eliminations closes them before a batch reaches the money,
engine.floor will not merge while one is open, engine.lateentry sells entries through them): it calls no
policy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal


from engine.events import EntriesClosed, Event
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.state import State

Window = Literal["late_registration", "reentry"]
Reason = Literal["level", "capacity", "bubble", "rebuys_over"]
WINDOWS: tuple[Window, ...] = ("late_registration", "reentry")
_NAMES = {"late_registration": "late registration", "reentry": "re-entry"}
_REASONS = {"level": "its last level has ended", "capacity": "the tournament is full",
            "bubble": "the field has reached the bubble", "rebuys_over": "the re-buy period has ended"}


def until_level(t: State, window: Window) -> int | None:
    """The level at whose end the window closes; None when the tournament has no such window."""
    terms = t.definition.late_registration if window == "late_registration" else t.definition.reentry
    return terms.until_level if terms is not None else None


def is_open(t: State, window: Window) -> bool:
    return t.status is Status.RUNNING and until_level(t, window) is not None and window not in t.entries_closed


def any_open(t: State) -> bool:
    return is_open(t, "late_registration") or is_open(t, "reentry")


def closes_at(t: State, window: Window) -> float | None:
    """When the window's last level ends on the caller's clock, unless something closes it first; None when it
    is closed or a level of hands comes before. Breaks count: every ``every_levels``, and the hourly ones."""
    last = until_level(t, window)
    if last is None or not is_open(t, window):
        return None
    definition = t.definition
    breaks = definition.breaks
    number = t.level + 1
    if t.break_until is not None and not t.break_keeps_level:  # between levels: the next starts after the break
        at, number = t.break_until, number + 1
    else:
        at = t.clock.level_started_at
    next_hourly = t.next_break_at
    while number <= last:
        minutes = definition.levels[number - 1].minutes
        if minutes is None:
            return None
        at += minutes * 60
        while breaks is not None and next_hourly < at:
            at += breaks.minutes * 60
            next_hourly += 3600
        if number == last:
            return at
        if breaks is not None and breaks.every_levels is not None and number % breaks.every_levels == 0:
            at += breaks.minutes * 60
        number += 1
    return None


def verify_open(t: State, window: Window) -> None:
    name = _NAMES[window]
    if until_level(t, window) is None:
        raise TournamentError(f"this tournament has no {name} (F.24, F.27)")
    if t.status is not Status.RUNNING:
        raise TournamentError(f"{name} is only while Running; the tournament is {t.status}")
    reason = t.entries_closed.get(window)
    if reason is not None:
        raise TournamentError(f"{name} is closed: {_REASONS[reason]} (F.24)")


def close(t: State, reason: Reason, windows: tuple[Window, ...] = WINDOWS) -> list[Event]:
    events: list[Event] = []
    for window in windows:
        if until_level(t, window) is not None and window not in t.entries_closed:
            t.roster.close(window, reason)
            events.append(EntriesClosed(window, reason))
    if events and t.late_entries and not any_open(t):
        number_places(t)
    return events


def number_places(t: State) -> None:
    """The places of the entries out while entries could still come, now that the field is known: the first out
    is last (entries - removed), in the order they went out (Decision, as the big rooms rank them).

    While the windows were open a bust took the place the field had then,
    which a later entry could give again; none of those places is paid
    (the windows close before the bubble bursts), so no money moves.
    """
    place = t.players_left + len(t.results)
    for player in list(t.results):  # in the order they went out, each batch worst first
        t.places.renumber(player, place)
        place -= 1


def before_ranking(t: State, busts: int) -> list[Event]:
    """A batch of busts that takes the field into the money (past the bubble by several at once, or down to its
    winner) closes the windows first, so that it is ranked in the final field."""
    if t.prizes and t.players_left - busts <= len(t.prizes) and any_open(t):
        return close(t, "bubble")
    return []
