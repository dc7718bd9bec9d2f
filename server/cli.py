"""The ``mttsim`` command line."""

from __future__ import annotations

import argparse
import random
import sys

from bots.strategies import random_player
from engine.cards import card_text, shuffled_deck
from engine.events import Acted, BoardDealt, HandEnded, HoleDealt, PotAwarded, Posted, Returned, Shown
from engine.hand import Hand


def describe(event) -> str:
    """One line of plain English per hand event, for the terminal."""
    match event:
        case Posted(player=p, kind=kind, amount=amount):
            return f"{p} posts {kind.replace('_', ' ')} {amount}"
        case HoleDealt(player=p, cards=cards):
            return f"{p} is dealt {card_text(cards)}"
        case BoardDealt(street=street, cards=cards):
            return f"--- {street}: {card_text(cards)}"
        case Acted(player=p, action=action, amount=amount, to=to, all_in=all_in):
            detail = {"bet": f" to {to}", "raise": f" to {to}", "call": f" {amount}"}.get(action, "")
            return f"{p} {action}s{detail}{' (all-in)' if all_in else ''}"
        case Returned(player=p, amount=amount):
            return f"{amount} uncalled returned to {p}"
        case Shown(player=p, cards=cards):
            return f"{p} shows {card_text(cards)}"
        case PotAwarded(pot=number, amount=amount, winners=winners, shares=shares):
            name = "main pot" if number == 0 else f"side pot {number}"
            return f"{name} {amount}: " + ", ".join(f"{w} wins {s}" for w, s in zip(winners, shares))
        case HandEnded(stacks=stacks):
            return f"stacks: {list(stacks)}"
    return repr(event)


def demo(args: argparse.Namespace) -> int:
    """Play a few hands among bots and narrate them (until the server exists)."""
    rng = random.Random(args.seed)
    players = [f"bot{i}" for i in range(1, args.players + 1)]
    stacks = [1000] * len(players)
    for number in range(1, args.hands + 1):
        seated = [(p, s) for p, s in zip(players, stacks) if s > 0]
        if len(seated) < 2:
            break
        print(f"\n=== hand {number}")
        hand = Hand([p for p, _ in seated], [s for _, s in seated], small_blind=10, big_blind=20,
                    deck=shuffled_deck(rng))
        while not hand.finished:
            hand.act(*random_player(hand.legal_actions(), rng))
        for event in hand.events:
            print(describe(event))
        final = dict(zip(hand.players, hand.stacks))
        stacks = [final.get(p, 0) for p in players]
        players = players[1:] + players[:1]  # the button moves one seat
        stacks = stacks[1:] + stacks[:1]
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="mttsim", description=__doc__)
    commands = parser.add_subparsers(dest="command", required=True)
    demo_parser = commands.add_parser("demo", help="play a few bot hands in the terminal")
    demo_parser.add_argument("--players", type=int, default=6)
    demo_parser.add_argument("--hands", type=int, default=3)
    demo_parser.add_argument("--seed", type=int, default=None)
    demo_parser.set_defaults(run=demo)
    args = parser.parse_args(argv)
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
