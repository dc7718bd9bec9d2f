"""What the simulator predicts, held against two published live events, as ratios (DEVELOPERS.md).

The WSOP 2019 Main Event's Day 1 (levels 1-5; its field scaled down, survival being a share) and the whole of
WSOP 2019 Event #28, each played by the default bots at a live pace (35 hands an hour at a full table) on
several seeds, each figure printed beside the real one with the ratio (benchmarks/real-events/). Then the
bubble, which no event's report counts hand by hand: how often the regular player calls an all-in with a medium
stack and shoves a short one, far from the money and on the bubble (one table's hands, the same deals both
ways), and how often players bust approaching, on and after the bubble in the Event #28 runs.

Run: .venv/bin/python benchmarks/bench_realism.py [--seeds 4] [--me-players 2000] [--pace 35] [--jobs J]
(about two minutes on two cores with the compiled modules).
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import msgspec  # noqa: E402

from bots import lifeline  # noqa: E402
from bots.lab import Observer, Run  # noqa: E402
from bots.simulator import simulate  # noqa: E402
from bots.strategies import regular, seat_view  # noqa: E402
from engine.cards import shuffled_deck  # noqa: E402
from engine.director import Tournament  # noqa: E402
from engine.events import Event, HandStarted, PlayerEliminated  # noqa: E402
from engine.hand import Hand  # noqa: E402
from engine.structure import Definition, Flight, load_definition  # noqa: E402
from engine.wire import Stage  # noqa: E402

EVENTS = Path(__file__).resolve().parent / "real-events"
# The real side (benchmarks/real-events/README.md)
ME_SURVIVAL = 0.744
ME_BUSTS_PER_1000 = 0.85  # 0.7-1.0
E28_LEFT_AFTER_15 = 346
E28_BUBBLE_LEVEL = 15
E28_BUBBLE_BB = 33.0
E28_FINAL_TABLE_LEVEL = 30
E28_FINAL_TABLE_BB = 46.0
WINDOW = 27  # busts: the bubble's window, three tables' worth, and as many before and after it


def event(name: str, pace: float) -> Definition:
    return msgspec.structs.replace(load_definition((EVENTS / name).read_bytes()), hands_per_hour=pace)


class Busts:
    """Busts and player-hands, each counted in the window ``window(players left, places paid)`` names."""

    def __init__(self, window: Callable[[int, int], str | None]) -> None:
        self.window = window
        self.busts: dict[str, int] = {}
        self.hands: dict[str, int] = {}

    def __call__(self, tournament: Tournament, happened: Event, at: float) -> None:
        if isinstance(happened, HandStarted):
            name = self.window(tournament.players_left, len(tournament.prizes))
            if name:
                self.hands[name] = self.hands.get(name, 0) + len(happened.players)
        elif isinstance(happened, PlayerEliminated):
            name = self.window(tournament.players_left + 1, len(tournament.prizes))  # as the bust's hand began
            if name:
                self.busts[name] = self.busts.get(name, 0) + 1

    def per_1000(self, name: str) -> float:
        return 1000 * self.busts.get(name, 0) / max(1, self.hands.get(name, 0))


def main_event_day_one(players: int, seed: int, pace: float) -> tuple[float, float]:
    """Levels 1-5 of the Main Event for ``players``: the share left after level 5, and the busts per 1,000
    player-hands over them (the real figure's pace-free form)."""
    definition = event("wsop2019-me.json", pace)
    # Day 1 alone: a flight that stops when level 5 ends (nothing is paid; only the field is read)
    definition = msgspec.structs.replace(definition, levels=definition.levels[:6], flight=Flight(stop_level=5))
    counted = Busts(lambda left, paid: "day 1")
    simulate(definition, players, seed, on_event=counted)
    return (players - counted.busts.get("day 1", 0)) / players, counted.per_1000("day 1")


def bubble_window(left: int, paid: int) -> str | None:
    if not paid:
        return None
    over = left - paid  # still to bust before everyone left is paid
    return "approaching" if WINDOW < over <= 2 * WINDOW else "on the bubble" if 0 < over <= WINDOW else \
        "after" if -WINDOW < over <= 0 else None


def event_28(seed: int, pace: float) -> tuple[Run, dict[str, float]]:
    """Event #28 played to its end: the lab's run (bubble, final table), and busts per 1,000 player-hands
    approaching, on and after the bubble."""
    definition = event("wsop2019-e28.json", pace)
    observer, counted = Observer(definition), Busts(bubble_window)

    def both(tournament: Tournament, happened: Event, at: float) -> None:
        observer(tournament, happened, at)
        counted(tournament, happened, at)

    run = observer.run(seed, simulate(definition, 2_477, seed, on_event=both))
    return run, {name: counted.per_1000(name) for name in ("approaching", "on the bubble", "after")}


def left_after(run: Run, level: int) -> int | None:
    return next((row.players_left for row in run.levels if row.level == level + 1), None)


def one_table(stage: Stage, hands: int, seed: int) -> tuple[float, float]:
    """One table of nine, stacks drawn short (5-15 big blinds), medium (20-40) or deep (40-90), the regular player
    in every seat, at ``stage``: how often a medium stack calls (or re-raises) an all-in that risks a third of
    its stack or more, and how often a short stack moves all in first in. The same deals for every stage."""
    rng = random.Random(seed)
    big = 1_000
    calls = faced = shoves = chances = 0
    for _ in range(hands):
        stacks = [rng.choice((rng.randint(5, 15), rng.randint(20, 40), rng.randint(20, 40), rng.randint(40, 90))) * big
                  for _ in range(9)]
        hand = Hand([f"s{seat}" for seat in range(9)], stacks, small_blind=big // 2, big_blind=big, ante=big,
                    bb_ante=True, deck=shuffled_deck(rng), sb_index=0, bb_index=1)
        while not hand.finished:
            view = seat_view(hand, stage)
            action, amount = regular(view, rng)
            depth = (view.stack + view.legal.call) / big
            if not view.board and 20 <= depth <= 40 and 0 in view.opponents and view.legal.call >= view.stack / 3:
                faced += 1
                calls += action in ("call", "raise")
            if not view.board and view.to_match <= big and depth <= 12:
                chances += 1
                shoves += action == "raise"
            hand.play(action, amount)
    return calls / max(1, faced), shoves / max(1, chances)


def _me(arguments: tuple[int, int, float]) -> tuple[float, float]:
    return main_event_day_one(*arguments)


def _e28(arguments: tuple[int, float]) -> tuple[bytes, dict[str, float]]:
    run, busts = event_28(*arguments)
    return msgspec.msgpack.encode(run), busts


def row(name: str, real: float, simulated: Sequence[float], show: Callable[[float], str]) -> list[str]:
    median = statistics.median(simulated)
    return [name, show(real), f"{show(median)} [{show(min(simulated))}-{show(max(simulated))}]",
            f"{median / real:.2f}"]


def printed(rows: list[list[str]]) -> None:
    widths = [max(len(line[column]) for line in rows) for column in range(len(rows[0]))]
    for line in rows:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4)
    parser.add_argument("--me-players", type=int, default=2_000)
    parser.add_argument("--pace", type=float, default=35.0, help="hands a full table deals in an hour")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--table-hands", type=int, default=20_000, help="hands of the one-table bubble measure")
    args = parser.parse_args()
    seeds = range(1, args.seeds + 1)
    with ProcessPoolExecutor(args.jobs, mp_context=lifeline.forkserver()) as pool:
        me = [pool.submit(_me, (args.me_players, seed, args.pace)) for seed in seeds]
        e28 = [pool.submit(_e28, (seed, args.pace)) for seed in seeds]
        survival, busts = zip(*(future.result() for future in me))
        played = [(msgspec.msgpack.decode(encoded, type=Run), windows)
                  for encoded, windows in (future.result() for future in e28)]
    runs = [run for run, _ in played]

    def whole(value: float) -> str:
        return f"{value:,.0f}"

    def one(value: float) -> str:
        return f"{value:.1f}"

    print(f"At {args.pace:g} hands an hour, {args.seeds} seeds each (median [min-max]; ratio: median over real)\n")
    printed([["figure", "real", "simulated", "ratio"],
             row(f"Main Event: share left after level 5 ({args.me_players:,} players)", ME_SURVIVAL,
                 survival, lambda value: f"{100 * value:.1f}%"),
             row("Main Event: busts per 1,000 player-hands, levels 1-5", ME_BUSTS_PER_1000, busts,
                 lambda value: f"{value:.2f}"),
             row("Event #28: players left after level 15", E28_LEFT_AFTER_15,
                 [left_after(run, 15) or 0 for run in runs], whole),
             row("Event #28: the bubble's level", E28_BUBBLE_LEVEL, [run.bubble_level or 0 for run in runs], whole),
             row("Event #28: average stack at the bubble (BB)", E28_BUBBLE_BB,
                 [run.bubble_average_bb or 0 for run in runs], one),
             row("Event #28: the final table's level", E28_FINAL_TABLE_LEVEL,
                 [run.final_table_level or 0 for run in runs], whole),
             row("Event #28: average stack at the final table (BB)", E28_FINAL_TABLE_BB,
                 [run.final_table_average_bb or 0 for run in runs], one)])
    far, bubble = Stage(1_500, 369, 370, 30_000), Stage(375, 369, 370, 30_000)
    far_calls, far_shoves = one_table(far, args.table_hands, 1)
    bubble_calls, bubble_shoves = one_table(bubble, args.table_hands, 1)
    print(f"\nThe bubble (one table, {args.table_hands:,} hands each way; the field as Event #28's at 369 paid):")
    printed([["", "far from the money (1,500 left)", "on the bubble (375 left)", "bubble / far"],
             ["medium stack (20-40 BB) calls an all-in", f"{100 * far_calls:.1f}%", f"{100 * bubble_calls:.1f}%",
              f"{bubble_calls / far_calls:.2f}"],
             ["short stack (12 BB or less) shoves first in", f"{100 * far_shoves:.1f}%",
              f"{100 * bubble_shoves:.1f}%", f"{bubble_shoves / far_shoves:.2f}"]])
    windows = ("approaching", "on the bubble", "after")
    print(f"\nEvent #28's busts per 1,000 player-hands, {WINDOW} busts before the bubble's {WINDOW}, on them, and "
          f"the {WINDOW} after (median of the runs):")
    printed([list(windows), [f"{statistics.median(busts_in[name] for _, busts_in in played):.2f}"
                             for name in windows]])


if __name__ == "__main__":
    main()
