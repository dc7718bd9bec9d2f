"""Cards as small integers, their text form, and the deck.

A card is ``rank * 4 + suit`` (rank 0 = deuce ... 12 = ace; suits c, d, h, s),
so a deck is ``range(52)`` and comparisons stay integer-fast on the hot path.
The text form ('As', 'Td', '2c') is what people, PHH files and the wire see.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterable, Sequence
from typing import Final

from mypy_extensions import mypyc_attr

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


def shuffled_deck(rng: random.Random, players: Sequence[str] = ()) -> list[int]:
    """A full deck in an order drawn only from ``rng``: the simulator's and the tests' fast, seeded decks. As the
    director's ``deal`` it is told who is dealt in, and deals them all alike."""
    deck = list(range(52))
    rng.shuffle(deck)
    return deck


_DECK: Final = tuple(range(52))  # copied, quicker than a range walked


def streamed_cards(stream: bytes, count: int) -> list[int]:
    """The first ``count`` cards of a deck in an order drawn from ``stream``'s first ``3 * count`` bytes: the
    simulator's decks, from a hash of its seed and the hand's number (bots/playing.py).

    A hand uses 2n+8 cards (holes, burns and board), so the rest of the deck
    is never drawn: a Fisher-Yates shuffle stopped after ``count`` places,
    each drawn by a 24-bit word scaled to the places left (a bias below 4e-6).
    """
    deck = list(_DECK)
    for top in range(count):
        at = 3 * top
        word = stream[at] | stream[at + 1] << 8 | stream[at + 2] << 16
        other = top + (word * (52 - top) >> 24)
        deck[top], deck[other] = deck[other], deck[top]
    del deck[count:]
    return deck


def keyed_deck(key: bytes, number: int) -> list[int]:
    """Deck ``number`` of a tournament whose secret is ``key``: the same deck every time (a journal replays
    it), and nobody without the key can tell it from the others, however many they have seen.

    SHAKE-256 of the key and the deck's number is a stream no observer can
    extend; a Fisher-Yates shuffle draws from it, two bytes a draw,
    rejecting the values that would bias a draw toward low indexes.
    """
    seed = key + number.to_bytes(8, "big")
    stream = hashlib.shake_256(seed).digest(256)
    position = 0
    deck = list(range(52))
    for top in range(51, 0, -1):
        bound = top + 1
        limit = 65536 - 65536 % bound
        while True:
            if position + 2 > len(stream):
                stream = hashlib.shake_256(seed).digest(2 * len(stream))  # the same stream, longer
            value = int.from_bytes(stream[position:position + 2], "big")
            position += 2
            if value < limit:
                break
        other = value % bound
        deck[top], deck[other] = deck[other], deck[top]
    return deck


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class KeyedDecks:
    """A live tournament's decks: each from its secret and the count of decks dealt before it.

    The director calls it with its seeded RNG, which it does not use: the
    seeding of tables and seats stays the director's, the cards are not.
    Pickled with the tournament, so a restored one deals on where it stood.
    """

    __slots__ = ("key", "dealt")

    def __init__(self, key: bytes) -> None:
        self.key = key
        self.dealt = 0

    def __call__(self, rng: random.Random, players: Sequence[str]) -> list[int]:
        self.dealt += 1
        return keyed_deck(self.key, self.dealt)

    def __getstate__(self) -> tuple[bytes, int]:
        return self.key, self.dealt

    def __setstate__(self, state: tuple[bytes, int]) -> None:
        self.key, self.dealt = state
