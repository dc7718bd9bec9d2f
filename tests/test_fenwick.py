"""The Fenwick tree answers as a scan of the counts would, after any updates."""

from __future__ import annotations

from bisect import bisect_right
from itertools import accumulate

from hypothesis import given
from hypothesis import strategies as st

from engine.fenwick import Fenwick


@given(counts=st.lists(st.integers(0, 9), min_size=1, max_size=60),
       updates=st.lists(st.tuples(st.integers(0, 59), st.integers(0, 9)), max_size=30))
def test_the_unit_of_each_rank_is_where_a_bisection_of_the_running_totals_puts_it(counts, updates):
    tree = Fenwick(counts)
    for position, count in updates:
        position %= len(counts)
        tree.add(position, count - counts[position])
        counts[position] = count
    running = list(accumulate(counts))
    assert tree.total == running[-1]
    for rank in range(tree.total):
        position = bisect_right(running, rank)
        assert tree.find(rank) == (position, rank - (running[position - 1] if position else 0))
