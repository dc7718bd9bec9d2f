"""A hand costs the director the same work in a small field and a large one (docs/performance.md).

The director's per-hand, per-bust and per-move work must not grow with the
number of tables or players. Timing cannot show that in a test (the machine
may be busy), so the test counts work instead: the lines of Python the
director and its seating run while a window of hands ends, per hand, in a
field of 1,000 and one of 20,000, which differ twenty-fold. The count is made
in a process that runs the engine from its source, since the compiled
modules (setup.py) run no line a trace can see. A scan of every
table or player per hand, bust or move shows as a ratio near twenty; the
margin allows the logarithmic costs and the ordinary variation between the
hands of two tournaments.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import FrameType
from typing import Any

from engine.events import HandFinished
from engine.structure import default_definition
from bots.simulator import simulate
from tests.source_only import run_from_source
from tests.tournaments import FAST_MIX

DIRECTOR_FILES = {str(Path(__file__).resolve().parents[1] / "engine" / name)
                  for name in ("director.py", "seating.py", "table.py", "fenwick.py", "money.py")}


class WindowPlayed(Exception):
    """The counted stretch is over: the rest of the tournament need not be played."""


def director_lines_per_hand(players: int) -> float:
    """Lines the director runs per hand while the field goes from 90% to 80% of its entries.

    The window is the same stretch of the tournament at any size (the same
    levels, the same rate of busts per hand), and its hands end in the
    middle of play, away from the start's draw and the finish.
    """
    lines = 0
    hands = 0

    def local(frame: FrameType, event: str, arg: Any) -> Any:
        nonlocal lines
        if event == "line":
            lines += 1
        return local

    def calls(frame: FrameType, event: str, arg: Any) -> Any:
        return local if frame.f_code.co_filename in DIRECTOR_FILES else None

    def on_event(tournament: Any, event: Any, at: float) -> None:
        nonlocal hands
        if isinstance(event, HandFinished):
            left = tournament.players_left
            if left <= players * 0.90 and sys.gettrace() is None and not hands:
                sys.settrace(calls)
            if sys.gettrace() is calls:
                hands += 1
                if left <= players * 0.80:
                    sys.settrace(None)
                    raise WindowPlayed

    previous = sys.gettrace()
    sys.settrace(None)
    try:
        simulate(default_definition(players), players, seed=3, on_event=on_event, mix=FAST_MIX)
    except WindowPlayed:
        pass
    finally:
        sys.settrace(previous)
    assert hands > 100, "the window was not played"
    return lines / hands


def test_a_hand_costs_the_director_no_more_in_a_field_twenty_times_larger():
    counted = "from tests.test_director_scaling import director_lines_per_hand as count\n"
    small, large = (float(run_from_source(counted + f"print(count({players}))")) for players in (1_000, 20_000))
    assert small > 50, "the count saw the director's work"
    # Logarithmic costs (the Fenwick trees) grow by about log(2,223 tables) / log(112 tables), 1.6x.
    assert large < 2.5 * small, f"{large:.0f} lines per hand at 20,000 players, {small:.0f} at 1,000"
