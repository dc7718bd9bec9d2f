"""What a swarm run leaves behind: Locust's three CSV files and one self-contained HTML report with charts.

Everything is written from the report (``mttsim swarm --json`` prints it), never from the bots: a report
merged from a run's shards (``mttsim swarm-merge``) writes the same files. The charts are drawn by matplotlib
as SVG inside the page, so that the file opens anywhere with no network and no script (docs/dependencies.md).
"""

from __future__ import annotations

import csv
import html
import math
import os
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from bots import pages, thresholds
from bots.histogram import GROWTH, merge, percentiles
from bots.timeline import merged as merged_history
from bots.watchers import LOBBY, WATCH

PERCENTILES = (0.5, 0.66, 0.75, 0.8, 0.9, 0.95, 0.98, 0.99, 0.999, 0.9999, 1.0)
PERCENTILE_NAMES = ["50%", "66%", "75%", "80%", "90%", "95%", "98%", "99%", "99.9%", "99.99%", "100%"]
STATS_COLUMNS = ["Type", "Name", "Request Count", "Failure Count", "Median Response Time", "Average Response Time",
                 "Min Response Time", "Max Response Time", "Average Content Size", "Requests/s", "Failures/s",
                 *PERCENTILE_NAMES]
HISTORY_COLUMNS = ["Timestamp", "User Count", "Type", "Name", "Requests/s", "Failures/s", *PERCENTILE_NAMES,
                   "Total Request Count", "Total Failure Count", "Total Median Response Time",
                   "Total Average Response Time", "Total Min Response Time", "Total Max Response Time",
                   "Total Average Content Size"]
# After Locust's columns, what a poker swarm adds: the interval's event lag, the field, errors and reconnections.
HISTORY_EXTRA = ["Event Lag 50%", "Event Lag 95%", "Event Lag 99%", "Players Left", "Errors", "Reconnections",
                 "Target Users", "Server Away s"]
NA = "N/A"  # Locust's figure for a percentile with no sample
FAILURES_COLUMNS = ["Method", "Name", "Error", "Occurrences"]
# The kinds of request a bot makes, as rows of PREFIX_stats.csv: (type, name, histogram, what failed).
# Observers and lobby pollers have theirs (bots/watchers.py): an observer's figure is the event lag it saw.
KINDS = (("WS", "act -> acted", "latency_ms"), ("HTTP", "register", "register_ms"), ("WS", "connect", "connect_ms"),
         ("WS", "reconnect", "reconnect_ms"), ("WS", "snapshot", "snapshot_ms"), ("WS", WATCH, "watch_lag_ms"),
         ("HTTP", LOBBY, "lobby_ms"))


def _mean(counts: dict[str, int]) -> float:
    """The mean read from the buckets (each at its geometric middle, as percentiles reads them), in ms."""
    total = sum(counts.values())
    if not total:
        return 0.0
    return round(sum(float(GROWTH ** (int(bucket) + 0.5)) * n for bucket, n in counts.items()) / total, 2)


def _failures_of(report: dict[str, Any]) -> Counter[str]:
    by_name: Counter[str] = Counter()
    for failure in report.get("failures", []):
        by_name[failure["name"]] += failure["occurrences"]
    return by_name


def stats_rows(report: dict[str, Any]) -> list[list[Any]]:
    """PREFIX_stats.csv's rows: one per kind of request, then the aggregate."""
    wall = report["wall_s"] or 1.0
    histograms = report["histograms"]
    failed = _failures_of(report)
    rows = []
    for kind, name, key in KINDS:
        counts = histograms.get(key, {})
        rows.append(_stats_row(kind, name, counts, failed[name], wall, report))
    everything = merge([histograms.get(key, {}) for _, _, key in KINDS])
    rows.append(_stats_row("", "Aggregated", everything, sum(failed.values()), wall, report))
    return rows


def _stats_row(kind: str, name: str, counts: dict[str, int], failures: int, wall: float,
               report: dict[str, Any]) -> list[Any]:
    answered = sum(counts.values())
    requests = answered + failures  # each try, as Locust counts it: a refused connection is a request that failed
    median, low, high = sampled(counts, (0.5, 0.0, 1.0))
    size = round(report.get("bytes", 0) / report["messages"]) if report.get("messages") else 0
    return [kind, name, requests, failures, median, _mean(counts) if answered else NA, low, high, size,
            round(requests / wall, 2), round(failures / wall, 2), *sampled(counts, PERCENTILES)]


def sampled(counts: dict[str, int], fractions: Sequence[float]) -> list[float | str]:
    """The percentiles of ``counts``, or Locust's ``N/A`` for each when there is no sample (never a 0.0 that
    reads as a measured figure)."""
    return list(percentiles(counts, tuple(fractions))) if counts else [NA] * len(fractions)


def history_rows(history: Sequence[dict[str, Any]]) -> list[list[Any]]:
    """PREFIX_stats_history.csv's rows: one per interval, Locust's aggregate row and the swarm's columns."""
    return _history_rows(history, {})[0]


def _history_rows(history: Sequence[dict[str, Any]], total: dict[str, int]) -> tuple[list[list[Any]], dict[str, int]]:
    """The rows of ``history``, following rows whose latencies added up to ``total``; and the new total."""
    rows = []
    for row in history:
        total = merge([total, row["latency_ms"]])
        seconds = row["seconds"] or 1.0
        count = row["total_actions"]
        rows.append([
            int(row["at"]), row["users"], "", "Aggregated", round(row["actions"] / seconds, 2),
            round(row["failures"] / seconds, 2), *sampled(row["latency_ms"], PERCENTILES),
            count, row["total_failures"], *sampled(total, (0.5,)),
            round(1000 * row["latency_sum_s"] / count, 2) if count else NA, row["latency_min_ms"],
            *sampled(total, (1.0,)), round(row["average_bytes"]),  # the max as every other figure reads it
            *sampled(row["event_lag_ms"], (0.5, 0.95, 0.99)), row["players_left"], row["errors"],
            row["reconnections"], NA if row.get("target") is None else row["target"], row.get("server_away_s", 0.0),
        ])
    return rows, total


def write_csvs(prefix: str, report: dict[str, Any]) -> list[str]:
    """``PREFIX_stats.csv``, ``PREFIX_stats_history.csv`` and ``PREFIX_failures.csv``, as Locust names them."""
    files = {f"{prefix}_stats_history.csv": ([*HISTORY_COLUMNS, *HISTORY_EXTRA], history_rows(report["history"])),
             **_summary_files(prefix, report)}
    for path, (header, rows) in files.items():
        _write_whole(path, header, rows)
    return list(files)


def _summary_files(prefix: str, report: dict[str, Any]) -> dict[str, tuple[list[str], list[list[Any]]]]:
    return {f"{prefix}_stats.csv": (STATS_COLUMNS, stats_rows(report)),
            f"{prefix}_failures.csv": (FAILURES_COLUMNS, [[f["method"], f["name"], f["error"], f["occurrences"]]
                                                          for f in report.get("failures", [])])}


def _write_whole(path: str, header: list[str], rows: list[list[Any]]) -> None:
    with open(f"{path}.part", "w", newline="") as out:  # renamed whole: a run killed mid-write keeps the last
        writer = csv.writer(out)
        writer.writerow(header)
        writer.writerows(rows)
    os.replace(f"{path}.part", path)


class StreamedCsvs:
    """The CSV files while a run goes, at each row of its time series: the two small ones written whole, the
    history appended with the rows not written yet (as Locust appends it), so that a row costs the same at the
    end of a long run as at its start. The end's ``write_csvs`` writes all three whole."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix
        self.written = 0  # rows of the history in the file
        self.total: dict[str, int] = {}  # their latencies added up

    def __call__(self, report: dict[str, Any]) -> None:
        history = report["history"]
        rows, self.total = _history_rows(history[self.written:], self.total)
        with open(f"{self.prefix}_stats_history.csv", "a" if self.written else "w", newline="") as out:
            writer = csv.writer(out)
            if not self.written:
                writer.writerow([*HISTORY_COLUMNS, *HISTORY_EXTRA])
            writer.writerows(rows)
        self.written = len(history)
        for path, (header, whole) in _summary_files(self.prefix, report).items():
            _write_whole(path, header, whole)


def identity(command: str, arguments: list[str]) -> dict[str, str]:
    """Which tool wrote a report and how it was asked: its version, the commit of a checkout it runs from, the
    command line (with any token blanked out)."""
    import subprocess
    from importlib.metadata import PackageNotFoundError, version
    from pathlib import Path

    try:
        release = version("mttsim")
    except PackageNotFoundError:
        release = "unknown"
    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, timeout=5,
                                cwd=Path(__file__).parent).stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        commit = "unknown"
    shown = ["***" if before == "--admin-token" else "--admin-token=***" if argument.startswith("--admin-token=")
             else argument for before, argument in zip(["", *arguments], arguments)]
    return {"version": release, "commit": commit, "command": " ".join(["mttsim", command, *shown])}


def merged_report(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One report of the shards of one run (``mttsim swarm-merge``): counts added, the run's wall time the
    longest shard's, throughput over it, percentiles from the merged histograms (bots/histogram.py), the time
    series merged interval by interval, the failures added up."""
    tournaments = {report["tournament"] for report in reports}
    if len(tournaments) != 1:
        raise ValueError(f"the reports are of different tournaments: {', '.join(sorted(tournaments))}")
    wall = max(report["wall_s"] for report in reports)
    summed = ("players", "actions", "errors", "provoked_errors", "missed_deadlines", "timeouts", "reconnections",
              "failovers", "messages", "bytes", "late_registrations", "late_refused", "reentries", "observers",
              "observer_messages", "lobby_pollers", "lobby_polls")
    merged: dict[str, Any] = {"tournament": tournaments.pop(), "shards": len(reports),
                              "tables": max(report["tables"] for report in reports)}
    for key in summed:
        merged[key] = sum(report.get(key, 0) for report in reports)
    merged["actions_per_s"] = round(merged["actions"] / wall, 1) if wall else 0.0
    codes: Counter[str] = Counter()
    for report in reports:
        codes.update(report.get("error_codes", {}))
    merged["error_codes"] = dict(codes)
    kinds = sorted({kind for report in reports for kind in report["histograms"]})
    histograms = {kind: merge([report["histograms"].get(kind, {}) for report in reports]) for kind in kinds}
    for figure, kind in (("latency_ms", "latency_ms"), ("event_lag_ms", "event_lag_ms")):  # one max everywhere
        merged[figure] = dict(zip(("p50", "p95", "p99", "max"),
                                  percentiles(histograms[kind], (0.5, 0.95, 0.99, 1.0))))
    merged.update(merged_plugins(reports))
    merged["finished"] = all(report["finished"] for report in reports)
    merged["wall_s"] = wall
    merged["swarm_cpu_percent"] = round(sum(report["swarm_cpu_percent"] for report in reports), 1)
    merged["histograms"] = histograms
    failures: Counter[tuple[str, str, str]] = Counter()
    for report in reports:
        for f in report.get("failures", []):
            failures[(f["method"], f["name"], f["error"])] += f["occurrences"]
    merged["failures"] = [{"method": method, "name": name, "error": error, "occurrences": n}
                          for (method, name, error), n in failures.most_common()]
    stops = [report.get("stopped") for report in reports if report.get("stopped")]
    merged["stopped"] = stops[0] if stops else None
    merged["tournament_after"] = reports[0].get("tournament_after", "")
    interval = reports[0].get("interval_s", 5.0)
    merged["interval_s"] = interval
    merged["history"] = merged_history([report.get("history", []) for report in reports], interval)
    return merged


def merged_plugins(reports: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """What the players of the user's own recorded in each shard, added up: checks, tags, their errors."""
    checks: dict[str, dict[str, int]] = {}
    tags: Counter[str] = Counter()
    kinds: Counter[str] = Counter()
    for report in reports:
        for name, counts in report.get("checks", {}).items():
            added = checks.setdefault(name, {"passed": 0, "failed": 0})
            added["passed"] += counts["passed"]
            added["failed"] += counts["failed"]
        tags.update(report.get("tags", {}))
        kinds.update(report.get("plugin_error_kinds", {}))
    return {"plugin_errors": sum(kinds.values()), "plugin_error_kinds": dict(kinds.most_common()),
            "checks": dict(sorted(checks.items())), "checks_failed": sum(c["failed"] for c in checks.values()),
            "tags": dict(tags.most_common())}


def charts(history: Sequence[dict[str, Any]]) -> list[tuple[str, str]]:
    """(title, SVG) of each chart over the run's time: actions/s, latency, event lag, bots connected, players
    left, errors."""
    plt = pages.pyplot()
    long = bool(history) and history[-1]["elapsed_s"] > 180  # minutes on the axis, else seconds
    when = [row["elapsed_s"] / (60 if long else 1) for row in history]
    rows = history_rows(history)
    columns = [*HISTORY_COLUMNS, *HISTORY_EXTRA]

    def column(name: str) -> list[float]:
        """A column to draw: an interval without a sample (N/A) is a gap in its line."""
        at = columns.index(name)
        return [float("nan") if row[at] == NA else float(row[at]) for row in rows]

    series = [
        ("Actions per second", "actions/s", [("actions/s", column("Requests/s"))]),
        ("Latency, act to acted", "ms", [(p, column(p)) for p in ("50%", "95%", "99%")]),
        ("Event lag", "ms", [(p, column(f"Event Lag {p}")) for p in ("50%", "95%", "99%")]),
        ("Bots connected", "bots", [("connected", column("User Count")),
                                    *([("target", column("Target Users"))]
                                      if any(row.get("target") is not None for row in history) else [])]),
        ("Players left", "players", [("left", column("Players Left"))]),
        ("Errors (running total)", "errors",
         [("errors", column("Errors")), ("failures", column("Total Failure Count"))]),
    ]
    scale = 60 if long else 1
    away: list[tuple[float, float]] = []  # the rows the server was away, each run of them one span
    for row in history:
        if row.get("server_away_s"):
            start, end = (row["elapsed_s"] - row["seconds"]) / scale, row["elapsed_s"] / scale
            if away and away[-1][1] >= start - 1e-9:  # the row after one away: the same span, longer
                away[-1] = (away[-1][0], end)
            else:
                away.append((start, end))
    drawn = []
    for chart, (title, unit, lines) in enumerate(series):
        figure, axes = plt.subplots(figsize=(6.4, 2.6))
        for number, (label, values) in enumerate(lines):
            line, = axes.plot(when, values, label=label, linewidth=1.4)
            alone = lone(values)  # a row between gaps (the one after a freeze) is a point a line never draws
            if alone:
                axes.plot([when[k] for k in alone], [values[k] for k in alone], linestyle="none", marker="o",
                          markersize=4, color=line.get_color(), gid=f"lone-{chart}-{number}")
        for number, (start, end) in enumerate(away):  # the rows the server was away, shaded on every chart
            axes.axvspan(start, end, color="#d62728", alpha=0.15, linewidth=0, gid=f"away-{chart}-{number}",
                         label="server away" if number == 0 else None)
        axes.set_title(title)
        axes.set_xlabel("minutes" if long else "seconds")
        axes.set_ylabel(unit)
        axes.grid(alpha=0.3)
        if len(lines) > 1 or away:
            axes.legend(loc="upper left", fontsize=8)
        drawn.append((title, pages.svg(figure)))
    return drawn


def _plugin_section(report: dict[str, Any]) -> str:
    """Players of the user's own: their checks by name, their actions by tag, their own errors (none: nothing)."""
    checks, tags, kinds = report.get("checks", {}), report.get("tags", {}), report.get("plugin_error_kinds", {})
    if not (checks or tags or kinds):
        return ""
    return ("<h2>Players of your own</h2>"
            + pages.table(["Check", "Passed", "Failed"], [[name, c["passed"], c["failed"]] for name, c in
                                                          checks.items()], "checks")
            + pages.table(["Tag", "Actions"], [[tag, n] for tag, n in tags.items()], "tags")
            + pages.table(["Plug-in error", "Occurrences"], [[kind, n] for kind, n in kinds.items()],
                          "plugin-errors"))


def lone(values: Sequence[float]) -> list[int]:
    """The indexes of the figures with no figure on either side (a gap, or the run's edge)."""
    def missing(k: int) -> bool:
        return k < 0 or k >= len(values) or math.isnan(values[k])
    return [k for k in range(len(values)) if not missing(k) and missing(k - 1) and missing(k + 1)]


def _figure(check: dict[str, Any]) -> str:
    """A threshold's figure with its unit (ms, per action)."""
    return f"{check['actual']} {check.get('unit', '')}".strip()


def _identity_line(report: dict[str, Any]) -> str:
    run = report.get("run", {})
    return (f"mttsim {run.get('version', 'unknown')} (commit {run.get('commit', 'unknown')}), started "
            f"{report.get('started_at', 'unknown')}: {run.get('command', '')}")


def write_html(path: str, report: dict[str, Any], settings: dict[str, Any]) -> None:
    """One file: the summary with the thresholds, the charts over time, the requests by kind, the failures
    and the run's settings."""
    latency, lag = report["latency_ms"], report["event_lag_ms"]
    summary = [("Tournament", report["tournament"]), ("Bots", report["players"]),
               ("Actions", f"{report['actions']:,} ({report['actions_per_s']:,}/s)"),
               ("Latency p50 / p95 / p99 / max", f"{latency['p50']} / {latency['p95']} / {latency['p99']} / "
                                                 f"{latency['max']} ms"),
               ("Event lag p50 / p99", f"{lag['p50']} / {lag['p99']} ms"),
               ("Errors", report["errors"]), ("Missed deadlines", report["missed_deadlines"]),
               ("Reconnections", report["reconnections"]), ("Finished", "yes" if report["finished"] else "no"),
               ("Server away", f"{report.get('server_away', {}).get('seconds', 0)} s in all, "
                               f"{report.get('server_away', {}).get('times', 0)} times"),
               ("Stopped", report.get("stopped") or "at the end"),
               ("The tournament after the run", report.get("tournament_after", "")),
               ("Wall time", f"{report['wall_s']} s"), ("Swarm CPU", f"{report['swarm_cpu_percent']}%"),
               *([("Workers", ", ".join(f"{w['name']} ({w['players']} bots{', LOST' if w['lost'] else ''})"
                                        for w in report["workers"]))] if report.get("workers") else [])]
    checks = report.get("thresholds", [])
    verdict = thresholds.verdict(report)[1]
    figures = pages.figures(charts(report["history"]))
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mttsim swarm: {html.escape(report["tournament"])}</title>
<style>{pages.STYLE}</style></head><body>
<h1>mttsim swarm report</h1>
<p>Written {html.escape(time.strftime("%Y-%m-%d %H:%M:%S"))}: <b id="verdict">{verdict}</b>.</p>
<p id="identity">{html.escape(_identity_line(report))}</p>
<h2>Summary</h2>{pages.table(["", ""], summary, "summary")}
<h2>Thresholds</h2>
<table class="thresholds"><thead><tr><th>Threshold</th><th>Figure</th><th>Result</th></tr></thead><tbody>
{"".join(f'<tr class="{"passed" if c["passed"] else "failed"}"><td>{html.escape(c["threshold"])}</td>'
         f'<td>{html.escape(_figure(c))}</td><td>{"passed" if c["passed"] else "failed"}</td></tr>'
         for c in checks)}
</tbody></table>
<h2>Over time</h2><div class="charts">{figures}</div>
<h2>Requests by kind</h2>{pages.table(STATS_COLUMNS, stats_rows(report), "kinds")}
<h2>Failures</h2>{pages.table(FAILURES_COLUMNS, [[f["method"], f["name"], f["error"], f["occurrences"]]
                                            for f in report.get("failures", [])], "failures")}
{_plugin_section(report)}<h2>Settings</h2>{pages.table(["Setting", "Value"], sorted(settings.items()), "settings")}
</body></html>
"""
    with open(path, "w") as out:
        out.write(page)
