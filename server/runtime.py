"""One tournament in real time: a task per table, the action clocks, the level clock, and the table streams.

The director (engine.director) decides; this module only waits. Each table
task asks the director whether it may deal (so the hand-for-hand barrier,
breaks and pauses are the director's answer, not a second implementation),
plays the hand decision by decision against the clock, and settles it.
Everything the director says comes back as events, which are routed to
table streams: each public event is encoded once per table, numbered with
that table's sequence number, and queued to every client watching the table.

Clocks (rules.md E.19-E.22): a decision has ``action_seconds`` plus what is
left of the player's time bank, used automatically. When both run out the
clock checks if free and folds otherwise, connected or not, and the player
sits out: from then on their decisions are taken at once, blinds are
posted, until they act or send ``back``.

Money decisions (rules.md F.25-F.26, H.36) are the director's too: a re-buy
offer, the add-on and a deal proposal each carry a deadline on the
tournament clock, which the clock loop's ``advance`` enforces. The players
concerned get a private ``offer`` with the seconds they have; a player who
disconnects while a deal is on the table rejects it.

Persistence (server/journal.py): every command to the director goes through
``_command``, which runs it and journals it before its events are routed, so
nothing is broadcast that a restart would not replay. The director's RNG is
seeded (the seed is stored with the tournament), which makes the replay give
the same cards. A restored tournament voids the hands the crash interrupted
(start-of-hand stacks stand), and its clock resumes where it stood: the time
the server was down does not count.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import logging
import os
import pickle
import random
import secrets
import time
import zlib
from collections.abc import Iterator
from typing import Any, cast

import msgspec

from bots.client import Fault, play_seat, strategy_for
from bots.strategies import Strategy
from engine.cards import shuffled_deck
from engine.director import Status, Tournament, TournamentError
from engine.events import (
    AddOnOffered, AddOnTaken, BountyWon, DealProposed, EntriesMerged, Event, HandFinished, HandStarted, HandVoided,
    HoleDealt, PlayerEliminated, PlayerMoved, RebuyDeclined, RebuyOffered, RebuyTaken, Refunded, Registered, Seated,
    Shown, StatusChanged, TableBroken, TournamentFinished,
)
from engine.history import to_phh
from engine.hand import Hand, IllegalAction
from engine.refunds import RefundPolicy
from engine.structure import Definition
from server.hub import Connection
from server.journal import MemoryStorage, Storage, Stored
from server.protocol import (
    Act, DeclineRebuy, Envelope, MoneyMessage, Moved, Offer, Presence, PressDeal, Private, Rebuy,
    SittingOut, Snapshot, TakeAddOn, TimedOut, TournamentState, Turn, YourTurn, encoder, error_message,
)

CLOCK_TICK_SECONDS = 0.25
SNAPSHOT_EVERY = 20_000  # journal records between snapshots, taken when a hand ends, at least ...
SNAPSHOT_RECORDS_PER_ENTRY = 4  # ... and more in a large field, whose snapshot takes longer (docs/performance.md)
DRAW_SNAPSHOTS_PER_TURN = 100  # the start's snapshots to connected players, per turn of the event loop
TABLES_STARTED_PER_TURN = 15  # tables dealing together (the first deals, after a break) per turn of the event loop
logger = logging.getLogger("mttsim.server")


@contextlib.contextmanager
def refusals() -> Iterator[None]:
    """The director's refusals (TournamentError, naming the rule) as a 409 Refused."""
    try:
        yield
    except TournamentError as error:
        raise Refused(409, "refused", str(error)) from None


class Refused(Exception):
    """A refused request, with its HTTP status and the wire's error code."""

    def __init__(self, status: int, code: str, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message

    def wire_message(self) -> bytes:
        """The refusal as the websocket's error message."""
        return error_message(self.code, self.message)


def token_key(token: str) -> str:
    """How a player token is kept (in memory and in the journal): its SHA-256, never the token itself."""
    return hashlib.sha256(token.encode()).hexdigest()


_MONEY_EVENTS = frozenset((Registered, Refunded, RebuyTaken, AddOnTaken, TournamentFinished, BountyWon))


def _moves_money(events: list[Event]) -> bool:
    """Whether a command's events move money: then its journal record is synced to disk (FULL)."""
    for event in events:
        kind = type(event)
        if kind in _MONEY_EVENTS or (kind is PlayerEliminated and event.prize_cents > 0):
            return True
    return False


_record_encoder = msgspec.msgpack.Encoder()
_record_decoder = msgspec.msgpack.Decoder(tuple[list[Any], msgspec.Raw])  # the events stay bytes, to compare


def freeze(state: dict[str, Any]) -> bytes:
    """A snapshot's bytes: the pickled state, compressed (a quarter of the size, so storing it is quick)."""
    return zlib.compress(pickle.dumps(state, pickle.HIGHEST_PROTOCOL), 1)


def thaw(snapshot: bytes) -> dict[str, Any]:
    """The state a snapshot holds; a journal written before snapshots were compressed holds a bare pickle."""
    if snapshot[:1] == b"\x80":  # pickle's protocol opcode; a zlib stream starts with 0x78
        return cast(dict[str, Any], pickle.loads(snapshot))
    return cast(dict[str, Any], pickle.loads(zlib.decompress(snapshot)))


def _read_to_end(descriptor: int) -> bytes:
    """Everything a pipe gives until its writer closes it; closes the descriptor."""
    with os.fdopen(descriptor, "rb") as pipe:
        return pipe.read()


def _settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


class _TableClock:
    """The decision in progress at one table."""

    __slots__ = ("decision", "answered", "turn_started", "seconds", "time_bank", "button")

    def __init__(self) -> None:
        self.decision = 0  # bumped when a turn starts and when it is answered
        self.answered: asyncio.Future[None] | None = None  # what the table's task awaits, with a timer
        self.turn_started = 0.0
        self.seconds = 0.0  # the decision's whole clock: action seconds plus the time bank
        self.time_bank = 0.0
        self.button = 0


class TournamentRuntime:
    """A tournament served live: registration over REST, then tables played over websockets."""

    def __init__(self, tournament_id: str, definition: Definition, *, hand_pause: float = 2.0,
                 storage: Storage | None = None, seed: int | None = None) -> None:
        self.id = tournament_id
        self.definition = definition
        self.hand_pause = hand_pause
        self.storage: Storage = storage or MemoryStorage()
        self.seed = secrets.randbits(63) if seed is None else seed  # fits an SQLite INTEGER
        self.director = Tournament(definition, random.Random(self.seed), deal=shuffled_deck)
        self.director.open_registration()
        self.names: dict[str, str] = {}
        self.tokens: dict[str, str] = {}  # token_key(token) -> player id
        self.bots: dict[str, tuple[str, str, float, float]] = {}  # the server's own: player -> tag, token, think
        self.voided: list[dict[str, int]] = []  # hands a restore called off
        self.registry: dict[str, TournamentRuntime] = {}  # the server's tournaments: a satellite's target is one
        self.tickets: list[dict[str, Any]] = []  # a satellite's seats, as registered into its target
        self.ws_url: str | None = None  # where this server's own bots connect
        self.restored_at: float | None = None
        self._position = 0  # of the last journal record
        self._snapshot_at = 0
        self._snapshotting: asyncio.Task[None] | None = None  # a snapshot a child process is pickling
        self._stack_figures: tuple[int, int | None, int | None] = (-1, None, None)  # (position, average, largest)
        self._last_now = 0.0  # the newest tournament clock value a command was given
        self.sitting_out: set[str] = set()
        self.time_bank: dict[str, float] = {}
        self.paused = False
        self.log: list[tuple[float, Any]] = []  # every director and hand event, in order (tests, journal)
        self._seq: dict[int, int] = {}
        self._watchers: dict[int, set[Connection]] = {}
        self._players: dict[str, set[Connection]] = {}
        self._clocks: dict[int, _TableClock] = {}
        self._started_at = 0.0
        self._paused_at = 0.0
        self._paused_total = 0.0
        self._wakers: dict[int, asyncio.Event] = {}  # a table task waits on its own event
        self._task: asyncio.Task[None] | None = None
        self._next_player = 0
        self.crashed = False
        self._deal_offered_at = 0  # the field size the last 'press_deal' offer went out for
        self.started_wall: float | None = None  # seconds since the epoch, for the lobby

    @classmethod
    def create(cls, tournament_id: str, definition: Definition, storage: Storage, *,
               hand_pause: float = 2.0, seed: int | None = None) -> TournamentRuntime:
        """A new tournament, stored with its definition and seed before anyone can register."""
        runtime = cls(tournament_id, definition, hand_pause=hand_pause, storage=storage, seed=seed)
        storage.create(tournament_id, msgspec.json.encode(definition), runtime.seed)
        return runtime

    @classmethod
    def restore(cls, stored: Stored, storage: Storage, *, hand_pause: float = 2.0) -> TournamentRuntime:
        """The tournament as its journal leaves it: the newest snapshot, then every command after it."""
        definition = msgspec.json.decode(stored.definition, type=Definition)
        runtime = cls(stored.id, definition, hand_pause=hand_pause, storage=storage, seed=stored.seed)
        if stored.snapshot is not None:
            runtime._load(thaw(stored.snapshot))
        for raw in stored.records:
            record, logged = _record_decoder.decode(raw)
            if _record_encoder.encode(runtime._execute(record)) != bytes(logged):
                raise RuntimeError(f"tournament {stored.id}: the replay of {record[0]!r} differs from its journal")
        runtime._position = stored.position
        runtime._snapshot_at = stored.position - len(stored.records)
        return runtime

    def resume_after_restore(self, task_group: asyncio.TaskGroup, ws_url: str | None) -> None:
        """Void the hands the crash interrupted, restart the clock and the tables, and bring back the bots."""
        director = self.director
        self.restored_at = time.time()
        if director.status is Status.RUNNING:
            self._started_at = time.monotonic() - self._last_now
            if self.paused:
                self._paused_at = time.monotonic()
            for table in sorted(director.tables):
                if director.hand(table) is not None:
                    self.voided.append({"table": table, "hand": director.hand_number(table)})
                    self._route(self._command(["void", table]))
            self._task = task_group.create_task(self.run(), name=f"tournament:{self.id}")
        if ws_url is None or director.status not in (Status.REGISTER, Status.RUNNING):
            return
        for player, (tag, token, think_min, think_max) in self.bots.items():
            if player in director.stacks:
                strategy, fault = strategy_for(tag)
                task_group.create_task(self._bot(ws_url, player, token, strategy, random.Random(),
                                                 (think_min, think_max), fault), name=f"bot:{self.id}:{player}")

    # ---------------------------------------------------------- the journal

    def _command(self, record: list[Any]) -> list[Event]:
        """Run a command and journal it with its events, before any is routed; a refused command is not journaled.

        The events are kept beside the command so the journal reads on its
        own (an audit, a hand's every step), and a restore checks its replay
        against them.
        """
        events = self._execute(record)
        self._position = self.storage.append(self.id, _record_encoder.encode([record, events]),
                                             money=_moves_money(events))
        if self.director.status in (Status.FINISHED, Status.CANCELLED):
            self.storage.close_tournament(self.id, self.director.status.value,
                                          freeze(self._state()))
            if self.director.status is Status.FINISHED and self.definition.satellite is not None:
                self._carry_players(self.definition.satellite.target, {
                    result.player: None for result in self.director.standings() if result.ticket})
            if self.director.status is Status.FINISHED and self.definition.flight is not None:
                self._carry_players(self.definition.flight.final, dict(self.director.stacks),
                                    pool_cents=self.director.ledger.summary()["carried"])
            if self._task is not None:  # the tables stop; hands a satellite's end or a cancellation voided included
                self._task.cancel()
        return events

    def _execute(self, record: list[Any]) -> list[Event]:
        """One journal record applied to the director and this runtime: live, or replayed by a restore."""
        director = self.director
        kind, *args = record
        if kind == "act":
            table, action, amount, player, bank = args
            events = director.act(table, action, amount, player)
            self.time_bank[player] = bank
            return events
        if kind == "advance":
            self._last_now = args[0]
            return director.advance(args[0])
        if kind == "start_hand":
            return director.start_hand(args[0])
        if kind == "end_hand":
            return director.end_hand(args[0])
        if kind == "register":
            player, name, key, *person = args
            events = director.register(player, person[0] if person else None)
            self._new_entry(player, name, key)
            return events
        if kind == "qualify":
            player, name, key, stack = args
            known = key in self.tokens  # the person has a stack here already: it stays their entry
            events = director.qualify(player, key, stack)
            if not known:
                self._new_entry(player, name, key)
            self._next_player = max(self._next_player, int(player[1:]))
            return events
        if kind == "carry_in":
            return director.carry_in(args[0])
        if kind == "bot":
            player, tag, token, think_min, think_max = args
            self.bots[player] = (tag, token, think_min, think_max)
            return []
        if kind == "start":
            self._last_now, self.started_wall = args
            return director.start(args[0])
        if kind in ("pause", "resume"):
            self._last_now = args[0]
            self.paused = kind == "pause"
            return []
        if kind == "cancel":
            return director.cancel(msgspec.convert(args[0], RefundPolicy) if args[0] is not None else None)
        if kind == "void":
            return director.void_hand(args[0])
        if kind in ("unregister", "rebuy", "decline_rebuy", "add_on", "accept_deal"):
            return getattr(director, kind)(args[0])
        if kind in ("press_deal", "reject_deal"):
            return getattr(director, kind)(args[0], args[1])
        raise ValueError(f"unknown journal record {kind!r}")

    def _carry_players(self, target_id: str | None, players: dict[str, int | None], pool_cents: int = 0) -> None:
        """Players this tournament sends on: a satellite's seat winners (K.44), a flight's survivors (L.47).

        Each becomes an entry of the target, on this server and open for
        registration, under the same name and the same token: a seat as a
        paid registration, a survivor with their stack (``players`` maps them
        to it) and the flight's pool carried along. Otherwise the entry is
        listed as refused, for the admin to settle. The server's own bots are
        registered as bots and play there too.
        """
        target = self.registry.get(target_id) if target_id else None
        keys = {player: key for key, player in self.tokens.items()}
        if target is not None and pool_cents:
            try:
                target._command(["carry_in", pool_cents])
            except TournamentError as refusal:
                target = None
                logger.error("flight %s could not carry its pool to %s: %s", self.id, target_id, refusal)
        for player, stack in players.items():
            ticket: dict[str, Any] = {"player": player, "name": self.names.get(player), "stack": stack,
                                      "target": target_id, "entry": None, "refused": None}
            if target is None:
                ticket["refused"] = f"no tournament {target_id!r} open here" if target_id else "no target set"
            else:
                entry = f"p{target._next_player + 1}"
                name = self.names.get(player, entry)
                record = ["register", entry, name, keys[player]] if stack is None else \
                    ["qualify", entry, name, keys[player], stack]
                try:
                    target._route(target._command(record))
                    ticket["entry"] = target.player_for_key(keys[player])
                    if player in self.bots and ticket["entry"] == entry:
                        tag, token, think_min, think_max = self.bots[player]
                        target._command(["bot", entry, tag, token, think_min, think_max])
                        if self.ws_url is not None:
                            strategy, fault = strategy_for(tag)
                            asyncio.get_running_loop().create_task(
                                target._bot(self.ws_url, entry, token, strategy, random.Random(),
                                            (think_min, think_max), fault), name=f"bot:{target.id}:{entry}")
                except TournamentError as refusal:
                    ticket["refused"] = str(refusal)
            self.tickets.append(ticket)

    def _new_entry(self, player: str, name: str, key: str) -> None:
        """An entry's name, its token (by key) and its time bank."""
        self.names[player] = name
        self.tokens[key] = player
        self.time_bank[player] = self.definition.time_bank_seconds
        self._next_player = max(self._next_player, int(player[1:]))

    def _state(self) -> dict[str, Any]:
        return {"director": self.director, "names": self.names, "tokens": self.tokens, "bots": self.bots,
                "time_bank": self.time_bank, "paused": self.paused, "last_now": self._last_now,
                "next_player": self._next_player, "started_wall": self.started_wall}

    def _load(self, state: dict[str, Any]) -> None:
        self.director = state["director"]
        self.names, self.tokens, self.bots = state["names"], state["tokens"], state["bots"]
        self.time_bank, self.paused, self._last_now = state["time_bank"], state["paused"], state["last_now"]
        self._next_player, self.started_wall = state["next_player"], state["started_wall"]

    def _maybe_snapshot(self) -> None:
        """After a hand ends, every ``SNAPSHOT_EVERY`` records (``SNAPSHOT_RECORDS_PER_ENTRY`` per entry when
        that is more): the whole state, so a restore replays little.

        Pickling the state of 10,000 players takes 50-100 ms, and the tables
        would wait that long. Inside an event loop a forked child pickles it
        instead, from the memory the fork froze at this record, while the
        tables play on; the snapshot is stored when its bytes are all there.
        Until then the previous snapshot and the journal cover everything, so
        a crash meanwhile loses nothing (docs/architecture.md).
        """
        every = max(SNAPSHOT_EVERY, SNAPSHOT_RECORDS_PER_ENTRY * len(self.director.entries))
        if self._position - self._snapshot_at < every or self._snapshotting is not None:
            return
        self._snapshot_at = self._position
        try:
            asyncio.get_running_loop()
            forks = hasattr(os, "fork")
        except RuntimeError:  # a script or a test, outside an event loop
            forks = False
        if not forks:
            self.storage.snapshot(self.id, self._position, freeze(self._state()))
            return
        # The fork happens here, at this record: the child's memory is the state at this position.
        readable, writable = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: no event loop, no journal, nothing but the pickle
            code = 1
            try:
                os.close(readable)
                with os.fdopen(writable, "wb") as pipe:
                    pipe.write(freeze(self._state()))
                code = 0
            finally:
                os._exit(code)
        os.close(writable)
        self._snapshotting = asyncio.get_running_loop().create_task(
            self._store_child_snapshot(self._position, pid, readable), name=f"snapshot:{self.id}")

    async def _store_child_snapshot(self, position: int, pid: int, readable: int) -> None:
        """Read the child's pickle to its end, reap the child, and store the snapshot at its position."""
        try:
            state = await asyncio.to_thread(_read_to_end, readable)
            _, status = await asyncio.to_thread(os.waitpid, pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                logger.error("tournament %s: the snapshot at record %d failed in its process", self.id, position)
            elif self.director.status is Status.RUNNING:  # a closed tournament has stored its final state
                self.storage.snapshot(self.id, position, state)
        finally:
            self._snapshotting = None

    # ------------------------------------------------------------ the clock

    def now(self) -> float:
        """Tournament seconds: the wall clock since the start, minus pauses."""
        if self._started_at == 0.0:
            return 0.0
        paused = self._paused_total + (time.monotonic() - self._paused_at if self.paused else 0.0)
        return time.monotonic() - self._started_at - paused

    # ------------------------------------------------------- REST commands

    def register(self, name: str, *, another_of: str | None = None) -> tuple[str, str]:
        """A new entry; returns ``(player_id, token)``. The token is the player's key to their seat.

        ``another_of`` is the token of the person's first entry: multi-entry
        (M.50), where the tournament allows it.
        """
        person = None
        if another_of is not None and self.player_for(another_of) is None and self._in_a_sibling_flight(another_of):
            return self._register_again(name, another_of)
        if another_of is not None:
            first = self.player_of(another_of)
            if not (self.definition.entries_per_person or 1) > 1:
                raise Refused(409, "refused", "this tournament allows one entry per person (entries_per_person)")
            person = self.director.person(first)
        token = secrets.token_urlsafe(18)
        player = f"p{self._next_player + 1}"
        with refusals():
            self._record(self._command(["register", player, name, token_key(token), person]))
        return player, token

    def _in_a_sibling_flight(self, token: str) -> bool:
        """Whether ``token`` plays another flight of this flight's final: the same person again (L.48)."""
        flight = self.definition.flight
        return flight is not None and flight.final is not None and any(
            other.definition.flight is not None and other.definition.flight.final == flight.final
            and other.player_for(token) is not None for other in self.registry.values() if other is not self)

    def _register_again(self, name: str, token: str) -> tuple[str, str]:
        """A person's entry in one more flight, under the token they already hold: the final groups by it.

        Refused when the final takes the first stack forward and this person
        has already qualified (L.48: no entries after qualifying).
        """
        assert self.definition.flight is not None
        final = self.registry.get(self.definition.flight.final or "")
        if (final is not None and final.definition.final is not None
                and final.definition.final.forward == "first" and final.player_for(token) is not None):
            raise Refused(409, "refused", "you have qualified for the final already: first stack forward (L.48)")
        player = f"p{self._next_player + 1}"
        with refusals():
            self._record(self._command(["register", player, name, token_key(token)]))
        return player, token

    def add_bots(self, count: int, ws_url: str, tasks: asyncio.TaskGroup, *, mix: dict[str, float],
                 think: tuple[float, float], rng: random.Random) -> list[str]:
        """Register ``count`` bots that play over the websocket like any client (bots/client.py)."""
        names, weights = list(mix), list(mix.values())
        self.ws_url = ws_url
        added = []
        for _ in range(count):
            tag = rng.choices(names, weights)[0]
            player, token = self.register(f"{tag} bot {self._next_player + 1}")
            self._command(["bot", player, tag, token, think[0], think[1]])
            added.append(player)
            strategy, fault = strategy_for(tag)
            tasks.create_task(self._bot(ws_url, player, token, strategy, random.Random(rng.random()), think, fault),
                              name=f"bot:{self.id}:{player}")
        return added

    async def _bot(self, ws_url: str, player: str, token: str, strategy: Strategy, rng: random.Random,
                   think: tuple[float, float], fault: Fault | None) -> None:
        try:
            await play_seat(ws_url, self.id, player, token, strategy, rng, think, fault)
        except Exception:  # a bot's failure is the bot's: the tournament plays on and its clock acts for it
            logger.exception("bot %s stopped", player)

    def unregister(self, token: str) -> int:
        """Leave during Register; returns the refund in cents (buy-in and fee)."""
        player = self.player_of(token)
        with refusals():
            events = self._command(["unregister", player])
        self._record(events)
        return sum(e.refund_cents for e in events if isinstance(e, Refunded))

    def start(self, task_group: asyncio.TaskGroup) -> None:
        """Draw the seats now; what the draw tells the players and the first deals follow over many loop turns.

        The draw is one command, journaled at once. A snapshot to every
        connected player and a first hand at every table would take the event
        loop for a third of a second at 10,000 players, so ``run`` sends them
        ``DRAW_SNAPSHOTS_PER_TURN`` and ``TABLES_STARTED_PER_TURN`` at a time.
        """
        with refusals():
            self.director.verify_start()
        self._started_at = time.monotonic()
        events = self._command(["start", self.now(), time.time()])
        if self.director.status is Status.RUNNING:
            self._task = task_group.create_task(self.run(events), name=f"tournament:{self.id}")
        else:  # too few entries: cancelled and refunded, nothing to spread
            self._route(events)

    def cancel(self, policy: RefundPolicy | None = None) -> None:
        """Cancel with the tournament's refund policy (or ``policy``): hands in progress are void, refunds paid."""
        with refusals():
            self.director.verify_cancel(policy)
            events = self._command(["cancel", msgspec.to_builtins(policy) if policy is not None else None])
        self._route(events)

    def cancellation_preview(self, policy: RefundPolicy | None = None) -> list[dict[str, Any]]:
        with refusals():
            refunds = self.director.cancellation_preview(policy)
        return [self._refund_row(refund) for refund in refunds]

    def _refund_row(self, refund: Any) -> dict[str, Any]:
        return {"player": refund.player, "name": self.names.get(refund.player, "the house"),
                "refund_cents": refund.cents, "fee_cents": refund.fee_cents, "rule": refund.rule}

    def player_money(self, player: str, message: MoneyMessage) -> None:
        """A re-buy, an add-on or a deal answer from the wire; the director names the rule when it refuses."""
        record: list[Any]
        if isinstance(message, Rebuy):
            record = ["rebuy", player]
        elif isinstance(message, DeclineRebuy):
            record = ["decline_rebuy", player]
        elif isinstance(message, TakeAddOn):
            record = ["add_on", player]
        elif isinstance(message, PressDeal):
            record = ["press_deal", player, message.on]
        else:
            record = ["accept_deal", player] if message.accept else ["reject_deal", player, "rejected"]
        with refusals():
            events = self._command(record)
        self._route(events)
        self._wake_all()

    def pause(self) -> None:
        if self.director.status is not Status.RUNNING or self.paused:
            raise Refused(409, "not_running", "only a running, unpaused tournament can be paused")
        self._command(["pause", self.now()])
        self._paused_at = time.monotonic()
        self._publish_everywhere(TournamentState(True))

    def resume(self) -> None:
        if not self.paused:
            raise Refused(409, "not_paused", "the tournament is not paused")
        self._paused_total += time.monotonic() - self._paused_at
        self.paused = False
        self._command(["resume", self.now()])
        self._publish_everywhere(TournamentState(False))
        self._wake_all()

    async def shutdown(self) -> None:
        """Cancel the tournament's tables and wait for them, and for a snapshot being written."""
        if self._snapshotting is not None:
            await asyncio.shield(self._snapshotting)
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    def player_for(self, token: str) -> str | None:
        return self.tokens.get(token_key(token))

    def player_for_key(self, key: str) -> str | None:
        return self.tokens.get(key)

    def player_of(self, token: str) -> str:
        player = self.player_for(token)
        if player is None:
            raise Refused(401, "bad_token", "unknown player token")
        return player

    # -------------------------------------------------------------- running

    async def run(self, draw: list[Event] | None = None) -> None:
        """The tournament's task group: the level clock and one task per table, until a winner is left.

        ``draw`` is the start's events, routed first. A failure inside one
        tournament stops that tournament (its tables are cancelled and the
        error is logged), never the server or the others.
        """
        try:
            if draw is not None:
                await self._announce(draw)
            await self._run_tables()
        except Exception:
            self.crashed = True
            logger.exception("tournament %s stopped by an error", self.id)

    async def _announce(self, events: list[Event]) -> None:
        """Route the draw, yielding the loop after every ``DRAW_SNAPSHOTS_PER_TURN`` snapshots it sends.

        A player who connects meanwhile gets their table at once (``connect``
        reads the director); the draw's own snapshot reaches them again later.
        """
        self._record(events)
        sent = 0
        for event in events:
            self._route_event(event)
            if isinstance(event, Seated):
                sent += len(self._players.get(event.player, ()))
                if sent >= DRAW_SNAPSHOTS_PER_TURN:
                    sent = 0
                    await asyncio.sleep(0)
        self._offer_deal_button()
        # Everything the field needs now exists (connections, seats, the tables) and lives as long as the
        # tournament: out of the collector's way, so that its collections stay small (docs/performance.md).
        gc.freeze()

    async def _run_tables(self) -> None:
        async with asyncio.TaskGroup() as tables:
            tables.create_task(self._clock_loop(), name=f"clock:{self.id}")
            for count, table in enumerate(sorted(self.director.tables), start=1):
                self._clocks[table] = _TableClock()
                tables.create_task(self._table_loop(table), name=f"table:{self.id}:{table}")
                if count % TABLES_STARTED_PER_TURN == 0:
                    await asyncio.sleep(0)  # the first deals of a thousand tables, a few dozen per loop turn

    def _wake_all(self) -> None:
        """Wake the table tasks that have something to do now: deal, or stop.

        Only those, not every table: with a thousand tables, waking all of
        them after every hand would cost more than the hands.
        """
        director = self.director
        if director.status is not Status.RUNNING:
            targets: list[int] = list(self._wakers)
        else:
            targets = [] if self.paused else director.tables_ready()
        self._wake(targets, 0)

    def _wake(self, tables: list[int], start: int) -> None:
        """Wake ``tables[start:]``, ``TABLES_STARTED_PER_TURN`` per turn of the event loop.

        After a break, a pause or a hand-for-hand round every table deals at
        once: a thousand deals in one turn would stop the loop for 150 ms.
        A table woken late by a change meanwhile finds nothing to do and waits again.
        """
        end = start + TABLES_STARTED_PER_TURN
        for table in tables[start:end]:
            waker = self._wakers.get(table)
            if waker is not None:
                waker.set()
        if end < len(tables) and self._wakers:  # table tasks, and so a running loop
            asyncio.get_running_loop().call_soon(self._wake, tables, end)

    async def _clock_loop(self) -> None:
        director = self.director
        while director.status is Status.RUNNING:
            if not self.paused:
                events = self._command(["advance", self.now()])
                if events:
                    self._route(events)
                    self._wake_all()
            await asyncio.sleep(CLOCK_TICK_SECONDS)

    async def _table_loop(self, table: int) -> None:
        director = self.director

        def may_deal() -> bool:
            return (table not in director.tables or director.status is not Status.RUNNING
                    or (not self.paused and director.is_ready(table)))

        waker = self._wakers[table] = asyncio.Event()
        while True:
            while not may_deal():
                waker.clear()
                await waker.wait()
            if table not in director.tables or director.status is not Status.RUNNING:
                self._wakers.pop(table, None)
                return
            (started,) = self._command(["start_hand", table])
            assert isinstance(started, HandStarted)
            self._clocks[table].button = started.button
            self._route([started])
            hand = director.hand(table)
            assert hand is not None
            self._route_hand(table, hand.events)
            await self._play(table, hand)
            await asyncio.sleep(self.hand_pause)  # the table sees the result before the next deal
            self._route(self._command(["end_hand", table]))
            self.storage.add_hand(self.id, started.hand, table, list(hand.players), to_phh(
                hand, table=table, hand_number=started.hand, seats=[entry.seat + 1 for entry in started.players],
                level=started.level))
            self._maybe_snapshot()
            self._wake_all()

    async def _play(self, table: int, hand: Hand) -> None:
        clock = self._clocks[table]
        loop = asyncio.get_running_loop()
        while not hand.finished:
            legal = hand.legal_actions()
            player = hand.players[legal.player]
            if player in self.sitting_out:
                self._apply(table, player, hand.timeout_action(), None)
                continue
            bank = self.time_bank[player]
            seconds = self.definition.action_seconds + bank
            clock.decision += 1
            asked = clock.decision
            clock.turn_started = loop.time()
            clock.seconds, clock.time_bank = seconds, bank
            self._publish(table, Turn(player, seconds, bank))
            self._tell(player, YourTurn(
                self.director.hand_number(table), legal.can_fold, legal.can_check, legal.call,
                legal.min_raise_to, legal.max_raise_to, seconds, hand.hole[legal.player], tuple(hand.board),
                sum(hand.committed) + sum(hand.bets) + hand.dead, hand.stacks[legal.player], hand.big_blind))
            deadline = clock.turn_started + seconds
            while clock.decision == asked:
                remaining = deadline - loop.time()
                if remaining <= 0:
                    action = hand.timeout_action()
                    self._apply(table, player, action, None, bank=0.0)
                    self._publish(table, TimedOut(player, action))
                    self._set_sitting_out(player, True)
                    break
                # A bare future and a timer: the cheapest wait asyncio has, once per decision.
                clock.answered = answered = loop.create_future()
                timer = loop.call_later(remaining, _settle, answered)
                try:
                    await answered
                finally:
                    timer.cancel()

    def _apply(self, table: int, player: str, action: str, amount: int | None, *, bank: float | None = None) -> None:
        """A decision, with what is left of the player's time bank after it."""
        bank = self.time_bank[player] if bank is None else bank
        events = self._command(["act", table, action, amount, player, bank])
        self._route_hand(table, events)
        clock = self._clocks[table]
        clock.decision += 1
        if clock.answered is not None:
            _settle(clock.answered)

    def player_act(self, player: str, message: Act) -> None:
        """A decision from the wire: only the player to act, at their own table, by the betting rules."""
        if player in self.sitting_out:
            self._set_sitting_out(player, False)
        where = self.director.where.get(player)
        hand = self.director.hand(where[0]) if where else None
        if where is None or hand is None or hand.finished:
            raise Refused(409, "no_hand", "you have no hand in progress")
        table = where[0]
        if hand.actor is None or hand.players[hand.actor] != player:
            actor = hand.players[hand.actor] if hand.actor is not None else "nobody"
            raise Refused(409, "not_your_turn", f"it is not your turn: {self.names.get(actor, actor)} is to act")
        overtime = asyncio.get_running_loop().time() - self._clocks[table].turn_started
        overtime -= self.definition.action_seconds
        bank = max(0.0, self.time_bank[player] - overtime) if overtime > 0 else self.time_bank[player]
        try:
            self._apply(table, player, message.action, message.amount, bank=bank)
        except IllegalAction as error:
            raise Refused(409, "illegal_action", str(error)) from None

    def player_back(self, player: str) -> None:
        self._set_sitting_out(player, False)

    def _set_sitting_out(self, player: str, sitting_out: bool) -> None:
        if (player in self.sitting_out) == sitting_out:
            return
        if sitting_out:
            self.sitting_out.add(player)
        else:
            self.sitting_out.discard(player)
        where = self.director.where.get(player)
        if where is not None:
            self._publish(where[0], SittingOut(player, sitting_out))

    # ------------------------------------------------------------- streams

    def _record(self, events: list[Event]) -> None:
        stamp = time.time()
        self.log.extend((stamp, event) for event in events)

    def _route(self, events: list[Event]) -> None:
        """Director events to the streams of the tables they concern, and moves to the moved players."""
        self._record(events)
        for event in events:
            self._route_event(event)
        self._offer_deal_button()

    def _route_event(self, event: Event) -> None:
        """One director event to the table streams and players it concerns."""
        if isinstance(event, Seated):  # the draw: players already connected go to their table
            self._publish(event.table, event)
            for connection in list(self._players.get(event.player, ())):
                self._watch(connection, event.table)
                connection.send(self.snapshot_message(connection))
        elif isinstance(event, (HandStarted, HandFinished, PlayerEliminated)):
            # An elimination goes to its own table only: sent to every table, busts would cost the
            # server players x busts messages. Other tables read players left from the summary.
            self._publish(event.table, event)
        elif isinstance(event, PlayerMoved):
            self._publish(event.from_table, event)
            self._publish(event.to_table, event)
            self._follow(event)
        elif isinstance(event, TableBroken):
            self._publish(event.table, event)
            self._close_table(event.table)
        elif isinstance(event, (Registered, Refunded)):
            return
        elif isinstance(event, (RebuyOffered, RebuyTaken, RebuyDeclined, AddOnTaken)):
            where = self.director.where.get(event.player)
            if where is not None:
                self._publish(where[0], event)
            if isinstance(event, RebuyOffered):
                self._tell(event.player, Offer("rebuy", event.until - self.now(), event.price_cents, event.chips))
        elif isinstance(event, HandVoided):
            self._publish(event.table, event)
        elif isinstance(event, BountyWon) and event.winners[0] in self.director.where:
            self._publish(self.director.where[event.winners[0]][0], event)  # the knockout's table
        else:  # tournament-wide: levels, breaks, eliminations, hand-for-hand, merges, the finish
            self._publish_everywhere(event)
            if isinstance(event, (StatusChanged, EntriesMerged)):
                self._wake_all()
            elif isinstance(event, AddOnOffered):
                offer = Offer("add_on", event.until - self.now(), event.price_cents, event.chips)
                for player in self.director.stacks:
                    self._tell(player, offer)
            elif isinstance(event, DealProposed):
                self._propose(event)

    def _propose(self, proposal: DealProposed) -> None:
        """Everyone sees the proposal; a player with no connection cannot accept it (H.36: no deal)."""
        offer = Offer("deal", proposal.until - self.now(), amounts=proposal.amounts, stacks=proposal.stacks)
        for player in proposal.amounts:
            if not self._players.get(player) and self.director.proposal is not None:
                self._route(self._command(["reject_deal", player, "disconnected"]))
                return
            self._tell(player, offer)

    def _deal_may_be_asked(self) -> bool:
        director = self.director
        return (self.definition.deals and director.status is Status.RUNNING and len(director.tables) == 1
                and director.players_left <= len(director.prizes) and director.proposal is None)

    def _offer_deal_button(self) -> None:
        """Once per field size at the final table in the money, tell the players a deal may be asked for."""
        if self._deal_offered_at == self.director.players_left or not self._deal_may_be_asked():
            return
        self._deal_offered_at = self.director.players_left
        for player in self.director.stacks:
            self._tell(player, Offer("press_deal", None))

    def _open_offers(self, player: str) -> list[Offer]:
        """The decisions waiting for ``player``, repeated to a (re)connecting client."""
        director = self.director
        offers = []
        if player in director.rebuy_offers and director.definition.rebuys is not None:
            rebuys = director.definition.rebuys
            offers.append(Offer("rebuy", director.rebuy_offers[player] - self.now(),
                                rebuys.price_cents + rebuys.fee_cents, rebuys.chips))
        add_on = director.definition.add_on
        if director.add_on_until is not None and add_on is not None and player not in director.add_ons:
            offers.append(Offer("add_on", director.add_on_until - self.now(), add_on.price_cents + add_on.fee_cents,
                                add_on.chips))
        proposal = director.proposal
        if proposal is not None and player in proposal.amounts and player not in proposal.accepted:
            offers.append(Offer("deal", proposal.until - self.now(), amounts=proposal.amounts,
                                stacks={p: director.stacks[p] for p in proposal.amounts}))
        elif player in director.stacks and player not in director.deal_pressed and self._deal_may_be_asked():
            offers.append(Offer("press_deal", None))
        return offers

    def _route_hand(self, table: int, events: list[Event]) -> None:
        self._record(events)
        for event in events:
            if isinstance(event, HoleDealt):
                self._tell(event.player, event)  # hole cards go to their owner only
            else:
                self._publish(table, event)

    def _publish(self, table: int, event: Any) -> None:
        """Number, encode once, and queue to everyone watching ``table``: at once to the player it
        concerns, with the next broadcast tick to the others (server/hub.py).
        """
        seq = self._seq.get(table, 0) + 1
        self._seq[table] = seq
        watchers = self._watchers.get(table)
        if not watchers:
            return
        message = encoder.encode(Envelope(seq, table, event, time.time()))
        concerned = getattr(event, "player", None)  # who acted, whose turn: they hear of it at once
        for connection in list(watchers):
            connection.send(message, urgent=concerned is not None and connection.player == concerned)

    def _publish_everywhere(self, event: Any) -> None:
        """To every table stream, including one whose table the same command has just closed."""
        for table in sorted(set(self.director.tables) | set(self._watchers)):
            self._publish(table, event)

    def _tell(self, player: str, event: Any) -> None:
        connections = self._players.get(player)
        if connections:
            message = encoder.encode(Private(event, time.time()))
            for connection in list(connections):
                connection.send(message)

    def _follow(self, move: PlayerMoved) -> None:
        """A moved player's connections follow them to the new table, with the reason and a snapshot."""
        for connection in list(self._players.get(move.player, ())):
            self._watch(connection, move.to_table)
            connection.send(encoder.encode(Private(
                Moved(move.from_table, move.to_table, move.seat, move.reason), time.time())))
            connection.send(self.snapshot_message(connection))

    def _close_table(self, table: int) -> None:
        """Observers of a closed table move to the lowest open table; its task is woken to end."""
        if table in self._wakers:
            self._wakers[table].set()
        for connection in list(self._watchers.pop(table, ())):
            if connection.player is None:
                self._watch(connection, min(self.director.tables, default=None))
                connection.send(self.snapshot_message(connection))

    # ---------------------------------------------------------- connections

    def connect(self, connection: Connection, table: int | None) -> None:
        """A client joins: a player watches their own table, an observer the one asked for (or the first)."""
        if connection.player is not None:
            connections = self._players.setdefault(connection.player, set())
            connections.add(connection)
            where = self.director.where.get(connection.player)
            if len(connections) == 1 and where is not None:
                self._publish(where[0], Presence(connection.player, True))
            table = where[0] if where else None
        elif table is None or table not in self.director.tables:
            table = min(self.director.tables, default=None)
        self._watch(connection, table)
        connection.send(self.snapshot_message(connection))
        if connection.player is not None:
            for offer in self._open_offers(connection.player):
                connection.send(encoder.encode(Private(offer, time.time())))

    def disconnect(self, connection: Connection) -> None:
        if connection.player is not None:
            connections = self._players.get(connection.player, set())
            connections.discard(connection)
            where = self.director.where.get(connection.player)
            if not connections and where is not None:
                self._publish(where[0], Presence(connection.player, False))
            proposal = self.director.proposal
            if not connections and proposal is not None and connection.player in proposal.amounts:
                self._route(self._command(["reject_deal", connection.player, "disconnected"]))
                self._wake_all()
        if connection.table is not None:
            self._watchers.get(connection.table, set()).discard(connection)

    def watch(self, connection: Connection, table: int) -> None:
        if connection.player is not None:
            raise Refused(409, "player_cannot_watch", "players watch their own table")
        if table not in self.director.tables:
            raise Refused(404, "no_table", f"table {table} is not open")
        self._watch(connection, table)
        connection.send(self.snapshot_message(connection))

    def _watch(self, connection: Connection, table: int | None) -> None:
        if connection.table is not None:
            self._watchers.get(connection.table, set()).discard(connection)
        connection.table = table
        if table is not None:
            self._watchers.setdefault(table, set()).add(connection)

    # ------------------------------------------------------------ snapshots

    def snapshot_message(self, connection: Connection) -> bytes:
        table = connection.table
        return encoder.encode(Snapshot(
            self._seq.get(table, 0) if table is not None else 0,
            self.summary(),
            self.table_view(table) if table is not None and table in self.director.tables else None,
            self.you(connection.player) if connection.player is not None else None,
        ))

    def summary(self) -> dict[str, Any]:
        director = self.director
        level = self.definition.levels[director.level]
        ends_at = director.level_ends_at()
        average_stack, largest_stack = self._stack_figures_now()
        return {
            "id": self.id, "name": self.definition.name, "status": director.status.value, "paused": self.paused,
            "starting_stack": self.definition.starting_stack,
            "entries": len(director.entries), "players_left": director.players_left,
            "buy_in_cents": self.definition.buy_in_cents, "fee_cents": self.definition.fee_cents,
            "level": director.level + 1, "small_blind": level.small_blind, "big_blind": level.big_blind,
            "ante": level.ante, "bb_ante": level.bb_ante, "hand_for_hand": director.hand_for_hand,
            "level_ends_in": max(0.0, ends_at - self.now()) if ends_at is not None else None,
            "on_break_for": max(0.0, director.break_until - self.now()) if director.break_until else None,
            "average_stack": average_stack, "largest_stack": largest_stack, "tables": len(director.tables),
            "started_at": self.started_wall,
            "prize_pool_cents": director.prize_pool_cents or self.definition.buy_in_cents * len(director.entries),
            "add_on_open_for": max(0.0, director.add_on_until - self.now()) if director.add_on_until else None,
            "rebuy_period": not director.rebuy_period_over,
            "deals": self.definition.deals, "deal": self._deal_view(),
            "bounty": msgspec.to_builtins(self.definition.bounty),
            "flight": msgspec.to_builtins(self.definition.flight), "final": msgspec.to_builtins(self.definition.final),
            "entries_per_person": self.definition.entries_per_person,
            "restored_at": self.restored_at, "voided_hands": self.voided,
        }

    def _stack_figures_now(self) -> tuple[int | None, int | None]:
        """The average and largest stacks, over every player: computed once per journal record, since the draw
        sends a snapshot to each of thousands of players after one command.
        """
        position, average, largest = self._stack_figures
        if position != self._position:
            director = self.director
            stacks = list(director.stacks.values()) if director.status is Status.RUNNING else []
            average, largest = (sum(stacks) // len(stacks), max(stacks)) if stacks else (None, None)
            self._stack_figures = (self._position, average, largest)
        return average, largest

    def _deal_view(self) -> dict[str, Any] | None:
        proposal = self.director.proposal
        if proposal is None:
            return {"pressed": sorted(self.director.deal_pressed)} if self.director.deal_pressed else None
        return {"amounts": proposal.amounts, "accepted": sorted(proposal.accepted),
                "seconds": max(0.0, proposal.until - self.now())}

    def table_view(self, table: int) -> dict[str, Any]:
        """What anyone at or watching the table may see: no hole cards unless shown."""
        director = self.director
        state = director.tables[table]
        hand = state.hand
        in_hand = {p: i for i, p in enumerate(hand.players)} if hand else {}
        shown = {e.player: e.cards for e in hand.events if isinstance(e, Shown)} if hand else {}
        seats = []
        for seat, player in enumerate(state.table.seats):
            if player is None:
                continue
            i = in_hand.get(player)
            seats.append({
                "seat": seat, "player": player, "name": self.names.get(player, player),
                "stack": hand.stacks[i] if i is not None and hand else director.stacks.get(player, 0),
                "bet": hand.bets[i] if i is not None and hand else 0,
                "in_hand": i is not None, "folded": bool(hand.folded[i]) if i is not None and hand else False,
                "shown": list(shown.get(player, ())), "sitting_out": player in self.sitting_out,
                "bounty_cents": director.bounties.get(player),
                "connected": bool(self._players.get(player)),
            })
        actor = hand.players[hand.actor] if hand and hand.actor is not None else None
        clock = self._clocks.get(table)
        countdown = None
        if actor is not None and clock is not None and clock.turn_started:
            elapsed = asyncio.get_running_loop().time() - clock.turn_started
            countdown = {"player": actor, "seconds": max(0.0, clock.seconds - elapsed), "time_bank": clock.time_bank}
        return {
            "clock": countdown,
            "id": table, "seats": seats, "size": state.table.size,
            "button": self._clocks.get(table, _TableClock()).button,
            "hand": state.number if hand else None, "board": list(hand.board) if hand else [],
            "pot": (sum(hand.committed) + sum(hand.bets) + hand.dead) if hand else 0, "actor": actor,
        }

    def you(self, player: str) -> dict[str, Any]:
        director = self.director
        where = director.where.get(player)
        mine: dict[str, Any] = {
            "player": player, "name": self.names.get(player, player), "table": where[0] if where else None,
            "seat": where[1] if where else None, "stack": director.stacks.get(player),
            "sitting_out": player in self.sitting_out, "time_bank": self.time_bank.get(player, 0.0),
            "result": msgspec.to_builtins(director.results[player]) if player in director.results else None,
            "hole": None, "legal": None,
            "rebuy_offer": max(0.0, director.rebuy_offers[player] - self.now()) if player in director.rebuy_offers
            else None,
            "rebuys": director.rebuys_taken.get(player, 0), "add_on_taken": player in director.add_ons,
            "deal_pressed": player in director.deal_pressed,
        }
        hand = director.hand(where[0]) if where else None
        if hand is not None and player in hand.players:
            i = hand.players.index(player)
            mine["hole"] = list(hand.hole[i])
            if not hand.finished and hand.actor == i:
                legal = hand.legal_actions()
                mine["legal"] = {"can_fold": legal.can_fold, "can_check": legal.can_check, "call": legal.call,
                                 "min_raise_to": legal.min_raise_to, "max_raise_to": legal.max_raise_to}
        return mine

    def details(self) -> dict[str, Any]:
        """``GET /api/tournaments/{id}``: the summary, the payouts and every table's seats."""
        director = self.director
        return {
            **self.summary(),
            "payouts_cents": list(director.prizes),
            "rebuys": msgspec.to_builtins(self.definition.rebuys),
            "add_on": msgspec.to_builtins(self.definition.add_on),
            "refund_policy": msgspec.to_builtins(self.definition.refund_policy),
            "refunds": [self._refund_row(refund) for refund in director.refunds],
            "satellite": msgspec.to_builtins(self.definition.satellite), "tickets": self.tickets,
            "chips_in_play": director.chips_in_play(), "chips_issued": director.chips_issued,
            "ledger": director.ledger.summary(),
            "results": [msgspec.to_builtins(r) for r in director.standings()],
            "table_list": [self.table_view(t) for t in sorted(director.tables)],
        }
