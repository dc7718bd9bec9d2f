"""The chips (a part of the tournament's state, engine/state.py): each live player's stack, and every chip issued
(starting stacks, late entries, re-buys, add-ons, qualified stacks), which the chips in play must equal after
every event. Its one writer keeps the two together: a stack comes in or leaves play with its chips issued."""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Stacks:
    """The live players' stacks (start-of-hand values while a hand is on) and the chips issued. Written only
    through its methods."""

    def __init__(self) -> None:
        self._stacks: dict[str, int] = {}
        self._issued = 0

    @property
    def stacks(self) -> dict[str, int]:
        """player -> stack; read it, the methods change it."""
        return self._stacks

    @property
    def issued(self) -> int:
        return self._issued

    def admit(self, player: str, stack: int) -> None:
        """A new entry with ``stack`` new chips."""
        self._stacks[player] = stack
        self._issued += stack

    def withdraw(self, player: str) -> int:
        """``player`` leaves play with their chips, which are no longer issued (unregistered, taken out, a
        qualification withdrawn); returns them."""
        chips = self._stacks.pop(player)
        self._issued -= chips
        return chips

    def raise_to(self, player: str, stack: int) -> None:
        """``player``'s stack replaced by a larger one (a better qualification, L.48): the difference is issued."""
        self._issued += stack - self._stacks[player]
        self._stacks[player] = stack

    def issue(self, chips: int) -> None:
        """Chips bought (a re-buy, an add-on), issued now; ``credit`` them, or hold them for a hand's end."""
        self._issued += chips

    def credit(self, player: str, chips: int) -> None:
        """Chips already issued added to ``player``'s stack (bought, merged, or held for a hand's end)."""
        self._stacks[player] += chips

    def set(self, player: str, stack: int) -> None:
        """``player``'s stack as a hand left it."""
        self._stacks[player] = stack

    def take(self, player: str) -> int:
        """``player``'s chips, still issued, leave their stack (merged into another of the person's entries)."""
        return self._stacks.pop(player)

    def bust(self, player: str) -> None:
        """``player`` is out with no chip."""
        del self._stacks[player]

    def clear(self) -> None:
        """Cancelled: the chips are exchanged for the refunds and leave play, issued with them."""
        self._stacks.clear()
        self._issued = 0

    def settle(self) -> None:
        """A whole deal settled what the chips were worth: nobody is left in play."""
        self._stacks.clear()
