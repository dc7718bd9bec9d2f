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

import enum
import math
import random
from collections.abc import Callable
from typing import Any

from engine.cards import shuffled_deck
from engine.events import (
    Acted,
    AddOnEnded,
    AddOnOffered,
    AddOnTaken,
    BountyWon,
    BreakEnded,
    BreakStarted,
    DealAccepted,
    DealPressed,
    DealProposed,
    DealRejected,
    EntriesMerged,
    Event,
    FlightFinished,
    HandFinished,
    HandForHandEnded,
    HandForHandStarted,
    HandStarted,
    HandVoided,
    LevelChanged,
    PlayerEliminated,
    PlayerMoved,
    Posted,
    PotAwarded,
    Qualified,
    RebuyDeclined,
    RebuyOffered,
    RebuyTaken,
    Refunded,
    Registered,
    Result,
    Returned,
    Seated,
    SeatStack,
    StatusChanged,
    TableBroken,
    TournamentFinished,
)
from engine.hand import Hand
from engine.icm import equities
from engine.money import PAID_INTO, Ledger, largest_remainder
from engine.refunds import Refund, RefundPolicy, Situation, plan
from engine.seating import (
    OpenTables,
    SeatingError,
    balancing_mover,
    draw_open_seats,
    initial_draw,
    person_of,
    worst_seat,
)
from engine.structure import Definition, hand_for_hand_points, prizes_cents, satellite_prizes
from engine.table import Table


class Status(enum.StrEnum):
    WAITING = "waiting"
    REGISTER = "register"
    RUNNING = "running"
    FINISHED = "finished"
    CANCELLED = "cancelled"


class TournamentError(ValueError):
    """A command the tournament rules do not allow now; the message names the rule."""


class _Bust:
    """A player who lost every chip in a hand, ranked with the rest of that hand's (or round's) busts."""

    __slots__ = ("player", "start_stack", "table", "position", "tie", "knocked_out_by")

    def __init__(self, player: str, start_stack: int, table: int, position: int,
                 knocked_out_by: tuple[str, ...] = ()) -> None:
        self.player = player
        self.start_stack = start_stack
        self.table = table
        self.position = position  # 0 = first seat dealt left of the button
        self.tie = 0  # busts with the same value share their places' prizes
        self.knocked_out_by = knocked_out_by  # who takes the bounty (rules.md J.41)


class _Held:
    """A hand's (or round's) busts waiting for re-buy decisions before they are ranked (F.25)."""

    __slots__ = ("busts", "round_", "waiting")

    def __init__(self, busts: list[_Bust], round_: bool, waiting: set[str]) -> None:
        self.busts = busts
        self.round_ = round_
        self.waiting = waiting


class _Deal:
    """An ICM proposal every player left must accept before ``until`` (H.36)."""

    __slots__ = ("amounts", "until", "accepted", "seat_order")

    def __init__(self, amounts: dict[str, int], until: float, seat_order: list[str]) -> None:
        self.amounts = amounts
        self.until = until
        self.accepted: set[str] = set()
        self.seat_order = seat_order


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
        self._round_busts: list[_Bust] = []
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
        self._held: list[_Held] = []
        self.rebuy_period_over = definition.rebuys is None
        self.add_on_until: float | None = None
        self.add_ons: set[str] = set()
        self.bounties: dict[str, int] = {}  # each live entry's bounty in cents (rules.md J)
        self.seats_won = 0  # a satellite's seats (K.44)
        self.flight_stopping = False  # a flight has met its stop condition; it ends once its hands are over (L.47)
        self._qualified: dict[str, str] = {}  # a final's person -> the entry their counted stack is on (L.48)
        self.deal_pressed: set[str] = set()
        self.proposal: _Deal | None = None
        self._deal_due = False

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A tournament pickled before its tables were indexed (a snapshot in an older journal) gets its indexes."""
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

    def can(self, operation: str, *args: Any) -> bool:
        """Whether ``verify_<operation>(*args)`` passes."""
        try:
            getattr(self, f"verify_{operation}")(*args)
        except TournamentError:
            return False
        return True

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
        if (state is None or state.hand is not None or state.breaking or len(state.table.players) < 2
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
        if self.status is not Status.REGISTER:
            raise TournamentError(f"registration is open only in Register; the tournament is {self.status}")
        if not isinstance(player, str) or not player:
            raise TournamentError("an entry needs a non-empty id")
        if player in self.stacks:
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

        ``person`` may be an entry registered without one: that entry then
        belongs to the person too (a second entry named after the first).
        """
        self.verify_register(player, person)
        if person is not None and person in self.stacks and person not in self._people:
            self._belongs(person, person)
        self.entries.append(player)
        self.stacks[player] = self.definition.starting_stack
        self.chips_issued += self.definition.starting_stack
        if person is not None:
            self._belongs(player, person)
        bounty = self.definition.bounty.cents if self.definition.bounty is not None else 0
        self._pay(player, "buy_in", self.definition.buy_in_cents - bounty, "fee", self.definition.fee_cents)
        if bounty:
            self.ledger.record("bounty_in", player, bounty)
            self.bounties[player] = bounty
        return [Registered(player, self._entry_price)]

    def verify_unregister(self, player: str) -> None:
        if self.status is not Status.REGISTER:
            raise TournamentError(f"unregistering is allowed only in Register; the tournament is {self.status}")
        if player not in self.stacks:
            raise TournamentError(f"{player} is not registered")
        if player in self._qualified.values():
            raise TournamentError(f"{player} qualified from a flight; a qualified stack cannot be unregistered")

    def verify_qualify(self, player: str, person: str, stack: int) -> None:
        if self.definition.final is None:
            raise TournamentError("only a final takes qualified stacks (L.47)")
        if self.status is not Status.REGISTER:
            raise TournamentError(f"qualified stacks join in Register; the final is {self.status}")
        if not isinstance(player, str) or not player or player in self.stacks:
            raise TournamentError(f"{player!r} is not a new entry id")
        if not isinstance(stack, int) or stack <= 0:
            raise TournamentError("a qualified stack is a positive number of chips (a single chip qualifies, L.47)")

    def qualify(self, player: str, person: str, stack: int) -> list[Event]:
        """A flight's survivor enters the final with their exact stack (L.47).

        A person who qualifies again keeps one stack, never the sum (L.48):
        the larger (``best``) or the first (``first``), on the entry that
        qualified first.
        """
        self.verify_qualify(player, person, stack)
        assert self.definition.final is not None
        entry = self._qualified.get(person)
        if entry is None:
            self._qualified[person] = player
            self.entries.append(player)
            self.stacks[player] = stack
            self.chips_issued += stack
            if person != player:
                self._belongs(player, person)
            return [Qualified(player, stack, True)]
        counts = self.definition.final.forward == "best" and stack > self.stacks[entry]
        if counts:
            self.chips_issued += stack - self.stacks[entry]
            self.stacks[entry] = stack
        return [Qualified(player, stack, counts)]

    def verify_carry_in(self, cents: int) -> None:
        if self.definition.final is None or self.status is not Status.REGISTER:
            raise TournamentError("a flight's pool joins a final in Register (L.47)")

    def carry_in(self, cents: int) -> list[Event]:
        """A flight's prize pool joins the final's: prizes are paid only in the final phase (L.47)."""
        self.verify_carry_in(cents)
        self.ledger.record("carried_in", "", cents)
        return []

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

    def verify_cancel(self, policy: RefundPolicy | None = None) -> None:
        if self.status not in (Status.WAITING, Status.REGISTER, Status.RUNNING):
            raise TournamentError(f"a {self.status} tournament cannot be cancelled")
        if policy is not None and not isinstance(policy, RefundPolicy):
            raise TournamentError("a cancellation takes a refund policy (A or B)")

    def cancellation_preview(self, policy: RefundPolicy | None = None) -> list[Refund]:
        """What each entry would get back if the tournament were cancelled now (I.38-I.39); changes nothing.

        Before the start everyone gets everything back. While running, the
        stacks are those at the start of any hand in progress (the hand is
        void); a player waiting on a re-buy offer has no chips and counts as
        eliminated.
        """
        self.verify_cancel(policy)
        live = sorted((p for p, stack in self.stacks.items() if stack + self._pending_chips.get(p, 0) > 0),
                      key=lambda p: self.where.get(p, (0, 0)))
        paid: dict[str, dict[str, int]] = {}
        for movement in self.ledger.movements:
            if movement.kind in ("buy_in", "fee", "rebuy", "rebuy_fee", "add_on", "add_on_fee", "added"):
                kinds = paid.setdefault(movement.player, {})
                kinds[movement.kind] = kinds.get(movement.kind, 0) + movement.cents
            elif movement.kind == "refund":  # an unregistered entry has nothing left to get back
                paid.pop(movement.player, None)
        definition = self.definition
        situation = Situation(
            entries=len(self.entries), live=[(p, self.stacks[p] + self._pending_chips.get(p, 0)) for p in live],
            # The buy-in's floor (policy B) is its prize-pool part: each player's bounty comes back besides.
            paid=paid, pool_cents=self.ledger.pool_cents, prizes=self.prizes,
            buy_in_cents=definition.buy_in_cents - (definition.bounty.cents if definition.bounty else 0),
            started=self.status is Status.RUNNING,
            in_rebuy_period=not self.rebuy_period_over or self.add_on_until is not None,
            kind="satellite" if definition.satellite else
            "freeroll" if definition.buy_in_cents == 0 and definition.added_cents else "regular",
            seat_value_cents=definition.satellite.seat_value_cents if definition.satellite else 0,
            bounties=dict(self.bounties),
        )
        return plan(policy or definition.refund_policy, situation)

    def cancel(self, policy: RefundPolicy | None = None) -> list[Event]:
        """Cancel the tournament and pay the refunds ``cancellation_preview`` shows (F.23, I.38-I.39).

        Hands in progress are void. ``policy`` overrides the definition's.
        """
        self.verify_cancel(policy)
        return self._cancel(policy)

    def verify_start(self) -> None:
        if self.status is not Status.REGISTER:
            raise TournamentError(f"a tournament starts from Register; it is {self.status}")

    def start(self, now: float = 0.0) -> list[Event]:
        """Draw seats and begin level 1; below ``min_players`` entries, cancel and refund instead (F.23)."""
        self.verify_start()
        if len(self.entries) < self.definition.min_players:
            return self._cancel()
        definition = self.definition
        self.status = Status.RUNNING
        self._now = now
        events: list[Event] = [StatusChanged(self.status.value)]
        if definition.added_cents:
            self.ledger.record("added", "", definition.added_cents)
        self._price_prizes()
        layout = initial_draw(self.entries, definition.seats_per_table, self.rng, self._person)
        self._open = OpenTables(definition.seats_per_table, len(layout))
        for number, seats in enumerate(layout, start=1):
            table = Table(definition.seats_per_table)
            self.tables[number] = _Playing(number, table)
            for seat, player in enumerate(seats):
                if player is not None:
                    table.seat(player, seat)
                    self.where[player] = (number, seat)
                    events.append(Seated(player, number, seat, self.stacks[player]))
            self._open.resize(number, len(table.players))
            self._set_idle(number, True)
        self._level_started_at = now
        events.append(self._level_event())
        if self.players_left <= self.seats_won:  # a satellite with a seat for everyone is over at once (K.45)
            self._seat_everyone_left(events)
            return events
        self._check_hand_for_hand(events)
        return events

    # ---------------------------------------------------------- the clock

    def advance(self, now: float) -> list[Event]:
        """Move the tournament clock to ``now`` (seconds): levels by time or by hands, and breaks.

        A level of ``hands`` ends once a table has dealt that many hands in
        it. Breaks come after every ``breaks.every_levels`` levels and stop
        new hands; hands in progress finish. The last level lasts until the end.
        """
        events: list[Event] = []
        if self.status is not Status.RUNNING:
            return events
        self._now = now
        self._expire(now, events)
        levels = self.definition.levels
        while True:
            if self.break_until is not None:
                if now < self.break_until:
                    break
                self._level_started_at, self.break_until = self.break_until, None
                self.level += 1
                events += [BreakEnded(), self._level_event()]
                continue
            if self.level == len(levels) - 1:
                break
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
            rebuys = self.definition.rebuys
            if rebuys is not None and self.level + 1 == rebuys.levels:
                self._end_rebuy_period(ends_at, events)
            flight = self.definition.flight
            if flight is not None and self.level + 1 == flight.stop_level:
                self.flight_stopping = True
            breaks = self.definition.breaks
            if breaks is not None and (self.level + 1) % breaks.every_levels == 0:
                self.break_until = ends_at + breaks.minutes * 60
                events.append(BreakStarted(self.break_until))
            else:
                self.level += 1
                self._level_started_at = ends_at
                events.append(self._level_event())
        self._maybe_close_flight(events)
        return events

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
        if len(state.table.players) < 2:
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
        self._set_idle(table, False)
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
        self._set_idle(table, True)
        busts = []
        for position, (player, stack) in enumerate(zip(hand.players, hand.stacks)):
            stack += self._pending_chips.pop(player, 0) if self._pending_chips else 0
            if stack == 0:
                knockers = _knocked_out_by(hand, player) if self.bounties else ()
                busts.append(_Bust(player, hand.starting_stacks[position], table, position, knockers))
            self.stacks[player] = stack
        events: list[Event] = [HandFinished(table, state.number, dict(zip(hand.players, hand.stacks)))]
        if self._round is not None and table in self._round:
            self._round_busts += busts
            self._round.discard(table)
            if not self._round:
                self._close_round(events)
        else:
            self._settle(busts, events, round_=False)
        if self._deal_due and self.status is Status.RUNNING and not self._held:
            self._propose_deal(events)
        self._maybe_close_flight(events)
        return events

    def verify_void_hand(self, table: int) -> Hand:
        if self.status is not Status.RUNNING:
            raise TournamentError(f"only a running tournament's hands can be void; it is {self.status}")
        return self.verify_act(table)

    def void_hand(self, table: int) -> list[Event]:
        """Call off the table's hand: its players keep their start-of-hand stacks (a server restored after a crash).

        Chips that arrived for them during the hand (an add-on, a merge) are
        added now. Under hand-for-hand the table deals its round's hand again.
        """
        self.verify_void_hand(table)
        return [self._void(table)]

    # ------------------------------------------------ re-buys and add-ons

    def verify_rebuy(self, player: str) -> None:
        rebuys = self.definition.rebuys
        if rebuys is None:
            raise TournamentError("this tournament has no re-buys (F.25)")
        if self.status is not Status.RUNNING:
            raise TournamentError(f"re-buys are only while Running; the tournament is {self.status}")
        if player not in self.stacks:
            raise TournamentError(f"{player} is not playing")
        if player in self.rebuy_offers:
            return  # a bust in the period keeps its offer until the deadline
        if self.rebuy_period_over:
            raise TournamentError("the re-buy period is over (F.25)")
        if self.rebuys_taken.get(player, 0) >= rebuys.max_count:
            raise TournamentError(f"{player} has used all {rebuys.max_count} re-buys")
        if rebuys.allowed_at == "zero":
            raise TournamentError("a re-buy is offered only at zero chips in this tournament (F.25)")
        if self.stacks[player] + self._pending_chips.get(player, 0) > self.definition.starting_stack:
            raise TournamentError("a re-buy needs a stack at or below the starting stack (F.25)")
        if self._in_hand(player):
            raise TournamentError(f"{player} is in a hand; re-buy between hands (F.25)")

    def rebuy(self, player: str) -> list[Event]:
        """Buy the re-buy's chips: a bust's answer to its offer, or a short stack's choice between hands."""
        self.verify_rebuy(player)
        rebuys = self.definition.rebuys
        assert rebuys is not None
        count = self.rebuys_taken.get(player, 0) + 1
        self.rebuys_taken[player] = count
        self._pay(player, "rebuy", rebuys.price_cents, "rebuy_fee", rebuys.fee_cents)
        self.chips_issued += rebuys.chips
        self.stacks[player] += rebuys.chips
        self._price_prizes()
        events: list[Event] = [RebuyTaken(player, rebuys.chips, count, rebuys.price_cents + rebuys.fee_cents)]
        if player in self.rebuy_offers:
            self._answered(player, events, rebought=True)
        return events

    def verify_decline_rebuy(self, player: str) -> None:
        if player not in self.rebuy_offers:
            raise TournamentError(f"{player} has no re-buy offer")

    def decline_rebuy(self, player: str) -> list[Event]:
        """Say no to a re-buy offer: the player is eliminated with the busts of their hand (F.25)."""
        self.verify_decline_rebuy(player)
        events: list[Event] = [RebuyDeclined(player, "declined")]
        self._answered(player, events, rebought=False)
        return events

    def verify_add_on(self, player: str) -> None:
        if self.definition.add_on is None:
            raise TournamentError("this tournament has no add-on (F.26)")
        if self.add_on_until is None:
            raise TournamentError("the add-on is offered only at the end of the re-buy period (F.26)")
        if player not in self.stacks:
            raise TournamentError(f"{player} is not playing")
        if player in self.add_ons:
            raise TournamentError(f"{player} has already taken the add-on")

    def add_on(self, player: str) -> list[Event]:
        """Buy the add-on once, whatever the stack; chips bought during a hand arrive when it ends (F.26)."""
        self.verify_add_on(player)
        add_on = self.definition.add_on
        assert add_on is not None
        self.add_ons.add(player)
        self._pay(player, "add_on", add_on.price_cents, "add_on_fee", add_on.fee_cents)
        self.chips_issued += add_on.chips
        if self._in_hand(player):
            self._pending_chips[player] = self._pending_chips.get(player, 0) + add_on.chips
        else:
            self.stacks[player] += add_on.chips
        self._price_prizes()
        return [AddOnTaken(player, add_on.chips, add_on.price_cents + add_on.fee_cents)]

    # --------------------------------------------------------- deals (H.36)

    def verify_press_deal(self, player: str, on: bool = True) -> None:
        if not self.definition.deals:
            raise TournamentError("this tournament does not allow deals (H.36)")
        if self.status is not Status.RUNNING:
            raise TournamentError(f"deals are only while Running; the tournament is {self.status}")
        if player not in self.stacks:
            raise TournamentError(f"{player} is not playing")
        if len(self.tables) != 1 or self.players_left > len(self.prizes):
            raise TournamentError("deals are only at the final table once every player left is in the money (H.36)")
        if self.proposal is not None:
            raise TournamentError("a deal proposal is already on the table")
        if not isinstance(on, bool):
            raise TournamentError("pressing Deal is on (true) or off (false)")

    def press_deal(self, player: str, on: bool = True) -> list[Event]:
        """Press (or un-press) Deal; once everyone has, the proposal comes at the end of the hand (H.36)."""
        self.verify_press_deal(player, on)
        if on:
            self.deal_pressed.add(player)
        else:
            self.deal_pressed.discard(player)
        events: list[Event] = [DealPressed(player, on, len(self.deal_pressed), self.players_left)]
        self._deal_due = len(self.deal_pressed) == self.players_left
        if self._deal_due and not any(state.hand for state in self.tables.values()) and not self._held:
            self._propose_deal(events)
        return events

    def verify_answer_deal(self, player: str) -> None:
        if self.proposal is None:
            raise TournamentError("there is no deal proposal")
        if player not in self.proposal.amounts:
            raise TournamentError(f"{player} is not part of the deal")
        if player in self.proposal.accepted:
            raise TournamentError(f"{player} has already accepted")

    def verify_accept_deal(self, player: str) -> None:
        self.verify_answer_deal(player)

    def verify_reject_deal(self, player: str, reason: str = "rejected") -> None:
        self.verify_answer_deal(player)

    def accept_deal(self, player: str) -> list[Event]:
        """Accept the ICM proposal; when the last player does, the amounts are paid and the tournament ends."""
        self.verify_answer_deal(player)
        deal = self.proposal
        assert deal is not None
        deal.accepted.add(player)
        events: list[Event] = [DealAccepted(player)]
        if len(deal.accepted) == len(deal.amounts):
            self._close_deal(deal, events)
        return events

    def reject_deal(self, player: str, reason: str = "rejected") -> list[Event]:
        """Any no (or a disconnection, ``reason='disconnected'``) ends the proposal; play continues (H.36)."""
        self.verify_answer_deal(player)
        return self._no_deal(player, "disconnected" if reason == "disconnected" else "rejected")

    # ---------------------------------------------------------- internals

    def _maybe_close_flight(self, events: list[Event]) -> None:
        """A stopped flight ends once no hand is in progress and no re-buy is pending (L.47, L.49).

        Everyone still holding chips qualifies; the pool goes to the final,
        the house keeps the fees.
        """
        if (not self.flight_stopping or self.status is not Status.RUNNING or self._held
                or any(state.hand is not None for state in self.tables.values())):
            return
        survivors = dict(self.stacks)
        pool = self.ledger.pool_cents
        if pool:
            self.ledger.record("carried", "", pool)
        if self.ledger.fees_cents:
            self.ledger.record("fee_kept", "", self.ledger.fees_cents)
        self.status = Status.FINISHED
        self.hand_for_hand = False
        events += [FlightFinished(survivors, pool), StatusChanged(self.status.value)]

    def _pay_bounty(self, victim: str, winners: tuple[str, ...], events: list[Event]) -> None:
        """The victim's bounty to the winners of the pot holding their last chips (J.40-J.42).

        Tied winners split it, odd cents to the earliest position; each
        share's cash part is floored to the cent and the rest goes on the
        winner's own head. With no knocker found (none can be, short of a
        bug) the bounty goes back to its owner. A knocker who has left by the
        time the knockout is settled (it waited on a re-buy answer) takes it
        all in cash.
        """
        bounty = self.bounties.pop(victim)
        assert self.definition.bounty is not None
        winners = winners or (victim,)
        share, odd = divmod(bounty, len(winners))
        shares = [share + (1 if k < odd else 0) for k in range(len(winners))]
        cash_percent = 100 - self.definition.bounty.progressive_percent if victim not in winners else 100
        cash = [amount * cash_percent // 100 for amount in shares]
        cash = [amount if winner not in self.bounties else paid for winner, amount, paid in zip(winners, shares, cash)]
        heads = [amount - paid for amount, paid in zip(shares, cash)]
        for winner, paid, head in zip(winners, cash, heads):
            if paid:
                self.ledger.record("bounty", winner, paid)
            if head:
                self.bounties[winner] += head
        events.append(BountyWon(victim, winners, tuple(cash), tuple(heads)))

    def _void(self, table: int) -> HandVoided:
        state = self.tables[table]
        hand = state.hand
        assert hand is not None
        state.hand = None
        self._set_idle(table, True)
        self._round_started.discard(table)
        if self._round is not None and table in self._round:
            self._round_to_deal.add(table)
        for player in hand.players:
            if player in self._pending_chips:
                self.stacks[player] += self._pending_chips.pop(player)
        return HandVoided(table, state.number)

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
            self.prizes = prizes_cents(self.definition.payouts, self.prize_pool_cents, len(self.entries))
        self._h4h_points = set(hand_for_hand_points(self.prizes, self.definition.hand_for_hand_min_jump_cents))

    def _in_hand(self, player: str) -> bool:
        state = self.tables.get(self.where[player][0]) if player in self.where else None
        return state is not None and state.hand is not None and player in state.hand.players

    def _expire(self, now: float, events: list[Event]) -> None:
        """Decisions whose clock has run out: a re-buy offer is a no, the add-on closes, a deal fails."""
        for player, until in sorted(self.rebuy_offers.items(), key=lambda item: item[1]):
            if until <= now and player in self.rebuy_offers:
                events.append(RebuyDeclined(player, "expired"))
                self._answered(player, events, rebought=False)
        if self.add_on_until is not None and now >= self.add_on_until:
            self.add_on_until = None
            events.append(AddOnEnded())
        if self.proposal is not None and now >= self.proposal.until:
            events += self._no_deal("", "expired")

    def _end_rebuy_period(self, ends_at: float, events: list[Event]) -> None:
        self.rebuy_period_over = True
        add_on = self.definition.add_on
        if add_on is not None:
            self.add_on_until = ends_at + add_on.offer_seconds
            events.append(AddOnOffered(self.add_on_until, add_on.price_cents + add_on.fee_cents, add_on.chips))

    def _settle(self, busts: list[_Bust], events: list[Event], *, round_: bool) -> None:
        """A hand's or round's busts: offer re-buys first, and rank the batch once every offer is answered."""
        rebuys = self.definition.rebuys
        offered = [] if rebuys is None or self.rebuy_period_over else [
            bust for bust in busts if self.rebuys_taken.get(bust.player, 0) < rebuys.max_count]
        if not offered:
            self._conclude(busts, events, round_)
            return
        assert rebuys is not None
        self._held.append(_Held(busts, round_, {bust.player for bust in offered}))
        for bust in offered:
            until = self._now + rebuys.offer_seconds
            self.rebuy_offers[bust.player] = until
            events.append(RebuyOffered(bust.player, until, rebuys.price_cents + rebuys.fee_cents, rebuys.chips))
        if not round_:  # the rest of the room goes on: tables due to close close, counting the offered as in
            self._after_change(events)

    def _answered(self, player: str, events: list[Event], *, rebought: bool) -> None:
        del self.rebuy_offers[player]
        held = next(h for h in self._held if player in h.waiting)
        held.waiting.discard(player)
        if rebought:
            held.busts = [bust for bust in held.busts if bust.player != player]
        if not held.waiting:
            self._held.remove(held)
            self._conclude(held.busts, events, held.round_)

    def _conclude(self, busts: list[_Bust], events: list[Event], round_: bool) -> None:
        self._eliminate(busts, events, round_=round_)
        if self.status is not Status.RUNNING:
            return
        if round_ and busts:  # D.16: ends after the first synchronised round with an elimination
            self.hand_for_hand = False
            events.append(HandForHandEnded(self.players_left))
        flight = self.definition.flight
        if flight is not None and flight.stop_share_percent is not None and self._h4h_points \
                and self.players_left < min(self._h4h_points):
            self.flight_stopping = True
        self._after_change(events)

    def _propose_deal(self, events: list[Event]) -> None:
        """The ICM split of what the pool still holds, for places 1..n, in cents (H.31-H.36, G.30)."""
        self._deal_due = False
        (state,) = self.tables.values()
        seat_order = state.table.players  # every player left, dealt in next hand or not
        stacks = [self.stacks[p] for p in seat_order]
        prizes = self.prizes[:len(seat_order)]
        pool = self.ledger.pool_cents
        prizes[0] += pool - sum(prizes)
        tie_rank = {p: rank for rank, p in enumerate(sorted(seat_order, key=lambda p: -self.stacks[p]))}
        cents = largest_remainder(equities(stacks, prizes), pool, [tie_rank[p] for p in seat_order])
        self.proposal = _Deal(dict(zip(seat_order, cents)), self._now + self.definition.deal_seconds, seat_order)
        events.append(DealProposed(dict(self.proposal.amounts), dict(zip(seat_order, stacks)), self.proposal.until))

    def _no_deal(self, player: str, reason: Any) -> list[Event]:
        self.proposal = None
        self.deal_pressed.clear()
        self._deal_due = False
        return [DealRejected(player, reason)]

    def _close_deal(self, deal: _Deal, events: list[Event]) -> None:
        """Everyone accepted: pay the amounts; places follow the stacks, then the seat numbers."""
        order = sorted(deal.seat_order, key=lambda p: (-self.stacks[p], deal.seat_order.index(p)))
        for place, player in enumerate(order, start=1):
            self.results[player] = Result(player, place, deal.amounts[player])
            self._pay_prize(player, deal.amounts[player])
        self.stacks.clear()
        self.proposal = None
        self._end(events, deal=True)

    def _pay_prize(self, player: str, cents: int, *, ticket: bool = False) -> None:
        if cents:
            self.ledger.record("ticket" if ticket else "prize", player, cents)

    def _end(self, events: list[Event], *, deal: bool = False) -> None:
        """The tournament is over: the players left collect their own bounties (J.43); the house keeps the fees."""
        for player in sorted(self.bounties):
            self._pay_bounty(player, (player,), events)
        self.status = Status.FINISHED
        self.hand_for_hand = False
        if self.ledger.fees_cents:
            self.ledger.record("fee_kept", "", self.ledger.fees_cents)
        events += [TournamentFinished(tuple(self.standings()), deal), StatusChanged(self.status.value)]

    @property
    def _entry_price(self) -> int:
        return self.definition.buy_in_cents + self.definition.fee_cents

    @property
    def _person(self) -> Callable[[str], str] | None:
        """The multi-entry constraint, or None when every entry is a person of its own (the fast path)."""
        return person_of(self._people) if self._people else None

    def _cancel(self, policy: RefundPolicy | None = None) -> list[Event]:
        refunds = self.cancellation_preview(policy)
        events: list[Event] = []
        for table, state in sorted(self.tables.items()):
            if state.hand is not None:  # void: its players keep their start-of-hand stacks (I)
                events.append(self._void(table))
        for player in list(self.rebuy_offers):
            events.append(RebuyDeclined(player, "cancelled"))
        self.rebuy_offers.clear()
        self._held.clear()
        self.proposal = None
        self.status = Status.CANCELLED
        events.append(StatusChanged(self.status.value))
        for refund in refunds:
            if refund.pool_cents:
                self.ledger.record("refund", refund.player, refund.pool_cents)
            if refund.fee_cents:
                self.ledger.record("refund", refund.player, refund.fee_cents, account="fees")
            if refund.bounty_cents:
                self.ledger.record("refund", refund.player, refund.bounty_cents, account="bounties")
            events.append(Refunded(refund.player, refund.cents, "cancelled", refund.rule))
        if self.ledger.pool_cents or self.ledger.bounties_cents:
            raise AssertionError(f"a cancellation left {self.ledger.pool_cents} cents in the pool and "
                                 f"{self.ledger.bounties_cents} on heads")
        if self.ledger.fees_cents:
            self.ledger.record("fee_kept", "", self.ledger.fees_cents)
        self.refunds = refunds
        self.stacks.clear()
        self.bounties.clear()
        return events

    def _level_event(self) -> LevelChanged:
        level = self.definition.levels[self.level]
        return LevelChanged(self.level + 1, level.small_blind, level.big_blind, level.ante, level.bb_ante)

    def _set_idle(self, table: int, idle: bool) -> None:
        """A table enters or leaves ``_idle``, which stays dense.

        A Python set never shrinks when emptied, and iterating it costs its
        largest size: every table is idle before the first deal, so without a
        rebuild ``tables_ready`` would pay for the whole starting field per hand.
        """
        if idle:
            self._idle.add(table)
            self._idle_peak = max(self._idle_peak, len(self._idle))
            if table in self._breaking:
                self._breaking_idle.add(table)
        else:
            self._idle.discard(table)
            if len(self._idle) * 8 < self._idle_peak:
                self._idle = set(self._idle)
                self._idle_peak = len(self._idle)
            self._breaking_idle.discard(table)
        self._open.idle(table, idle)

    def _belongs(self, entry: str, person: str) -> None:
        self._people[entry] = person
        self._entries_of.setdefault(person, set()).add(entry)

    def _seated_with(self, entry: str) -> list[int]:
        """The tables where the other entries of ``entry``'s person sit."""
        return [self.where[other][0] for other in self._entries_of.get(self.person(entry), ())
                if other != entry and other in self.where]

    def _prize(self, place: int) -> int:
        return self.prizes[place - 1] if place <= len(self.prizes) else 0

    def _eliminate(self, busts: list[_Bust], events: list[Event], *, round_: bool = False) -> None:
        """One hand's or round's busts take places N_after+1 .. N_before (G.28-G.30, D.17).

        More chips at the start of the hand places higher, and equal stacks
        share their places' prizes (PokerStars). For a hand-for-hand round the
        definition may choose instead: ``wsop``, busts at different tables tie
        (at one table the bigger stack still places higher), or ``tda``, every
        bust of the round shares the places crossed (TDA RP-8A). Within a tie
        places go by stack, then table, then the first seat left of the
        button; the odd cents of a split go to the better placed.
        """
        if not busts:
            return
        ties: str = self.definition.hand_for_hand_ties if round_ else "pokerstars"
        if self.definition.satellite is not None:
            ties = "position"  # a seat cannot be split: equal stacks go by position (K.46, G.29 Decision)
        for bust in busts:
            if ties == "wsop":  # rank among the busts of the same table
                bust.tie = sum(other.start_stack > bust.start_stack for other in busts if other.table == bust.table)
            elif ties == "pokerstars":
                bust.tie = -bust.start_stack
        busts.sort(key=lambda b: (b.tie, -b.start_stack, b.table, b.position))
        if ties == "position":
            for rank, bust in enumerate(busts):
                bust.tie = rank
        place = self.players_left - len(busts) + 1
        awarded: list[Result] = []
        index = 0
        while index < len(busts):
            tied = [b for b in busts[index:] if b.tie == busts[index].tie]
            places = range(place, place + len(tied))
            share, odd = divmod(sum(self._prize(k) for k in places), len(tied))
            for rank, (bust, finish) in enumerate(zip(tied, places)):
                awarded.append(Result(bust.player, finish, share + (1 if rank < odd else 0), finish <= self.seats_won))
            index += len(tied)
            place += len(tied)
        self.deal_pressed.clear()  # the players changed: a deal starts over
        self._deal_due = False
        knockers = {bust.player: bust.knocked_out_by for bust in busts}
        for result in reversed(awarded):  # the worst place first, as a floor announces them
            self._pay_prize(result.player, result.prize_cents, ticket=result.ticket)
            table_id, seat = self.where.pop(result.player)
            self.tables[table_id].table.remove(seat)
            if table_id in self._open:
                self._open.resize(table_id, self._open.size[table_id] - 1)
            del self.stacks[result.player]
            self.results[result.player] = result
            events.append(PlayerEliminated(result.player, result.place, result.prize_cents, table_id))
            if result.player in self.bounties:
                self._pay_bounty(result.player, knockers.get(result.player, ()), events)
        if self.players_left <= self.seats_won:
            self._seat_everyone_left(events)
        elif self.players_left == 1:
            if self.definition.flight is not None:
                self.flight_stopping = True  # the last player standing qualifies; the flight pays no prize
            else:
                self._finish(events)

    def _seat_everyone_left(self, events: list[Event]) -> None:
        """A satellite ends at the end of the hand in which players left <= seats: each left wins a seat (K.45).

        Their stacks no longer matter; places go by stack for the record, and
        hands still in progress at other tables are void (Decision). Cash the
        pool still holds with nobody left to take it (more seats than players
        from the start) is shared among them, the odd cents to the better
        placed (Decision).
        """
        for table, state in sorted(self.tables.items()):
            if state.hand is not None:
                events.append(self._void(table))
        left = sorted(self.stacks, key=lambda p: (-self.stacks[p], self.where[p]))
        cash = self.ledger.pool_cents - sum(self._prize(place) for place in range(1, len(left) + 1))
        share, odd = divmod(cash, len(left))
        for place, player in enumerate(left, start=1):
            extra = share + (1 if place <= odd else 0)
            self.results[player] = Result(player, place, self._prize(place) + extra, True)
            self._pay_prize(player, self._prize(place), ticket=True)
            self._pay_prize(player, extra)
        self._end(events)

    def _finish(self, events: list[Event]) -> None:
        """The last player wins first place: what the pool still holds (the prize table's first prize)."""
        (winner,) = self.stacks
        self.results[winner] = Result(winner, 1, self.ledger.pool_cents)
        self._pay_prize(winner, self.ledger.pool_cents)
        self._end(events)

    def _after_change(self, events: list[Event]) -> None:
        """Between hands: close tables no longer needed, balance, and check hand-for-hand."""
        self._plan_breaks()
        # Only the tables locked to close that are between hands: in a large field many more are locked and
        # still playing their hand, and looking at those after every hand would cost more than the hand.
        for table in sorted(self._breaking_idle):
            self._break(table, events)
        self._balance(events)
        self._check_hand_for_hand(events)

    def _plan_breaks(self) -> None:
        """Lock tables to close while more are open than ceil(N/S) (B.5, B.8): fewest players, ties at random (B.6)."""
        needed = math.ceil(self.players_left / self.definition.seats_per_table)
        while len(self._open) > needed:
            fewest, _ = self._open.sizes()
            table = self._open.nth_of_size(fewest, self.rng.randrange(self._open.count_of_size(fewest)))
            self.tables[table].breaking = True
            self._breaking.add(table)
            if table in self._idle:
                self._breaking_idle.add(table)
            self._open.drop(table)

    def _break(self, table: int, events: list[Event]) -> None:
        """Close a locked table after its hand; its players draw open seats at the other tables (B.7)."""
        state = self.tables.pop(table)
        self._set_idle(table, False)
        self._breaking.discard(table)
        self.tables_broken += 1
        events.append(TableBroken(table, self.players_left))
        placed, unplaced = draw_open_seats(state.table.players, self._open, lambda t: self.tables[t].table,
                                           self.rng, self._person, self._seated_with)
        for player, to_table, seat in placed:
            self.where[player] = (to_table, seat)
            self._open.resize(to_table, self._open.size[to_table] + 1)
            events.append(PlayerMoved(player, table, to_table, seat, "break"))
        self.moves += len(placed)
        for player in unplaced:
            self._merge(player, events)

    def _merge(self, absorbed: str, events: list[Event]) -> None:
        """Merge a seatless entry into another entry of its person (M.51, Decision: the lowest open place).

        The stack goes to the person's entry not in a hand if there is one
        (else the one with the lowest id), and is added when its hand ends.
        """
        who = self._people[absorbed]
        into = min((p for p in self._entries_of[who] if p != absorbed and p in self.stacks),
                   key=lambda p: (self._in_hand(p), p))
        place = self.players_left
        chips = self.stacks.pop(absorbed)
        table = self.where.pop(absorbed)[0]
        if self._in_hand(into):
            self._pending_chips[into] = self._pending_chips.get(into, 0) + chips
        else:
            self.stacks[into] += chips
        ticket = place <= self.seats_won
        self.results[absorbed] = Result(absorbed, place, self._prize(place), ticket)
        self._pay_prize(absorbed, self._prize(place), ticket=ticket)
        if absorbed in self.bounties:  # the heads are summed with the stacks (M.51)
            self.bounties[into] += self.bounties.pop(absorbed)
        events += [EntriesMerged(absorbed, into, chips), PlayerEliminated(absorbed, place, self._prize(place), table)]
        if self.players_left <= self.seats_won:
            self._seat_everyone_left(events)
        elif self.players_left == 1:
            self._finish(events)

    def _balance(self, events: list[Event]) -> None:
        """While the open tables differ by two or more, move from a fullest table between hands (A.3-A.4)."""
        while len(self._open) >= 2:
            shortest, fullest = self._open.sizes()
            if fullest - shortest < 2:
                return
            source_id = self._open.lowest_idle(fullest)
            if source_id is None:
                return  # a fullest table moves someone when its hand ends
            source = self.tables[source_id]
            drawn = self._destination(source, shortest)
            if drawn is None:
                return  # every candidate has another entry at each shortest table: wait for the next hand
            destination, seat = drawn
            to_seat = worst_seat(destination.table)
            player = source.table.remove(seat)
            destination.table.seat(player, to_seat)
            self.where[player] = (destination.id, to_seat)
            self._open.resize(source.id, fullest - 1)
            self._open.resize(destination.id, shortest + 1)
            self.moves += 1
            events.append(PlayerMoved(player, source.id, destination.id, to_seat, "balance"))

    def _destination(self, source: _Playing, shortest: int) -> tuple[_Playing, int] | None:
        """A table of the shortest size drawn at random (A.3), the next at random while none of the source's
        players may sit there (M.50), and the seat of the player who moves; None when no table will do."""
        movers: dict[int, int] = {}

        def takes_a_mover(destination: int) -> bool:
            try:
                movers[destination] = balancing_mover(source.table, self.tables[destination].table, self._person)
            except SeatingError:
                return False
            return True

        drawn = self._open.draw_of_size(shortest, self.rng, takes_a_mover)
        return None if drawn is None else (self.tables[drawn], movers[drawn])

    def _hand_for_hand_due(self) -> bool:
        """D.14: two or more tables, and the next bust changes prize money by at least the jump."""
        return len(self._open) >= 2 and self.players_left in self._h4h_points

    def _check_hand_for_hand(self, events: list[Event]) -> None:
        """Start hand-for-hand when due; open its round once every table has finished its hand (D.15).

        A hand already in progress when hand-for-hand is called finishes as
        usual. If its busts take the field past the pay jump, the jump has
        happened and hand-for-hand ends before any synchronised round.
        """
        due = self._hand_for_hand_due()
        if not self.hand_for_hand:
            if not due:
                return
            self.hand_for_hand = True
            self.hand_for_hand_at.append(self.players_left)
            events.append(HandForHandStarted(self.players_left))
        if self._round is not None:
            return
        if not due:
            self.hand_for_hand = False
            events.append(HandForHandEnded(self.players_left))
            return
        if len(self._idle) == len(self.tables):
            self._round = {t for t in self.tables if len(self.tables[t].table.players) >= 2}
            self._round_started = set()
            self._round_to_deal = set(self._round)

    def _close_round(self, events: list[Event]) -> None:
        """Every table has finished the round: its busts are one batch across tables (D.17), then moves."""
        busts, self._round_busts, self._round = self._round_busts, [], None
        self._round_to_deal = set()
        self._settle(busts, events, round_=True)



def _knocked_out_by(hand: Hand, victim: str) -> tuple[str, ...]:
    """Who won the pot holding ``victim``'s last chips: the player(s) covering them (rules.md J.41).

    A player's contribution is what they put in the pots (blinds, bets and
    calls, less what was returned; antes are dead money in every pot). The
    victim's last chips are in the first pot whose contenders each put in at
    least as much as the victim did.
    """
    put_in: dict[str, int] = {}
    for event in hand.events:
        if isinstance(event, Acted) or (isinstance(event, Posted) and event.kind in ("small_blind", "big_blind")):
            put_in[event.player] = put_in.get(event.player, 0) + event.amount
        elif isinstance(event, Returned):
            put_in[event.player] -= event.amount
    level = put_in.get(victim, 0)
    for event in hand.events:
        if isinstance(event, PotAwarded) and min(put_in.get(p, 0) for p in event.eligible) >= level:
            return event.winners
    return ()
