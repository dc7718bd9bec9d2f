"""One tournament in real time: the coordinator of its records, journal, tables, streams and views.

Every change to a tournament is a record (server/tournament/records.py),
applied to the director and journaled with its events before any is routed
(server/tournament/recorder.py), so nothing is broadcast that a restart would
not replay. The director's commands (from the wire, the clocks, the server's
own bots, a satellite or flight sending players on, a restore) come to
``submit``, which records them, routes their events to the table streams and
wakes the tables they concern; a hand's deal and decisions are recorded by the
table that plays the hand, which routes them to its own stream. The one-way
path: wire -> record -> director -> events -> journal -> streams -> wire
(docs/architecture.md).

The director's RNG is seeded (the seed is stored with the tournament), so a
replay gives the same cards. A restored tournament voids the hands the crash
interrupted (start-of-hand stacks stand), and its clock resumes where it
stood: the time the server was down does not count.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import time
from collections.abc import Callable, Iterable

import msgspec

from engine.cards import KeyedDecks, shuffled_deck
from engine.director import Status, Tournament
from engine.events import (
    DealProposed, EntriesMerged, Event, HandStarted, Refunded, Seated, StatusChanged, TableBroken, TableOpened,
)
from engine.hand import Hand
from engine.history import to_phh
from engine.refunds import RefundPolicy
from engine.structure import Definition
from engine.wire import (
    Act, Details, MoneyMessage, RefundRow, Snapshot, Summary, Ticket, TournamentState, VoidedHand, encoder,
)
from server.tournament import feeds, hosted, schedule, timeline, views
from server.tournament import records as r
from server.tournament.chaining import another_flight, entry_price, send_on
from server.tournament.clock import Clock, LoopClock, TournamentClock
from server.tournament.entries import Entries, token_key
from server.tournament.names import normalized
from server.errors import Refused, refusals
from server.tournament.hosted import HostedBots
from server.hub import Connection
from server.storage import MemoryStorage, Storage, Stored
from server.tournament.persistence import Journal
from server.tournament.plan import Plan
from server.tournament.recorder import Recorder
from server.tournament.streams import Streams
from server.tournament.tables import Placement, HerePlacement, Tables
from server.tournament.timeline import TimelineBuilder

LARGE_DETAILS = 500  # entries from which a tournament's details are held for a while (``details_json``)
DETAILS_HELD_SECONDS = 1.0
logger = logging.getLogger("mttsim.server")


class TournamentRuntime:
    """A tournament served live: registration over REST, then tables played over websockets."""

    def __init__(self, tournament_id: str, definition: Definition, *, hand_pause: float = 2.0,
                 storage: Storage | None = None, seed: int | None = None, secret: bytes | None = None,
                 placement: Placement | None = None, clock: Clock | None = None) -> None:
        """``seed`` drives the director's draws; ``secret`` keys the decks (engine.cards.keyed_deck). Without a
        secret the decks come from the seeded RNG, as before decks were keyed: a script's, or an old journal's.
        ``placement``: where the tables are played (server/tournament/tables.py), here unless told. ``clock``: the
        time the decisions and the tournament clock run on, the event loop's unless told (a test's own).
        """
        self.id = tournament_id
        self.definition = definition
        self.seed = secrets.randbits(63) if seed is None else seed  # fits an SQLite INTEGER
        self.storage: Storage = storage or MemoryStorage()
        self.entries = Entries(definition.starting_bank_seconds)
        decks = KeyedDecks(secret) if secret else shuffled_deck
        self.session = r.Session(Tournament(definition, random.Random(self.seed), deal=decks), self.entries)
        if definition.registration_opens_at is None:  # else announced: Waiting until it opens
            self.session.director.open_registration()
        self.journal = Journal(tournament_id, self.storage)
        time_source = clock or LoopClock()
        self.clock = TournamentClock(time_source)
        self.recorder = Recorder(self.session, self.journal, self.now)
        placement = placement or HerePlacement()
        self.streams = Streams(self.session, self.now, self.snapshot_message, placement.writers)
        self.tables = Tables(self.session, self.streams, self.recorder, self.submit, time_source, self.now,
                             hand_pause, self._hand_ended, placement)
        self.registry: dict[str, TournamentRuntime] = {}  # the server's tournaments: a satellite's target is one
        self.board = feeds.board(self)  # its page's live feed
        self.entry_into: str | None = None  # where a cancelled satellite's refunds bought entries
        self.voided: list[VoidedHand] = []  # hands a restore called off
        self.restored_at: float | None = None
        self.crashed = False
        # The plan of the field that started (server/tournament/plan.py), made by the ``planner`` the server gives.
        self.plan: Plan | None = None
        self.planner: Callable[[TournamentRuntime], None] | None = None
        self._task: asyncio.Task[None] | None = None
        self._schedule: asyncio.Task[None] | None = None  # an announced tournament's opening and start
        self.bots = HostedBots(tournament_id)  # this tournament's own bots, awaited on shutdown
        self.bots.out = lambda player: hosted.reenter_if_it_will(self, player)
        self._stack_figures: views.Cache[tuple[int | None, int | None]] = views.Cache()
        self._details: views.Cache[bytes] = views.Cache()
        self._details_held: tuple[object, float] | None = None  # a large tournament's details' version, since when

    @property
    def director(self) -> Tournament:
        return self.session.director

    @property
    def tickets(self) -> list[Ticket]:
        """The players this tournament sent on (a satellite's seats, a flight's survivors)."""
        return self.entries.tickets

    @property
    def timeline(self) -> TimelineBuilder:
        return self.recorder.timeline

    @property
    def log(self) -> Iterable[tuple[float, object]]:
        """The latest events (``Streams.log``); the whole audit trail is the journal's."""
        return self.streams.log

    @classmethod
    def create(cls, tournament_id: str, definition: Definition, storage: Storage, *, hand_pause: float = 2.0,
               seed: int | None = None, placement: Placement | None = None,
               clock: Clock | None = None) -> TournamentRuntime:
        """A new tournament, stored with its definition and seed before anyone can register."""
        secret = secrets.token_bytes(32)
        runtime = cls(tournament_id, definition, hand_pause=hand_pause, storage=storage, seed=seed, secret=secret,
                      placement=placement, clock=clock)
        storage.create(tournament_id, msgspec.json.encode(definition), runtime.seed, secret)
        return runtime

    @classmethod
    def restore(cls, stored: Stored, storage: Storage, *, hand_pause: float = 2.0,
                placement: Placement | None = None, clock: Clock | None = None) -> TournamentRuntime:
        """The tournament as its journal leaves it: the newest snapshot, then every record after it."""
        definition = msgspec.json.decode(stored.definition, type=Definition)
        runtime = cls(stored.id, definition, hand_pause=hand_pause, storage=storage, seed=stored.seed,
                      secret=stored.secret, placement=placement, clock=clock)
        runtime.journal.replay(stored, runtime.session)
        runtime.recorder.timeline = timeline.rebuilt(storage.records(stored.id))
        return runtime

    def keep_time(self) -> None:
        """Open registration and start at the definition's times, when it gives them (server/tournament/schedule.py)."""
        self._schedule = schedule.keep_time(self)

    def open_registration(self) -> None:
        with refusals():
            self.submit(r.OpenRegistration())

    def resume_after_restore(self) -> None:
        """Void the hands the crash interrupted, restart the clock and the tables, and bring back the bots."""
        director = self.director
        self.restored_at = time.time()
        self.keep_time()
        if director.status is Status.RUNNING:
            self.clock.start(self.session.last_now)
            if self.session.paused:
                self.clock.pause()
            for table in sorted(director.tables):
                if director.hand(table) is not None:
                    self.voided.append(VoidedHand(table, director.hand_number(table)))
                    self.submit(r.VoidHand(table))
            self._task = asyncio.get_running_loop().create_task(self.run(), name=f"tournament:{self.id}")
        if director.status not in (Status.REGISTER, Status.RUNNING):
            return
        for player, (tag, token, think_min, think_max) in self.entries.bots.items():
            if player in director.stacks:
                self.bots.play(player, token, tag, random.Random(), (think_min, think_max))

    # ---------------------------------------------------------- the one way in

    def submit(self, record: r.AnyRecord) -> list[Event]:
        """Record ``record`` (applied, journaled with its events), route its events, and wake the tables they
        concern. A hand's deal and decisions are recorded by whoever plays the hand, which routes them to its
        table (server/tournament/recorder.py): they never come here.

        A refused record (TournamentError, IllegalAction) changes nothing and is not journaled.
        """
        if isinstance(record, r.HAND_RECORDS):
            raise TypeError(f"a {type(record).__name__} is recorded by the table that plays the hand")
        was_closed = self.director.status in (Status.FINISHED, Status.CANCELLED)
        events = self.recorder.record(record)
        director = self.director
        closed = director.status in (Status.FINISHED, Status.CANCELLED)
        if closed:
            if self.session.finished_wall is None:
                self.session.finished_wall = time.time()
            self.journal.close(self.session)  # its final state
        if isinstance(record, r.Start):
            self._begin(events)
        elif events:
            self.streams.route(events)
        if closed:
            if self._task is not None:  # the tables stop; hands a satellite's end or a cancellation voided included
                self._task.cancel()
        for event in events:
            if isinstance(event, Seated) and director.status is Status.RUNNING and not self.streams.ever(event.player):
                # Seated before their first connection (the draw, or a late entry on its way to the table): dealt
                # in and sat out, as rooms do, so that no clock nor time bank runs for nobody. The
                # draw's snapshots show it; a late seat's table hears it.
                self.tables.sit_out_absent(event.player, tell=not isinstance(record, r.Start))
            elif isinstance(event, TableBroken):
                self.tables.wake([event.table])  # its task ends
            elif isinstance(event, TableOpened):
                self.tables.open(event.table)
            elif isinstance(event, DealProposed):
                self._absent_say_no()
        if (isinstance(record, r.WAKING) or (isinstance(record, r.Advance) and events)
                or any(isinstance(event, (StatusChanged, EntriesMerged)) for event in events)):
            self.tables.wake_all()
        if closed and not was_closed:  # once, by the record that closed it (a correction afterwards sends nobody
            send_on(self)  # on), after its own events went out: what the target did not take is settled after them
            self.journal.close(self.session)  # its final state again, with whom it sent on
        return events

    def _begin(self, draw: list[Event]) -> None:
        """After the start: the tables' task, which routes the draw over many loop turns first.

        Cancelled below the minimum, or driven by hand outside an event loop
        (a script, a test), the events are routed at once and no table plays.
        """
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is None or self.director.status is not Status.RUNNING:
            self.streams.route(draw)
        else:
            self._task = loop.create_task(self.run(draw), name=f"tournament:{self.id}")
            if self.planner is not None:
                self.planner(self)

    def _absent_say_no(self) -> None:
        """A player with no connection cannot accept a deal: the proposal fails (H.36)."""
        proposal = self.director.proposal
        absent = next((p for p in proposal.amounts if not self.streams.connected(p)), None) if proposal else None
        if absent is not None:
            self.submit(r.RejectDeal(absent, "disconnected"))

    def _hand_ended(self, started: HandStarted, hand: Hand) -> None:
        self.storage.add_hand(self.id, started.hand, started.table, list(hand.players), to_phh(
            hand, table=started.table, hand_number=started.hand, seats=[entry.seat + 1 for entry in started.players],
            level=started.level))
        self.journal.maybe_snapshot(self.session)

    # ------------------------------------------------------- the clock

    def now(self) -> float:
        """Tournament seconds: the wall clock since the start, minus pauses."""
        return self.clock.now()

    # ------------------------------------------------------- REST commands

    def register(self, name: str, *, another_of: str | None = None) -> tuple[str, str]:
        """A new entry; returns ``(player_id, token)``. The token is the player's key to their seat.

        ``another_of`` is the token of the person's first entry: multi-entry
        (M.50), where the tournament allows it, or another flight of the
        same final (L.48), under the same token.

        A name is printable text, as a chat line is made to be: a control
        character or a direction override (U+202E turns "gpj.exe" into
        "exe.jpg" on every screen that shows the name) is refused, not
        dropped, so that the player sees the name the others will see. It is
        kept in NFC, and no two persons hold names that look the same
        (server/tournament/names.py).
        """
        name = normalized(name)
        if not name.isprintable() or not name.strip():
            raise Refused("bad_request", "name: printable text only (no control characters or direction "
                                         "overrides, not only spaces)")
        if another_of is not None and self.player_for(another_of) is None and another_flight(self, another_of):
            token, person = another_of, None
        else:
            person = None
            if another_of is not None:
                first = self.player_of(another_of)
                if not (self.definition.entries_per_person or 1) > 1:
                    raise Refused("refused", "this tournament allows one entry per person (entries_per_person)")
                person = self.director.person(first)
            token = secrets.token_urlsafe(18)
        holder = self.entries.looking_like(name)
        if holder is not None and (person is None or self.director.person(holder) != person):
            raise Refused("name_taken", f"name: {name!r} is another player's, or looks the same as "
                                        f"{self.entries.name(holder)!r}: choose another")
        player = self.entries.mint()
        with refusals():
            self.submit(r.Register(player, name, token_key(token), person))
        return player, token

    def reenter(self, token: str) -> str:
        """The person holding ``token``, whose entry is out, buys a new one (F.27); returns its id. The token now
        leads to the new entry, so the player's page follows it."""
        previous = self.player_of(token)
        player = self.entries.mint()
        with refusals():
            self.submit(r.Reenter(previous, player, self.entries.name(previous), token_key(token)))
        return player

    def unregister(self, token: str) -> int:
        """Leave during Register; returns the refund in cents (buy-in and fee)."""
        player = self.player_of(token)
        with refusals():
            events = self.submit(r.Unregister(player))
        return sum(e.refund_cents for e in events if isinstance(e, Refunded))

    def start(self) -> None:
        """Draw the seats now; what the draw tells the players and the first deals follow over many loop turns.

        The draw is one record, journaled at once. A snapshot to every
        connected player and a first hand at every table would take the event
        loop for a third of a second at 10,000 players, so ``run`` sends them
        ``DRAW_SNAPSHOTS_PER_TURN`` at a time and the tables start a few at a time.
        """
        with refusals():
            self.director.verify_start()
        self.clock.start()
        self.submit(r.Start(self.now(), time.time()))

    def cancel(self, policy: RefundPolicy | None = None, entry_into: str | None = None) -> None:
        """Cancel with the tournament's refund policy (or ``policy``): hands in progress are void, refunds paid.

        ``entry_into`` (a satellite): refunds that cover that tournament's buy-in and fee become entries there.
        """
        entry_cents = entry_price(self, entry_into)
        with refusals():
            self.director.verify_cancel(policy, entry_cents)
            self.entry_into = entry_into
            self.submit(r.Cancel(policy, entry_cents))

    def compensate(self, player: str, cents: int, reason: str, incident: int | None = None) -> None:
        """The director's compensation to a player, from the house (seed 004), for an incident on the record if
        it names one."""
        with refusals():
            self.submit(r.Compensate(player, cents, reason, time.time(), incident))

    def declare_failure(self, what: str, due_hours: float = 48.0, policy: RefundPolicy | None = None) -> None:
        """The tournament failed and cannot resume: cancelled by its policy, with the failure on the record."""
        with refusals():  # the director checks it before anything changes; a refused record is not journaled
            self.submit(r.DeclareFailure(what, time.time(), due_hours, policy))

    def record_incident(self, player: str, what: str, decision: str) -> None:
        with refusals():
            self.submit(r.RecordIncident(player, what, decision, time.time()))

    def cancellation_preview(self, policy: RefundPolicy | None = None,
                             entry_into: str | None = None) -> list[RefundRow]:
        entry_cents = entry_price(self, entry_into)
        with refusals():
            refunds = self.director.cancellation_preview(policy, entry_cents)
        return [views.refund_row(refund, self.entries) for refund in refunds]

    def player_money(self, player: str, message: MoneyMessage) -> None:
        """A re-buy, an add-on or a deal answer from the wire; the director names the rule when it refuses."""
        with refusals():
            self.submit(r.from_wire(player, message))

    def pause(self) -> None:
        if self.director.status is not Status.RUNNING or self.session.paused:
            raise Refused("not_running", "only a running, unpaused tournament can be paused")
        self.submit(r.Pause(self.now(), time.time()))
        self.clock.pause()
        self.streams.publish_everywhere(TournamentState(True))

    def resume(self) -> None:
        if self.director.status is not Status.RUNNING:
            raise Refused("not_running", f"only a running tournament resumes; it is {self.director.status}")
        if not self.session.paused:
            raise Refused("not_paused", "the tournament is not paused")
        self.clock.resume()
        self.submit(r.Resume(self.now(), time.time()))
        self.streams.publish_everywhere(TournamentState(False))

    async def shutdown(self) -> None:
        """Stop the tournament's tables and its bots and wait for them, and for a snapshot being written."""
        await self.journal.settle()
        running = [task for task in (self._schedule, self._task) if task is not None]
        for task in running:
            task.cancel()
        await asyncio.gather(*running, return_exceptions=True)  # each ends before the tournament is said stopped
        await self.bots.stop()

    def player_for(self, token: str) -> str | None:
        return self.entries.player_for(token)

    def player_of(self, token: str) -> str:
        player = self.player_for(token)
        if player is None:
            raise Refused("bad_token", "unknown player token")
        return player

    # -------------------------------------------------------------- running

    async def run(self, draw: list[Event] | None = None) -> None:
        """The tournament's tables and level clock, until a winner is left.

        ``draw`` is the start's events, routed first. A failure inside one
        tournament stops that tournament (its tables are cancelled and the
        error is logged), never the server or the others.
        """
        try:
            if draw is not None:
                await self.streams.route_draw(draw)
            await self.tables.run()
        except Exception:
            self.crashed = True
            logger.exception("tournament %s stopped by an error", self.id)

    def player_act(self, player: str, message: Act, connection: Connection | None = None) -> None:
        """A decision from the wire: only the player to act, at their own table, by the betting rules."""
        self.tables.player_act(player, message, connection)

    def player_back(self, player: str) -> None:
        self.tables.sit_out_asked.pop(player, None)  # "I'm back" also takes back a sit-out asked for
        self.tables.set_sitting_out(player, False)

    # ---------------------------------------------------------- connections

    def connect(self, connection: Connection, table: int | None) -> None:
        self.streams.connect(connection, table)
        if connection.player is not None and connection.player in self.tables.absent:  # here at last: back
            self.tables.absent.discard(connection.player)
            self.tables.set_sitting_out(connection.player, False)

    def disconnect(self, connection: Connection) -> None:
        self.streams.disconnect(connection)
        proposal = self.director.proposal
        player = connection.player
        if player is not None and proposal is not None and player in proposal.amounts \
                and not self.streams.connected(player):
            self.submit(r.RejectDeal(player, "disconnected"))

    def watch(self, connection: Connection, table: int) -> None:
        if connection.player is not None:
            raise Refused("player_cannot_watch", "players watch their own table")
        if table not in self.director.tables:
            raise Refused("no_table", f"table {table} is not open")
        self.streams.watch(connection, table)

    # ---------------------------------------------------------------- views

    def facts(self) -> views.Facts:
        # Once per record: the draw sends thousands of snapshots after one.
        figures = self._stack_figures.get(self.journal.position, 0, lambda: views.stack_figures(self.director))
        return views.Facts(
            self.id, now=self.now(), paused=self.session.paused, started_wall=self.session.started_wall,
            finished_wall=self.session.finished_wall,
            restored_at=self.restored_at, voided=self.voided, entries=self.entries,
            sitting_out=self.tables.sitting_out, connected=self.streams.connected, countdown=self.tables.countdown,
            button=self.tables.button, stack_figures=figures)

    def snapshot_message(self, connection: Connection) -> bytes:
        table, player, director, facts = connection.table, connection.player, self.director, self.facts()
        return encoder.encode(Snapshot(
            self.streams.writers.seq(table) if table is not None else 0,
            views.summary(director, facts),
            views.table_view(director, table, facts) if table is not None and table in director.tables else None,
            views.you(director, player, facts) if player is not None else None,
        ))

    def summary(self) -> Summary:
        return views.summary(self.director, self.facts())

    def details(self, page: int = 0) -> Details:
        return views.details(self.director, self.facts(), self.tickets, page, self.timeline.timeline())

    def details_json(self, page: int = 0) -> bytes:
        """The details as JSON, built once per journal record, page and second (the clocks in it run), and
        served to every reader from the same bytes. A large tournament writes a record at each decision, and a
        page of it takes milliseconds to build: its details are held for ``DETAILS_HELD_SECONDS`` whatever
        happens meanwhile, so that its readers cannot starve its play, or another tournament's on the same
        loop (32 readers of a 3,000-player tournament made a small one's actions ten times slower)."""
        now = time.monotonic()
        held = self._details_held
        if held is not None and len(self.director.entries) >= LARGE_DETAILS and now - held[1] < DETAILS_HELD_SECONDS:
            version = held[0]
        else:
            version = (self.journal.position, int(now))
            if held is None or held[0] != version:
                self._details_held = (version, now)
        return self._details.get(version, page, lambda: msgspec.json.encode(self.details(page)))
