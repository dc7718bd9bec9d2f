"""Bots that play like people. The project's count of real-play statistics (bots/playstats.py), checked
by hand on a small fixed file, and the default mix held to the tolerances of ../shared/data/real-play-stats.json."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bots.playstats import Counts, hands_of, sample_hands
from bots.strategies import DEFAULT_MIX
from server.cli import main

FIXTURE = Path(__file__).resolve().parent / "fixtures" / "stats.phhs"
# Six-handed, the targets and tolerances: VPIP 26 +/- 4%, PFR 17 +/- 3%, 3-bet 2.8 +/- 1.5%, aggression
# 2.2 +/- 0.6, showdown of flops seen 25-45%.
SIX_HANDED = {"vpip": (0.26, 0.04), "pfr": (0.17, 0.03), "three_bet_of_seats": (0.028, 0.015),
              "postflop_aggression_factor": (2.2, 0.6), "showdown_of_flop_seen": (0.35, 0.10)}
# Heads-up and full ring: their rows of ../shared/data/real-play-stats.json (online_cash_2009_1000nl; the file
# lives beside the project), within the same relative tolerances.
ROWS = {"heads-up": {"vpip": 0.55, "pfr": 0.435, "three_bet_of_seats": 0.067, "postflop_aggression_factor": 2.63,
                     "showdown_of_flop_seen": 0.282},
        "full ring 7-10": {"vpip": 0.233, "pfr": 0.111, "three_bet_of_seats": 0.018,
                           "postflop_aggression_factor": 2.19, "showdown_of_flop_seen": 0.252}}
TOLERANCES = {"short-handed 3-6": SIX_HANDED,
              **{size: {key: (value, value * SIX_HANDED[key][1] / SIX_HANDED[key][0]) for key, value in row.items()}
                 for size, row in ROWS.items()}}


def counted(path: Path = FIXTURE, **options) -> Counts:
    counts = Counts()
    for hand in hands_of(path.read_text()):
        counts.add(hand, **options)
    return counts


def test_the_count_of_a_small_file_is_the_count_by_hand(capsys):
    """Three hands counted by hand: a 3-bet pot to showdown and a limped one six-handed, a heads-up all-in."""
    rows = counted(group_of={"b": "regular", "d": "regular"}).rows()
    six = rows["short-handed 3-6"]
    # seats 12; VPIP: d open, e call, b 3-bet; c limp, a completes (b checks his option: not voluntary) = 5
    assert (six["hands"], six["seats_dealt"], six["vpip"], six["pfr"], six["three_bet_of_seats"]) == \
        (2, 12, round(5 / 12, 3), round(2 / 12, 3), round(1 / 12, 3))
    # flop seen: b, d; a, b, c = 5; shown down: b, d; a, c = 4; bets and raises after the flop 3 (b, d, a),
    # calls 3 (d, b, c: a check is not a call)
    assert (six["saw_flop"], six["showdown_of_flop_seen"], six["postflop_aggression_factor"]) == \
        (round(5 / 12, 3), 0.8, 1.0)
    assert six["allin_preflop_of_seats"] == 0 and six["mean_stack_bb"] == 100
    heads_up = rows["heads-up"]
    assert (heads_up["vpip"], heads_up["pfr"], heads_up["allin_preflop_of_seats"], heads_up["mean_stack_bb"]) == \
        (1.0, 0.5, 0.5, 10.0)
    regular = counted(group_of={"b": "regular", "d": "regular"}).rows("regular")["short-handed 3-6"]
    assert (regular["seats_dealt"], regular["vpip"], regular["pfr"], regular["three_bet_of_seats"],
            regular["showdown_of_flop_seen"], regular["postflop_aggression_factor"]) == (4, 0.5, 0.5, 0.25,
                                                                                         round(2 / 3, 3), 1.0)
    assert "heads-up" not in counted(deep_bb=40).rows()  # ten big blinds deep: not a deep hand
    assert main(["stats", str(FIXTURE), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["all"] == counted().rows()


@pytest.mark.parametrize("players,hands", [(6, 4000), (2, 3000), (9, 2000)])
def test_the_default_mix_plays_as_real_players_do(players, hands):
    texts, strategy = sample_hands(players, hands, 11, DEFAULT_MIX)
    counts = Counts()
    for text in texts:
        for hand in hands_of(text):
            counts.add(hand, group_of=strategy, deep_bb=40)
    (size, row), = counts.rows().items()
    for key, (target, tolerance) in TOLERANCES[size].items():
        assert abs(row[key] - target) <= tolerance, (size, key, row[key], target, tolerance)


def test_short_stacks_move_all_in_or_fold_as_tournament_players_do():
    """At 12 big blinds or less a regular's first move is all in or a fold (a check in the big blind): no limp, no
    small raise; it pushes wider on the button and in the small blind than under the gun, as push charts do."""
    texts, _ = sample_hands(6, 1500, 3, DEFAULT_MIX, stack_bb=10)
    pushes = {"early": [0, 0], "late": [0, 0]}  # [pushed, had the chance], unraised before them
    for text in texts:
        for hand in hands_of(text):
            stacks, blinds = hand["starting_stacks"], hand["blinds_or_straddles"]
            raised = False
            for action in hand["actions"]:
                parts = action.split()
                if parts[0] == "d":
                    if parts[1] == "db":
                        break
                    continue
                seat = int(parts[0][1:]) - 1
                if not raised:
                    where = "late" if seat in (0, 5) else "early" if seat in (2, 3) else None  # SB/BTN, UTG/HJ
                    if where:
                        pushes[where][1] += 1
                        pushes[where][0] += parts[1] == "cbr"
                    assert parts[1] != "cc" or blinds[seat] == max(blinds), "a limp at 10 big blinds"
                if parts[1] == "cbr":
                    assert float(parts[2]) >= 0.98 * stacks[seat], "a raise short of all in at 10 big blinds"
                    raised = True
    early, late = (pushed / chances for pushed, chances in pushes.values())
    assert 0.08 < early < 0.3 and late > 1.5 * early


def test_a_simulated_runs_statistics_by_table_size_and_strategy(tmp_path, capsys):
    """``mttsim simulate --stats`` counts the run's hands as they are played, the same as ``mttsim stats`` on the
    run's --hands-out file, with a column per strategy."""
    hands = tmp_path / "run.phhs"
    assert main(["simulate", "--players", "30", "--seats", "6", "--seed", "2", "--mix", "regular=1,station=1",
                 "--stats", "--hands-out", str(hands)]) == 0
    printed = capsys.readouterr().out
    assert "short-handed 3-6:" in printed and "regular" in printed and "station" in printed
    assert main(["simulate", "--players", "30", "--seats", "6", "--seed", "2", "--mix", "regular=1,station=1",
                 "--stats", "--json"]) == 0
    report_line, stats_line = capsys.readouterr().out.splitlines()
    by_group = json.loads(stats_line)
    assert set(by_group) == {"all", "regular", "station"}
    assert by_group["all"] == counted(hands).rows()
    six = by_group["station"]["short-handed 3-6"]
    assert six["pfr"] == 0 and six["postflop_aggression_factor"] == 0  # a station never raises
    assert by_group["regular"]["short-handed 3-6"]["pfr"] > 0.05
    assert sum(by_group[g]["short-handed 3-6"]["seats_dealt"] for g in ("regular", "station")) == \
        by_group["all"]["short-handed 3-6"]["seats_dealt"] and json.loads(report_line)["players"] == 30
