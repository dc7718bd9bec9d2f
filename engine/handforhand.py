"""Hand-for-hand (rules.md D.14-D.17): near a pay jump, every table plays one hand per round.

No table deals the round's next hand until every table has finished this
one; the round's busts are ranked together (D.17).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import Event, HandForHandEnded, HandForHandStarted

if TYPE_CHECKING:
    from engine.director import Tournament
    from engine.eliminations import Bust


def due(t: Tournament) -> bool:
    """D.14: two or more tables, and the next bust changes prize money by at least the jump (or the director
    says so)."""
    return len(t._open) >= 2 and (t.hand_for_hand_forced or t.players_left in t._h4h_points)


def check(t: Tournament) -> list[Event]:
    """Start hand-for-hand when due; open its round once every table has finished its hand (D.15).

    A hand already in progress when hand-for-hand is called finishes as
    usual. If its busts take the field past the pay jump, the jump has
    happened and hand-for-hand ends before any synchronised round.
    """
    is_due = due(t)
    events: list[Event] = []
    if not t.hand_for_hand:
        if not is_due:
            return events
        t.hand_for_hand = True
        t.hand_for_hand_at.append(t.players_left)
        events.append(HandForHandStarted(t.players_left))
    if t._round is not None:
        return events
    if not is_due:
        t.hand_for_hand = False
        events.append(HandForHandEnded(t.players_left))
        return events
    if len(t._idle) == len(t.tables):
        t._round = {table for table in t.tables if t.tables[table].table.seated >= 2}
        t._round_started = set()
        t._round_to_deal = set(t._round)
    return events


def close_round(t: Tournament) -> list[Bust]:
    """Every table has finished the round: its busts, one batch across tables (D.17), for the director to settle."""
    busts, t._round_busts, t._round = t._round_busts, [], None
    t._round_to_deal = set()
    return busts
