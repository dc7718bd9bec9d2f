"""The tournament clock: seconds of play since the start, the time paused left out."""

from __future__ import annotations

import time


class TournamentClock:
    """Tournament seconds on the monotonic clock; a restored tournament resumes where its clock stood."""

    def __init__(self) -> None:
        self._started_at = 0.0
        self._paused_at: float | None = None
        self._paused_total = 0.0

    @property
    def started(self) -> bool:
        return self._started_at != 0.0

    def start(self, at: float = 0.0) -> None:
        """Run from ``at`` tournament seconds (0 at the start; where it stood, after a restore)."""
        self._started_at = time.monotonic() - at

    def pause(self) -> None:
        self._paused_at = time.monotonic()

    def resume(self) -> None:
        if self._paused_at is not None:
            self._paused_total += time.monotonic() - self._paused_at
            self._paused_at = None

    def now(self) -> float:
        """Tournament seconds: the wall clock since the start, minus pauses."""
        if self._started_at == 0.0:
            return 0.0
        paused = self._paused_total + (time.monotonic() - self._paused_at if self._paused_at is not None else 0.0)
        return time.monotonic() - self._started_at - paused
