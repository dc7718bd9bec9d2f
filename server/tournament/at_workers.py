"""A tournament's hands at a cluster's table workers: the director deals here, the worker holding a table's lease
plays the hand (server/cluster/playing.py) and hands it back, to be journaled and settled here.

The tournament's side of the cluster, without the bus: what is said to the
workers goes through ``TableWorkers`` (server/cluster/service.py's ``ClusterPlacement``).
Each worker's commands carry its lease's epoch; an older one than the
table's newest is fenced off, and a new epoch voids the hand the last
worker left in play, as a restart does.
"""

from __future__ import annotations

import asyncio
import logging

import msgspec
from typing import Protocol

from engine.events import Event
from engine.hand import IllegalAction
from engine.status import TournamentError
from engine.wire import Act, Countdown, encoder
from server.tournament.decisions import mark_sitting_out
from server.hub import Connection
from server.tournament.remote import DealtHand, HandBack, HandOut, TableState
from server.tournament.tables import TABLES_STARTED_PER_TURN, Tables
from server.turns import TurnBatch

logger = logging.getLogger("mttsim.tables")
GONE, FENCED = TableState("gone", 0), TableState("fenced", 0)


class TableWorkers(Protocol):
    """A cluster's table workers, as the director's tables speak to them."""

    def notify(self, table: int, state: TableState) -> None:
        """What the table's worker does now."""

    def deal(self, table: int, out: HandOut) -> None:
        """The hand dealt, for the worker to play."""

    def adopt(self, table: int) -> None:
        """A worker took the table's lease: its clients, for it to send the table's stream to."""

    def act(self, table: int, connection: Connection, decision: Act) -> None:
        """A player's decision, for the worker playing the hand."""

    def back(self, table: int, player: str) -> None:
        """A player sitting out is back, during a hand the worker plays."""

    def close(self, table: int) -> None:
        """The table is gone: after what it was told, nothing more."""


class HandsAtWorkers:
    """The ``Hands`` of a cluster's director: no table task runs here.

    A table that a worker holds and that may deal is dealt here, as a local
    table's task would deal it, and its worker is sent the hand: a worker
    asking to deal would put a bus round trip, and its loop's turn, between a
    hand-for-hand round's opening and its first deal. The other tables'
    workers are told at once what to do.
    """

    def __init__(self, tables: Tables, workers: TableWorkers) -> None:
        self.tables = tables
        self.workers = workers
        self.epochs: dict[int, int] = {}  # table -> the lease epoch of its worker; older epochs are fenced off
        self._closed: set[int] = set()  # tables whose worker was told that nothing more follows
        self.versions: dict[int, int] = {}  # table -> the version of what its worker was last told
        self.handed_banks: dict[int, dict[str, float]] = {}  # the time banks a hand out at a worker was dealt with
        # The tables to deal in the next turns, in order, never inside the submit that made them ready, and
        # ``TABLES_STARTED_PER_TURN`` a turn, as local tables' tasks deal.
        self._to_deal: TurnBatch[int] = TurnBatch(self._deal_these)
        self._due: set[int] = set()  # what ``_to_deal`` holds
        # A worker's batch of thirty hands' ends: one look for the tables to deal.
        self._waking: TurnBatch[None] = TurnBatch(lambda _: self.wake(self.tables.to_wake(self.epochs)))

    async def start(self, group: asyncio.TaskGroup) -> None:
        self.wake_all()

    def open(self, table: int, group: asyncio.TaskGroup) -> None:
        self.wake([table])

    def wake_all(self) -> None:
        if not self._waking:
            self._waking.add(None)

    def wake(self, tables: list[int]) -> None:
        for table in tables:
            if table in self._due:  # due already: every hand's end wakes the tables still to deal
                continue
            if self._deals_here(table):
                self._deal_soon(table)
            else:
                self.tell_worker(table)

    def _deals_here(self, table: int) -> bool:
        """A table that the director deals now: a worker holds it, and it may deal."""
        tables = self.tables
        return (table in self.epochs and not tables.gone(table) and tables.session.director.hand(table) is None
                and tables.may_deal(table))

    def _deal_soon(self, table: int) -> None:
        if table not in self._due:
            self._due.add(table)
            self._to_deal.add(table)

    def _deal_these(self, due: list[int]) -> None:
        now, later = due[:TABLES_STARTED_PER_TURN], due[TABLES_STARTED_PER_TURN:]
        for table in later:
            self._to_deal.add(table)
        for table in now:
            self._due.discard(table)
            try:
                if self._deals_here(table):  # still: what was dealt since may have changed the answer
                    self.tables.deal(table)
                else:
                    self.tell_worker(table)
            except Exception:  # a bug must not stop the other tables' deals: its worker asks again in a while
                logger.exception("table %s could not be dealt", table)

    def play(self, table: int, opening: list[Event]) -> None:
        """The hand dealt at ``table`` as it was dealt, for its worker to play (again, should it ask again)."""
        director, entries, grace = self.tables.session.director, self.tables.session.entries, self.tables.grace
        hand = director.hand(table)
        assert hand is not None
        players = list(hand.players)
        banks = self.handed_banks[table] = {player: entries.time_bank[player] for player in players}
        definition = director.definition
        self.workers.deal(table, HandOut(
            DealtHand.of(hand), director.hand_number(table),
            [encoder.encode(event) for event in opening], banks,
            [player for player in players if player in self.tables.sitting_out],
            {player: grace.given[player] for player in players if player in grace.given}, self.tables.now(),
            grace.every, {player: entries.name(player) for player in players}, definition.action_seconds,
            definition.disconnect_grace_seconds, self.tables.hand_pause, director.stage()))

    def route(self, table: int, events: list[Event], hand_events: list[Event]) -> None:
        """Only to the log: the table's worker routes the deal with the hand it is sent, and the decisions as it
        takes them."""
        self.tables.streams.record([*events, *hand_events])

    def act(self, table: int, player: str, decision: Act, connection: Connection | None) -> None:
        if connection is None or self.tables.session.director.hand(table) is None:
            self.tables.no_hand(player, decision)
        self.workers.act(table, connection, decision)

    def back_during_hand(self, table: int, player: str, sitting_out: bool) -> bool:
        if self.tables.session.director.hand(table) is None:
            return False
        if not sitting_out:
            # The worker playing the hand has the say on this hand (it may have sat them out meanwhile, and its
            # hand back says so); from the next one they are back here too, also should the hand be between
            # the worker's hands when it hears (a first connection as the deal goes out).
            self.workers.back(table, player)
            self.tables.mark(player, False, table)
        return True

    def countdown(self, table: int) -> Countdown | None:
        return None  # the table's worker completes each snapshot with its clock

    # ------------------------------------------------------------ the workers' commands

    def state(self, table: int) -> TableState:
        """What the worker holding ``table`` does now: deal, wait, play the hand it is sent, or let go."""
        tables = self.tables
        if tables.gone(table):  # final, whatever its version
            if table in self.epochs and table not in self._closed:
                self._closed.add(table)
                self.workers.close(table)  # behind the table's last messages, which its worker waits for
            return GONE
        version = self.versions[table] = self.versions.get(table, 0) + 1
        if tables.session.director.hand(table) is not None:
            return TableState("out", version)
        if self._deals_here(table):  # the director deals it: its worker waits for the hand, asking nothing
            self._deal_soon(table)
            return TableState("wait", version)
        return TableState("ready" if tables.may_deal(table) else "wait", version)

    def tell_worker(self, table: int) -> None:
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
            self.epochs[table] = epoch
            self.tables.failovers += known > 0
            self.workers.adopt(table)
            if self.tables.session.director.hand(table) is not None:
                self.tables.void(table)
            self.tables.streams.resend_snapshots(table)
        return True

    def fenced(self, table: int, epoch: int) -> bool:
        return epoch != self.epochs.get(table)

    def deal_asked(self, table: int) -> None:
        """The worker asks to deal: its hand, sent again if its answer was lost, or the next one if it may."""
        tables = self.tables
        started = tables.started.get(table)
        if tables.session.director.hand(table) is not None and started is not None:
            self.play(table, [started])
        elif tables.session.director.hand(table) is None and tables.may_deal(table) and not tables.gone(table):
            tables.deal(table)

    def hand_back(self, table: int, back: HandBack) -> None:
        """A hand its worker played: its decisions journaled as they were taken, then settled. A decision the
        director would refuse (never, unless the two disagree on the rules) voids the hand instead."""
        tables = self.tables
        director, entries = tables.session.director, tables.session.entries
        if director.hand(table) is None or back.number != director.hand_number(table):
            raise TournamentError(f"table {table} has no hand {back.number} out")
        # A level's top-up given meanwhile (rules.md E.20) stays: the worker counted from the bank it was dealt.
        topped_up = {player: max(0.0, entries.time_bank.get(player, bank) - bank)
                     for player, bank in self.handed_banks.pop(table, {}).items()}
        try:
            for decision in back.decisions:  # journaled as taken, at this table, with the top-up counted
                self.route(table, [], tables.recorder.record(msgspec.structs.replace(
                    decision, table=table, bank=decision.bank + topped_up.get(decision.player, 0.0))))
        except (IllegalAction, TournamentError):
            logger.exception("table %s: the hand its worker played was refused here; it is void", table)
            tables.void(table)
            return
        tables.grace.given.update(back.graced)
        for player, sitting_out in back.sitting_out.items():  # the worker told the table
            mark_sitting_out(tables.sitting_out, player, sitting_out)
        hand = director.hand(table)
        if hand is not None and hand.finished:
            tables.end(table)
