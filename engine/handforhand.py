"""Hand-for-hand (rules.md D.14-D.17): near a pay jump, every table plays one hand per round.

No table deals the round's next hand until every table has finished this
one; the round's busts are ranked together (D.17).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.events import Event, HandForHandEnded, HandForHandStarted

if TYPE_CHECKING:
    from engine.state import State


def due(t: State) -> bool:
    """D.14: two or more tables, and the next bust changes prize money by at least the jump (or the director
    says so)."""
    return len(t.floor.open) >= 2 and (t.hand_for_hand_forced or t.players_left in t.rounds.points)


def check(t: State) -> list[Event]:
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
        t.rounds.begin(t.players_left)
        events.append(HandForHandStarted(t.players_left))
    if t.rounds.under_way:
        return events
    if not is_due:
        t.rounds.end()
        events.append(HandForHandEnded(t.players_left))
        return events
    if t.floor.all_idle():
        t.rounds.open(table for table, state in t.floor.tables.items() if state.table.seated >= 2)
    return events
