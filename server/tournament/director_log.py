"""The log of the director's actions, read from the audit trail: the console's records and what each caused.

A refused command changes nothing and is not journaled, so it is not here: its answer said why at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from server.tournament import records as r
from server.tournament.persistence import Line

_decoder = msgspec.msgpack.Decoder(Line[r.AnyRecord, list[Any]])  # the events as plain dictionaries
CONSOLE = (r.Pause, r.Resume, r.AdjustClock, r.CallBreak, r.ForceHandForHand, r.EditLevel, r.MovePlayer,
           r.BalanceNow, r.SitOutPlayer, r.RemovePlayer, r.Announce, r.Compensate, r.WithdrawPrize)


class LogLine(msgspec.Struct):
    """One action: when (seconds since the epoch; None in records journaled before the time was kept), what,
    whom it concerned (``player`` and their ``name``; None for the whole tournament) and what came of it."""

    wall: float | None
    action: str
    player: str | None
    name: str | None
    result: str


def actions_of(records: Iterable[bytes], name: Callable[[str], str]) -> list[LogLine]:
    lines = []
    for raw in records:
        if not raw[2:].startswith(_TAGS):  # read from the first bytes: a line starts with its record's tag
            continue
        line = _decoder.decode(raw)
        record, events = line.record, line.events
        if isinstance(record, CONSOLE):
            action, player, result = describe(record, events, name)
            lines.append(LogLine(record.wall or None, action, player, name(player) if player else None, result))
    return lines


# Most records are decisions and hand ends: decoding each would cost the log the whole journal's length.
_TAGS = tuple(msgspec.msgpack.encode(kind.__struct_config__.tag) for kind in CONSOLE)


def clock(seconds: float) -> str:
    """The tournament clock as h:mm:ss."""
    whole = max(0, round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def dollars(cents: int) -> str:
    return f"${cents / 100:,.2f}"


def describe(record: r.AnyRecord, events: list[Any], name: Callable[[str], str]) -> tuple[str, str | None, str]:
    """(action, the player concerned, result) in a director's words."""
    kinds = {event["type"]: event for event in events if isinstance(event, dict)}
    match record:
        case r.Pause():
            return "Paused", None, "no new hand starts; the clock stands still"
        case r.Resume():
            return "Resumed", None, "the clock goes on"
        case r.AdjustClock(seconds):
            adjusted = kinds.get("clock_adjusted")
            ends = f"now ends at {clock(adjusted['ends_at'])} on the tournament clock" if adjusted else ""
            return f"Clock {'+' if seconds > 0 else '−'}{abs(seconds):g} s", None, ends
        case r.CallBreak(_, minutes):
            started = kinds.get("break_started")
            return f"Break of {minutes:g} min", None, \
                f"until {clock(started['until'])} on the tournament clock" if started else ""
        case r.ForceHandForHand(on):
            if "hand_for_hand_started" in kinds:
                result = f"on at {kinds['hand_for_hand_started']['players_left']} players"
            elif "hand_for_hand_ended" in kinds:
                result = "off"
            else:
                result = "on from the next round" if on else "off once the round under way ends"
            return f"Hand-for-hand {'on' if on else 'off'}", None, result
        case r.EditLevel(level, small_blind, big_blind, ante, _):
            edited = kinds["level_edited"]
            length = f", {edited['minutes']:g} min" if edited["minutes"] is not None else ""
            return f"Level {level} edited", None, f"{small_blind:,}/{big_blind:,}, ante {ante:,}{length}"
        case r.MovePlayer(player, _):
            moved = kinds["player_moved"]
            return "Moved", player, f"table {moved['from_table']} → table {moved['to_table']}, seat {moved['seat'] + 1}"
        case r.BalanceNow():
            moves = [event for event in events if isinstance(event, dict) and event["type"] == "player_moved"]
            return "Balance now", None, "; ".join(
                f"{name(m['player'])} ({m['player']}): table {m['from_table']} → table {m['to_table']}" for m in moves)
        case r.SitOutPlayer(player):
            return "Sat out", player, "sitting out: the clock acts for them until they come back"
        case r.RemovePlayer(player, refund):
            removed = kinds.get("player_removed")
            if removed is None:
                return f"Removed {'with' if refund else 'without'} a refund", player, "when their hand ends"
            back = f"; {dollars(removed['refund_cents'])} refunded" if removed["refund_cents"] else ""
            return f"Removed {'with' if refund else 'without'} a refund", player, \
                f"{removed['chips']:,} chips left play{back}"
        case r.Announce(text):
            return "Announcement", None, text
        case r.Compensate(player, cents, reason):
            return "Compensation", player, f"{dollars(cents)} from the house: {reason}"
        case r.WithdrawPrize(player, cents, reason):
            return "Prize withdrawn", player, f"{dollars(cents)}: {reason}"
    raise AssertionError(f"not a console record: {record!r}")
