"""Registration (rules.md F.23, M.50): entries bought, grouped by person, and taken back before the start.

A primitive the policies share (a late entry and a re-entry are admitted
the same way); it calls no policy. Every cent goes through the ledger: the
buy-in's prize-pool part, the fee, and the bounty by its kind's rule.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import bounties, windows
from engine.events import Event, Refunded, StatusChanged
from engine.money import PAID_INTO
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.state import State


def verify_open(t: State) -> None:
    if t.status is not Status.WAITING:
        raise TournamentError(f"registration opens only from Waiting; the tournament is {t.status}")


def open_registration(t: State) -> list[Event]:
    verify_open(t)
    t.progress.move_to(Status.REGISTER)
    return [StatusChanged(Status.REGISTER.value)]


def entry_price(t: State) -> int:
    return t.definition.buy_in_cents + t.definition.fee_cents


def verify_register(t: State, player: str, person: str | None = None) -> None:
    if t.status is Status.RUNNING and t.definition.late_registration is not None:
        windows.verify_open(t, "late_registration")
    elif t.status is not Status.REGISTER:
        raise TournamentError(f"registration is open only in Register; the tournament is {t.status}")
    if not isinstance(player, str) or not player:
        raise TournamentError("an entry needs a non-empty id")
    if player in t.stacks or player in t.results:
        raise TournamentError(f"{player} is already registered")
    if len(t.entries) >= t.definition.max_players:
        raise TournamentError(f"the tournament is full ({t.definition.max_players} entries)")
    if t.definition.final is not None and not t.definition.final.direct_buy_in:
        raise TournamentError("this final takes only qualified stacks, no direct buy-in (L.47)")
    limit = t.definition.entries_per_person
    if person is not None and limit is not None:
        held = len(t.people.entries_of(person)) + (person in t.stacks and not t.people.grouped(person))
        if held >= limit:
            raise TournamentError(f"{person} already holds {held} of the {limit} entries a person may (M.50)")


def group(t: State, player: str, person: str | None) -> None:
    """``player`` belongs to ``person``; so does ``person``'s own entry, if one was registered without one."""
    if person is None:
        return
    if person in t.stacks and not t.people.grouped(person):
        t.people.belongs(person, person)
    t.people.belongs(player, person)


def admit(t: State, player: str, stack: int) -> int:
    """An entry's chips and its buy-in, fee and bounty through the ledger; returns what it paid."""
    t.roster.enter(player)
    t.chips.admit(player, stack)
    bounty = t.definition.bounty.cents if t.definition.bounty is not None else 0
    t.pay(player, "buy_in", t.definition.buy_in_cents - bounty, "fee", t.definition.fee_cents)
    if bounty:
        t.ledger.record("bounty_in", player, bounty)
        bounties.rule_for(t.definition.bounty).entered(t, player, bounty)
    return entry_price(t)


def verify_unregister(t: State, player: str) -> None:
    if t.status is not Status.REGISTER:
        raise TournamentError(f"unregistering is allowed only in Register; the tournament is {t.status}")
    if player not in t.stacks:
        raise TournamentError(f"{player} is not registered")
    if player in t.people.qualified_entries:
        raise TournamentError(f"{player} qualified from a flight; a qualified stack cannot be unregistered")


def unregister(t: State, player: str) -> list[Event]:
    """Leave before the start: buy-in and fee back in full (F.23)."""
    verify_unregister(t, player)
    t.roster.leave(player)
    t.chips.withdraw(player)
    t.people.forget(player)
    t.heads.drop(player)
    for kind, cents in t.ledger.paid_by(player).items():
        t.ledger.record("refund", player, cents, account=PAID_INTO[kind])
    return [Refunded(player, entry_price(t), "unregistered")]
