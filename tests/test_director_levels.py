"""Blind levels by the caller's clock or by hands, and breaks."""

from __future__ import annotations

import pytest

from engine.director import TournamentError
from engine.events import BreakEnded, BreakStarted, LevelChanged
from engine.structure import Breaks, Level
from tests.tournaments import deal, hand, play_out, running

MINUTE_LEVELS = [Level(10, 20, minutes=1), Level(20, 40, ante=5, minutes=1), Level(50, 100, minutes=1)]


def test_levels_follow_the_clock_and_the_last_one_lasts():
    tournament, dealer = running(4, 4, levels=MINUTE_LEVELS)
    assert tournament.advance(59.9) == []
    assert tournament.advance(60) == [LevelChanged(2, 20, 40, 5, False)]
    deal(tournament, dealer, 1)
    assert (tournament.hand(1).small_blind, tournament.hand(1).big_blind, tournament.hand(1).ante) == (20, 40, 5)
    assert tournament.advance(10_000) == [LevelChanged(3, 50, 100, 0, False)]
    assert tournament.advance(20_000) == []


def test_a_late_clock_catches_up_level_by_level():
    tournament, _ = running(4, 4, levels=MINUTE_LEVELS)
    assert [e.level for e in tournament.advance(150)] == [2, 3]


def test_breaks_stop_new_hands_and_the_next_level_starts_when_the_break_ends():
    tournament, dealer = running(4, 4, levels=MINUTE_LEVELS, breaks=Breaks(every_levels=1, minutes=5))
    deal(tournament, dealer, 1)
    assert tournament.advance(60) == [BreakStarted(360.0)]
    play_out(tournament, 1)  # the hand in progress finishes
    tournament.end_hand(1)
    assert tournament.tables_ready() == []
    with pytest.raises(TournamentError, match="break"):
        tournament.start_hand(1)
    assert tournament.advance(359) == []
    assert tournament.advance(360) == [BreakEnded(), LevelChanged(2, 20, 40, 5, False)]
    assert tournament.tables_ready() == [1]
    assert tournament.advance(419) == []
    assert tournament.advance(420) == [BreakStarted(720.0)]


def test_levels_by_hands_end_when_a_table_has_dealt_that_many():
    levels = [Level(10, 20, hands=2), Level(25, 50, bb_ante=True, ante=50, hands=2)]
    tournament, dealer = running(4, 4, levels=levels)
    hand(tournament, dealer, 1)
    assert tournament.advance(0) == []
    hand(tournament, dealer, 1)
    assert tournament.advance(0) == [LevelChanged(2, 25, 50, 50, True)]
    deal(tournament, dealer, 1)
    assert tournament.hand(1).bb_ante


def test_the_next_break_is_known_ahead_for_a_clock_to_show():
    levels = MINUTE_LEVELS + [Level(100, 200, minutes=1), Level(200, 400, hands=3), Level(400, 800, minutes=1)]
    tournament, _ = running(4, 4, levels=levels, breaks=Breaks(every_levels=2, minutes=5))
    assert tournament.break_starts_at() == 120  # after level 2, whose end is a minute after level 1's
    assert tournament.advance(120) == [LevelChanged(2, 20, 40, 5, False), BreakStarted(420.0)]
    assert tournament.break_starts_at() is None  # on a break now
    assert [type(e) for e in tournament.advance(420)] == [BreakEnded, LevelChanged]
    assert tournament.break_starts_at() == 540  # level 3 and 4, a minute each
    assert tournament.advance(540)[-1] == BreakStarted(840.0)
    tournament.advance(840)
    assert tournament.level == 4 and tournament.break_starts_at() is None  # a level of hands first: no clock knows
    hourly, _ = running(4, 4, levels=[Level(10, 20, minutes=30)] * 4, breaks=Breaks(at_minute=55, minutes=5))
    assert hourly.break_starts_at() == 55 * 60
    assert running(4, 4, levels=MINUTE_LEVELS)[0].break_starts_at() is None  # no breaks at all


def test_a_break_row_after_a_level_is_held_there_with_or_without_the_scheduled_breaks():
    """A director's break row (a level's ``break_minutes``) is a break after that level alone; with
    every-N-levels breaks as well, a level that has both takes both."""
    from engine.structure import level_starts

    rows = [Level(10, 20, minutes=1), Level(20, 40, minutes=1, break_minutes=7), Level(50, 100, minutes=1),
            Level(100, 200, minutes=1)]
    tournament, _ = running(4, 4, levels=rows)
    assert tournament.break_starts_at() == 120  # after level 2
    assert tournament.advance(120) == [LevelChanged(2, 20, 40, 0, False), BreakStarted(540.0)]
    assert [type(e) for e in tournament.advance(540)] == [BreakEnded, LevelChanged]
    assert tournament.level == 2 and tournament.break_starts_at() is None  # no more break rows
    both, _ = running(4, 4, levels=rows, breaks=Breaks(every_levels=2, minutes=5))
    assert both.advance(120)[-1] == BreakStarted(120 + 12 * 60)  # the row's 7 and the schedule's 5
    definition = both.definition
    assert level_starts(definition) == [0, 1, 14, 15]  # minutes on the clock, the breaks included
