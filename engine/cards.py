"""Cards as small integers, their text form, and the deck.

A card is ``rank * 4 + suit`` (rank 0 = deuce ... 12 = ace; suits c, d, h, s),
so a deck is ``range(52)`` and comparisons stay integer-fast on the hot path.
The text form ('As', 'Td', '2c') is what people, PHH files and the wire see.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence

RANKS = "23456789TJQKA"
SUITS = "cdhs"
CARD_NAMES: tuple[str, ...] = tuple(rank + suit for rank in RANKS for suit in SUITS)
_CARD_BY_NAME = {name: index for index, name in enumerate(CARD_NAMES)}


def card(name: str) -> int:
    """The card for a name such as 'As'; a clear error for anything else."""
    try:
        return _CARD_BY_NAME[name]
    except KeyError:
        raise ValueError(f"{name!r} is not a card: expected a rank in {RANKS} and a suit in {SUITS}") from None


def cards(text: str | Iterable[str]) -> tuple[int, ...]:
    """Cards from 'AsKd' or from names; whitespace is ignored."""
    if isinstance(text, str):
        compact = "".join(text.split())
        if len(compact) % 2:
            raise ValueError(f"{text!r} is not a list of two-character cards")
        return tuple(card(compact[i : i + 2]) for i in range(0, len(compact), 2))
    return tuple(card(name) for name in text)


def card_text(cards_: Sequence[int]) -> str:
    """'AsKd' for a sequence of cards."""
    return "".join(CARD_NAMES[c] for c in cards_)


def shuffled_deck(rng: random.Random) -> list[int]:
    """A full deck in an order drawn only from ``rng``.

    Tests and simulations pass a seeded ``random.Random`` so hands replay; the
    server passes ``secrets.SystemRandom()``.
    """
    deck = list(range(52))
    rng.shuffle(deck)
    return deck
