"""The shape of a swarm's load over time: how many bots play connected at each moment of the run.

As k6's ramping stages have it, a run is a list of stages, each a duration and the number of bots to reach
by its end, climbing or falling in a straight line from the stage before (the first from none):
``30s:100,2m:1000,30s:0``. Locust's spawn rate is the one-stage case: every bot, at so many a second.

A tournament's players are registered whatever the shape: the shape says which of them are at the table
over their websocket. A bot the shape leaves out is away, as a player who closed the tab: the clock acts
for its seat (checked, else folded) until the shape brings it back, when it reconnects with its token and
plays on from the snapshot. The swarm's history has the target beside the bots connected.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

_DURATION = re.compile(r"^\s*([0-9]+(?:\.[0-9]+)?)\s*(ms|s|m|h)?\s*$")
_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0, None: 1.0}


@dataclass(frozen=True)
class Stage:
    seconds: float
    target: int  # bots connected at the stage's end (over the whole run, every shard together)


def seconds_of(text: str) -> float:
    """``90``, ``90s``, ``1.5m``, ``2h``: seconds; ValueError otherwise."""
    form = _DURATION.match(text)
    if form is None:
        raise ValueError(f"{text!r} is not a duration: write 30s, 2m, 1h or a number of seconds")
    return float(form.group(1)) * _SECONDS[form.group(2)]


def parse_stages(text: str) -> list[Stage]:
    """``30s:100,2m:1000,30s:0``, or the path of a JSON file of k6's stages (``[{"duration": "30s", "target":
    100}, ...]``); ValueError naming what is wrong."""
    path = Path(text)
    if text.endswith(".json") or path.is_file():
        try:
            listed = json.loads(path.read_text())
            pairs = [(str(stage["duration"]), str(stage["target"])) for stage in listed]
        except (OSError, ValueError, TypeError, KeyError) as error:
            raise ValueError(f"--stages {text}: a JSON list of {{\"duration\": \"30s\", \"target\": 100}} "
                             f"({error})") from error
    else:
        pairs = [(duration, target) for duration, _, target in (part.partition(":") for part in text.split(","))]
    stages = []
    for duration, target in pairs:
        if not target.strip().isdigit():
            raise ValueError(f"--stages: {duration}:{target} is not DURATION:BOTS (30s:100)")
        seconds = seconds_of(duration)
        if seconds <= 0:
            raise ValueError(f"--stages: a stage of {duration} lasts no time")
        stages.append(Stage(seconds, int(target)))
    if not stages:
        raise ValueError("--stages: no stage")
    return stages


def spawning(players: int, rate: float) -> list[Stage]:
    """Locust's spawn rate as a stage: every bot connected at ``rate`` a second."""
    if rate <= 0:
        raise ValueError("--spawn-rate: bots a second, above 0")
    return [Stage(players / rate, players)]


def target_at(stages: list[Stage], elapsed: float) -> float:
    """The bots the shape wants connected ``elapsed`` seconds into play: on the line between a stage's start
    and its target, the last target once the stages are over."""
    before = 0.0
    for stage in stages:
        if elapsed < stage.seconds:
            return before + (stage.target - before) * elapsed / stage.seconds
        elapsed -= stage.seconds
        before = stage.target
    return before


def total_seconds(stages: list[Stage]) -> float:
    return sum(stage.seconds for stage in stages)
