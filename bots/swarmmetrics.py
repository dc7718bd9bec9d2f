"""The swarm's own measures as Prometheus metrics, on a port of its own (``--metrics-port``).

k6 streams what its clients measure while it runs (``--out``); Locust shows it live. A swarm's figures then
sit in the same Grafana dashboard as the server's (docs/grafana/mttsim.json), on one time axis: the server
says how long it took to apply an action, the swarm how long the round trip was from outside.

The figures are made from the rows of the time series (bots/timeline.py), as they come: a counter is a row's
running total, a histogram the rows' latency buckets added up and read into Prometheus' ``le`` buckets. So
the hot path pays nothing; a row costs a merge of a few hundred buckets. A coordinated run (bots/coordinator.py)
feeds each worker's rows under its own ``shard`` label. Every series carries the ``run`` label (the
tournament's id, unless ``--run-name`` names it), so that runs side by side stay apart.

The scrape is served by prometheus_client's own HTTP server, on a thread: it reads the state the loop last
published, which the loop replaces whole and never changes in place.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from typing import Any

from prometheus_client import CollectorRegistry, start_http_server
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.registry import Collector

from bots.histogram import GROWTH, merge

# Prometheus' buckets, in seconds: from a millisecond (a loopback round trip) to ten seconds (a frozen server)
BUCKETS_S = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)
LABELS = ["run", "shard"]
# (metric, help, the row's running total)
_COUNTERS = (("mttsim_swarm_actions", "actions the bots sent and the server acknowledged", "total_actions"),
             ("mttsim_swarm_failures", "errors and missed deadlines", "total_failures"),
             ("mttsim_swarm_errors", "error replies the bots did not provoke", "errors"),
             ("mttsim_swarm_reconnections", "times a bot's connection dropped and was made again", "reconnections"))
_GAUGES = (("mttsim_swarm_bots_connected", "bots connected now", "users"),
           ("mttsim_swarm_bots_target", "the bots the load shape wants connected now", "target"),
           ("mttsim_swarm_players_left", "players left in the tournament, as the server last said", "players_left"))
_HISTOGRAMS = (("mttsim_swarm_action_latency_seconds", "an action sent until its acted event came back",
                "latency_ms"),
               ("mttsim_swarm_event_lag_seconds", "the server's stamp on a message until the bot read it",
                "event_lag_ms"))
# Read from the report so far at each row (its histograms are the run's whole, every kind of request)
_REPORTED_HISTOGRAMS = (
    ("mttsim_swarm_connect_seconds", "a bot's first websocket handshake", "connect_ms"),
    ("mttsim_swarm_reconnect_seconds", "each later handshake", "reconnect_ms"),
    ("mttsim_swarm_register_seconds", "a registration over REST, sent until answered", "register_ms"),
    ("mttsim_swarm_snapshot_seconds", "a connection opened until its snapshot came", "snapshot_ms"),
    ("mttsim_swarm_watch_lag_seconds", "a spectator's event lag", "watch_lag_ms"),
    ("mttsim_swarm_lobby_seconds", "a lobby poll, sent until answered", "lobby_ms"))
_REPORTED_GAUGES = (
    ("mttsim_swarm_cpu_percent", "the swarm process's CPU time over its wall time: near 100, the swarm is the limit",
     lambda report: report.get("swarm_cpu_percent", 0.0)),
    ("mttsim_swarm_server_away_seconds", "seconds the server was away in all, as the bots saw it",
     lambda report: report.get("server_away", {}).get("seconds", 0.0)),
    ("mttsim_swarm_server_away", "1 while the server is away", lambda report: float(bool(
        report.get("server_away", {}).get("at_the_end")))))


def prometheus_buckets(counts: dict[str, int]) -> tuple[list[tuple[str, float]], float]:
    """The swarm's log buckets (milliseconds) as Prometheus' cumulative ``le`` buckets (seconds), each counted
    at its geometric middle, as the percentiles read them; and their sum in seconds."""
    per_le = [0] * (len(BUCKETS_S) + 1)
    total = 0.0
    for bucket, count in counts.items():
        seconds = GROWTH ** (int(bucket) + 0.5) / 1000
        total += seconds * count
        per_le[next((n for n, le in enumerate(BUCKETS_S) if seconds <= le), len(BUCKETS_S))] += count
    cumulative, running = [], 0
    for le, count in zip([*map(str, BUCKETS_S), "+Inf"], per_le):
        running += count
        cumulative.append((le, float(running)))
    return cumulative, total


class SwarmMetrics(Collector):
    """What a scrape is told: each shard's latest row and its histograms added up over the run."""

    def __init__(self, run: str) -> None:
        self.run = run
        self._state: dict[str, tuple[dict[str, Any], dict[str, dict[str, int]]]] = {}
        self._reports: dict[str, dict[str, Any]] = {}  # each shard's report so far
        self.listeners: list[Callable[[], object]] = []  # told when a report so far came (a push, bots/otlp.py)
        self.cpu_s = 0.0  # spent on rows and scrapes, each thread's own CPU (benchmarks/bench_swarm.py)

    def row(self, row: dict[str, Any], shard: str = "0") -> None:
        """A new row of ``shard``'s time series (called on the swarm's loop)."""
        began = time.thread_time()
        _, totals = self._state.get(shard, ({}, {}))
        added = {key: merge([totals.get(key, {}), row[key]]) for _, _, key in _HISTOGRAMS}
        self._state = {**self._state, shard: (row, added)}  # replaced whole: a scrape reads one or the other
        self.cpu_s += time.thread_time() - began

    def report(self, report: dict[str, Any], shard: str = "0") -> None:
        """``shard``'s report so far (at each row): every kind's histogram, the CPU, the server's absences."""
        self._reports = {**self._reports, shard: report}
        for listener in self.listeners:
            listener()

    def collect(self) -> Iterator[Metric]:
        began = time.thread_time()
        yield from self._families(self._state)
        yield from self._reported(self._reports)
        self.cpu_s += time.thread_time() - began

    def _reported(self, reports: dict[str, dict[str, Any]]) -> Iterator[Metric]:
        for name, doc, read in _REPORTED_GAUGES:
            gauge = GaugeMetricFamily(name, doc, labels=LABELS)
            for shard, report in reports.items():
                gauge.add_metric([self.run, shard], read(report))
            yield gauge
        for name, doc, key in _REPORTED_HISTOGRAMS:
            histogram = HistogramMetricFamily(name, doc, labels=LABELS)
            for shard, report in reports.items():
                buckets, total = prometheus_buckets(report.get("histograms", {}).get(key, {}))
                histogram.add_metric([self.run, shard], buckets, total)
            yield histogram

    def _families(self, state: dict[str, tuple[dict[str, Any], dict[str, dict[str, int]]]]) -> Iterator[Metric]:
        for name, doc, key in _COUNTERS:
            family = CounterMetricFamily(name, doc, labels=LABELS)
            for shard, (row, _) in state.items():
                family.add_metric([self.run, shard], row[key])
            yield family
        for name, doc, key in _GAUGES:
            gauge = GaugeMetricFamily(name, doc, labels=LABELS)
            for shard, (row, _) in state.items():
                if row.get(key) is not None:
                    gauge.add_metric([self.run, shard], row[key])
            yield gauge
        for name, doc, key in _HISTOGRAMS:
            histogram = HistogramMetricFamily(name, doc, labels=LABELS)
            for shard, (_, totals) in state.items():
                buckets, total = prometheus_buckets(totals[key])
                histogram.add_metric([self.run, shard], buckets, total)
            yield histogram


def serve(metrics: SwarmMetrics, host: str, port: int) -> int:
    """Serve ``/metrics`` on a thread of its own; the port it listens on (``port`` 0: any free one)."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(metrics)
    server, _ = start_http_server(port, host, registry)
    bound: int = server.server_address[1]
    return bound
