"""One tournament's journal: records written before anything they caused is sent, snapshots, and the restore.

A record is journaled with the events it caused, so the journal reads on its
own (an audit, a hand's every step) and a restore checks its replay against
them. The storage behind it is server/storage.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
import pickle
import zlib
from collections.abc import Iterable, Iterator
from typing import Any, Generic, TypeVar, cast

import msgspec

from engine import snapshots
from engine.director import Status
from engine.events import (
    AddOnTaken, BountyWon, Compensated, Event, PlayerEliminated, PrizeWithdrawn, QualificationWithdrawn, RebuyTaken,
    Refunded, Registered, SeatToppedUp, TournamentFinished,
)
from engine.wire import stamped
from server.storage import Storage, Stored
from server.tournament.records import AnyRecord, Session, apply

SNAPSHOT_EVERY = 20_000  # journal records between snapshots, taken when a hand ends, at least ...
SNAPSHOT_RECORDS_PER_ENTRY = 4  # ... and more in a large field, whose snapshot takes longer (docs/performance.md)
logger = logging.getLogger("mttsim.server")

_MONEY_EVENTS = frozenset((Registered, Refunded, RebuyTaken, AddOnTaken, TournamentFinished, BountyWon, Compensated,
                           PrizeWithdrawn, SeatToppedUp, QualificationWithdrawn))
_encoder = msgspec.msgpack.Encoder()


Record = TypeVar("Record")
Events = TypeVar("Events")


class Line(msgspec.Struct, Generic[Record, Events], array_like=True):
    """A journal's line: the record, the events it caused and the tournament clock then, ``at`` (seconds since
    the start) and ``level`` (from 1); lines journaled before the clock was kept have neither (None), and still
    restore. Each reader decodes it as far as it needs: the replay keeps the events as bytes to compare, the
    audit trail and the director's log read them as plain values."""

    record: Record
    events: Events
    at: float | None = None
    level: int | None = None


_decoder = msgspec.msgpack.Decoder(Line[AnyRecord, msgspec.Raw])


def moves_money(events: list[Event]) -> bool:
    """Whether a record's events move money: then it is synced to disk (FULL)."""
    for event in events:
        kind = type(event)
        if kind in _MONEY_EVENTS or (isinstance(event, PlayerEliminated) and event.prize_cents > 0):
            return True
    return False


def freeze(state: dict[str, Any]) -> bytes:
    """A snapshot's bytes: the pickled state, compressed (a quarter of the size, so storing it is quick)."""
    return zlib.compress(pickle.dumps(state, pickle.HIGHEST_PROTOCOL), 1)


def thaw(snapshot: bytes) -> dict[str, Any]:
    """The state a snapshot holds; a journal written before snapshots were compressed holds a bare pickle."""
    if snapshot[:1] == b"\x80":  # pickle's protocol opcode; a zlib stream starts with 0x78
        return cast(dict[str, Any], snapshots.loads(snapshot))
    return cast(dict[str, Any], snapshots.loads(zlib.decompress(snapshot)))


EVENTS_ADDED_SINCE_V1 = frozenset({"table_closing", "table_kept"})


def same_events(logged: Any, replayed: Any) -> bool:
    """Whether a replay gave the journaled events, field by field where both versions have the field.

    An event that gained a field since the journal was written has it in the
    replay only, and so has an event of a kind added since; neither is a
    difference.
    """
    if isinstance(logged, dict) and isinstance(replayed, dict):
        return all(key in replayed and same_events(value, replayed[key]) for key, value in logged.items())
    if isinstance(logged, list) and isinstance(replayed, list):
        if len(logged) != len(replayed):  # a journal written before these events existed has none of them
            replayed = [event for event in replayed
                        if not (isinstance(event, dict) and event.get("type") in EVENTS_ADDED_SINCE_V1)]
        return len(logged) == len(replayed) and all(map(same_events, logged, replayed))
    return bool(logged == replayed)


_audit_decoder = msgspec.msgpack.Decoder(Line[list[Any], list[Any]])
_json = msgspec.json.Encoder()
OPENED = _json.encode({"type": "status_changed", "status": "register"}) + b"\n"  # the runtime opens at creation


def audit_lines(records: Iterable[bytes], *, opened_at_creation: bool = True) -> Iterator[bytes]:
    """The director's events of a journal, one JSON object a line, as ``mttsim simulate --events-out`` writes
    them (docs/events.md), each with the tournament clock (``at``, ``in_level``) where the journal kept it:
    every record's events but a decision's, which belong to the hand's history."""
    if opened_at_creation:
        yield OPENED
    for raw in records:
        line = _audit_decoder.decode(raw)
        if line.record[0] != "act":
            for event in line.events:
                encoded = _json.encode(event)
                if line.at is not None and line.level is not None:
                    encoded = stamped(encoded, line.at, line.level)
                yield encoded + b"\n"


def _read_to_end(descriptor: int) -> bytes:
    """Everything a pipe gives until its writer closes it; closes the descriptor."""
    with os.fdopen(descriptor, "rb") as pipe:
        return pipe.read()


class Journal:
    """The journal of one tournament in a storage, and its snapshot policy."""

    def __init__(self, tournament_id: str, storage: Storage) -> None:
        self.id = tournament_id
        self.storage = storage
        self.position = 0  # of the last record
        self.snapshot_at = 0
        self.snapshotting: asyncio.Task[None] | None = None  # a snapshot a child process is pickling

    def append(self, record: AnyRecord, events: list[Event], at: float, level: int) -> None:
        """Journal ``record`` with its events and the tournament clock after it (seconds, the level from 1)."""
        self.position = self.storage.append(self.id, _encoder.encode((record, events, round(at, 1), level)),
                                            money=moves_money(events))

    def close(self, session: Session) -> None:
        """A finished or cancelled tournament: its journal goes, its final state stays."""
        self.storage.close_tournament(self.id, session.director.status.value, freeze(session.state()))

    def replay(self, stored: Stored, session: Session) -> None:
        """The tournament as its journal leaves it: the newest snapshot, then every record after it, checked."""
        if stored.snapshot is not None:
            session.load(thaw(stored.snapshot))
        for raw in stored.records:
            line = _decoder.decode(raw)
            record, logged = line.record, line.events
            events = _encoder.encode(apply(session, record))
            if events != bytes(logged) and not same_events(msgspec.msgpack.decode(logged),
                                                             msgspec.msgpack.decode(events)):
                raise RuntimeError(f"tournament {stored.id}: the replay of {record!r} differs from its journal")
        self.position = stored.position
        self.snapshot_at = stored.position - len(stored.records)

    def maybe_snapshot(self, session: Session) -> None:
        """After a hand ends, every ``SNAPSHOT_EVERY`` records (``SNAPSHOT_RECORDS_PER_ENTRY`` per entry when
        that is more): the whole state, so a restore replays little.

        Pickling the state of 10,000 players takes 50-100 ms, and the tables
        would wait that long. Inside an event loop a forked child pickles it
        instead, from the memory the fork froze at this record, while the
        tables play on; the snapshot is stored when its bytes are all there.
        Until then the previous snapshot and the journal cover everything, so
        a crash meanwhile loses nothing (docs/architecture.md).
        """
        every = max(SNAPSHOT_EVERY, SNAPSHOT_RECORDS_PER_ENTRY * len(session.director.entries))
        if self.position - self.snapshot_at < every or self.snapshotting is not None:
            return
        self.snapshot_at = self.position
        try:
            loop = asyncio.get_running_loop()
            forks = hasattr(os, "fork")
        except RuntimeError:  # a script or a test, outside an event loop
            forks = False
        if not forks:
            self.storage.snapshot(self.id, self.position, freeze(session.state()))
            return
        # The fork happens here, at this record: the child's memory is the state at this position.
        readable, writable = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: no event loop, no journal, nothing but the pickle
            code = 1
            try:
                os.close(readable)
                with os.fdopen(writable, "wb") as pipe:
                    pipe.write(freeze(session.state()))
                code = 0
            finally:
                os._exit(code)
        os.close(writable)
        self.snapshotting = loop.create_task(self._store_child_snapshot(self.position, pid, readable, session),
                                             name=f"snapshot:{self.id}")

    async def _store_child_snapshot(self, position: int, pid: int, readable: int, session: Session) -> None:
        """Read the child's pickle to its end, reap the child, and store the snapshot at its position."""
        try:
            state = await asyncio.to_thread(_read_to_end, readable)
            _, status = await asyncio.to_thread(os.waitpid, pid, 0)
            if os.waitstatus_to_exitcode(status) != 0:
                logger.error("tournament %s: the snapshot at record %d failed in its process", self.id, position)
            elif session.director.status is Status.RUNNING:  # a closed tournament has stored its final state
                self.storage.snapshot(self.id, position, state)
        finally:
            self.snapshotting = None

    async def settle(self) -> None:
        """Wait for a snapshot being written."""
        if self.snapshotting is not None:
            await asyncio.shield(self.snapshotting)
