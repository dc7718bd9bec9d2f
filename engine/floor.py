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

from engine import standings, windows
from engine.events import (
    EntriesMerged, Event, PlayerEliminated, PlayerMoved, Result, TableBroken, TableClosing,
)
from engine.seating import SeatingError, balancing_mover, draw_open_seats, shares_table, worst_seat
from engine.status import Status, TournamentError

if TYPE_CHECKING:
    from engine.director import Tournament, _Playing


def set_idle(t: Tournament, table: int, idle: bool) -> None:
    """A table enters or leaves ``_idle``, which stays dense.

    A Python set never shrinks when emptied, and iterating it costs its
    largest size: every table is idle before the first deal, so without a
    rebuild ``tables_ready`` would pay for the whole starting field per hand.
    """
    if idle:
        t._idle.add(table)
        t._idle_peak = max(t._idle_peak, len(t._idle))
        if table in t._breaking:
            t._breaking_idle.add(table)
    else:
        t._idle.discard(table)
        if len(t._idle) * 8 < t._idle_peak:
            t._idle = set(t._idle)
            t._idle_peak = len(t._idle)
        t._breaking_idle.discard(table)
    t._open.idle(table, idle)


def seated_with(t: Tournament, entry: str) -> list[int]:
    """The tables where the other entries of ``entry``'s person sit."""
    return [t.where[other][0] for other in t._entries_of.get(t.person(entry), ())
            if other != entry and other in t.where]


def after_change(t: Tournament) -> list[Event]:
    """Between hands: close tables no longer needed, and balance (the director's sequence goes on with the
    windows and hand-for-hand)."""
    events = plan_breaks(t)
    # Only the tables locked to close that are between hands: in a large field many more are locked and
    # still playing their hand, and looking at those after every hand would cost more than the hand.
    for table in sorted(t._breaking_idle):
        events += break_table(t, table)
    return events + balance(t)


def plan_breaks(t: Tournament) -> list[Event]:
    """Lock tables to close while more are open than ceil(N/S) (B.5, B.8): fewest players, ties at random (B.6).

    A table mid-hand counts with the players seated at it, and a lock stands
    until the table closes: a hand elsewhere that leaves another table shorter
    meanwhile changes nothing (B.7). Each lock is an event, so that the audit
    trail shows which tables were open, and how full, when the choice was made.
    """
    events: list[Event] = []
    needed = math.ceil(t.players_left / t.definition.seats_per_table)
    no_merges = len(t._open) > needed and bool(t._people) and windows.any_open(t)
    while len(t._open) > needed:
        fewest, _ = t._open.sizes()
        chosen = None
        if no_merges:  # while entries may come, only a table whose players can all sit apart from their others
            chosen = t._open.draw_of_size(fewest, t.rng, lambda table: seats_everyone_apart(t, table))
            if chosen is None and t._open.sizes()[1] >= 2:
                break  # play goes on at a table of two or more; the break waits for the windows to close
        # A break that must merge goes ahead when no table could deal otherwise (Decision: not a stuck field).
        table = chosen if chosen is not None else \
            t._open.nth_of_size(fewest, t.rng.randrange(t._open.count_of_size(fewest)))
        t.tables[table].breaking = True
        t._breaking.add(table)
        if table in t._idle:
            t._breaking_idle.add(table)
        events.append(TableClosing(table, t._open.size[table], t.players_left))
        t._open.drop(table)
    return events


def seats_everyone_apart(t: Tournament, table: int) -> bool:
    """Whether breaking ``table`` needs no merge: each of its players has an open seat at another table, away
    from their person's other entries (M.50, rules.md: a merge happens only "if the number of tables is reduced
    whereby a player has more seats than there are tables"; issue 54).

    A matching of the players who have other entries to the tables with room (Kuhn's augmenting paths, each
    table taking as many as its open seats); the others take any seat left, so the room in all must do too.
    """
    players = t.tables[table].table.players
    room = {other: t.definition.seats_per_table - size for other, size in t._open.size.items()
            if other != table and size < t.definition.seats_per_table}
    if sum(room.values()) < len(players):
        return False
    barred = {player: set(seated_with(t, player)) for player in players}
    seated: dict[int, list[str]] = {}

    def place(player: str, tried: set[int]) -> bool:
        for other in room:
            if other in barred[player] or other in tried:
                continue
            tried.add(other)
            there = seated.setdefault(other, [])
            if len(there) < room[other]:
                there.append(player)
                return True
            for moved in list(there):
                if place(moved, tried):
                    there.remove(moved)
                    there.append(player)
                    return True
        return False

    return all(place(player, set()) for player in players if barred[player])


def break_table(t: Tournament, table: int) -> list[Event]:
    """Close a locked table after its hand; its players draw open seats at the other tables (B.7)."""
    state = t.tables.pop(table)
    set_idle(t, table, False)
    t._breaking.discard(table)
    t.tables_broken += 1
    events: list[Event] = [TableBroken(table, t.players_left)]
    placed, unplaced = draw_open_seats(state.table.players, t._open, lambda other: t.tables[other].table,
                                       t.rng, t._person, lambda entry: seated_with(t, entry))
    for player, to_table, seat in placed:
        t.where[player] = (to_table, seat)
        t._open.resize(to_table, t._open.size[to_table] + 1)
        events.append(PlayerMoved(player, table, to_table, seat, "break"))
    t.moves += len(placed)
    for player in unplaced:
        events += merge(t, player)
    return events


def merge(t: Tournament, absorbed: str) -> list[Event]:
    """Merge a seatless entry into another entry of its person (M.51, Decision: the lowest open place).

    The stack goes to the person's entry not in a hand if there is one
    (else the one with the lowest id), and is added when its hand ends.
    """
    who = t._people[absorbed]
    into = min((p for p in t._entries_of[who] if p != absorbed and p in t.stacks),
               key=lambda p: (t._in_hand(p), p))
    place = t.players_left
    chips = t.stacks.pop(absorbed)
    table = t.where.pop(absorbed, t.where[into])[0]  # merged at the draw, never seated: its person's table
    if t._in_hand(into):
        t._pending_chips[into] = t._pending_chips.get(into, 0) + chips
    else:
        t.stacks[into] += chips
    prize = standings.prize(t, place)
    ticket = place <= t.seats_won
    t.results[absorbed] = Result(absorbed, place, prize, ticket)
    standings.pay_prize(t, absorbed, prize, ticket=ticket)
    if absorbed in t.bounties:  # the heads are summed with the stacks (M.51)
        t.bounties[into] += t.bounties.pop(absorbed)
    events: list[Event] = [EntriesMerged(absorbed, into, chips), PlayerEliminated(absorbed, place, prize, table)]
    if t.players_left <= t.seats_won:
        return events + standings.seat_everyone_left(t)
    if t.players_left == 1:
        return events + standings.finish(t)
    return events


def merged_at_draw(t: Tournament) -> list[str]:
    """The entries that cannot sit apart from their person's others at the draw (rules.md M.51, seed 000:
    a person who qualified twice for a one-table final): each person keeps as many entries as there are
    tables, the ones that sort first, and the rest merge into those once seated (Decision: the later
    qualification goes into the earlier). Fewer entries may need fewer tables, hence the loop."""
    seats = t.definition.seats_per_table
    tables = math.ceil(len(t.entries) / seats)
    while True:
        merged = [entry for entries in t._entries_of.values()
                  for entry in sorted(entry for entry in entries if entry in t.stacks)[tables:]]
        fewer = math.ceil((len(t.entries) - len(merged)) / seats)
        if fewer == tables:
            return merged
        tables = fewer


def balance(t: Tournament) -> list[Event]:
    """While the open tables differ by two or more, move from a fullest table between hands (A.3-A.4)."""
    events: list[Event] = []
    while len(t._open) >= 2:
        shortest, fullest = t._open.sizes()
        if fullest - shortest < 2:
            break
        source_id = t._open.lowest_idle(fullest)
        if source_id is None:
            break  # a fullest table moves someone when its hand ends
        source = t.tables[source_id]
        drawn = destination(t, source, shortest)
        if drawn is None:
            break  # every candidate has another entry at each shortest table: wait for the next hand
        to, seat = drawn
        to_seat = worst_seat(to.table)
        player = source.table.remove(seat)
        to.table.seat(player, to_seat)
        t.where[player] = (to.id, to_seat)
        t._open.resize(source.id, fullest - 1)
        t._open.resize(to.id, shortest + 1)
        t.moves += 1
        events.append(PlayerMoved(player, source.id, to.id, to_seat, "balance"))
    return events


def destination(t: Tournament, source: _Playing, shortest: int) -> tuple[_Playing, int] | None:
    """A table of the shortest size drawn at random (A.3), the next at random while none of the source's
    players may sit there (M.50), and the seat of the player who moves; None when no table will do."""
    movers: dict[int, int] = {}

    def takes_a_mover(candidate: int) -> bool:
        try:
            movers[candidate] = balancing_mover(source.table, t.tables[candidate].table, t._person)
        except SeatingError:
            return False
        return True

    drawn = t._open.draw_of_size(shortest, t.rng, takes_a_mover)
    return None if drawn is None else (t.tables[drawn], movers[drawn])


def _between_rounds(t: Tournament, what: str) -> None:
    if t.status is not Status.RUNNING:
        raise TournamentError(f"{what} only while Running; the tournament is {t.status}")
    if t._round is not None:
        raise TournamentError(f"a hand-for-hand round is under way: {what} at its end, when every table has "
                              f"finished (D.18)")


def verify_move(t: Tournament, player: str, table: int) -> None:
    """The director's move keeps the floor's rules: between hands (A.4), to an open table with a seat, never
    beside another entry of the person (M.50), and leaving no two tables two or more apart (A.3), which
    balancing would undo at once."""
    _between_rounds(t, "a player is moved")
    if player not in t.where:
        raise TournamentError(f"{player!r} is not seated in this tournament")
    source = t.where[player][0]
    if table == source:
        raise TournamentError(f"{player} already sits at table {table}")
    if not isinstance(table, int) or isinstance(table, bool) or table not in t._open:
        closing = isinstance(table, int) and table in t.tables
        raise TournamentError(f"table {table} is closing (B.7)" if closing else f"no open table {table}")
    if t.tables[source].hand is not None:
        raise TournamentError(f"table {source} is playing a hand: a player moves between hands (A.4)")
    if player in t.rebuy_offers:
        raise TournamentError(f"{player} is answering a re-buy offer: move them once it is answered")
    destination = t.tables[table].table
    if not destination.open_seats():
        raise TournamentError(f"table {table} is full")
    if shares_table(player, destination, t._person):
        raise TournamentError(f"another entry of {player}'s person sits at table {table} (M.50)")
    sizes = dict(t._open.size)
    if source in sizes:
        sizes[source] -= 1
    sizes[table] += 1
    if max(sizes.values()) - min(sizes.values()) >= 2:
        raise TournamentError(f"the tables would be {max(sizes.values())} and {min(sizes.values())} players: "
                              f"they stay within one of each other (A.3)")


def move(t: Tournament, player: str, table: int) -> list[Event]:
    """The player leaves their seat for the seat at ``table`` that posts the big blind soonest (A.4)."""
    verify_move(t, player, table)
    source_id, seat = t.where[player]
    source = t.tables[source_id]
    to = t.tables[table]
    to_seat = worst_seat(to.table)
    to.table.seat(source.table.remove(seat), to_seat)
    t.where[player] = (table, to_seat)
    if source_id in t._open:
        t._open.resize(source_id, t._open.size[source_id] - 1)
    t._open.resize(table, t._open.size[table] + 1)
    t.moves += 1
    return [PlayerMoved(player, source_id, table, to_seat, "director")]


def verify_balance_now(t: Tournament) -> None:
    """Why no balancing move can be made now, if none can: the tables are within one of each other, or the
    fullest are in a hand (their player moves when it ends, A.4), or no player of theirs may sit at a shortest
    table (M.50)."""
    _between_rounds(t, "the tables are balanced")
    if len(t._open) < 2:
        raise TournamentError("one table is open: there is nothing to balance")
    shortest, fullest = t._open.sizes()
    if fullest - shortest < 2:
        raise TournamentError(f"the tables are balanced ({fullest} and {shortest} players): a player moves only "
                              f"when two tables differ by two or more (A.3)")
    source_id = t._open.lowest_idle(fullest)  # the table balance() moves from
    if source_id is None:
        raise TournamentError(f"every table of {fullest} players is playing a hand: one of its players moves "
                              f"when its hand ends (A.4)")
    source = t.tables[source_id].table
    for table, size in t._open.size.items():  # a query draws nothing: the candidates are looked at in turn
        if size == shortest:
            try:
                balancing_mover(source, t.tables[table].table, t._person)
                return
            except SeatingError:
                pass
    raise TournamentError("every player who could move has another entry at each shortest table (M.50)")


def balance_now(t: Tournament) -> list[Event]:
    """The director's "balance now": the moves balancing makes (A.3-A.4), or the reason there are none."""
    verify_balance_now(t)
    return balance(t)
