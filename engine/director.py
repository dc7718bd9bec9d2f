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

The state lives below the rules (engine/state.py): ``State`` holds the
parts (engine/parts/), each a class whose fields only its own methods write
(the floor, hand-for-hand's rounds, the people behind the entries, what is
pending, the clock, the chips, the entries, the places, where the tournament
stands, the prize table, the re-buys, a deal in the making, the bounties).
The policies are modules of functions of a ``State`` (engine.floor,
handforhand, eliminations, lateentry, rebuys, console, deals ...): they read
it, change it through the parts, return events, and never call one another
nor name this class: what follows what is this class's sequence (``_settle``,
``_answered``, ``_conclude``, ``_after_change``). The primitives they share
call no policy: engine.standings, prizes, clock, registration, windows,
bounties (a rule object per kind) and seating. ``Tournament`` is a ``State``
with the one public face: its commands, their ``verify_*`` and ``can``
queries. It writes two fields itself: the definition (the console's edit of
a level to come) and the count of hands it dealt.

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

import random
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, Concatenate, ParamSpec, TypeVar

from mypy_extensions import mypyc_attr

from engine import (
    cancellation, clock, console, corrections, deals, delivery, eliminations, flights, floor, handforhand,
    lateentry, pickling, prizes, rebuys, registration, snapshots, standings, windows,
)
from engine.cards import shuffled_deck
from engine.eliminations import Outcome
from engine.events import Event, HandFinished, HandStarted, LevelEdited, Registered, Seated, SeatStack, StatusChanged
from engine.hand import Hand
from engine.parts.busts import Bust
from engine.seating import initial_draw
from engine.state import State
from engine.status import Status, TournamentError
from engine.structure import Definition

__all__ = ["Status", "Tournament", "TournamentError"]

Face = TypeVar("Face")
Arguments = ParamSpec("Arguments")
Answer = TypeVar("Answer")


def bound(policy: Callable[Concatenate[Face, Arguments], Answer]) -> Callable[Concatenate[Face, Arguments], Answer]:
    """A policy's function as a method of the face. A function compiled by mypyc (setup.py) is not a descriptor and
    would not bind to the tournament it is called on; this one does, whether the policy is compiled or not. The
    face holds it as a ``ClassVar``: a compiled class keeps any other class attribute as an instance's default."""
    def method(self: Face, /, *args: Arguments.args, **kwargs: Arguments.kwargs) -> Answer:
        return policy(self, *args, **kwargs)
    method.__doc__ = policy.__doc__
    return method


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Tournament(State):
    """One tournament from announcement to results. Players are entry ids (strings)."""

    def __init__(self, definition: Definition, rng: random.Random,
                 deal: Callable[[random.Random, Sequence[str]], list[int] | None] = shuffled_deck) -> None:
        """``deal`` shuffles each hand's deck from ``rng``, given the players dealt in, in the order their cards
        are dealt; a replay or a test can hand in its own decks (a test rigs who wins: tests/tournaments.py), and
        the simulator none for the hands its workers deal and play (engine.hand.Hand with no deck)."""
        super().__init__(definition, rng, deal)

    def __getstate__(self) -> dict[str, Any]:
        return pickling.state(self, pickling.attributes(self))

    def __setstate__(self, state: dict[str, Any]) -> None:
        """A tournament pickled by an older engine (a snapshot in an older journal) gets the state it lacks."""
        pickling.restore(self, snapshots.upgraded(state))

    # ------------------------------------------------------------ queries

    @property
    def tables_broken(self) -> int:
        return self.floor.broken

    @property
    def moves(self) -> int:
        return self.floor.moves

    @property
    def tables_to_break(self) -> list[int]:
        """Tables chosen to close that are finishing their hand first (B.7)."""
        return sorted(self.floor.breaking)

    def hand(self, table: int) -> Hand | None:
        """The table's hand in progress (or finished and not yet ended)."""
        return self.floor.tables[table].hand if table in self.floor.tables else None

    def hand_number(self, table: int) -> int:
        return self.floor.tables[table].number

    level_ends_at: ClassVar = bound(clock.level_ends_at)
    hand_for_hand_due: ClassVar = bound(handforhand.due)
    break_starts_at: ClassVar = bound(clock.break_starts_at)
    entries_open: ClassVar = bound(windows.is_open)
    entries_close_at: ClassVar = bound(windows.closes_at)
    prize_table_for: ClassVar = bound(prizes.table_for)
    projected_prizes: ClassVar = bound(prizes.projected)
    full_field_prizes: ClassVar = bound(prizes.full_field)
    stage: ClassVar = bound(prizes.stage)
    cancellation_preview: ClassVar = bound(cancellation.preview)
    still_in: ClassVar = bound(cancellation.still_in)
    reschedule_policy: ClassVar = bound(cancellation.rescheduling)

    def can(self, command: str, *args: Any) -> bool:
        """Whether ``verify_<command>`` lets the command through with ``args``."""
        try:
            getattr(self, f"verify_{command}")(*args)
        except TournamentError:
            return False
        return True

    def can_register(self, player: str, person: str | None = None) -> bool:
        return self.can("register", player, person)

    def can_reenter(self, player: str, new_entry: str) -> bool:
        return self.can("reenter", player, new_entry)

    def can_unregister(self, player: str) -> bool:
        return self.can("unregister", player)

    def can_start_hand(self, table: int) -> bool:
        return self.can("start_hand", table)

    def can_press_deal(self, player: str, on: bool = True) -> bool:
        return self.can("press_deal", player, on)

    def can_propose_deal(self, player: str, kind: object, keep_cents: object = 0, amounts: object = None) -> bool:
        return self.can("propose_deal", player, kind, keep_cents, amounts)

    def can_answer_deal(self, player: str) -> bool:
        """Whether ``player`` may accept or reject the deal on the table now."""
        return self.can("answer_deal", player)

    def chips_in_play(self) -> int:
        """Every chip in the tournament; equal to ``chips_issued`` after every event."""
        in_hands = {p for state in self.floor.tables.values() if state.hand for p in state.hand.players}
        total = sum(stack for player, stack in self.stacks.items() if player not in in_hands)
        total += self.pending.total_chips()
        return total + sum(state.hand.chips_in_play() for state in self.floor.tables.values() if state.hand)

    def tables_ready(self) -> list[int]:
        """Tables that may deal their next hand now, lowest id first."""
        candidates = self.rounds.to_deal if self.hand_for_hand else self.floor.idle
        return sorted(t for t in candidates if self.is_ready(t))

    def is_ready(self, table: int) -> bool:
        """Whether ``table`` may deal its next hand now (``verify_start_hand`` without the reason)."""
        if self.status is not Status.RUNNING or self.break_until is not None:
            return False
        state = self.floor.tables.get(table)
        if (state is None or state.hand is not None or state.breaking or state.table.seated < 2
                or self.proposal is not None or self.flight_stopping):
            return False
        if self.pending.holds() and self.pending.holds_any(state.table.players):
            return False
        return self.rounds.waits_for(table) if self.hand_for_hand else True

    # ----------------------------------------------------- registration (F.23, engine.registration)

    verify_open_registration: ClassVar = bound(registration.verify_open)
    open_registration: ClassVar = bound(registration.open_registration)
    verify_register: ClassVar = bound(registration.verify_register)

    def register(self, player: str, person: str | None = None) -> list[Event]:
        """A new entry. ``person`` groups the entries of one person, who never sit together (M.50).

        While the tournament runs (late registration, F.24) it is seated at once (engine.lateentry).

        ``person`` may be an entry registered without one: that entry then
        belongs to the person too (a second entry named after the first).
        """
        self.verify_register(player, person)
        late = self.status is Status.RUNNING
        registration.group(self, player, person)
        events: list[Event] = [Registered(player, registration.admit(
            self, player, self.definition.late_stack if late else self.definition.starting_stack))]
        if not late:
            return events
        prizes.price(self)
        self.roster.came_late()
        return self._seated_late(events + lateentry.seat(self, player))

    verify_reenter: ClassVar = bound(lateentry.verify_reenter)

    def reenter(self, player: str, new_entry: str) -> list[Event]:
        """The eliminated ``player``'s person buys ``new_entry``: a new stack, seat and place (F.27)."""
        return self._seated_late(lateentry.reenter(self, player, new_entry))

    verify_unregister: ClassVar = bound(registration.verify_unregister)
    unregister: ClassVar = bound(registration.unregister)
    verify_qualify: ClassVar = bound(flights.verify_qualify)
    qualify: ClassVar = bound(flights.qualify)
    verify_carry_in: ClassVar = bound(flights.verify_carry_in)
    carry_in: ClassVar = bound(flights.carry_in)
    verify_cancel: ClassVar = bound(cancellation.verify)
    cancel: ClassVar = bound(cancellation.cancel)

    def verify_start(self) -> None:
        if self.status is not Status.REGISTER:
            raise TournamentError(f"a tournament starts from Register; it is {self.status}")

    def start(self, now: float = 0.0) -> list[Event]:
        """Draw seats and begin level 1; below ``min_players`` entries, cancel and refund instead (F.23)."""
        self.verify_start()
        if len(self.entries) < self.definition.min_players:
            return cancellation.apply(self)
        definition = self.definition
        self.progress.move_to(Status.RUNNING)
        self.clock.tick(now)
        events: list[Event] = [StatusChanged(Status.RUNNING.value)]
        if definition.added_cents:
            self.ledger.record("added", "", definition.added_cents)
        prizes.price(self)
        merged = floor.merged_at_draw(self)
        layout = initial_draw([entry for entry in self.entries if entry not in merged],
                              definition.seats_per_table, self.rng, self.people.person_of())
        events += [Seated(player, table, seat, self.stacks[player])
                   for player, table, seat in self.floor.lay_out(layout)]
        for entry in merged:
            events += floor.merge(self, entry)
        if self.status is not Status.RUNNING:  # one person held every entry (or every seat was won)
            return events
        self.clock.start_level(now)
        breaks = self.definition.breaks
        if breaks is not None and breaks.at_minute is not None:  # the tournament's hours count from its start
            self.clock.schedule_hourly(now + (breaks.at_minute * 60 or 3600))
        events.append(clock.level_event(self))
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
        held = self.pending.answered(player, rebought=rebought)
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
        return events + ([] if self.rounds.under_way else floor.balance(self)) + lateentry.check(self)

    # ---------------------------------------------------------- the clock (engine.clock)

    def advance(self, now: float) -> list[Event]:
        """Move the tournament clock to ``now`` (seconds): offers and deals that expire, levels by time or by
        hands, and breaks; hands in progress finish. The last level lasts until the end."""
        if self.status is not Status.RUNNING:
            return []
        self.clock.tick(now)
        events: list[Event] = []
        for player in self.pending.expired(now):
            if player in self.rebuy_offers:  # a batch ranked meanwhile may have taken them out
                events += rebuys.decline_rebuy(self, player, "expired") + self._answered(player, rebought=False)
        events += rebuys.end_add_on(self, now) + deals.expire(self, now)
        while (ended_at := clock.level_over(self, now, events)) is not None:
            number = self.level + 1
            events += lateentry.level_ended(self, number)
            terms = self.definition.rebuys
            if terms is not None and number == terms.levels:
                events += rebuys.end_period(self, ended_at) + lateentry.check(self)
            flight = self.definition.flight
            if flight is not None and number == flight.stop_level:
                self.progress.stop_flight()
                if number == len(self.definition.levels):
                    break
            events += clock.next_level(self, ended_at)
        return events + flights.maybe_close(self)

    # ------------------------------------------------------------- hands

    def verify_start_hand(self, table: int) -> None:
        if self.status is not Status.RUNNING:
            raise TournamentError(f"hands are dealt only while Running; the tournament is {self.status}")
        state = self.floor.tables.get(table)
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
        if self.pending.holds_any(state.table.players):
            raise TournamentError(f"table {table} waits for a re-buy decision; no hand is missed (F.25, TDA 27)")
        if self.hand_for_hand:
            if not self.rounds.under_way:
                raise TournamentError("hand-for-hand: every table finishes its hand before the next deal (D.15)")
            if self.rounds.has_dealt(table):
                raise TournamentError(
                    f"hand-for-hand: table {table} waits until every table has finished this round (D.15)")

    def start_hand(self, table: int) -> list[Event]:
        """Deal the table's next hand at the current level; the button and blinds move on (C.9-C.12)."""
        self.verify_start_hand(table)
        state = self.floor.tables[table]
        level = self.definition.levels[self.level]
        positions = state.table.start_hand()
        players = state.table.occupants(positions.dealt)
        stacks = list(map(self.stacks.__getitem__, players))
        self.hands_played += 1
        self.floor.hand_dealt(table, Hand(
            players, stacks, small_blind=level.small_blind, big_blind=level.big_blind,
            ante=level.ante, bb_ante=level.bb_ante, deck=self.deal(self.rng, players),
            sb_index=positions.sb_index, bb_index=positions.bb_index,
        ), self.hands_played)
        if self.rounds.under_way:
            self.rounds.dealt(table)
        self.clock.dealt(table)
        return [HandStarted(
            table, state.number, positions.button_seat, self.level + 1,
            tuple(map(SeatStack, players, positions.dealt, stacks)),
        )]

    def verify_act(self, table: int) -> Hand:
        """The table's hand in progress; TournamentError when there is none."""
        state = self.floor.tables.get(table)
        if state is None or state.hand is None:
            raise TournamentError(f"table {table} has no hand in progress")
        return state.hand

    def act(self, table: int, action: object, amount: object = None, player: object = None) -> list[Event]:
        """A decision in the table's hand; ``engine.hand.IllegalAction`` names a broken betting rule."""
        return self.verify_act(table).act(action, amount, player)

    def verify_end_hand(self, table: int, outcome: Outcome | None = None) -> Hand:
        """The table's hand, finished, or with ``outcome`` dealt and not played here; TournamentError when there is
        none to settle, or the outcome could not end it (other players, chips made or lost, a knock-out without a
        bust or by a player who busted)."""
        hand = self.verify_act(table)
        if outcome is None:
            if not hand.finished:
                raise TournamentError(f"table {table}'s hand is not finished")
            return hand
        stacks, knockers = outcome.stacks, outcome.knockers
        made = 0  # chips the outcome makes (or, below zero, loses): one pass of machine integers, as at every hand
        lowest = 1
        for stack in stacks:
            made += stack
            lowest = min(lowest, stack)
        for stack in hand.starting_stacks:
            made -= stack
        if hand.finished or len(stacks) != hand.n or lowest < 0 or made:
            raise TournamentError(f"table {table}'s hand cannot end with stacks {list(stacks)}: chips are kept")
        if not knockers and lowest > 0:
            return hand  # as at most hands: nobody busted
        busted = {place for place, stack in enumerate(stacks) if stack == 0}
        if set(knockers) != busted or not all(
                0 <= w < hand.n and stacks[w] > 0 for winners in knockers.values() for w in winners):
            raise TournamentError(f"table {table}'s hand names knock-outs {knockers} for the busts {sorted(busted)}")
        return hand

    def end_hand(self, table: int, outcome: Outcome | None = None) -> list[Event]:
        """Settle a finished hand: stacks, then (outside a hand-for-hand round) eliminations, breaks, balancing.

        ``outcome`` settles the table's hand as another process played it
        from the same deal (the simulator's ``--jobs``): this director's copy
        stays as dealt and only the end is read.
        """
        hand = self.verify_end_hand(table, outcome)
        self.floor.hand_over(table)
        busts = []
        players = hand.players
        stacks = hand.stacks if outcome is None else outcome.stacks
        ended: dict[str, int] = {}  # each stack as the hand left it, chips that arrived meanwhile not counted
        for position in range(len(players)):  # by index: compiled, no pairs built and unpacked
            player = players[position]
            stack = ended[player] = stacks[position]
            stack += self.pending.take_chips(player)
            if stack == 0:
                knockers = eliminations.knocked_out_by(hand, player) if outcome is None else \
                    tuple(players[place] for place in outcome.knockers[position])
                busts.append(Bust(player, hand.starting_stacks[position], table, position, knockers))
            self.chips.set(player, stack)
        events: list[Event] = [HandFinished(table, self.floor.tables[table].number, ended)]
        if self.removals:
            events += console.removed_after_hand(self, hand.players, bool(busts))
        if self.rounds.includes(table):
            if self.rounds.finished(table, busts):
                events += self._settle(self.rounds.close(), round_=True)
        else:
            events += self._settle(busts, round_=False)
        if self.floor.queued or self.floor.balance_asked:
            events += floor.queued_after_hand(self)
        if self.pending.deal_due and self.status is Status.RUNNING and not self.pending.holds():
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
        events: list[Event] = [self.void(table)]
        events += console.removed_after_hand(self, hand.players, False) if self.removals else []
        events += handforhand.check(self)
        return events + floor.queued_after_hand(self) if self.floor.queued or self.floor.balance_asked else events

    # ------------------------------------------- re-buys and add-ons (engine.rebuys)

    verify_rebuy: ClassVar = bound(rebuys.verify_rebuy)

    def rebuy(self, player: str) -> list[Event]:
        """Buy the re-buy's chips: a bust's answer to its offer, or a short stack's choice (during a hand too)."""
        offered = player in self.rebuy_offers
        events = rebuys.rebuy(self, player)
        return events + self._answered(player, rebought=True) if offered else events

    verify_decline_rebuy: ClassVar = bound(rebuys.verify_decline_rebuy)

    def decline_rebuy(self, player: str) -> list[Event]:
        """Say no to a re-buy offer: the player is eliminated with the busts of their hand (F.25)."""
        return rebuys.decline_rebuy(self, player) + self._answered(player, rebought=False)

    verify_add_on: ClassVar = bound(rebuys.verify_add_on)
    add_on: ClassVar = bound(rebuys.add_on)

    # ---------------------------------------------------------- deals (engine.deals)

    verify_press_deal: ClassVar = bound(deals.verify_press)
    press_deal: ClassVar = bound(deals.press)
    verify_propose_deal: ClassVar = bound(deals.verify_propose)
    propose_deal: ClassVar = bound(deals.propose_kind)
    verify_answer_deal: ClassVar = bound(deals.verify_answer)
    verify_deal_figures: ClassVar = bound(deals.verify_figures)
    deal_figures: ClassVar = bound(deals.figures)
    accept_deal: ClassVar = bound(deals.accept)
    reject_deal: ClassVar = bound(deals.reject)

    # ------------------------------------------- the director's console (engine.console, engine.floor)

    verify_adjust_clock: ClassVar = bound(console.verify_adjust_clock)
    adjust_clock: ClassVar = bound(console.adjust_clock)
    verify_call_break: ClassVar = bound(console.verify_call_break)
    call_break: ClassVar = bound(console.call_break)
    verify_force_hand_for_hand: ClassVar = bound(console.verify_force_hand_for_hand)

    def force_hand_for_hand(self, on: bool) -> list[Event]:
        """Hand-for-hand on the director's word (``on``), or let go."""
        return console.force_hand_for_hand(self, on) + handforhand.check(self)

    verify_edit_level: ClassVar = bound(console.verify_edit_level)

    def edit_level(self, level: Any, small_blind: Any, big_blind: Any, ante: Any = 0,
                   minutes: Any = None) -> list[Event]:
        """Level ``level`` (from 1) as the director now wants it; ``minutes`` None keeps its length. Any: what
        the console sent, which ``verify_edit_level`` refuses with the rule when it is not a level's figures."""
        self.definition = console.edited_level(self, level, small_blind, big_blind, ante, minutes)
        return [LevelEdited(level, small_blind, big_blind, ante, self.definition.levels[level - 1].minutes)]
    verify_move: ClassVar = bound(floor.verify_move)
    move: ClassVar = bound(floor.move)
    verify_balance_now: ClassVar = bound(floor.verify_balance_now)
    balance_now: ClassVar = bound(floor.balance_now)
    verify_withdraw_move: ClassVar = bound(floor.verify_withdraw_move)
    withdraw_move: ClassVar = bound(floor.withdraw_move)
    verify_withdraw_balance: ClassVar = bound(floor.verify_withdraw_balance)
    withdraw_balance: ClassVar = bound(floor.withdraw_balance)
    verify_remove: ClassVar = bound(console.verify_remove)

    def remove(self, player: str, refund: bool) -> list[Event]:
        """Take an entry out (when its hand ends, if it is in one), its buy-in and fee refunded or not."""
        events = console.remove(self, player, refund)
        return events + self._after_change() if events else events  # none while their hand goes on

    # --------------------------------------------- corrections (engine.corrections)

    verify_compensate: ClassVar = bound(corrections.verify_compensate)
    compensate: ClassVar = bound(corrections.compensate)
    verify_declare_failure: ClassVar = bound(corrections.verify_declare_failure)
    declare_failure: ClassVar = bound(corrections.declare_failure)
    verify_record_incident: ClassVar = bound(corrections.verify_record_incident)
    record_incident: ClassVar = bound(corrections.record_incident)
    verify_withdraw_prize: ClassVar = bound(corrections.verify_withdraw_prize)
    withdraw_prize: ClassVar = bound(corrections.withdraw_prize)

    # ----------------------------------- players sent on: what a target did not take (engine.delivery, flights)

    verify_return_seat: ClassVar = bound(delivery.verify_return_seat)
    return_seat: ClassVar = bound(delivery.return_seat)
    verify_top_up_seat: ClassVar = bound(delivery.verify_top_up_seat)
    top_up_seat: ClassVar = bound(delivery.top_up_seat)
    verify_return_pool: ClassVar = bound(delivery.verify_return_pool)
    return_pool: ClassVar = bound(delivery.return_pool)

    def verify_withdraw_qualified(self, player: str, cents: int) -> None:
        flights.verify_withdraw_qualified(self, player, cents)
        if self.status is Status.RUNNING and player in self.stacks:
            console.verify_remove(self, player, False)

    def withdraw_qualified(self, player: str, cents: int) -> list[Event]:
        """A flight's qualification withdrawn (seed 004): its share of the pool back to the flight; its entry
        gone before the start, its stack taken out by the director's removal after (when its hand ends)."""
        self.verify_withdraw_qualified(player, cents)
        events = flights.withdraw_qualified(self, player, cents)
        if self.status is Status.RUNNING and player in self.stacks:
            events += self.remove(player, False)
        return events
