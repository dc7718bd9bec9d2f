"""What waits (a part of the tournament's state, engine/state.py): re-buy offers and the busts they hold back from
ranking (rules.md F.25), chips bought or merged during a hand (F.26, M.51), and a deal due when the hand ends
(H.36). Its policy is engine/rebuys.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from mypy_extensions import mypyc_attr

from engine import pickling
from engine.parts.busts import Bust


HELD_FIELDS = ("busts", "round_", "waiting")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Held:
    """A hand's (or round's) busts waiting for re-buy decisions before they are ranked (F.25)."""

    __slots__ = HELD_FIELDS

    def __init__(self, busts: list[Bust], round_: bool, waiting: set[str]) -> None:
        self.busts = busts
        self.round_ = round_
        self.waiting = waiting

    def __getstate__(self) -> dict[str, Any]:
        return pickling.state(self, HELD_FIELDS)

    def __setstate__(self, pickled: pickling.State) -> None:
        pickling.restore(self, pickled)


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Pending:
    """What waits on an answer or the end of a hand: re-buy offers and the busts they hold back from ranking
    (F.25), chips bought or merged during a hand (F.26, M.51), and a deal due when the hand ends (H.36).
    Written only through its methods."""

    def __init__(self) -> None:
        self._offers: dict[str, float] = {}  # player -> the deadline of their re-buy offer
        self._held: list[Held] = []
        self._chips: dict[str, int] = {}  # chips for players in a hand, added when it ends
        self._deal_due = False

    @property
    def offers(self) -> Mapping[str, float]:
        return self._offers

    def hold(self, busts: list[Bust], round_: bool, offers: dict[str, float]) -> None:
        """A batch of busts waits until every offer of it (player -> deadline) is answered."""
        self._held.append(Held(busts, round_, set(offers)))
        self._offers.update(offers)

    def holds(self) -> bool:
        """Whether any batch of busts waits for answers."""
        return bool(self._held)

    def holds_any(self, players: list[str]) -> bool:
        """Whether one of ``players`` is a bust not yet ranked: offered a re-buy, or waiting for the others of
        their batch to answer. A table seating one deals no hand (F.25, TDA 27: no hand is missed)."""
        return any(bust.player in players for held in self._held for bust in held.busts)

    def answered(self, player: str, *, rebought: bool) -> Held | None:
        """``player`` answered their offer; the batch it held, once every offer of it is answered."""
        del self._offers[player]
        held = next(h for h in self._held if player in h.waiting)
        held.waiting.discard(player)
        if rebought:
            held.busts = [bust for bust in held.busts if bust.player != player]
        if held.waiting:
            return None
        self._held.remove(held)
        return held

    def withdraw(self, player: str) -> None:
        """A player taken out keeps no offer."""
        self._offers.pop(player, None)

    def expired(self, now: float) -> list[str]:
        """The players whose offer's clock has run out by ``now``, first deadline first."""
        if not self._offers:
            return []  # as nearly always: the director asks at every step of the clock
        return [player for player, until in sorted(self._offers.items(), key=lambda item: item[1]) if until <= now]

    def drop_all(self) -> list[str]:
        """The tournament is cancelled: every offer withdrawn, no batch held; returns who had an offer."""
        offered = list(self._offers)
        self._offers.clear()
        self._held.clear()
        return offered

    def has_chips(self) -> bool:
        return bool(self._chips)

    def chips_of(self, player: str) -> int:
        return self._chips.get(player, 0)

    def total_chips(self) -> int:
        return sum(self._chips.values())

    def add_chips(self, player: str, chips: int) -> None:
        self._chips[player] = self._chips.get(player, 0) + chips

    def take_chips(self, player: str) -> int:
        """The chips waiting for ``player``, now theirs (their hand ended or was void)."""
        return self._chips.pop(player, 0) if self._chips else 0

    @property
    def deal_due(self) -> bool:
        """Whether a deal is to be proposed once no hand is in progress and no batch is held (H.36)."""
        return self._deal_due

    def set_deal_due(self, due: bool) -> None:
        self._deal_due = due
