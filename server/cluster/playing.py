"""A table as the worker holding its lease plays it (server/cluster/worker.py): the one writer of its stream, and
the hand.

Everything the director says to the table arrives on the table's subject
(server/cluster/bus.py's ``TableBatch``): its clients, the messages of its stream,
the clients' snapshots and decisions, and each hand as it was dealt. The
worker numbers the stream and sends it to the clients' gateways, a message
once per gateway; it plays the hand with the engine, by the rules of the
clock the director's process uses for one server (server/tournament/decisions.py), and
hands the played hand back at its end, to be journaled and settled.

Its decisions are not journaled until then: should the worker die, the
director voids the hand as a restart voids the hands a crash interrupted.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable

import msgspec

from engine.events import Event
from engine.hand import Hand
from engine.wire import (
    PrivateMessage, SittingOut, Snapshot, TableMessage, TimedOut, encoder, error_message,
)
from server.tournament import views
from server.cluster.schema import (
    Acted, Adopt, Back, Closed, Frames, Publish, Route, SnapshotFor, TableBatch, Watching, frames_for, in_realm,
    realm_in,
)
from server.tournament.remote import Act, HandBack, HandOut
from server.tournament.clock import LoopClock
from server.tournament.decisions import Decisions, Grace, mark_sitting_out, raise_no_hand
from server.tournament.table_stream import TableStream, by_gateway
from server.turns import TurnBatch
from server.errors import Refused

logger = logging.getLogger("mttsim.worker")
_snapshots = msgspec.json.Decoder(Snapshot)
_batch = msgspec.msgpack.Decoder(TableBatch)


class WorkerSink:
    """The ``Sink`` of a table's stream at its worker: the table's clients at their gateways, a line once per
    gateway, and every line kept, in one message per turn of the loop, in the table's stream in JetStream (never
    awaited: a decision does not wait on a disk), read by the worker that takes the table over, to number on
    from its last."""

    def __init__(self, frames: Callable[[str], Frames], kept: Callable[[bytes], None]) -> None:
        self.frames = frames  # the frames to a gateway (or the director), by subject: shared by the worker's tables
        self.routes: dict[tuple[str, int], str] = {}  # (subject, number) -> player, or "" for an observer
        self.keeping: TurnBatch[bytes] = TurnBatch(lambda lines: kept(b"\n".join(lines)))

    def listening(self) -> bool:
        return True  # JetStream keeps every line, for the number a worker taking the table over starts from

    def fan_out(self, line: bytes, concerned: str) -> None:
        self.keeping.add(line)
        clients = ((subject, number, player) for (subject, number), player in self.routes.items())
        for subject, (now, later) in by_gateway(clients, concerned).items():
            self.frames(subject).broadcast(line, now, later)

    def tell(self, player: str, line: bytes) -> None:
        for (subject, number), owner in self.routes.items():
            if owner == player:
                self.frames(subject).send(number, line, urgent=True)

    def to(self, route: Route, message: bytes) -> None:
        self.frames(route.subject).send(route.number, message, urgent=True)


class WorkerOutlet:
    """One table held by this worker: its stream's number, its clients, and the hand in play."""

    def __init__(self, table: int, epoch: int, frames: Callable[[str], Frames], kept: Callable[[bytes], None],
                 woken: Callable[[], None], acted: Callable[[float], None], expired: Callable[[], None],
                 seq: int = 0) -> None:
        self.table = table
        self.epoch = epoch
        self.woken = woken  # a hand arrived to be played
        self.acted = acted  # observes the seconds a decision took to apply and send
        self.expired = expired
        self.sink = WorkerSink(frames, kept)
        self.stream = TableStream(table, self.sink, seq)  # on from JetStream's last number, for a table taken over
        self.out: tuple[HandOut, Hand] | None = None  # a hand sent to be played, not begun
        self.desk: Decisions | None = None  # the hand in play, until the director has it back
        self.last = 0  # the number of the last hand begun: a hand sent again (its answer was lost) is not replayed
        self.banks: dict[str, float] = {}
        self.sitting: set[str] = set()
        self.changed: dict[str, bool] = {}  # who sat out or came back during the hand
        self.disconnect_grace = Grace(0.0, 0.0, time.monotonic)  # the hand's, as it is dealt
        self.decisions: list[Act] = []
        self.names: dict[str, str] = {}
        self.closed = asyncio.Event()  # the director said nothing more follows: the table may be let go

    # ------------------------------------------------------------ what the director says

    def heard(self, data: bytes) -> None:
        try:
            batch = _batch.decode(data)
        except msgspec.DecodeError:
            logger.warning("table %s: a malformed batch was ignored", self.table)
            return
        if batch.epoch != self.epoch:  # for another holder of the lease (a gateway's decisions come elsewhere)
            return
        for item in batch.items:
            if isinstance(item, Publish):
                self.stream.publish_encoded(item.message, item.concerned)
            elif isinstance(item, Acted):
                self._act(item)
            elif isinstance(item, SnapshotFor):
                self._snapshot(item)
            elif isinstance(item, Watching):
                key = (item.route.subject, item.route.number)
                if item.on:
                    self.sink.routes[key] = item.route.player
                else:
                    self.sink.routes.pop(key, None)
            elif isinstance(item, HandOut):
                if item.number > self.last:
                    try:
                        self.out = item, item.hand.build()
                    except ValueError as error:  # IllegalAction too: no hand the rules allow
                        logger.warning("table %s: hand %s sent makes no hand, ignored: %s", self.table,
                                       item.number, error)
                        continue
                    self.woken()
            elif isinstance(item, Adopt):
                self.sink.routes = {(route.subject, route.number): route.player for route in item.routes}
            elif isinstance(item, Back):
                if self.desk is not None and item.player in self.sitting:
                    self.sit_out(item.player, False)
            elif isinstance(item, Closed):
                self.closed.set()

    def decided(self, subject: str, data: bytes) -> None:
        """Decisions of a realm's gateways (``decisions_for``), which carry nothing else."""
        try:
            batch = _batch.decode(data)
        except msgspec.DecodeError:
            logger.warning("table %s: a malformed batch of decisions was ignored", self.table)
            return
        realm = realm_in(subject)
        for item in batch.items:
            if isinstance(item, Acted) and self._placed(realm, item.route):
                self._act(item)

    def _placed(self, realm: str, route: Route) -> bool:
        """Whether the director placed ``route``'s player there, at a client of a gateway of ``realm``: a gateway
        speaks for its own clients only, so that a decision forged on the bus for anyone else is refused, even
        with a gateway's credentials (NATS lets only ``realm``'s user publish on the subject it came on)."""
        if (route.player and self.sink.routes.get((route.subject, route.number)) == route.player
                and in_realm(realm, route.subject.removeprefix(frames_for("")))):
            return True
        logger.warning("table %s: a decision for %r from %s/%s, where the director placed no such player of realm "
                       "%r, refused", self.table, route.player, route.subject, route.number, realm)
        return False

    def _act(self, acted: Acted) -> None:
        started = time.perf_counter()
        try:
            if self.desk is None:
                raise_no_hand(acted.decision)
            named = acted.decision.hand
            if named is not None and named > self.desk.number:
                # A later hand than this worker's: the table has gone on at another worker (this one was cut off
                # and has not yet seen its lease go), whose answer is the one the player needs.
                return
            self.desk.act(acted.route.player, acted.decision)
        except Refused as refusal:
            self.sink.to(acted.route, error_message(refusal.code, refusal.message))
            return
        self.acted(time.perf_counter() - started)

    def _snapshot(self, asked: SnapshotFor) -> None:
        """The director's snapshot, numbered in the stream and completed with the hand in play."""
        snapshot = _snapshots.decode(asked.snapshot)
        snapshot.seq = self.stream.seq
        desk = self.desk
        if desk is not None:
            if snapshot.table is not None:
                views.playing(snapshot.table, desk.hand, desk.number, desk.countdown(), self.sitting)
            if snapshot.you is not None:
                views.your_hand(snapshot.you, desk.hand)
        self.sink.to(asked.route, encoder.encode(snapshot))

    # ------------------------------------------------------------ the stream, and the hand's Outlet

    def publish(self, message: TableMessage) -> None:
        if isinstance(message, TimedOut):
            self.expired()
        self.stream.publish(message)

    def tell(self, player: str, message: PrivateMessage) -> None:
        self.stream.tell(player, message)

    def apply(self, player: str, action: str, amount: int | None, bank: float) -> None:
        assert self.desk is not None
        events = self.desk.hand.act(action, amount, player)
        self.banks[player] = bank
        self.decisions.append(Act(self.table, action, amount, player, bank))
        self._route(events)

    def grace(self, player: str) -> bool:
        return self.disconnect_grace.take(player, player in self.sink.routes.values())

    def sit_out(self, player: str, sitting_out: bool) -> None:
        if mark_sitting_out(self.sitting, player, sitting_out):
            self.changed[player] = sitting_out
            self.publish(SittingOut(player, sitting_out))

    def _route(self, events: list[Event]) -> None:
        self.stream.route_hand(events)

    # ------------------------------------------------------------ the hand

    async def play(self, stopped: asyncio.Event) -> HandBack | None:
        """The hand sent, played to its end and shown for its pause; None if the table is let go meanwhile."""
        assert self.out is not None
        (out, hand), self.out = self.out, None
        self.last = out.number
        self.banks, self.sitting, self.changed = dict(out.banks), set(out.sitting_out), {}
        dealt_at = time.monotonic()
        self.disconnect_grace = Grace(out.grace_seconds, out.grace_every,
                                      lambda: out.clock + time.monotonic() - dealt_at, dict(out.last_grace))
        self.decisions, self.names = [], out.names
        desk = self.desk = Decisions(self.table, out.number, hand, self, self.banks, self.sitting, out.action_seconds,
                                     out.grace_seconds, lambda player: self.names.get(player, player), out.stage,
                                     LoopClock())
        for event in out.opening:
            self.stream.publish_encoded(event)
        self._route(list(hand.events))
        desk.next_turn()

        async def played() -> None:
            await desk.play()
            await asyncio.sleep(out.pause)  # the table sees the result before the director settles it

        playing = asyncio.get_running_loop().create_task(played())
        stop = asyncio.get_running_loop().create_task(stopped.wait())
        try:
            await asyncio.wait({playing, stop}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for task in (playing, stop):
                task.cancel()
            await asyncio.gather(playing, stop, return_exceptions=True)
        if not playing.done() or playing.cancelled() or stopped.is_set():
            self.desk = None
            return None
        playing.result()  # a bug in the hand stops the table
        graced = {player: when for player, when in self.disconnect_grace.given.items()
                  if out.last_grace.get(player) != when}
        return HandBack(out.number, self.decisions, self.changed, graced)

    def settled(self) -> None:
        """The director has the hand back: snapshots and decisions are its again."""
        self.desk = None
