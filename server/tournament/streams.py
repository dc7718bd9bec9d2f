"""Table streams and routing: who hears of each event, numbered per table, and where connections watch.

Each public event is encoded once per table, numbered with that table's
sequence number, and queued to every client watching the table: at once to
the player it concerns, with the next broadcast tick to the others
(server/hub.py). Private messages (hole cards, offers, moves) go to one
player's connections. Routing only sends: a command that an event calls for
(a disconnected player's deal answer) is submitted by the runtime.
"""

from __future__ import annotations

import asyncio
import gc
import time
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from engine.director import Status
from engine.events import (
    HAND_EVENTS, AddOnOffered, AddOnTaken, BalanceQueued, BountyWon, DealProposed, Event, HandFinished, HandStarted,
    HandVoided, MoveQueued, MysteryBountyDrawn, PlayerEliminated, PlayerMoved, PlayerRemoved, QueuedMoveDropped,
    RebuyDeclined, RebuyOffered, RebuyTaken, Refunded, Registered, Reentered, Seated, TableBroken, TableClosing,
    TableKept, TableOpened,
)
from engine.wire import (
    Announcement, Chat, ChatHistory, Moved, Offer, Presence, Private, PrivateMessage, TableMessage, encoder,
)
from server.errors import Refused
from server.hub import Connection, RateLimit, Relay, RelayedConnection
from server.tournament.records import Session
from server.tournament.table_stream import Clock, TableStream, by_gateway, private_line

DRAW_SNAPSHOTS_PER_TURN = 100  # the start's snapshots to connected players, per turn of the event loop
PRESENCE_TICK = 0.05  # seconds a player's connections may change before their table hears, once
CHAT_RATE, CHAT_BURST = 0.5, 3  # lines of chat a player may send a second on average, and in a burst
ANNOUNCEMENTS_KEPT = 10  # the director's latest announcements, shown to a page that opens later
CHAT_KEPT = 30  # a table's latest chat lines, sent with a snapshot to a page that (re)connects or arrives
EVENTS_KEPT = 100_000  # the latest events in memory (``Streams.log``): about 16 MB


class Writers(Protocol):
    """Who writes the tables' streams (a ``Placement``'s, server/tournament/tables.py): this process
    (``HereWriters``), or in a cluster the workers holding the tables (server/cluster/service.py's
    ``ClusterPlacement``), to which what the director says to a table goes, with the table's clients and their
    snapshots, which a worker completes with the hand it plays."""

    def publish(self, table: int, message: TableMessage, clock: Clock | None = None) -> None:
        """``message`` on ``table``'s stream; a director event with the tournament ``clock`` then."""

    def watch(self, table: int, connection: Connection, watching: bool) -> None:
        """``connection`` watches ``table`` now, or no longer."""

    def snapshot(self, table: int, connection: Connection, snapshot: bytes) -> None: ...

    def forget(self, connection: Connection) -> None:
        """The connection is gone."""

    def seq(self, table: int) -> int:
        """The last number of ``table``'s stream, as known here, for a snapshot."""


class HereSink:
    """The ``Sink`` of a table's stream in this process: the connections watching the table.

    A cluster gateway's clients get a line through their gateway, once for
    all of them there: sent once a client, the copies were most of what the
    director wrote to the bus (docs/performance.md).
    """

    __slots__ = ("streams", "table")

    def __init__(self, streams: Streams, table: int) -> None:
        self.streams = streams
        self.table = table

    def listening(self) -> bool:
        return bool(self.streams.watchers.get(self.table))

    def fan_out(self, line: bytes, concerned: str) -> None:
        relayed: list[tuple[Relay, int, str]] = []
        for connection in list(self.streams.watchers.get(self.table, ())):
            if isinstance(connection, RelayedConnection):
                relayed.append((connection.relay, connection.number, connection.player or ""))
            else:
                connection.send(line, urgent=bool(concerned) and connection.player == concerned)
        if relayed:
            for relay, (now, later) in by_gateway(relayed, concerned).items():
                relay.broadcast(line, now, later)

    def tell(self, player: str, line: bytes) -> None:
        self.streams.send_to(player, line)


class HereWriters:
    """This process writes every table's stream (one ``mttsim serve``)."""

    def __init__(self, streams: Streams) -> None:
        self.streams = streams
        self.tables: dict[int, TableStream] = {}

    def stream(self, table: int) -> TableStream:
        stream = self.tables.get(table)
        if stream is None:
            stream = self.tables[table] = TableStream(table, HereSink(self.streams, table))
        return stream

    def publish(self, table: int, message: TableMessage, clock: Clock | None = None) -> None:
        self.stream(table).publish(message, clock)

    def watch(self, table: int, connection: Connection, watching: bool) -> None:
        pass  # the sink reads the watchers as it sends

    def snapshot(self, table: int, connection: Connection, snapshot: bytes) -> None:
        connection.send(snapshot)

    def forget(self, connection: Connection) -> None:
        pass

    def seq(self, table: int) -> int:
        stream = self.tables.get(table)
        return stream.seq if stream is not None else 0


class Streams:
    """The table streams of one tournament and the connections on them."""

    def __init__(self, session: Session, now: Callable[[], float], snapshot: Callable[[Connection], bytes],
                 writers: Callable[[Streams], Writers]) -> None:
        self.session = session
        self.now = now
        self.snapshot = snapshot  # a connection's snapshot, as the runtime makes it
        # The latest director and hand events, in order, for tests and a debugger. The audit trail is the
        # journal's (``GET /api/tournaments/{id}/events`` reads it): kept whole here, a 250,000-entry field's
        # events took about 4 GB.
        self.log: deque[tuple[float, Any]] = deque(maxlen=EVENTS_KEPT)
        self.watchers: dict[int, set[Connection]] = {}
        self.players: dict[str, set[Connection]] = {}
        self.lobby: set[Connection] = set()  # observers who came before there was a table to watch
        self._presence_told: dict[str, bool] = {}  # what each player's table last heard of their connection
        self._presence_due: set[str] = set()
        self._deal_offered_at = 0  # the field size the last 'press_deal' offer went out for
        self.announcements: list[Announcement] = []
        self.chat_kept: dict[int, deque[Chat]] = {}  # table -> its latest lines
        self._chat_rates: dict[str, RateLimit] = {}
        self.writers = writers(self)

    def connected(self, player: str) -> bool:
        return bool(self.players.get(player))

    def ever(self, player: str) -> bool:
        """Whether ``player`` has had a connection to this tournament (since this process started)."""
        return player in self.players

    def record(self, events: list[Event]) -> None:
        stamp = time.time()
        self.log.extend((stamp, event) for event in events)

    # ------------------------------------------------------------- sending

    def publish(self, table: int, event: TableMessage) -> None:
        """To everyone watching ``table``, numbered in its stream (server/tournament/table_stream.py): at once to the
        player it concerns, with the next broadcast tick to the others (server/hub.py). A director
        event carries the tournament clock (``at``, ``in_level``: docs/events.md), as in the audit trail."""
        if isinstance(event, Event) and not isinstance(event, HAND_EVENTS):
            self.writers.publish(table, event, Clock(self.now(), self.session.director.level + 1))
        else:
            self.writers.publish(table, event)

    def publish_everywhere(self, event: TableMessage) -> None:
        """To every table stream, including one whose table the same command has just closed."""
        for table in sorted(set(self.session.director.tables) | set(self.watchers)):
            self.publish(table, event)

    def tell(self, player: str, event: PrivateMessage) -> None:
        if self.players.get(player):
            self.send_to(player, private_line(event))

    def send_to(self, player: str, line: bytes) -> None:
        """At once to every connection of ``player``."""
        for connection in list(self.players.get(player, ())):
            connection.send(line)

    def announce(self, text: str) -> None:
        """The director's word, at once to every connection of the tournament."""
        announcement = Announcement(text, time.time())
        self.announcements = [*self.announcements, announcement][-ANNOUNCEMENTS_KEPT:]
        message = encoder.encode(announcement)
        everyone = set(self.lobby).union(*self.watchers.values(), *self.players.values())
        for connection in everyone:
            connection.send(message)

    def chat(self, player: str, text: str) -> None:
        """A player's line to their table: limited in rate here and in length by the wire, stripped of control
        characters, and never numbered with the table's events (it is not part of the game)."""
        text = "".join(character for character in text if character.isprintable()).strip()
        if not text:
            raise Refused("bad_request", "chat: nothing to say")
        where = self.session.director.where.get(player)
        if where is None:
            raise Refused("refused", "only a player at a table chats there")
        limit = self._chat_rates.setdefault(player, RateLimit(CHAT_RATE, CHAT_BURST))
        if not limit.allow():
            raise Refused("chat_limit", "you are chatting too fast: wait a few seconds")
        line = Chat(player, self.session.entries.name(player), text, time.time())
        self.chat_kept.setdefault(where[0], deque(maxlen=CHAT_KEPT)).append(line)
        message = encoder.encode(line)
        for connection in list(self.watchers.get(where[0], ())):
            connection.send(message, urgent=False)

    # ------------------------------------------------------------- routing

    def route(self, events: list[Event]) -> None:
        """Director events to the streams of the tables they concern, and moves to the moved players."""
        self.record(events)
        for event in events:
            self.route_event(event)
        self.offer_deal_button()

    async def route_draw(self, events: list[Event]) -> None:
        """Route the start's draw, yielding the loop after every ``DRAW_SNAPSHOTS_PER_TURN`` snapshots it sends.

        A snapshot to every connected player in one turn would take the event
        loop for a third of a second at 10,000 players. A player who connects
        meanwhile gets their table at once (``connect`` reads the director);
        the draw's own snapshot reaches them again later.
        """
        self.record(events)
        sent = 0
        for event in events:
            self.route_event(event)
            if isinstance(event, Seated):
                sent += len(self.players.get(event.player, ()))
                if sent >= DRAW_SNAPSHOTS_PER_TURN:
                    sent = 0
                    await asyncio.sleep(0)
        self.offer_deal_button()
        # Everything the field needs now exists (connections, seats, the tables) and lives as long as the
        # tournament: out of the collector's way, so that its collections stay small (docs/performance.md).
        gc.freeze()

    def route_event(self, event: Event) -> None:
        """One director event to the table streams and players it concerns."""
        director = self.session.director
        if isinstance(event, Seated):  # the draw: players already connected go to their table
            if self.lobby:
                self._seat_the_lobby()
            self.publish(event.table, event)
            for connection in list(self.players.get(event.player, ())):
                self._watch(connection, event.table)
                self.send_snapshot(connection)
        elif isinstance(event, (HandStarted, HandFinished, PlayerEliminated, PlayerRemoved, HandVoided)):
            # An elimination goes to its own table only: sent to every table, busts would cost the
            # server players x busts messages. Other tables read players left from the summary.
            self.publish(event.table, event)
        elif isinstance(event, PlayerMoved):
            self.publish(event.from_table, event)
            self.publish(event.to_table, event)
            self._follow(event)
        elif isinstance(event, TableBroken):
            self.publish(event.table, event)
            self._close_table(event.table)
        elif isinstance(event, (TableClosing, TableKept)):
            self.publish(event.table, event)  # its players learn it will close after the hand (or stays)
        elif isinstance(event, (Registered, Reentered, Refunded, TableOpened, BalanceQueued)):
            return  # the summary counts the entries and shows the queued balance; a late entry's seat is its own
        elif isinstance(event, (MoveQueued, QueuedMoveDropped)):
            where = director.where.get(event.player)
            if where is not None:  # the table learns who moves after the hand, as a floor person says it
                self.publish(where[0], event)
        elif isinstance(event, (RebuyOffered, RebuyTaken, RebuyDeclined, AddOnTaken)):
            where = director.where.get(event.player)
            if where is not None:
                self.publish(where[0], event)
            if isinstance(event, RebuyOffered):
                self.tell(event.player, Offer("rebuy", event.until - self.now(), event.price_cents, event.chips))
        elif isinstance(event, (BountyWon, MysteryBountyDrawn)) and event.winners[0] in director.where:
            self.publish(director.where[event.winners[0]][0], event)  # the knockout's table
        else:  # tournament-wide: levels, breaks, eliminations, hand-for-hand, merges, the finish
            self.publish_everywhere(event)
            if isinstance(event, AddOnOffered):
                offer = Offer("add_on", event.until - self.now(), event.price_cents, event.chips)
                for player in director.stacks:
                    self.tell(player, offer)
            elif isinstance(event, DealProposed):
                offer = Offer("deal", event.until - self.now(), amounts=event.amounts, stacks=event.stacks,
                              deal_kind=event.kind, keep_cents=event.keep_cents, icm_cents=event.icm_cents)
                for player in event.amounts:
                    if not self.connected(player):
                        break  # a player with no connection cannot accept it: the runtime submits their no (H.36)
                    if player != event.proposer:  # who proposed it has accepted it
                        self.tell(player, offer)

    def _follow(self, move: PlayerMoved) -> None:
        """A moved player's connections follow them to the new table, with the reason and a snapshot."""
        for connection in list(self.players.get(move.player, ())):
            self._watch(connection, move.to_table)
            connection.send(encoder.encode(Private(
                Moved(move.from_table, move.to_table, move.seat, move.reason), time.time())))
            self.send_snapshot(connection)

    def _close_table(self, table: int) -> None:
        """Observers of a closed table move to the lowest open table, and so do players who are out: a busted
        player's page follows the tournament to its end, never a table that is gone."""
        self.chat_kept.pop(table, None)
        where = self.session.director.where
        for connection in list(self.watchers.pop(table, ())):
            if connection.player is None or connection.player not in where:
                self._watch(connection, min(self.session.director.tables, default=None))
                self.send_snapshot(connection)

    # ---------------------------------------------------------------- offers

    def deal_may_be_asked(self) -> bool:
        director = self.session.director
        return (director.definition.deals and director.status is Status.RUNNING and len(director.tables) == 1
                and director.players_left <= len(director.prizes) and director.proposal is None)

    def offer_deal_button(self) -> None:
        """Once per field size at the final table in the money, tell the players a deal may be asked for."""
        director = self.session.director
        if self._deal_offered_at == director.players_left or not self.deal_may_be_asked():
            return
        self._deal_offered_at = director.players_left
        for player in director.stacks:
            self.tell(player, Offer("press_deal", None))

    def open_offers(self, player: str) -> list[Offer]:
        """The decisions waiting for ``player``, repeated to a (re)connecting client."""
        director = self.session.director
        now = self.now()
        offers = []
        rebuys, add_on = director.definition.rebuys, director.definition.add_on
        if player in director.rebuy_offers and rebuys is not None:
            offers.append(Offer("rebuy", director.rebuy_offers[player] - now, rebuys.price_cents + rebuys.fee_cents,
                                rebuys.chips))
        if director.add_on_until is not None and add_on is not None and player not in director.add_ons:
            offers.append(Offer("add_on", director.add_on_until - now, add_on.price_cents + add_on.fee_cents,
                                add_on.chips))
        proposal = director.proposal
        if proposal is not None and player in proposal.amounts and player not in proposal.accepted:
            offers.append(Offer("deal", proposal.until - now, amounts=proposal.amounts,
                                stacks={p: director.stacks[p] for p in proposal.amounts}, deal_kind=proposal.kind,
                                keep_cents=proposal.keep_cents, icm_cents=proposal.icm_cents))
        elif player in director.stacks and player not in director.deal_pressed and self.deal_may_be_asked():
            offers.append(Offer("press_deal", None))
        return offers

    # ----------------------------------------------------------- connections

    def connect(self, connection: Connection, table: int | None) -> None:
        """A client joins: a player watches their own table, an observer the one asked for (or the first)."""
        director = self.session.director
        if connection.player is not None:
            connections = self.players.setdefault(connection.player, set())
            connections.add(connection)
            self._presence_changed(connection.player)
            where = director.where.get(connection.player)
            table = where[0] if where else None
        elif table is None or table not in director.tables:
            table = min(director.tables, default=None)
        self._watch(connection, table)
        self.send_snapshot(connection)
        if connection.player is not None:
            for offer in self.open_offers(connection.player):
                connection.send(encoder.encode(Private(offer, time.time())))

    def disconnect(self, connection: Connection) -> None:
        if connection.player is not None:
            self.players.get(connection.player, set()).discard(connection)
            self._presence_changed(connection.player)
        if connection.table is not None:
            self.watchers.get(connection.table, set()).discard(connection)
            self.writers.watch(connection.table, connection, False)
        self.lobby.discard(connection)
        self.writers.forget(connection)

    def _presence_changed(self, player: str) -> None:
        """A player's connections changed: their table hears of it once per ``PRESENCE_TICK``, and only if
        connected or not differs from what it last heard (a client reconnecting in a loop costs the table
        at most one message a tick)."""
        if not self._presence_due:
            try:
                asyncio.get_running_loop().call_later(PRESENCE_TICK, self._tell_presence)
            except RuntimeError:  # no event loop (a script): at once
                self._presence_due.add(player)
                self._tell_presence()
                return
        self._presence_due.add(player)

    def _tell_presence(self) -> None:
        due, self._presence_due = self._presence_due, set()
        for player in due:
            connected = self.connected(player)
            if self._presence_told.get(player, False) == connected:
                continue
            self._presence_told[player] = connected
            where = self.session.director.where.get(player)
            if where is not None:
                self.publish(where[0], Presence(player, connected))

    def watch(self, connection: Connection, table: int) -> None:
        """An observer switches to ``table`` (the caller has checked that it may)."""
        self._watch(connection, table)
        self.send_snapshot(connection)

    def send_snapshot(self, connection: Connection) -> None:
        """The connection's snapshot, through the writer of its table's stream (in a cluster, its worker, which
        numbers the stream and has the hand)."""
        if connection.table is not None:
            self.writers.snapshot(connection.table, connection, self.snapshot(connection))
            said = self.chat_kept.get(connection.table)
            if said:
                connection.send(encoder.encode(ChatHistory(list(said))), urgent=False)
        else:
            connection.send(self.snapshot(connection))

    def resend_snapshots(self, table: int) -> None:
        """A snapshot to every client of ``table``: its stream starts again (a new worker holds it)."""
        for connection in list(self.watchers.get(table, ())):
            self.send_snapshot(connection)

    def _watch(self, connection: Connection, table: int | None) -> None:
        if connection.table is not None:
            self.watchers.get(connection.table, set()).discard(connection)
            self.writers.watch(connection.table, connection, False)
        self.lobby.discard(connection)
        connection.table = table
        if table is not None:
            self.watchers.setdefault(table, set()).add(connection)
            self.writers.watch(table, connection, True)
        elif connection.player is None:
            self.lobby.add(connection)

    def _seat_the_lobby(self) -> None:
        """The draw: observers who were waiting for a table watch the first one."""
        first = min(self.session.director.tables, default=None)
        if first is None:
            return
        for connection in list(self.lobby):
            self._watch(connection, first)
            self.send_snapshot(connection)
