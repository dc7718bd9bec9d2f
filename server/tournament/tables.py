"""The tables of a tournament: each deals when the director says it may, and plays its hand's decisions.

Each table asks the director whether it may deal (so the hand-for-hand
barrier, breaks and pauses are the director's answer, not a second
implementation), plays the hand decision by decision against the clock
(server/tournament/decisions.py), and settles it. Every command goes through the
runtime's ``submit``.

In one ``mttsim serve`` each table has a task here. In a cluster the
director deals here and the worker holding the table's lease plays the hand
(server/cluster/playing.py): it is sent the hand as dealt, takes the players'
decisions and runs their clocks, and hands the played hand back, whose
decisions are then journaled and settled here as one process settles them.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from typing import Protocol

from engine.director import Status
from engine.events import Event, HandStarted
from engine.hand import Hand, IllegalAction
from engine.status import TournamentError
from engine.wire import Countdown, PrivateMessage, SittingOut, TableMessage, encoder
from server.tournament.remote import DealtHand, HandBack, HandOut, TableState
from server.tournament.decisions import Decisions, mark_sitting_out
from server.errors import Refused
from server.tournament.hub import Connection
from server.tournament.records import Act, Advance, AnyRecord, EndHand, Session, StartHand, VoidHand
from server.tournament.streams import Streams

logger = logging.getLogger("mttsim.tables")
CLOCK_TICK_SECONDS = 0.25
TABLES_STARTED_PER_TURN = 15  # tables dealing together (the first deals, after a break) per turn of the event loop


class Workers(Protocol):
    """A cluster's table workers (server/cluster/director.py), as the director's tables speak to them."""

    def notify(self, table: int, state: TableState) -> None:
        """What the table's worker does now."""

    def deal(self, table: int, out: HandOut) -> None:
        """The hand dealt, for the worker to play."""

    def adopt(self, table: int) -> None:
        """A worker took the table's lease: its clients, for it to send the table's stream to."""

    def act(self, table: int, connection: Connection, action: str, amount: int | None) -> None:
        """A player's decision, for the worker playing the hand."""

    def back(self, table: int, player: str) -> None:
        """A player sitting out is back, during a hand the worker plays."""

    def close(self, table: int) -> None:
        """The table is gone: after what it was told, nothing more."""


class Here:
    """Where a hand played in this process speaks: the table's stream, and records through ``submit``."""

    def __init__(self, tables: Tables, table: int) -> None:
        self.tables = tables
        self.table = table

    def publish(self, message: TableMessage) -> None:
        self.tables.streams.publish(self.table, message)

    def tell(self, player: str, message: PrivateMessage) -> None:
        self.tables.streams.tell(player, message)

    def apply(self, player: str, action: str, amount: int | None, bank: float) -> None:
        self.tables.submit(Act(self.table, action, amount, player, bank))

    def grace(self, player: str) -> bool:
        return not self.tables.streams.connected(player) and self.tables.grace_due(player, take=True)

    def sit_out(self, player: str, sitting_out: bool) -> None:
        self.tables.set_sitting_out(player, sitting_out)


class Tables:
    """The tables' hands: the tasks that play them here, or what a cluster's workers are sent and hand back.

    The rules of the clock (server/tournament/decisions.py), the time banks, sitting out
    and disconnect grace are the same wherever a hand is played.
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
        self.desks: dict[int, Decisions] = {}  # the hands played here, by table
        self.started: dict[int, HandStarted] = {}  # the hands in progress, from their start
        self.buttons: dict[int, int] = {}
        self.wakers: dict[int, asyncio.Event] = {}  # a table task waits on its own event
        self.sitting_out: set[str] = set()
        self.grace_given: dict[str, float] = {}  # player -> when (tournament clock) they last had disconnect grace
        self._group: asyncio.TaskGroup | None = None  # the running tables' tasks, which a table opened late joins
        self._opened: set[int] = set()
        # Set in a cluster (server/cluster/director.py): the tables' hands are played by workers; no table tasks run
        # here.
        self.workers: Workers | None = None
        self.epochs: dict[int, int] = {}  # table -> the lease epoch of its worker; older epochs are fenced off
        self.failovers = 0  # tables a worker took from another's expired lease
        self._closed: set[int] = set()  # tables whose worker was told that nothing more follows
        self.versions: dict[int, int] = {}  # table -> the version of what its worker was last told
        self.handed_banks: dict[int, dict[str, float]] = {}  # the time banks a hand out at a worker was dealt with
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
                if self.workers is not None:
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
        if self._group is None or table in self._opened:
            return
        self._opened.add(table)
        if self.workers is not None:
            self.wake([table])
            return
        self._group.create_task(self._table_loop(table), name=f"table:{table}")

    def wake_all(self) -> None:
        """Wake the table tasks that have something to do now: deal, or stop.

        Only those, not every table: with a thousand tables, waking all of
        them after every hand would cost more than the hands.
        """
        if self.workers is not None:  # a worker's batch of thirty hands' ends: one look for the tables to deal
            if not self._waking:
                self._waking = True
                asyncio.get_running_loop().call_soon(self._wake_all_now)
            return
        self._wake_all_now()

    def _wake_all_now(self) -> None:
        self._waking = False
        director = self.session.director
        if director.status is not Status.RUNNING:
            targets: list[int] = list(self.wakers if self.workers is None else self.epochs)
        else:
            targets = [] if self.session.paused else director.tables_ready()
        self.wake(targets, 0)

    def wake(self, tables: list[int], start: int = 0) -> None:
        """Wake ``tables[start:]``, ``TABLES_STARTED_PER_TURN`` per turn of the event loop.

        After a break, a pause or a hand-for-hand round every table deals at
        once: a thousand deals in one turn would stop the loop for 150 ms.
        A table woken late by a change meanwhile finds nothing to do and waits again.

        In a cluster a table that a worker holds and that may deal is dealt
        here, as a local table's task would deal it, and its worker is sent
        the hand: a worker asking to deal would put a bus round trip, and its
        loop's turn, between a hand-for-hand round's opening and its first
        deal. The other tables' workers are told at once.
        """
        if self.workers is not None:
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
        """A cluster's table that the director deals now: a worker holds it, and it may deal."""
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
        """The table's next hand: its first decision's clock starts here, or its worker is sent it."""
        opening = self.submit(StartHand(table))
        started = opening[0]
        assert isinstance(started, HandStarted)
        self.dealt.add(table)
        if self._barrier_opened:  # the round's first deal: how long the barrier kept the tables waiting
            if self.barrier is not None:
                self.barrier(asyncio.get_running_loop().time() - self._barrier_opened)
            self._barrier_opened = 0.0
        self.started[table], self.buttons[table] = started, started.button
        if self.workers is not None:
            self.hand_out(table, opening)
            return
        hand = self.session.director.hand(table)
        assert hand is not None
        definition, entries = self.session.director.definition, self.session.entries
        desk = self.desks[table] = Decisions(
            table, started.hand, hand, Here(self, table), entries.time_bank, self.sitting_out,
            definition.action_seconds, definition.disconnect_grace_seconds, entries.name)
        desk.next_turn()

    def hand_out(self, table: int, opening: list[Event]) -> None:
        """The hand dealt at ``table`` as it was dealt, for its worker to play (again, should it ask again)."""
        assert self.workers is not None
        director, entries = self.session.director, self.session.entries
        hand = director.hand(table)
        assert hand is not None
        players = list(hand.players)
        banks = self.handed_banks[table] = {player: entries.time_bank[player] for player in players}
        definition = director.definition
        self.workers.deal(table, HandOut(
            DealtHand.of(hand), director.hand_number(table),
            [encoder.encode(event) for event in opening], banks,
            [player for player in players if player in self.sitting_out],
            [player for player in players if self.grace_due(player, take=False)],
            {player: entries.name(player) for player in players}, definition.action_seconds,
            definition.disconnect_grace_seconds, self.hand_pause))

    def end(self, table: int) -> None:
        """Settle the finished hand: stacks, busts, breaks and moves are the director's answer."""
        started = self.started.pop(table)
        hand = self.session.director.hand(table)
        assert hand is not None
        self.desks.pop(table, None)
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
            await self.desks[table].play()
            await asyncio.sleep(self.hand_pause)  # the table sees the result before the next deal
            self.end(table)

    # ------------------------------------------------------------ a cluster's table workers

    def state(self, table: int) -> TableState:
        """What the worker holding ``table`` does now: deal, wait, play the hand it is sent, or let go."""
        if self.gone(table):  # final, whatever its version
            if self.workers is not None and table in self.epochs and table not in self._closed:
                self._closed.add(table)
                self.workers.close(table)  # behind the table's last messages, which its worker waits for
            return TableState("gone", 0)
        version = self.versions[table] = self.versions.get(table, 0) + 1
        if self.session.director.hand(table) is not None:
            return TableState("out", version)
        if self._deals_here(table):  # the director deals it: its worker waits for the hand, asking nothing
            self._deal_soon(table)
            return TableState("wait", version)
        return TableState("ready" if self.may_deal(table) else "wait", version)

    def tell_worker(self, table: int) -> None:
        if self.workers is not None:
            self.workers.notify(table, self.state(table))

    def take(self, table: int, epoch: int) -> bool:
        """A worker took ``table``'s lease with ``epoch``: False if a newer one has it.

        The new worker is sent the table's clients, and each of them a
        snapshot: the table's stream starts again with it. A hand the last
        worker left in progress is voided, as after a crash (start-of-hand
        stacks stand).
        """
        known = self.epochs.get(table, 0)
        if epoch < known:
            return False
        if epoch > known:
            assert self.workers is not None
            self.epochs[table] = epoch
            self.failovers += known > 0
            self.workers.adopt(table)
            if self.session.director.hand(table) is not None:
                self.submit(VoidHand(table))
                self.started.pop(table, None)
                self.dealt.discard(table)
            self.streams.resend_snapshots(table)
        return True

    def fenced(self, table: int, epoch: int) -> bool:
        return epoch != self.epochs.get(table)

    def hand_back(self, table: int, back: HandBack) -> None:
        """A hand its worker played: its decisions journaled as they were taken, then settled. A decision the
        director would refuse (never, unless the two disagree on the rules) voids the hand instead."""
        director, entries = self.session.director, self.session.entries
        if director.hand(table) is None or back.number != director.hand_number(table):
            raise TournamentError(f"table {table} has no hand {back.number} out")
        # A level's top-up given meanwhile (rules.md E.20) stays: the worker counted from the bank it was dealt.
        topped_up = {player: max(0.0, entries.time_bank.get(player, bank) - bank)
                     for player, bank in self.handed_banks.pop(table, {}).items()}
        try:
            for decision in back.decisions:
                self.submit(Act(table, decision.action, decision.amount, decision.player,
                                decision.bank + topped_up.get(decision.player, 0.0)))
        except (IllegalAction, TournamentError):
            logger.exception("table %s: the hand its worker played was refused here; it is void", table)
            self.submit(VoidHand(table))
            self.started.pop(table, None)
            self.dealt.discard(table)
            return
        now = self.now()
        for player in back.graced:
            self.grace_given[player] = now
        for player, sitting_out in back.sitting_out.items():  # the worker told the table
            mark_sitting_out(self.sitting_out, player, sitting_out)
        hand = director.hand(table)
        if hand is not None and hand.finished:
            self.end(table)

    # ------------------------------------------------------------ the players

    def grace_due(self, player: str, take: bool) -> bool:
        """Whether disconnect grace is due to ``player`` again: once per ``disconnect_grace_every_minutes`` of
        the tournament clock (kept in memory: a restart forgets it); ``take`` counts it as given now."""
        definition = self.session.director.definition
        if not definition.disconnect_grace_seconds:
            return False
        now = self.now()
        last = self.grace_given.get(player)
        if last is not None and now - last < definition.disconnect_grace_every_minutes * 60:
            return False
        if take:
            self.grace_given[player] = now
        return True

    def player_act(self, player: str, action: str, amount: int | None, connection: Connection | None) -> None:
        """A decision from the wire: only the player to act, at their own table, by the betting rules."""
        director = self.session.director
        where = director.where.get(player)
        table = where[0] if where else None
        if self.workers is not None and table is not None and connection is not None \
                and director.hand(table) is not None:
            self.workers.act(table, connection, action, amount)
            return
        desk = self.desks.get(table) if table is not None else None
        if desk is None:
            self.set_sitting_out(player, False)
            raise Refused("no_hand", "you have no hand in progress")
        desk.act(player, action, amount)

    def set_sitting_out(self, player: str, sitting_out: bool) -> None:
        where = self.session.director.where.get(player)
        if self.workers is not None and where is not None and self.session.director.hand(where[0]) is not None:
            if not sitting_out:  # the worker playing the hand has the say: it may have sat them out meanwhile
                self.workers.back(where[0], player)
            return
        if mark_sitting_out(self.sitting_out, player, sitting_out) and where is not None:
            self.streams.publish(where[0], SittingOut(player, sitting_out))

    def countdown(self, table: int) -> Countdown | None:
        """The clock of the decision in progress at ``table``, as the table view shows it."""
        desk = self.desks.get(table)
        return desk.countdown() if desk is not None else None

    def button(self, table: int) -> int:
        return self.buttons.get(table, 0)
