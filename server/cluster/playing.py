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

from engine.events import Event, HoleDealt
from engine.hand import Hand
from engine.wire import (
    Private, PrivateMessage, SittingOut, Snapshot, TableMessage, TimedOut, encoder, error_message,
)
from server.tournament import views
from server.cluster.schema import (
    Acted, Adopt, Back, Closed, Frames, Publish, Route, SnapshotFor, TableBatch, Watching, frames_for, in_realm,
    realm_in,
)
from server.tournament.remote import Decision, HandBack, HandOut
from server.tournament.decisions import Decisions, mark_sitting_out
from server.errors import Refused

logger = logging.getLogger("mttsim.worker")
_snapshots = msgspec.json.Decoder(Snapshot)
_batch = msgspec.msgpack.Decoder(TableBatch)


class Numbered(msgspec.Struct, tag="event", tag_field="type"):
    """engine.wire's ``Envelope`` around an event encoded already: the director encodes what it says, the worker
    numbers it."""

    seq: int
    table: int
    event: msgspec.Raw
    at: float


class PlayedTable:
    """One table held by this worker: its stream's number, its clients, and the hand in play."""

    def __init__(self, table: int, epoch: int, frames: Callable[[str], Frames], kept: Callable[[bytes], None],
                 woken: Callable[[], None], acted: Callable[[float], None], expired: Callable[[], None],
                 seq: int = 0) -> None:
        self.table = table
        self.epoch = epoch
        self.frames = frames  # the frames to a gateway (or the director), by subject: shared by the worker's tables
        self.kept = kept  # the lines of one turn of the loop, to the table's stream in JetStream
        self.woken = woken  # a hand arrived to be played
        self.acted = acted  # observes the seconds a decision took to apply and send
        self.expired = expired
        self.seq = seq  # the last number of the table's stream: JetStream's, for a table taken over
        self.keeping: list[bytes] = []
        self.routes: dict[tuple[str, int], str] = {}  # (subject, number) -> player, or "" for an observer
        self.out: tuple[HandOut, Hand] | None = None  # a hand sent to be played, not begun
        self.desk: Decisions | None = None  # the hand in play, until the director has it back
        self.last = 0  # the number of the last hand begun: a hand sent again (its answer was lost) is not replayed
        self.banks: dict[str, float] = {}
        self.sitting: set[str] = set()
        self.changed: dict[str, bool] = {}  # who sat out or came back during the hand
        self.grace_due: set[str] = set()
        self.graced: list[str] = []
        self.decisions: list[Decision] = []
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
                self._publish(item.message, item.concerned)
            elif isinstance(item, Acted):
                self._act(item)
            elif isinstance(item, SnapshotFor):
                self._snapshot(item)
            elif isinstance(item, Watching):
                key = (item.route.subject, item.route.number)
                if item.on:
                    self.routes[key] = item.route.player
                else:
                    self.routes.pop(key, None)
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
                self.routes = {(route.subject, route.number): route.player for route in item.routes}
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
        if (route.player and self.routes.get((route.subject, route.number)) == route.player
                and in_realm(realm, route.subject.removeprefix(frames_for("")))):
            return True
        logger.warning("table %s: a decision for %r from %s/%s, where the director placed no such player of realm "
                       "%r, refused", self.table, route.player, route.subject, route.number, realm)
        return False

    def _act(self, acted: Acted) -> None:
        started = time.perf_counter()
        try:
            if self.desk is None:
                raise Refused("no_hand", "you have no hand in progress")
            self.desk.act(acted.route.player, acted.action, acted.amount)
        except Refused as refusal:
            self._to(acted.route, error_message(refusal.code, refusal.message))
            return
        self.acted(time.perf_counter() - started)

    def _snapshot(self, asked: SnapshotFor) -> None:
        """The director's snapshot, numbered in the stream and completed with the hand in play."""
        snapshot = _snapshots.decode(asked.snapshot)
        snapshot.seq = self.seq
        desk = self.desk
        if desk is not None:
            if snapshot.table is not None:
                views.playing(snapshot.table, desk.hand, desk.number, desk.countdown(), self.sitting)
            if snapshot.you is not None:
                views.your_hand(snapshot.you, desk.hand)
        self._to(asked.route, encoder.encode(snapshot))

    def _to(self, route: Route, message: bytes) -> None:
        self.frames(route.subject).send(route.number, message, urgent=True)

    # ------------------------------------------------------------ the stream, and the hand's Outlet

    def _publish(self, message: bytes, concerned: str) -> None:
        """Number ``message`` in the table's stream and send it to the table's clients, once per gateway."""
        self.seq += 1
        line = encoder.encode(Numbered(self.seq, self.table, msgspec.Raw(message), time.time()))
        if not self.keeping:
            asyncio.get_running_loop().call_soon(self._keep)
        self.keeping.append(line)
        grouped: dict[str, tuple[list[int], list[int]]] = {}
        for (subject, number), player in self.routes.items():
            now, later = grouped.setdefault(subject, ([], []))
            (now if concerned and player == concerned else later).append(number)
        for subject, (now, later) in grouped.items():
            self.frames(subject).broadcast(line, now, later)

    def _keep(self) -> None:
        """The turn's lines, in one message to the table's stream in JetStream: never awaited (a decision does not
        wait on a disk), read by the worker that takes the table over, to number on from its last."""
        lines, self.keeping = self.keeping, []
        self.kept(b"\n".join(lines))

    def publish(self, message: TableMessage) -> None:
        if isinstance(message, TimedOut):
            self.expired()
        self._publish(encoder.encode(message), getattr(message, "player", None) or "")

    def tell(self, player: str, message: PrivateMessage) -> None:
        line = encoder.encode(Private(message, time.time()))
        for (subject, number), owner in self.routes.items():
            if owner == player:
                self.frames(subject).send(number, line, urgent=True)

    def apply(self, player: str, action: str, amount: int | None, bank: float) -> None:
        assert self.desk is not None
        events = self.desk.hand.act(action, amount, player)
        self.banks[player] = bank
        self.decisions.append(Decision(player, action, amount, bank))
        self._route(events)

    def grace(self, player: str) -> bool:
        if player not in self.grace_due or player in self.routes.values():  # due, and disconnected
            return False
        self.grace_due.discard(player)
        self.graced.append(player)
        return True

    def sit_out(self, player: str, sitting_out: bool) -> None:
        if mark_sitting_out(self.sitting, player, sitting_out):
            self.changed[player] = sitting_out
            self.publish(SittingOut(player, sitting_out))

    def _route(self, events: list[Event]) -> None:
        """A hand's events: hole cards to their owner only."""
        for event in events:
            if isinstance(event, HoleDealt):
                self.tell(event.player, event)
            else:
                self.publish(event)

    # ------------------------------------------------------------ the hand

    async def play(self, stopped: asyncio.Event) -> HandBack | None:
        """The hand sent, played to its end and shown for its pause; None if the table is let go meanwhile."""
        assert self.out is not None
        (out, hand), self.out = self.out, None
        self.last = out.number
        self.banks, self.sitting, self.changed = dict(out.banks), set(out.sitting_out), {}
        self.grace_due, self.graced, self.decisions, self.names = set(out.grace), [], [], out.names
        desk = self.desk = Decisions(self.table, out.number, hand, self, self.banks, self.sitting, out.action_seconds,
                                     out.grace_seconds, lambda player: self.names.get(player, player))
        for event in out.opening:
            self._publish(event, "")
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
        return HandBack(out.number, self.decisions, self.changed, self.graced)

    def settled(self) -> None:
        """The director has the hand back: snapshots and decisions are its again."""
        self.desk = None
