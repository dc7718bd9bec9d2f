"""The prize table (a part of the tournament's state, engine/state.py): the prize of each place as the pool stands,
the pool it was sized from, and a satellite's seats (rules.md G.28-G.30, K.44). Its rules are engine/prizes.py."""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Purse:
    """Written only through its methods."""

    def __init__(self) -> None:
        self._prizes: list[int] = []
        self._pool_cents = 0
        self._seats_won = 0

    @property
    def prizes(self) -> list[int]:
        """The prize per place, first place first, in cents."""
        return self._prizes

    @property
    def pool_cents(self) -> int:
        """The pool the table was sized from: what it holds and what it has paid."""
        return self._pool_cents

    @property
    def seats_won(self) -> int:
        return self._seats_won

    def price(self, prizes: list[int], pool_cents: int, seats_won: int | None = None) -> None:
        """The table for the pool as it stands (a satellite's seats with it)."""
        self._prizes = prizes
        self._pool_cents = pool_cents
        if seats_won is not None:
            self._seats_won = seats_won
