"""The tournament director: statuses, seating, levels, hand-for-hand, breaking, balancing, eliminations.

A pure state machine, like ``engine.hand.Hand`` one level up. The caller (the
real-time server or the accelerated simulator) owns the clock and the tables'
pace; the director owns the rules. Every command returns the events it caused
and has a ``verify_*`` query that raises :class:`TournamentError` naming the
rule when the command is not allowed now (``can(name, ...)`` is the boolean
form). A refused command changes nothing.

The loop a caller runs::

    events = director.advance(now)            # levels and breaks follow the caller's clock
    for table in director.tables_ready():     # who may deal now (breaks, hand-for-hand)
        director.start_hand(table)
    director.act(table, "call")               # ... until director.hand(table).finished
    director.end_hand(table)                  # stacks, eliminations, breaks, balancing

The policies live in their own modules, each a set of functions of the
tournament: engine.floor (breaking, balancing, merges), engine.handforhand,
engine.eliminations (ranking), engine.lateentry, engine.rebuys (re-buys and
add-ons), engine.console, engine.deals. They return events and never call
one another: what follows what (a hand's busts offered re-buys, ranked once
answered, then the floor, the late-entry windows and hand-for-hand until
none has more to add) is this class's sequence (``_settle``, ``_answered``,
``_conclude``, ``_after_change``). What several share, and which calls no
policy, are the primitives: engine.standings (places, prizes, the end),
engine.windows (the late-entry windows), engine.bounties, engine.seating.
This class is the one public face: its commands, their ``verify_*`` and
typed ``can_*`` queries.

Rules (../shared/docs/rules.md): statuses F.23; seating A.1, M.50; balancing
A.3-A.4; breaking B.5-B.8; button and blinds C.9-C.12 (engine.table);
hand-for-hand D.14-D.17; eliminations and payouts G.28-G.30; re-buys and
add-ons F.25-F.26; ICM deals H.36; cancellation refunds I.38-I.39.

Every cent goes through ``self.ledger`` (engine.money): buy-ins and fees at
registration, re-buys and add-ons, prizes at elimination, refunds, and the
fees the house keeps when the tournament ends. Decisions with a deadline
(a re-buy offer, the add-on, a deal) expire by the caller's clock in
``advance``.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from typing import Any

from engine import (
    bounties, cancellation, console, corrections, deals, eliminations, flights, floor, handforhand, lateentry, rebuys,
    standings, windows,
)
from engine.cards import shuffled_deck
from engine.deals import Deal
from engine.eliminations import Bust
from engine.events import (
    BreakEnded, BreakStarted, Event, FailureDeclared, HandFinished, HandStarted, HandVoided, IncidentRecorded,
    LevelChanged, Refunded, Registered, Result, Seated, SeatStack, StatusChanged,
)
from engine.hand import Hand
from engine.money import PAID_INTO, Ledger
from engine.rebuys import Held
from engine.refunds import Refund, RefundPolicy
from engine.seating import OpenTables, initial_draw, person_of
from engine.status import Status, TournamentError
from engine.structure import Definition, hand_for_hand_points, prizes_cents, rule_prizes, satellite_prizes
from engine.table import Table

__all__ = ["Status", "Tournament", "TournamentError"]

# Snapshots pickled before the policies had modules of their own name these classes here.
_Bust, _Held, _Deal = Bust, Held, Deal


class _Playing:
    """One open table: its seats, its hand in progress, and whether it is to be broken."""

    __slots__ = ("id", "table", "hand", "number", "breaking")

    def __init__(self, table_id: int, table: Table) -> None:
        self.id = table_id
        self.table = table
        self.hand: Hand | None = None
        self.number = 0  # the tournament-wide number of its current or last hand
        self.breaking = False


class Tournament:
    """One tournament from announcement to results. Players are entry ids (strings)."""

    # On the class, so that a director pickled before they were kept has them too (its snapshot restores).
    failure: FailureDeclared | None = None  # a failure the director declared (engine/corrections.py)
    incidents: list[IncidentRecorded] = []  # players' cases on the record, replaced whole, never appended to

    def __init__(self, definition: Definition, rng: random.Random,
                 deal: Callable[[random.Random], list[int]] = shuffled_deck) -> None:
        """``deal`` shuffles each hand's deck from ``rng``; a replay or a test can hand in its own decks."""
        self.definition = definition
        self.rng = rng
        self.deal = deal
        self.status = Status.WAITING
        self.entries: list[str] = []  # registration order
        self._people: dict[str, str] = {}  # entry -> person, only for people with several entries
        self._entries_of: dict[str, set[str]] = {}  # person -> their entries, the reverse of _people
        self.stacks: dict[str, int] = {}  # live players; start-of-hand values while a hand is on
        self.where: dict[str, tuple[int, int]] = {}  # player -> (table id, seat)
        self.tables: dict[int, _Playing] = {}
        self.results: dict[str, Result] = {}
        self.prize_pool_cents = 0
        self.prizes: list[int] = []
        self.hands_played = 0
        self.tables_broken = 0
        self.moves = 0
        self.hand_for_hand = False
        self.hand_for_hand_at: list[int] = []
        self.level = 0  # index into definition.levels
        self.break_until: float | None = None
        self._level_started_at = 0.0
        self._hands_in_level: dict[int, int] = {}
        self._most_hands_in_level = 0
        self._h4h_points: set[int] = set()
        self._round: set[int] | None = None  # tables yet to finish the hand-for-hand round
        self._round_started: set[int] = set()
        self._round_to_deal: set[int] = set()  # tables of the round that have not dealt it yet
        self._round_busts: list[Bust] = []
        self._pending_chips: dict[str, int] = {}  # merged chips for entries that were in a hand
        self._idle: set[int] = set()  # open tables with no hand in progress
        self._idle_peak = 0  # the most tables _idle has held since it was last rebuilt
        self._breaking: set[int] = set()  # open tables locked to close (B.7)
        self._breaking_idle: set[int] = set()  # those of them between hands, to close now
        self._open = OpenTables(definition.seats_per_table, 0)  # the tables not being broken, by size
        self.ledger = Ledger()
        self.chips_issued = 0  # starting stacks, re-buys and add-ons: what chips_in_play() must equal
        self.refunds: list[Refund] = []  # what a cancellation paid back
        self._now = 0.0  # the caller's clock at the last start() or advance()
        self.rebuys_taken: dict[str, int] = {}
        self.rebuy_offers: dict[str, float] = {}  # player -> deadline
        self._held: list[Held] = []
        self.rebuy_period_over = definition.rebuys is None
        self.add_on_until: float | None = None
        self.add_ons: set[str] = set()
        self.bounties: dict[str, int] = {}  # each live entry's bounty in cents (rules.md J)
        self.seats_won = 0  # a satellite's seats (K.44)
        self.flight_stopping = False  # a flight has met its stop condition; it ends once its hands are over (L.47)
        self._qualified: dict[str, str] = {}  # a final's person -> the entry their counted stack is on (L.48)
        self.flight_entries = 0  # a final: the entries of the flights whose pools it carries
        self.qualified_entries: set[str] = set()  # a final: every entry a flight sent
        self.deal_pressed: set[str] = set()
        self.proposal: Deal | None = None
        self.deal_terms: deals.Terms | None = None  # a kind of deal a player asked for, proposed between hands
        self.dealt: dict[str, int] = {}  # what partial deals paid each player so far
        self._deal_due = False
        self.removed: dict[str, bool] = {}  # entries the director took out -> refunded or not
        self.removals: dict[str, bool] = {}  # to take out when their hand ends -> with a refund or not
        self.knockouts: dict[str, int] = {}  # player -> the players they eliminated (a shared pot counts whole)
        self.entries_closed: dict[str, str] = {}  # late registration, re-entry -> why it closed (engine.lateentry)
        self.reentered: dict[str, str] = {}  # an eliminated entry -> the entry its person bought after it
        self.reentries: dict[str, int] = {}  # person -> re-entries bought

    # The director's console (engine.console); class defaults let a tournament pickled before it load.
    hand_for_hand_forced = False
    break_keeps_level = False  # the break under way was called by hand: the level goes on after it
    next_break_at = math.inf  # synchronised breaks (``breaks.at_minute``): when the next one starts
    late_entries = 0  # entries bought while running (late registrations and re-entries)
    envelopes: list[int] | None = None  # a mystery bounty's envelopes left, once sized (engine.bounties)
    tables_opened = 0  # the highest table id given, so that a table opened late never takes a broken one's

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A tournament pickled before its tables were indexed (a snapshot in an older journal) gets its indexes."""
        state.setdefault("flight_entries", 0)
        state.setdefault("removed", {})
        state.setdefault("removals", {})
        state.setdefault("knockouts", {})  # counted since; a snapshot of before counts from then on
        for late in ("entries_closed", "reentered", "reentries", "dealt"):
            state.setdefault(late, {})
        state.setdefault("deal_terms", None)
        state.setdefault("qualified_entries", set(state.get("_qualified", {}).values()))
        if "_open" not in state:
            sizes: dict[int, int] = state.pop("_size")
            del state["_by_size"]
            tables: dict[int, _Playing] = state["tables"]
            index = OpenTables(state["definition"].seats_per_table, max([*tables, *sizes], default=0))
            for table, size in sizes.items():
                index.resize(table, size)
                index.idle(table, table in state["_idle"])
            state["_open"] = index
            state["_breaking"] = {table for table, playing in tables.items() if playing.breaking}
            state["_breaking_idle"] = state["_breaking"] & state["_idle"]
            entries_of: dict[str, set[str]] = {}
            for entry, person in state["_people"].items():
                entries_of.setdefault(person, set()).add(entry)
            state["_entries_of"] = entries_of
            state["_round_to_deal"] = (state["_round"] or set()) - state["_round_started"]
            state["_idle_peak"] = len(state["_idle"])
        self.__dict__.update(state)

    # ------------------------------------------------------------ queries

    @property
    def players_left(self) -> int:
        return len(self.stacks)

    @property
    def tables_to_break(self) -> list[int]:
        """Tables chosen to close that are finishing their hand first (B.7)."""
        return sorted(self._breaking)

    def hand(self, table: int) -> Hand | None:
        """The table's hand in progress (or finished and not yet ended)."""
        return self.tables[table].hand if table in self.tables else None

    def hand_number(self, table: int) -> int:
        return self.tables[table].number

    def level_ends_at(self) -> float | None:
        """When the current level ends on the caller's clock; None for a level of hands or the last level."""
        level = self.definition.levels[self.level]
        if level.minutes is None or self.level == len(self.definition.levels) - 1 or self.break_until is not None:
            return None
        return self._level_started_at + level.minutes * 60

    def break_starts_at(self) -> float | None:
        """When the next scheduled break begins on the caller's clock (a tournament clock shows the time to it);
        None with no breaks, during one, or where a level of hands or the last level comes first."""
        breaks = self.definition.breaks
        if breaks is None or self.break_until is not None:
            return None
        if breaks.at_minute is not None:
            return self.next_break_at if math.isfinite(self.next_break_at) else None
        assert breaks.every_levels is not None
        levels = self.definition.levels
        ends = self.level_ends_at()
        for number in range(self.level, len(levels) - 1):
            if ends is None:
                return None
            if (number + 1) % breaks.every_levels == 0:
                return ends
            following = levels[number + 1].minutes
            ends = None if following is None else ends + following * 60
        return None

    def can_register(self, player: str, person: str | None = None) -> bool:
        return _passes(self.verify_register, player, person)

    def can_reenter(self, player: str, new_entry: str) -> bool:
        return _passes(self.verify_reenter, player, new_entry)

    def entries_open(self, window: windows.Window) -> bool:
        """Whether late registration (or re-entry) is open now."""
        return windows.is_open(self, window)

    def entries_close_at(self, window: windows.Window) -> float | None:
        """When late registration (or re-entry) closes by its level, on the caller's clock; None if unknown."""
        return windows.closes_at(self, window)

    def can_unregister(self, player: str) -> bool:
        return _passes(self.verify_unregister, player)

    def can_start(self) -> bool:
        return _passes(self.verify_start)

    def can_cancel(self, policy: RefundPolicy | None = None, entry_cents: int = 0) -> bool:
        return _passes(self.verify_cancel, policy, entry_cents)

    def can_start_hand(self, table: int) -> bool:
        return _passes(self.verify_start_hand, table)

    def can_rebuy(self, player: str) -> bool:
        return _passes(self.verify_rebuy, player)

    def can_decline_rebuy(self, player: str) -> bool:
        return _passes(self.verify_decline_rebuy, player)

    def can_add_on(self, player: str) -> bool:
        return _passes(self.verify_add_on, player)

    def can_press_deal(self, player: str, on: bool = True) -> bool:
        return _passes(self.verify_press_deal, player, on)

    def can_propose_deal(self, player: str, kind: object, keep_cents: object = 0, amounts: object = None) -> bool:
        return _passes(self.verify_propose_deal, player, kind, keep_cents, amounts)

    def can_answer_deal(self, player: str) -> bool:
        """Whether ``player`` may accept or reject the deal on the table now."""
        return _passes(self.verify_answer_deal, player)

    def chips_in_play(self) -> int:
        """Every chip in the tournament; equal to ``chips_issued`` after every event."""
        in_hands = {p for state in self.tables.values() if state.hand for p in state.hand.players}
        total = sum(stack for player, stack in self.stacks.items() if player not in in_hands)
        total += sum(self._pending_chips.values())
        return total + sum(state.hand.chips_in_play() for state in self.tables.values() if state.hand)

    def tables_ready(self) -> list[int]:
        """Tables that may deal their next hand now, lowest id first."""
        if self.hand_for_hand:
            candidates = self._round_to_deal
        else:
            candidates = self._idle
        return sorted(t for t in candidates if self.is_ready(t))

    def is_ready(self, table: int) -> bool:
        """Whether ``table`` may deal its next hand now (``verify_start_hand`` without the reason)."""
        if self.status is not Status.RUNNING or self.break_until is not None:
            return False
        state = self.tables.get(table)
        if (state is None or state.hand is not None or state.breaking or state.table.seated < 2
                or self.proposal is not None or self.flight_stopping):
            return False
        if self.rebuy_offers and any(player in self.rebuy_offers for player in state.table.players):
            return False
        if self.hand_for_hand:
            return self._round is not None and table in self._round and table not in self._round_started
        return True

    def person(self, entry: str) -> str:
        """Who holds ``entry``: their person, or the entry itself when it is a person of its own."""
        return self._people.get(entry, entry)

    def standings(self) -> list[Result]:
        return sorted(self.results.values(), key=lambda result: result.place)

    # ----------------------------------------------------- registration (F.23)

    def verify_open_registration(self) -> None:
        if self.status is not Status.WAITING:
            raise TournamentError(f"registration opens only from Waiting; the tournament is {self.status}")

    def open_registration(self) -> list[Event]:
        self.verify_open_registration()
        self.status = Status.REGISTER
        return [StatusChanged(self.status.value)]

    def verify_register(self, player: str, person: str | None = None) -> None:
        if self.status is Status.RUNNING and self.definition.late_registration is not None:
            windows.verify_open(self, "late_registration")
        elif self.status is not Status.REGISTER:
            raise TournamentError(f"registration is open only in Register; the tournament is {self.status}")
        if not isinstance(player, str) or not player:
            raise TournamentError("an entry needs a non-empty id")
        if player in self.stacks or player in self.results:
            raise TournamentError(f"{player} is already registered")
        if len(self.entries) >= self.definition.max_players:
            raise TournamentError(f"the tournament is full ({self.definition.max_players} entries)")
        if self.definition.final is not None and not self.definition.final.direct_buy_in:
            raise TournamentError("this final takes only qualified stacks, no direct buy-in (L.47)")
        limit = self.definition.entries_per_person
        if person is not None and limit is not None:
            held = len(self._entries_of.get(person, ())) + (person in self.stacks and person not in self._people)
            if held >= limit:
                raise TournamentError(f"{person} already holds {held} of the {limit} entries a person may (M.50)")

    def register(self, player: str, person: str | None = None) -> list[Event]:
        """A new entry. ``person`` groups the entries of one person, who never sit together (M.50).

        While the tournament runs (late registration, F.24) it is seated at once (engine.lateentry).

        ``person`` may be an entry registered without one: that entry then
        belongs to the person too (a second entry named after the first).
        """
        self.verify_register(player, person)
        if person is not None and person in self.stacks and person not in self._people:
            self._belongs(person, person)
        if person is not None:
            self._belongs(player, person)
        late = self.status is Status.RUNNING
        events: list[Event] = [Registered(player, self._admit(
            player, self.definition.late_stack if late else self.definition.starting_stack))]
        if not late:
            return events
        self._price_prizes()
        self.late_entries += 1
        return self._seated_late(events + lateentry.seat(self, player))

    def _admit(self, player: str, stack: int) -> int:
        """An entry's chips and its buy-in, fee and bounty through the ledger; returns what it paid."""
        self.entries.append(player)
        self.stacks[player] = stack
        self.chips_issued += stack
        bounty = self.definition.bounty.cents if self.definition.bounty is not None else 0
        self._pay(player, "buy_in", self.definition.buy_in_cents - bounty, "fee", self.definition.fee_cents)
        if bounty:
            self.ledger.record("bounty_in", player, bounty)
            if not bounties.is_mystery(self):  # a mystery bounty's go to the envelopes, not on a head
                self.bounties[player] = bounty
        return self._entry_price

    def verify_reenter(self, player: str, new_entry: str) -> None:
        lateentry.verify_reenter(self, player, new_entry)

    def reenter(self, player: str, new_entry: str) -> list[Event]:
        """The eliminated ``player``'s person buys ``new_entry``: a new stack, seat and place (F.27)."""
        return self._seated_late(lateentry.reenter(self, player, new_entry))

    def verify_unregister(self, player: str) -> None:
        if self.status is not Status.REGISTER:
            raise TournamentError(f"unregistering is allowed only in Register; the tournament is {self.status}")
        if player not in self.stacks:
            raise TournamentError(f"{player} is not registered")
        if player in self.qualified_entries:
            raise TournamentError(f"{player} qualified from a flight; a qualified stack cannot be unregistered")

    def verify_qualify(self, player: str, person: str, stack: int) -> None:
        flights.verify_qualify(self, player, person, stack)

    def qualify(self, player: str, person: str, stack: int) -> list[Event]:
        """A flight's survivor enters the final with their exact stack (L.47); one stack per person (L.48)."""
        return flights.qualify(self, player, person, stack)

    def verify_carry_in(self, cents: int, entries: int = 0) -> None:
        flights.verify_carry_in(self, cents, entries)

    def carry_in(self, cents: int, entries: int = 0) -> list[Event]:
        """A flight's prize pool joins the final's: prizes are paid only in the final phase (L.47)."""
        return flights.carry_in(self, cents, entries)

    def unregister(self, player: str) -> list[Event]:
        """Leave before the start: buy-in and fee back in full (F.23)."""
        self.verify_unregister(player)
        self.entries.remove(player)
        del self.stacks[player]
        self.chips_issued -= self.definition.starting_stack
        person = self._people.pop(player, None)
        if person is not None:
            self._entries_of[person].discard(player)
        self.bounties.pop(player, None)
        for kind, cents in self.ledger.paid_by(player).items():
            self.ledger.record("refund", player, cents, account=PAID_INTO[kind])
        return [Refunded(player, self._entry_price, "unregistered")]

    def verify_cancel(self, policy: RefundPolicy | None = None, entry_cents: int = 0) -> None:
        cancellation.verify(self, policy, entry_cents)

    def cancellation_preview(self, policy: RefundPolicy | None = None, entry_cents: int = 0) -> list[Refund]:
        """What each entry would get back if the tournament were cancelled now (I.38-I.39); changes nothing."""
        return cancellation.preview(self, policy, entry_cents)

    def still_in(self) -> list[str]:
        """The entries a cancellation now would find in the tournament (a rescheduled freeroll's players)."""
        return cancellation.still_in(self)

    def reschedule_policy(self, policy: RefundPolicy | None = None) -> RefundPolicy:
        """The refund policy that cancels a freeroll to play it again on a new date, paying no prize now
        (seed 004); raises naming the rule when the tournament cannot be rescheduled."""
        return cancellation.rescheduling(self, policy)

    def can_reschedule(self, policy: RefundPolicy | None = None) -> bool:
        return _passes(self.reschedule_policy, policy)

    def cancel(self, policy: RefundPolicy | None = None, entry_cents: int = 0) -> list[Event]:
        """Cancel the tournament and pay the refunds ``cancellation_preview`` shows (F.23, I.38-I.39).

        Hands in progress are void. ``policy`` overrides the definition's.
        """
        return cancellation.cancel(self, policy, entry_cents)

    def verify_start(self) -> None:
        if self.status is not Status.REGISTER:
            raise TournamentError(f"a tournament starts from Register; it is {self.status}")

    def start(self, now: float = 0.0) -> list[Event]:
        """Draw seats and begin level 1; below ``min_players`` entries, cancel and refund instead (F.23)."""
        self.verify_start()
        if len(self.entries) < self.definition.min_players:
            return cancellation.apply(self)
        definition = self.definition
        self.status = Status.RUNNING
        self._now = now
        events: list[Event] = [StatusChanged(self.status.value)]
        if definition.added_cents:
            self.ledger.record("added", "", definition.added_cents)
        self._price_prizes()
        merged = floor.merged_at_draw(self)
        layout = initial_draw([entry for entry in self.entries if entry not in merged],
                              definition.seats_per_table, self.rng, self._person)
        self._open = OpenTables(definition.seats_per_table, len(layout))
        self.tables_opened = len(layout)
        for number, seats in enumerate(layout, start=1):
            table = Table(definition.seats_per_table)
            self.tables[number] = _Playing(number, table)
            for seat, player in enumerate(seats):
                if player is not None:
                    table.seat(player, seat)
                    self.where[player] = (number, seat)
                    events.append(Seated(player, number, seat, self.stacks[player]))
            self._open.resize(number, len(table.players))
            floor.set_idle(self, number, True)
        for entry in merged:
            events += floor.merge(self, entry)
        if self.status is not Status.RUNNING:  # one person held every entry (or every seat was won)
            return events
        self._level_started_at = now
        breaks = self.definition.breaks
        if breaks is not None and breaks.at_minute is not None:  # the tournament's hours count from its start
            self.next_break_at = now + (breaks.at_minute * 60 or 3600)
        events.append(self._level_event())
        if self.players_left <= self.seats_won:  # a satellite with a seat for everyone is over at once (K.45)
            return events + standings.seat_everyone_left(self)
        return events + lateentry.check(self) + handforhand.check(self)

    # ---------------------------------------------------------- the policies' sequence

    def _settle(self, busts: list[Bust], *, round_: bool) -> list[Event]:
        """A hand's or round's busts: re-buys offered first; the batch is ranked once no offer of it is waiting."""
        offers = rebuys.offer(self, busts, round_=round_)
        if offers is None:
            return self._conclude(busts, round_=round_)
        if not round_:  # the rest of the room goes on: tables due to close close, counting the offered as in
            offers += self._after_change()
        return offers

    def _answered(self, player: str, *, rebought: bool) -> list[Event]:
        """``player`` answered their re-buy offer: their batch is ranked if it waited for them last."""
        held = rebuys.answered(self, player, rebought=rebought)
        return self._conclude(held.busts, round_=held.round_) if held is not None else []

    def _conclude(self, busts: list[Bust], *, round_: bool) -> list[Event]:
        return eliminations.conclude(self, busts, round_) + self._after_change()

    def _after_change(self) -> list[Event]:
        """Between hands: the floor (breaks, balancing), the late-entry windows and hand-for-hand, in that order,
        again until none has more to add. Each reads what the ones before it changed (a window closed lets a
        table break into a merge), and none calls another."""
        events: list[Event] = []
        while self.status is Status.RUNNING:
            added = floor.after_change(self) + lateentry.check(self) + handforhand.check(self)
            if not added:
                break
            events += added
        return events

    def _seated_late(self, events: list[Event]) -> list[Event]:
        """A late entry or a re-entry seated: the tables balanced (between rounds under hand-for-hand, D.15), and
        the windows checked (capacity)."""
        return events + (floor.balance(self) if self._round is None else []) + lateentry.check(self)

    # ---------------------------------------------------------- the clock

    def advance(self, now: float) -> list[Event]:
        """Move the tournament clock to ``now`` (seconds): levels by time or by hands, and breaks.

        A level of ``hands`` ends once a table has dealt that many hands in
        it. Breaks come after every ``breaks.every_levels`` levels and stop
        new hands; hands in progress finish. The last level lasts until the end.
        """
        if self.status is not Status.RUNNING:
            return []
        self._now = now
        events: list[Event] = []
        for player in rebuys.expired(self, now):
            if player in self.rebuy_offers:  # a batch ranked meanwhile may have taken them out
                events += rebuys.decline_rebuy(self, player, "expired") + self._answered(player, rebought=False)
        events += rebuys.end_add_on(self, now) + deals.expire(self, now)
        levels = self.definition.levels
        while True:
            if self.break_until is not None:
                if now < self.break_until:
                    break
                if self.break_keeps_level:  # a break called by hand: the level's clock stood still
                    self.break_until, self.break_keeps_level = None, False
                    events.append(BreakEnded())
                    continue
                self._level_started_at, self.break_until = self.break_until, None
                self.level += 1
                events += [BreakEnded(), self._level_event()]
                continue
            if now >= self.next_break_at and self.next_break_at < (self.level_ends_at() or math.inf):
                events.append(self._synchronised_break())
                continue
            flight = self.definition.flight
            stops_here = flight is not None and self.level + 1 == flight.stop_level
            last = self.level == len(levels) - 1
            if last and (not stops_here or self.flight_stopping):
                break  # the last level lasts until the end, unless a flight stops at its end (L.47)
            level = levels[self.level]
            if level.minutes is not None:
                ends_at = self._level_started_at + level.minutes * 60
                if now < ends_at:
                    break
            elif level.hands is not None and self._most_hands_in_level >= level.hands:
                ends_at = now
            else:
                break
            self._hands_in_level.clear()
            self._most_hands_in_level = 0
            events += lateentry.level_ended(self, self.level + 1)
            terms = self.definition.rebuys
            if terms is not None and self.level + 1 == terms.levels:
                events += rebuys.end_period(self, ends_at) + lateentry.check(self)
            if stops_here:
                self.flight_stopping = True
                if last:
                    break
            breaks = self.definition.breaks
            if breaks is not None and breaks.every_levels is not None and (self.level + 1) % breaks.every_levels == 0:
                self.break_until = ends_at + breaks.minutes * 60
                events.append(BreakStarted(self.break_until))
            else:
                self.level += 1
                self._level_started_at = ends_at
                events.append(self._level_event())
        return events + flights.maybe_close(self)

    def _synchronised_break(self) -> BreakStarted:
        """Every table breaks at ``breaks.at_minute`` of the tournament's hour."""
        breaks = self.definition.breaks
        assert breaks is not None
        starts, self.next_break_at = self.next_break_at, self.next_break_at + 3600
        return self.hold_break(starts, breaks.minutes)

    def hold_break(self, starts: float, minutes: float) -> BreakStarted:
        """A break from ``starts`` during which the level's clock stands still: the same level goes on after it
        with the time it had left (a synchronised break, or one the director calls)."""
        self.break_until = starts + minutes * 60
        self._level_started_at += minutes * 60
        self.break_keeps_level = True
        return BreakStarted(self.break_until)

    # ------------------------------------------------------------- hands

    def verify_start_hand(self, table: int) -> None:
        if self.status is not Status.RUNNING:
            raise TournamentError(f"hands are dealt only while Running; the tournament is {self.status}")
        state = self.tables.get(table)
        if state is None:
            raise TournamentError(f"table {table} is not open")
        if state.hand is not None:
            raise TournamentError(f"table {table} has a hand in progress")
        if state.breaking:
            raise TournamentError(f"table {table} is being broken (B.7)")
        if state.table.seated < 2:
            raise TournamentError(f"table {table} has fewer than two players; it waits for balancing (A.3)")
        if self.break_until is not None:
            raise TournamentError("the tournament is on a break")
        if self.proposal is not None:
            raise TournamentError("the players are deciding on a deal; play waits (H.36)")
        if self.flight_stopping:
            raise TournamentError("the flight has reached its stop: no new hand (L.47)")
        if self.rebuy_offers and any(player in self.rebuy_offers for player in state.table.players):
            raise TournamentError(f"table {table} waits for a re-buy decision; no hand is missed (F.25, TDA 27)")
        if self.hand_for_hand:
            if self._round is None:
                raise TournamentError("hand-for-hand: every table finishes its hand before the next deal (D.15)")
            if table in self._round_started:
                raise TournamentError(
                    f"hand-for-hand: table {table} waits until every table has finished this round (D.15)")

    def start_hand(self, table: int) -> list[Event]:
        """Deal the table's next hand at the current level; the button and blinds move on (C.9-C.12)."""
        self.verify_start_hand(table)
        state = self.tables[table]
        level = self.definition.levels[self.level]
        positions = state.table.start_hand()
        players = state.table.occupants(positions.dealt)
        stacks = [self.stacks[player] for player in players]
        state.hand = Hand(
            players, stacks, small_blind=level.small_blind, big_blind=level.big_blind,
            ante=level.ante, bb_ante=level.bb_ante, deck=self.deal(self.rng),
            sb_index=positions.sb_index, bb_index=positions.bb_index,
        )
        self.hands_played += 1
        state.number = self.hands_played
        floor.set_idle(self, table, False)
        if self._round is not None:
            self._round_started.add(table)
            self._round_to_deal.discard(table)
            if not self._round_to_deal:
                self._round_to_deal = set()  # a fresh set: an emptied one still costs its old size to iterate
        dealt = self._hands_in_level.get(table, 0) + 1
        self._hands_in_level[table] = dealt
        self._most_hands_in_level = max(self._most_hands_in_level, dealt)
        return [HandStarted(
            table, state.number, positions.button_seat, self.level + 1,
            tuple(SeatStack(p, seat, stack) for p, seat, stack in zip(players, positions.dealt, stacks)),
        )]

    def verify_act(self, table: int) -> Hand:
        """The table's hand in progress; TournamentError when there is none."""
        state = self.tables.get(table)
        if state is None or state.hand is None:
            raise TournamentError(f"table {table} has no hand in progress")
        return state.hand

    def act(self, table: int, action: object, amount: object = None, player: object = None) -> list[Event]:
        """A decision in the table's hand; ``engine.hand.IllegalAction`` names a broken betting rule."""
        return self.verify_act(table).act(action, amount, player)

    def verify_end_hand(self, table: int) -> Hand:
        """The table's finished hand; TournamentError when there is none to settle."""
        hand = self.verify_act(table)
        if not hand.finished:
            raise TournamentError(f"table {table}'s hand is not finished")
        return hand

    def end_hand(self, table: int) -> list[Event]:
        """Settle a finished hand: stacks, then (outside a hand-for-hand round) eliminations, breaks, balancing."""
        hand = self.verify_end_hand(table)
        state = self.tables[table]
        state.hand = None
        floor.set_idle(self, table, True)
        busts = []
        for position, (player, stack) in enumerate(zip(hand.players, hand.stacks)):
            stack += self._pending_chips.pop(player, 0) if self._pending_chips else 0
            if stack == 0:
                knockers = eliminations.knocked_out_by(hand, player)
                busts.append(Bust(player, hand.starting_stacks[position], table, position, knockers))
            self.stacks[player] = stack
        events: list[Event] = [HandFinished(table, state.number, dict(zip(hand.players, hand.stacks)))]
        if self.removals:
            events += console.removed_after_hand(self, hand.players, bool(busts))
        if self._round is not None and table in self._round:
            self._round_busts += busts
            self._round.discard(table)
            if not self._round:
                events += self._settle(handforhand.close_round(self), round_=True)
        else:
            events += self._settle(busts, round_=False)
        if self._deal_due and self.status is Status.RUNNING and not self._held:
            events.append(deals.propose(self))
        return events + flights.maybe_close(self)

    def verify_void_hand(self, table: int) -> Hand:
        if self.status is not Status.RUNNING:
            raise TournamentError(f"only a running tournament's hands can be void; it is {self.status}")
        return self.verify_act(table)

    def void_hand(self, table: int) -> list[Event]:
        """Call off the table's hand: its players keep their start-of-hand stacks (a server restored after a crash).

        Chips that arrived for them during the hand (an add-on, a merge) are
        added now. Under hand-for-hand the table deals its round's hand again;
        and if it was the last hand the first round waited for, that round opens
        now, as if the hand had ended (D.15).
        """
        hand = self.verify_void_hand(table)
        events: list[Event] = [self._void(table)]
        events += console.removed_after_hand(self, hand.players, False) if self.removals else []
        return events + handforhand.check(self)

    # ------------------------------------------- re-buys and add-ons (engine.rebuys)

    def verify_rebuy(self, player: str) -> None:
        rebuys.verify_rebuy(self, player)

    def rebuy(self, player: str) -> list[Event]:
        """Buy the re-buy's chips: a bust's answer to its offer, or a short stack's choice (during a hand too)."""
        offered = player in self.rebuy_offers
        events = rebuys.rebuy(self, player)
        return events + self._answered(player, rebought=True) if offered else events

    def verify_decline_rebuy(self, player: str) -> None:
        rebuys.verify_decline_rebuy(self, player)

    def decline_rebuy(self, player: str) -> list[Event]:
        """Say no to a re-buy offer: the player is eliminated with the busts of their hand (F.25)."""
        return rebuys.decline_rebuy(self, player) + self._answered(player, rebought=False)

    def verify_add_on(self, player: str) -> None:
        rebuys.verify_add_on(self, player)

    def add_on(self, player: str) -> list[Event]:
        """Buy the add-on once, whatever the stack; chips bought during a hand arrive when it ends (F.26)."""
        return rebuys.add_on(self, player)

    # ---------------------------------------------------------- deals (engine.deals)

    def verify_press_deal(self, player: str, on: bool = True) -> None:
        deals.verify_press(self, player, on)

    def press_deal(self, player: str, on: bool = True) -> list[Event]:
        """Press (or un-press) Deal; once everyone has, the proposal comes at the end of the hand (H.36)."""
        return deals.press(self, player, on)

    def verify_propose_deal(self, player: str, kind: object, keep_cents: object = 0, amounts: object = None) -> None:
        deals.verify_propose(self, player, kind, keep_cents, amounts)

    def propose_deal(self, player: str, kind: deals.Kind, keep_cents: int = 0,
                     amounts: dict[str, int] | None = None) -> list[Event]:
        """Propose a kind of deal (ICM, chip chop, equal split, custom amounts), keeping ``keep_cents`` in play for
        the winner; between hands it is on the table at once, else when the hand ends (H.36-H.37)."""
        return deals.propose_kind(self, player, kind, keep_cents, amounts)

    def verify_answer_deal(self, player: str) -> None:
        deals.verify_answer(self, player)

    def accept_deal(self, player: str) -> list[Event]:
        """Accept the proposal; when the last player does, the amounts are paid (a whole deal ends the tournament)."""
        return deals.accept(self, player)

    def reject_deal(self, player: str, reason: str = "rejected") -> list[Event]:
        """Any no (or a disconnection, ``reason='disconnected'``) ends the proposal; play continues (H.36)."""
        return deals.reject(self, player, reason)

    # ------------------------------------------- the director's console (engine.console)

    def verify_adjust_clock(self, seconds: float) -> None:
        console.verify_adjust_clock(self, seconds)

    def adjust_clock(self, seconds: float) -> list[Event]:
        """Add time to (or take it from) the level or break under way."""
        return console.adjust_clock(self, seconds)

    def verify_call_break(self, minutes: float) -> None:
        console.verify_call_break(self, minutes)

    def call_break(self, now: float, minutes: float) -> list[Event]:
        """A break now, for ``minutes``; the level resumes after it where it stood."""
        return console.call_break(self, now, minutes)

    def verify_force_hand_for_hand(self, on: bool) -> None:
        console.verify_force_hand_for_hand(self, on)

    def force_hand_for_hand(self, on: bool) -> list[Event]:
        """Hand-for-hand on the director's word (``on``), or let go."""
        return console.force_hand_for_hand(self, on) + handforhand.check(self)

    def verify_edit_level(self, level: int, small_blind: int, big_blind: int, ante: int = 0,
                          minutes: float | None = None) -> None:
        console.verify_edit_level(self, level, small_blind, big_blind, ante, minutes)

    def edit_level(self, level: int, small_blind: int, big_blind: int, ante: int = 0,
                   minutes: float | None = None) -> list[Event]:
        """Change a level not yet started (numbered from 1): its blinds, ante and, for a timed level, minutes."""
        return console.edit_level(self, level, small_blind, big_blind, ante, minutes)

    def verify_move(self, player: str, table: int) -> None:
        floor.verify_move(self, player, table)

    def move(self, player: str, table: int) -> list[Event]:
        """The director moves a player between hands to ``table``, by the balancing rules (A.3-A.4, M.50)."""
        return floor.move(self, player, table)

    def verify_balance_now(self) -> None:
        floor.verify_balance_now(self)

    def balance_now(self) -> list[Event]:
        """The balancing moves due now; refused, with the rule, when there is none to make."""
        return floor.balance_now(self)

    def verify_remove(self, player: str, refund: bool) -> None:
        console.verify_remove(self, player, refund)

    def remove(self, player: str, refund: bool) -> list[Event]:
        """Take an entry out (when its hand ends, if it is in one), its buy-in and fee refunded or not."""
        events = console.remove(self, player, refund)
        return events + self._after_change() if events else events  # none while their hand goes on

    # --------------------------------------------- corrections (engine.corrections)

    def verify_compensate(self, player: str, cents: int, reason: str, incident: int | None = None) -> None:
        corrections.verify_compensate(self, player, cents, reason, incident)

    def compensate(self, player: str, cents: int, reason: str, incident: int | None = None) -> list[Event]:
        """The house pays a player a compensation (seed 004), for an incident on the record if it names one."""
        return corrections.compensate(self, player, cents, reason, incident)

    def verify_declare_failure(self, what: str, due_hours: float, policy: RefundPolicy | None = None) -> None:
        corrections.verify_declare_failure(self, what, due_hours, policy)

    def declare_failure(self, what: str, at: float, due_hours: float = 48.0,
                        policy: RefundPolicy | None = None) -> list[Event]:
        """A failure the tournament cannot resume from: cancelled by its policy, on the record (seed 000)."""
        return corrections.declare_failure(self, what, at, due_hours, policy)

    def verify_record_incident(self, player: str, what: str, decision: str) -> None:
        corrections.verify_record_incident(self, player, what, decision)

    def record_incident(self, player: str, what: str, decision: str, at: float) -> list[Event]:
        """One player's case, examined on its own, with the director's decision (seed 004)."""
        return corrections.record_incident(self, player, what, decision, at)

    def verify_withdraw_prize(self, player: str, cents: int, reason: str) -> None:
        corrections.verify_withdraw_prize(self, player, cents, reason)

    def withdraw_prize(self, player: str, cents: int, reason: str) -> list[Event]:
        """Take back (part of) a prize paid in error (seed 004)."""
        return corrections.withdraw_prize(self, player, cents, reason)

    # ---------------------------------------------------------- internals

    def _void(self, table: int) -> HandVoided:
        state = self.tables[table]
        hand = state.hand
        assert hand is not None
        state.hand = None
        floor.set_idle(self, table, True)
        self._round_started.discard(table)
        if self._round is not None and table in self._round:
            self._round_to_deal.add(table)
        for player in hand.players:
            if player in self._pending_chips:
                self.stacks[player] += self._pending_chips.pop(player)
        return HandVoided(table, state.number)

    def _open_table(self) -> int:
        """A new, empty table (a late entry found every table full); its id follows every id given before."""
        number = max(self.tables_opened, max(self.tables, default=0)) + 1
        self.tables_opened = number
        self.tables[number] = _Playing(number, Table(self.definition.seats_per_table))
        self._open.resize(number, 0)
        floor.set_idle(self, number, True)
        return number

    def _pay(self, player: str, price_kind: Any, price: int, fee_kind: Any, fee: int) -> None:
        if price:
            self.ledger.record(price_kind, player, price)
        if fee:
            self.ledger.record(fee_kind, player, fee)

    def _price_prizes(self) -> None:
        """The prize table follows the pool as re-buys and add-ons grow it (places already paid keep theirs)."""
        self.prize_pool_cents = self.ledger.pool_cents + self.ledger.prizes_cents
        satellite = self.definition.satellite
        flight = self.definition.flight
        if flight is not None:  # no prizes here; a share cutoff is checked under hand-for-hand (L.49)
            self.prizes = []
            cutoff = math.floor(len(self.entries) * (flight.stop_share_percent or 0) / 100)
            self._h4h_points = {cutoff + 1} if cutoff >= 1 else set()
            return
        if satellite is not None:
            self.prizes, self.seats_won = satellite_prizes(self.prize_pool_cents, satellite.seat_value_cents)
        else:
            self.prizes = self.prize_table_for(len(self.entries), self.prize_pool_cents)
        self._h4h_points = set(hand_for_hand_points(self.prizes, self.definition.hand_for_hand_min_jump_cents))

    def prize_table_for(self, entrants: int, pool_cents: int) -> list[int]:
        """The prize per place a field of ``entrants`` and a pool of ``pool_cents`` would be paid (a satellite's
        seats and a flight's nothing aside): the fixed table, or the payout rule's for that field."""
        if self.definition.flight is not None or entrants == 0:
            return []
        if self.definition.satellite is not None:
            return satellite_prizes(pool_cents, self.definition.satellite.seat_value_cents)[0]
        if (rule := self.definition.payout_rule) is not None:
            return rule_prizes(rule, pool_cents, entrants, self.definition.buy_in_cents)
        return prizes_cents(self.definition.payouts, pool_cents, entrants)

    def projected_prizes(self) -> list[int]:
        """Before the start, the prizes of the entries so far (the pool as it stands, with the money added at the
        start); once it runs, the prizes."""
        if self.status not in (Status.WAITING, Status.REGISTER):
            return self.prizes
        return self.prize_table_for(len(self.entries), self.ledger.pool_cents + self.definition.added_cents)

    def full_field_prizes(self) -> list[int]:
        """The prizes if the field fills (``max_players`` entries, each paying the buy-in, with the money added)."""
        full = self.definition.max_players
        return self.prize_table_for(full, full * self.definition.buy_in_cents + self.definition.added_cents)

    def _in_hand(self, player: str) -> bool:
        state = self.tables.get(self.where[player][0]) if player in self.where else None
        return state is not None and state.hand is not None and player in state.hand.players

    @property
    def _entry_price(self) -> int:
        return self.definition.buy_in_cents + self.definition.fee_cents

    @property
    def _person(self) -> Callable[[str], str] | None:
        """The multi-entry constraint, or None when every entry is a person of its own (the fast path)."""
        return person_of(self._people) if self._people else None

    def _level_event(self) -> LevelChanged:
        level = self.definition.levels[self.level]
        return LevelChanged(self.level + 1, level.small_blind, level.big_blind, level.ante, level.bb_ante)

    def _belongs(self, entry: str, person: str) -> None:
        self._people[entry] = person
        self._entries_of.setdefault(person, set()).add(entry)


def _passes(verify: Callable[..., Any], *args: Any) -> bool:
    """Whether a ``verify_*`` query lets its command through."""
    try:
        verify(*args)
    except TournamentError:
        return False
    return True
