"""How a population of players plays, counted from PHH hand histories as poker trackers count it.

The statistics and their definitions are those of ../shared/data/real-play-stats.json (public hand histories
of real No-Limit Hold'em), so that a bot mix can be set beside real play: VPIP, PFR, 3-bet, flop seen,
showdown of flops seen, postflop aggression factor, all-in preflop, by table size (heads-up, 3-6, 7-10) and,
given who played which strategy, per strategy. A hand is counted deep when every starting stack is above
``deep_bb`` big blinds (the reference's online games average 73-154 big blinds).
"""

from __future__ import annotations

import random
import tomllib
from collections import defaultdict
from collections.abc import Iterable, Mapping
from typing import Any

from bots.strategies import STRATEGIES, seat_view
from engine.cards import shuffled_deck
from engine.hand import Hand
from engine.history import to_phh

SIZES = ("heads-up", "short-handed 3-6", "full ring 7-10")
COUNTED = ("seats", "vpip", "pfr", "three_bet", "saw_flop", "showdown", "allin_pre", "post_aggr", "post_calls")


def size_of(players: int) -> str:
    return SIZES[0] if players == 2 else SIZES[1] if players <= 6 else SIZES[2]


def hands_of(text: str) -> Iterable[dict[str, Any]]:
    """The No-Limit Hold'em hands of a .phh or .phhs text (TOML: a .phhs holds one table per hand)."""
    document = tomllib.loads(text)
    for hand in (document.values() if "variant" not in document else [document]):
        if isinstance(hand, dict) and hand.get("variant") == "NT" and "actions" in hand:
            yield hand


class Counts:
    """Seat counts by (table size, group): a group is a strategy, or 'all'."""

    def __init__(self) -> None:
        self.hands: dict[str, int] = defaultdict(int)
        self.counts: dict[tuple[str, str], dict[str, float]] = defaultdict(lambda: defaultdict(float))

    def add(self, hand: dict[str, Any], group_of: Mapping[str, str] | None = None,
            deep_bb: float | None = None) -> None:
        stacks, blinds = hand["starting_stacks"], hand["blinds_or_straddles"]
        n = len(stacks)
        big_blind = max(blinds) or 1
        if deep_bb is not None and min(stacks) <= deep_bb * big_blind:
            return
        size = size_of(n)
        self.hands[size] += 1
        street = raises = 0
        bet_open = False
        folded: set[int] = set()
        seen: dict[str, set[int]] = {key: set() for key in ("vpip", "pfr", "three_bet", "saw_flop", "showdown",
                                                            "allin_pre")}
        aggression, calls = [0] * n, [0] * n
        for action in hand["actions"]:
            parts = action.split()
            if parts[0] == "d":
                if parts[1] == "db":
                    street += 1
                    bet_open = False
                    if street == 1:
                        seen["saw_flop"] |= set(range(n)) - folded
                continue
            seat = int(parts[0][1:]) - 1
            if parts[1] == "f":
                folded.add(seat)
            elif parts[1] == "cc":
                if street == 0 and (raises > 0 or blinds[seat] < big_blind):
                    seen["vpip"].add(seat)
                if street > 0 and bet_open:
                    calls[seat] += 1
            elif parts[1] == "cbr":
                if street == 0:
                    seen["vpip"].add(seat)
                    seen["pfr"].add(seat)
                    raises += 1
                    if raises == 2:
                        seen["three_bet"].add(seat)
                    if float(parts[2]) >= 0.98 * stacks[seat]:
                        seen["allin_pre"].add(seat)
                else:
                    aggression[seat] += 1
                    bet_open = True
            elif parts[1] == "sm":
                seen["showdown"].add(seat)
        names = hand.get("players") or [f"p{seat + 1}" for seat in range(n)]
        for seat in range(n):
            groups = ["all"] + ([group_of[names[seat]]] if group_of and names[seat] in group_of else [])
            for group in groups:
                row = self.counts[(size, group)]
                row["seats"] += 1
                row["stack_bb"] += stacks[seat] / big_blind
                for key, seats in seen.items():
                    row[key] += seat in seats
                row["post_aggr"] += aggression[seat]
                row["post_calls"] += calls[seat]

    def rows(self, group: str = "all") -> dict[str, dict[str, float | int | None]]:
        """The statistics of ``group`` by table size, as real-play-stats.json gives them."""
        out = {}
        for size in SIZES:
            row = self.counts.get((size, group))
            if not row or not row["seats"]:
                continue
            seats = row["seats"]
            out[size] = {"hands": self.hands[size] if group == "all" else None, "seats_dealt": int(seats),
                         "vpip": round(row["vpip"] / seats, 3), "pfr": round(row["pfr"] / seats, 3),
                         "three_bet_of_seats": round(row["three_bet"] / seats, 3),
                         "saw_flop": round(row["saw_flop"] / seats, 3),
                         "showdown_of_flop_seen": round(row["showdown"] / max(1, row["saw_flop"]), 3),
                         "postflop_aggression_factor": round(row["post_aggr"] / max(1, row["post_calls"]), 2),
                         "allin_preflop_of_seats": round(row["allin_pre"] / seats, 4),
                         "mean_stack_bb": round(row["stack_bb"] / seats, 1)}
        return out

    def groups(self) -> list[str]:
        return sorted({group for _, group in self.counts if group != "all"})


def table(counts: Counts) -> str:
    """The statistics as text: a block per table size, a column for everyone and one per strategy."""
    columns = ["all", *counts.groups()]
    keys = ("seats_dealt", "vpip", "pfr", "three_bet_of_seats", "saw_flop", "showdown_of_flop_seen",
            "postflop_aggression_factor", "allin_preflop_of_seats", "mean_stack_bb")
    lines = []
    for size in SIZES:
        rows = {group: counts.rows(group).get(size) for group in columns}
        if rows["all"] is None:
            continue
        lines.append(f"{size}: {counts.hands[size]:,} hands")
        lines.append(f"  {'':<28}" + "".join(f"{group:>10}" for group in columns))
        for key in keys:
            cells = []
            for group in columns:
                row = rows[group]
                value = None if row is None else row[key]
                percent = key not in ("seats_dealt", "postflop_aggression_factor", "mean_stack_bb")
                cells.append("" if value is None else f"{100 * value:.1f}%" if percent else f"{value:,}")
            lines.append(f"  {key.replace('_', ' '):<28}" + "".join(f"{cell:>10}" for cell in cells))
    return "\n".join(lines)


def sample_hands(players: int, hands: int, seed: int, mix: Mapping[str, float], *,
                 stack_bb: int = 100) -> tuple[list[str], dict[str, str]]:
    """``hands`` hands at one table of ``players`` seats, every stack ``stack_bb`` big blinds at each deal (as
    the reference's cash games keep their stacks deep), the button moving on: the PHH of each hand and who
    played which strategy. The same seed plays the same hands."""
    rng = random.Random(seed)
    names, weights = list(mix), list(mix.values())
    seats = [f"s{number + 1}" for number in range(players)]
    strategy = {seat: rng.choices(names, weights)[0] for seat in seats}
    plays = {seat: STRATEGIES[strategy[seat]] for seat in seats}
    texts = []
    for number in range(hands):
        order = seats[number % players:] + seats[:number % players]  # the small blind first
        hand = Hand(order, [100 * stack_bb] * players, small_blind=50, big_blind=100, deck=shuffled_deck(rng))
        while not hand.finished:
            view = seat_view(hand)
            hand.act(*plays[order[view.legal.player]](view, rng))
        texts.append(to_phh(hand, hand_number=number + 1))
    return texts, strategy


class CountingWriter:
    """Where ``simulate`` writes its hands (``hands_out``), counted as they come, each PHH section at once, and
    passed on to ``also`` (the --hands-out file) when there is one."""

    def __init__(self, group_of: Mapping[str, str], deep_bb: float | None) -> None:
        self.counts = Counts()
        self.group_of = group_of
        self.deep_bb = deep_bb
        self.also: Any = None

    def write(self, text: str) -> int:
        for hand in hands_of(text):
            self.counts.add(hand, self.group_of, self.deep_bb)
        if self.also is not None:
            self.also.write(text)
        return len(text)
