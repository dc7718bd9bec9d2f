"""Prometheus metrics (``GET /metrics``): what a running server is doing, for a dashboard or an alert.

The counts that a scrape can read from the server's state (tournaments by
status, open tables, connected players) are read when Prometheus asks, so the
hot path pays nothing for them. What happens between scrapes is counted as it
happens, at a microsecond or two each: player actions (a counter, whose rate
is the actions per second), the server time to apply an action and queue its
events (a histogram), and how long messages wait in the server before they
leave (a histogram: the broadcast tick and the gathering window, docs/protocol.md).

Each server has its own registry, so that several in one process (the tests)
do not count into one another's.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from typing import Protocol

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from engine.director import Tournament


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

    def collect(self) -> Iterator[GaugeMetricFamily]:
        by_status = GaugeMetricFamily("mttsim_tournaments", "Tournaments by status", labels=["status"])
        tables = GaugeMetricFamily("mttsim_tables", "Open tables of the running tournaments")
        players = GaugeMetricFamily("mttsim_players_connected", "Players with a connection to a tournament")
        left = GaugeMetricFamily("mttsim_players_left", "Players still in the running tournaments")
        failovers = GaugeMetricFamily("mttsim_failovers", "Tables a worker took over from another's expired lease")
        statuses: dict[str, int] = {}
        open_tables = connected = playing = taken_over = 0
        for runtime in self.tournaments():
            director = runtime.director
            statuses[director.status.value] = statuses.get(director.status.value, 0) + 1
            if director.status.value == "running":
                open_tables += len(director.tables)
                playing += director.players_left
            connected += sum(1 for connections in runtime.streams.players.values() if connections)
            taken_over += runtime.tables.failovers
        for status, count in sorted(statuses.items()):
            by_status.add_metric([status], count)
        tables.add_metric([], open_tables)
        players.add_metric([], connected)
        left.add_metric([], playing)
        failovers.add_metric([], taken_over)
        yield from (by_status, tables, players, left, failovers)


class Metrics:
    """One server's metrics."""

    def __init__(self, tournaments: Callable[[], Iterable[Counted]]) -> None:
        self.registry = CollectorRegistry()
        self.actions = Counter("mttsim_actions", "Player actions applied (their rate is actions per second)",
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

    def acted(self, seconds: float) -> None:
        self.actions.inc()
        self.action_seconds.observe(seconds)

    def text(self) -> bytes:
        """The exposition Prometheus scrapes."""
        return generate_latest(self.registry)
