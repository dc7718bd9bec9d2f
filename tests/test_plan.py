"""A running tournament's plan (server/tournament/plan.py): where the field stands on it, and the end it projects."""

from __future__ import annotations

import math

import pytest

from bots.lab import Run, field_over_time
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
    assert on_time.projected_end == 18000.0 and on_time.players == POINTS and on_time.ahead == 0
    assert on_time.projected_end_at == round((1_000_000 + 14400) / 60) * 60
    # The field of 2 h at 1 h: an hour ahead, a fifth of the way through the plan's 5 h, moves the end 12 minutes
    ahead = projected(plan, 3600.0, 125, wall=1_000_000.0)
    assert ahead.projected_end == pytest.approx(18000.0 - 3600 / 5) and ahead.ahead == pytest.approx(720)
    behind = projected(plan, 7200.0, 500, wall=1_000_000.0)  # the field of 1 h at 2 h: 2/5 of an hour behind
    assert behind.projected_end == pytest.approx(18000.0 + 3600 * 2 / 5) and behind.ahead == pytest.approx(-1440)
    assert ahead.projected_end < on_time.projected_end < behind.projected_end
    late = projected(plan, 18000.0, 125, wall=0.0)  # at the plan's end the field is read as it stands
    assert late.projected_end == pytest.approx(18000.0 + 10800)
    assert projected(plan, 20000.0, 1, wall=0.0).projected_end == 20000.0  # over: nothing left


def test_the_first_busts_barely_move_the_projection():
    """A hundred players whose field falls geometrically over 5 h: one bust two minutes in stands the field
    where the plan has it a quarter of an hour in; the projected end moves by seconds, not the 11-21 minutes a
    projection read from the field alone swung."""
    plan = Plan([(t * 60.0, 100 * 0.01 ** (t / 300)) for t in range(0, 301, 5)], 8)
    first = projected(plan, 120.0, 99, wall=0.0)
    alone = 120.0 + 18000.0 - time_of_field(plan.players, 99)  # where the field alone would put it
    assert abs(alone - 18000.0) > 60  # the swing there was
    assert abs(first.projected_end - 18000.0) < 5


def run_of(hours: float, curve: list[tuple[float, int]]) -> Run:
    return Run(seed=1, players=curve[0][1], hours=hours, hands=0, bubble_h=None, hand_for_hand_h=None,
               final_table_h=None, levels=[], players_left=curve, prizes_cents=[], bubble_stacks_bb=[])


def test_the_plans_field_is_sampled_by_time_with_the_runs_spread():
    """Three runs of ten players: the field holds from one bust to the next, a run over counts its winner, and the
    plan ends at the median length with one player."""
    runs = [run_of(1.0, [(0.0, 10), (0.25, 8), (0.5, 4), (1.0, 1)]),
            run_of(2.0, [(0.0, 10), (0.5, 9), (1.5, 3), (2.0, 1)]),
            run_of(4.0, [(0.0, 10), (1.0, 6), (3.0, 2), (4.0, 1)])]
    field = field_over_time(runs, samples=8)  # every quarter of an hour to the median's 2 h
    assert [at for at, *_ in field] == [900.0 * step for step in range(9)]
    medians = {at: median for at, _, median, _ in field}
    assert medians[0.0] == 10 and medians[1800.0] == 9  # 4, 9 and 10 at 0:30 (a step holds until the next)
    assert medians[3600.0] == 6  # 1 (over), 9 and 6
    assert field[-1][2] == 1.0 and field[-1][1] == 1.0  # the plan's end: one player
    low, high = field[4][1], field[4][3]  # at 1 h: the fields 1, 9 and 6
    assert low == pytest.approx(1 + 0.2 * 5) and high == pytest.approx(6 + 0.8 * 3)
    assert all(a[2] >= b[2] for a, b in zip(field, field[1:]))  # a median field never grows
