"""Tournaments that run like real ones (docs/director.md, "What the simulator predicts"): the pace a room deals
at, bots that guard a tournament life and weigh the money near it, and a lab that plans the field to expect.
The figures against published events are benchmarks/bench_realism.py's."""

from __future__ import annotations

import random

import msgspec

from bots.lab import estimate, expected_field, fit_structure
from bots.simulator import simulate
from bots.strategies import SeatView, bubble_factor, regular, seat_view
from engine.cards import card, shuffled_deck
from engine.events import HandStarted
from engine.hand import Hand, LegalActions
from engine.structure import EventOptions, LateRegistration, Level, Reentry, default_definition
from engine.wire import Stage

FAR, BUBBLE = Stage(1_500, 369, 370, 30_000), Stage(375, 369, 370, 30_000)


def facing_a_shove(stage: Stage, hole: str) -> SeatView:
    """A medium stack of 30 big blinds (30,000 at 500/1,000), first to answer a shove of 25 big blinds."""
    legal = LegalActions(3, True, False, 25_000, None, None)
    cards = (card(hole[:2]), card(hole[2:]))
    return SeatView(legal, cards, (), 27_500, 30_000, 1_000, 9, 2, 25_000, (0, 60_000, 45_000),
                    stage.players_left, stage.paid, stage.next_jump, stage.average)


def test_a_bubble_aware_bot_folds_a_medium_stack_to_a_shove_it_calls_far_from_the_money():
    """Ace-king suited, 30 big blinds, a 25-big-blind shove: called with 1,500 left of 369 paid, folded with 375
    left (ICM: the chips it risks cost some three times what they win there). Short stacks still shove."""
    far, bubble = facing_a_shove(FAR, "AsKs"), facing_a_shove(BUBBLE, "AsKs")
    assert bubble_factor(bubble, 1.0) > 2.5 > 1.5 > bubble_factor(far, 1.0)
    assert regular(far, random.Random(1))[0] == "call"
    assert regular(bubble, random.Random(1))[0] == "fold"
    assert regular(facing_a_shove(BUBBLE, "AhAd"), random.Random(1))[0] in ("call", "raise")  # aces call anyway
    short = SeatView(LegalActions(0, True, False, 1_000, 10_000, 8_000), (card("Ks"), card("Jd")), (), 2_500,
                     8_000, 1_000, 9, 1, 1_000, (50_000, 40_000), 375, 369, 370, 30_000)
    assert regular(short, random.Random(1)) == ("raise", 8_000)  # eight big blinds on the button: all in


def test_medium_stacks_call_all_ins_on_the_bubble_at_most_half_as_often_and_short_stacks_still_shove():
    """The same 6,000 deals at one table, the regular player in every seat, stacks short, medium and deep: far from
    the money and on the bubble."""
    def measured(stage: Stage) -> tuple[float, float]:
        rng = random.Random(3)
        calls = faced = shoves = chances = 0
        for _ in range(6_000):
            stacks = [rng.choice((rng.randint(5, 15), rng.randint(20, 40), rng.randint(20, 40),
                                  rng.randint(40, 90))) * 1_000 for _ in range(9)]
            hand = Hand([f"s{seat}" for seat in range(9)], stacks, small_blind=500, big_blind=1_000, ante=1_000,
                        bb_ante=True, deck=shuffled_deck(rng), sb_index=0, bb_index=1)
            while not hand.finished:
                view = seat_view(hand, stage)
                action, amount = regular(view, rng)
                depth = (view.stack + view.legal.call) / 1_000
                if not view.board and 20 <= depth <= 40 and 0 in view.opponents and view.legal.call >= view.stack / 3:
                    faced += 1
                    calls += action in ("call", "raise")
                if not view.board and view.to_match <= 1_000 and depth <= 12:
                    chances += 1
                    shoves += action == "raise"
                hand.play(action, amount)
        return calls / faced, shoves / chances

    far_calls, far_shoves = measured(FAR)
    bubble_calls, bubble_shoves = measured(BUBBLE)
    assert bubble_calls <= far_calls / 2 and far_calls > 0.02
    assert bubble_shoves >= 0.8 * far_shoves > 0.1


def test_a_deep_stack_is_lost_about_as_often_as_people_lose_one():
    """Nine regular players, every stack 150 big blinds at each deal: the bots busted 2.6 times per 1,000
    player-hands at this depth (every postflop line escalated to all in); people in a tournament's early levels
    0.7-1.0 (the Main Event's Day 1)."""
    rng = random.Random(5)
    busts = 0
    hands = 6_000
    for _ in range(hands):
        hand = Hand([f"s{seat}" for seat in range(9)], [30_000] * 9, small_blind=100, big_blind=200, ante=200,
                    bb_ante=True, deck=shuffled_deck(rng), sb_index=0, bb_index=1)
        while not hand.finished:
            hand.play(*regular(seat_view(hand, Stage(2_000, 300, 301, 30_000)), rng))
        busts += hand.stacks.count(0)
    assert 0.3 <= 1000 * busts / (9 * hands) <= 1.2


def test_a_full_table_deals_the_definitions_hands_an_hour():
    """``hands_per_hour`` scales the simulator's clock: nine seated deal about that many hands an hour (the
    first half hour of a deep field, while every table is full), 35 live, 64 online (None)."""
    levels = [Level(25, 50, minutes=60.0)] * 3

    def dealt_an_hour(pace: float | None) -> float:
        definition = msgspec.structs.replace(default_definition(90), levels=levels, starting_stack=30_000,
                                             hands_per_hour=pace)
        full = []

        def counted(tournament, happened, at):
            if isinstance(happened, HandStarted) and at < 1_800 and len(happened.players) == 9:
                full.append(happened.table)

        simulate(definition, 90, 1, on_event=counted, cancel_at_hand=2_000)
        return len(full) / 10 / 0.5

    assert 30 <= dealt_an_hour(35.0) <= 40
    assert 56 <= dealt_an_hour(None) <= 72


def test_the_estimate_of_a_late_and_reentry_event_counts_its_entries():
    """``mttsim structure``'s estimate and the lobby's ignored late entries and re-entries: a re-entry event was
    planned as a freezeout. Now they play the field to expect (``expected_field``)."""
    definition = msgspec.structs.replace(default_definition(200), late_registration=LateRegistration(6),
                                         reentry=Reentry(6, max_count=2))
    assert expected_field(definition, 120).late == 12 and expected_field(definition, 120).reentry == 0.5
    made = estimate(definition, 120, 2, jobs=1)
    assert made.entries is not None and made.entries.median > 132  # late entries and re-entries both


def test_a_structure_fitted_at_a_live_pace_meets_its_hours_at_that_pace():
    """Fitted at 35 hands an hour, a 5-hour event for 120 says so and meets its hours in its own simulations,
    which deal at that pace: the same structure dealt at the online pace ends sooner."""
    live, made = fit_structure(120, 5, 10_000, options=EventOptions(hands_per_hour=35.0), runs=3, jobs=1)
    assert live.hands_per_hour == 35.0 and made.hours is not None and live.name == "120 players, 5 h regular"
    assert abs(made.hours.median / 5 - 1) <= 0.05
    online = estimate(msgspec.structs.replace(live, hands_per_hour=None), 120, 3, jobs=1)
    assert online.hours is not None and online.hours.median < made.hours.median
