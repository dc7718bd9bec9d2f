"""Hand histories in PHH, the open Poker Hand History format.

A finished ``Hand`` becomes a PHH text (TOML) that PokerKit's
``HandHistory.loads`` reads and replays; many hands become one ``.phhs`` file
of numbered sections. PHH lists players in PokerKit's order, which is ours
(clockwise from the seat left of the button), and states forced bets by
position; heads-up PokerKit reads them reversed, so they are written reversed.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from engine.cards import card_text, cards
from engine.events import Acted, BoardDealt, HoleDealt, Posted, Shown
from engine.hand import Hand
from engine.wire import HandSeat


def position_forced_bets(hand: Hand) -> tuple[list[int], list[int], bool]:
    """``(antes, blinds_or_straddles, ante_trimming_status)`` as PokerKit positions read them.

    The big-blind ante is written as the part actually paid after the blind
    (rules.md C.12: blind first), so PokerKit, which takes antes first, posts
    the same live blind.
    """
    n = hand.n
    blinds = [0] * n
    antes = [0] * n
    if hand.sb_index is not None:
        blinds[hand.sb_index] = hand.small_blind
    blinds[hand.bb_index] = hand.big_blind
    if hand.bb_ante:
        antes[hand.bb_index] = next(
            (e.amount for e in hand.events if isinstance(e, Posted) and e.kind == "big_blind_ante"), 0
        )
        trimming = False  # a lone dead ante must not be returned as uncalled
    else:
        antes = [hand.ante] * n
        trimming = True  # antes split into pots by level, like bets
    if n == 2:
        blinds.reverse()
        antes.reverse()
    return antes, blinds, trimming


def phh_actions(hand: Hand) -> list[str]:
    """The hand's events as PHH actions: deals, decisions and shown cards."""
    index = {player: i + 1 for i, player in enumerate(hand.players)}
    actions = []
    for event in hand.events:
        if type(event) is HoleDealt:
            actions.append(f"d dh p{index[event.player]} {card_text(event.cards)}")
        elif type(event) is BoardDealt:
            actions.append(f"d db {card_text(event.cards)}")
        elif type(event) is Acted:
            p = index[event.player]
            if event.action == "fold":
                actions.append(f"p{p} f")
            elif event.action in ("check", "call"):
                actions.append(f"p{p} cc")
            else:
                actions.append(f"p{p} cbr {event.to}")
        elif type(event) is Shown:
            actions.append(f"p{index[event.player]} sm {card_text(event.cards)}")
    return actions


def to_phh(
    hand: Hand,
    *,
    table: int | None = None,
    hand_number: int | None = None,
    seats: Sequence[int] | None = None,
    level: int | None = None,
) -> str:
    """One finished hand as PHH text."""
    if not hand.finished:
        raise ValueError("only a finished hand has a history to export")
    antes, blinds, trimming = position_forced_bets(hand)
    fields: list[tuple[str, object]] = [
        ("variant", "NT"),
        ("ante_trimming_status", trimming),
        ("antes", antes),
        ("blinds_or_straddles", blinds),
        ("min_bet", hand.min_bet),
        ("starting_stacks", list(hand.starting_stacks)),
        ("actions", phh_actions(hand)),
        ("players", list(hand.players)),
        ("finishing_stacks", list(hand.stacks)),
    ]
    if seats is not None:
        fields.append(("seats", list(seats)))
    if table is not None:
        fields.append(("table", table))
    if hand_number is not None:
        fields.append(("hand", hand_number))
    if level is not None:
        fields.append(("level", level))
    return "".join(f"{key} = {_toml(value)}\n" for key, value in fields)


def redact(phh_text: str, seen_by: str | None) -> str:
    """A hand history as ``seen_by`` (an entry id, or None for anyone) may read it: hole cards only where
    they were shown at the table, and the viewer's own; every other player's are ``????`` (PHH's unknown
    cards). The admin reads the stored text itself.
    """
    lines = phh_text.splitlines(keepends=True)
    fields = {line.split(" = ", 1)[0]: number for number, line in enumerate(lines)}
    if "actions" not in fields or "players" not in fields:
        return phh_text
    actions: list[str] = _field(lines[fields["actions"]])
    players: list[str] = _field(lines[fields["players"]])
    visible = {action.split()[0] for action in actions if action.split()[1:2] == ["sm"]}
    if seen_by in players:
        visible.add(f"p{players.index(seen_by) + 1}")
    redacted = [f"d dh {parts[2]} ????" if parts[:2] == ["d", "dh"] and parts[2] not in visible else action
                for action in actions for parts in [action.split()]]
    lines[fields["actions"]] = f"actions = {_toml(redacted)}\n"
    return "".join(lines)


def _field(line: str) -> Any:
    """A field's value: the text after ``key = `` is JSON, as ``to_phh`` writes it."""
    return json.loads(line.split(" = ", 1)[1])


def position_name(index: int, players: int) -> str:
    """The seat's position by the names rooms use, from its index in PHH's order (clockwise from the seat left
    of the button, so the button is last): SB, BB, then UTG first to act, UTG+1 ... and LJ, HJ, CO, BTN up to
    the button. Heads-up the button (the small blind) is BTN and the other seat BB."""
    if players == 2:
        return ("BB", "BTN")[index]
    if index < 2:
        return ("SB", "BB")[index]
    others, nth = players - 2, index - 2
    if nth == 0 and others >= 3:
        return "UTG"
    from_button = others - 1 - nth
    return ("BTN", "CO", "HJ", "LJ")[from_button] if from_button < 4 else f"UTG+{nth}"


def hand_seat(phh_text: str, player: str) -> HandSeat | None:
    """One player's line of a hand (their position, cards, the board, chips won or lost, whether they folded
    before the flop), read from its PHH as a viewer may see it: cards ``????`` are None. None when they were
    not dealt in."""
    values = {line.split(" = ", 1)[0]: _field(line) for line in phh_text.splitlines() if " = " in line}
    players: list[str] = values.get("players", [])
    if player not in players:
        return None
    index = players.index(player)
    token = f"p{index + 1}"
    hole: tuple[int, ...] | None = None
    board: list[int] = []
    folded_preflop = False
    for action in values["actions"]:
        parts = action.split()
        if parts[:3] == ["d", "dh", token] and parts[3] != "????":
            hole = cards(parts[3])
        elif parts[:2] == ["d", "db"]:
            board += cards(parts[2])
        elif parts == [token, "f"] and not board:
            folded_preflop = True
        elif parts[:2] == [token, "sm"]:
            hole = cards(parts[2])
    return HandSeat(position_name(index, len(players)), list(hole) if hole else None, board,
                    values["finishing_stacks"][index] - values["starting_stacks"][index], folded_preflop)


def to_phhs(phh_texts: Iterable[str]) -> str:
    """Many PHH texts as one ``.phhs`` file of sections ``[1]``, ``[2]`` ..."""
    return "\n".join(phhs_section(i, text) for i, text in enumerate(phh_texts, start=1))


def phhs_section(number: int, phh_text: str) -> str:
    """One numbered section of a ``.phhs`` file; sections are joined by a blank line."""
    return f"[{number}]\n{phh_text}"


def _toml(value: object) -> str:
    # JSON's string escapes and arrays are valid TOML; booleans are spelled the same.
    return json.dumps(value, ensure_ascii=True)
