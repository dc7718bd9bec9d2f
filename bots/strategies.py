"""Bot strategies: pure functions from what a seat can see to a decision.

A strategy gets the legal actions (engine.hand.LegalActions) and an RNG and
returns ``(action, amount)`` as ``Hand.act`` takes it. Nothing here may look
at other players' hole cards.
"""

from __future__ import annotations

import random

from engine.hand import LegalActions


def random_player(legal: LegalActions, rng: random.Random) -> tuple[str, int | None]:
    """Checks or calls mostly, raises sometimes, folds to some bets."""
    roll = rng.random()
    if legal.min_raise_to is not None and roll < 0.15:
        return "raise", rng.randint(legal.min_raise_to, min(legal.max_raise_to, 3 * legal.min_raise_to))
    if legal.can_fold and roll > 0.7:
        return "fold", None
    return ("check", None) if legal.can_check else ("call", None)
