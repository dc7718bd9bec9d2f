"""Frozen records of everything that happens in a hand and in a tournament.

Each step of a hand appends one of these, so a hand can be replayed, journaled
and broadcast. They are msgspec Structs: cheap to build on the hot path and
encoded to the wire without a translation layer; the ``type`` field names the
record in JSON. Players are named by the ids the hand was started with; cards
are integers (engine.cards) and become text only at the edges.
"""

from __future__ import annotations

from typing import Literal

import msgspec


class Event(msgspec.Struct, frozen=True, tag_field="type", gc=False):
    """Base of every hand event.

    Untracked by the garbage collector (``gc=False``, which every event inherits): an event holds values and
    containers of values, never itself, so it can be in no cycle. A simulated hand builds and frees some twenty
    of them, and untracked ones cost a fifth less to make and free.
    """


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


# --------------------------------------------------------------- tournament
# The director's records (engine.director), documented for readers of
# ``mttsim simulate --events-out`` in docs/events.md.


HAND_EVENTS: tuple[type[Event], ...] = (Posted, HoleDealt, BoardDealt, Acted, Returned, Shown, PotAwarded, HandEnded)
"""What engine.hand.Hand records; every other event is the director's (docs/events.md), on the tournament's clock."""


class StatusChanged(Event, frozen=True, tag="status_changed"):
    status: Literal["waiting", "register", "running", "finished", "cancelled"]


class Registered(Event, frozen=True, tag="registered"):
    """An entry paid ``paid_cents`` (buy-in plus fee)."""

    player: str
    paid_cents: int


class Refunded(Event, frozen=True, tag="refunded"):
    """Money back to an entry: unregistration, a cancelled tournament (rules.md F.23, I.38-I.39), or a seat or a
    flight's carried pool that its target did not take (``undelivered``, engine/delivery.py).

    ``rule`` names the refund policy's rule that gave the amount, or why the
    target did not take it; player '' is the house taking back prize money it
    added.
    """

    player: str
    refund_cents: int
    reason: Literal["unregistered", "cancelled", "undelivered"]
    rule: str = ""


class Compensated(Event, frozen=True, tag="compensated"):
    """The director paid a player a compensation from the house (seed 004, Special cases), for the incident
    numbered ``incident`` if it names one."""

    player: str
    cents: int
    reason: str
    incident: int | None = None


class FailureDeclared(Event, frozen=True, tag="failure_declared"):
    """The director declared that the tournament failed and cannot go on (seed 000: buy-in and fees "manually
    refunded within 48 hours"; seed 004: a crash most players cannot play through): what happened and when
    (seconds since the epoch), the stage the refund rules judged it in, what the refunds add up to, and by when
    they are due. The cancellation's own events follow it."""

    what: str
    at: float
    stage: str
    refunds_cents: int
    due_by: float


class IncidentRecorded(Event, frozen=True, tag="incident_recorded"):
    """One player's case, examined on its own (seed 004): who, when (seconds since the epoch), what went wrong,
    and the director's decision. A compensation may name its ``number``."""

    number: int
    player: str
    what: str
    decision: str
    at: float


class PrizeWithdrawn(Event, frozen=True, tag="prize_withdrawn"):
    """The director took back (part of) a prize paid in error; ``ticket``: it was a seat (seed 004); a flight's
    ``qualification``: its share of the pool the flight carried to its final."""

    player: str
    cents: int
    reason: str
    ticket: bool
    qualification: bool = False


class SeatToppedUp(Event, frozen=True, tag="seat_topped_up"):
    """A seat worth less than its target's entry (buy-in and fee): the house added ``cents`` to it before it was
    sent, as the satellite's definition said it would (``satellite.difference``, engine/delivery.py)."""

    player: str
    cents: int
    reason: str


class QualificationWithdrawn(Event, frozen=True, tag="qualification_withdrawn"):
    """A final gave back a flight's qualification taken in error: the entry's ``chips`` leave (before the start
    with the entry; after it, when the director's removal takes them) and ``cents`` of the flights' pool go back
    to the flight (engine/flights.py)."""

    player: str
    chips: int
    cents: int


class RebuyOffered(Event, frozen=True, tag="rebuy_offered"):
    """A player who busted in the re-buy period may buy ``chips`` until ``until`` (caller's clock; F.25)."""

    player: str
    until: float
    price_cents: int
    chips: int


class RebuyTaken(Event, frozen=True, tag="rebuy_taken"):
    """``count`` is the entry's re-buys so far; ``paid_cents`` includes the fee."""

    player: str
    chips: int
    count: int
    paid_cents: int


class RebuyDeclined(Event, frozen=True, tag="rebuy_declined"):
    """The offer lapsed: the player is eliminated with the busts of the hand they lost their chips in."""

    player: str
    reason: Literal["declined", "expired", "cancelled"]


class AddOnOffered(Event, frozen=True, tag="add_on_offered"):
    """The re-buy period is over: every player may add ``chips`` once until ``until`` (F.26)."""

    until: float
    price_cents: int
    chips: int


class AddOnTaken(Event, frozen=True, tag="add_on_taken"):
    """Chips bought during a hand are added when it ends."""

    player: str
    chips: int
    paid_cents: int


class AddOnEnded(Event, frozen=True, tag="add_on_ended"):
    pass


class DealPressed(Event, frozen=True, tag="deal_pressed"):
    """A player pressed (or un-pressed) Deal; when ``pressed`` equals ``players`` the proposal follows (H.36)."""

    player: str
    on: bool
    pressed: int
    players: int


class DealAsked(Event, frozen=True, tag="deal_asked"):
    """``proposer`` proposed a deal of ``kind`` during a hand: it is on the table when the hand ends (H.36), and
    until then nobody may propose another."""

    proposer: str
    kind: Literal["icm", "chip_chop", "equal", "custom"]
    keep_cents: int = 0


class DealProposed(Event, frozen=True, tag="deal_proposed"):
    """Amounts in cents for each player left; everyone must accept before ``until``. ``kind``: ``icm``,
    ``chip_chop``, ``equal`` or ``custom``; ``keep_cents`` stays in play for the winner (a partial deal);
    ``proposer`` asked for it ('' when everyone pressed Deal), and has accepted it by asking; ``icm_cents`` what
    ICM would pay each of the same split, beside it (the stacks and both figures as the hand left them). The
    level's clock stands still until the deal is settled."""

    amounts: dict[str, int]
    stacks: dict[str, int]
    until: float
    kind: Literal["icm", "chip_chop", "equal", "custom"] = "icm"
    keep_cents: int = 0
    proposer: str = ""
    icm_cents: dict[str, int] | None = None


class DealAccepted(Event, frozen=True, tag="deal_accepted"):
    player: str


class DealPaid(Event, frozen=True, tag="deal_paid"):
    """A partial deal everyone accepted: ``amounts`` are paid now, and play goes on for ``keep_cents``, the
    winner's (rules.md H.37)."""

    amounts: dict[str, int]
    keep_cents: int


class DealRejected(Event, frozen=True, tag="deal_rejected"):
    """No deal: play continues. ``player`` is who said no ('' when nobody did: the clock ran out)."""

    player: str
    reason: Literal["rejected", "expired", "disconnected", "players_changed"]


class BountyWon(Event, frozen=True, tag="bounty_won"):
    """``victim``'s bounty shared by ``winners`` (rules.md J.40-J.43): each gets ``cash_cents`` now and adds
    ``head_cents`` to their own bounty. The winner of the tournament collects their own (victim = winner).
    """

    victim: str
    winners: tuple[str, ...]
    cash_cents: tuple[int, ...]
    head_cents: tuple[int, ...]


class MysteryBountyDrawn(Event, frozen=True, tag="mystery_bounty_drawn"):
    """A knockout drew an ``envelope`` of that many cents at random (a mystery bounty): ``winners`` share it as
    ``cash_cents``; ``envelopes_left`` remain. At the end, what no knockout drew goes to the players left
    (``victim`` '')."""

    victim: str
    winners: tuple[str, ...]
    cash_cents: tuple[int, ...]
    envelope: int
    envelopes_left: int


class FlightFinished(Event, frozen=True, tag="flight_finished"):
    """A flight stopped (rules.md L.47): every player still holding chips qualifies with ``survivors``' stacks, and
    the pool (``pool_cents``) goes to the final."""

    survivors: dict[str, int]
    pool_cents: int


class Qualified(Event, frozen=True, tag="qualified"):
    """A flight's survivor entered the final with ``stack``; ``counts`` is false when the person's other stack
    is the one that counts (L.48: best or first stack forward, never summed)."""

    player: str
    stack: int
    counts: bool


class HandVoided(Event, frozen=True, tag="hand_voided"):
    """A hand that will not finish (the tournament was cancelled, or the server crashed during it).

    Its players keep their start-of-hand stacks.
    """

    table: int
    hand: int


class Seated(Event, frozen=True, tag="seated"):
    """A player's seat at the start (the initial draw, rules.md A.1), or a late entry's (A.2)."""

    player: str
    table: int
    seat: int
    stack: int


class SeatStack(msgspec.Struct, frozen=True, gc=False):  # untracked as the events are: a dealt hand makes one a player
    player: str
    seat: int
    stack: int


class HandStarted(Event, frozen=True, tag="hand_started"):
    """``players`` are dealt in, clockwise from the first seat left of the button."""

    table: int
    hand: int
    button: int
    level: int
    players: tuple[SeatStack, ...]


class HandFinished(Event, frozen=True, tag="hand_finished"):
    table: int
    hand: int
    stacks: dict[str, int]


class PlayerEliminated(Event, frozen=True, tag="player_eliminated"):
    """``table`` is where the player last sat (its stream is the one that carries this event live)."""

    player: str
    place: int
    prize_cents: int
    table: int


class TableClosing(Event, frozen=True, tag="table_closing"):
    """A table is chosen to close (rules.md B.6): it had the fewest ``players`` seated, mid-hand or not. The
    choice stands; the table closes (``table_broken``) when its hand in progress, if any, ends."""

    table: int
    players: int
    players_left: int


class TableKept(Event, frozen=True, tag="table_kept"):
    """A table chosen to close stays open: late entries grew the field back to need it (Decision)."""

    table: int
    players_left: int


class TableBroken(Event, frozen=True, tag="table_broken"):
    """A table closed (rules.md B.5-B.8); its players' moves follow as ``player_moved``."""

    table: int
    players_left: int


class PlayerMoved(Event, frozen=True, tag="player_moved"):
    player: str
    from_table: int
    to_table: int
    seat: int
    reason: Literal["break", "balance", "director"]


class MoveQueued(Event, frozen=True, tag="move_queued"):
    """The director asked for a move while the player's table was in a hand (or a hand-for-hand round was under
    way): it is made when that hand (or round) ends, as a floor person waits for the hand (A.4)."""

    player: str
    from_table: int
    to_table: int


class QueuedMoveDropped(Event, frozen=True, tag="queued_move_dropped"):
    """A queued move not made: the director withdrew it (``reason`` "withdrawn"), or at the hand's end the rule
    ``reason`` names forbade it."""

    player: str
    to_table: int
    reason: str


class BalanceQueued(Event, frozen=True, tag="balance_queued"):
    """The director asked for the balance while the tables it would move from were in a hand (or a round was
    under way); ``on`` False: the ask was withdrawn or answered (the moves are their own events)."""

    on: bool


class EntriesMerged(Event, frozen=True, tag="entries_merged"):
    """A broken table's player found no seat away from their other entries: the stacks merge (rules.md M.51).

    ``absorbed`` leaves with the lowest open place (its own
    ``player_eliminated``); ``into`` gets its ``chips``, at once or, when in
    a hand, when that hand is settled.
    """

    absorbed: str
    into: str
    chips: int


class HandForHandStarted(Event, frozen=True, tag="hand_for_hand_started"):
    players_left: int


class HandForHandEnded(Event, frozen=True, tag="hand_for_hand_ended"):
    players_left: int


class LevelChanged(Event, frozen=True, tag="level_changed"):
    """Level numbers count from 1, as a tournament clock shows them."""

    level: int
    small_blind: int
    big_blind: int
    ante: int
    bb_ante: bool


class BreakStarted(Event, frozen=True, tag="break_started"):
    """No hand starts until ``until`` (seconds on the caller's clock)."""

    until: float


class BreakEnded(Event, frozen=True, tag="break_ended"):
    pass


class Result(msgspec.Struct, frozen=True):
    """``ticket``: the prize is a seat in the satellite's target tournament worth ``prize_cents`` (K.44)."""

    player: str
    place: int
    prize_cents: int
    ticket: bool = False


class TournamentFinished(Event, frozen=True, tag="tournament_finished"):
    """``deal`` is true when the players left agreed an ICM deal; their places then follow their stacks."""

    results: tuple[Result, ...]
    deal: bool = False


class ClockAdjusted(Event, frozen=True, tag="clock_adjusted"):
    """The director added (``seconds`` > 0) or took away time: the level or break now ends at ``ends_at``."""

    seconds: float
    ends_at: float


class LevelEdited(Event, frozen=True, tag="level_edited"):
    """The director changed level ``level`` (numbered from 1), one not yet started: it is now played so."""

    level: int
    small_blind: int
    big_blind: int
    ante: int
    minutes: float | None


class PlayerRemoved(Event, frozen=True, tag="player_removed"):
    """The director took an entry out of the tournament: its chips leave play, it has no place, and
    ``refund_cents`` (its buy-in and fee, or nothing) went back to it."""

    player: str
    table: int
    chips: int
    refund_cents: int


class Reentered(Event, frozen=True, tag="reentered"):
    """An eliminated entry's person bought a new entry, ``player``, for ``paid_cents`` (rules.md F.27): a new
    stack, a new seat (its ``seated``) and a place of its own; ``previous`` keeps the place it finished in."""

    player: str
    previous: str
    paid_cents: int


class TableOpened(Event, frozen=True, tag="table_opened"):
    """A late entry found every open table full: a new table opens with it, and balancing fills it (A.2-A.3)."""

    table: int


class EntriesClosed(Event, frozen=True, tag="entries_closed"):
    """Late registration or re-entry is over (rules.md F.24): its level ended, the field reached capacity or
    the bubble, or the re-buy period ended."""

    kind: Literal["late_registration", "reentry"]
    reason: Literal["level", "capacity", "bubble", "rebuys_over"]
