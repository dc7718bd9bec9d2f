"""Refusals: a request the server will not carry out, with a code the wire and the REST API both carry.

Only ``server/app.py`` turns a code into an HTTP status; the websocket sends
the code and the message as an ``error`` message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from engine.director import TournamentError


class Refused(Exception):
    """A refused request: ``code`` names the kind of refusal, ``message`` the reason (the rule, when there is one)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@contextlib.contextmanager
def refusals() -> Iterator[None]:
    """The director's refusals (TournamentError, naming the rule) as Refused('refused')."""
    try:
        yield
    except TournamentError as error:
        raise Refused("refused", str(error)) from None
