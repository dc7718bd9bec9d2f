"""A bust (a part of the tournament's state, engine/state.py): a player who lost every chip in a hand, waiting to
be ranked with the rest of that hand's (or round's) busts (rules.md G.28-G.29), and held by a round or a
re-buy offer meanwhile.
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from engine import pickling


BUST_FIELDS = ("player", "start_stack", "table", "position", "tie", "knocked_out_by")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Bust:
    """A player who lost every chip in a hand, ranked with the rest of that hand's (or round's) busts."""

    __slots__ = BUST_FIELDS

    def __init__(self, player: str, start_stack: int, table: int, position: int,
                 knocked_out_by: tuple[str, ...] = ()) -> None:
        self.player = player
        self.start_stack = start_stack
        self.table = table
        self.position = position  # 0 = first seat dealt left of the button
        self.tie = 0  # busts with the same value share their places' prizes
        self.knocked_out_by = knocked_out_by  # who takes the bounty (rules.md J.41)

    def __getstate__(self) -> dict[str, Any]:
        return pickling.state(self, BUST_FIELDS)

    def __setstate__(self, pickled: pickling.State) -> None:
        pickling.restore(self, pickled)
