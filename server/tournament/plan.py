"""A running tournament's plan: the field its structure's quick simulations expect over time, with their spread, and
from it the projected end (the clock screen's projected finish, the Players tab's plan line and band).

The plan is the lab's runs (bots.lab.lab) for the field that started, made once after the start in other processes
(server/api/process.py) and sampled by time (bots.lab.field_over_time), so that its line bends where the runs' fields
fell, not only at the levels' starts. The projection reads where the field now stands on it: a tournament ahead of
its plan (fewer players left than the plan has now) is projected to end sooner, one behind it later. Early busts
say little of the pace (one bust of a hundred players moves where the field stands on a flat curve by many minutes),
so the lead moves the projected end only in the measure that the plan's time has gone by: a quarter of the lead a
quarter of the way through, all of it at the end.
"""

from __future__ import annotations

import math

import msgspec


class Plan(msgspec.Struct):
    """``players``: [tournament seconds, the runs' median field then], sampled by time and ending with the runs'
    median length and one player; ``spread``: [p10, p90] of the runs' fields at the same times; ``average_bb``:
    [level, the runs' median average stack in big blinds as it began] for the levels most runs reached.
    ``projected_end`` (tournament seconds), ``projected_end_at`` (seconds since the epoch, to the minute) and
    ``ahead`` (seconds the projected end is before the plan's; negative: behind) once the tournament runs; None
    before and after."""

    players: list[tuple[float, float]]
    runs: int
    spread: list[tuple[float, float]] = []
    average_bb: list[tuple[int, float]] = []
    projected_end: float | None = None
    projected_end_at: float | None = None
    ahead: float | None = None


def projected(plan: Plan, now: float, players_left: int, wall: float) -> Plan:
    """The plan with its projection from ``now`` (tournament seconds), ``players_left`` and the wall clock."""
    end = plan.players[-1][0]
    lead = time_of_field(plan.players, players_left) - now  # how far ahead the field stands, by the plan's clock
    trust = min(1.0, now / end) if end > 0 else 1.0
    left = max(0.0, end - now - trust * lead)
    return msgspec.structs.replace(plan, projected_end=now + left, projected_end_at=round((wall + left) / 60) * 60,
                                   ahead=end - (now + left))


def time_of_field(points: list[tuple[float, float]], players: int) -> float:
    """When the plan's field was ``players`` (interpolated on the logarithm of the field, which falls about
    geometrically); its start for a larger field, its end for one player."""
    if players >= points[0][1]:
        return points[0][0]
    for (t0, p0), (t1, p1) in zip(points, points[1:]):
        if p0 >= players >= p1:
            if p0 == p1:
                return t0
            share = (math.log(p0) - math.log(players)) / (math.log(p0) - math.log(p1))
            return t0 + share * (t1 - t0)
    return points[-1][0]
