"""Tournaments pickled by older engines (snapshots in older journals) restore: each layout is brought to the next.

A snapshot is the director pickled whole. When its state moves, the older
layout is kept readable here rather than in the classes: a table index from
before the open tables were indexed is rebuilt, and the fields that lived on
the director before its parts had owners (issue 55) become those parts.
"""

from __future__ import annotations

from typing import Any, TypeVar

from engine import pickling
from engine.clock import Clock
from engine.floor import Floor, Playing
from engine.handforhand import Rounds
from engine.people import People
from engine.rebuys import Pending
from engine.seating import OpenTables

Part = TypeVar("Part")


def restored(kind: type[Part], **fields: Any) -> Part:
    """A part with the fields an older snapshot held, without running its constructor."""
    part = kind.__new__(kind)
    pickling.restore(part, fields)
    return part


def upgraded(state: dict[str, Any]) -> dict[str, Any]:
    """The state of a pickled director in today's layout (a current one comes back as it is)."""
    if "floor" in state:
        return state
    for late in ("removed", "removals", "knockouts", "entries_closed", "reentered", "reentries", "dealt"):
        state.setdefault(late, {})
    state.setdefault("flight_entries", 0)
    state.setdefault("deal_terms", None)
    state.setdefault("qualified_entries", set(state.get("_qualified", {}).values()))
    if "_open" not in state:
        _index_open_tables(state)
    return _into_parts(state)


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
    """Before issue 55 the parts' fields were the director's own."""
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
