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
from array import array
from collections import Counter
from collections.abc import Iterable, Sequence

import numpy as np

GROWTH = 1.02  # each bucket 2% wider than the last: values read back within about 1%
_LOG = math.log(GROWTH)
SMALLEST_MS = 0.001  # a microsecond: below it (a clock's noise) values count here


def histogram(values_s: Iterable[float]) -> dict[str, int]:
    """Bucket counts of ``values_s`` (seconds) as milliseconds, keyed by bucket index as text (JSON's keys).

    numpy's: a run's lags are millions, and the time series buckets a few hundred thousand every interval at
    5,000 bots, where a Python loop cost the swarm 4.5% of its CPU (docs/performance.md)."""
    seconds = np.frombuffer(values_s, dtype=np.float64) if isinstance(values_s, array) \
        else np.array(values_s if isinstance(values_s, list) else list(values_s), dtype=np.float64)
    if not seconds.size:
        return {}
    buckets = np.floor(np.log(np.maximum(1000 * seconds, SMALLEST_MS)) / _LOG).astype(np.int64)
    lowest = int(buckets.min())
    counts = np.bincount(buckets - lowest)  # the buckets span a few hundred indexes: counting beats sorting
    return {str(lowest + offset): int(counts[offset]) for offset in np.flatnonzero(counts).tolist()}


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
