"""The server's time: a ``Clock`` given to whatever reads it (the decisions' clocks, the tournament clock, the
hand-for-hand barrier's measure), and the tournament clock built on it.

The server runs on the event loop's time (``LoopClock``). A test gives its own
clock and steps it (tests/clocks.py): a decision's clock runs out, or a level
ends, when the test says so, whatever the machine's speed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Protocol


class Timer(Protocol):
    def cancel(self) -> None: ...


class Clock(Protocol):
    """Monotonic seconds, and a timer on them."""

    def time(self) -> float: ...

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        """``callback`` once ``delay`` seconds of this clock have passed (on the running event loop)."""


class LoopClock:
    """The event loop's time, which is the monotonic clock's (asyncio's, and uvloop's)."""

    def time(self) -> float:
        return time.monotonic()

    def call_later(self, delay: float, callback: Callable[[], None]) -> Timer:
        return asyncio.get_running_loop().call_later(delay, callback)


class TournamentClock:
    """Tournament seconds on ``clock``; a restored tournament resumes where its clock stood."""

    def __init__(self, clock: Clock) -> None:
        self._clock = clock
        self._started_at = 0.0
        self._paused_at: float | None = None
        self._paused_total = 0.0

    @property
    def started(self) -> bool:
        return self._started_at != 0.0

    def start(self, at: float = 0.0) -> None:
        """Run from ``at`` tournament seconds (0 at the start; where it stood, after a restore)."""
        self._started_at = self._clock.time() - at

    def pause(self) -> None:
        self._paused_at = self._clock.time()

    def resume(self) -> None:
        if self._paused_at is not None:
            self._paused_total += self._clock.time() - self._paused_at
            self._paused_at = None

    def now(self) -> float:
        """Tournament seconds: the time since the start, minus pauses."""
        if self._started_at == 0.0:
            return 0.0
        now = self._clock.time()
        paused = self._paused_total + (now - self._paused_at if self._paused_at is not None else 0.0)
        return now - self._started_at - paused
