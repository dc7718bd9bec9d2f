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

OK = 0
USAGE = 2  # argparse's own code for a command line it refuses
COULD_NOT_RUN = 3  # no server to play against, or it refused the tournament: nothing was measured
SERVER_LOST = 4  # the server went away mid-run and was not back by the end: the report holds what was measured
THRESHOLD_FAILED = 99  # k6's code for a threshold that failed
CUT_SHORT = 105  # k6's code for a run aborted from outside (Ctrl-C, SIGTERM): the report holds what was measured

_TIMES = {f"{name}.{p}": (key, p) for name, key in (("latency", "latency_ms"), ("event_lag", "event_lag_ms"))
          for p in ("p50", "p95", "p99", "max")}
_COUNTS = ("errors", "missed_deadlines", "timeouts", "reconnections", "failovers", "actions", "actions_per_s",
           "swarm_cpu_percent", "wall_s")
_FLAGS = ("finished",)
METRICS = (*_TIMES, *_COUNTS, *_FLAGS)
_COMPARE: dict[str, Callable[[float, float], bool]] = {
    "<=": operator.le, ">=": operator.ge, "==": operator.eq, "!=": operator.ne, "<": operator.lt, ">": operator.gt}
_FORM = re.compile(r"^\s*([a-z_][a-z0-9_.]*)\s*(?:(<=|>=|==|!=|<|>)\s*(-?[0-9]+(?:\.[0-9]+)?)\s*(ms|s)?)?\s*$")


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


def parse(text: str) -> Threshold:
    """The threshold ``text`` says; ValueError naming what is wrong and what is allowed."""
    form = _FORM.match(text)
    if form is None:
        raise ValueError(f"threshold {text!r}: write METRIC OP NUMBER (latency.p99<100ms) or a yes/no metric "
                         f"(finished)")
    metric, compare, number, unit = form.groups()
    if metric not in METRICS:
        raise ValueError(f"threshold {text!r}: no metric {metric!r}; one of {', '.join(METRICS)}")
    if metric in _FLAGS:
        if compare is not None:
            raise ValueError(f"threshold {text!r}: {metric} is yes or no: write it alone")
        return Threshold(text.strip(), metric, None, 1.0)
    if compare is None:
        raise ValueError(f"threshold {text!r}: {metric} needs a comparison and a number ({metric}<=5)")
    if unit is not None and metric not in _TIMES:
        raise ValueError(f"threshold {text!r}: {metric} is a count, without a unit")
    return Threshold(text.strip(), metric, compare, float(number) * (1000.0 if unit == "s" else 1.0))


def actual(threshold: Threshold, report: dict[str, Any]) -> float | bool:
    if threshold.metric in _TIMES:
        key, percentile = _TIMES[threshold.metric]
        return float(report[key][percentile])
    if threshold.metric in _FLAGS:
        return bool(report[threshold.metric])
    value: float = report[threshold.metric]  # a count stays a whole number in the report
    return value


def check(thresholds: list[Threshold], report: dict[str, Any]) -> list[dict[str, Any]]:
    """Each threshold with the report's figure and whether it passed, in the order given."""
    checked = []
    for threshold in thresholds:
        value = actual(threshold, report)
        passed = bool(value) if threshold.compare is None else _COMPARE[threshold.compare](value, threshold.value)
        checked.append({"threshold": threshold.text, "actual": value, "passed": passed})
    return checked


def verdict(report: dict[str, Any]) -> tuple[int, str]:
    """The run's exit code and what it means, the one word for the command's code and for every report: cut
    short by a signal, the server gone at the end, a threshold failed, or passed."""
    if report.get("stopped") == "signal":
        return CUT_SHORT, "cut short by a signal: the figures are what was measured until then"
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
