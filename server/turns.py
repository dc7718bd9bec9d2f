"""What one turn of the event loop queues, handed on together at its end: the one "queue now, flush once" helper.

A batch of a thousand tables' messages costs one bus message, a round's
two thousand deals one request, a hand-for-hand round's ends one look for
the tables to deal. Whoever queues never waits: the batch leaves in a later
callback of the same loop (``call_soon``), or at once when it reaches its
``limit`` (a size the bus or the director must not be asked to take whole).

``beat`` is the other loop every process role runs: a heartbeat.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Generic, TypeVar

T = TypeVar("T")


class TurnBatch(Generic[T]):
    """Items queued during one turn of the loop, given to ``flush_to`` in order, once.

    ``limit`` (in the units of ``add``'s ``size``) hands the batch on at once when reached.
    """

    __slots__ = ("flush_to", "limit", "items", "size")

    def __init__(self, flush_to: Callable[[list[T]], None], limit: int | None = None) -> None:
        self.flush_to = flush_to
        self.limit = limit
        self.items: list[T] = []
        self.size = 0

    def add(self, item: T, size: int = 1) -> None:
        if not self.items:
            asyncio.get_running_loop().call_soon(self.flush)
        self.items.append(item)
        self.size += size
        if self.limit is not None and self.size >= self.limit:
            self.flush()

    def grow(self, size: int) -> None:
        """The last item queued grew by ``size`` (a line joined a frame)."""
        self.size += size
        if self.limit is not None and self.size >= self.limit:
            self.flush()

    def flush(self) -> None:
        """Hand on what is queued now (nothing, when a limit flushed it already)."""
        if not self.items:
            return
        items, self.items, self.size = self.items, [], 0
        self.flush_to(items)

    def __len__(self) -> int:
        return len(self.items)


async def beat(seconds: float, work: Callable[[], Awaitable[None]], failed: str, logger: logging.Logger) -> None:
    """``work`` every ``seconds`` until cancelled; a failure (a bus reconnecting) is logged and the next beat tries
    again."""
    while True:
        try:
            await work()
        except Exception:
            logger.warning("%s", failed, exc_info=True)
        await asyncio.sleep(seconds)
