"""A deal in the making (a part of the tournament's state, engine/state.py): who pressed Deal, the kind of deal a
player asked for, the proposal on the table, and what partial deals paid so far (rules.md H.36-H.37). Its rules
are engine/deals.py."""

from __future__ import annotations

from typing import Literal

from mypy_extensions import mypyc_attr

Kind = Literal["icm", "chip_chop", "equal", "custom"]
KINDS: tuple[Kind, ...] = ("icm", "chip_chop", "equal", "custom")


class Terms:
    """What a player asked for, proposed when the hand in progress ends."""

    def __init__(self, proposer: str, kind: Kind, keep_cents: int, amounts: dict[str, int] | None) -> None:
        self.proposer = proposer
        self.kind = kind
        self.keep_cents = keep_cents
        self.amounts = amounts


class Deal:
    """A proposal every player left must accept before ``until`` (H.36). Without slots, so that a snapshot
    pickled before deals had kinds loads with the class defaults."""

    kind: Kind = "icm"
    keep_cents = 0
    opened_at: float | None = None  # on the caller's clock: the level's clock stands still from then (H.36)
    icm_cents: dict[str, int] | None = None  # what ICM would pay each of the same split, to decide with

    def __init__(self, amounts: dict[str, int], until: float, seat_order: list[str], kind: Kind = "icm",
                 keep_cents: int = 0, opened_at: float | None = None,
                 icm_cents: dict[str, int] | None = None) -> None:
        self.amounts = amounts
        self.until = until
        self.accepted: set[str] = set()
        self.seat_order = seat_order
        self.kind = kind
        self.keep_cents = keep_cents
        self.opened_at = opened_at
        self.icm_cents = icm_cents


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Negotiation:
    """Written only through its methods."""

    def __init__(self) -> None:
        self._pressed: set[str] = set()
        self._terms: Terms | None = None  # a kind of deal a player asked for, proposed between hands
        self._proposal: Deal | None = None
        self._dealt: dict[str, int] = {}  # what partial deals paid each player so far

    @property
    def pressed(self) -> set[str]:
        return self._pressed

    @property
    def terms(self) -> Terms | None:
        return self._terms

    @property
    def proposal(self) -> Deal | None:
        return self._proposal

    @property
    def dealt(self) -> dict[str, int]:
        return self._dealt

    def press(self, player: str, on: bool) -> None:
        if on:
            self._pressed.add(player)
        else:
            self._pressed.discard(player)

    def ask(self, terms: Terms) -> None:
        self._terms = terms

    def take_terms(self) -> Terms | None:
        """The terms asked for, off the table: the proposal is made of them."""
        terms, self._terms = self._terms, None
        return terms

    def propose(self, deal: Deal) -> None:
        self._proposal = deal

    def accept(self, player: str) -> None:
        assert self._proposal is not None
        self._proposal.accepted.add(player)

    def close(self) -> None:
        """The proposal is settled: accepted, rejected, or dropped."""
        self._proposal = None

    def start_over(self) -> None:
        """The players changed, or a deal fell through: nobody has pressed Deal, nothing is asked."""
        self._pressed.clear()
        self._terms = None

    def paid(self, player: str, cents: int) -> None:
        """A partial deal paid ``player`` ``cents``."""
        self._dealt[player] = self._dealt.get(player, 0) + cents
