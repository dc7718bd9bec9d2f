"""Latency histograms that merge: the swarm's shards each report theirs, and one report is made of them all.

Percentiles cannot be averaged across shards (the p99 of two shards is not
the mean of their p99s), and the raw samples of a large run are millions of
numbers. So a report carries, beside its exact percentiles, a histogram of
log-spaced buckets, each ``GROWTH`` times wider than the last (HdrHistogram's
idea with a single precision figure): a value is counted in bucket
``floor(log(value) / log(GROWTH))``, and a percentile read back from the
buckets is within half a bucket, about 1%, of the exact one. Merging is adding
counts bucket by bucket.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

GROWTH = 1.02  # each bucket 2% wider than the last: values read back within about 1%
_LOG = math.log(GROWTH)
SMALLEST_MS = 0.001  # a microsecond: below it (a clock's noise) values count here


def histogram(values_s: Iterable[float]) -> dict[str, int]:
    """Bucket counts of ``values_s`` (seconds) as milliseconds, keyed by bucket index as text (JSON's keys)."""
    counts: Counter[int] = Counter(math.floor(math.log(max(1000 * value, SMALLEST_MS)) / _LOG) for value in values_s)
    return {str(bucket): count for bucket, count in sorted(counts.items())}


def merge(histograms: Sequence[dict[str, int]]) -> dict[str, int]:
    total: Counter[int] = Counter()
    for counts in histograms:
        total.update({int(bucket): count for bucket, count in counts.items()})
    return {str(bucket): count for bucket, count in sorted(total.items())}


def percentiles(counts: dict[str, int], fractions: Sequence[float]) -> list[float]:
    """Milliseconds at each fraction (nearest rank, as the exact ones), read from the bucket's geometric middle;
    0 for no data. ``1.0`` gives the top of the largest bucket's range, never less than the true maximum."""
    ordered = sorted((int(bucket), count) for bucket, count in counts.items())
    total = sum(count for _, count in ordered)
    if not total:
        return [0.0] * len(fractions)
    answers = []
    for fraction in fractions:
        rank = min(total, max(1, math.ceil(fraction * total)))
        seen = 0
        for bucket, count in ordered:
            seen += count
            if seen >= rank:
                edge = 1.0 if fraction >= 1.0 else 0.5
                answers.append(round(GROWTH ** (bucket + edge), 2))
                break
    return answers


def merged_report(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One report of the shards of one run: counts added, the run's wall time the longest shard's, throughput
    over it, percentiles from the merged histograms (``mttsim swarm --merge``)."""
    tournaments = {report["tournament"] for report in reports}
    if len(tournaments) != 1:
        raise ValueError(f"the reports are of different tournaments: {', '.join(sorted(tournaments))}")
    wall = max(report["wall_s"] for report in reports)
    summed = ("players", "actions", "errors", "provoked_errors", "missed_deadlines", "timeouts", "reconnections",
              "failovers", "messages", "late_registrations", "late_refused", "reentries")
    merged: dict[str, Any] = {"tournament": tournaments.pop(), "shards": len(reports),
                              "tables": max(report["tables"] for report in reports)}
    for key in summed:
        merged[key] = sum(report.get(key, 0) for report in reports)
    merged["actions_per_s"] = round(merged["actions"] / wall, 1) if wall else 0.0
    codes: Counter[str] = Counter()
    for report in reports:
        codes.update(report.get("error_codes", {}))
    merged["error_codes"] = dict(codes)
    latency = merge([report["histograms"]["latency_ms"] for report in reports])
    lag = merge([report["histograms"]["event_lag_ms"] for report in reports])
    p50, p95, p99 = percentiles(latency, (0.5, 0.95, 0.99))
    merged["latency_ms"] = {"p50": p50, "p95": p95, "p99": p99, "max": max(r["latency_ms"]["max"] for r in reports)}
    lag_p50, lag_p99 = percentiles(lag, (0.5, 0.99))
    merged["event_lag_ms"] = {"p50": lag_p50, "p99": lag_p99}
    merged["finished"] = all(report["finished"] for report in reports)
    merged["wall_s"] = wall
    merged["swarm_cpu_percent"] = round(sum(report["swarm_cpu_percent"] for report in reports), 1)
    merged["histograms"] = {"latency_ms": latency, "event_lag_ms": lag}
    return merged
