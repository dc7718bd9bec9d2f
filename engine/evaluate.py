"""Hand ranking: a thin face over eval7.

eval7 is a C-backed evaluator that ranks about 2.5 million seven-card hands a
second here, against a few thousand for PokerKit's pure-Python lookup; see
docs/dependencies.md. Only this module knows about eval7, so swapping the
evaluator touches one file.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import eval7

from engine.cards import CARD_NAMES

_EVAL7_CARDS = tuple(eval7.Card(name) for name in CARD_NAMES)
_evaluate: Callable[[list[Any]], int] = eval7.evaluate  # eval7 ships no types
_handtype: Callable[[int], str] = eval7.handtype


def hand_strength(cards: Sequence[int]) -> int:
    """Strength of the best five-card hand among 5-7 cards: higher wins, equal ties."""
    lookup = _EVAL7_CARDS
    return _evaluate([lookup[c] for c in cards])


def hand_category(strength: int) -> str:
    """'Pair', 'Flush', ... for a strength from ``hand_strength``."""
    return _handtype(strength)


HIGH_CARD: Final = 0  # classes of hand (``hand_class``); the others follow up to 8, a straight flush
PAIR: Final = 1
TWO_PAIR: Final = 2
THREE_OF_A_KIND: Final = 3


def hand_class(strength: int) -> int:
    """``hand_category`` as a number, 0 (high card) to 8 (straight flush): a shift, where the name is a call
    into eval7 and a string to compare. eval7 keeps the class above a strength's 24th bit."""
    return strength >> 24
