"""A clock a test steps by hand (server/tournament/clock.py's ``Clock``): a decision's clock runs out, a level ends,
when the test says so, however fast or busy the machine is."""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import Callable


class ManualTimer:
    __slots__ = ("callback", "cancelled", "handle")

    def __init__(self, callback: Callable[[], None]) -> None:
        self.callback = callback
        self.cancelled = False
        self.handle: asyncio.TimerHandle | None = None  # on a running clock: the loop's timer for the same moment

    def cancel(self) -> None:
        self.cancelled = True
        if self.handle is not None:
            self.handle.cancel()

    def fire(self) -> None:
        if not self.cancelled:
            self.cancelled = True
            self.callback()


class ManualClock:
    """Time stands still until ``advance``; the timers due by then fire in order, each at its own time, and the
    tasks they wake run before the next. With ``runs``, it also goes on with the wall between the steps (a page in
    a browser reads the wall too), and the test still jumps it forward: a decision's clock long enough never to
    run out on its own runs out when the test says."""

    def __init__(self, start: float = 1000.0, *, runs: bool = False) -> None:
        self.start = start
        self.stepped = 0.0
        self.runs = runs
        self.since = time.monotonic()
        self._timers: list[tuple[float, int, ManualTimer]] = []
        self._order = itertools.count()

    def time(self) -> float:
        return self.start + self.stepped + (time.monotonic() - self.since if self.runs else 0.0)

    def call_later(self, delay: float, callback: Callable[[], None]) -> ManualTimer:
        timer = ManualTimer(callback)
        heapq.heappush(self._timers, (self.time() + max(0.0, delay), next(self._order), timer))
        if self.runs:
            timer.handle = asyncio.get_running_loop().call_later(max(0.0, delay), timer.fire)
        return timer

    def pending(self) -> int:
        """The timers set and not yet fired nor cancelled: a decision waiting on its clock is one."""
        return sum(not timer.cancelled for *_, timer in self._timers)

    async def advance(self, seconds: float) -> None:
        """``seconds`` pass: every timer due meanwhile fires at its time, and what it wakes runs."""
        until = self.time() + seconds
        while self._timers and self._timers[0][0] <= until:
            when, _, timer = heapq.heappop(self._timers)
            if timer.cancelled:
                continue
            self.stepped += max(0.0, when - self.time())
            timer.fire()
            await settled()
        self.stepped += max(0.0, until - self.time())
        if self.runs:  # the loop's timers of those still to come, moved as much sooner
            for when, _, timer in self._timers:
                if not timer.cancelled and timer.handle is not None:
                    timer.handle.cancel()
                    timer.handle = asyncio.get_running_loop().call_later(max(0.0, when - self.time()), timer.fire)
        await settled()


async def settled(turns: int = 5) -> None:
    """A few turns of the event loop: the tasks a timer woke run, and those they wake in turn."""
    for _ in range(turns):
        await asyncio.sleep(0)


async def run_out(clock: ManualClock, seconds: float, timeout: float = 20.0) -> None:
    """The decision waiting on ``clock`` (once its table has set its timer) is given ``seconds`` more than it has:
    its clock runs out now."""
    deadline = asyncio.get_running_loop().time() + timeout
    while not clock.pending():
        assert asyncio.get_running_loop().time() < deadline, "no decision waits on the clock"
        await asyncio.sleep(0.01)
    await clock.advance(seconds)
