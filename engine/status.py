"""A tournament's status (rules.md F.23) and the error every refused command raises."""

from __future__ import annotations

import enum


class Status(enum.StrEnum):
    WAITING = "waiting"
    REGISTER = "register"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class TournamentError(ValueError):
    """A command the tournament rules do not allow now; the message names the rule."""
