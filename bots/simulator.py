"""The accelerated simulator: a whole tournament with in-process bots, as fast as the CPU allows.

A second shell over the same director the real-time server drives. Time is
simulated: a hand takes ``HAND_SECONDS`` plus ``DECISION_SECONDS`` per
decision of the simulated clock, so levels by minutes, breaks and the
interleaving of tables behave as in a live room: while one table's hand is
on, others finish theirs, bust players, break and balance. Each hand is
played to its end when it is dealt and settled with the director at its
simulated finishing time, which is what an observer of the tables would see.

Money decisions are the bots' too (``bots.strategies.money_choice``): a
re-buy offer or the add-on is answered the moment it is made, and at the
final table in the money every bot is asked once per field size whether it
wants a deal, then whether it accepts the proposal.
"""

from __future__ import annotations

import heapq
import math
import random
import time
from collections import deque
from collections.abc import Callable
from typing import IO, Any, Protocol

import msgspec

from bots.strategies import DEFAULT_MIX, STRATEGIES, MoneyView, money_choice, seat_view
from engine.deals import Kind
from engine.director import Status, Tournament
from engine.events import AddOnOffered, DealProposed, Event, HandStarted, PlayerEliminated, RebuyOffered
from engine.history import phhs_section, to_phh
from engine.structure import Definition
from engine.wire import stamped

HAND_SECONDS = 8.0
DECISION_SECONDS = 4.0
PROPOSED_KINDS: tuple[Kind | None, ...] = (None,) * 6 + ("icm", "chip_chop", "equal")  # None: press Deal


class TextOut(Protocol):
    """Where hands go as PHH text: a file, or anything that takes text (``mttsim simulate --stats`` counts it)."""

    def write(self, text: str, /) -> int: ...


class Report(msgspec.Struct):
    """What ``mttsim simulate --json`` prints."""

    players: int
    hands: int
    wall_s: float
    hands_per_s: float
    tables_broken: int
    moves: int
    hand_for_hand_at: list[int]
    simulated_hours: float
    results: list[dict[str, Any]]
    status: str = "finished"
    money: dict[str, int] = {}
    late_registrations: int = 0  # entries bought while running (rules.md F.24)
    reentries: int = 0  # of them, re-entries after an elimination (F.27)


class Progress(msgspec.Struct):
    players: int
    players_left: int
    level: int
    tables: int
    hands: int
    wall_s: float


def simulate(
    definition: Definition,
    players: int,
    seed: int,
    *,
    mix: dict[str, float] | None = None,
    events_out: IO[bytes] | None = None,
    hands_out: TextOut | None = None,
    progress: Callable[[Progress], None] | None = None,
    progress_every_s: float = 0.25,
    on_event: Callable[[Tournament, Event, float], None] | None = None,
    people: dict[str, str] | None = None,
    cancel_at_hand: int | None = None,
    late_players: int = 0,
    reentry_probability: float = 0.0,
    strategies: dict[str, str] | None = None,
) -> Report:
    """Register ``players`` bots, run the tournament to its end and report.

    The director's RNG (seats, decks, breaks) and the bots' RNG are both
    seeded from ``seed``: the same arguments give the same tournament.
    ``on_event`` sees every director event as it happens, with the simulated
    clock (tests use it to check invariants after every hand; the structure
    lab, bots/lab.py, to draw the run over time). ``people`` maps bot names (bot1,
    bot2 ...) to the person holding them, for multi-entry fields.
    ``cancel_at_hand`` cancels the tournament (its refund policy) once that
    many hands have been dealt, with hands still in progress.
    ``late_players`` more bots try to register at moments drawn uniformly
    over the late registration's levels (those that find it closed do not
    enter); a bot that is out re-enters with ``reentry_probability`` while
    re-entry is open. Entries bought late are named on from ``bot{players}``.
    ``strategies``, when given, is filled with each entry's strategy (``mttsim simulate --stats`` counts by it).
    """
    now = 0.0
    rng = random.Random(seed)
    bot_rng = random.Random(rng.getrandbits(64))
    tournament = Tournament(definition, random.Random(rng.getrandbits(64)))
    mix = mix or DEFAULT_MIX
    names, weights = list(mix), list(mix.values())
    strategy: dict[str, str] = {} if strategies is None else strategies
    encoder = msgspec.json.Encoder()
    written_hands = 0
    started = time.perf_counter()
    next_progress = started + progress_every_s

    def emit(events: list[Event]) -> None:
        pending = deque(events)  # the start alone emits an event per player: no list.pop(0) here
        while pending:
            event = pending.popleft()
            if events_out is not None:
                events_out.write(stamped(encoder.encode(event), now, tournament.level + 1) + b"\n")
            if on_event is not None:
                on_event(tournament, event, now)
            pending += answer(event)

    def says_yes(player: str, offer: str, deal_cents: int = 0) -> bool:
        stack = tournament.stacks.get(player, 0)
        chips = sum(tournament.stacks.values()) or 1
        view = MoneyView(offer, stack, definition.starting_stack, stack / chips, deal_cents,
                         tournament.ledger.pool_cents)
        return money_choice(strategy[player], view, bot_rng)

    def new_entry(name: str) -> None:
        strategy[name] = bot_rng.choices(names, weights)[0]

    def answer(event: Event) -> list[Event]:
        """The bots' replies to an offer, as director events."""
        replies: list[Event] = []
        if isinstance(event, PlayerEliminated) and reentry_probability and tournament.entries_open("reentry") \
                and bot_rng.random() < reentry_probability:
            name = f"bot{len(tournament.entries) + 1}"
            if tournament.can_reenter(event.player, name):
                strategy[name] = strategy[event.player]  # the same person, the same game
                replies += tournament.reenter(event.player, name)
        elif isinstance(event, RebuyOffered):
            yes = says_yes(event.player, "rebuy")
            replies += tournament.rebuy(event.player) if yes else tournament.decline_rebuy(event.player)
        elif isinstance(event, AddOnOffered):
            for player in list(tournament.stacks):
                if says_yes(player, "add_on"):
                    replies += tournament.add_on(player)
        elif isinstance(event, DealProposed):
            for player, cents in event.amounts.items():
                if tournament.proposal is None:
                    break
                if player == event.proposer:
                    continue  # proposing was accepting
                yes = says_yes(player, "deal", cents)
                replies += tournament.accept_deal(player) if yes else tournament.reject_deal(player)
        return replies

    def ask_for_a_deal() -> None:
        """Each bot that wants a deal presses Deal, or now and then proposes a kind of its own (a third of the
        time: ICM, a chip chop or an equal split, keeping a tenth of the pool in play half of those times)."""
        for player in list(tournament.stacks):
            if tournament.status is Status.RUNNING and tournament.can_press_deal(player) \
                    and says_yes(player, "press_deal"):
                kind = bot_rng.choice(PROPOSED_KINDS)
                keep = bot_rng.choice((0, tournament.ledger.pool_cents // 10))
                if kind is not None and tournament.can_propose_deal(player, kind, keep):
                    emit(tournament.propose_deal(player, kind, keep))
                else:
                    emit(tournament.press_deal(player))

    emit(tournament.open_registration())
    for number in range(1, players + 1):
        player = f"bot{number}"
        emit(tournament.register(player, (people or {}).get(player)))
        new_entry(player)
    emit(tournament.start(now))
    late_until = (tournament.entries_close_at("late_registration") or 3600.0) if late_players else 0.0  # levels of
    arrivals = deque(sorted(bot_rng.uniform(0, late_until) for _ in range(late_players)))  # hands: the first hour

    finishing: list[tuple[float, int]] = []  # (simulated time the hand ends, table)
    seats: dict[int, list[int]] = {}
    asked_for_deal_at = 0
    while tournament.status is Status.RUNNING:
        if cancel_at_hand is not None and tournament.hands_played >= cancel_at_hand:
            emit(tournament.cancel())
            break
        while arrivals and arrivals[0] <= now:
            arrivals.popleft()
            name = f"bot{len(tournament.entries) + 1}"
            if tournament.can_register(name):
                new_entry(name)
                emit(tournament.register(name, (people or {}).get(name)))
        emit(tournament.advance(now))
        if tournament.status is not Status.RUNNING:
            break  # the clock ended it: a flight stopped at its level
        for table in tournament.tables_ready():
            (hand_started,) = tournament.start_hand(table)
            assert isinstance(hand_started, HandStarted)
            emit([hand_started])
            seats[table] = [entry.seat + 1 for entry in hand_started.players]  # PHH counts seats from 1
            hand = tournament.hand(table)
            assert hand is not None
            plays = [STRATEGIES[strategy[player]] for player in hand.players]  # once a hand, not once a decision
            decisions = 0
            while not hand.finished:
                view = seat_view(hand)
                action, amount = plays[view.legal.player](view, bot_rng)
                hand.act(action, amount)
                decisions += 1
            heapq.heappush(finishing, (now + HAND_SECONDS + DECISION_SECONDS * decisions, table))
        if not finishing:
            if tournament.break_until is None:
                raise RuntimeError("the simulation is stuck: no hand in progress and no table may deal")
            now = tournament.break_until
            continue
        now, table = heapq.heappop(finishing)
        if hands_out is not None:
            written_hands += 1
            finished = tournament.hand(table)
            assert finished is not None
            text = to_phh(finished, table=table, hand_number=tournament.hand_number(table),
                          seats=seats[table], level=tournament.level + 1)
            hands_out.write(("\n" if written_hands > 1 else "") + phhs_section(written_hands, text))
        emit(tournament.end_hand(table))
        if definition.deals and tournament.players_left != asked_for_deal_at and len(tournament.tables) == 1:
            asked_for_deal_at = tournament.players_left
            ask_for_a_deal()
        if progress is not None and time.perf_counter() >= next_progress:
            next_progress = time.perf_counter() + progress_every_s
            progress(Progress(players, tournament.players_left, tournament.level + 1, len(tournament.tables),
                              tournament.hands_played, time.perf_counter() - started))

    wall = time.perf_counter() - started
    return Report(
        players=players, hands=tournament.hands_played, wall_s=round(wall, 3),
        hands_per_s=round(tournament.hands_played / wall, 1) if wall > 0 else math.inf,
        tables_broken=tournament.tables_broken, moves=tournament.moves,
        hand_for_hand_at=list(tournament.hand_for_hand_at), simulated_hours=round(now / 3600, 2),
        results=[msgspec.to_builtins(result) for result in tournament.standings()],
        status=tournament.status.value, money=money_summary(tournament),
        late_registrations=tournament.late_entries - sum(tournament.reentries.values()),
        reentries=sum(tournament.reentries.values()),
    )


def money_summary(tournament: Tournament) -> dict[str, int]:
    """The ledger's totals in cents, and how many re-buys and add-ons were bought."""
    return {**tournament.ledger.summary(), "rebuys": sum(tournament.rebuys_taken.values()),
            "add_ons": len(tournament.add_ons)}
