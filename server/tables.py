"""Table tasks and the decision clock: each table deals when the director says it may, and waits on its players.

Each table task asks the director whether it may deal (so the hand-for-hand
barrier, breaks and pauses are the director's answer, not a second
implementation), plays the hand decision by decision against the clock, and
settles it. Every command goes through the runtime's ``submit``.

Clocks (rules.md E.19-E.22): a decision has ``action_seconds`` plus what is
left of the player's time bank, used automatically. When both run out the
clock checks if free and folds otherwise, connected or not, and the player
sits out: from then on their decisions are taken at once, blinds are
posted, until they act or send ``back``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from engine.director import Status
from engine.events import Event, HandStarted
from engine.hand import Hand, IllegalAction
from engine.wire import Countdown, SittingOut, TimedOut, Turn, YourTurn
from server.errors import Refused
from server.records import Act, Advance, AnyRecord, EndHand, Session, StartHand
from server.streams import Streams

CLOCK_TICK_SECONDS = 0.25
TABLES_STARTED_PER_TURN = 15  # tables dealing together (the first deals, after a break) per turn of the event loop


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class TableClock:
    """The decision in progress at one table."""

    __slots__ = ("decision", "answered", "turn_started", "seconds", "time_bank", "button")

    def __init__(self) -> None:
        self.decision = 0  # bumped when a turn starts and when it is answered
        self.answered: asyncio.Future[None] | None = None  # what the table's task awaits, with a timer
        self.turn_started = 0.0
        self.seconds = 0.0  # the decision's whole clock: action seconds plus the time bank
        self.time_bank = 0.0
        self.button = 0


class Tables:
    """The tasks that play a tournament's tables, and the level clock's task."""

    def __init__(self, session: Session, streams: Streams, submit: Callable[[AnyRecord], list[Event]],
                 now: Callable[[], float], hand_pause: float,
                 hand_ended: Callable[[HandStarted, Hand], None]) -> None:
        self.session = session
        self.streams = streams
        self.submit = submit
        self.now = now
        self.hand_pause = hand_pause
        self.hand_ended = hand_ended  # the hand's history stored, a snapshot maybe taken
        self.clocks: dict[int, TableClock] = {}
        self.wakers: dict[int, asyncio.Event] = {}  # a table task waits on its own event
        self.sitting_out: set[str] = set()
        self.grace_given: dict[str, float] = {}  # player -> when (tournament clock) they last had disconnect grace
        self._group: asyncio.TaskGroup | None = None  # the running tables' tasks, which a table opened late joins

    async def run(self) -> None:
        """The level clock and one task per table, until the tournament is over."""
        try:
            async with asyncio.TaskGroup() as tables:
                self._group = tables
                tables.create_task(self._clock_loop(), name="clock")
                for count, table in enumerate(sorted(self.session.director.tables), start=1):
                    self.open(table)
                    if count % TABLES_STARTED_PER_TURN == 0:
                        await asyncio.sleep(0)  # the first deals of a thousand tables, a few dozen per loop turn
        finally:
            self._group = None

    def open(self, table: int) -> None:
        """A table's task: at the start, or for a table a late entry opened (none outside a running loop)."""
        if self._group is None or table in self.clocks:
            return
        self.clocks[table] = TableClock()
        self._group.create_task(self._table_loop(table), name=f"table:{table}")

    def wake_all(self) -> None:
        """Wake the table tasks that have something to do now: deal, or stop.

        Only those, not every table: with a thousand tables, waking all of
        them after every hand would cost more than the hands.
        """
        director = self.session.director
        if director.status is not Status.RUNNING:
            targets: list[int] = list(self.wakers)
        else:
            targets = [] if self.session.paused else director.tables_ready()
        self.wake(targets, 0)

    def wake(self, tables: list[int], start: int = 0) -> None:
        """Wake ``tables[start:]``, ``TABLES_STARTED_PER_TURN`` per turn of the event loop.

        After a break, a pause or a hand-for-hand round every table deals at
        once: a thousand deals in one turn would stop the loop for 150 ms.
        A table woken late by a change meanwhile finds nothing to do and waits again.
        """
        end = start + TABLES_STARTED_PER_TURN
        for table in tables[start:end]:
            waker = self.wakers.get(table)
            if waker is not None:
                waker.set()
        if end < len(tables) and self.wakers:  # table tasks, and so a running loop
            asyncio.get_running_loop().call_soon(self.wake, tables, end)

    async def _clock_loop(self) -> None:
        session = self.session
        while session.director.status is Status.RUNNING:
            if not session.paused:
                self.submit(Advance(self.now()))
            await asyncio.sleep(CLOCK_TICK_SECONDS)

    async def _table_loop(self, table: int) -> None:
        session = self.session

        def may_deal() -> bool:
            director = session.director
            return (table not in director.tables or director.status is not Status.RUNNING
                    or (not session.paused and director.is_ready(table)))

        waker = self.wakers[table] = asyncio.Event()
        while True:
            while not may_deal():
                waker.clear()
                await waker.wait()
            director = session.director
            if table not in director.tables or director.status is not Status.RUNNING:
                self.wakers.pop(table, None)
                return
            (started,) = self.submit(StartHand(table))
            assert isinstance(started, HandStarted)
            self.clocks[table].button = started.button
            hand = director.hand(table)
            assert hand is not None
            await self._play(table, hand)
            await asyncio.sleep(self.hand_pause)  # the table sees the result before the next deal
            self.submit(EndHand(table))
            self.hand_ended(started, hand)

    async def _play(self, table: int, hand: Hand) -> None:
        clock = self.clocks[table]
        loop = asyncio.get_running_loop()
        banks = self.session.entries.time_bank
        seconds_to_act = self.session.director.definition.action_seconds
        while not hand.finished:
            legal = hand.legal_actions()
            player = hand.players[legal.player]
            if player in self.sitting_out:
                self.decide(table, player, hand.timeout_action(), None, banks[player])
                continue
            bank = banks[player]
            seconds = seconds_to_act + bank
            clock.decision += 1
            asked = clock.decision
            clock.turn_started = loop.time()
            clock.seconds, clock.time_bank = seconds, bank
            self.streams.publish(table, Turn(player, seconds, bank))
            self.streams.tell(player, YourTurn(
                self.session.director.hand_number(table), legal.can_fold, legal.can_check, legal.call,
                legal.min_raise_to, legal.max_raise_to, seconds, hand.hole[legal.player], tuple(hand.board),
                sum(hand.committed) + sum(hand.bets) + hand.dead, hand.stacks[legal.player], hand.big_blind))
            deadline = clock.turn_started + seconds
            while clock.decision == asked:
                remaining = deadline - loop.time()
                if remaining <= 0 and self._grace(player):  # disconnect protection: once a period, more time
                    grace = self.session.director.definition.disconnect_grace_seconds
                    deadline += grace
                    clock.seconds += grace
                    self.streams.publish(table, Turn(player, grace, 0.0))
                    continue
                if remaining <= 0:
                    action = hand.timeout_action()
                    self.decide(table, player, action, None, 0.0)
                    self.streams.publish(table, TimedOut(player, action))
                    self.set_sitting_out(player, True)
                    break
                # A bare future and a timer: the cheapest wait asyncio has, once per decision.
                clock.answered = answered = loop.create_future()
                timer = loop.call_later(remaining, _settle, answered)
                try:
                    await answered
                finally:
                    timer.cancel()

    def _grace(self, player: str) -> bool:
        """Whether ``player``, disconnected at their deadline, gets ``disconnect_grace_seconds`` more now: once
        per ``disconnect_grace_every_minutes`` of the tournament clock (kept in memory: a restart forgets it)."""
        definition = self.session.director.definition
        if not definition.disconnect_grace_seconds or self.streams.connected(player):
            return False
        now = self.now()
        last = self.grace_given.get(player)
        if last is not None and now - last < definition.disconnect_grace_every_minutes * 60:
            return False
        self.grace_given[player] = now
        return True

    def player_act(self, player: str, action: str, amount: int | None) -> None:
        """A decision from the wire: only the player to act, at their own table, by the betting rules."""
        self.set_sitting_out(player, False)
        director = self.session.director
        where = director.where.get(player)
        hand = director.hand(where[0]) if where else None
        if where is None or hand is None or hand.finished:
            raise Refused("no_hand", "you have no hand in progress")
        if hand.actor is None or hand.players[hand.actor] != player:
            actor = hand.players[hand.actor] if hand.actor is not None else "nobody"
            raise Refused("not_your_turn", f"it is not your turn: {self.session.entries.name(actor)} is to act")
        try:
            self.decide(where[0], player, action, amount, self.bank_after(where[0], player))
        except IllegalAction as error:
            raise Refused("illegal_action", str(error)) from None

    def bank_after(self, table: int, player: str) -> float:
        """What is left of ``player``'s time bank if they decide now: the action clock is spent first."""
        bank = self.session.entries.time_bank[player]
        overtime = asyncio.get_running_loop().time() - self.clocks[table].turn_started
        overtime -= self.session.director.definition.action_seconds
        return max(0.0, bank - overtime) if overtime > 0 else bank

    def decide(self, table: int, player: str, action: str, amount: int | None, bank: float) -> None:
        """A decision at ``table``; the table's task stops waiting for it."""
        self.submit(Act(table, action, amount, player, bank))
        clock = self.clocks[table]
        clock.decision += 1
        if clock.answered is not None:
            _settle(clock.answered)

    def set_sitting_out(self, player: str, sitting_out: bool) -> None:
        if (player in self.sitting_out) == sitting_out:
            return
        if sitting_out:
            self.sitting_out.add(player)
        else:
            self.sitting_out.discard(player)
        where = self.session.director.where.get(player)
        if where is not None:
            self.streams.publish(where[0], SittingOut(player, sitting_out))

    def countdown(self, table: int, actor: str | None) -> Countdown | None:
        """The clock of ``actor``'s decision at ``table``, as the table view shows it."""
        clock = self.clocks.get(table)
        if actor is None or clock is None or not clock.turn_started:
            return None
        elapsed = asyncio.get_running_loop().time() - clock.turn_started
        return Countdown(actor, max(0.0, clock.seconds - elapsed), clock.time_bank)

    def button(self, table: int) -> int:
        clock = self.clocks.get(table)
        return clock.button if clock is not None else 0
