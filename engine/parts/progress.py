"""Where the tournament stands (a part of its state, engine/state.py): its status (rules.md F.23), a flight stopping
(L.47), the end by a whole deal (H.36), and the director's record of a failure and of players' incidents
(seed 004)."""

from __future__ import annotations

from mypy_extensions import mypyc_attr

from engine.events import FailureDeclared, IncidentRecorded
from engine.status import Status


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Progress:
    """Written only through its methods."""

    def __init__(self) -> None:
        self._status = Status.WAITING
        self._flight_stopping = False  # a flight has met its stop condition; it ends once its hands are over
        self._ended_by_deal = False  # the players left accepted a whole deal: the results say so
        self._failure: FailureDeclared | None = None  # a failure the director declared (engine/corrections.py)
        self._incidents: list[IncidentRecorded] = []  # players' cases on the record, numbered from 1

    @property
    def status(self) -> Status:
        return self._status

    @property
    def flight_stopping(self) -> bool:
        return self._flight_stopping

    @property
    def ended_by_deal(self) -> bool:
        return self._ended_by_deal

    @property
    def failure(self) -> FailureDeclared | None:
        return self._failure

    @property
    def incidents(self) -> list[IncidentRecorded]:
        """Replaced whole, never appended to: a view may hold the list it read."""
        return self._incidents

    def move_to(self, status: Status) -> None:
        self._status = status

    def stop_flight(self) -> None:
        self._flight_stopping = True

    def end_by_deal(self) -> None:
        self._ended_by_deal = True

    def declare(self, failure: FailureDeclared) -> None:
        self._failure = failure

    def note(self, incident: IncidentRecorded) -> None:
        self._incidents = [*self._incidents, incident]
