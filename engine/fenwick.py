"""A Fenwick (binary indexed) tree: counts at positions, their prefix sums, and the position of the k-th unit.

The director draws open seats and picks tables by rank thousands of times in a
large field; a list scan per draw made a 100,000-player tournament cost forty
times a 10,000-player one. Here an update, a total and a search by rank each
cost O(log n) (Fenwick, 1994).
"""

from __future__ import annotations

from typing import Any

from mypy_extensions import mypyc_attr

from engine import pickling

FIELDS = ("_tree", "counts", "total")


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Fenwick:
    """Non-negative counts at positions ``0 .. capacity-1``."""

    __slots__ = FIELDS

    def __init__(self, counts: list[int]) -> None:
        """Built in O(n) from the counts at each position."""
        self.counts = list(counts)
        self.total = sum(self.counts)
        tree = [0] + self.counts
        size = len(tree)
        for index in range(1, size):
            parent = index + (index & -index)
            if parent < size:
                tree[parent] += tree[index]
        self._tree = tree

    def __getstate__(self) -> dict[str, Any]:
        return pickling.state(self, FIELDS)

    def __setstate__(self, pickled: pickling.State) -> None:
        pickling.restore(self, pickled)

    @property
    def capacity(self) -> int:
        return len(self.counts)

    def add(self, position: int, delta: int) -> None:
        self.counts[position] += delta
        self.total += delta
        tree = self._tree
        index = position + 1
        while index < len(tree):
            tree[index] += delta
            index += index & -index

    def find(self, rank: int) -> tuple[int, int]:
        """The position holding unit number ``rank`` (0-based, below ``total``) and the rank within it.

        Units are numbered through the positions in order, so this is the
        first position whose running total exceeds ``rank``: what a bisection
        of the cumulative counts finds.
        """
        if not 0 <= rank < self.total:
            raise IndexError(f"rank {rank} is outside 0 .. {self.total - 1}")
        tree = self._tree
        position = 0
        step = 1 << (len(tree) - 1).bit_length()
        while step:
            following = position + step
            if following < len(tree) and tree[following] <= rank:
                position = following
                rank -= tree[following]
            step >>= 1
        return position, rank
