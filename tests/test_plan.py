"""A running tournament's plan (server/tournament/plan.py): where the field stands on it, and the end it projects."""

from __future__ import annotations

import math

import pytest

from server.tournament.plan import Plan, projected, time_of_field

POINTS = [(0.0, 1000.0), (3600.0, 500.0), (7200.0, 125.0), (18000.0, 1.0)]


def test_the_field_is_found_on_the_plan_by_the_logarithm_of_its_size():
    assert time_of_field(POINTS, 2000) == 0.0  # a field larger than the plan's start: at its start
    assert time_of_field(POINTS, 1000) == 0.0
    assert time_of_field(POINTS, 500) == 3600.0
    assert time_of_field(POINTS, 250) == pytest.approx(3600 + 3600 * math.log(2) / math.log(4))
    assert time_of_field(POINTS, 1) == 18000.0


def test_a_field_ahead_of_its_plan_is_projected_to_end_sooner_and_one_behind_later():
    plan = Plan(POINTS, 3)
    on_time = projected(plan, 3600.0, 500, wall=1_000_000.0)
    assert on_time.projected_end == 18000.0 and on_time.players == POINTS
    assert on_time.projected_end_at == round((1_000_000 + 14400) / 60) * 60
    ahead = projected(plan, 3600.0, 125, wall=1_000_000.0)  # the field of 2 h, at 1 h
    behind = projected(plan, 7200.0, 500, wall=1_000_000.0)  # the field of 1 h, at 2 h
    assert ahead.projected_end == 3600.0 + 10800.0 < on_time.projected_end < behind.projected_end == 7200 + 14400
    assert projected(plan, 20000.0, 1, wall=0.0).projected_end == 20000.0  # over: nothing left
