"""A tournament's record: each command applied to the director and journaled with its events before any of them
leaves (server/tournament/records.py, persistence.py).

Below the runtime and the tables: whoever takes a command records it here and
routes its events itself. The runtime records the director's commands from the
wire, the clocks and the bots, and routes their events to the streams; a table
records its hand's deal, and the hand's outlet each decision, and routes them
to the table's stream, as a cluster's worker does with the hands it plays. A
decision goes down to the hand and its events come out; nothing climbs back.
"""

from __future__ import annotations

from collections.abc import Callable

from engine.events import Event
from server.tournament.persistence import Journal
from server.tournament.records import Act, AnyRecord, Session, apply
from server.tournament.timeline import TimelineBuilder


class Recorder:
    """Applies and journals records: the one writer of the director and of the journal."""

    def __init__(self, session: Session, journal: Journal, now: Callable[[], float]) -> None:
        self.session = session
        self.journal = journal
        self.now = now  # the tournament clock, stamped on each record
        self.timeline = TimelineBuilder()  # the players left and the average stack, level by level

    def record(self, record: AnyRecord) -> list[Event]:
        """Apply ``record`` and journal it with its events; a refused record (TournamentError, IllegalAction)
        changes nothing and is not journaled."""
        events = apply(self.session, record)
        director, at = self.session.director, self.now()
        self.journal.append(record, events, at, director.level + 1)
        if not isinstance(record, Act):  # a decision neither busts anyone nor ends a level
            self.timeline.saw(events, director, at)
        return events
