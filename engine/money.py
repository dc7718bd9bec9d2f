"""Money: the ledger every cent of a tournament passes through, and the rounding of shares to cents.

Money is integer cents (rules.md G.30). The ledger is append-only: each
movement names its kind, the entry it belongs to and the cents. It keeps two
balances the tournament holds, the prize pool and the fees, so that at every
moment ``paid in == paid out + held``, and a finished or cancelled tournament
holds nothing: its pool was paid out as prizes or refunds, and its fees were
kept by the house or refunded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import msgspec

Kind = Literal[
    "buy_in", "fee", "rebuy", "rebuy_fee", "add_on", "add_on_fee",  # in: from a player
    "added",  # in: prize money the house adds (a freeroll's sponsored pool)
    "refund", "prize", "fee_kept",  # out: to a player, or the fees to the house
]
_POOL_IN = frozenset({"buy_in", "rebuy", "add_on", "added"})
_FEES_IN = frozenset({"fee", "rebuy_fee", "add_on_fee"})


class LedgerError(ValueError):
    """A movement that would take out more than the tournament holds."""


class Movement(msgspec.Struct, frozen=True):
    """``cents`` (positive) of ``kind`` for ``player`` (an entry id; '' for the house).

    A refund or a prize comes out of the pool unless ``from_fees`` says it
    gives a fee back.
    """

    kind: Kind
    player: str
    cents: int
    from_fees: bool = False


class Ledger:
    """The append-only record of a tournament's money, with the balances it implies."""

    def __init__(self) -> None:
        self.movements: list[Movement] = []
        self.pool_cents = 0
        self.fees_cents = 0
        self.paid_in_cents = 0
        self.paid_out_cents = 0
        self.prizes_cents = 0

    def record(self, kind: Kind, player: str, cents: int, *, from_fees: bool = False) -> Movement:
        """Append one movement; refuses a non-positive amount or one the balances cannot cover."""
        if not isinstance(cents, int) or cents <= 0:
            raise LedgerError(f"a {kind} must be a positive whole number of cents, not {cents!r}")
        if kind in _POOL_IN:
            self.pool_cents += cents
            self.paid_in_cents += cents
        elif kind in _FEES_IN:
            self.fees_cents += cents
            self.paid_in_cents += cents
        else:
            from_fees = from_fees or kind == "fee_kept"
            held = self.fees_cents if from_fees else self.pool_cents
            if cents > held:
                raise LedgerError(f"a {kind} of {cents} cents exceeds the {held} cents held")
            if from_fees:
                self.fees_cents -= cents
            else:
                self.pool_cents -= cents
            self.paid_out_cents += cents
            if kind == "prize":
                self.prizes_cents += cents
        movement = Movement(kind, player, cents, from_fees)
        self.movements.append(movement)
        return movement

    def balances(self) -> bool:
        """Money in equals money out plus money held (recomputed from the movements, not the counters)."""
        paid_in = sum(m.cents for m in self.movements if m.kind in _POOL_IN or m.kind in _FEES_IN)
        paid_out = sum(m.cents for m in self.movements if m.kind not in _POOL_IN and m.kind not in _FEES_IN)
        return paid_in == paid_out + self.pool_cents + self.fees_cents and self.pool_cents >= 0 <= self.fees_cents

    def summary(self) -> dict[str, int]:
        """Where the money went, in cents: what came in, what went out by kind, and what is still held."""
        totals = {"paid_in": self.paid_in_cents, "prizes": 0, "refunds": 0, "fees_kept": 0,
                  "held": self.pool_cents + self.fees_cents}
        for movement in self.movements:
            if movement.kind in ("prize", "refund"):
                totals[movement.kind + "s"] += movement.cents
            elif movement.kind == "fee_kept":
                totals["fees_kept"] += movement.cents
        return totals

    def paid_by(self, player: str) -> dict[str, int]:
        """What one entry paid in, by kind."""
        totals: dict[str, int] = {}
        for movement in self.movements:
            if movement.player == player and (movement.kind in _POOL_IN or movement.kind in _FEES_IN):
                totals[movement.kind] = totals.get(movement.kind, 0) + movement.cents
        return totals

    def received_by(self, player: str) -> int:
        return sum(m.cents for m in self.movements
                   if m.player == player and m.kind in ("refund", "prize"))


def largest_remainder(shares: Sequence[Fraction | float], total_cents: int,
                      tie_order: Sequence[int] | None = None) -> list[int]:
    """Whole cents for exact ``shares`` summing to ``total_cents`` (rules.md G.30).

    Each gets the floor of its share; the cents left go one each to the
    largest remainders. Equal remainders go by ``tie_order`` (lower first: the
    caller ranks the larger stack, then the earlier seat after the button).
    Float shares are compared to a millionth of a cent, so equal stacks whose
    equities differ only by rounding noise still tie.
    """
    count = len(shares)
    order = list(tie_order) if tie_order is not None else list(range(count))
    floors = [math.floor(share) for share in shares]
    left = total_cents - sum(floors)
    if not 0 <= left <= count:
        raise ValueError(f"shares sum to {float(sum(shares)):.6f}, not {total_cents} cents")

    def remainder(index: int) -> Fraction | float:
        rest = shares[index] - floors[index]
        return rest if isinstance(rest, Fraction) else round(rest, 6)

    ranked = sorted(range(count), key=lambda i: (-remainder(i), order[i]))
    for index in ranked[:left]:
        floors[index] += 1
    return floors
