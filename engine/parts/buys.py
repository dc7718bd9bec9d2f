"""What the players bought beyond their entry (a part of the tournament's state, engine/state.py): re-buys taken,
the re-buy period and the add-on's offer (rules.md F.25-F.26). Its rules are engine/rebuys.py."""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Buys:
    """Written only through its methods."""

    def __init__(self, has_rebuys: bool) -> None:
        self._rebuys_taken: dict[str, int] = {}
        self._period_over = not has_rebuys
        self._add_on_until: float | None = None
        self._add_ons: set[str] = set()

    @property
    def rebuys_taken(self) -> dict[str, int]:
        return self._rebuys_taken

    @property
    def period_over(self) -> bool:
        return self._period_over

    @property
    def add_on_until(self) -> float | None:
        """The add-on's deadline while it is offered; None otherwise."""
        return self._add_on_until

    @property
    def add_ons(self) -> set[str]:
        return self._add_ons

    def rebought(self, player: str) -> int:
        """``player`` bought a re-buy; returns how many they have bought."""
        count = self._rebuys_taken.get(player, 0) + 1
        self._rebuys_taken[player] = count
        return count

    def added_on(self, player: str) -> None:
        self._add_ons.add(player)

    def end_period(self, add_on_until: float | None) -> None:
        """The re-buy period is over; the add-on is offered until ``add_on_until``, if there is one."""
        self._period_over = True
        self._add_on_until = add_on_until

    def end_add_on(self) -> None:
        self._add_on_until = None
