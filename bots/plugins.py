"""Players of the user's own as classes, in the manner of Locust's ``User``: state per bot, a lifecycle, checks
on what a bot sees, and tags on its actions (docs/swarm.md).

A function of ``(view, rng)`` to a decision stays the simple form. A subclass of ``Player`` is made once per
bot: its attributes are that bot's own (kept across its re-entries), ``on_start`` runs when the bot first sits
down and ``on_stop`` when an entry's play ends (out, the tournament over, or the run stopped: after a re-entry,
again at the new entry's end). ``decide`` returns a decision, or a decision and a tag
(``("raise", 600, "3-bet")``) by which the report counts the bot's actions. ``check(name, ok)`` records a
check, passed or failed, by name, as k6's ``check`` does: a failed check is not an error of the server's, and
``checks_failed`` is a threshold.

What a plug-in gets wrong is its own: an exception in ``decide`` (the seat then checks, or folds) and an action
its view says is illegal are counted as ``plugin_errors``, apart from the server's ``errors``, and the server's
refusal of such an action is expected (``provoked_errors``), never charged to the server.
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from bots.strategies import Decision, SeatView
from engine.hand import LegalActions

Tagged = tuple[Any, int | None, str]  # a decision and the tag the report counts it by


@dataclass
class PluginRecord:
    """What the plug-ins of a swarm recorded: checks by name, actions by tag, and their own errors."""

    checks: dict[str, list[int]] = field(default_factory=dict)  # name: [passed, failed]
    tags: Counter[str] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)  # what went wrong, how often

    def report(self) -> dict[str, Any]:
        return {"plugin_errors": sum(self.errors.values()),
                "plugin_error_kinds": dict(self.errors.most_common()),
                "checks": {name: {"passed": passed, "failed": failed}
                           for name, (passed, failed) in sorted(self.checks.items())},
                "checks_failed": sum(failed for _, failed in self.checks.values()),
                "tags": dict(self.tags.most_common())}


class Player:
    """Subclass it and write ``decide``; ``on_start``, ``on_stop`` and ``check`` as needed."""

    record: PluginRecord  # the swarm's, given to each bot's player when it is made

    def on_start(self) -> None:
        """The bot sits down: before its first decision."""

    def on_stop(self) -> None:
        """The bot's play is over."""

    def decide(self, view: SeatView, rng: random.Random) -> Decision | Tagged:
        raise NotImplementedError(f"{type(self).__name__} must define decide(view, rng)")

    def check(self, name: str, ok: bool) -> bool:
        """Record a check by ``name``; ``ok`` is returned, so that ``if self.check(...)`` reads naturally."""
        counts = self.record.checks.setdefault(name, [0, 0])
        counts[0 if ok else 1] += 1
        return ok


def illegal(action: str, amount: int | None, legal: LegalActions) -> str | None:
    """What is wrong with ``action`` for a seat whose legal actions are ``legal``, or None."""
    if action == "fold":
        return None if legal.can_fold else "fold: nothing to fold to"
    if action == "check":
        return None if legal.can_check else f"check: there is {legal.call} to call"
    if action == "call":
        return None if legal.call > 0 else "call: nothing to call"
    if action in ("raise", "bet"):
        if legal.max_raise_to is None or legal.min_raise_to is None:
            return f"{action}: no raise is open"
        if amount is None or not legal.min_raise_to <= amount <= legal.max_raise_to:
            return f"{action} to {amount}: outside {legal.min_raise_to}-{legal.max_raise_to}"
        return None
    return None if action == "all_in" else f"{action}: no such action"
