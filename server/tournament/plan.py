"""A running tournament's plan: the field its structure's quick simulations expect over time, and from it the
projected end (the clock screen's projected finish, the Players tab's plan line).

The plan is the lab's estimate (bots.lab.estimate) for the field that started, made once after the start in other
processes (server/api/process.py); the projection reads where the field now stands on it. A tournament ahead of its
plan (fewer players left than the plan has now) is projected to end sooner, one behind it later: the time left is
the plan's from the point where its field was the field now, as a director reading the plan would say.
"""

from __future__ import annotations

import math

import msgspec


class Plan(msgspec.Struct):
    """``players``: [tournament seconds, the median field then] at each level's start the runs reached, ending with
    the runs' median length and one player. ``projected_end`` (tournament seconds) and ``projected_end_at``
    (seconds since the epoch, to the minute) once the tournament runs; None before and after."""

    players: list[tuple[float, float]]
    runs: int
    projected_end: float | None = None
    projected_end_at: float | None = None


def projected(plan: Plan, now: float, players_left: int, wall: float) -> Plan:
    """The plan with its projection from ``now`` (tournament seconds), ``players_left`` and the wall clock."""
    at = time_of_field(plan.players, players_left)
    left = max(0.0, plan.players[-1][0] - at)
    return msgspec.structs.replace(plan, projected_end=now + left, projected_end_at=round((wall + left) / 60) * 60)


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
