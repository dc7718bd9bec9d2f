"""The swarm's time series: every few seconds a row of what the bots measured since the row before.

The bots' latencies and lags are in two arrays they share, and their counts in one tally they add to as
they go (``bots.client.Measured``): a row copies what is new of the arrays and reads the tally, with no pass
over the bots (under 2% of the swarm's CPU).

A row holds the interval's actions and failures, its latency and event-lag histograms (bots/histogram.py,
so that the rows of a run's shards merge exactly, bucket by bucket), the bots connected, the players left
and the running totals. The CSV and the report are written from the rows (bots/loadreport.py).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bots.histogram import histogram, merge

if TYPE_CHECKING:
    from bots.client import Measured
    from bots.swarm import Outage

DEFAULT_INTERVAL = 5.0  # seconds between rows (Locust writes its history every few seconds too)


class Timeline:
    """The rows of one swarm process; ``sample`` reads only what each bot measured since the last row."""

    def __init__(self, measured: Measured, interval: float = DEFAULT_INTERVAL) -> None:
        self.measured = measured
        self.interval = interval
        self._latencies_read = self._lags_read = 0
        # the rows' histograms added up: the report so far reads them, never every sample again
        self.latency_total: dict[str, int] = {}
        self.lag_total: dict[str, int] = {}
        self.rows: list[dict[str, Any]] = []
        self._last = 0.0
        self._actions = self._failures = 0
        self._latency_sum = 0.0
        self._latency_min = math.inf
        self._latency_max = 0.0
        self.cpu_s = 0.0  # the process's CPU time spent sampling: what the time series costs the swarm

    def restart(self) -> None:
        """Rows count from now: play starts later than the timeline was made (a coordinated run's go)."""
        self._last = 0.0

    def forget(self) -> None:
        """The samples were cleared (the warm-up is over): read them from the start, totals from none."""
        self._latencies_read = self._lags_read = 0
        self.latency_total, self.lag_total = {}, {}

    def due(self, elapsed: float) -> bool:
        return elapsed - self._last >= self.interval

    def sample(self, elapsed: float, players_left: int,
               target: int | None = None, outage: Outage | None = None) -> dict[str, Any]:
        """The row since the last, stamped with the wall clock as it is written (the instant a server's logs
        and Prometheus use); ``target``: the bots a load shape wants connected (bots/shapes.py); ``outage``:
        the server's absences, of which the row keeps the seconds that fall in it."""
        began = time.thread_time()  # the loop's own: not a metrics scrape on another thread
        measured = self.measured
        latencies, lags = measured.latencies[self._latencies_read:], measured.lags[self._lags_read:]
        self._latencies_read, self._lags_read = len(measured.latencies), len(measured.lags)
        counted = measured.tally
        actions, errors, reconnections = counted.decisions, len(counted.errors), counted.reconnections
        failures = errors + counted.missed_deadlines
        messages, size, connected = counted.messages, counted.bytes, counted.connected
        if latencies:
            self._latency_sum += sum(latencies)
            self._latency_min = min(self._latency_min, min(latencies))
            self._latency_max = max(self._latency_max, max(latencies))
        seconds = max(elapsed - self._last, 1e-9)
        now = time.time()
        row: dict[str, Any] = {
            "at": round(now, 3), "elapsed_s": round(elapsed, 3), "seconds": round(seconds, 3),
            "users": connected, "target": target, "players_left": players_left,
            "actions": actions - self._actions, "failures": failures - self._failures,
            "total_actions": actions, "total_failures": failures, "errors": errors, "reconnections": reconnections,
            "latency_ms": histogram(latencies), "event_lag_ms": histogram(lags),
            "latency_sum_s": round(self._latency_sum, 6),
            "latency_min_ms": round(1000 * self._latency_min, 3) if math.isfinite(self._latency_min) else 0.0,
            "latency_max_ms": round(1000 * self._latency_max, 3), "average_bytes": size / messages if messages else 0,
            "server_away_s": round(outage.within(now - seconds, now), 3) if outage is not None else 0.0,
        }
        self._actions, self._failures, self._last = actions, failures, elapsed
        self.latency_total = merge([self.latency_total, row["latency_ms"]])
        self.lag_total = merge([self.lag_total, row["event_lag_ms"]])
        self.rows.append(row)
        self.cpu_s += time.thread_time() - began
        return row


def merged(histories: Sequence[Sequence[dict[str, Any]]], interval: float) -> list[dict[str, Any]]:
    """The rows of a run's shards as one history: rows falling in the same interval since the start are
    added (actions, failures, bots connected, totals; histograms bucket by bucket), the players left taken
    from the latest, the time from the first shard's."""
    slots: dict[int, list[dict[str, Any]]] = {}
    for rows in histories:
        for row in rows:
            slots.setdefault(round(row["elapsed_s"] / interval), []).append(row)
    history = []
    for slot in sorted(slots):
        rows = slots[slot]
        latest = max(rows, key=lambda row: row["at"])
        added = {key: sum(row[key] for row in rows) for key in
                 ("users", "actions", "failures", "total_actions", "total_failures", "errors", "reconnections",
                  "latency_sum_s")}
        weights = sum(row["total_actions"] for row in rows) or 1
        history.append({
            **added, "at": min(row["at"] for row in rows), "elapsed_s": rows[0]["elapsed_s"],
            "seconds": max(row["seconds"] for row in rows), "players_left": latest["players_left"],
            "latency_ms": merge([row["latency_ms"] for row in rows]),
            "event_lag_ms": merge([row["event_lag_ms"] for row in rows]),
            "target": None if all(row.get("target") is None for row in rows) else
            sum(row.get("target") or 0 for row in rows),
            "latency_min_ms": min(row["latency_min_ms"] for row in rows),
            "latency_max_ms": max(row["latency_max_ms"] for row in rows),
            "average_bytes": sum(row["average_bytes"] * row["total_actions"] for row in rows) / weights,
            "server_away_s": max(row.get("server_away_s", 0.0) for row in rows),  # one server, seen by each
        })
    return history
