"""Pass/fail thresholds on a swarm's report, in k6's spirit: ``latency.p99<100ms``, ``errors==0``, ``finished``.

A threshold is a metric, a comparison and a number (milliseconds for the latency and lag percentiles, where
``ms`` or ``s`` may follow), or the bare name of a yes/no metric (``finished``). The swarm checks each against
its report, lists each as passed or failed, and exits with ``THRESHOLD_FAILED`` when one fails, so that a
pipeline can stop on it (docs/swarm.md).
"""

from __future__ import annotations

import operator
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from bots.histogram import merge, percentiles

OK = 0
USAGE = 2  # argparse's own code for a command line it refuses
COULD_NOT_RUN = 3  # no server to play against, or it refused the tournament: nothing was measured
SERVER_LOST = 4  # the server went away mid-run and was not back by the end: the report holds what was measured
THRESHOLD_FAILED = 99  # k6's code for a threshold that failed
CUT_SHORT = 105  # k6's code for a run aborted from outside (Ctrl-C, SIGTERM): the report holds what was measured

# Timed metrics: the report's histogram of each (milliseconds), read at any percentile (``p99.9``) or its max.
_HISTOGRAMS = {"latency": "latency_ms", "event_lag": "event_lag_ms", "connect": "connect_ms",
               "reconnect": "reconnect_ms", "register": "register_ms", "snapshot": "snapshot_ms",
               "watch": "watch_lag_ms", "lobby": "lobby_ms"}  # the observers' event lag, the lobby's answers
_PERCENTILE = re.compile(r"^(?:p(\d{1,2}(?:\.\d+)?)|max)$")
_COUNTS = ("errors", "missed_deadlines", "timeouts", "reconnections", "failovers", "actions", "actions_per_s",
           "swarm_cpu_percent", "wall_s", "workers_lost", "plugin_errors", "checks_failed")
# The server's absences as the bots saw them (seconds in all, the longest, how many times)
_AWAY = ("server_away.seconds", "server_away.longest", "server_away.times")
# What a window of the time series (``over 5s``) can read: the rows' histograms, throughput and absences
_WINDOWED = ("latency", "event_lag", "actions_per_s", "server_away.seconds")
_RATES = ("errors", "missed_deadlines", "timeouts", "reconnections", "failovers")  # NAME.rate: per action
_FLAGS = ("finished",)
METRICS = (*(f"{name}.pN" for name in _HISTOGRAMS), *_COUNTS, *_AWAY, *(f"{name}.rate" for name in _RATES),
           *_FLAGS)
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt}
_FORM = re.compile(r"^\s*([a-z_][a-z0-9_.]*?)\s*(?:over\s+([0-9]+(?:\.[0-9]+)?)\s*s\s*)?"
                   r"(?:(<=|>=|==|!=|<|>)\s*(-?[0-9]+(?:\.[0-9]+)?)\s*(ms|s)?)?"
                   r"\s*(?:(:)\s*abort(?:\s*after\s*([0-9]+(?:\.[0-9]+)?)\s*s)?)?\s*$")


def defaults(*, stopping: bool, coordinated: bool = False) -> tuple[str, ...]:
    """What a user expects without thresholds of their own: no error, a tournament played to its end unless the
    run is to stop at a time (then it cannot finish), and in a run over many machines, no worker lost (its
    bots' seats then play on the clock: the load asked for was not sent)."""
    return ("errors==0", *(() if stopping else ("finished",)), *(("workers_lost==0",) if coordinated else ()))


@dataclass(frozen=True)
class Threshold:
    text: str
    metric: str
    compare: str | None  # None: a yes/no metric, which must be true
    value: float
    abort: float | None = None  # with ``:abort``: the run stops when it fails, after this many seconds of play
    window: float | None = None  # with ``over Ns``: the worst of every window of N seconds of the time series


def _kind(metric: str) -> str:
    """What ``metric`` is: a percentile of a histogram, a rate, a count or a yes/no; ValueError if none."""
    name, _, part = metric.partition(".")
    if name in _HISTOGRAMS and _PERCENTILE.match(part):
        return "time"
    if name in _RATES and part == "rate":
        return "rate"
    if metric in _COUNTS or metric in _AWAY:
        return "count"
    if metric in _FLAGS:
        return "flag"
    raise ValueError(f"no metric {metric!r}: a percentile of {', '.join(_HISTOGRAMS)} (latency.p99, "
                     f"connect.p99.9, register.max), a rate ({', '.join(f'{r}.rate' for r in _RATES)}), a count "
                     f"({', '.join(_COUNTS)}) or {', '.join(_FLAGS)}")


def parse(text: str) -> Threshold:
    """The threshold ``text`` says; ValueError naming what is wrong and what is allowed. As k6 writes them: any
    percentile (``latency.p99.9<250ms``), a rate per action (``errors.rate<0.001``), a kind of request
    (``connect.p95<500ms``), and ``:abort`` (``:abort after 10s``) to stop the run when it fails."""
    form = _FORM.match(text)
    if form is None:
        raise ValueError(f"threshold {text!r}: write METRIC OP NUMBER (latency.p99<100ms), a yes/no metric "
                         f"(finished), and :abort or ':abort after 10s' to stop the run when it fails")
    metric, window, compare, number, unit, aborting, after = form.groups()
    try:
        kind = _kind(metric)
    except ValueError as error:
        raise ValueError(f"threshold {text!r}: {error}") from None
    if window is not None and metric.partition(".")[0] not in _WINDOWED and metric not in _WINDOWED:
        raise ValueError(f"threshold {text!r}: a window (over 5s) reads the time series, which has "
                         f"{', '.join(_WINDOWED)}")
    if window is not None and float(window) <= 0:
        raise ValueError(f"threshold {text!r}: a window of more than 0 seconds")
    abort = (float(after) if after else 0.0) if aborting else None
    if kind == "flag":
        if compare is not None:
            raise ValueError(f"threshold {text!r}: {metric} is yes or no: write it alone")
        if abort is not None:
            raise ValueError(f"threshold {text!r}: {metric} is known at the end: it cannot stop the run")
        return Threshold(text.strip(), metric, None, 1.0, abort)
    if compare is None:
        raise ValueError(f"threshold {text!r}: {metric} needs a comparison and a number ({metric}<=5)")
    if unit is not None and kind != "time":
        raise ValueError(f"threshold {text!r}: {metric} is a {kind}, without a unit")
    return Threshold(text.strip(), metric, compare, float(number) * (1000.0 if unit == "s" else 1.0), abort,
                     float(window) if window is not None else None)


def actual(threshold: Threshold, report: dict[str, Any]) -> float | bool:
    """The report's figure for ``threshold``: milliseconds read from the histogram, a rate per action, a count,
    or yes/no."""
    kind = _kind(threshold.metric)
    name, _, part = threshold.metric.partition(".")
    if threshold.window is not None:
        return _worst_window(threshold, report.get("history") or [])
    if name == "server_away":
        away: float = report.get("server_away", {}).get(part, 0)
        return away
    if name == "workers_lost":
        return len(report.get("workers_lost", []))
    if kind == "time":
        fraction = 1.0 if part == "max" else float(part[1:]) / 100
        return float(percentiles(report["histograms"].get(_HISTOGRAMS[name], {}), (fraction,))[0])
    if kind == "rate":
        return round(report[name] / report["actions"], 6) if report["actions"] else 0.0
    if kind == "flag":
        return bool(report[threshold.metric])
    value: float = report.get(threshold.metric, 0)  # a count stays a whole number in the report
    return value


def _worst_window(threshold: Threshold, history: list[dict[str, Any]]) -> float:
    """The worst figure of every window of ``threshold.window`` seconds ending at a row of the time series (the
    highest for an upper bound, the lowest for a lower one): a freeze of seconds, lost in a whole run's p99,
    fails the window it falls in."""
    assert threshold.window is not None
    name, _, part = threshold.metric.partition(".")
    figures: list[float] = []
    for end, last in enumerate(history):
        rows = [row for row in history[:end + 1] if row["at"] > last["at"] - threshold.window + 1e-6]
        if name == "actions_per_s":
            figures.append(sum(row["actions"] for row in rows) / (sum(row["seconds"] for row in rows) or 1))
        elif name == "server_away":
            figures.append(sum(row.get("server_away_s", 0.0) for row in rows))
        else:
            counts = merge([row[_HISTOGRAMS[name]] for row in rows])
            if counts:  # a window with no sample has no percentile
                figures.append(float(percentiles(counts, (1.0 if part == "max" else float(part[1:]) / 100,))[0]))
    if not figures:
        return 0.0
    return round(min(figures) if threshold.compare in (">", ">=") else max(figures), 3)


def unit_of(threshold: Threshold) -> str:
    """The unit a figure is in, for the reports: ms for a time, per action for a rate."""
    kind = _kind(threshold.metric)
    if threshold.metric in ("server_away.seconds", "server_away.longest"):
        return " s"
    return " ms" if kind == "time" else " per action" if kind == "rate" else ""


def failing(thresholds: list[Threshold], report: dict[str, Any], played: float) -> Threshold | None:
    """The first ``:abort`` threshold that fails on the report so far, once its grace (``after``) has passed."""
    for threshold in thresholds:
        if threshold.abort is not None and played >= threshold.abort and threshold.compare is not None:
            if not _COMPARE[threshold.compare](actual(threshold, report), threshold.value):
                return threshold
    return None


def check(thresholds: list[Threshold], report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each threshold with the report's figure and whether it passed, in the order given."""
    checked = []
    for threshold in thresholds:
        value = actual(threshold, report)
        passed = bool(value) if threshold.compare is None else _COMPARE[threshold.compare](value, threshold.value)
        checked.append({"threshold": threshold.text, "actual": value, "unit": unit_of(threshold).strip(),
                        "passed": passed})
    return checked


ANSWERED = "the server answered throughout"
AWAY_LIMIT_SECONDS = 5.0  # longer away in all than this and the run fails, whatever its thresholds (--away-limit)


def answered(report: dict[str, Any], limit: float = AWAY_LIMIT_SECONDS) -> dict[str, Any]:
    """The check every run makes beside its thresholds: the server was away (a restart, a crash, a freeze the
    swarm's poll outlasted) no longer than ``limit`` seconds in all, and was there at the end. A run that
    could not start never heard it."""
    away = report.get("server_away", {})
    passed = not report.get("could_not_run") and not away.get("at_the_end") and away.get("seconds", 0) <= limit
    return {"threshold": ANSWERED, "actual": away.get("seconds", 0), "unit": "s away", "passed": passed,
            "limit": limit, "times": away.get("times", 0)}


def verdict(report: dict[str, Any]) -> tuple[int, str]:
    """The run's exit code and what it means, the one word for the command's code and for every report: could
    not run, cut short by a signal, the server gone at the end, a threshold failed, or passed."""
    if report.get("could_not_run"):
        return COULD_NOT_RUN, str(report["could_not_run"])
    if report.get("stopped") == "signal":
        return CUT_SHORT, "cut short by a signal: the figures are what was measured until then"
    if report.get("stopped") == "aborted":
        return THRESHOLD_FAILED, f"a threshold failed, and the run was stopped for it: {report.get('aborted_by')}"
    if report.get("server_away", {}).get("at_the_end"):
        return SERVER_LOST, "the server went away and was not back by the end"
    checks = report.get("thresholds", [])
    failed = [check["threshold"] for check in checks if not check["passed"]]
    if ANSWERED in failed:
        return THRESHOLD_FAILED, (f"the server was away {report['server_away']['seconds']} s in all, more than "
                                  f"the {next(c['limit'] for c in checks if c['threshold'] == ANSWERED)} s allowed")
    if failed:
        return THRESHOLD_FAILED, f"a threshold failed: {', '.join(failed)}"
    return OK, "all thresholds passed" if checks else "no thresholds"


def junit(report: dict[str, Any], name: str = "mttsim swarm") -> str:
    """The thresholds as a JUnit XML test suite, one test case each (with "the server answered throughout"),
    a failed one carrying its own figure, for a pipeline's test report; written for every exit code."""
    from xml.etree.ElementTree import Element, SubElement, tostring

    checks = report.get("thresholds", [])
    suite = Element("testsuite", name=name, tests=str(len(checks)),
                    failures=str(sum(not check["passed"] for check in checks)), time=str(report.get("wall_s", 0)))
    for check in checks:
        case = SubElement(suite, "testcase", classname=name, name=check["threshold"])
        if not check["passed"]:
            figure = f"{check['threshold']}: the run's figure was {check['actual']}" + (
                f" {check['unit']}" if check.get("unit") else "")
            failure = SubElement(case, "failure", message=figure)
            failure.text = figure if check["threshold"] != ANSWERED or not report.get("could_not_run") else \
                f"{figure}: {report['could_not_run']}"
    return tostring(suite, encoding="unicode", xml_declaration=True)
