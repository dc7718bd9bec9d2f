"""The swarm's measures pushed as they come (``--otlp URL``), as k6's outputs push: OTLP over HTTP, the
OpenTelemetry protocol every collector, Grafana's Alloy and Prometheus itself (its OTLP receiver) take.

The pull (``/metrics``, bots/swarmmetrics.py) and the push send the same metrics: each row of the time series,
the metric families a scrape would read are turned into one ``ExportMetricsServiceRequest`` (counters as
cumulative monotonic sums, gauges, histograms with their explicit bounds) and posted in a task of its own, so
the swarm's loop never waits on a collector. A post still under way when the next row comes is not doubled:
the next row carries the newer state (``skipped`` counts them), and one that fails is counted, never retried
(the next row carries its figures too: the sums are cumulative).

The messages are built with the protocol's own generated classes (opentelemetry-proto) rather than the
OpenTelemetry SDK's instruments: the swarm's histograms are already aggregated (bots/histogram.py), which the
SDK's instruments would take again one sample at a time (docs/dependencies.md).
"""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Iterable

import httpx
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, InstrumentationScope, KeyValue
from opentelemetry.proto.metrics.v1.metrics_pb2 import (
    AggregationTemporality, Gauge, Histogram, HistogramDataPoint, Metric, NumberDataPoint, ResourceMetrics,
    ScopeMetrics, Sum,
)
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from prometheus_client.core import Metric as Family

from bots.swarmmetrics import SwarmMetrics

CUMULATIVE = AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
POST_TIMEOUT_SECONDS = 5.0


def _attributes(labels: dict[str, str]) -> list[KeyValue]:
    return [KeyValue(key=key, value=AnyValue(string_value=value)) for key, value in sorted(labels.items())]


def _histogram(family: Family, started: int, now: int) -> Metric:
    """A Prometheus histogram family (cumulative ``le`` buckets) as OTLP's, whose bucket counts are each the
    bucket's own."""
    buckets: dict[tuple[tuple[str, str], ...], list[tuple[float, float]]] = {}
    sums: dict[tuple[tuple[str, str], ...], float] = {}
    for sample in family.samples:
        series = tuple(sorted((key, value) for key, value in sample.labels.items() if key != "le"))
        if sample.name.endswith("_bucket"):
            buckets.setdefault(series, []).append((float(sample.labels["le"]), sample.value))
        elif sample.name.endswith("_sum"):
            sums[series] = sample.value
    points = []
    for series, cumulative in buckets.items():
        cumulative.sort()
        below = [0.0, *(value for _, value in cumulative[:-1])]
        points.append(HistogramDataPoint(
            attributes=_attributes(dict(series)), start_time_unix_nano=started, time_unix_nano=now,
            count=int(cumulative[-1][1]), sum=sums.get(series, 0.0),
            bucket_counts=[int(value - before) for (_, value), before in zip(cumulative, below)],
            explicit_bounds=[le for le, _ in cumulative[:-1]]))  # the last, +Inf, has no bound of its own
    return Metric(name=family.name, description=family.documentation, unit="s",
                  histogram=Histogram(data_points=points, aggregation_temporality=CUMULATIVE))


def request_of(families: Iterable[Family], started: int, now: int, service: str) -> ExportMetricsServiceRequest:
    """The families a scrape reads, as one OTLP export (timestamps in nanoseconds since the epoch)."""
    metrics = []
    for family in families:
        if family.type == "histogram":
            metrics.append(_histogram(family, started, now))
            continue
        points = [NumberDataPoint(attributes=_attributes(sample.labels), start_time_unix_nano=started,
                                  time_unix_nano=now, as_double=float(sample.value))
                  for sample in family.samples if not sample.name.endswith("_created")]
        if family.type == "counter":
            metrics.append(Metric(name=f"{family.name}_total", description=family.documentation,
                                  sum=Sum(data_points=points, aggregation_temporality=CUMULATIVE, is_monotonic=True)))
        else:
            metrics.append(Metric(name=family.name, description=family.documentation, gauge=Gauge(data_points=points)))
    resource = {"service.name": "mttsim-swarm", "service.instance.id": f"{socket.gethostname()}:{service}"}
    return ExportMetricsServiceRequest(resource_metrics=[ResourceMetrics(
        resource=Resource(attributes=_attributes(resource)),
        scope_metrics=[ScopeMetrics(scope=InstrumentationScope(name="mttsim.swarm"), metrics=metrics)])])


class OtlpPush:
    """Posts the swarm's metrics to an OTLP/HTTP endpoint at each row (``push``) and once at the end."""

    def __init__(self, endpoint: str, metrics: SwarmMetrics, instance: str) -> None:
        base = endpoint.rstrip("/")
        self.url = base if base.endswith("/v1/metrics") else f"{base}/v1/metrics"
        self.metrics = metrics
        self.instance = instance
        self.started = time.time_ns()
        self.client = httpx.AsyncClient(timeout=POST_TIMEOUT_SECONDS)
        self.sent = self.failed = self.skipped = 0
        self.last_error = ""
        self._posting: asyncio.Task[None] | None = None

    def push(self, _: object = None) -> None:
        """Post the state now, in a task of its own (a row's callback on the swarm's loop)."""
        if self._posting is not None and not self._posting.done():
            self.skipped += 1
            return
        self._posting = asyncio.get_running_loop().create_task(self._post())

    async def _post(self) -> None:
        body = request_of(self.metrics.collect(), self.started, time.time_ns(), self.instance).SerializeToString()
        try:
            answer = await self.client.post(self.url, content=body,
                                            headers={"Content-Type": "application/x-protobuf"})
            answer.raise_for_status()
            self.sent += 1
        except httpx.HTTPError as error:
            self.failed += 1
            self.last_error = f"{type(error).__name__}: {error}"

    async def close(self) -> dict[str, object]:
        """The last state posted, the client closed; what was pushed, for the report."""
        if self._posting is not None:
            await asyncio.gather(self._posting, return_exceptions=True)
        await self._post()
        await self.client.aclose()
        return {"url": self.url, "sent": self.sent, "failed": self.failed, "skipped": self.skipped,
                "last_error": self.last_error}
