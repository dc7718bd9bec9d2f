"""An announced tournament keeps its own time: registration opens, and play starts, at the definition's times
(rules.md F.23, Waiting), unless the admin has done it first."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING

from engine.director import Status
from server.errors import Refused

if TYPE_CHECKING:
    from server.tournament.runtime import TournamentRuntime

logger = logging.getLogger("mttsim.server")


def keep_time(runtime: TournamentRuntime) -> asyncio.Task[None] | None:
    """A task that opens and starts ``runtime`` on time; None when its definition sets no time still to come."""
    definition, status = runtime.definition, runtime.director.status
    if (definition.registration_opens_at is not None and status is Status.WAITING) or \
            (definition.starts_at is not None and status in (Status.WAITING, Status.REGISTER)):
        return asyncio.get_running_loop().create_task(_on_time(runtime), name=f"schedule:{runtime.id}")
    return None


async def _on_time(runtime: TournamentRuntime) -> None:
    definition = runtime.definition
    try:
        if definition.registration_opens_at is not None:
            await asyncio.sleep(max(0.0, definition.registration_opens_at - time.time()))
            if runtime.director.status is Status.WAITING:
                runtime.open_registration()
        if definition.starts_at is not None:
            await asyncio.sleep(max(0.0, definition.starts_at - time.time()))
            if runtime.director.status is Status.REGISTER:
                runtime.start()  # below min_players: cancelled and refunded, as any start
    except Refused as refusal:  # the admin acted meanwhile
        logger.info("tournament %s: %s", runtime.id, refusal.message)
