"""Money: the ledger every cent of a tournament passes through, and the rounding of shares to cents.

Money is integer cents (rules.md G.30). The ledger is append-only: each
movement names its kind, the entry it belongs to and the cents. It keeps the
balances of three accounts the tournament holds: the prize pool, the fees and
the bounties (rules.md J), so that at every moment ``paid in == paid out +
held``, and a finished or cancelled tournament holds nothing: its pool and
bounties were paid out as prizes, bounties or refunds, and its fees were kept
by the house or refunded.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from typing import Literal

import msgspec

Kind = Literal[
    "buy_in", "fee", "rebuy", "rebuy_fee", "add_on", "add_on_fee", "bounty_in",  # in: from a player
    "added",  # in: prize money the house adds (a freeroll's sponsored pool)
    "carried_in", "carried",  # a flight's pool, into its final and out of the flight
    # What its target did not take, back in the pool it left: a seat (from its winner) or a flight's carried pool
    # (from the house), to be paid out again in cash (engine/delivery.py); and a withdrawn qualification's share
    # of a flight's pool, out of the final's pool (engine/flights.py).
    "returned", "carried_back",
    "refund", "prize", "ticket", "bounty", "fee_kept",  # out: to a player (a ticket is a seat), or fees to the house
    # The director's corrections (seed 004, Special cases), through their own account: the house funds a
    # compensation that goes to a player; a prize paid in error comes back from the player and goes to the house.
    "compensation_funded", "compensation", "withdrawn", "withdrawn_kept",
]
Account = Literal["pool", "fees", "bounties", "corrections"]
PAID_INTO: dict[str, Account] = {
    "buy_in": "pool", "rebuy": "pool", "add_on": "pool", "added": "pool",
    "fee": "fees", "rebuy_fee": "fees", "add_on_fee": "fees", "bounty_in": "bounties", "carried_in": "pool",
    "compensation_funded": "corrections", "withdrawn": "corrections", "returned": "pool",
}
_OUT_FROM: dict[str, Account] = {"prize": "pool", "ticket": "pool", "carried": "pool", "carried_back": "pool",
                                 "bounty": "bounties",
                                 "fee_kept": "fees", "compensation": "corrections", "withdrawn_kept": "corrections"}
_TOTAL_OF = {"prize": "prizes", "ticket": "tickets", "refund": "refunds", "bounty": "bounties", "carried": "carried",
             "compensation": "compensations", "carried_back": "carried_back"}


class LedgerError(ValueError):
    """A movement that would take out more than the tournament holds."""


class Movement(msgspec.Struct, frozen=True):
    """``cents`` (positive) of ``kind`` for ``player`` (an entry id; '' for the house), in or out of ``account``."""

    kind: Kind
    player: str
    cents: int
    account: Account


class Ledger:
    """The append-only record of a tournament's money, with the balances it implies."""

    def __init__(self) -> None:
        self.movements: list[Movement] = []
        self.held: dict[Account, int] = {"pool": 0, "fees": 0, "bounties": 0, "corrections": 0}
        self.paid_in_cents = 0
        self.paid_out_cents = 0
        self.prizes_cents = 0

    def __setstate__(self, state: dict[str, object]) -> None:
        """A ledger pickled before corrections had their account gets it, empty."""
        held = state["held"]
        assert isinstance(held, dict)
        held.setdefault("corrections", 0)
        self.__dict__.update(state)

    @property
    def pool_cents(self) -> int:
        return self.held["pool"]

    @property
    def fees_cents(self) -> int:
        return self.held["fees"]

    @property
    def bounties_cents(self) -> int:
        return self.held["bounties"]

    def record(self, kind: Kind, player: str, cents: int, *, account: Account | None = None) -> Movement:
        """Append one movement; refuses a non-positive amount or one the account cannot cover.

        Money in goes to its kind's account; a refund says which account it
        gives back from (the pool unless told).
        """
        if not isinstance(cents, int) or cents <= 0:
            raise LedgerError(f"a {kind} must be a positive whole number of cents, not {cents!r}")
        if kind in PAID_INTO:
            account = PAID_INTO[kind]
            self.held[account] += cents
            self.paid_in_cents += cents
        else:
            account = account or _OUT_FROM.get(kind, "pool")
            if cents > self.held[account]:
                raise LedgerError(f"a {kind} of {cents} cents exceeds the {self.held[account]} cents held in {account}")
            self.held[account] -= cents
            self.paid_out_cents += cents
            if kind in ("prize", "ticket"):
                self.prizes_cents += cents
        movement = Movement(kind, player, cents, account)
        self.movements.append(movement)
        return movement

    def balances(self) -> bool:
        """Money in equals money out plus money held (recomputed from the movements, not the counters)."""
        paid_in = sum(m.cents for m in self.movements if m.kind in PAID_INTO)
        paid_out = sum(m.cents for m in self.movements if m.kind not in PAID_INTO)
        return paid_in == paid_out + sum(self.held.values()) and min(self.held.values()) >= 0

    def summary(self) -> dict[str, int]:
        """Where the money went, in cents: what came in, what went out by kind, and what is still held.

        Kept until the next movement (the ledger is append-only): a live page's feed asks every second.
        """
        kept: tuple[int, dict[str, int]] | None = getattr(self, "_summary", None)  # absent in older pickles
        if kept is not None and kept[0] == len(self.movements):
            return dict(kept[1])
        totals = {"paid_in": self.paid_in_cents, "prizes": 0, "tickets": 0, "bounties": 0, "carried": 0, "refunds": 0,
                  "fees_kept": 0, "compensations": 0, "withdrawn": 0, "returned": 0, "carried_back": 0,
                  "held": sum(self.held.values())}
        for movement in self.movements:
            if movement.kind in _TOTAL_OF:
                totals[_TOTAL_OF[movement.kind]] += movement.cents
            elif movement.kind == "fee_kept":
                totals["fees_kept"] += movement.cents
            elif movement.kind in ("withdrawn", "returned"):
                totals[movement.kind] += movement.cents
        self._summary = (len(self.movements), totals)
        return dict(totals)

    def paid_by(self, player: str) -> dict[str, int]:
        """What one entry paid in, by kind."""
        totals: dict[str, int] = {}
        for movement in self.movements:
            if movement.player == player and movement.kind in PAID_INTO:
                totals[movement.kind] = totals.get(movement.kind, 0) + movement.cents
        return totals

    def received_by(self, player: str) -> int:
        return sum(m.cents for m in self.movements
                   if m.player == player and m.kind in _TOTAL_OF)


def equal_shares(cents: int, ways: int) -> list[int]:
    """``cents`` in ``ways`` whole shares as equal as they can be, the odd cents one each to the first."""
    share, odd = divmod(cents, ways)
    return [share + (1 if k < odd else 0) for k in range(ways)]


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


def dollars(cents: int) -> str:
    """Cents as a person reads money: 123456 -> "$1,234.56" (integer arithmetic: no float rounds a cent)."""
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"
