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
import logging
from collections.abc import Callable

from engine.director import Status
from engine.events import Event, HandStarted
from engine.hand import Hand, IllegalAction
from engine.wire import Countdown, SittingOut, TimedOut, Turn, YourTurn
from server.errors import Refused
from server.bus import TableState
from server.records import Act, Advance, AnyRecord, EndHand, Session, StartHand, VoidHand
from server.streams import Streams

logger = logging.getLogger("mttsim.tables")
CLOCK_TICK_SECONDS = 0.25
TABLES_STARTED_PER_TURN = 15  # tables dealing together (the first deals, after a break) per turn of the event loop


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class TableClock:
    """The decision in progress at one table."""

    __slots__ = ("decision", "answered", "turn_started", "deadline", "seconds", "time_bank", "button", "started",
                 "version")

    def __init__(self) -> None:
        self.decision = 0  # bumped when a turn starts and when it is answered
        self.answered: asyncio.Future[None] | None = None  # what a local table's task awaits, with a timer
        self.turn_started = 0.0
        self.deadline = 0.0  # the loop's time when the decision's clock runs out
        self.seconds = 0.0  # the decision's whole clock: action seconds plus the time bank
        self.time_bank = 0.0
        self.button = 0
        self.started: HandStarted | None = None  # the hand in progress, from its start
        self.version = 0  # bumped each time the table's state is told to a remote worker: the newest wins


class Tables:
    """The tables' decisions and clocks, and the tasks that play them here, or the notices to workers elsewhere.

    Locally (one process) each table has a task that deals, waits on the
    decision clock and settles the hand. In a cluster (server/cluster.py) a
    table worker holding the table's lease does that waiting: it asks to
    ``deal``, runs the clock it is told and calls ``expire`` when it runs out,
    then ``end``. The rules of the clock, the time banks, sitting out and
    disconnect protection stay here either way, next to the director.
    """

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
        # Set in a cluster: tells a table's worker its new state (server/cluster.py); no table tasks run here.
        self.remote: Callable[[int, TableState], None] | None = None
        self.epochs: dict[int, int] = {}  # table -> the lease epoch of its worker; older epochs are fenced off
        self.failovers = 0  # tables a worker took from another's expired lease
        self.dealt: set[int] = set()  # tables with a hand in progress
        self.barrier: Callable[[float], None] | None = None  # hears each hand-for-hand round's opening delay
        self._barrier_opened = 0.0  # the loop's time when the last table of a round settled its hand
        self._to_deal: dict[int, None] = {}  # in a cluster: tables the director deals in the next turns, in order
        self._dealing = False  # a turn of those deals is due
        self._waking = False  # in a cluster: a look for the tables to wake is due this turn

    async def run(self) -> None:
        """The level clock and one task per table (none in a cluster), until the tournament is over."""
        try:
            async with asyncio.TaskGroup() as tables:
                self._group = tables
                tables.create_task(self._clock_loop(), name="clock")
                if self.remote is not None:
                    self.wake_all()
                    return
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
        if self.remote is not None:
            self.wake([table])
            return
        self.clocks[table] = TableClock()
        self._group.create_task(self._table_loop(table), name=f"table:{table}")

    def clock(self, table: int) -> TableClock:
        clock = self.clocks.get(table)
        if clock is None:
            clock = self.clocks[table] = TableClock()
        return clock

    def wake_all(self) -> None:
        """Wake the table tasks that have something to do now: deal, or stop.

        Only those, not every table: with a thousand tables, waking all of
        them after every hand would cost more than the hands.
        """
        if self.remote is not None:  # a worker's batch of thirty hands' ends: one look for the tables to deal
            if not self._waking:
                self._waking = True
                asyncio.get_running_loop().call_soon(self._wake_all_now)
            return
        self._wake_all_now()

    def _wake_all_now(self) -> None:
        self._waking = False
        director = self.session.director
        if director.status is not Status.RUNNING:
            targets: list[int] = list(self.wakers if self.remote is None else self.clocks)
        else:
            targets = [] if self.session.paused else director.tables_ready()
        self.wake(targets, 0)

    def wake(self, tables: list[int], start: int = 0) -> None:
        """Wake ``tables[start:]``, ``TABLES_STARTED_PER_TURN`` per turn of the event loop.

        After a break, a pause or a hand-for-hand round every table deals at
        once: a thousand deals in one turn would stop the loop for 150 ms.
        A table woken late by a change meanwhile finds nothing to do and waits again.

        In a cluster a table that a worker holds and that may deal is dealt
        here, as a local table's task would deal it, and its worker is told to
        run the first decision's clock: a worker asking to deal would put a
        bus round trip, and its loop's turn, between a hand-for-hand round's
        opening and its first deal. The other tables' workers are told at once.
        """
        if self.remote is not None:
            for table in tables[start:]:
                if table in self._to_deal:  # due already: every hand's end wakes the tables still to deal
                    continue
                if self._deals_here(table):
                    self._deal_soon(table)
                else:
                    self.tell_worker(table)
            return
        end = start + TABLES_STARTED_PER_TURN
        for table in tables[start:end]:
            waker = self.wakers.get(table)
            if waker is not None:
                waker.set()
        if end < len(tables) and self.wakers:  # table tasks, and so a running loop
            asyncio.get_running_loop().call_soon(self.wake, tables, end)

    def _deals_here(self, table: int) -> bool:
        """A cluster's table that the director deals itself: a worker holds it, and it may deal now."""
        return (table in self.epochs and not self.gone(table) and self.session.director.hand(table) is None
                and self.may_deal(table))

    def _deal_soon(self, table: int) -> None:
        """Deal ``table`` here in a coming turn: never inside the submit that made it ready."""
        self._to_deal[table] = None
        if not self._dealing:
            self._dealing = True
            asyncio.get_running_loop().call_soon(self._deal_here)

    def _deal_here(self) -> None:
        """Deal the tables ``_deal_soon`` queued, ``TABLES_STARTED_PER_TURN`` per turn of the event loop, as local
        tables' tasks deal."""
        for _ in range(min(TABLES_STARTED_PER_TURN, len(self._to_deal))):
            table = next(iter(self._to_deal))
            del self._to_deal[table]
            try:
                if self._deals_here(table):  # still: what was dealt since may have changed the answer
                    self.deal(table)
                else:
                    self.tell_worker(table)
            except Exception:  # a bug must not stop the other tables' deals: its worker asks again in a while
                logger.exception("table %s could not be dealt", table)
        self._dealing = bool(self._to_deal)
        if self._dealing:
            asyncio.get_running_loop().call_soon(self._deal_here)

    async def _clock_loop(self) -> None:
        session = self.session
        while session.director.status is Status.RUNNING:
            if not session.paused:
                self.submit(Advance(self.now()))
            await asyncio.sleep(CLOCK_TICK_SECONDS)

    # ------------------------------------------------------------ one table's hand, step by step

    def gone(self, table: int) -> bool:
        """The table will deal no more: broken, or the tournament is over."""
        director = self.session.director
        return table not in director.tables or director.status is not Status.RUNNING

    def may_deal(self, table: int) -> bool:
        """The director's answer (the hand-for-hand barrier, breaks, balancing), not paused, and the tables
        running: after the start, only once the draw has told every player where they sit. A cluster's worker
        asking earlier would have its table dealt before some of its players had the draw's snapshot, showing a
        turn they had been told of already."""
        return self._group is not None and not self.session.paused and self.session.director.is_ready(table)

    def deal(self, table: int) -> None:
        """The table's next hand, and its first decision's clock."""
        (started,) = self.submit(StartHand(table))
        assert isinstance(started, HandStarted)
        self.dealt.add(table)
        if self._barrier_opened:  # the round's first deal: how long the barrier kept the tables waiting
            if self.barrier is not None:
                self.barrier(asyncio.get_running_loop().time() - self._barrier_opened)
            self._barrier_opened = 0.0
        clock = self.clock(table)
        clock.button, clock.started = started.button, started
        self.next_turn(table)

    def in_play(self, table: int) -> bool:
        hand = self.session.director.hand(table)
        return hand is not None and not hand.finished

    def next_turn(self, table: int) -> None:
        """Start the clock of the next player to act who is not sitting out; those who are act at once."""
        hand = self.session.director.hand(table)
        assert hand is not None
        clock = self.clocks[table]
        banks = self.session.entries.time_bank
        while not hand.finished:
            legal = hand.legal_actions()
            player = hand.players[legal.player]
            if player in self.sitting_out:
                self.decide(table, player, hand.timeout_action(), None, banks[player])
                continue
            bank = banks[player]
            seconds = self.session.director.definition.action_seconds + bank
            clock.decision += 1
            clock.turn_started = asyncio.get_running_loop().time()
            clock.deadline = clock.turn_started + seconds
            clock.seconds, clock.time_bank = seconds, bank
            self.streams.publish(table, Turn(player, seconds, bank))
            self.streams.tell(player, YourTurn(
                self.session.director.hand_number(table), legal.can_fold, legal.can_check, legal.call,
                legal.min_raise_to, legal.max_raise_to, seconds, hand.hole[legal.player], tuple(hand.board),
                sum(hand.committed) + sum(hand.bets) + hand.dead, hand.stacks[legal.player], hand.big_blind))
            break
        self._answered(table)

    def expire(self, table: int, decision: int) -> None:
        """The clock of ``decision`` ran out: disconnect protection once, else check or fold and sit out.

        A decision already answered (the player acted as the clock ran out) is left alone.
        """
        clock = self.clocks.get(table)
        hand = self.session.director.hand(table)
        if clock is None or decision != clock.decision or hand is None or hand.finished or hand.actor is None:
            return
        player = hand.players[hand.actor]
        if self._grace(player):  # disconnect protection: once a period, more time
            grace = self.session.director.definition.disconnect_grace_seconds
            clock.deadline = asyncio.get_running_loop().time() + grace
            clock.seconds += grace
            self.streams.publish(table, Turn(player, grace, 0.0))
            self._answered(table)
            return
        action = hand.timeout_action()
        self.decide(table, player, action, None, 0.0)
        self.streams.publish(table, TimedOut(player, action))
        self.set_sitting_out(player, True)
        self.next_turn(table)

    def end(self, table: int) -> None:
        """Settle the finished hand: stacks, busts, breaks and moves are the director's answer."""
        started = self.clocks[table].started
        hand = self.session.director.hand(table)
        assert started is not None and hand is not None
        self.clocks[table].started = None
        self.dealt.discard(table)
        if self.session.director.hand_for_hand and not self.dealt:
            self._barrier_opened = asyncio.get_running_loop().time()
        self.submit(EndHand(table))
        self.hand_ended(started, hand)

    async def _table_loop(self, table: int) -> None:
        waker = self.wakers[table] = asyncio.Event()
        while True:
            while not (self.gone(table) or self.may_deal(table)):
                waker.clear()
                await waker.wait()
            if self.gone(table):
                self.wakers.pop(table, None)
                return
            self.deal(table)
            await self._decisions(table)
            await asyncio.sleep(self.hand_pause)  # the table sees the result before the next deal
            self.end(table)

    async def _decisions(self, table: int) -> None:
        """Wait on each decision's clock until the hand is over; ``expire`` when one runs out."""
        clock = self.clocks[table]
        loop = asyncio.get_running_loop()
        while self.in_play(table):
            asked = clock.decision
            remaining = clock.deadline - loop.time()
            if remaining <= 0:
                self.expire(table, asked)
                continue
            # A bare future and a timer: the cheapest wait asyncio has, once per decision.
            clock.answered = answered = loop.create_future()
            timer = loop.call_later(remaining, _settle, answered)
            try:
                await answered
            finally:
                timer.cancel()

    # ------------------------------------------------------------ a cluster's table workers

    def state(self, table: int) -> TableState:
        """What the worker holding ``table`` does now: deal, wait, run a decision's clock, settle, or let go."""
        if self.gone(table):  # final, whatever its version
            return TableState("gone", 0)
        clock = self.clock(table)
        clock.version += 1
        hand = self.session.director.hand(table)
        if hand is None:
            if self._deals_here(table):  # the director deals it: its worker waits for the notice, asking nothing
                self._deal_soon(table)
                return TableState("wait", clock.version)
            return TableState("ready" if self.may_deal(table) else "wait", clock.version)
        if hand.finished:
            return TableState("over", clock.version, seconds=self.hand_pause)
        remaining = max(0.0, clock.deadline - asyncio.get_running_loop().time())
        return TableState("turn", clock.version, clock.decision, remaining)

    def tell_worker(self, table: int) -> None:
        if self.remote is not None:
            self.remote(table, self.state(table))

    def take(self, table: int, epoch: int) -> bool:
        """A worker took ``table``'s lease with ``epoch``: False if a newer one has it. A hand its last worker left
        in progress is voided, as after a crash (start-of-hand stacks stand); one it finished is settled."""
        known = self.epochs.get(table, 0)
        if epoch < known:
            return False
        if epoch > known:
            self.epochs[table] = epoch
            self.failovers += known > 0
            hand = self.session.director.hand(table)
            if hand is not None and hand.finished and self.clock(table).started is not None:
                self.end(table)
            elif hand is not None:
                self.submit(VoidHand(table))
                self.clock(table).started = None
                self.dealt.discard(table)
        return True

    def fenced(self, table: int, epoch: int) -> bool:
        return epoch != self.epochs.get(table)

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
        self.next_turn(where[0])

    def bank_after(self, table: int, player: str) -> float:
        """What is left of ``player``'s time bank if they decide now: the action clock is spent first."""
        bank = self.session.entries.time_bank[player]
        overtime = asyncio.get_running_loop().time() - self.clocks[table].turn_started
        overtime -= self.session.director.definition.action_seconds
        return max(0.0, bank - overtime) if overtime > 0 else bank

    def decide(self, table: int, player: str, action: str, amount: int | None, bank: float) -> None:
        """A decision at ``table``; the next one's clock is for ``next_turn`` to start."""
        self.submit(Act(table, action, amount, player, bank))
        self.clocks[table].decision += 1

    def _answered(self, table: int) -> None:
        """The table's clock changed: its task (or its worker) stops waiting on the old one."""
        clock = self.clocks[table]
        if self.remote is not None:
            self.tell_worker(table)
        elif clock.answered is not None:
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
