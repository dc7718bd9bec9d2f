"""Tournament definitions: loading, refusals that name the key, payouts in cents, hand-for-hand points."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.structure import (
    DefinitionError, Payout, default_levels, default_payouts, hand_for_hand_points, load_definition, prizes_cents,
)


def definition(**changes) -> dict:
    base = {
        "name": "Sunday 350",
        "seats_per_table": 10,
        "starting_stack": 10000,
        "buy_in_cents": 10000,
        "fee_cents": 1000,
        "min_players": 2,
        "max_players": 1000,
        "levels": [{"small_blind": 25, "big_blind": 50, "minutes": 10},
                   {"small_blind": 50, "big_blind": 100, "ante": 100, "bb_ante": True, "hands": 20}],
        "payouts": [{"places": "1", "percent": 60}, {"places": "2", "percent": 40}],
    }
    base.update(changes)
    return base


def turbo_toml(minutes: str = "3", percent: str = "100") -> str:
    return f"""
name = "Turbo"
seats_per_table = 6
starting_stack = 1500
buy_in_cents = 500
fee_cents = 50
min_players = 2
max_players = 60
[[levels]]
small_blind = 10
big_blind = 20
minutes = {minutes}
[[payouts]]
places = "1"
percent = {percent}
"""


def test_a_definition_loads_from_json_and_toml():
    loaded = load_definition(json.dumps(definition()))
    assert loaded.levels[1].bb_ante and loaded.levels[1].hands == 20
    assert loaded.hand_for_hand_min_jump_cents == 1 and loaded.action_seconds == 15
    assert load_definition(turbo_toml(), toml=True).seats_per_table == 6


@pytest.mark.parametrize(
    ("changes", "named"),
    [
        ({"seats_per_table": 11}, "seats_per_table"),
        ({"starting_stack": "lots"}, "starting_stack"),
        ({"levels": [{"small_blind": 25, "big_blind": "x", "minutes": 10}]}, "levels[0].big_blind"),
        ({"levels": [{"small_blind": 25, "big_blind": 50}]}, "levels[0]: give exactly one of minutes or hands"),
        ({"levels": [{"small_blind": 75, "big_blind": 50, "hands": 5}]}, "levels[0].small_blind"),
        ({"payouts": [{"places": "1", "percent": 60}]}, "add up to 60%"),
        ({"payouts": [{"places": "1", "percent": 50}, {"places": "3", "percent": 50}]}, "without gaps"),
        ({"payouts": [{"places": "one", "percent": 100}]}, "places 'one'"),
        ({"min_players": 50, "max_players": 10}, "min_players"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_a_bad_definition_is_refused_naming_the_key(changes, named):
    with pytest.raises(DefinitionError, match=named.replace("[", r"\[").replace("]", r"\]")):
        load_definition(json.dumps(definition(**changes)))


@pytest.mark.parametrize(("minutes", "percent", "named"), [
    ("3", "nan", "payouts[0].percent"),
    ("inf", "100", "levels[0].minutes"),
    ("3", "-inf", "payouts[0].percent"),
])
def test_a_number_that_is_not_finite_in_toml_is_refused_naming_the_key(minutes, percent, named):
    """TOML reads nan and inf as floats: refused naming the key, not with Fraction's words."""
    text = turbo_toml(minutes, percent)
    with pytest.raises(DefinitionError, match=named.replace("[", r"\[").replace("]", r"\]") + ": .* is not a finite"):
        load_definition(text, toml=True)


def test_prizes_are_whole_cents_and_add_up_to_the_pool():
    payouts = [Payout("1", 50), Payout("2", 30), Payout("3", 20)]
    assert prizes_cents(payouts, 100_001) == [50_001, 30_000, 20_000]  # the odd cent goes to first
    for entrants in (2, 7, 45, 350, 1234, 10_000):
        pool = entrants * 1_099
        prizes = prizes_cents(default_payouts(entrants), pool)
        assert sum(prizes) == pool and prizes == sorted(prizes, reverse=True) and prizes[-1] > 0


def test_default_payouts_pay_tiers_of_ten_after_the_final_table():
    payouts = default_payouts(350)
    places = [p.places for p in payouts]
    assert places[:10] == [str(i) for i in range(1, 11)]
    assert places[10:13] == ["11-20", "21-30", "31-40"]
    assert len(default_levels()) > 20 and default_levels()[2].bb_ante


def test_seed_example_hand_for_hand_at_41_31_21_and_11():
    # 350 entrants, 40 paid; places 11-20, 21-30 and 31-40 each share one percentage.
    payouts = [Payout(str(p), pct) for p, pct in zip(range(1, 11), (20, 12, 9, 7, 6, 5, 4, 3.5, 3, 2.5))]
    payouts += [Payout("11-20", 1.2), Payout("21-30", 0.9), Payout("31-40", 0.7)]
    prizes = prizes_cents(payouts, 350 * 10_000)
    points = hand_for_hand_points(prizes)
    # With 10 seats a table, ten players or fewer sit at one table: hand-for-hand needs two.
    assert [n for n in points if n > 10] == [41, 31, 21, 11]
    assert hand_for_hand_points(prizes, min_jump_cents=10**9) == []


@pytest.mark.parametrize("entrants", [10, 1_000, 10_000, 100_000, 150_000, 250_000, 400_000])
def test_default_payouts_pay_more_for_a_better_place_however_large_the_field(entrants):
    payouts = default_payouts(entrants)
    percents = [payout.percent for payout in payouts]
    places = []
    for payout in payouts:
        first, _, last = payout.places.partition("-")
        places.append(int(last or first) - int(first) + 1)
    assert all(percent > 0 for percent in percents)
    assert percents == sorted(percents, reverse=True), "a better place never pays less"
    assert round(sum(percent * count for percent, count in zip(percents, places)), 6) == 100


def test_a_field_too_large_for_default_payouts_is_refused_with_the_reason():
    with pytest.raises(ValueError, match="more than the pool"):
        default_payouts(1_000_000)


@settings(max_examples=300, deadline=None)
@given(entrants=st.integers(2, 100_000), buy_in=st.integers(0, 100_000), extra=st.integers(0, 10**7),
       percent=st.floats(1, 50), multiple=st.floats(0, 5), curve=st.floats(0.2, 3), seats=st.integers(2, 10))
def test_a_payout_rules_table_sums_to_the_pool_to_the_cent_and_never_pays_a_place_less_than_one_below(
        entrants, buy_in, extra, percent, multiple, curve, seats):
    """A rule-based prize table for fields of 2 to 100,000: exact to the cent, best places first, about the
    percent of the field paid (to the nearest end of a band), each band one amount, and the last place paid at
    least the min-cash the pool allows."""
    from engine.structure import PayoutRule, paid_bands, rule_prizes

    pool = entrants * buy_in + extra
    prizes = rule_prizes(PayoutRule(percent, multiple, curve), pool, entrants, buy_in, seats)
    assert sum(prizes) == pool and all(better >= worse for better, worse in zip(prizes, prizes[1:]))
    target = max(1, min(entrants, round(entrants * percent / 100)))
    bands = paid_bands(target, seats)
    assert len(prizes) == (bands[-1][1] if pool else 1)  # an empty pool pays nobody anything
    assert abs(bands[-1][1] - target) <= max(seats, 2 * (bands[-1][1] - bands[-1][0] + 1))  # the nearer end
    if len(prizes) > 1:
        assert prizes[-1] >= min(int(buy_in * multiple), pool // len(prizes))
        for first, last in bands[1:]:
            assert len(set(prizes[first - 1:last])) == 1, (first, last)


def test_the_default_rule_pays_in_bands_as_the_rooms_do_and_hand_for_hand_comes_only_at_their_edges():
    """The default payout rule paid a different amount at every place, so hand-for-hand ran after every bust in
    the money (208-215 times in one run), with a min-cash of 2.2-3.3x and second half of first. Now: the seed's
    350 entries at 10% paid at ten seats go hand-for-hand at 41, 31, 21 and 11 left; at 1,000 entries 15% are
    paid, first 15-20% of the pool, second 0.6-0.67 of first, the min-cash 1.5-2x."""
    from engine.structure import PayoutRule, hand_for_hand_points, paid_bands, rule_prizes

    seeds = rule_prizes(PayoutRule(paid_percent=10), 350 * 1_000, 350, 1_000, seats=10)
    assert paid_bands(35, 10) == [(place, place) for place in range(1, 11)] + [(11, 20), (21, 30), (31, 40)]
    assert len(seeds) == 40 and [n for n in hand_for_hand_points(seeds) if n > 10] == [41, 31, 21, 11]
    prizes = rule_prizes(PayoutRule(), 1_000 * 1_000, 1_000, 1_000, seats=9)
    assert 0.14 <= len(prizes) / 1_000 <= 0.16
    assert 0.15 <= prizes[0] / sum(prizes) <= 0.20 and 0.6 <= prizes[1] / prizes[0] <= 0.67
    assert 1.5 <= prizes[-1] / 1_000 <= 2.0
    assert len(hand_for_hand_points(prizes)) <= 25  # far fewer than the places paid (153)
    three = rule_prizes(PayoutRule(paid_percent=33), 9 * 1_000, 9, 1_000)
    assert [round(100 * prize / 9_000) for prize in three] == [49, 30, 21]  # the rooms' 50/30/20


def test_a_definition_gives_a_prize_table_or_a_payout_rule_and_120_entries_of_a_300_structure_pay_15_percent():
    from engine.structure import PayoutRule, rule_prizes

    with pytest.raises(DefinitionError, match="payouts: give the prize table"):
        load_definition(json.dumps({**definition(), "payout_rule": {}}))  # both
    without = definition()
    del without["payouts"]
    with pytest.raises(DefinitionError, match="payouts: give the prize table"):
        load_definition(json.dumps(without))  # neither
    assert load_definition(json.dumps({**without, "payout_rule": {"paid_percent": 12}})).payout_rule == PayoutRule(12)
    prizes = rule_prizes(PayoutRule(), 120 * 20_000, 120, 20_000)  # $200 buy-ins
    assert len(prizes) == 18 and prizes[-1] >= 1.5 * 20_000 and sum(prizes) == 120 * 20_000
