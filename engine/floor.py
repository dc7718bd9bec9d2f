"""The floor: which tables close, who moves where, and merges (rules.md A.3-A.4, B.5-B.8, M.51).

Between hands a tournament closes the tables no longer needed (fewest
players first, ties at random), seats their players at open seats drawn at
random, and balances the rest so that no two tables differ by two or more. The
director may move a player, or ask for the balance, by the same rules.
The sizes of the open tables are indexed (engine.seating.OpenTables), so
each step costs the logarithm of the field, not the field.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from engine import bounties, standings, windows
from engine.events import (
    BalanceQueued, EntriesMerged, Event, MoveQueued, PlayerEliminated, PlayerMoved, QueuedMoveDropped, Result,
)
from engine.seating import shares_table
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.state import State


def seated_with(t: State, entry: str) -> list[int]:
    """The tables where the other entries of ``entry``'s person sit."""
    where = t.floor.where
    return [where[other][0] for other in t.people.entries_of(t.person(entry)) if other != entry and other in where]


def after_change(t: State) -> list[Event]:
    """Between hands: close tables no longer needed, and balance (the director's sequence goes on with the
    windows and hand-for-hand)."""
    events = plan_breaks(t)
    # Only the tables locked to close that are between hands: in a large field many more are locked and
    # still playing their hand, and looking at those after every hand would cost more than the hand.
    for table in sorted(t.floor.breaking_idle):
        events += break_table(t, table)
    return events + balance(t)


def plan_breaks(t: State) -> list[Event]:
    """Lock the tables the field no longer needs (B.5-B.8, ``Floor.lock_surplus``). While entries may come, only
    a table whose players can all sit apart from their persons' others closes (M.50)."""
    needed = math.ceil(t.players_left / t.definition.seats_per_table)
    may_merge = not (len(t.floor.open) > needed and t.people.several() and windows.any_open(t))
    apart = None if may_merge else lambda table: seats_everyone_apart(t, table)
    return t.floor.lock_surplus(t.players_left, t.rng, apart)


def seats_everyone_apart(t: State, table: int) -> bool:
    """Whether breaking ``table`` needs no merge: each of its players has an open seat at another table, away
    from their person's other entries (M.50, rules.md: a merge happens only "if the number of tables is reduced
    whereby a player has more seats than there are tables")."""
    return t.floor.seats_apart(table, lambda player: set(seated_with(t, player)))


def break_table(t: State, table: int) -> list[Event]:
    """Close a locked table after its hand; its players draw open seats at the other tables (B.7), and those
    none would take merge into their persons' other entries (M.51)."""
    events, unplaced = t.floor.close(table, t.players_left, t.rng, t.people.person_of(),
                                     lambda entry: seated_with(t, entry))
    for player in unplaced:
        events += merge(t, player)
    return events


def merge(t: State, absorbed: str) -> list[Event]:
    """Merge a seatless entry into another entry of its person (M.51, Decision: the lowest open place).

    The stack goes to the person's entry not in a hand if there is one
    (else the one with the lowest id), and is added when its hand ends.
    """
    into = min((p for p in t.people.entries_of(t.person(absorbed)) if p != absorbed and p in t.stacks),
               key=lambda p: (t.in_hand(p), p))
    place = t.players_left
    chips = t.chips.take(absorbed)
    table = t.floor.forget(absorbed)
    if table is None:  # merged at the draw, never seated: its person's
        table = t.floor.where[into][0]
    if t.in_hand(into):
        t.pending.add_chips(into, chips)
    else:
        t.chips.credit(into, chips)
    prize = standings.prize(t, place)
    ticket = place <= t.seats_won
    t.places.record(Result(absorbed, place, prize, ticket))
    standings.pay_prize(t, absorbed, prize, ticket=ticket)
    bounties.rule_for(t.definition.bounty).merged(t, absorbed, into)
    events: list[Event] = [EntriesMerged(absorbed, into, chips), PlayerEliminated(absorbed, place, prize, table)]
    if t.players_left <= t.seats_won:
        return events + standings.seat_everyone_left(t)
    if t.players_left == 1:
        return events + standings.finish(t)
    return events


def merged_at_draw(t: State) -> list[str]:
    """The entries that cannot sit apart from their person's others at the draw (rules.md M.51, seed 000:
    a person who qualified twice for a one-table final): each person keeps as many entries as there are
    tables, the ones that sort first, and the rest merge into those once seated (Decision: the later
    qualification goes into the earlier). Fewer entries may need fewer tables, hence the loop."""
    seats = t.definition.seats_per_table
    tables = math.ceil(len(t.entries) / seats)
    while True:
        merged = [entry for entries in t.people.groups()
                  for entry in sorted(entry for entry in entries if entry in t.stacks)[tables:]]
        fewer = math.ceil((len(t.entries) - len(merged)) / seats)
        if fewer == tables:
            return merged
        tables = fewer


def balance(t: State) -> list[Event]:
    """Balancing between hands (A.3-A.4, ``Floor.even_out``), never seating an entry beside its person's (M.50)."""
    return t.floor.even_out(t.rng, t.people.person_of())


def waits_for_a_hand(t: State, player: str) -> bool:
    """Whether a move of ``player`` waits: their table is in a hand (A.4), or a hand-for-hand round is under way
    (D.18). It is made when that ends, as a floor person waits for the hand."""
    return t.rounds.under_way or t.floor.tables[t.floor.where[player][0]].hand is not None


def verify_move(t: State, player: str, table: int) -> None:
    """The director's move keeps the floor's rules: to an open table with a seat, never beside another entry of
    the person (M.50), and leaving no two tables two or more apart (A.3), which balancing would undo at once.
    Asked during the player's hand (or a hand-for-hand round), it is queued and checked again when that ends."""
    if t.status is not Status.RUNNING:
        raise TournamentError(f"a player is moved only while Running; the tournament is {t.status}")
    floor = t.floor
    if player not in floor.where:
        raise TournamentError(f"{player!r} is not seated in this tournament")
    source = floor.where[player][0]
    if table == source:
        raise TournamentError(f"{player} already sits at table {table}")
    if not isinstance(table, int) or isinstance(table, bool) or table not in floor.open:
        closing = isinstance(table, int) and table in floor.tables
        raise TournamentError(f"table {table} is closing (B.7)" if closing else f"no open table {table}")
    if player in t.rebuy_offers:
        raise TournamentError(f"{player} is answering a re-buy offer: move them once it is answered")
    destination = floor.tables[table].table
    if not destination.open_seats():
        raise TournamentError(f"table {table} is full")
    if shares_table(player, destination, t.people.person_of()):
        raise TournamentError(f"another entry of {player}'s person sits at table {table} (M.50)")
    sizes = {open_table: len(floor.tables[open_table].table.players) for open_table in floor.open.size}
    if source in sizes:
        sizes[source] -= 1
    sizes[table] += 1
    most, fewest = max(sizes.values()), min(sizes.values())
    if most - fewest >= 2:
        fullest = min(number for number, size in sizes.items() if size == most)
        shortest = min(number for number, size in sizes.items() if size == fewest)
        raise TournamentError(f"after the move table {fullest} would seat {most} players and table {shortest} "
                              f"{fewest}: tables stay within one player of each other (A.3)")


def move(t: State, player: str, table: int) -> list[Event]:
    """The director moves a player to ``table`` by the balancing rules (A.3-A.4, M.50): now between their hands,
    else when their hand (or the hand-for-hand round) ends. A new ask replaces a queued one."""
    verify_move(t, player, table)
    if waits_for_a_hand(t, player):
        t.floor.queue_move(player, table)
        return [MoveQueued(player, t.floor.where[player][0], table)]
    source, seat = t.floor.relocate(player, table)
    return [PlayerMoved(player, source, table, seat, "director")]


def verify_withdraw_move(t: State, player: str) -> None:
    if player not in t.floor.queued:
        raise TournamentError(f"no move of {player!r} is waiting for a hand to end")


def withdraw_move(t: State, player: str) -> list[Event]:
    """The director takes back a queued move before the hand ends."""
    verify_withdraw_move(t, player)
    return [QueuedMoveDropped(player, t.floor.unqueue_move(player), "withdrawn")]


def queued_after_hand(t: State) -> list[Event]:
    """The queued moves and balance whose hands are over, made now or dropped with the rule that forbids them
    (the player is out, the table gone or full). Called after a hand's eliminations, breaks and balancing, so
    that the checks read the tables the next hands are dealt at."""
    events: list[Event] = []
    floor = t.floor
    running = t.status is Status.RUNNING
    for player, table in list(floor.queued.items()):
        if running and player in floor.where and waits_for_a_hand(t, player):
            continue
        floor.unqueue_move(player)
        if not running or player not in floor.where:
            events.append(QueuedMoveDropped(player, table, "the player is no longer seated"))
            continue
        try:
            verify_move(t, player, table)
        except TournamentError as refusal:
            events.append(QueuedMoveDropped(player, table, str(refusal)))
            continue
        source, seat = floor.relocate(player, table)
        events.append(PlayerMoved(player, source, table, seat, "director"))
    if floor.balance_asked and not (running and (t.rounds.under_way or _balance_due(t) is None)):
        floor.ask_balance(False)
        events.append(BalanceQueued(False))
        if running:
            events += balance(t)
    return events


def _balance_due(t: State) -> bool | None:
    """Whether a balancing move can be made now; None while every table one would come from is in a hand."""
    if len(t.floor.open) < 2:
        return False
    shortest, fullest = t.floor.open.sizes()
    if fullest - shortest < 2:
        return False
    return t.floor.first_mover(shortest, fullest, t.people.person_of())


def verify_balance_now(t: State) -> None:
    """Why no balancing move can be asked now: the tables are within one of each other, or no player of the
    fullest may sit at a shortest table (M.50). Asked while the fullest tables are in a hand, or a hand-for-hand
    round is under way, the balance is queued for its end (A.4, D.18)."""
    if t.status is not Status.RUNNING:
        raise TournamentError(f"the tables are balanced only while Running; the tournament is {t.status}")
    if len(t.floor.open) < 2:
        raise TournamentError("one table is open: there is nothing to balance")
    shortest, fullest = t.floor.open.sizes()
    if fullest - shortest < 2:
        raise TournamentError(f"the tables are balanced ({fullest} and {shortest} players): a player moves only "
                              f"when two tables differ by two or more (A.3)")
    if t.floor.first_mover(shortest, fullest, t.people.person_of()) is False:
        raise TournamentError("every player who could move has another entry at each shortest table (M.50)")


def balance_now(t: State) -> list[Event]:
    """The balancing moves due now; queued when the tables they come from are in a hand; refused, with the rule,
    when there is none to make."""
    verify_balance_now(t)
    if t.rounds.under_way or _balance_due(t) is None:
        t.floor.ask_balance(True)
        return [BalanceQueued(True)]
    return balance(t)


def verify_withdraw_balance(t: State) -> None:
    if not t.floor.balance_asked:
        raise TournamentError("no balance is waiting for a hand to end")


def withdraw_balance(t: State) -> list[Event]:
    verify_withdraw_balance(t)
    t.floor.ask_balance(False)
    return [BalanceQueued(False)]
