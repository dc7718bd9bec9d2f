"""A player of a user's own, as ``mttsim swarm --mix tests.custom_players:shover=1`` loads it (docs/swarm.md): a
function of what its seat sees and an RNG to a decision."""

from __future__ import annotations

import random

from bots.strategies import Decision, SeatView


def shover(view: SeatView, rng: random.Random) -> Decision:
    """All in whenever it may raise, else it calls (or checks): a field of shovers ends in a few hands."""
    legal = view.legal
    if legal.max_raise_to is not None:
        return "raise", legal.max_raise_to
    return ("check", None) if legal.can_check else ("call", None)
