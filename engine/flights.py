"""Flights and their final (rules.md L.47-L.49): a flight stops and sends its survivors, with their stacks
and its pool, to the final; a person who qualifies twice keeps one stack, unless the final takes several
entries per person.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine import prizes
from engine.events import Event, FlightFinished, Qualified, QualificationWithdrawn, StatusChanged
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.state import State


def verify_qualify(t: State, player: str, person: str, stack: int) -> None:
    if t.definition.final is None:
        raise TournamentError("only a final takes qualified stacks (L.47)")
    if t.status is not Status.REGISTER:
        raise TournamentError(f"qualified stacks join in Register; the final is {t.status}")
    if not isinstance(player, str) or not player or player in t.stacks:
        raise TournamentError(f"{player!r} is not a new entry id")
    if not isinstance(stack, int) or stack <= 0:
        raise TournamentError("a qualified stack is a positive number of chips (a single chip qualifies, L.47)")

def qualify(t: State, player: str, person: str, stack: int) -> list[Event]:
    """A flight's survivor enters the final with their exact stack (L.47).

    Where the final allows several entries per person (M.50), each
    qualification is an entry of its own, up to ``entries_per_person``.
    Beyond that (one, by default), a person who qualifies again keeps their
    stacks, never the sum (L.48): ``best`` puts the new stack in place of the
    smallest when it is larger, ``first`` keeps the ones that came first.
    """
    verify_qualify(t, player, person, stack)
    assert t.definition.final is not None
    first = t.people.qualified_entry(person)
    mine = set(t.people.entries_of(person)) | ({first} if first is not None else set())
    held = sorted(entry for entry in mine if entry in t.people.qualified_entries and entry in t.stacks)
    if first is None or len(held) < (t.definition.entries_per_person or 1):
        t.people.qualify(person, player)
        t.roster.enter(player)
        t.chips.admit(player, stack)
        if person != player:
            t.people.belongs(player, person)
        return [Qualified(player, stack, True)]
    smallest = min(held or [first], key=lambda entry: (t.stacks.get(entry, 0), entry))
    counts = t.definition.final.forward == "best" and stack > t.stacks[smallest]
    if counts:
        t.chips.raise_to(smallest, stack)
    return [Qualified(player, stack, counts)]

def verify_withdraw_qualified(t: State, player: str, cents: int) -> None:
    if t.definition.final is None or player not in t.people.qualified_entries:
        raise TournamentError(f"{player!r} is not an entry a flight sent to this final")
    if t.status not in (Status.REGISTER, Status.RUNNING):
        raise TournamentError(f"a qualification is withdrawn before the final ends; it is {t.status}")
    if t.status is Status.RUNNING and t.ledger.prizes_cents:
        raise TournamentError("prizes are being paid: the pool's share can no longer come back")
    if not isinstance(cents, int) or isinstance(cents, bool) or not 0 <= cents <= t.ledger.pool_cents:
        raise TournamentError(f"the pool holds {t.ledger.pool_cents} cents: a share of it comes back, not {cents}")


def withdraw_qualified(t: State, player: str, cents: int) -> list[Event]:
    """A qualification its flight withdrew as given in error (seed 004): its share of the flights' pool goes back
    to the flight, and the prizes follow the smaller pool; before the start the entry and its chips leave with
    it. After the start the director takes the stack out (the face's sequence, ``Tournament.remove``)."""
    verify_withdraw_qualified(t, player, cents)
    chips = t.stacks.get(player, 0)
    if cents:
        t.ledger.record("carried_back", player, cents)
    if t.status is Status.REGISTER:
        t.roster.leave(player)
        t.chips.withdraw(player)
        t.people.forget(player)
        t.people.unqualify(player)
    else:
        prizes.price(t)
    return [QualificationWithdrawn(player, chips, cents)]


def verify_carry_in(t: State, cents: int, entries: int = 0) -> None:
    if t.definition.final is None or t.status is not Status.REGISTER:
        raise TournamentError("a flight's pool joins a final in Register (L.47)")

def carry_in(t: State, cents: int, entries: int = 0) -> list[Event]:
    """A flight's prize pool joins the final's: prizes are paid only in the final phase (L.47)."""
    verify_carry_in(t, cents, entries)
    t.ledger.record("carried_in", "", cents)
    t.roster.carried(entries)  # the final's stage counts the whole event's entrants (rules.md I.39)
    return []


def maybe_close(t: State) -> list[Event]:
    """A stopped flight ends once no hand is in progress and no re-buy is pending (L.47, L.49).

    Everyone still holding chips qualifies; the pool goes to the final,
    the house keeps the fees.
    """
    if (not t.flight_stopping or t.status is not Status.RUNNING or t.pending.holds()
            or any(state.hand is not None for state in t.tables.values())):
        return []
    survivors = dict(t.stacks)
    pool = t.ledger.pool_cents
    if pool:
        t.ledger.record("carried", "", pool)
    if t.ledger.fees_cents:
        t.ledger.record("fee_kept", "", t.ledger.fees_cents)
    t.progress.move_to(Status.FINISHED)
    t.rounds.end()
    return [FlightFinished(survivors, pool), StatusChanged(Status.FINISHED.value)]
