"""Tournaments pickled by older engines (snapshots in older journals) restore: each layout is brought to the next.

A snapshot is the director pickled whole. When its state moves, the older
layout is kept readable here rather than in the classes: a table index from
before the open tables were indexed is rebuilt, the fields that lived on the
director before its first parts had owners become those parts, and the fields
the face still held before every field had a part join theirs. Classes that
moved keep loading through ``loads``, which finds them where they live now.
"""

from __future__ import annotations

import io
import math
import pickle
from typing import Any, TypeVar

from engine import pickling
from engine.parts.buys import Buys
from engine.parts.clock import Clock
from engine.parts.floor import Floor, Playing
from engine.parts.heads import Heads
from engine.parts.negotiation import Negotiation
from engine.parts.pending import Pending
from engine.parts.people import People
from engine.parts.progress import Progress
from engine.parts.purse import Purse
from engine.parts.results import Results
from engine.parts.roster import Roster
from engine.parts.rounds import Rounds
from engine.parts.stacks import Stacks
from engine.seating import OpenTables

# Where a class an older engine pickled lives now: (its module then, its name then) -> (module, name).
MOVED = {
    ("engine.director", "_Bust"): ("engine.parts.busts", "Bust"),
    ("engine.director", "_Held"): ("engine.parts.pending", "Held"),
    ("engine.director", "_Deal"): ("engine.parts.negotiation", "Deal"),
    ("engine.director", "_Playing"): ("engine.parts.floor", "Playing"),
    ("engine.eliminations", "Bust"): ("engine.parts.busts", "Bust"),
    ("engine.rebuys", "Held"): ("engine.parts.pending", "Held"),
    ("engine.rebuys", "Pending"): ("engine.parts.pending", "Pending"),
    ("engine.deals", "Deal"): ("engine.parts.negotiation", "Deal"),
    ("engine.deals", "Terms"): ("engine.parts.negotiation", "Terms"),
    ("engine.floor", "Floor"): ("engine.parts.floor", "Floor"),
    ("engine.floor", "Playing"): ("engine.parts.floor", "Playing"),
    ("engine.handforhand", "Rounds"): ("engine.parts.rounds", "Rounds"),
    ("engine.clock", "Clock"): ("engine.parts.clock", "Clock"),
    ("engine.people", "People"): ("engine.parts.people", "People"),
}


class _Unpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        return super().find_class(*MOVED.get((module, name), (module, name)))


def loads(data: bytes) -> Any:
    """What ``data`` pickled, its classes found where they live now, whichever engine pickled it."""
    return _Unpickler(io.BytesIO(data)).load()

Part = TypeVar("Part")


def restored(kind: type[Part], **fields: Any) -> Part:
    """A part with the fields an older snapshot held, without running its constructor."""
    part = kind.__new__(kind)
    pickling.restore(part, fields)
    return part


def upgraded(state: dict[str, Any]) -> dict[str, Any]:
    """The state of a pickled director in today's layout (a current one comes back as it is)."""
    if "chips" in state:
        return state
    if "floor" in state:
        return _into_state(state)
    for late in ("removed", "removals", "knockouts", "entries_closed", "reentered", "reentries", "dealt"):
        state.setdefault(late, {})
    state.setdefault("flight_entries", 0)
    state.setdefault("deal_terms", None)
    state.setdefault("qualified_entries", set(state.get("_qualified", {}).values()))
    if "_open" not in state:
        _index_open_tables(state)
    return _into_state(_into_parts(state))


def _index_open_tables(state: dict[str, Any]) -> None:
    """Before the open tables were indexed (engine.seating.OpenTables), the director kept their sizes."""
    sizes: dict[int, int] = state.pop("_size")
    del state["_by_size"]
    tables: dict[int, Playing] = state["tables"]
    index = OpenTables(state["definition"].seats_per_table, max([*tables, *sizes], default=0))
    for table, size in sizes.items():
        index.resize(table, size)
        index.idle(table, table in state["_idle"])
    state["_open"] = index
    state["_breaking"] = {table for table, playing in tables.items() if playing.breaking}
    state["_breaking_idle"] = state["_breaking"] & state["_idle"]
    entries_of: dict[str, set[str]] = {}
    for entry, person in state["_people"].items():
        entries_of.setdefault(person, set()).add(entry)
    state["_entries_of"] = entries_of
    state["_round_to_deal"] = (state["_round"] or set()) - state["_round_started"]
    state["_idle_peak"] = len(state["_idle"])


def _into_parts(state: dict[str, Any]) -> dict[str, Any]:
    """Before the first parts, their fields were the director's own."""
    take = state.pop
    state["floor"] = restored(
        Floor, seats_per_table=state["definition"].seats_per_table, tables=take("tables"), where=take("where"),
        opened=take("tables_opened", 0), broken=take("tables_broken"), moves=take("moves"), _open=take("_open"),
        _idle=take("_idle"), _idle_peak=take("_idle_peak"), _breaking=take("_breaking"),
        _breaking_idle=take("_breaking_idle"))
    state["rounds"] = restored(
        Rounds, points=frozenset(take("_h4h_points")), _round=take("_round"), _started=take("_round_started"),
        _to_deal=take("_round_to_deal"), _busts=take("_round_busts"))
    state["people"] = restored(
        People, _person=take("_people"), _entries_of=take("_entries_of"), _qualified=take("_qualified"),
        qualified_entries=take("qualified_entries"))
    state["pending"] = restored(
        Pending, _offers=take("rebuy_offers"), _held=take("_held"), _chips=take("_pending_chips"),
        _deal_due=take("_deal_due"))
    state["clock"] = restored(
        Clock, _now=take("_now"), _level_started_at=take("_level_started_at"),
        _hands_in_level=take("_hands_in_level"), _most_hands_in_level=take("_most_hands_in_level"))
    return state


def _into_state(state: dict[str, Any]) -> dict[str, Any]:
    """Before every field had a part, the face held the stacks, the entries, the results, the prizes, the
    re-buys, a deal, the bounties and its status itself, and hand-for-hand's and the clock's flags; the fields
    added late (a class default then) may be missing."""
    take = state.pop
    rounds, clock = state["rounds"], state["clock"]
    pickling.restore(rounds, {"_on": take("hand_for_hand"), "_began_at": take("hand_for_hand_at"),
                              "_forced": take("hand_for_hand_forced", False)})
    pickling.restore(clock, {"_level": take("level"), "_break_until": take("break_until"),
                             "_break_keeps_level": take("break_keeps_level", False),
                             "_next_break_at": take("next_break_at", math.inf)})
    state["progress"] = restored(
        Progress, _status=take("status"), _flight_stopping=take("flight_stopping"),
        _ended_by_deal=take("ended_by_deal", False), _failure=take("failure", None),
        _incidents=take("incidents", []))
    state["chips"] = restored(Stacks, _stacks=take("stacks"), _issued=take("chips_issued"))
    state["roster"] = restored(
        Roster, _entries=take("entries"), _late_entries=take("late_entries", 0), _reentered=take("reentered"),
        _reentries=take("reentries"), _closed=take("entries_closed"), _flight_entries=take("flight_entries"))
    state["places"] = restored(
        Results, _results=take("results"), _knockouts=take("knockouts"), _removed=take("removed"),
        _removals=take("removals"), _refunds=take("refunds"))
    state["purse"] = restored(Purse, _prizes=take("prizes"), _pool_cents=take("prize_pool_cents"),
                              _seats_won=take("seats_won"))
    state["buys"] = restored(Buys, _rebuys_taken=take("rebuys_taken"), _period_over=take("rebuy_period_over"),
                             _add_on_until=take("add_on_until"), _add_ons=take("add_ons"))
    state["negotiation"] = restored(Negotiation, _pressed=take("deal_pressed"), _terms=take("deal_terms"),
                                    _proposal=take("proposal"), _dealt=take("dealt"))
    state["heads"] = restored(Heads, _bounties=take("bounties"), _envelopes=take("envelopes", None))
    return state
