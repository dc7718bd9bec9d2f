"""Who the entries are: their names, their tokens (kept as hashes), their time banks and the server's own bots.

The one place that mints entry ids (``p1``, ``p2``, ...): registration,
a satellite's seats and a flight's survivors all take the next one here.
"""

from __future__ import annotations

import hashlib

from engine.wire import Ticket
from server.tournament.names import skeletons


def token_key(token: str) -> str:
    """How a player token is kept (in memory and in the journal): its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


class Entries:
    """The server's facts about a tournament's entries, beside the director's."""

    def __init__(self, time_bank_seconds: float) -> None:
        self.time_bank_seconds = time_bank_seconds
        self.names: dict[str, str] = {}
        self.looks: dict[str, str] = {}  # each skeleton of a name -> its first entry (server/tournament/names.py)
        self.tokens: dict[str, str] = {}  # token_key(token) -> player id
        self.time_bank: dict[str, float] = {}
        self.bots: dict[str, tuple[str, str, float, float]] = {}  # player -> strategy tag, token, think range
        self.bot_reentry: dict[str, float] = {}  # a bot -> the chance it re-enters once out, where not 0
        self.next_number = 0  # the largest entry number given so far
        # The players this tournament sent on (a satellite's seats, a flight's survivors), once, at its end: kept
        # with its final state, so that a correction after a restart still finds where a seat went.
        self.tickets: list[Ticket] = []

    def load(self, names: dict[str, str], tokens: dict[str, str], bots: dict[str, tuple[str, str, float, float]],
             time_bank: dict[str, float], next_number: int, bot_reentry: dict[str, float],
             tickets: list[Ticket]) -> None:
        self.names, self.tokens, self.bots, self.time_bank = names, tokens, bots, time_bank
        self.tickets = tickets
        self.looks = {}
        for player, name in names.items():
            self.looked(player, name)
        self.bot_reentry = bot_reentry
        self.next_number = next_number

    def mint(self) -> str:
        """The id the next entry will get (it is taken once its record is applied)."""
        return f"p{self.next_number + 1}"

    def add(self, player: str, name: str, key: str, *, claim_token: bool = True) -> None:
        """An entry's name, its token (by key) and its full time bank; a person's further entry under the
        same token leaves the token with their first (it reaches the others by ``?entry=``)."""
        self.names[player] = name
        self.looked(player, name)
        if claim_token:
            self.tokens[key] = player
        self.time_bank[player] = self.time_bank_seconds
        self.saw(player)

    def saw(self, player: str) -> None:
        """``player``'s number is taken, whether or not it became an entry of its own."""
        self.next_number = max(self.next_number, int(player[1:]))

    def player_for(self, token: str) -> str | None:
        return self.tokens.get(token_key(token))

    def player_for_key(self, key: str) -> str | None:
        return self.tokens.get(key)

    def name(self, player: str) -> str:
        return self.names.get(player, player)

    def looked(self, player: str, name: str) -> None:
        for looks in skeletons(name):
            self.looks.setdefault(looks, player)

    def looking_like(self, name: str) -> str | None:
        """The entry whose name looks the same as ``name`` (a skeleton in common), if any."""
        return next((self.looks[looks] for looks in skeletons(name) if looks in self.looks), None)
