"""Prometheus metrics (``GET /metrics``): what a running server is doing, for a dashboard or an alert.

The counts that a scrape can read from the server's state (tournaments by
status, open tables, connected players) are read when Prometheus asks, so the
hot path pays nothing for them. What happens between scrapes is counted as it
happens, at a microsecond or two each: player actions (a counter, whose rate
is the actions per second), the server time to apply an action and queue its
events (a histogram), and how long messages wait in the server before they
leave (a histogram: the broadcast tick and the gathering window, docs/protocol.md).

Each server has its own registry, so that several in one process (the tests)
do not count into one another's; the process, platform and garbage collector
collectors are registered on it, as on the default one. A figure of one
tournament carries its ``tournament`` label; ``mttsim_build_info`` says the
version and whether the hand engine is the compiled one. Counters have no
``_created`` series (docs/deployment.md has the dashboard that reads these).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Protocol

from importlib.metadata import PackageNotFoundError, version

import prometheus_client
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector
from prometheus_client.registry import Collector

from engine import hand
from engine.director import Tournament

_disable_created: Callable[[], None] = prometheus_client.disable_created_metrics  # (untyped in the library)
_disable_created()  # a ``_created`` series per counter is noise to every dashboard


class _Connected(Protocol):
    @property
    def players(self) -> Mapping[str, Collection[object]]: ...


class _Failovers(Protocol):
    @property
    def failovers(self) -> int: ...


class Counted(Protocol):
    """What the gauges read of a tournament (``server.tournament.runtime.TournamentRuntime`` is one): a protocol
    here, so that a gateway or a worker, which need only this module's buckets, import no tournament with it."""

    @property
    def id(self) -> str: ...

    @property
    def director(self) -> Tournament: ...

    @property
    def streams(self) -> _Connected: ...

    @property
    def tables(self) -> _Failovers: ...

SECONDS = (0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class _State(Collector):
    """Gauges read from the tournaments at scrape time."""

    def __init__(self, tournaments: Callable[[], Iterable[Counted]]) -> None:
        self.tournaments = tournaments

    def collect(self) -> Iterator[GaugeMetricFamily | CounterMetricFamily]:
        by_status = GaugeMetricFamily("mttsim_tournaments", "Tournaments by status", labels=["status"])
        tables = GaugeMetricFamily("mttsim_tables", "Open tables of a running tournament", labels=["tournament"])
        players = GaugeMetricFamily("mttsim_players_connected", "Players with a connection to a tournament",
                                    labels=["tournament"])
        left = GaugeMetricFamily("mttsim_players_left", "Players still in a running tournament",
                                 labels=["tournament"])
        failovers = CounterMetricFamily("mttsim_failovers", "Tables a worker took over from another's expired lease",
                                        labels=["tournament"])
        statuses: dict[str, int] = {}
        for runtime in self.tournaments():
            director = runtime.director
            statuses[director.status.value] = statuses.get(director.status.value, 0) + 1
            failovers.add_metric([runtime.id], runtime.tables.failovers)  # a count: it stays after the finish
            if director.status.value == "running":
                tables.add_metric([runtime.id], len(director.tables))
                left.add_metric([runtime.id], director.players_left)
                players.add_metric([runtime.id], sum(1 for connections in runtime.streams.players.values()
                                                     if connections))
        for status, count in sorted(statuses.items()):
            by_status.add_metric([status], count)
        yield from (by_status, tables, players, left, failovers)


class Metrics:
    """One server's metrics."""

    def __init__(self, tournaments: Callable[[], Iterable[Counted]]) -> None:
        self.registry = process_registry()
        self.actions = Counter("mttsim_actions", "Player actions applied (their rate is actions per second)",
                               labelnames=["tournament"], registry=self.registry)
        self.http_requests = Counter("mttsim_http_requests", "HTTP requests answered, by method, route and status",
                                     labelnames=["method", "route", "status"], registry=self.registry)
        self.messages_received = Counter("mttsim_websocket_messages_received", "Websocket messages from clients",
                                         registry=self.registry)
        self.frames_sent = Counter("mttsim_websocket_frames_sent",
                                   "Websocket frames written to clients (a frame carries one or more messages)",
                                   registry=self.registry)
        self.action_seconds = Histogram("mttsim_action_seconds",
                                        "Server time to apply a player's action and queue its events",
                                        buckets=SECONDS, registry=self.registry)
        self.event_lag_seconds = Histogram("mttsim_event_lag_seconds",
                                           "How long the oldest message of a send pass waited in the server",
                                           buckets=SECONDS, registry=self.registry)
        self.barrier_seconds = Histogram("mttsim_barrier_seconds",
                                         "Hand-for-hand: from a round's last hand settled to the next round's "
                                         "first deal", buckets=SECONDS, registry=self.registry)
        self.registry.register(_State(tournaments))

    def acted(self, tournament: str, seconds: float) -> None:
        self.actions.labels(tournament).inc()
        self.action_seconds.observe(seconds)

    def text(self) -> bytes:
        """The exposition Prometheus scrapes."""
        return generate_latest(self.registry)


def process_registry() -> CollectorRegistry:
    """A registry of one process's own, with what the default one collects (the process's CPU, memory and
    descriptors, the platform, the garbage collector) and the build's version."""
    registry = CollectorRegistry()
    ProcessCollector(registry=registry)
    PlatformCollector(registry=registry)
    GCCollector(registry=registry)
    try:
        release = version("mttsim")
    except PackageNotFoundError:  # run from a checkout that was never installed
        release = "unknown"
    build = Gauge("mttsim_build_info", "The mttsim version, and whether the hand engine is the compiled one",
                  labelnames=["version", "compiled"], registry=registry)
    build.labels(release, str(hand.__file__.endswith(".so")).lower()).set(1)
    return registry
