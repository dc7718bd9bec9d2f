"""Bot strategies: pure functions from what a seat can see to a decision.

A strategy gets a :class:`SeatView` and an RNG and returns ``(action, amount)``
as ``Hand.act`` takes it. A view holds only what the seat's owner sees: their
own hole cards, the board, the pot, their stack and the legal actions.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from typing import NamedTuple

from engine.cards import RANKS
from engine.evaluate import hand_category, hand_strength
from engine.hand import Hand, LegalActions
from engine.wire import Action

Decision = tuple[Action, int | None]


class SeatView(NamedTuple):
    legal: LegalActions
    hole: tuple[int, int]
    board: tuple[int, ...]
    pot: int  # every chip in the middle, this street's bets included
    stack: int
    big_blind: int


def seat_view(hand: Hand) -> SeatView:
    """What the player to act sees of ``hand`` (the simulator's in-process stand-in for the wire)."""
    legal = hand.legal_actions()
    seat = legal.player
    pot = sum(hand.committed) + sum(hand.bets) + hand.dead
    return SeatView(legal, hand.hole[seat], tuple(hand.board), pot, hand.stacks[seat], hand.big_blind)


def _passive(legal: LegalActions) -> Decision:
    return ("check", None) if legal.can_check else ("call", None)


def _check_or_fold(legal: LegalActions) -> Decision:
    return ("check", None) if legal.can_check else ("fold", None)


def _raise(legal: LegalActions, to: int) -> Decision:
    """Raise to ``to``, kept inside the legal range; call when no raise is allowed."""
    if legal.min_raise_to is None or legal.max_raise_to is None:
        return _passive(legal)
    return "raise", max(legal.min_raise_to, min(legal.max_raise_to, to))


def random_player(view: SeatView, rng: random.Random) -> Decision:
    """Checks or calls mostly, raises sometimes, folds to some bets."""
    legal = view.legal
    roll = rng.random()
    if legal.min_raise_to is not None and legal.max_raise_to is not None and roll < 0.15:
        return "raise", rng.randint(legal.min_raise_to, min(legal.max_raise_to, 3 * legal.min_raise_to))
    if legal.can_fold and roll > 0.7:
        return "fold", None
    return _passive(legal)


def calling_station(view: SeatView, rng: random.Random) -> Decision:
    """Never folds, never raises."""
    return _passive(view.legal)


def preflop_score(hole: tuple[int, int]) -> int:
    """A rough starting-hand score, 0-100: pairs and high, suited, connected cards score higher."""
    high, low = sorted((hole[0] // 4, hole[1] // 4), reverse=True)
    if high == low:
        return 50 + 4 * high
    score = 3 * high + 2 * low
    if hole[0] % 4 == hole[1] % 4:
        score += 6
    if high - low == 1:
        score += 4
    return score


ACE = RANKS.index("A")
PREMIUM = preflop_score((4 * ACE, 4 * RANKS.index("J")))  # AJ offsuit and better


def tight_aggressive(view: SeatView, rng: random.Random) -> Decision:
    """Plays few hands, raises them; after the flop bets made hands and gives up on air.

    Pre-flop it raises the top hands, calls cheap with middling ones and
    folds the rest. After the flop, by the evaluator's hand category: two
    pair or better bets the pot; one pair calls when the pot odds are better
    than 2 to 1; anything less checks or folds.
    """
    legal = view.legal
    if not view.board:
        score = preflop_score(view.hole)
        if score >= PREMIUM:
            return _raise(legal, 3 * max(view.big_blind, legal.call + legal.call // 2) + legal.call)
        if score >= 45 and legal.call <= 3 * view.big_blind:
            return _passive(legal)
        return _check_or_fold(legal)
    category = hand_category(hand_strength(view.hole + view.board))
    if category not in ("High Card", "Pair"):
        return _raise(legal, view.pot + legal.call)
    # Pot odds: a pair calls while the price is under a third of the pot it would win.
    if category == "Pair" and 3 * legal.call <= view.pot + legal.call:
        return _passive(legal)
    return _check_or_fold(legal)


def push_fold(view: SeatView, rng: random.Random) -> Decision:
    """Short-stack play: at ten big blinds or less, all-in with a decent hand, otherwise fold; deeper, tight."""
    legal = view.legal
    if view.stack + legal.call > 10 * view.big_blind or view.board:
        return tight_aggressive(view, rng)
    if preflop_score(view.hole) >= 40:
        return ("raise", legal.max_raise_to) if legal.max_raise_to is not None else _passive(legal)
    return _check_or_fold(legal)


Strategy = Callable[[SeatView, random.Random], Decision]

STRATEGIES: dict[str, Strategy] = {
    "random": random_player,
    "station": calling_station,
    "tag": tight_aggressive,
    "pushfold": push_fold,
}


class MoneyView(NamedTuple):
    """What a seat sees when it is offered chips for money or a deal.

    ``offer`` is 'rebuy', 'add_on', 'press_deal' or 'deal'; ``deal_cents``
    is this seat's amount in a proposed deal, ``chip_share`` its part of
    the chips in play and ``pool_cents`` what the prizes left add up to.
    """

    offer: str
    stack: int
    starting_stack: int
    chip_share: float = 0.0
    deal_cents: int = 0
    pool_cents: int = 0


def money_choice(strategy: str, view: MoneyView, rng: random.Random) -> bool:
    """Whether a bot of ``strategy`` says yes: buy the chips, press Deal, accept the deal.

    A station says yes to everything; a random bot flips a coin; a tight
    player re-buys, adds on when short (under two starting stacks), wants a
    deal, and accepts one worth at least 90% of its chip share of the
    prizes; a push/fold player buys every chip it can and plays on.
    """
    if strategy == "station":
        return True
    if strategy == "random":
        return rng.random() < 0.5
    if strategy == "pushfold":
        return view.offer in ("rebuy", "add_on")
    if view.offer == "add_on":
        return view.stack < 2 * view.starting_stack
    if view.offer == "deal":
        return view.deal_cents >= 0.9 * view.chip_share * view.pool_cents
    return True


def parse_mix(text: str, known: Iterable[str] = STRATEGIES) -> dict[str, float]:
    """'tag=4,random=1' -> weights per tag; a tag not in ``known`` is refused by name."""
    known = list(known)
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        name = name.strip()
        if name not in known:
            raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(known)}")
        try:
            mix[name] = float(weight or 1)
        except ValueError:
            raise ValueError(f"weight of {name} must be a number, not {weight!r}") from None
        if not 0 <= mix[name] < float("inf"):
            raise ValueError(f"weight of {name} must be a finite number, 0 or more, not {weight!r}")
    if sum(mix.values()) <= 0:
        raise ValueError("the mix needs a positive weight")
    return mix
