"""Live feeds for the lobby and a tournament's page: a snapshot, then numbered changes, at most one a tick.

The lobby (every tournament's summary) and a tournament's board (its
summary, structure and prizes, players, tables, results, refunds and the
director's announcements) are rows under keys. A subscriber gets every row
with the feed's number, then, at most once a ``tick``, only the rows that
changed since (a row that went is sent as null) under the next number; a
gap in the numbers asks for the snapshot again. The rows are built once a
tick for every subscriber, only while somebody subscribes and only when the
tournament changed: a page that polled the whole tournament every 2 s (17-25
ms a call at 3,000 entries, per viewer) costs one build a second however
many watch, and each client receives only what changed.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import msgspec

from engine.refundterms import refund_terms
from engine.status import Status
from engine.structure import level_starts
from engine.wire import BoardInfo, FeedMessage, PlayerRow, Summary, TableRow, encoder
from server.tournament import views
from server.tournament.plan import projected
from server.hub import Connection

if TYPE_CHECKING:
    from server.tournament.runtime import TournamentRuntime

FEED_TICK = 1.0  # seconds: the most often a feed's subscriber hears of a change


class Feed:
    """Rows by key, numbered changes to subscribers (see the module). ``build`` gives each row as a Struct, or
    already encoded (a row it kept from the last build because nothing in it changed)."""

    def __init__(self, name: str, build: Callable[[], dict[str, Any]], version: Callable[[], object],
                 tick: float = FEED_TICK) -> None:
        self.name = name
        self.build = build
        self.version = version
        self.tick = tick
        self.seq = 0
        self.rows: dict[str, bytes] = {}
        self.subscribers: set[Connection] = set()
        self._built_at: object = None
        self._timer: asyncio.TimerHandle | None = None

    def subscribe(self, connection: Connection) -> None:
        """Every row now (again, after a gap), then the changes."""
        if not self.subscribers:
            self.refresh()  # nobody was watching: the rows are as old as the last subscriber left them
        self.subscribers.add(connection)
        rows = {key: msgspec.Raw(row) for key, row in self.rows.items()}
        connection.send(encoder.encode(FeedMessage(self.name, self.seq, True, rows)))  # type: ignore[arg-type]
        if self._timer is None:
            self._timer = asyncio.get_running_loop().call_later(self.tick, self._tick)

    def refresh(self) -> dict[str, msgspec.Raw | None]:
        """Build the rows if the state changed; the changed rows, numbered with the next ``seq`` if any."""
        version = self.version()
        if version == self._built_at:
            return {}
        self._built_at = version
        fresh = {key: row if isinstance(row, bytes) else encoder.encode(row) for key, row in self.build().items()}
        changes: dict[str, msgspec.Raw | None] = {
            key: msgspec.Raw(row) for key, row in fresh.items() if self.rows.get(key) != row}
        changes.update((key, None) for key in self.rows if key not in fresh)
        self.rows = fresh
        if changes:
            self.seq += 1
        return changes

    def _tick(self) -> None:
        self._timer = None
        self.subscribers = {connection for connection in self.subscribers if not connection.closed}
        if not self.subscribers:
            return
        changes = self.refresh()
        if changes:
            message = encoder.encode(FeedMessage(self.name, self.seq, False, changes))
            for connection in self.subscribers:
                connection.send(message)
        self._timer = asyncio.get_running_loop().call_later(self.tick, self._tick)


def steady(summary: Summary, wall: float) -> Summary:
    """The summary with its running clocks as moments (seconds since the epoch, to the second)."""
    if summary.paused:
        return summary
    # While the players decide on a deal the level's clock stands still: its seconds left, as a pause gives them.
    level_stands = summary.deal is not None and summary.deal.amounts is not None
    at = {name: None if left is None else float(round(wall + left)) for name, left in (
        ("level_ends_at", None if level_stands else summary.level_ends_in), ("break_ends_at", summary.on_break_for),
        ("add_on_closes_at", summary.add_on_open_for),
        ("late_registration_ends_at", summary.late_registration_ends_in),
        ("break_starts_at", None if level_stands else summary.break_starts_in))}
    standing = {"level_ends_in": summary.level_ends_in if level_stands else None,
                "break_starts_in": summary.break_starts_in if level_stands else None}
    return msgspec.structs.replace(summary, **standing, on_break_for=None, add_on_open_for=None,
                                   late_registration_ends_in=None,
                                   deal=None if summary.deal is None else msgspec.structs.replace(summary.deal,
                                                                                                  seconds=None),
                                   **at)


def lobby(tournaments: Callable[[], Iterable[TournamentRuntime]]) -> Feed:
    """Every tournament's summary, by id."""
    def build() -> dict[str, Any]:
        wall = time.time()
        return {runtime.id: steady(runtime.summary(), wall) for runtime in tournaments()}

    def version() -> object:
        return tuple((runtime.id, runtime.journal.position, runtime.session.paused) for runtime in tournaments())

    return Feed("lobby", build, version)


def board(runtime: TournamentRuntime) -> Feed:
    """A tournament's page: ``summary``, ``info``, ``p:<player>``, ``t:<table>``, ``r:<place>``, ``refunds``,
    ``tickets``, ``announcements`` and ``timeline`` (its pictures' history)."""
    # player -> (what the row shows: stack, table, bounty, seat; its JSON)
    players_kept: dict[str, tuple[tuple[int, int | None, int | None, int | None], bytes]] = {}

    def build() -> dict[str, Any]:
        director, facts = runtime.director, runtime.facts()
        definition = director.definition
        rows: dict[str, Any] = {
            "summary": steady(views.summary(director, facts), time.time()),
            "info": BoardInfo(list(director.projected_prizes()), definition.satellite, list(definition.levels),
                              level_starts(definition), definition.breaks,
                              definition.action_seconds, definition.starting_bank_seconds, definition.refund_policy,
                              director.chips_in_play(), director.chips_issued, director.ledger.summary(),
                              refund_terms(definition), director.full_field_prizes()),
        }
        names, bounties, where = facts.entries.name, director.bounties, director.where
        players = {}
        for player, stack in director.stacks.items():  # most rows are as they were: encoded once, kept
            place = where.get(player)
            looks = (stack, place[0] if place else None, bounties.get(player), place[1] if place else None)
            row = players_kept.get(player)
            if row is None or row[0] != looks:
                row = looks, encoder.encode(PlayerRow(names(player), *looks))
            players[player] = row
            rows["p:" + player] = row[1]
        players_kept.clear()
        players_kept.update(players)
        for number, state in director.tables.items():
            stacks = [director.stacks.get(p, 0) for p in state.table.players]
            rows[f"t:{number}"] = TableRow(number, len(stacks), max(stacks, default=0), min(stacks, default=0))
        for r in director.results.values():
            rows[f"r:{r.place}:{r.player}"] = views.standing(r, facts.entries, director.knockouts)
        if director.refunds:
            rows["refunds"] = [views.refund_row(refund, facts.entries) for refund in director.refunds]
        if runtime.tickets:
            rows["tickets"] = runtime.tickets
        if runtime.streams.announcements:
            rows["announcements"] = runtime.streams.announcements
        drawn = runtime.timeline.timeline()
        if drawn is not None:
            rows["timeline"] = drawn
        if runtime.plan is not None:
            rows["plan"] = runtime.plan if director.status is not Status.RUNNING else \
                projected(runtime.plan, runtime.now(), director.players_left, time.time())
        return rows

    def version() -> object:
        return (runtime.journal.position, runtime.session.paused, tuple(runtime.streams.announcements[-1:]),
                runtime.plan is not None)

    return Feed("board", build, version)
