"""The director's corrections (seed 004, Special cases and Configuration): a compensation paid to a player, and
a prize paid in error taken back, in whole or in part. Both go through the ledger as their own kinds, in an
account of their own, so the ledger still balances after each.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import Compensated, Event, PrizeWithdrawn
from engine.status import TournamentError

if TYPE_CHECKING:
    from engine.director import Tournament


def _check(t: Tournament, player: str, cents: int, reason: str) -> None:
    if player not in t.entries and player not in t.results:
        raise TournamentError(f"{player!r} is not an entry of this tournament")
    if not isinstance(cents, int) or isinstance(cents, bool) or cents <= 0:
        raise TournamentError("a correction is a positive whole number of cents")
    if not isinstance(reason, str) or not reason.strip():
        raise TournamentError("a correction needs its reason")


def verify_compensate(t: Tournament, player: str, cents: int, reason: str) -> None:
    _check(t, player, cents, reason)


def compensate(t: Tournament, player: str, cents: int, reason: str) -> list[Event]:
    """The house pays ``player`` ``cents``, for ``reason``."""
    verify_compensate(t, player, cents, reason)
    t.ledger.record("compensation_funded", "", cents)
    t.ledger.record("compensation", player, cents)
    return [Compensated(player, cents, reason)]


def withdrawable(t: Tournament, player: str) -> tuple[int, bool]:
    """What of ``player``'s prize can still be taken back, and whether it was a seat."""
    paid = {"prize": 0, "ticket": 0}
    taken = 0
    for movement in t.ledger.movements:
        if movement.player == player and movement.kind in paid:
            paid[movement.kind] += movement.cents
        elif movement.player == player and movement.kind == "withdrawn":
            taken += movement.cents
    return paid["prize"] + paid["ticket"] - taken, paid["ticket"] > 0


def verify_withdraw_prize(t: Tournament, player: str, cents: int, reason: str) -> None:
    left, _ = withdrawable(t, player)
    if left <= 0 and (player in t.entries or player in t.results):
        raise TournamentError(f"{player} has no prize to withdraw")
    _check(t, player, cents, reason)
    if cents > left:
        raise TournamentError(f"{player} received {left} cents of prizes that can be withdrawn, not {cents}")


def withdraw_prize(t: Tournament, player: str, cents: int, reason: str) -> list[Event]:
    """Take back ``cents`` of a prize paid to ``player`` in error; the house keeps them."""
    verify_withdraw_prize(t, player, cents, reason)
    _, ticket = withdrawable(t, player)
    t.ledger.record("withdrawn", player, cents)
    t.ledger.record("withdrawn_kept", "", cents)
    return [PrizeWithdrawn(player, cents, reason, ticket)]
