"""The tournament clock (rules.md E.19-E.22): levels by time or by hands, scheduled and synchronised breaks.

The caller owns time: it hands the director ``now`` (seconds) and the
director's clock says which level that is. A level of ``hands`` ends once a
table has dealt that many hands in it. Breaks come after every
``breaks.every_levels`` levels (the next level starts after), or at
``breaks.at_minute`` of each of the tournament's hours, and a break the
director calls: during those two the level's clock stands still, as it does
while the players decide on a deal (H.36). A primitive the policies may
call; it calls none.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine.events import BreakEnded, BreakStarted, Event, LevelChanged
from engine.structure import break_after

if TYPE_CHECKING:
    from engine.state import State


def level_event(t: State) -> LevelChanged:
    level = t.definition.levels[t.level]
    return LevelChanged(t.level + 1, level.small_blind, level.big_blind, level.ante, level.bb_ante)


def level_ends_at(t: State) -> float | None:
    """When the current level ends on the caller's clock; None for a level of hands or the last level."""
    level = t.definition.levels[t.level]
    if level.minutes is None or t.level == len(t.definition.levels) - 1 or t.break_until is not None:
        return None
    return t.clock.level_started_at + level.minutes * 60 + deal_open_for(t)


def deal_open_for(t: State) -> float:
    """How long the deal on the table has been open: the level's clock has stood still as long."""
    deal = t.proposal
    return 0.0 if deal is None or deal.opened_at is None else t.clock.now - deal.opened_at


def break_starts_at(t: State) -> float | None:
    """When the next scheduled break begins on the caller's clock (a tournament clock shows the time to it);
    None with no breaks, during one, or where a level of hands or the last level comes first."""
    breaks = t.definition.breaks
    if t.break_until is not None:
        return None
    if breaks is not None and breaks.at_minute is not None:
        return t.next_break_at if math.isfinite(t.next_break_at) else None
    levels = t.definition.levels
    ends = level_ends_at(t)
    for number in range(t.level, len(levels) - 1):
        if ends is None:
            return None
        if break_after(t.definition, number):
            return ends
        following = levels[number + 1].minutes
        ends = None if following is None else ends + following * 60
    return None


def hold_break(t: State, starts: float, minutes: float) -> BreakStarted:
    """A break from ``starts`` during which the level's clock stands still: the same level goes on after it
    with the time it had left (a synchronised break, or one the director calls)."""
    t.clock.begin_break(starts + minutes * 60, keeps_level=True)
    t.clock.shift(minutes * 60)
    return BreakStarted(starts + minutes * 60)


def level_over(t: State, now: float, events: list[Event]) -> float | None:
    """Breaks that end or begin by ``now`` (their events added to ``events``); then when the level under way
    ended, if it has by ``now``, else None. The last level lasts until the end, unless a flight stops at its
    end (L.47)."""
    levels = t.definition.levels
    while True:
        if t.break_until is not None:
            if now < t.break_until:
                return None
            if t.break_keeps_level:  # a break called by hand: the level's clock stood still
                t.clock.end_break()
                events.append(BreakEnded())
                continue
            t.clock.start_level(t.break_until)
            t.clock.end_break()
            t.clock.next_level()
            events += [BreakEnded(), level_event(t)]
            continue
        if now >= t.next_break_at and t.next_break_at < (level_ends_at(t) or math.inf):
            breaks = t.definition.breaks
            assert breaks is not None
            starts = t.next_break_at
            t.clock.schedule_hourly(starts + 3600)
            events.append(hold_break(t, starts, breaks.minutes))
            continue
        if t.proposal is not None:  # the level's clock stands still while the players decide on a deal
            return None
        flight = t.definition.flight
        stops_here = flight is not None and t.level + 1 == flight.stop_level
        if t.level == len(levels) - 1 and (not stops_here or t.flight_stopping):
            return None
        level = levels[t.level]
        if level.minutes is not None:
            ends_at = t.clock.level_started_at + level.minutes * 60
            if now < ends_at:
                return None
        elif level.hands is not None and t.clock.most_hands_in_level >= level.hands:
            ends_at = now
        else:
            return None
        t.clock.restart_hands()
        return ends_at


def next_level(t: State, ended_at: float) -> list[Event]:
    """After the level that ended at ``ended_at``: a scheduled break, or the next level at once."""
    pause = break_after(t.definition, t.level)
    if pause:
        t.clock.begin_break(ended_at + pause * 60, keeps_level=False)
        return [BreakStarted(ended_at + pause * 60)]
    t.clock.next_level()
    t.clock.start_level(ended_at)
    return [level_event(t)]
