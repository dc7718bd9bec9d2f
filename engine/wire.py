"""The wire protocol: JSON messages over a websocket, as msgspec Structs (docs/protocol.md).

Incoming messages are decoded straight into these types, so a malformed one
is refused with a message naming the field before anything changes.
Outgoing messages are built once and encoded once per table; only private
messages (a player's own cards, their legal actions) are encoded per player.
"""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec

from engine.events import Event, FailureDeclared, IncidentRecorded, Result
from engine.refunds import RefundPolicy
from engine.structure import (
    AddOn, Bounty, Breaks, Final, Flight, LateRegistration, Level, Rebuys, Reentry, Satellite, TimeBank,
)


def stamped(encoded: bytes, at: float, level: int) -> bytes:
    """A director event's JSON object with the tournament clock, as docs/events.md gives it everywhere it goes
    (``mttsim simulate --events-out``, the audit trail, the table streams): ``at`` (seconds since the start) and
    ``in_level`` (the level it happened in, from 1), added to the encoded object rather than encoded again."""
    return encoded[:-1] + b',"at":%.1f,"in_level":%d}' % (at, level)


MAX_MESSAGE_BYTES = 4096
"""An incoming message longer than this closes the connection with code 1009."""


Action = Literal["fold", "check", "call", "bet", "raise", "all_in"]


class ClientMessage(msgspec.Struct, tag_field="type", forbid_unknown_fields=True):
    pass


class Act(ClientMessage, tag="act"):
    """A decision. ``amount`` is the street total to bet or raise to. ``hand`` and ``turn`` echo the
    ``your_turn`` it answers: a decision that arrives after its turn is over (a slow line, a stalled server) is
    refused as ``stale`` instead of being applied to a later turn the player has not seen. A decision without
    them is taken for the turn in progress, as before (docs/protocol.md)."""

    action: Action
    amount: Annotated[int, msgspec.Meta(ge=0)] | None = None
    hand: int | None = None
    turn: int | None = None


class Back(ClientMessage, tag="back"):
    """Stop sitting out."""


class SitOut(ClientMessage, tag="sit_out"):
    """Sit out from the next hand dealt to the player (``next_hand``), or from the next one in which they are the
    big blind (``next_big_blind``); ``null`` takes the request back. A hand in progress is played as usual."""

    when: Literal["next_hand", "next_big_blind"] | None = "next_hand"


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
    """Accept or reject the deal proposed."""

    accept: bool


class ProposeDeal(ClientMessage, tag="deal_propose"):
    """Propose a kind of deal at the final table in the money (docs/director.md): ``icm``, ``chip_chop``,
    ``equal`` or ``custom`` (with ``amounts``, cents per player left), keeping ``keep_cents`` in play for the
    winner (a partial deal)."""

    kind: Literal["icm", "chip_chop", "equal", "custom"]
    keep_cents: Annotated[int, msgspec.Meta(ge=0)] = 0
    amounts: dict[str, Annotated[int, msgspec.Meta(ge=0)]] | None = None


class Follow(ClientMessage, tag="follow"):
    """Subscribe to the tournament's board feed (its page: players, tables, payouts, results), or ask for its
    snapshot again after a gap in its numbers."""


MAX_CHAT_CHARACTERS = 200


class Say(ClientMessage, tag="say"):
    """A line of table chat, from a player to their table (observers read only)."""

    text: Annotated[str, msgspec.Meta(min_length=1, max_length=MAX_CHAT_CHARACTERS)]


MoneyMessage = Rebuy | DeclineRebuy | TakeAddOn | PressDeal | AnswerDeal | ProposeDeal
Incoming = Act | Back | SitOut | Sync | Watch | Follow | Say | MoneyMessage
incoming_decoder = msgspec.json.Decoder(Incoming)


class Error(msgspec.Struct, tag="error", tag_field="type"):
    code: str
    message: str


class Envelope(msgspec.Struct, tag="event", tag_field="type"):
    """A public event of a table's stream; ``seq`` counts up by one per table, without gaps."""

    seq: int
    table: int
    event: TableMessage
    at: float  # the server's wall clock (seconds since the epoch), for lag measurements


class Private(msgspec.Struct, tag="private", tag_field="type"):
    """A message for one player only: their hole cards, their turn, a move. Not numbered."""

    event: PrivateMessage
    at: float


# Views: what the REST API and a snapshot show of a tournament, a table and a player (server/tournament/views.py).


class DealView(msgspec.Struct, omit_defaults=True):
    """The Deal buttons pressed so far, a deal proposed during the hand (``asked_by`` and its ``kind``: on the table
    when the hand ends), or the proposal on the table (``amounts`` in cents; the level's clock stands still)."""

    pressed: list[str] | None = None
    amounts: dict[str, int] | None = None
    accepted: list[str] | None = None
    seconds: float | None = None
    kind: str | None = None
    keep_cents: int = 0
    asked_by: str | None = None


class VoidedHand(msgspec.Struct):
    table: int
    hand: int


class QueuedMove(msgspec.Struct):
    """A move the director asked for during the player's hand, made when it ends."""

    player: str
    name: str
    from_table: int
    to_table: int


class Summary(msgspec.Struct, kw_only=True):
    """A tournament in the lobby: status, level and blinds, the field, the prize pool."""

    id: str
    name: str
    status: str
    paused: bool
    starting_stack: int
    entries: int
    players_left: int
    buy_in_cents: int
    fee_cents: int
    level: int
    small_blind: int
    big_blind: int
    ante: int
    bb_ante: bool
    hand_for_hand: bool
    level_ends_in: float | None
    on_break_for: float | None
    average_stack: int | None
    largest_stack: int | None
    tables: int
    started_at: float | None
    prize_pool_cents: int
    add_on_open_for: float | None
    rebuy_period: bool
    deals: bool
    deal: DealView | None
    bounty: Bounty | None
    flight: Flight | None
    final: Final | None
    entries_per_person: int | None
    restored_at: float | None
    voided_hands: list[VoidedHand]
    rebuys: Rebuys | None  # the terms: price, fee, chips, how many, until the end of which level
    add_on: AddOn | None
    min_players: int
    registration_opens_at: float | None  # an announced tournament's times (seconds since the epoch)
    starts_at: float | None
    satellite: Satellite | None = None  # its seats' value
    # In the lobby and board feeds (server/tournament/feeds.py), the clocks as seconds since the epoch in place of the
    # seconds left above, so that a row changes only when something happens; None elsewhere and while paused.
    level_ends_at: float | None = None
    break_ends_at: float | None = None
    add_on_closes_at: float | None = None
    # Late registration and re-entry (rules.md F.24, F.27): the terms, whether each is open now, and how long
    # late registration has until its level ends (None when unknown: a level of hands before it).
    late_registration: LateRegistration | None = None
    reentry: Reentry | None = None
    late_registration_open: bool = False
    reentry_open: bool = False
    late_registration_ends_in: float | None = None
    late_registration_ends_at: float | None = None
    # A finished tournament's winner (their name; the first place of a deal), and when it finished or was
    # cancelled (seconds since the epoch); None before.
    winner: str | None = None
    finished_at: float | None = None
    time_bank: TimeBank | None = None  # the time bank's top-ups, to show beside it (None: none)
    bounty_pool_cents: int | None = None  # a bounty tournament's bounties, paid and still on heads (or envelopes)
    # The time to the next scheduled break (a clock screen shows it), and in the feeds the moment it starts.
    break_starts_in: float | None = None
    break_starts_at: float | None = None
    # Why hand-for-hand is on: the director's word, the pay jump (D.14), or let go and ending with its round.
    hand_for_hand_reason: Literal["director", "pay_jump", "ending"] | None = None
    # The director's moves and balance waiting for a hand (or a hand-for-hand round) to end (rules.md A.4).
    queued_moves: list[QueuedMove] = []
    balance_queued: bool = False
    ended_in_deal: bool = False  # the players left accepted a whole deal (H.36)
    level_after_break: int | None = None  # on a break, the level played when it ends (from 1): this one or the next


class Countdown(msgspec.Struct):
    player: str
    seconds: float
    time_bank: float


class HandSeat(msgspec.Struct):
    """One player's line of a finished hand in their list of hands: position (SB, BB, UTG ... CO, BTN), their
    hole cards (None where the viewer may not see them), the board, chips won (negative: lost), and whether they
    folded before the flop."""

    position: str
    cards: list[int] | None
    board: list[int]
    net: int
    folded_preflop: bool


class SeatView(msgspec.Struct):
    seat: int
    player: str
    name: str
    stack: int
    bet: int
    in_hand: bool
    folded: bool
    shown: list[int]
    sitting_out: bool
    bounty_cents: int | None
    connected: bool


class TableView(msgspec.Struct):
    """What anyone at or watching a table may see: no hole cards unless shown."""

    clock: Countdown | None
    id: int
    seats: list[SeatView]
    size: int
    button: int
    hand: int | None
    board: list[int]
    pot: int
    actor: str | None


class Legal(msgspec.Struct):
    can_fold: bool
    can_check: bool
    call: int
    min_raise_to: int | None
    max_raise_to: int | None


class You(msgspec.Struct):
    """A player's own view: their seat, stack, cards, legal actions and money decisions."""

    player: str
    name: str
    table: int | None
    seat: int | None
    stack: int | None
    sitting_out: bool
    time_bank: float
    result: Result | None
    hole: list[int] | None
    legal: Legal | None
    rebuy_offer: float | None
    rebuys: int
    add_on_taken: bool
    deal_pressed: bool


class RefundRow(msgspec.Struct):
    player: str
    name: str
    refund_cents: int
    fee_cents: int
    rule: str


class Standing(msgspec.Struct):
    """A finishing place: who, under which name, and what they won (``ticket``: a seat worth it)."""

    player: str
    place: int
    prize_cents: int
    ticket: bool
    name: str
    knockouts: int = 0  # the players they eliminated


class Ticket(msgspec.Struct):
    """A player this tournament sent on (a satellite's seat, a flight's survivor), and where they landed."""

    player: str
    name: str | None
    stack: int | None
    target: str | None
    entry: str | None = None  # the entry it is there: set only once the target registered it
    refused: str | None = None  # why the target did not take it; its value was then paid in cash
    refunded_cents: int = 0  # what was paid in cash instead: the whole seat or pool's share, or a seat's excess


class LevelMark(msgspec.Struct):
    """A level as it began: when (tournament seconds), the field then and its average stack in big blinds."""

    level: int
    at: float
    players_left: int
    average_bb: float


class Timeline(msgspec.Struct):
    """A tournament over time, for its pictures (docs/web.md): the field after busts and late entries, as
    ``[tournament seconds, players left]`` (a point every ``entries / 300`` changes, every change below 300
    players), and each level's beginning."""

    players: list[tuple[float, int]]
    levels: list[LevelMark]


class Details(Summary, kw_only=True):
    """``GET /api/tournaments/{id}``: the summary, the payouts, the money and every table's seats."""

    payouts_cents: list[int]  # before the start, those of the entries so far
    full_field_payouts_cents: list[int]  # if the field fills (max_players entries)
    refund_policy: RefundPolicy
    refund_terms: list[str]  # the policy in sentences, for this tournament (engine/refundterms.py)
    refunds: list[RefundRow]
    failure: FailureDeclared | None  # a failure the director declared: its stage, refunds and deadline
    incidents: list[IncidentRecorded]  # players' cases on the record
    tickets: list[Ticket]
    chips_in_play: int
    chips_issued: int
    ledger: dict[str, int]
    results: list[Standing]
    table_list: list[TableView]
    page: int = 0  # the long lists (tables, results, refunds, tickets) come a page at a time: ?page=N
    pages: int = 1
    timeline: Timeline | None = None  # None before the start


class Snapshot(msgspec.Struct, tag="snapshot", tag_field="type"):
    """Everything a client needs to draw its table; events with a larger ``seq`` follow."""

    seq: int
    tournament: Summary
    table: TableView | None
    you: You | None


# Server-side records for the table streams, beside engine.events.


class Turn(msgspec.Struct, tag="turn", tag_field="type"):
    """Whose decision it is and how long they have (action clock plus what is left of their time bank)."""

    player: str
    seconds: float
    time_bank: float


class Stage(msgspec.Struct, array_like=True, frozen=True, gc=False):
    """Where the tournament stands, as every player reads it off the lobby: what a decision near the money weighs
    (bots/strategies.py). ``next_jump``: the players left when the next bust first pays more (``paid + 1`` before
    the money, a band's edge in it; 0: none to come); zeros where nothing is known (a cash hand, a test)."""

    players_left: int = 0
    paid: int = 0  # places paid
    next_jump: int = 0
    average: int = 0  # the average stack in chips


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
    # What the whole table sees too, for a bot that plays by position and the betting (bots/strategies.py):
    players: int = 0  # dealt in this hand
    behind: int = 0  # still to act after this player on this street
    to_match: int = 0  # this street's highest bet
    turn: int = 0  # this decision's number in the hand: ``act`` echoes it, with ``hand``
    # The stacks at the table a decision weighs (the chips behind of each opponent still in the hand) and where
    # the tournament stands (``Stage``), as a player sees them: what a bot near the money needs.
    opponents: tuple[int, ...] = ()
    players_left: int = 0
    paid: int = 0
    next_jump: int = 0
    average: int = 0


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
    reason: Literal["break", "balance", "director"]


class Presence(msgspec.Struct, tag="presence", tag_field="type"):
    """A player's first connection opened, or their last one closed."""

    player: str
    connected: bool


class Offer(msgspec.Struct, tag="offer", tag_field="type"):
    """To one player: a decision with a clock. ``kind`` 'rebuy' or 'add_on' (buy ``chips`` for ``price_cents``),
    'press_deal' (a deal may be asked for or proposed: no clock) or 'deal' (accept ``amounts``, in cents, or
    not; ``deal_kind`` says which, ``keep_cents`` what stays in play for the winner, ``icm_cents`` what ICM would
    pay each, to compare).
    """

    kind: Literal["rebuy", "add_on", "press_deal", "deal"]
    seconds: float | None
    price_cents: int = 0
    chips: int = 0
    amounts: dict[str, int] | None = None
    stacks: dict[str, int] | None = None
    deal_kind: str | None = None
    keep_cents: int = 0
    icm_cents: dict[str, int] | None = None


class Chat(msgspec.Struct, tag="chat", tag_field="type"):
    """A line of table chat, to everyone at and watching the table (not numbered: not part of the game)."""

    player: str
    name: str
    text: str
    at: float


class ChatHistory(msgspec.Struct, tag="chat_history", tag_field="type"):
    """The table's latest chat lines, oldest first, after a snapshot: a reconnected or moved page reads what was
    said before it came."""

    lines: list[Chat]


class Announcement(msgspec.Struct, tag="announcement", tag_field="type"):
    """The tournament director's word, to every page of the tournament."""

    text: str
    at: float


class FeedMessage(msgspec.Struct, tag="feed", tag_field="type"):
    """A live feed (server/tournament/feeds.py): every row (``snapshot``) or the rows changed since ``seq`` - 1, a row
    gone as null."""

    feed: str
    seq: int
    snapshot: bool
    rows: dict[str, msgspec.Raw | None]


class PlayerRow(msgspec.Struct):
    """The board's players tab: a player still in, with their stack, table and bounty."""

    name: str
    stack: int
    table: int | None
    bounty_cents: int | None
    seat: int | None = None  # from 0, as the table's seats are numbered on the wire


class TableRow(msgspec.Struct):
    """The board's tables tab: a table's size and stacks, to pick one to watch."""

    id: int
    players: int
    largest: int
    smallest: int


class BoardInfo(msgspec.Struct):
    """The board's info and payouts tabs: the structure, the prizes, the money."""

    payouts_cents: list[int]
    satellite: Satellite | None
    levels: list[Level]
    level_starts: list[float | None]  # engine.structure.level_starts: the client keeps no second schedule
    breaks: Breaks | None
    action_seconds: float
    time_bank_seconds: float
    refund_policy: RefundPolicy
    chips_in_play: int
    chips_issued: int
    ledger: dict[str, int]
    refund_terms: list[str] = []  # the policy in sentences, for this tournament (engine/refundterms.py)
    full_field_payouts_cents: list[int] = []  # if the field fills (max_players entries)


class TournamentState(msgspec.Struct, tag="tournament_state", tag_field="type"):
    """Pause and resume, broadcast to every table."""

    paused: bool


TableMessage = Event | Turn | TimedOut | SittingOut | Presence | TournamentState
PrivateMessage = Event | YourTurn | Moved | Offer

encoder = msgspec.json.Encoder()


def error_message(code: str, message: str) -> bytes:
    return encoder.encode(Error(code, message))


def describe_decode_error(error: msgspec.DecodeError) -> tuple[str, str]:
    """An error code and a message naming the problem, from msgspec's own wording."""
    text = str(error)
    if isinstance(error, msgspec.ValidationError):
        return "invalid_message", text
    return "malformed_json", text
