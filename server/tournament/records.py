"""The commands a tournament is driven by, as they are journaled, and the one place they are applied.

A record is what reaches the director (and the few facts the server keeps
beside it: names, token hashes, time banks, the clock): from the wire, the
clocks, the server's own bots, a satellite or flight sending players on, or a
restore. Each is a msgspec Struct encoded as an array whose first element is
its tag (``["act", 3, "call", None, "p7", 28.5]``), so the journal's bytes are
those of the lists the server wrote before records were typed.

Adding to the format: a record may gain trailing fields with defaults (an
older record decodes with the default); an event may gain fields (a replay
compares the fields both versions know, server/tournament/persistence.py). Anything else
is a new record kind.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine import deals, wire
from engine.director import Tournament
from engine.events import Event, LevelChanged
from engine.refunds import RefundPolicy
from server.tournament.entries import Entries
from server.tournament.remote import Act

__all__ = ["Act"]  # a record, defined with what a cluster's worker hands back (server/tournament/remote.py)


class Record(msgspec.Struct, array_like=True, tag=True):
    """One journaled command."""


class Advance(Record, tag="advance"):
    now: float


class StartHand(Record, tag="start_hand"):
    table: int


class EndHand(Record, tag="end_hand"):
    table: int


class VoidHand(Record, tag="void"):
    table: int


class Register(Record, tag="register"):
    """A new entry: its id, its name and its token's hash; ``person`` groups a person's entries (M.50)."""

    player: str
    name: str
    key: str
    person: str | None = None


class Reenter(Record, tag="reenter"):
    """An eliminated entry's person buys ``player``, a new entry under the same name and token (rules.md F.27)."""

    previous: str
    player: str
    name: str
    key: str


class Qualify(Record, tag="qualify"):
    """A flight's survivor entering its final with their stack (L.47)."""

    player: str
    name: str
    key: str
    stack: int


class CarryIn(Record, tag="carry_in"):
    """A flight's pool joining its final, with the flight's number of entries (added since: 0 in older records)."""

    cents: int
    entries: int = 0


class HostBot(Record, tag="bot"):
    """An entry played by the server's own bot, brought back after a restore."""

    player: str
    strategy: str
    token: str
    think_min: float
    think_max: float


class BotReentry(Record, tag="bot_reentry"):
    """The chance that a hosted bot, once out, re-enters (a record of its own: ``bot`` records keep their bytes)."""

    player: str
    chance: float


class OpenRegistration(Record, tag="open"):
    """An announced (Waiting) tournament opens for registration (rules.md F.23)."""


# The director's console's records carry ``wall``, when it was done in seconds since the epoch, for the log of
# the director's actions (server/tournament/director_log.py); records journaled before it was kept read 0.


class Compensate(Record, tag="compensate"):
    player: str
    cents: int
    reason: str
    wall: float = 0.0
    incident: int | None = None  # the incident on the record it is for


class DeclareFailure(Record, tag="declare_failure"):
    """The tournament failed and cannot resume (``at``: seconds since the epoch): cancelled by its policy, on
    the record, its refunds due within ``due_hours``."""

    what: str
    at: float
    due_hours: float = 48.0
    policy: RefundPolicy | None = None


class RecordIncident(Record, tag="incident"):
    """One player's case and the director's decision (``at``: seconds since the epoch)."""

    player: str
    what: str
    decision: str
    at: float


class WithdrawPrize(Record, tag="withdraw_prize"):
    player: str
    cents: int
    reason: str
    wall: float = 0.0


class ReturnSeat(Record, tag="return_seat"):
    """``cents`` of a seat paid in cash instead: its target did not take it, or it is worth more than the target's
    entry (engine/delivery.py)."""

    player: str
    cents: int
    reason: str


class TopUpSeat(Record, tag="top_up_seat"):
    """The house adds ``cents`` to a seat worth less than its target's entry (``satellite.difference``)."""

    player: str
    cents: int
    reason: str


class ReturnPool(Record, tag="return_pool"):
    """A flight's carried pool, which its final did not take, to its survivors in cash (engine/delivery.py)."""

    reason: str


class WithdrawQualified(Record, tag="withdraw_qualified"):
    """A final gives back a flight's qualification withdrawn as given in error, and ``cents`` of the pool."""

    player: str
    cents: int


class AdjustClock(Record, tag="adjust_clock"):
    """The director's console (engine/console.py): time added to or taken from the level or break."""

    seconds: float
    wall: float = 0.0


class CallBreak(Record, tag="call_break"):
    now: float
    minutes: float
    wall: float = 0.0


class ForceHandForHand(Record, tag="force_hand_for_hand"):
    on: bool
    wall: float = 0.0


class RemovePlayer(Record, tag="remove_player"):
    player: str
    refund: bool
    wall: float = 0.0


class EditLevel(Record, tag="edit_level"):
    """A level not yet started (numbered from 1) as the director set it; ``minutes`` None keeps its length."""

    level: int
    small_blind: int
    big_blind: int
    ante: int
    minutes: float | None
    wall: float


class MovePlayer(Record, tag="move_player"):
    player: str
    table: int
    wall: float


class BalanceNow(Record, tag="balance_now"):
    wall: float


class WithdrawMove(Record, tag="withdraw_move"):
    """The director took back a move queued for the end of the player's hand."""

    player: str
    wall: float


class WithdrawBalance(Record, tag="withdraw_balance"):
    wall: float


class ConsoleRefused(Record, tag="console_refused"):
    """A console command the director refused, with its reason: it changed nothing, and is journaled only so
    that the director's log shows every refusal beside what was done."""

    action: str
    player: str | None
    reason: str
    wall: float


class SitOutPlayer(Record, tag="sit_out_player"):
    """The director sat a player out: the tables' business (the director's state is unchanged), journaled for
    the log."""

    player: str
    wall: float


class Announce(Record, tag="announce"):
    """A message from the director to every table, journaled for the log."""

    text: str
    wall: float


class Start(Record, tag="start"):
    now: float
    wall: float  # seconds since the epoch, for the lobby


class Pause(Record, tag="pause"):
    now: float
    wall: float = 0.0


class Resume(Record, tag="resume"):
    now: float
    wall: float = 0.0


class Cancel(Record, tag="cancel"):
    """``entry_cents`` (added since: 0 in older records): a satellite's refunds as entries at that price."""

    policy: RefundPolicy | None
    entry_cents: int = 0


class Unregister(Record, tag="unregister"):
    player: str


class Rebuy(Record, tag="rebuy"):
    player: str


class DeclineRebuy(Record, tag="decline_rebuy"):
    player: str


class AddOn(Record, tag="add_on"):
    player: str


class PressDeal(Record, tag="press_deal"):
    player: str
    on: bool


class ProposeDeal(Record, tag="propose_deal"):
    player: str
    kind: deals.Kind
    keep_cents: int
    amounts: dict[str, int] | None


class AcceptDeal(Record, tag="accept_deal"):
    player: str


class RejectDeal(Record, tag="reject_deal"):
    player: str
    reason: str


AnyRecord = (Act | Advance | StartHand | EndHand | VoidHand | Register | Qualify | CarryIn | HostBot | Start | Pause
             | Resume | Cancel | Unregister | Rebuy | DeclineRebuy | AddOn | PressDeal | AcceptDeal | RejectDeal
             | OpenRegistration | Compensate | DeclareFailure | RecordIncident | WithdrawPrize | AdjustClock | CallBreak
             | ForceHandForHand
             | RemovePlayer | Reenter | ProposeDeal | BotReentry | EditLevel | MovePlayer | BalanceNow | SitOutPlayer
             | Announce | WithdrawMove | WithdrawBalance | ConsoleRefused | ReturnSeat | TopUpSeat | ReturnPool
             | WithdrawQualified)
# Records after which a table may deal (or must stop): the tables the director calls ready are woken.
# A hand's deal and decisions: recorded by whoever plays the hand, which routes their events to its table.
HAND_RECORDS = (StartHand, Act)
WAKING = (Register, Reenter, EndHand, VoidHand, Resume, Rebuy, DeclineRebuy, AddOn, PressDeal, ProposeDeal, AcceptDeal,
          RejectDeal, AdjustClock, CallBreak, ForceHandForHand, RemovePlayer, MovePlayer, BalanceNow, WithdrawQualified)


class Session:
    """What the records build: the director, and the server's facts about its entries and its clock.

    Its attributes are a snapshot's contents (server/tournament/persistence.py pickles
    them under these names).
    """

    __slots__ = ("director", "entries", "paused", "last_now", "started_wall", "finished_wall")

    def __init__(self, director: Tournament, entries: Entries) -> None:
        self.director = director
        self.entries = entries
        self.paused = False
        self.last_now = 0.0  # the newest tournament clock value a command was given
        self.started_wall: float | None = None
        self.finished_wall: float | None = None  # when it finished or was cancelled (seconds since the epoch)

    def state(self) -> dict[str, Any]:
        """The snapshot's dictionary (the keys of every snapshot written so far)."""
        entries = self.entries
        return {"director": self.director, "names": entries.names, "tokens": entries.tokens, "bots": entries.bots,
                "bot_reentry": entries.bot_reentry,
                "time_bank": entries.time_bank, "paused": self.paused, "last_now": self.last_now,
                "next_player": entries.next_number, "started_wall": self.started_wall,
                "finished_wall": self.finished_wall, "tickets": entries.tickets}

    def load(self, state: dict[str, Any]) -> None:
        self.director = state["director"]
        self.entries.load(state["names"], state["tokens"], state["bots"], state["time_bank"], state["next_player"],
                          state.get("bot_reentry", {}),  # absent from snapshots older than hosted re-entries
                          state.get("tickets", []))  # absent from states written before tickets were kept
        self.paused, self.last_now, self.started_wall = state["paused"], state["last_now"], state["started_wall"]
        self.finished_wall = state.get("finished_wall")  # absent from states written before finishes were timed


def from_wire(player: str, message: wire.MoneyMessage) -> AnyRecord:
    """The record a player's money message asks for."""
    if isinstance(message, wire.Rebuy):
        return Rebuy(player)
    if isinstance(message, wire.DeclineRebuy):
        return DeclineRebuy(player)
    if isinstance(message, wire.PressDeal):
        return PressDeal(player, message.on)
    if isinstance(message, wire.AnswerDeal):
        return AcceptDeal(player) if message.accept else RejectDeal(player, "rejected")
    if isinstance(message, wire.ProposeDeal):
        return ProposeDeal(player, message.kind, message.keep_cents, message.amounts)
    return AddOn(player)


def top_up_time_banks(session: Session, events: list[Event]) -> None:
    """``time_bank.add_seconds`` onto every bank at the start of every ``every_levels``-th level after the first
    (replayed with the ``advance`` that began the level, so a restore gives the same banks)."""
    terms = session.director.definition.time_bank
    if terms is None or not terms.add_seconds:
        return
    banks = session.entries.time_bank
    for event in events:
        if isinstance(event, LevelChanged) and event.level > 1 and (event.level - 1) % terms.every_levels == 0:
            for player in session.director.stacks:
                banks[player] = banks.get(player, 0.0) + terms.add_seconds


def apply(session: Session, record: AnyRecord) -> list[Event]:
    """One record applied: live, or replayed by a restore. The director's refusal leaves everything as it was."""
    for group in (_apply_play, _apply_entry, _apply_money, _apply_floor):
        events = group(session, record)
        if events is not None:
            return events
    raise AssertionError(f"no application for {record!r}")  # every kind of AnyRecord is matched by a group


def _apply_play(session: Session, record: AnyRecord) -> list[Event] | None:
    """A hand, the clock and the tournament's course. None: not a record of this group."""
    director = session.director
    match record:
        case Act(table, action, amount, player, bank):
            events = director.act(table, action, amount, player)
            session.entries.time_bank[player] = bank
            return events
        case Advance(now):
            session.last_now = now
            events = director.advance(now)
            top_up_time_banks(session, events)
            return events
        case StartHand(table):
            return director.start_hand(table)
        case EndHand(table):
            return director.end_hand(table)
        case VoidHand(table):
            return director.void_hand(table)
        case Start(now, wall):
            session.last_now, session.started_wall = now, wall
            return director.start(now)
        case Pause(now) | Resume(now):
            session.last_now = now
            session.paused = isinstance(record, Pause)
            return []
        case Cancel(policy, entry_cents):
            return director.cancel(policy, entry_cents)
        case OpenRegistration():
            return director.open_registration()
    return None


def _apply_entry(session: Session, record: AnyRecord) -> list[Event] | None:
    """An entry bought, given or taken back, and the bots the server hosts. None: not a record of this group."""
    director = session.director
    match record:
        case Register(player, name, key, person):
            events = director.register(player, person)
            session.entries.add(player, name, key)
            return events
        case Reenter(previous, player, name, key):
            events = director.reenter(previous, player)
            session.entries.add(player, name, key)
            return events
        case Qualify(player, name, key, stack):
            known = session.entries.player_for_key(key) is not None  # the token stays with the person's first
            events = director.qualify(player, key, stack)
            if player in director.stacks:  # an entry of its own (a multi-entry final's second, too)
                session.entries.add(player, name, key, claim_token=not known)
            session.entries.saw(player)
            return events
        case CarryIn(cents, entries):
            return director.carry_in(cents, entries)
        case HostBot(player, strategy, token, think_min, think_max):
            session.entries.bots[player] = (strategy, token, think_min, think_max)
            return []
        case BotReentry(player, chance):
            session.entries.bot_reentry[player] = chance
            return []
        case Unregister(player):
            return director.unregister(player)
        case Rebuy(player):
            return director.rebuy(player)
        case DeclineRebuy(player):
            return director.decline_rebuy(player)
        case AddOn(player):
            return director.add_on(player)
    return None


def _apply_money(session: Session, record: AnyRecord) -> list[Event] | None:
    """The director's money on the record, a removal, and a deal among the players left. None: not a record of
    this group."""
    director = session.director
    match record:
        case Compensate(player, cents, reason, _, incident):
            return director.compensate(player, cents, reason, incident)
        case DeclareFailure(what, at, due_hours, policy):
            return director.declare_failure(what, at, due_hours, policy)
        case RecordIncident(player, what, decision, at):
            return director.record_incident(player, what, decision, at)
        case WithdrawPrize(player, cents, reason):
            return director.withdraw_prize(player, cents, reason)
        case ReturnSeat(player, cents, reason):
            return director.return_seat(player, cents, reason)
        case TopUpSeat(player, cents, reason):
            return director.top_up_seat(player, cents, reason)
        case ReturnPool(reason):
            return director.return_pool(reason)
        case WithdrawQualified(player, cents):
            return director.withdraw_qualified(player, cents)
        case RemovePlayer(player, refund):
            return director.remove(player, refund)
        case PressDeal(player, on):
            return director.press_deal(player, on)
        case ProposeDeal(player, kind, keep_cents, amounts):
            return director.propose_deal(player, kind, keep_cents, amounts)
        case AcceptDeal(player):
            return director.accept_deal(player)
        case RejectDeal(player, reason):
            return director.reject_deal(player, reason)
    return None


def _apply_floor(session: Session, record: AnyRecord) -> list[Event] | None:
    """The director's clock, levels and seating, and what the console only logs. None: not a record of this group."""
    director = session.director
    match record:
        case AdjustClock(seconds):
            return director.adjust_clock(seconds)
        case CallBreak(now, minutes):
            return director.call_break(now, minutes)
        case ForceHandForHand(on):
            return director.force_hand_for_hand(on)
        case EditLevel(level, small_blind, big_blind, ante, minutes):
            return director.edit_level(level, small_blind, big_blind, ante, minutes)
        case MovePlayer(player, table):
            return director.move(player, table)
        case BalanceNow():
            return director.balance_now()
        case WithdrawMove(player):
            return director.withdraw_move(player)
        case WithdrawBalance():
            return director.withdraw_balance()
        case SitOutPlayer() | Announce() | ConsoleRefused():
            return []
    return None
