"""The wire protocol: JSON messages over a websocket, as msgspec Structs (docs/protocol.md).

Incoming messages are decoded straight into these types, so a malformed one
is refused with a message naming the field before anything changes.
Outgoing messages are built once and encoded once per table; only private
messages (a player's own cards, their legal actions) are encoded per player.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

import msgspec

MAX_MESSAGE_BYTES = 4096
"""An incoming message longer than this closes the connection with code 1009."""


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    pass


class Act(ClientMessage, tag="act"):
    """A decision. ``amount`` is the street total to bet or raise to."""

    action: Literal["fold", "check", "call", "bet", "raise", "all_in"]
    amount: Annotated[int, msgspec.Meta(ge=0)] | None = None


class Back(ClientMessage, tag="back"):
    """Stop sitting out."""


class Sync(ClientMessage, tag="sync"):
    """Ask for a fresh snapshot (after a gap in the event numbers)."""


class Watch(ClientMessage, tag="watch"):
    """Observers: switch to another table."""

    table: int


class Rebuy(ClientMessage, tag="rebuy"):
    """Answer a re-buy offer with yes, or re-buy a short stack between hands when the tournament allows it."""


class DeclineRebuy(ClientMessage, tag="decline_rebuy"):
    """Say no to a re-buy offer now rather than let it expire."""


class TakeAddOn(ClientMessage, tag="add_on"):
    """Buy the add-on while it is offered."""


class PressDeal(ClientMessage, tag="deal"):
    """Press (``on``) or un-press the Deal button at the final table."""

    on: bool = True


class AnswerDeal(ClientMessage, tag="deal_answer"):
    """Accept or reject the ICM proposal."""

    accept: bool


MoneyMessage = Rebuy | DeclineRebuy | TakeAddOn | PressDeal | AnswerDeal
Incoming = Act | Back | Sync | Watch | MoneyMessage
incoming_decoder = msgspec.json.Decoder(Incoming)


class Error(msgspec.Struct, tag="error", tag_field="type"):
    code: str
    message: str


class Envelope(msgspec.Struct, tag="event", tag_field="type"):
    """A public event of a table's stream; ``seq`` counts up by one per table, without gaps."""

    seq: int
    table: int
    event: Any
    at: float  # the server's wall clock (seconds since the epoch), for lag measurements


class Private(msgspec.Struct, tag="private", tag_field="type"):
    """A message for one player only: their hole cards, their turn, a move. Not numbered."""

    event: Any
    at: float


class Snapshot(msgspec.Struct, tag="snapshot", tag_field="type"):
    """Everything a client needs to draw its table; events with a larger ``seq`` follow."""

    seq: int
    tournament: dict[str, Any]
    table: dict[str, Any] | None
    you: dict[str, Any] | None


# Server-side records for the table streams, beside engine.events.


class Turn(msgspec.Struct, tag="turn", tag_field="type"):
    """Whose decision it is and how long they have (action clock plus what is left of their time bank)."""

    player: str
    seconds: float
    time_bank: float


class YourTurn(msgspec.Struct, tag="your_turn", tag_field="type"):
    """To the player to act: the legal actions and what a bot needs to decide without keeping state."""

    hand: int
    can_fold: bool
    can_check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None
    seconds: float
    hole: tuple[int, ...]
    board: tuple[int, ...]
    pot: int
    stack: int
    big_blind: int


class TimedOut(msgspec.Struct, tag="timed_out", tag_field="type"):
    """The clock acted for a player (rules.md E.19); they are sitting out until they act or say back."""

    player: str
    action: Literal["check", "fold"]


class SittingOut(msgspec.Struct, tag="sitting_out", tag_field="type"):
    player: str
    sitting_out: bool


class Moved(msgspec.Struct, tag="moved", tag_field="type"):
    """To the moved player: where they sit now and why; a snapshot of the new table follows."""

    from_table: int
    to_table: int
    seat: int
    reason: Literal["break", "balance"]


class Presence(msgspec.Struct, tag="presence", tag_field="type"):
    """A player's first connection opened, or their last one closed."""

    player: str
    connected: bool


class Offer(msgspec.Struct, tag="offer", tag_field="type"):
    """To one player: a decision with a clock. ``kind`` 'rebuy' or 'add_on' (buy ``chips`` for ``price_cents``),
    'press_deal' (a deal may be asked for: no clock) or 'deal' (accept ``amounts``, in cents, or not).
    """

    kind: Literal["rebuy", "add_on", "press_deal", "deal"]
    seconds: float | None
    price_cents: int = 0
    chips: int = 0
    amounts: dict[str, int] | None = None
    stacks: dict[str, int] | None = None


class TournamentState(msgspec.Struct, tag="tournament_state", tag_field="type"):
    """Pause and resume, broadcast to every table."""

    paused: bool


encoder = msgspec.json.Encoder()


def error_message(code: str, message: str) -> bytes:
    return encoder.encode(Error(code, message))


def describe_decode_error(error: msgspec.DecodeError) -> tuple[str, str]:
    """An error code and a message naming the problem, from msgspec's own wording."""
    text = str(error)
    if isinstance(error, msgspec.ValidationError):
        return "invalid_message", text
    return "malformed_json", text
