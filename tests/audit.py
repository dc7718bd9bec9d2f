"""Test helper: rules.md B.5-B.7 checked on an audit trail alone, as a tournament director would read it."""

from __future__ import annotations

from typing import Any


def check_breaks(events: list[dict[str, Any]]) -> tuple[int, int]:
    """Every table locked to close had the fewest players seated of the open tables at that moment, mid-hand or
    not, and was the one broken; no locked table dealt again. Returns the number of tables broken, and of those
    locked mid-hand."""
    size: dict[int, int] = {}
    where: dict[str, int] = {}
    closing: set[int] = set()
    broken: set[int] = set()
    playing: set[int] = set()
    locked_mid_hand = 0
    for number, event in enumerate(events):
        kind = event["type"]
        if kind == "seated":
            size[event["table"]] = size.get(event["table"], 0) + 1
            where[event["player"]] = event["table"]
        elif kind == "player_moved":
            size[event["from_table"]] -= 1
            size[event["to_table"]] = size.get(event["to_table"], 0) + 1
            where[event["player"]] = event["to_table"]
        elif kind in ("player_eliminated", "player_removed"):
            size[where.pop(event["player"])] -= 1
        elif kind == "table_closing":
            table = event["table"]
            open_sizes = [seated for other, seated in size.items() if other not in closing | broken]
            assert table not in closing | broken, f"event {number}: table {table} locked twice"
            assert event["players"] == size[table] == min(open_sizes), \
                f"event {number}: table {table} locked with {size[table]} seated while another open table had " \
                f"{min(open_sizes)}"
            closing.add(table)
            locked_mid_hand += table in playing
        elif kind == "table_kept":
            closing.remove(event["table"])
        elif kind == "hand_started":
            assert event["table"] not in closing, f"event {number}: table {event['table']} dealt while closing"
            playing.add(event["table"])
        elif kind in ("hand_finished", "hand_voided"):
            playing.discard(event["table"])
        elif kind == "table_broken":
            assert event["table"] in closing, f"event {number}: table {event['table']} broken without a lock"
            closing.remove(event["table"])
            broken.add(event["table"])
    return len(broken), locked_mid_hand
