"""Frozen records of everything that happens in a hand.

Each step of a hand appends one of these, so a hand can be replayed, journaled
and broadcast. They are msgspec Structs: cheap to build on the hot path and
encoded to the wire without a translation layer; the ``type`` field names the
record in JSON. Players are named by the ids the hand was started with; cards
are integers (engine.cards) and become text only at the edges.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class Event(msgspec.Struct, frozen=True, tag_field="type"):
    """Base of every hand event."""


class Posted(Event, frozen=True, tag="posted"):
    """A forced bet: an ante (dead), a blind (live), or the big blind's ante (dead)."""

    player: str
    kind: Literal["ante", "small_blind", "big_blind", "big_blind_ante"]
    amount: int


class HoleDealt(Event, frozen=True, tag="hole_dealt"):
    """Two private cards; the server shows them only to their owner until showdown."""

    player: str
    cards: tuple[int, ...]


class BoardDealt(Event, frozen=True, tag="board_dealt"):
    street: Literal["flop", "turn", "river"]
    cards: tuple[int, ...]


class Acted(Event, frozen=True, tag="acted"):
    """A decision. ``amount`` is the chips added now, ``to`` the player's bet on this street after it."""

    player: str
    action: Literal["fold", "check", "call", "bet", "raise"]
    amount: int
    to: int
    all_in: bool


class Returned(Event, frozen=True, tag="returned"):
    """An uncalled bet (or unmatched ante) given back before the pot is settled."""

    player: str
    amount: int


class Shown(Event, frozen=True, tag="shown"):
    player: str
    cards: tuple[int, ...]


class PotAwarded(Event, frozen=True, tag="pot_awarded"):
    """One pot (main first, then side pots) and who won what; odd chips already placed.

    ``eligible`` are the hands still contending for it: at showdown a hand
    that can win no pot is mucked first, and pots left with the same
    contenders are one pot (docs/engine.md).
    """

    pot: int
    amount: int
    eligible: tuple[str, ...]
    winners: tuple[str, ...]
    shares: tuple[int, ...]


class HandEnded(Event, frozen=True, tag="hand_ended"):
    """Final stacks, in the hand's player order."""

    stacks: tuple[int, ...]
