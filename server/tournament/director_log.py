"""The log of the director's actions, read from the audit trail: the console's records and what each caused.

A refused command changes nothing but a record of its refusal (``ConsoleRefused``), so that the log shows it with
its reason. A move or balance queued until a hand ends shows twice: when asked, and when made or dropped, at the
hand's end (whose record is not the console's; the line's time is then the wall clock read off the tournament
clock since the last record that kept both).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import msgspec

from engine.money import dollars

from server.tournament import records as r
from server.tournament.persistence import Line

_decoder = msgspec.msgpack.Decoder(Line[r.AnyRecord, list[Any]])  # the events as plain dictionaries
CONSOLE = (r.Pause, r.Resume, r.AdjustClock, r.CallBreak, r.ForceHandForHand, r.EditLevel, r.MovePlayer,
           r.BalanceNow, r.SitOutPlayer, r.RemovePlayer, r.Announce, r.Compensate, r.WithdrawPrize, r.WithdrawMove,
           r.WithdrawBalance, r.ConsoleRefused)
# What a hand's end does of the director's queue: these tags in a line's bytes mark it for decoding.
QUEUE_MARKS = (b"queued_move_dropped", b"balance_queued", b"director")


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
    clock_at: tuple[float, float] | None = None  # (wall, tournament clock) of the last record that kept both
    for raw in records:
        console = raw[2:].startswith(_TAGS)  # read from the first bytes: a line starts with its record's tag
        if not console and not any(mark in raw for mark in QUEUE_MARKS):
            continue
        line = _decoder.decode(raw)
        record, events = line.record, line.events
        wall = getattr(record, "wall", None)
        if wall and line.at is not None:
            clock_at = (wall, line.at)
        if isinstance(record, CONSOLE):
            action, player, result = describe(record, events, name)
            lines.append(LogLine(record.wall or None, action, player, name(player) if player else None, result))
        elif not isinstance(record, r.Act):
            when = clock_at[0] + line.at - clock_at[1] if clock_at and line.at is not None else None
            lines += [LogLine(when, action, player, name(player) if player else None, result)
                      for action, player, result in queue_done(events, name)]
    return lines


def queue_done(events: list[Any], name: Callable[[str], str]) -> list[tuple[str, str | None, str]]:
    """What a hand's end made of the moves and balance the director queued for it."""
    done: list[tuple[str, str | None, str]] = []
    balanced = False
    for event in events:
        kind = event.get("type") if isinstance(event, dict) else None
        if kind == "player_moved" and event["reason"] == "director":
            done.append(("Queued move made", event["player"],
                         f"at the hand's end: table {event['from_table']} → table {event['to_table']}, "
                         f"seat {event['seat'] + 1}"))
        elif kind == "queued_move_dropped":
            done.append(("Queued move refused", event["player"], f"table {event['to_table']}: {event['reason']}"))
        elif kind == "balance_queued" and not event["on"]:
            balanced = True
    if balanced:
        moves = [event for event in events if isinstance(event, dict) and event.get("type") == "player_moved"
                 and event["reason"] == "balance"]
        done.append(("Queued balance made", None, moved_list(moves, name) or "the tables were balanced by then"))
    return done


def moved_list(moves: list[Any], name: Callable[[str], str]) -> str:
    return "; ".join(f"{name(m['player'])} ({m['player']}): table {m['from_table']} → table {m['to_table']}"
                     for m in moves)


# Most records are decisions and hand ends: decoding each would cost the log the whole journal's length.
_TAGS = tuple(msgspec.msgpack.encode(kind.__struct_config__.tag) for kind in CONSOLE)


def clock(seconds: float) -> str:
    """The tournament clock as h:mm:ss."""
    whole = max(0, round(seconds))
    return f"{whole // 3600}:{whole // 60 % 60:02d}:{whole % 60:02d}"


def _describe_clock(record: r.AnyRecord, kinds: dict[str, Any]) -> tuple[str, str | None, str] | None:
    """The clock's and the levels' records in a director's words; None for any other."""
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
    return None


def describe(record: r.AnyRecord, events: list[Any], name: Callable[[str], str]) -> tuple[str, str | None, str]:
    """(action, the player concerned, result) in a director's words."""
    kinds = {event["type"]: event for event in events if isinstance(event, dict)}
    timed = _describe_clock(record, kinds)
    if timed is not None:
        return timed
    match record:
        case r.MovePlayer(player, table):
            moved = kinds.get("player_moved")
            if moved is None:
                return "Move queued", player, f"to table {table} when their hand ends"
            return "Moved", player, f"table {moved['from_table']} → table {moved['to_table']}, seat {moved['seat'] + 1}"
        case r.BalanceNow():
            if "balance_queued" in kinds:
                return "Balance queued", None, "when the tables it moves from finish their hands"
            moves = [event for event in events if isinstance(event, dict) and event["type"] == "player_moved"]
            return "Balance now", None, moved_list(moves, name)
        case r.WithdrawMove(player):
            return "Queued move withdrawn", player, f"stays at their table (the move to table "\
                f"{kinds['queued_move_dropped']['to_table']} is off)"
        case r.WithdrawBalance():
            return "Queued balance withdrawn", None, "no balancing move is made for it"
        case r.ConsoleRefused(action, player, reason):
            return f"{action}: refused", player, reason
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
