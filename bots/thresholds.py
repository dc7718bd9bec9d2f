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

from bots.histogram import percentiles

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
           "swarm_cpu_percent", "wall_s")
_RATES = ("errors", "missed_deadlines", "timeouts", "reconnections", "failovers")  # NAME.rate: per action
_FLAGS = ("finished",)
METRICS = (*(f"{name}.pN" for name in _HISTOGRAMS), *_COUNTS, *(f"{name}.rate" for name in _RATES), *_FLAGS)
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt}
_FORM = re.compile(r"^\s*([a-z_][a-z0-9_.]*?)\s*(?:(<=|>=|==|!=|<|>)\s*(-?[0-9]+(?:\.[0-9]+)?)\s*(ms|s)?)?"
                   r"\s*(?:(:)\s*abort(?:\s*after\s*([0-9]+(?:\.[0-9]+)?)\s*s)?)?\s*$")


def defaults(*, stopping: bool) -> tuple[str, ...]:
    """What a user expects without thresholds of their own: no error, and a tournament played to its end, unless
    the run is to stop at a time (then it cannot finish)."""
    return ("errors==0",) if stopping else ("errors==0", "finished")


@dataclass(frozen=True)
class Threshold:
    text: str
    metric: str
    compare: str | None  # None: a yes/no metric, which must be true
    value: float
    abort: float | None = None  # with ``:abort``: the run stops when it fails, after this many seconds of play


def _kind(metric: str) -> str:
    """What ``metric`` is: a percentile of a histogram, a rate, a count or a yes/no; ValueError if none."""
    name, _, part = metric.partition(".")
    if name in _HISTOGRAMS and _PERCENTILE.match(part):
        return "time"
    if name in _RATES and part == "rate":
        return "rate"
    if metric in _COUNTS:
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
    metric, compare, number, unit, aborting, after = form.groups()
    try:
        kind = _kind(metric)
    except ValueError as error:
        raise ValueError(f"threshold {text!r}: {error}") from None
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
    return Threshold(text.strip(), metric, compare, float(number) * (1000.0 if unit == "s" else 1.0), abort)


def actual(threshold: Threshold, report: dict[str, Any]) -> float | bool:
    """The report's figure for ``threshold``: milliseconds read from the histogram, a rate per action, a count,
    or yes/no."""
    kind = _kind(threshold.metric)
    name, _, part = threshold.metric.partition(".")
    if kind == "time":
        fraction = 1.0 if part == "max" else float(part[1:]) / 100
        return float(percentiles(report["histograms"].get(_HISTOGRAMS[name], {}), (fraction,))[0])
    if kind == "rate":
        return round(report[name] / report["actions"], 6) if report["actions"] else 0.0
    if kind == "flag":
        return bool(report[threshold.metric])
    value: float = report[threshold.metric]  # a count stays a whole number in the report
    return value


def unit_of(threshold: Threshold) -> str:
    """The unit a figure is in, for the reports: ms for a time, per action for a rate."""
    kind = _kind(threshold.metric)
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


def verdict(report: dict[str, Any]) -> tuple[int, str]:
    """The run's exit code and what it means, the one word for the command's code and for every report: cut
    short by a signal, the server gone at the end, a threshold failed, or passed."""
    if report.get("stopped") == "signal":
        return CUT_SHORT, "cut short by a signal: the figures are what was measured until then"
    if report.get("stopped") == "aborted":
        return THRESHOLD_FAILED, f"a threshold failed, and the run was stopped for it: {report.get('aborted_by')}"
    if report.get("server_away", {}).get("at_the_end"):
        return SERVER_LOST, "the server went away and was not back by the end"
    checks = report.get("thresholds", [])
    if not all(check["passed"] for check in checks):
        return THRESHOLD_FAILED, "a threshold failed"
    return OK, "all thresholds passed" if checks else "no thresholds"


def junit(report: dict[str, Any], name: str = "mttsim swarm") -> str:
    """The thresholds as a JUnit XML test suite, one test case each, for a pipeline's test report."""
    from xml.etree.ElementTree import Element, SubElement, tostring

    checks = report.get("thresholds", [])
    suite = Element("testsuite", name=name, tests=str(len(checks)),
                    failures=str(sum(not check["passed"] for check in checks)), time=str(report.get("wall_s", 0)))
    for check in checks:
        case = SubElement(suite, "testcase", classname=name, name=check["threshold"])
        if not check["passed"]:
            failure = SubElement(case, "failure",
                                 message=f"{check['threshold']}: the run's figure was {check['actual']}")
            failure.text = verdict(report)[1]
    return tostring(suite, encoding="unicode", xml_declaration=True)
