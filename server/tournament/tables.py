"""The tables of a tournament: each deals when the director says it may, and plays its hand's decisions.

Each table asks the director whether it may deal (so the hand-for-hand
barrier, breaks and pauses are the director's answer, not a second
implementation), plays the hand decision by decision against the clock
(server/tournament/decisions.py), and settles it. The hand's deal and its
decisions are recorded here (server/tournament/recorder.py) and routed to the
table's stream by whoever plays it; the director's commands (the clock, a
hand's end) go through the runtime's ``submit``, which wakes the tables.

Where the hands are played is a ``Placement`` given at construction, as
Centrifuge's brokers are: in one ``mttsim serve`` each table has a task here
(``HereHands``); in a cluster the director deals here and the worker holding
the table's lease plays the hand (server/tournament/at_workers.py,
server/cluster/playing.py), which is handed back and settled here as one
process settles it. ``Tables`` is what both share: dealing, settling,
sitting out, disconnect grace, the barrier's measure.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from typing import Literal, NoReturn, Protocol

from engine.director import Status
from engine.events import Event, HandStarted
from engine.hand import Hand
from engine.wire import Act as Decision, Countdown, PrivateMessage, SittingOut, TableMessage
from server.errors import Refused
from server.tournament.clock import Clock
from server.tournament.decisions import Decisions, Grace, mark_sitting_out, raise_no_hand
from server.hub import Connection
from server.tournament.recorder import Recorder
from server.tournament.records import Act, Advance, AnyRecord, EndHand, Session, StartHand, VoidHand
from server.tournament.streams import Streams, HereWriters, Writers

logger = logging.getLogger("mttsim.tables")
CLOCK_TICK_SECONDS = 0.25
TABLES_STARTED_PER_TURN = 15  # tables dealing together (the first deals, after a break) per turn of the event loop


class Hands(Protocol):
    """Where a tournament's hands are played: each table by a task here, or by a cluster's table workers."""

    async def start(self, group: asyncio.TaskGroup) -> None:
        """The tables start, in ``group`` (the draw is routed)."""

    def open(self, table: int, group: asyncio.TaskGroup) -> None:
        """A table opened after the start (a late entry)."""

    def wake_all(self) -> None:
        """The tables that have something to do now (``Tables.to_wake``) do it."""

    def wake(self, tables: list[int]) -> None:
        """``tables`` may deal or stop: they look."""

    def play(self, table: int, opening: list[Event]) -> None:
        """The hand just dealt at ``table``, which ``opening`` started."""

    def route(self, table: int, events: list[Event], hand_events: list[Event]) -> None:
        """A deal's or a decision's events (``hand_events`` the hand's own): to the table's stream, or only to the
        log when the hand's player routes them."""

    def act(self, table: int, player: str, decision: Decision, connection: Connection | None) -> None:
        """A decision from the wire for the hand in progress at ``table``; Refused when there is none."""

    def back_during_hand(self, table: int, player: str, sitting_out: bool) -> bool:
        """Whether whoever plays ``table``'s hand in progress has the say on ``player`` sitting out (True), or
        ``Tables`` does (False)."""

    def countdown(self, table: int) -> Countdown | None: ...


class Placement(Protocol):
    """Where a tournament's tables are played and who writes their streams: chosen when the runtime is built.
    The streams' writers come first (the tables are built on the streams), and the hands are given them."""

    def writers(self, streams: Streams) -> Writers: ...

    def hands(self, tables: Tables, writers: Writers) -> Hands: ...


class HerePlacement:
    """One ``mttsim serve``: this process writes every table's stream and plays every hand."""

    def writers(self, streams: Streams) -> Writers:
        return HereWriters(streams)

    def hands(self, tables: Tables, writers: Writers) -> Hands:
        assert isinstance(writers, HereWriters), "a placement's hands are given its own writers"
        return HereHands(tables, writers)


class Tables:
    """A tournament's tables: dealing (the director's answer), settling, sitting out and disconnect grace, the
    same wherever a hand is played (``hands``)."""

    def __init__(self, session: Session, streams: Streams, recorder: Recorder,
                 submit: Callable[[AnyRecord], list[Event]], clock: Clock, now: Callable[[], float],
                 hand_pause: float, hand_ended: Callable[[HandStarted, Hand], None], placement: Placement) -> None:
        self.session = session
        self.streams = streams
        self.recorder = recorder  # a hand's deal and decisions
        self.submit = submit  # the director's commands: the clock, a hand's end
        self.clock = clock  # what the decisions' clocks and the barrier's measure read
        self.now = now  # the tournament clock
        self.hand_pause = hand_pause
        self.hand_ended = hand_ended  # the hand's history stored, a snapshot maybe taken
        self.started: dict[int, HandStarted] = {}  # the hands in progress, from their start
        self.buttons: dict[int, int] = {}
        self.sitting_out: set[str] = set()
        self.absent: set[str] = set()  # sat out for having never connected: their first connection brings them back
        self.sit_out_asked: dict[str, Literal["next_hand", "next_big_blind"]] = {}  # from which hand, by choice
        definition = session.director.definition
        self.grace = Grace(definition.disconnect_grace_seconds, definition.disconnect_grace_every_minutes * 60, now)
        self._group: asyncio.TaskGroup | None = None  # the running tables' tasks, which a table opened late joins
        self._opened: set[int] = set()
        self.dealt: set[int] = set()  # tables with a hand in progress
        self.barrier: Callable[[float], None] | None = None  # hears each hand-for-hand round's opening delay
        self._barrier_opened = 0.0  # the clock's time when the last table of a round settled its hand
        self.failovers = 0  # in a cluster: tables a worker took from another's expired lease
        self.hands = placement.hands(self, streams.writers)

    async def run(self) -> None:
        """The level clock and the tables, until the tournament is over."""
        try:
            async with asyncio.TaskGroup() as tables:
                self._group = tables
                tables.create_task(self._clock_loop(), name="clock")
                await self.hands.start(tables)
        finally:
            self._group = None

    def open(self, table: int) -> None:
        """A table a late entry opened (none outside a running loop)."""
        if self._group is None or table in self._opened:
            return
        self._opened.add(table)
        self.hands.open(table, self._group)

    def wake_all(self) -> None:
        """Wake the tables that have something to do now: deal, or stop.

        Only those, not every table: with a thousand tables, waking all of
        them after every hand would cost more than the hands.
        """
        self.hands.wake_all()

    def to_wake(self, held: Iterable[int]) -> list[int]:
        """The tables with something to do now, of those ``held`` (by a task, or by a worker)."""
        director = self.session.director
        if director.status is not Status.RUNNING:
            return list(held)  # they stop
        return [] if self.session.paused else director.tables_ready()

    def wake(self, tables: list[int]) -> None:
        self.hands.wake(tables)

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
        """The table's next hand, recorded and routed to the table, for ``hands`` to play."""
        opening = self.recorder.record(StartHand(table))
        started, hand = opening[0], self.session.director.hand(table)
        assert isinstance(started, HandStarted) and hand is not None
        self.hands.route(table, opening, hand.events)
        self.dealt.add(table)
        if self._barrier_opened:  # the round's first deal: how long the barrier kept the tables waiting
            if self.barrier is not None:
                self.barrier(self.clock.time() - self._barrier_opened)
            self._barrier_opened = 0.0
        self.started[table], self.buttons[table] = started, started.button
        if self.sit_out_asked:
            self._sit_out_as_asked(table)
        self.hands.play(table, opening)

    def _sit_out_as_asked(self, table: int) -> None:
        """The players of the hand just dealt who asked to sit out from it: from now, before its first decision."""
        hand = self.session.director.hand(table)
        assert hand is not None
        for position, player in enumerate(hand.players):
            when = self.sit_out_asked.get(player)
            if when == "next_hand" or (when == "next_big_blind" and position == hand.bb_index):
                del self.sit_out_asked[player]
                self.mark(player, True, table)

    def end(self, table: int) -> None:
        """Settle the finished hand: stacks, busts, breaks and moves are the director's answer."""
        started = self.started.pop(table)
        hand = self.session.director.hand(table)
        assert hand is not None
        self.dealt.discard(table)
        if self.session.director.hand_for_hand and not self.dealt:
            self._barrier_opened = self.clock.time()
        self.submit(EndHand(table))
        self.hand_ended(started, hand)

    def void(self, table: int) -> None:
        """Call off the hand in progress: start-of-hand stacks stand, as after a crash."""
        self.submit(VoidHand(table))
        self.started.pop(table, None)
        self.dealt.discard(table)

    # ------------------------------------------------------------ the players

    def player_act(self, player: str, decision: Decision, connection: Connection | None) -> None:
        """A decision from the wire: only the player to act, at their own table, by the betting rules."""
        where = self.session.director.where.get(player)
        if where is None:
            self.no_hand(player, decision)
        self.hands.act(where[0], player, decision, connection)

    def no_hand(self, player: str, decision: Decision) -> NoReturn:
        """A decision with no hand to take it: the player is back, if they sat out, and told so."""
        self.set_sitting_out(player, False)
        raise_no_hand(decision)

    def sit_out_next(self, player: str, when: Literal["next_hand", "next_big_blind"] | None) -> None:
        """A player's own choice: sit out from their next hand, or their next big blind (None: not after all)."""
        if player not in self.session.director.stacks:
            raise Refused("refused", "only a player in the tournament sits out")
        if when is None:
            self.sit_out_asked.pop(player, None)
        else:
            self.sit_out_asked[player] = when

    def set_sitting_out(self, player: str, sitting_out: bool) -> None:
        where = self.session.director.where.get(player)
        if where is not None and self.hands.back_during_hand(where[0], player, sitting_out):
            return
        self.mark(player, sitting_out, where[0] if where is not None else None)

    def mark(self, player: str, sitting_out: bool, table: int | None) -> None:
        """``player`` sits out, or is back, here; ``table`` (if any) hears of a change."""
        if mark_sitting_out(self.sitting_out, player, sitting_out) and table is not None:
            self.streams.publish(table, SittingOut(player, sitting_out))

    def sit_out_absent(self, player: str, tell: bool) -> None:
        """``player``, just seated, has never connected: they sit out until they do. Never in a hand yet, so
        this is the tables' to say wherever hands are played; ``tell``: their table hears it."""
        self.absent.add(player)
        where = self.session.director.where.get(player)
        self.mark(player, True, where[0] if tell and where is not None else None)

    def countdown(self, table: int) -> Countdown | None:
        """The clock of the decision in progress at ``table``, as the table view shows it."""
        return self.hands.countdown(table)

    def button(self, table: int) -> int:
        return self.buttons.get(table, 0)


class HereOutlet:
    """Where a hand played in this process speaks: each decision recorded, and routed to the table's stream, as a
    cluster's worker routes the hands it plays (server/cluster/playing.py)."""

    def __init__(self, hands: HereHands, table: int) -> None:
        self.hands = hands
        self.tables = hands.tables
        self.table = table

    def publish(self, message: TableMessage) -> None:
        self.tables.streams.publish(self.table, message)

    def tell(self, player: str, message: PrivateMessage) -> None:
        self.tables.streams.tell(player, message)

    def apply(self, player: str, action: str, amount: int | None, bank: float) -> None:
        self.hands.route(self.table, [], self.tables.recorder.record(Act(self.table, action, amount, player, bank)))

    def grace(self, player: str) -> bool:
        return self.tables.grace.take(player, self.tables.streams.connected(player))

    def sit_out(self, player: str, sitting_out: bool) -> None:
        self.tables.set_sitting_out(player, sitting_out)


class HereHands:
    """One ``mttsim serve``: a task per table deals when the director says it may, plays the hand decision by
    decision against the clock (server/tournament/decisions.py), and settles it."""

    def __init__(self, tables: Tables, writers: HereWriters) -> None:
        self.tables = tables
        self.writers = writers
        self.desks: dict[int, Decisions] = {}  # the hands in play, by table
        self.wakers: dict[int, asyncio.Event] = {}  # a table task waits on its own event

    async def start(self, group: asyncio.TaskGroup) -> None:
        for count, table in enumerate(sorted(self.tables.session.director.tables), start=1):
            self.tables.open(table)
            if count % TABLES_STARTED_PER_TURN == 0:
                await asyncio.sleep(0)  # the first deals of a thousand tables, a few dozen per loop turn

    def open(self, table: int, group: asyncio.TaskGroup) -> None:
        group.create_task(self._table_loop(table), name=f"table:{table}")

    def wake_all(self) -> None:
        self.wake(self.tables.to_wake(self.wakers))

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

    def play(self, table: int, opening: list[Event]) -> None:
        """The hand's first decision's clock starts here."""
        tables = self.tables
        hand = tables.session.director.hand(table)
        assert hand is not None
        definition, entries = tables.session.director.definition, tables.session.entries
        desk = self.desks[table] = Decisions(
            table, tables.started[table].hand, hand, HereOutlet(self, table), entries.time_bank, tables.sitting_out,
            definition.action_seconds, definition.disconnect_grace_seconds, entries.name,
            tables.session.director.stage(), tables.clock)
        desk.next_turn()

    def route(self, table: int, events: list[Event], hand_events: list[Event]) -> None:
        streams = self.tables.streams
        if events:
            streams.route(events)
        streams.record(hand_events)
        self.writers.stream(table).route_hand(hand_events)

    def act(self, table: int, player: str, decision: Decision, connection: Connection | None) -> None:
        desk = self.desks.get(table)
        playing = self.tables.session.director.tables.get(table)
        if desk is None or playing is None or playing.hand is None:  # the hand voided (a cancel) before its desk knew
            self.tables.no_hand(player, decision)
        desk.act(player, decision)

    def back_during_hand(self, table: int, player: str, sitting_out: bool) -> bool:
        return False  # the table's own Decisions reads ``Tables.sitting_out``

    def countdown(self, table: int) -> Countdown | None:
        desk = self.desks.get(table)
        return desk.countdown() if desk is not None else None

    async def _table_loop(self, table: int) -> None:
        tables = self.tables
        waker = self.wakers[table] = asyncio.Event()
        while True:
            while not (tables.gone(table) or tables.may_deal(table)):
                waker.clear()
                await waker.wait()
            if tables.gone(table):
                self.wakers.pop(table, None)
                return
            tables.deal(table)
            await self.desks[table].play()
            await asyncio.sleep(tables.hand_pause)  # the table sees the result before the next deal
            del self.desks[table]
            if tables.gone(table):  # cancelled while the result was shown: the cancellation voided the hand
                self.wakers.pop(table, None)
                return
            tables.end(table)
