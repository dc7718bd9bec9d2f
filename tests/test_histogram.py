"""Merging the swarm's shard reports (bots/histogram.py): percentiles from merged histograms, within a bucket."""

from __future__ import annotations

import json
import math
import random

import pytest

from bots.histogram import histogram, merge, percentiles
from bots.loadreport import merged_report
from bots.swarm import percentiles_ms
from server.cli import main

FRACTIONS = (0.5, 0.9, 0.99, 0.999)


def samples(seed: int, count: int) -> list[float]:
    rng = random.Random(seed)
    return [rng.lognormvariate(math.log(0.003), 0.8) for _ in range(count)]  # seconds, around 3 ms


def test_percentiles_from_a_histogram_are_within_a_bucket_of_the_exact_ones():
    values = samples(1, 50_000)
    exact = percentiles_ms(values, FRACTIONS)
    approximate = percentiles(histogram(values), FRACTIONS)
    for e, a in zip(exact, approximate):
        assert abs(a - e) <= 0.011 * e + 0.01, (e, a)
    assert percentiles(histogram(values), (1.0,))[0] >= max(values) * 1000  # the top never understates the max
    assert percentiles({}, FRACTIONS) == [0.0] * len(FRACTIONS)


def test_merging_histograms_is_the_histogram_of_all_the_samples_and_not_an_average():
    fast, slow = samples(2, 20_000), [3 * value for value in samples(3, 5_000)]
    merged = merge([histogram(fast), histogram(slow)])
    assert merged == histogram(fast + slow)
    p99 = percentiles(merged, (0.99,))[0]
    exact = percentiles_ms(fast + slow, (0.99,))[0]
    assert abs(p99 - exact) <= 0.011 * exact
    averaged = (percentiles_ms(fast, (0.99,))[0] + percentiles_ms(slow, (0.99,))[0]) / 2
    assert abs(averaged - exact) > 0.05 * exact  # what averaging would have said instead


def report(tournament: str, values: list[float], players: int, wall: float) -> dict:
    p50, p95, p99, longest = percentiles_ms(values, (0.5, 0.95, 0.99, 1.0))
    return {"tournament": tournament, "players": players, "tables": 3, "actions": len(values),
            "actions_per_s": round(len(values) / wall, 1), "latency_ms": {"p50": p50, "p95": p95, "p99": p99,
                                                                          "max": longest},
            "event_lag_ms": {"p50": 1.0, "p99": 2.0}, "errors": 1, "provoked_errors": 0, "missed_deadlines": 0,
            "timeouts": 0, "reconnections": 2, "messages": 10, "finished": True, "wall_s": wall,
            "swarm_cpu_percent": 30.0, "late_registrations": 0, "late_refused": 0, "reentries": 0,
            "histograms": {"latency_ms": histogram(values), "event_lag_ms": histogram(values[:10])},
            "failures": [{"method": "WS", "name": "act -> acted", "error": "illegal_action: no", "occurrences": 1}]}


def test_a_merged_report_adds_the_counts_and_reads_its_percentiles_from_the_merged_histograms(tmp_path, capsys):
    first, second = samples(4, 3_000), [2 * value for value in samples(5, 1_000)]
    shards = [report("t1", first, 6, 10.0), report("t1", second, 4, 12.5)]
    merged = merged_report(shards)
    assert merged["players"] == 10 and merged["actions"] == 4_000 and merged["errors"] == 2
    assert merged["failures"] == [{"method": "WS", "name": "act -> acted", "error": "illegal_action: no",
                                   "occurrences": 2}]
    assert merged["wall_s"] == 12.5 and merged["actions_per_s"] == 320.0 and merged["swarm_cpu_percent"] == 60.0
    exact = percentiles_ms(first + second, (0.5, 0.99))
    assert abs(merged["latency_ms"]["p50"] - exact[0]) <= 0.011 * exact[0]
    assert abs(merged["latency_ms"]["p99"] - exact[1]) <= 0.011 * exact[1]
    with pytest.raises(ValueError, match="different tournaments"):
        merged_report([shards[0], report("t2", second, 4, 1.0)])

    paths = []
    for number, shard in enumerate(shards):
        path = tmp_path / f"shard{number}.json"
        path.write_text(json.dumps(shard))
        paths.append(str(path))
    # the shards' one error each fails the default errors==0: the merged run is judged on what it is asked
    assert main(["swarm-merge", *paths, "--json", "--csv", str(tmp_path / "all")]) == 99
    capsys.readouterr()
    assert main(["swarm-merge", *paths, "--json", "--csv", str(tmp_path / "all"), "--threshold", "finished"]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["actions"] == 4_000 and printed["latency_ms"] == merged["latency_ms"]
    rows = (tmp_path / "all_stats.csv").read_text().splitlines()
    assert rows[1].startswith("WS,act -> acted,4002,2,")  # each try a request: 4,000 acknowledged, 2 refused
    (tmp_path / "old.json").write_text(json.dumps({k: v for k, v in shards[0].items() if k != "histograms"}))
    assert main(["swarm-merge", str(tmp_path / "old.json")]) == 2
    assert "has no 'histograms'" in capsys.readouterr().err


def test_one_max_everywhere_and_no_row_fails_more_than_it_tried():
    """The summary's max was exact, the thresholds' read from a bucket, and a p99.9 could exceed the max; the
    connect row counted refused tries as failures of the successful handshakes only."""
    from bots import thresholds
    from bots.client import Measured
    from bots.loadreport import stats_rows
    from bots.swarm import report_of

    measured = Measured()
    measured.latencies.extend([0.001 * k for k in range(1, 2001)])
    measured.tally.connects.extend([0.01] * 5)
    measured.tally.refused.extend(["ConnectionRefusedError: refused"] * 8)
    report = report_of(5, measured, "t", {}, 10.0, 1.0)
    checked = thresholds.check([thresholds.parse("latency.max<1s"), thresholds.parse("latency.p99.9<1s")], report)
    assert checked[0]["actual"] == report["latency_ms"]["max"] >= checked[1]["actual"]
    connect = next(row for row in stats_rows(report) if row[1] == "connect")
    assert connect[2:4] == [13, 8]  # requests: the 5 handshakes and the 8 refused tries; failures: those 8
