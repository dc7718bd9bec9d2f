"""Hands per second of our engine next to PokerKit's, same workload, same run.

The workloads: seeded random hands at 6-max and 9-max (stacks 20-150 big
blinds, blinds 50/100, ante 10) whose decisions are drawn from the legal
actions in two ways:
- uniform: fold (when facing a bet), check-or-call and raise (when open) are
  equally likely, the raise-to uniform over its legal range: many all-ins,
  short hands, many showdowns;
- passive: fold a third of the time when facing a bet, raise a sixth (at most
  3x the minimum), otherwise check or call: long hands of cheap decisions,
  our engine's least favourable case.
Each engine plays the same decisions from the same deck: PokerKit is driven
by the recorded commands, so both do identical work, each timed alone.

Run: .venv/bin/python benchmarks/bench_hand.py [--seconds S] [--repeat R]
Prints the median of R runs per engine and the ratio.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import statistics
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine.hand  # noqa: E402
from engine.cards import card_text, shuffled_deck  # noqa: E402
from engine.hand import POKERKIT_RULES, Hand  # noqa: E402

COMPILED = Path(engine.hand.__file__).suffix != ".py"


def pure_python_hand() -> type:
    """The same engine run from its Python source, for the figure without mypyc."""
    source = Path(__file__).resolve().parents[1] / "engine" / "hand.py"
    spec = importlib.util.spec_from_file_location("engine_hand_source", source)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look themselves up there
    spec.loader.exec_module(module)
    return module.Hand


def choose_uniform(legal, rng: random.Random) -> tuple[str, int | None]:
    kinds = ["check" if legal.can_check else "call"]
    if legal.can_fold:
        kinds.append("fold")
    if legal.min_raise_to is not None:
        kinds.append("raise")
    kind = rng.choice(kinds)
    return (kind, rng.randint(legal.min_raise_to, legal.max_raise_to)) if kind == "raise" else (kind, None)


def choose_passive(legal, rng: random.Random) -> tuple[str, int | None]:
    roll = rng.random()
    if legal.min_raise_to is not None and roll < 1 / 6:
        return "raise", rng.randint(legal.min_raise_to, min(legal.max_raise_to, 3 * legal.min_raise_to))
    if legal.can_fold and roll > 2 / 3:
        return "fold", None
    return ("check", None) if legal.can_check else ("call", None)


WORKLOADS = {"uniform": choose_uniform, "passive": choose_passive}


def workload(seats: int, count: int, seed: int, choose) -> list[tuple[list[int], list[int], list[tuple]]]:
    """Hands as (stacks, deck, commands), recorded once by playing our engine."""
    rng = random.Random(seed)
    hands = []
    for _ in range(count):
        stacks = [rng.randint(2000, 15000) for _ in range(seats)]
        deck = shuffled_deck(rng)
        hand = Hand([str(i) for i in range(seats)], stacks, small_blind=50, big_blind=100, ante=10,
                    deck=deck, rules=POKERKIT_RULES)
        commands = []
        while not hand.finished:
            command = choose(hand.legal_actions(), rng)
            commands.append(command)
            hand.act(*command)
        hands.append((stacks, deck, commands))
    return hands


def run_ours(hands, seats: int, engine_class=Hand) -> float:
    players = [str(i) for i in range(seats)]
    start = time.perf_counter()
    for stacks, deck, commands in hands:
        hand = engine_class(players, stacks, small_blind=50, big_blind=100, ante=10, deck=deck, rules=POKERKIT_RULES)
        for command, amount in commands:
            hand.legal_actions()  # a real player asks before acting
            hand.act(command, amount)
    return len(hands) / (time.perf_counter() - start)


def deal_board(state, board: list[int], dealt: int) -> int:
    """Deal PokerKit the board cards it now expects; returns how many are dealt."""
    while state.can_deal_board():
        count = 3 if dealt == 0 else 1
        state.deal_board(card_text(board[dealt:dealt + count]))
        dealt += count
    return dealt


def run_pokerkit(hands, seats: int) -> float:
    from pokerkit import Automation, Mode, NoLimitTexasHoldem

    automations = (
        Automation.ANTE_POSTING, Automation.BET_COLLECTION, Automation.BLIND_OR_STRADDLE_POSTING,
        Automation.CARD_BURNING, Automation.HOLE_CARDS_SHOWING_OR_MUCKING, Automation.HAND_KILLING,
        Automation.CHIPS_PUSHING, Automation.CHIPS_PULLING,
    )
    warnings.filterwarnings("ignore")
    start = time.perf_counter()
    for stacks, deck, commands in hands:
        state = NoLimitTexasHoldem.create_state(automations, True, 10, (50, 100), 100, stacks, seats,
                                                mode=Mode.TOURNAMENT)
        for i in range(seats):
            state.deal_hole(card_text((deck[i], deck[seats + i])))
        board = [deck[2 * seats + k] for k in (1, 2, 3, 5, 7)]
        dealt = 0
        for command, amount in commands:
            dealt = deal_board(state, board, dealt)
            # The same questions our run asks: who acts, may he fold, what a call costs, the raise range.
            state.actor_index, state.can_fold(), state.checking_or_calling_amount
            if state.can_complete_bet_or_raise_to():
                _ = state.min_completion_betting_or_raising_to_amount, state.max_completion_betting_or_raising_to_amount
            if command == "fold":
                state.fold()
            elif command == "raise":
                state.complete_bet_or_raise_to(amount)
            else:
                state.check_or_call()
        deal_board(state, board, dealt)
    return len(hands) / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=4000, help="hands per run of our engine")
    parser.add_argument("--peer-hands", type=int, default=200, help="hands per run of PokerKit")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    pure = pure_python_hand()
    print(f"engine: {'compiled by mypyc' if COMPILED else 'pure Python (no C compiler at install)'}")
    for name, choose in WORKLOADS.items():
        for seats in (6, 9):
            hands = workload(seats, args.hands, seats, choose)
            decisions = sum(len(commands) for _, _, commands in hands) / len(hands)
            ours = statistics.median(run_ours(hands, seats) for _ in range(args.repeat))
            source = statistics.median(run_ours(hands, seats, pure) for _ in range(args.repeat))
            peer = statistics.median(run_pokerkit(hands[: args.peer_hands], seats) for _ in range(args.repeat))
            print(f"{name:8} {seats}-max ({decisions:4.1f} decisions/hand): mttsim {ours:8,.0f} hands/s"
                  f" (from source {source:7,.0f}), PokerKit {peer:5,.0f} hands/s, ratio {ours / peer:4,.0f}x"
                  f" (median of {args.repeat} runs)")


if __name__ == "__main__":
    main()
