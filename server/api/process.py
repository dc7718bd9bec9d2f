"""The process's state (``Server``: its tournaments, storage, outbound and lobby) and what every endpoint of it
asks of a request: the admin token, the tournament. What needs no tournament is in server/api/edge.py."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import Awaitable, Callable
from typing import Protocol

from starlette.requests import Request
from starlette.types import ASGIApp
from starlette.websockets import WebSocket

from engine.structure import Definition
from server.tournament import chaining, feeds
from server.tournament.clock import Clock
from server.api import edge
from server.api.edge import Settings
from server.errors import Refused
from server.hub import Outbound, RateLimit
from server.storage import MemoryStorage, SQLiteStorage, Storage, Stored
from server.tournament.tables import Placement, HerePlacement
from server.api.metrics import Metrics
from server.tournament.runtime import TournamentRuntime
from server.processes import Process
from server.tournament.plan import Plan
from bots.lab import expected_field, field_over_time, lab


class ClusterService(Protocol):
    """The director's side of a cluster (server/cluster/service.py's ``DirectorService``), as the process knows it: the
    command line plugs it in (``create_app(..., join_cluster=...)``), so that the API imports no cluster."""

    async def start(self) -> None: ...

    async def stop(self) -> None: ...

    def placement(self, tournament: str) -> Placement:
        """Where ``tournament``'s tables are played: by the cluster's workers."""

    def processes(self) -> list[Process]:
        """Every process of the cluster heard from now."""

    def listed_gateways(self) -> list[str]:
        """The addresses of the cluster's gateways a browser may fail over to: heard from now, and checked."""


class Alone:
    """The ``ClusterService`` of a server with no cluster: it plays every table here and lists itself."""

    def __init__(self, process: Process) -> None:
        self.process = process

    async def start(self) -> None:
        pass

    async def stop(self) -> None:
        pass

    def placement(self, tournament: str) -> Placement:
        return HerePlacement()

    def processes(self) -> list[Process]:
        return [self.process]

    def listed_gateways(self) -> list[str]:
        return []


CONNECTIONS_PER_SECOND, CONNECTION_BURST = 2.0, 10  # per player token: a reload or a flaky line, not a loop


PLANNED_UP_TO = 3_000  # entries: a larger field's plan would take the cores for too long while it plays


class Server:
    """The application's state: its settings, its tournaments and their storage."""

    def __init__(self, settings: Settings, clock: Clock | None = None) -> None:
        """``clock``: the time its tournaments' decisions and clocks run on, the event loop's unless told."""
        self.settings = settings
        self.clock = clock
        self.tournaments: dict[str, TournamentRuntime] = {}
        self.storage: Storage = SQLiteStorage(settings.db) if settings.db else MemoryStorage()
        self.metrics = Metrics(self.tournaments.values)
        self.outbound = Outbound(settings.broadcast_tick, before=self.storage.commit,
                                 waited=self.metrics.event_lag_seconds.observe, flushed=self.metrics.frames_sent.inc)
        self.connection_rates: dict[tuple[str, str], RateLimit] = {}
        self.damaged: dict[str, str] = {}  # tournaments whose journal is damaged: reported, never restored
        self.estimating = asyncio.Lock()  # one structure estimate at a time: each takes the cores for seconds
        self.planning: set[asyncio.Task[None]] = set()  # the plans being made, kept from the collector
        self.lobby = feeds.lobby(self.tournaments.values)
        url = settings.ws_url.replace("ws", "http", 1) if settings.ws_url else None
        self.process = Process.here("director" if settings.clustered else "single", url)
        self.cluster: ClusterService = Alone(self.process)  # a cluster's director joins its own in the lifespan

    def connection_rate(self, tournament: str, player: str) -> RateLimit:
        """How fast one player may open connections: ``CONNECTIONS_PER_SECOND``, bursts of ``CONNECTION_BURST``."""
        key = (tournament, player)
        limit = self.connection_rates.get(key)
        if limit is None:
            limit = self.connection_rates[key] = RateLimit(CONNECTIONS_PER_SECOND, CONNECTION_BURST)
        return limit

    def add(self, runtime: TournamentRuntime) -> None:
        self.tournaments[runtime.id] = runtime
        if self.settings.plan_runs:
            runtime.planner = self.plan
        runtime.registry = self.tournaments
        runtime.tables.barrier = self.metrics.barrier_seconds.observe
        self.metrics.actions.labels(runtime.id)  # its series from 0, before its first action


    async def plan_of(self, runtime: TournamentRuntime) -> None:
        """The plan of a tournament that has started (server/tournament/plan.py): its structure's quick simulations
        for the field that started, in other processes, one estimate at a time as the lobby's are."""
        entries = len(runtime.director.entries)
        if not 2 <= entries <= PLANNED_UP_TO:
            return
        runs = self.settings.plan_runs
        definition = runtime.definition
        async with self.estimating:
            report = await asyncio.to_thread(lab, definition, expected_field(definition, entries), range(1, runs + 1),
                                             jobs=runs, apart=True)
        field = field_over_time(report.runs)
        if not field:
            return
        # the average stack as most runs began each level, as the Players tab's chart has the tournament's
        average = [(level.level, round(level.average_bb.median, 1)) for level in report.levels
                   if 2 * level.reached > runs]
        runtime.plan = Plan([(at, median) for at, _, median, _ in field], runs,
                            [(low, high) for _, low, _, high in field], average)

    def plan(self, runtime: TournamentRuntime) -> None:
        task = asyncio.get_running_loop().create_task(self.plan_of(runtime), name=f"plan:{runtime.id}")
        self.planning.add(task)
        task.add_done_callback(self.planning.discard)

    def placement(self, tournament: str) -> Placement:
        """Where a tournament of this process plays its tables: here, or at the cluster's workers."""
        return self.cluster.placement(tournament)

    def create(self, definition: Definition) -> TournamentRuntime:
        """A new tournament, journaled, in the lobby and on its clock; a satellite's or a flight's target checked
        first (server/tournament/chaining.py)."""
        chaining.verify_target(self.tournaments, definition)
        tournament = secrets.token_hex(4)
        runtime = TournamentRuntime.create(tournament, definition, self.storage, hand_pause=self.settings.hand_pause,
                                           placement=self.placement(tournament), clock=self.clock)
        self.add(runtime)
        runtime.keep_time()
        return runtime

    def restore(self, stored: Stored) -> TournamentRuntime:
        """A tournament as its journal leaves it, in the lobby; an open one plays on."""
        runtime = TournamentRuntime.restore(stored, self.storage, hand_pause=self.settings.hand_pause,
                                            placement=self.placement(stored.id), clock=self.clock)
        self.add(runtime)
        runtime.bots.ws_url = self.settings.ws_url
        if stored.open:
            runtime.resume_after_restore()
        return runtime


JoinCluster = Callable[[Server, ASGIApp], Awaitable[ClusterService]]  # how a director joins its cluster


def server_of(request: Request | WebSocket) -> Server:
    server: Server = request.app.state.server
    return server


def is_admin(request: Request) -> bool:
    return edge.is_admin(request, server_of(request).settings)


def require_admin(request: Request) -> None:
    edge.require_admin(request, server_of(request).settings)


def runtime_of(request: Request) -> TournamentRuntime:
    server, tournament = server_of(request), request.path_params["id"]
    runtime = server.tournaments.get(tournament)
    if runtime is None and tournament in server.damaged:
        raise Refused("damaged", f"tournament {tournament!r} is not restored: {server.damaged[tournament]}")
    if runtime is None:
        raise Refused("no_tournament", f"no tournament {tournament!r}")
    return runtime


