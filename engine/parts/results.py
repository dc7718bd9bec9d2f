"""The finishing places (a part of the tournament's state, engine/state.py): each entry out and its result, who
knocked out whom, the entries the director took out (and those to take out when their hand ends), and what a
cancellation paid back."""

from __future__ import annotations

import msgspec
from mypy_extensions import mypyc_attr

from engine.events import Result
from engine.refunds import Refund


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Results:
    """Written only through its methods."""

    def __init__(self) -> None:
        self._results: dict[str, Result] = {}
        self._knockouts: dict[str, int] = {}  # player -> the players they eliminated (a shared pot counts whole)
        self._removed: dict[str, bool] = {}  # entries the director took out -> refunded or not
        self._removals: dict[str, bool] = {}  # to take out when their hand ends -> with a refund or not
        self._refunds: list[Refund] = []  # what a cancellation paid back

    @property
    def results(self) -> dict[str, Result]:
        """player -> their result, in the order they went out; read it, the methods change it."""
        return self._results

    @property
    def knockouts(self) -> dict[str, int]:
        return self._knockouts

    @property
    def removed(self) -> dict[str, bool]:
        return self._removed

    @property
    def removals(self) -> dict[str, bool]:
        return self._removals

    @property
    def refunds(self) -> list[Refund]:
        return self._refunds

    def record(self, result: Result) -> None:
        self._results[result.player] = result

    def renumber(self, player: str, place: int) -> None:
        """``player``'s place, now that the field is known (engine.windows)."""
        self._results[player] = msgspec.structs.replace(self._results[player], place=place)

    def knocked_out(self, knocker: str) -> None:
        self._knockouts[knocker] = self._knockouts.get(knocker, 0) + 1

    def remove_later(self, player: str, refund: bool) -> None:
        """``player`` is to be taken out when their hand ends."""
        self._removals[player] = refund

    def removal_of(self, player: str) -> bool:
        """The removal waiting for ``player``'s hand to end, taken: with a refund or not."""
        return self._removals.pop(player)

    def removed_now(self, player: str, refund: bool) -> None:
        self._removed[player] = refund

    def refunded(self, refunds: list[Refund]) -> None:
        self._refunds = refunds
