"""Refusals: a request the server will not carry out, with a code the wire and the REST API both carry.

Only ``server/api/app.py`` turns a code into an HTTP status; the websocket sends
the code and the message as an ``error`` message.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Literal, TypeAlias

from engine.director import TournamentError


# Every code a refusal may carry, so that mypy refuses a typo where it is written (it was a KeyError, so a 500,
# where server/api/app.py looks its HTTP status up); tests/test_server_rest.py checks each has a status.
Code: TypeAlias = Literal[
    "bad_request", "bad_definition", "admin_only", "bad_token", "observer", "no_tournament", "no_finished_hand",
    "no_table", "refused", "not_running", "not_paused", "player_cannot_watch", "no_hand", "not_your_turn", "stale",
    "not_yet", "illegal_action", "name_taken", "too_large", "too_many_connections", "chat_limit", "damaged",
    "unavailable",
]


class Refused(Exception):
    """A refused request: ``code`` names the kind of refusal, ``message`` the reason (the rule, when there is one)."""

    def __init__(self, code: Code, message: str) -> None:
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
