"""The bounties (a part of the tournament's state, engine/state.py): the cents on each live head (rules.md J), and
a mystery bounty's envelopes left to draw. The rule of each kind of bounty is engine/bounties.py."""

from __future__ import annotations

from mypy_extensions import mypyc_attr


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Heads:
    """player -> the bounty on their head, in cents; and the envelopes, once sized. Written only through its
    methods."""

    def __init__(self) -> None:
        self._bounties: dict[str, int] = {}
        self._envelopes: list[int] | None = None

    @property
    def bounties(self) -> dict[str, int]:
        """player -> cents; read it, the methods change it."""
        return self._bounties

    @property
    def envelopes(self) -> list[int] | None:
        """A mystery bounty's envelopes left, in cents; None until they are sized."""
        return self._envelopes

    def put(self, player: str, cents: int) -> None:
        self._bounties[player] = cents

    def take(self, player: str) -> int:
        """The bounty on ``player``'s head, off it."""
        return self._bounties.pop(player)

    def drop(self, player: str) -> None:
        """An entry gone before it played (unregistered) takes no head with it here: its money is refunded."""
        self._bounties.pop(player, None)

    def grow(self, player: str, cents: int) -> None:
        self._bounties[player] += cents

    def merge(self, absorbed: str, into: str) -> None:
        self._bounties[into] += self._bounties.pop(absorbed)

    def clear(self) -> None:
        self._bounties.clear()

    def size(self, envelopes: list[int]) -> None:
        self._envelopes = envelopes

    def draw(self, index: int) -> int:
        """The envelope at ``index``, out of the draw."""
        assert self._envelopes is not None
        return self._envelopes.pop(index)

    def empty(self) -> None:
        """Every envelope left is paid out."""
        self._envelopes = []
