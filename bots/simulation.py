"""The accelerated simulator: a whole tournament with in-process bots, as fast as the CPU allows.

A second shell over the same director the real-time server drives. Time is
simulated: a hand takes ``HAND_SECONDS`` plus ``DECISION_SECONDS`` per
decision of the simulated clock, so levels by minutes, breaks and the
interleaving of tables behave as in a live room: while one table's hand is
on, others finish theirs, bust players, break and balance. Each hand is
played to its end when it is dealt and settled with the director at its
simulated finishing time, which is what an observer of the tables would see.

With ``jobs`` above 1 the bots' hands are played in that many processes
(bots.playing): the director deals and settles every hand here, in the order
of the simulated clock, and settles a hand only once no hand still being
played elsewhere could end before it (none ends sooner than ``HAND_SECONDS``
after its deal). Each hand's cards and bots draw from its own seed, so a seed
gives the same tournament with any number of processes (docs/director.md).

Money decisions are the bots' too (``bots.strategies.money_choice``): a
re-buy offer or the add-on is answered the moment it is made, and at the
final table in the money every bot is asked once per field size whether it
wants a deal, then whether it accepts the proposal.
"""

from __future__ import annotations

import gc
import heapq
import math
import random
import time
from collections import deque
from collections.abc import Callable
from typing import IO, Any, Final, Protocol

import msgspec

from bots.playing import Decks, Played, Workers, job_of, played
from bots.strategies import DEFAULT_MIX, STRATEGIES, MoneyView, money_choice, play_out
from engine.deals import Kind
from engine.director import Status, Tournament
from engine.eliminations import Outcome
from engine.events import AddOnOffered, DealProposed, Event, HandStarted, PlayerEliminated, RebuyOffered
from engine.history import phhs_section, to_phh
from engine.structure import Definition
from engine.wire import Stage, stamped

HAND_SECONDS: Final = 8.0
DECISION_SECONDS: Final = 4.0
# What a hand at a full table takes on average, in decisions, with the default bots: the clock above deals
# 3600 / (8 + 4 x 12), 64 hands an hour at nine seated (``ONLINE_HANDS_PER_HOUR``). A definition's
# ``hands_per_hour`` scales the clock so that a full table deals that many (docs/director.md).
FULL_TABLE_DECISIONS_PER_SEAT: Final = 1.33


def hand_scale(definition: Definition) -> float:
    """How much longer than ``HAND_SECONDS + DECISION_SECONDS * decisions`` a hand takes at the definition's pace
    (1 at the online pace, ``hands_per_hour`` None)."""
    if definition.hands_per_hour is None:
        return 1.0
    full = HAND_SECONDS + DECISION_SECONDS * FULL_TABLE_DECISIONS_PER_SEAT * definition.seats_per_table
    return 3600 / definition.hands_per_hour / full
SHARE_STEP: Final = 0.005  # how far one wait on the workers, or one worker running dry, moves the director's share
FEW_TABLES: Final = 16  # at or below, the director plays each hand itself: a trip to a worker costs more than the hand
ANSWERED: Final = {PlayerEliminated, RebuyOffered, AddOnOffered, DealProposed}  # what the bots may answer (``_answer``)
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
    late_registrations: int = 0  # entries of new players bought while running (rules.md F.24)
    reentries: int = 0  # entries bought again after an elimination (F.27), apart from the late registrations


class Progress(msgspec.Struct):
    players: int
    players_left: int
    level: int
    tables: int
    hands: int
    wall_s: float


class Simulation:
    """One tournament played to its end by bots, in accelerated time.

    The director's RNG (seats, decks, breaks) and the bots' RNG are both
    seeded from ``seed``: the same arguments give the same tournament.
    ``people`` maps bot names (bot1, bot2 ...) to the person holding them,
    for multi-entry fields. ``late_players`` more bots try to register at
    moments drawn uniformly over the late registration's levels (those that
    find it closed do not enter); a bot that is out re-enters with
    ``reentry_probability`` while re-entry is open. Entries bought late are
    named on from ``bot{players}``. ``cancel_at_hand`` cancels the tournament
    (its refund policy) once that many hands have been dealt, with hands still
    in progress. ``strategies``, when given, is filled with each entry's
    strategy (``mttsim simulate --stats`` counts by it). ``jobs`` processes
    play the hands (this one and ``jobs - 1`` workers).

    What watches the run is set on the object before ``run``: every event as
    a JSON line (``events_out``), every hand as PHH (``hands_out``), each event
    with the simulated clock (``on_event``: tests check invariants after every
    hand; the structure lab, bots/lab.py, draws the run over time), and a
    ``progress`` line every ``progress_every_s`` seconds of wall time.
    """

    def __init__(self, definition: Definition, players: int, seed: int, *, mix: dict[str, float] | None = None,
                 people: dict[str, str] | None = None, late_players: int = 0, reentry_probability: float = 0.0,
                 cancel_at_hand: int | None = None, strategies: dict[str, str] | None = None, jobs: int = 1) -> None:
        self.definition = definition
        self.players = players
        self.people = people or {}
        self.late_players = late_players
        self.reentry_probability = reentry_probability
        self.cancel_at_hand = cancel_at_hand
        rng = random.Random(seed)
        self.bot_rng = random.Random(rng.getrandbits(64))
        self.decks = Decks(rng.getrandbits(64), 2 * definition.seats_per_table + 8, elsewhere=True)
        self.tournament = Tournament(definition, random.Random(rng.getrandbits(64)), deal=self.decks)
        mix = mix or DEFAULT_MIX
        self.names, self.weights = list(mix), list(mix.values())
        self.strategy: dict[str, str] = {} if strategies is None else strategies
        self.now = 0.0
        self.events_out: IO[bytes] | None = None
        self.hands_out: TextOut | None = None
        self.on_event: Callable[[Tournament, Event, float], None] | None = None
        self.progress: Callable[[Progress], None] | None = None
        self.progress_every_s = 0.25
        self._encoder = msgspec.json.Encoder()
        self._written_hands = 0
        self._finishing: list[tuple[float, int]] = []  # (simulated time the hand ends, table)
        self._scale = hand_scale(definition)
        self._stage_key: tuple[int, int, int] = (-1, -1, -1)
        self._stage_now = Stage()
        self._shortest = HAND_SECONDS * self._scale  # the soonest a hand can end after its deal
        self._seats: dict[int, list[int]] = {}
        self._asked_for_deal_at = 0
        self.jobs = jobs
        self._workers: Workers | None = None
        self._unplayed: dict[int, float] = {}  # table -> when its hand was dealt, while how it ended is not known
        self._dealt: deque[tuple[float, int]] = deque()  # (when, table) in the order hands went out to be played
        self._outcomes: dict[int, Outcome] = {}  # table -> how a worker's hand ended, until it is settled
        # The share of the hands the director plays itself: raised each time it waits on the workers, lowered each
        # time one of them runs dry, so that neither side idles (docs/director.md); ``_owed`` counts to the next.
        self._share = 0.0
        self._owed = 0.0

    def run(self) -> Report:
        """Register the field, play the tournament to its end and report."""
        started = time.perf_counter()
        if self.jobs > 1:
            if self.hands_out is not None:
                raise ValueError("hands are written where they are played: --hands-out plays in one process")
            self._workers = Workers(self.jobs - 1)
        # Unless its hands are written, even one process plays each hand apart from the director's copy, as a
        # worker would, the moment it is dealt: the played hand is freed while its memory is still in the cache,
        # and the director keeps only a copy with no cards or events until the hand's end.
        self.decks.elsewhere = self.hands_out is None
        try:
            self._play(started)
        finally:
            if self._workers is not None:
                self._workers.close()
        return self._report(time.perf_counter() - started)

    def _play(self, started: float) -> None:
        arrivals = self._register_field()
        frozen = not gc.get_freeze_count()
        if frozen:
            gc.freeze()  # the field's objects live to the end: the collector need not walk them at every full pass
        try:
            self._play_from(arrivals, started)
        finally:
            if frozen:
                gc.unfreeze()  # collectable again once the run is over (a lab plays many in one process)

    def _play_from(self, arrivals: deque[float], started: float) -> None:
        tournament = self.tournament
        next_progress = started + self.progress_every_s
        while tournament.status is Status.RUNNING:
            if self.cancel_at_hand is not None and tournament.hands_played >= self.cancel_at_hand:
                self.emit(tournament.cancel())
                break
            while arrivals and arrivals[0] <= self.now:
                arrivals.popleft()
                self._register(f"bot{len(tournament.entries) + 1}")
            self.emit(tournament.advance(self.now))
            if tournament.status is not Status.RUNNING:
                break  # the clock ended it: a flight stopped at its level
            self._deal_ready_tables()
            self._await_next_hand()
            if not self._finishing:
                if tournament.break_until is None:
                    raise RuntimeError("the simulation is stuck: no hand in progress and no table may deal")
                self.now = tournament.break_until
                continue
            self._end_next_hand()
            if self.progress is not None and time.perf_counter() >= next_progress:
                next_progress = time.perf_counter() + self.progress_every_s
                self.progress(Progress(self.players, tournament.players_left, tournament.level + 1,
                                       len(tournament.tables), tournament.hands_played, time.perf_counter() - started))

    def emit(self, events: list[Event]) -> None:
        """Each event written and watched, and the bots' answers to it after it."""
        if self.events_out is None and self.on_event is None:
            for event in events:
                if type(event) in ANSWERED:
                    break
            else:
                return  # as at most of the few emits a hand: nobody watches, and no event asks the bots
        pending = deque(events)  # the start alone emits an event per player: no list.pop(0) here
        while pending:
            event = pending.popleft()
            if self.events_out is not None:
                self.events_out.write(stamped(self._encoder.encode(event), self.now, self.tournament.level + 1) + b"\n")
            if self.on_event is not None:
                self.on_event(self.tournament, event, self.now)
            if type(event) in ANSWERED:
                pending += self._answer(event)

    def _register_field(self) -> deque[float]:
        """The field registered and the tournament started; when the late entries will come."""
        tournament = self.tournament
        self.emit(tournament.open_registration())
        for number in range(1, self.players + 1):
            player = f"bot{number}"
            self.emit(tournament.register(player, self.people.get(player)))
            self._new_entry(player)
        self.emit(tournament.start(self.now))
        late_until = (tournament.entries_close_at("late_registration") or 3600.0) if self.late_players else 0.0
        # (a late registration that closes by a level of hands: its entries come over the first hour)
        return deque(sorted(self.bot_rng.uniform(0, late_until) for _ in range(self.late_players)))

    def _register(self, name: str) -> None:
        if self.tournament.can_register(name):
            self._new_entry(name)
            self.emit(self.tournament.register(name, self.people.get(name)))

    def _new_entry(self, name: str) -> None:
        self.strategy[name] = self.bot_rng.choices(self.names, self.weights)[0]

    def _deal_ready_tables(self) -> None:
        """Every table that may deal deals. Its hand is played to the end now, here or by a worker; it is settled
        at the simulated time it ends."""
        tournament, workers = self.tournament, self._workers
        for table in tournament.tables_ready():
            (hand_started,) = tournament.start_hand(table)
            assert isinstance(hand_started, HandStarted)
            self.emit([hand_started])
            if self.hands_out is not None:
                self._seats[table] = [entry.seat + 1 for entry in hand_started.players]  # PHH counts seats from 1
            hand = tournament.hand(table)
            assert hand is not None
            stage = self._stage()
            if not self.decks.elsewhere:  # the director's own hand is played: its PHH is written when it ends
                plays = [STRATEGIES[self.strategy[player]] for player in hand.players]
                decisions = play_out(hand, plays, self.decks.rng, stage)
                heapq.heappush(self._finishing, (self._ends_at(self.now, decisions), table))
                continue
            strategies = tuple(map(self.strategy.__getitem__, hand.players))
            job = job_of(hand, hand_started.hand, strategies, self.decks, stage)
            self._unplayed[table] = self.now
            if workers is None or self._plays_here(workers):
                self._played([(table, played(job))])
            else:
                workers.submit(table, job)
                self._dealt.append((self.now, table))
        if workers is not None:
            if workers.hungry:
                self._share = max(0.0, self._share - SHARE_STEP)
            workers.send(hungry_only=True)

    def _stage(self) -> Stage:
        """Where the tournament stands for its bots (``Tournament.stage``), asked again only once the field or
        the prize table changed: a deal reads it, a bust or an entry changes it."""
        tournament = self.tournament
        key = (tournament.players_left, tournament.prize_pool_cents, tournament.chips_issued)
        if key != self._stage_key:
            self._stage_key, self._stage_now = key, tournament.stage()
        return self._stage_now

    def _plays_here(self, workers: Workers) -> bool:
        """Whether the director plays the hand it just dealt rather than send it: at the last tables (a trip to a
        worker costs more than the hand), for its share of the playing, or when every worker holds its fill."""
        self._owed += self._share
        if workers.full:
            self._played(workers.results(block=False))  # a worker's count is only as fresh as the answers read
        if len(self.tournament.tables) > FEW_TABLES and self._owed < 1.0 and not workers.full:
            return False
        self._owed = max(0.0, self._owed - 1.0)
        return True

    def _ends_at(self, dealt_at: float, decisions: int) -> float:
        return dealt_at + self._scale * (HAND_SECONDS + DECISION_SECONDS * decisions)

    def _await_next_hand(self) -> None:
        """Moves from the workers until the next hand to end is known: the earliest end among the hands played,
        before any hand still out could end (none ends sooner than ``_shortest`` after it was dealt). The
        hands not sent yet the director plays itself rather than wait: a tournament's last tables, or a worker
        behind. Whoever plays a hand, it ends as it would in one process."""
        workers, dealt = self._workers, self._dealt
        if workers is None:
            return
        while self._unplayed:
            while dealt[0][1] not in self._unplayed or self._unplayed[dealt[0][1]] != dealt[0][0]:
                dealt.popleft()  # played already
            if self._finishing and self._finishing[0][0] < dealt[0][0] + self._shortest:
                return
            if workers.outbox and workers.outbox[0][0] == dealt[0][1]:
                table, job = workers.outbox.popleft()  # the next hand needed was not sent yet: quicker here
                self._played([(table, played(job))])
            else:
                workers.send()
                back = workers.results(block=False)
                if not back:
                    self._share = min(0.5, self._share + SHARE_STEP)
                    back = workers.results(block=True)
                self._played(back)

    def _played(self, results: list[tuple[int, Played]]) -> None:
        """Hands played from their jobs (by a worker, or here), each settled by its outcome when its time comes."""
        for table, (number, decisions, outcome) in results:
            assert self.tournament.hand_number(table) == number
            self._outcomes[table] = outcome
            heapq.heappush(self._finishing, (self._ends_at(self._unplayed.pop(table), decisions), table))

    def _end_next_hand(self) -> None:
        """The clock moves to the next hand to finish, which is settled (and written); at the final table in the
        money, a new field size asks the bots whether they want a deal."""
        tournament = self.tournament
        self.now, table = heapq.heappop(self._finishing)
        if self.hands_out is not None:
            self._written_hands += 1
            finished = tournament.hand(table)
            assert finished is not None
            text = to_phh(finished, table=table, hand_number=tournament.hand_number(table),
                          seats=self._seats[table], level=tournament.level + 1)
            self.hands_out.write(("\n" if self._written_hands > 1 else "") + phhs_section(self._written_hands, text))
        self.emit(tournament.end_hand(table, self._outcomes.pop(table, None)))
        if self.definition.deals and tournament.players_left != self._asked_for_deal_at and len(tournament.tables) == 1:
            self._asked_for_deal_at = tournament.players_left
            self._ask_for_a_deal()

    def _says_yes(self, player: str, offer: str, deal_cents: int = 0) -> bool:
        stack = self.tournament.stacks.get(player, 0)
        chips = sum(self.tournament.stacks.values()) or 1
        view = MoneyView(offer, stack, self.definition.starting_stack, stack / chips, deal_cents,
                         self.tournament.ledger.pool_cents)
        return money_choice(self.strategy[player], view, self.bot_rng)

    def _answer(self, event: Event) -> list[Event]:
        """The bots' replies to an offer, as director events."""
        tournament = self.tournament
        replies: list[Event] = []
        if isinstance(event, PlayerEliminated) and self.reentry_probability and tournament.entries_open("reentry") \
                and self.bot_rng.random() < self.reentry_probability:
            name = f"bot{len(tournament.entries) + 1}"
            if tournament.can_reenter(event.player, name):
                self.strategy[name] = self.strategy[event.player]  # the same person, the same game
                replies += tournament.reenter(event.player, name)
        elif isinstance(event, RebuyOffered):
            yes = self._says_yes(event.player, "rebuy")
            replies += tournament.rebuy(event.player) if yes else tournament.decline_rebuy(event.player)
        elif isinstance(event, AddOnOffered):
            for player in list(tournament.stacks):
                if self._says_yes(player, "add_on"):
                    replies += tournament.add_on(player)
        elif isinstance(event, DealProposed):
            for player, cents in event.amounts.items():
                if tournament.proposal is None:
                    break
                if player == event.proposer:
                    continue  # proposing was accepting
                yes = self._says_yes(player, "deal", cents)
                replies += tournament.accept_deal(player) if yes else tournament.reject_deal(player)
        return replies

    def _ask_for_a_deal(self) -> None:
        """Each bot that wants a deal presses Deal, or now and then proposes a kind of its own (a third of the
        time: ICM, a chip chop or an equal split, keeping a tenth of the pool in play half of those times)."""
        tournament = self.tournament
        for player in list(tournament.stacks):
            if tournament.status is Status.RUNNING and tournament.can_press_deal(player) \
                    and self._says_yes(player, "press_deal"):
                kind = self.bot_rng.choice(PROPOSED_KINDS)
                keep = self.bot_rng.choice((0, tournament.ledger.pool_cents // 10))
                if kind is not None and tournament.can_propose_deal(player, kind, keep):
                    self.emit(tournament.propose_deal(player, kind, keep))
                else:
                    self.emit(tournament.press_deal(player))

    def _report(self, wall: float) -> Report:
        tournament = self.tournament
        return Report(
            players=self.players, hands=tournament.hands_played, wall_s=round(wall, 3),
            hands_per_s=round(tournament.hands_played / wall, 1) if wall > 0 else math.inf,
            tables_broken=tournament.tables_broken, moves=tournament.moves,
            hand_for_hand_at=list(tournament.hand_for_hand_at), simulated_hours=round(self.now / 3600, 2),
            results=[msgspec.to_builtins(result) for result in tournament.standings()],
            status=tournament.status.value, money=money_summary(tournament),
            late_registrations=tournament.late_entries - sum(tournament.reentries.values()),
            reentries=sum(tournament.reentries.values()),
        )


def money_summary(tournament: Tournament) -> dict[str, int]:
    """The ledger's totals in cents, and how many re-buys and add-ons were bought."""
    return {**tournament.ledger.summary(), "rebuys": sum(tournament.rebuys_taken.values()),
            "add_ons": len(tournament.add_ons)}
