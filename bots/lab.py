"""The structure lab: what a tournament director wants to know of a structure before running it.

``mttsim simulate --runs N`` plays N seeds of one tournament (in parallel processes with ``--jobs``) and
reports each run's timeline (when the bubble burst, hand-for-hand began, the final table formed; the field
and the stacks at each level) and the distribution over the runs: median, p10 and p90. A run is observed
through the simulator's ``on_event`` hook on the simulated clock, so the lab sees what an observer of the
room would, and the simulator is not slowed when no one observes.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

import msgspec
import numpy as np

from bots import lifeline
from bots.simulator import Report, simulate
from engine.director import Tournament
from engine.events import BreakStarted, Event, HandForHandStarted, LevelChanged, PlayerEliminated, TableBroken
from engine.structure import (
    MAX_STEP_BY_SPEED, Definition, EventOptions, Speed, break_after, generate_structure, level_starts,
    structure_hours,
)


class LevelRow(msgspec.Struct, frozen=True):
    """A level as it began in one run: the field then, and what the level did to it."""

    level: int  # from 1
    small_blind: int
    big_blind: int
    ante: int
    started_h: float  # simulated hours since the start
    players_left: int  # when it began
    average_bb: float  # the average stack in big blinds when it began
    m: float  # Harrington's M of the average stack: stack / (small blind + big blind + a full table's antes)
    eliminations: int  # during the level


class BreakRow(msgspec.Struct, frozen=True):
    """A break as it came in one run."""

    after_level: int  # the level it followed (a break at a minute of the hour may cut one: the level it cut)
    started_h: float
    minutes: float


class Run(msgspec.Struct, frozen=True):
    seed: int
    players: int
    hours: float
    hands: int
    bubble_h: float | None  # the last bust out of the money
    hand_for_hand_h: float | None
    final_table_h: float | None  # the last table but one broken
    levels: list[LevelRow]
    players_left: list[tuple[float, int]]  # (hours, players left) at the start and after every bust
    prizes_cents: list[int]  # by place, the paid ones
    bubble_stacks_bb: list[float]  # every stack left in big blinds as the bubble burst (the first paid bust)
    bubble_level: int | None = None  # the level of the last bust out of the money
    bubble_average_bb: float | None = None  # the average stack in big blinds as the bubble burst
    final_table_level: int | None = None
    final_table_average_bb: float | None = None  # as the final table formed
    entries: int = 0  # the players at the start, the late entries and the re-entries
    late_entries: int = 0  # new players who came after the start
    reentries: int = 0
    pool_cents: int = 0  # the prizes paid
    breaks: list[BreakRow] = []


class Spread(msgspec.Struct, frozen=True):
    median: float
    p10: float
    p90: float
    runs: int  # how many runs had the figure (a run can end before the bubble of a larger field's, say)


class LevelSpread(msgspec.Struct, frozen=True):
    """A level over the runs. ``players_left`` counts a run over before the level as one player left (its
    winner), so that a level few runs reach does not show a field larger than the level before's; the
    stacks are of the runs that reached it (``reached``; ``ended`` were over before it)."""

    level: int
    small_blind: int
    big_blind: int
    ante: int
    started_h: Spread
    players_left: Spread
    average_bb: Spread
    m: Spread
    eliminations: Spread
    reached: int
    ended: int


class BreakSpread(msgspec.Struct, frozen=True):
    after_level: int
    started_h: Spread
    minutes: float


class LabReport(msgspec.Struct, frozen=True):
    """What ``mttsim simulate --runs N --json`` prints."""

    name: str
    players: int
    runs: list[Run]
    hours: Spread
    hands: Spread
    bubble_h: Spread | None
    hand_for_hand_h: Spread | None
    final_table_h: Spread | None
    levels: list[LevelSpread]
    bubble_level: Spread | None
    paid: Spread  # players paid
    bubble_average_bb: Spread | None
    final_table_level: Spread | None
    final_table_average_bb: Spread | None
    entries: Spread
    late_entries: Spread
    reentries: Spread
    pool_cents: Spread
    breaks: list[BreakSpread]
    entries_open: bool = False  # the event takes entries while it runs (late registration or re-entry)


class Observer:
    """Keeps one run's timeline from the director's events as the simulator settles them."""

    def __init__(self, definition: Definition) -> None:
        self.definition = definition
        self.levels: list[LevelRow] = []
        self.curve: list[tuple[float, int]] = []
        self.bubble_h: float | None = None
        self.hand_for_hand_h: float | None = None
        self.final_table_h: float | None = None
        self.bubble_stacks_bb: list[float] = []
        self.bubble_level: int | None = None
        self.bubble_average_bb: float | None = None
        self.final_table_level: int | None = None
        self.final_table_average_bb: float | None = None
        self.breaks: list[BreakRow] = []
        self._busts_before_level = 0
        self._busts = 0

    def __call__(self, tournament: Tournament, event: Event, at: float) -> None:
        hours = round(at / 3600, 4)
        if isinstance(event, LevelChanged):
            self._close_level()
            left = tournament.players_left
            average = tournament.chips_issued / left if left else 0.0
            antes = event.ante if event.bb_ante else event.ante * self.definition.seats_per_table
            self.levels.append(LevelRow(event.level, event.small_blind, event.big_blind, event.ante, hours, left,
                                        round(average / event.big_blind, 2),
                                        round(average / (event.small_blind + event.big_blind + antes), 2), 0))
            if not self.curve:
                self.curve.append((hours, left))
        elif isinstance(event, PlayerEliminated):
            self._busts += 1
            self.curve.append((hours, tournament.players_left))
            if event.prize_cents == 0:
                self.bubble_h, self.bubble_level = hours, tournament.level + 1
            elif not self.bubble_stacks_bb:
                big_blind = self.definition.levels[tournament.level].big_blind
                self.bubble_stacks_bb = [round(stack / big_blind, 1) for stack in tournament.stacks.values()]
                self.bubble_average_bb = self._average_bb(tournament)
        elif isinstance(event, HandForHandStarted) and self.hand_for_hand_h is None:
            self.hand_for_hand_h = hours
        elif isinstance(event, TableBroken) and len(tournament.tables) == 1 and self.final_table_h is None:
            self.final_table_h, self.final_table_level = hours, tournament.level + 1
            self.final_table_average_bb = self._average_bb(tournament)
        elif isinstance(event, BreakStarted):
            # As scheduled: it began when its level ended, which the simulator's clock may pass before it looks.
            breaks = self.definition.breaks
            minutes = break_after(self.definition, tournament.level) if breaks is None or breaks.at_minute is None \
                else breaks.minutes
            minutes = minutes or (event.until - at) / 60
            self.breaks.append(BreakRow(tournament.level + 1, round((event.until - minutes * 60) / 3600, 4),
                                        round(minutes, 2)))

    def _average_bb(self, tournament: Tournament) -> float:
        left = tournament.players_left
        return round(tournament.chips_issued / left / self.definition.levels[tournament.level].big_blind, 1) \
            if left else 0.0

    def _close_level(self) -> None:
        if self.levels:
            self.levels[-1] = msgspec.structs.replace(self.levels[-1],
                                                      eliminations=self._busts - self._busts_before_level)
        self._busts_before_level = self._busts

    def run(self, seed: int, report: Report) -> Run:
        self._close_level()
        prizes = sorted((result["place"], result["prize_cents"]) for result in report.results
                        if result["prize_cents"] > 0)
        return Run(seed, report.players, report.simulated_hours, report.hands, self.bubble_h, self.hand_for_hand_h,
                   self.final_table_h, self.levels, self.curve, [cents for _, cents in prizes],
                   self.bubble_stacks_bb, self.bubble_level, self.bubble_average_bb, self.final_table_level,
                   self.final_table_average_bb, report.players + report.late_registrations + report.reentries,
                   report.late_registrations, report.reentries, sum(cents for _, cents in prizes), self.breaks)


class Field(msgspec.Struct, frozen=True):
    """Who plays each run: the entries at the start, the bots' mix, late entries and the re-entry chance."""

    players: int
    mix: dict[str, float] | None = None
    late: int = 0
    reentry: float = 0.0


LATE_EVERY = 10  # one late entry to expect for every ten at the start, where late registration is open
REENTRY_CHANCE = 0.5  # the chance a player who is out re-enters, where re-entry is open


def expected_field(definition: Definition, players: int, mix: dict[str, float] | None = None) -> Field:
    """The field to expect for ``players`` at the start: a tenth more entering late where late registration is
    open, and half of those who are out entering again where re-entry is (``mttsim simulate``'s defaults).
    What the lab, the structure's estimate and fit, the lobby's Estimate and Compare and the plan all play, so
    that an event with late entries and re-entries is never planned as a freezeout."""
    return Field(players, mix, players // LATE_EVERY if definition.late_registration else 0,
                 REENTRY_CHANCE if definition.reentry else 0.0)


def play(definition: Definition, field: Field, seed: int, jobs: int = 1) -> Run:
    """One seed of the tournament, observed; its hands played by ``jobs`` processes (bots.playing)."""
    observer = Observer(definition)
    return observer.run(seed, simulate(definition, field.players, seed, mix=field.mix, on_event=observer,
                                       late_players=field.late, reentry_probability=field.reentry, jobs=jobs))


def _play_encoded(definition: bytes, field: bytes, seed: int) -> bytes:
    """``play`` across a process boundary: what it is given and the run travel as msgpack, as everywhere else."""
    run = play(msgspec.msgpack.decode(definition, type=Definition), msgspec.msgpack.decode(field, type=Field), seed)
    return msgspec.msgpack.encode(run)


def spread(values: Sequence[float]) -> Spread:
    """Median, p10 and p90 (numpy's linear interpolation between the runs)."""
    if not values:
        return Spread(0.0, 0.0, 0.0, 0)
    p10, median, p90 = np.percentile(np.asarray(values, dtype=float), (10, 50, 90))
    return Spread(round(float(median), 4), round(float(p10), 4), round(float(p90), 4), len(values))


def _optional(values: Sequence[float | None]) -> Spread | None:
    present = [value for value in values if value is not None]
    return spread(present) if present else None


def summarize(definition: Definition, players: int, runs: Sequence[Run]) -> LabReport:
    by_level: dict[int, list[LevelRow]] = {}
    for run in runs:
        for row in run.levels:
            by_level.setdefault(row.level, []).append(row)
    levels = [LevelSpread(number, rows[0].small_blind, rows[0].big_blind, rows[0].ante,
                          spread([row.started_h for row in rows]),
                          spread([row.players_left for row in rows] + [1] * (len(runs) - len(rows))),
                          spread([row.average_bb for row in rows]), spread([row.m for row in rows]),
                          spread([row.eliminations for row in rows]), len(rows), len(runs) - len(rows))
              for number, rows in sorted(by_level.items())]
    by_break: dict[int, list[BreakRow]] = {}
    for run in runs:
        for pause in run.breaks:
            by_break.setdefault(pause.after_level, []).append(pause)
    breaks = [BreakSpread(level, spread([pause.started_h for pause in pauses]),
                          max(pause.minutes for pause in pauses)) for level, pauses in sorted(by_break.items())]
    return LabReport(definition.name, players, list(runs), spread([run.hours for run in runs]),
                     spread([run.hands for run in runs]), _optional([run.bubble_h for run in runs]),
                     _optional([run.hand_for_hand_h for run in runs]),
                     _optional([run.final_table_h for run in runs]), levels,
                     _optional([run.bubble_level for run in runs]), spread([len(run.prizes_cents) for run in runs]),
                     _optional([run.bubble_average_bb for run in runs]),
                     _optional([run.final_table_level for run in runs]),
                     _optional([run.final_table_average_bb for run in runs]), spread([run.entries for run in runs]),
                     spread([run.late_entries for run in runs]), spread([run.reentries for run in runs]),
                     spread([run.pool_cents for run in runs]), breaks,
                     definition.late_registration is not None or definition.reentry is not None)


PLAN_SAMPLES = 120  # points of a plan's field over time: a line that bends where the runs' fields fell


def field_over_time(runs: Sequence[Run], samples: int = PLAN_SAMPLES) -> list[tuple[float, float, float, float]]:
    """The runs' field over time: [seconds, p10, median, p90] at even steps to the runs' median length, where the
    median is one player (the plan's end). A run's field holds from one bust to the next; a run over counts its
    winner."""
    if not runs:
        return []
    end = float(np.median([run.hours for run in runs])) * 3600
    steps = np.linspace(0.0, end, samples + 1)
    fields = np.ones((len(runs), len(steps)))
    for row, run in enumerate(runs):
        times = np.asarray([hours * 3600 for hours, _ in run.players_left])
        counts = np.asarray([left for _, left in run.players_left], dtype=float)
        # the last point at or before each step (the start's for a step before the first point)
        index = np.clip(np.searchsorted(times, steps, side="right") - 1, 0, None)
        fields[row] = np.where(steps < run.hours * 3600, counts[index], 1.0)
    p10, median, p90 = np.percentile(fields, (10, 50, 90), axis=0)
    median[-1] = p10[-1] = 1.0
    return [(float(at), float(low), float(middle), float(high))
            for at, low, middle, high in zip(steps, p10, median, p90)]


def lab(definition: Definition, field: Field, seeds: Sequence[int], *, jobs: int | None = None,
        apart: bool = False) -> LabReport:
    """Every seed played, by ``jobs`` processes at once (default: one per core, at most one per seed); with one
    job in this process, unless ``apart`` (a server's loop must not wait on a simulation holding the GIL).
    The processes start from a fork server: forking a process with threads running (a server) is unsafe."""
    return summarize(definition, field.players, played([definition], [field], seeds, jobs, apart)[0])


class Comparison(msgspec.Struct, frozen=True):
    """What ``mttsim simulate --compare A B ... --json`` prints: each structure's lab report, over the same
    seeds and the same field, in the order given."""

    seeds: list[int]
    structures: list[LabReport]


def compare(definitions: Sequence[Definition], fields: Sequence[Field], seeds: Sequence[int], *,
            jobs: int | None = None, apart: bool = False) -> Comparison:
    """Each structure played by its field (``expected_field``: its own late entries and re-entries) on the same
    seeds: the runs of all of them share one pool of processes, so that two structures take about twice one's
    time, not twice plus the pool's start (``apart``: as ``lab``)."""
    runs = played(definitions, fields, seeds, jobs, apart)
    return Comparison(list(seeds), [summarize(definition, field.players, mine)
                                    for definition, field, mine in zip(definitions, fields, runs)])


def played(definitions: Sequence[Definition], fields: Sequence[Field], seeds: Sequence[int], jobs: int | None,
           apart: bool) -> list[list[Run]]:
    """The runs of each definition by its field on every seed, in order. Fewer runs than processes (one big seed,
    say): the runs one after another, each over all of them; more: one process per run, each run in one."""
    pairs = [(number, seed) for number in range(len(definitions)) for seed in seeds]
    jobs = jobs or os.cpu_count() or 1
    if (jobs <= 1 or len(pairs) < jobs) and not apart:
        runs = [play(definitions[number], fields[number], seed, jobs) for number, seed in pairs]
    else:
        encoded = [msgspec.msgpack.encode(definition) for definition in definitions]
        who = [msgspec.msgpack.encode(field) for field in fields]
        with ProcessPoolExecutor(min(jobs, len(pairs)), mp_context=lifeline.forkserver()) as pool:
            futures = [pool.submit(_play_encoded, encoded[number], who[number], seed) for number, seed in pairs]
            runs = [msgspec.msgpack.decode(future.result(), type=Run) for future in futures]
    return [runs[number * len(seeds):(number + 1) * len(seeds)] for number in range(len(definitions))]


def hours_minutes(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{int(value)}:{round(value % 1 * 60):02d}" if value % 1 * 60 < 59.5 else f"{int(value) + 1}:00"


class ScheduleRow(msgspec.Struct, frozen=True):
    """A level of the structure as a director reads it before the event."""

    level: int
    small_blind: int
    big_blind: int
    ante: int
    bb_ante: bool
    minutes: float | None
    hands: int | None
    starts_minute: float | None  # on the tournament's clock, breaks included
    starting_bb: float  # the starting stack in big blinds
    players_left: float | None  # the median field when the level begins, from the runs (None: not reached)
    average_bb: float | None  # the median average stack in big blinds then
    break_minutes: float = 0.0  # a break after the level (every N levels, or its own break row)


class Estimate(msgspec.Struct, frozen=True):
    """What ``mttsim structure`` and ``POST /api/estimates`` answer: the levels and the duration to expect."""

    name: str
    players: int
    runs: int
    hours: Spread | None  # None when nothing was simulated (--runs 0)
    levels: list[ScheduleRow]
    entries: Spread | None = None  # the entries to expect: the field, late entries and re-entries (``expected_field``)


def estimate(definition: Definition, players: int, runs: int, *, jobs: int | None = None,
             apart: bool = False) -> Estimate:
    """The structure's schedule and, from ``runs`` quick simulations (seeds 1 to runs), the field and the
    average stack to expect at each level and the tournament's length."""
    report = lab(definition, expected_field(definition, players), range(1, runs + 1), jobs=jobs, apart=apart) \
        if runs else None
    reached = {level.level: level for level in report.levels} if report else {}
    rows = []
    for number, (level, starts) in enumerate(zip(definition.levels, level_starts(definition)), start=1):
        seen = reached.get(number)
        seen = seen if seen and 2 * seen.reached > runs else None  # most runs got there
        rows.append(ScheduleRow(number, level.small_blind, level.big_blind, level.ante, level.bb_ante,
                                level.minutes, level.hands, starts,
                                round(definition.starting_stack / level.big_blind, 1),
                                seen.players_left.median if seen else None,
                                round(seen.average_bb.median, 1) if seen else None,
                                break_after(definition, number - 1) if number < len(definition.levels) else 0.0))
    return Estimate(definition.name, players, runs, report.hours if report else None, rows,
                    report.entries if report else None)


FIT_WITHIN = 0.05  # the simulated length a generated structure meets, of the length it says
FIT_TRIES = 10


def fit_structure(players: int, hours: float, stack: int, *, speed: Speed = "regular",
                  options: EventOptions | None = None, runs: int = 3, jobs: int | None = None,
                  apart: bool = False) -> tuple[Definition, Estimate]:
    """``generate_structure``'s levels with their climb fitted so that the simulated field comes down to one
    player within ``FIT_WITHIN`` of the length the structure says (the hours asked, or the shortest its steps
    allow): each try is simulated on the estimate's own seeds and the climb scaled by how far it missed, and the
    closest is kept, with the estimate it met. Where even the largest steps run long, the name says the length
    the simulations found."""
    given = options or EventOptions()
    said = structure_hours(players, hours, stack, speed, given)
    climb, trying = 1.0, given
    tried: list[tuple[float, float]] = []  # (log climb, log miss)
    best: tuple[Definition, Estimate, float] | None = None
    blinds_before: list[int] = []
    misses: list[float] = []  # every try's, whatever its level length
    for _ in range(FIT_TRIES):
        definition = generate_structure(players, hours, stack, speed=speed, options=trying, climb=climb)
        made = estimate(definition, players, runs, jobs=jobs, apart=apart)
        if made.hours is None:
            return definition, made
        miss = made.hours.median / said
        misses.append(miss)
        if best is None or abs(miss - 1) < abs(best[2] - 1):
            best = (definition, made, miss)
        if abs(miss - 1) <= FIT_WITHIN:
            break
        minutes, blinds = definition.levels[0].minutes, [level.big_blind for level in definition.levels]
        if miss < 1 and blinds == blinds_before and given.minutes is None and minutes is not None:
            # Over too soon, and a gentler climb changed nothing (the climb is the flattest the round numbers
            # make): longer levels, in whole minutes, as a director would make them (a length given is kept)
            trying = msgspec.structs.replace(trying, minutes=max(minutes + 1, round(minutes / miss)))
            climb, tried = 1.0, []  # a new length: the climb's search starts again
            continue
        blinds_before = blinds
        tried.append((math.log(climb), math.log(miss)))
        climb = _next_climb(tried)
    assert best is not None
    definition, made, miss = best
    if given.name is None and made.hours is not None:  # the name says the length the simulations found
        simulated = made.hours.median
        if abs(simulated / hours - 1) <= FIT_WITHIN:
            why = ""
        elif said > hours:  # the steps cannot climb fast enough
            why = f" (the shortest that climbs at most {MAX_STEP_BY_SPEED[speed]:g}x a level; {hours:g} h asked)"
        elif min(misses) < 1 < max(misses):  # tries fell on both sides: the round blinds step over the hours
            why = f" (the nearest these round blinds make; {hours:g} h asked)"
        else:
            why = f" (the {'shortest' if simulated > hours else 'longest'} these levels make; {hours:g} h asked)"
        named = f"{players} players, {round(simulated, 1) if why else hours:g} h {speed}{why}"
        definition = msgspec.structs.replace(definition, name=named)
        made = msgspec.structs.replace(made, name=named)
    return definition, made


def _next_climb(tried: list[tuple[float, float]]) -> float:
    """The climb to try next: the length falls about as the climb steepens (the first step scales by the miss),
    then the secant through the last two tries, on logarithms; the last scaling where the two did not differ."""
    (climb, miss) = tried[-1]
    if len(tried) > 1 and tried[-2][1] != miss and tried[-2][0] != climb:
        slope = (miss - tried[-2][1]) / (climb - tried[-2][0])
        if slope < 0:  # longer as the climb flattens, as it should: aim where the miss is none
            return math.exp(climb - miss / slope)
    return math.exp(climb + miss)


def schedule_text(made: Estimate) -> str:
    """The structure as a table: level, blinds, ante, minutes, the starting stack and the expected average
    stack in big blinds, and the clock time each level begins."""
    lines = [f"{made.name}: {len(made.levels)} levels, {made.players:,} players expected"]
    if made.hours is not None:
        spread_text = f"{hours_minutes(made.hours.p10)} to {hours_minutes(made.hours.p90)}"
        lines.append(f"about {hours_minutes(made.hours.median)} to one player left (median of {made.runs} simulated "
                     f"run{'s' if made.runs > 1 else ''}, {spread_text})")
    if made.entries is not None and made.entries.median != made.players:
        lines.append(f"about {made.entries.median:,.0f} entries with the late entries and re-entries to expect")
    header = ["level", "blinds", "ante", "minutes", "start BB", "field", "avg BB", "clock"]
    rows = []
    for row, following in zip(made.levels, [*made.levels[1:], None]):
        rows.append([str(row.level), f"{row.small_blind:,}/{row.big_blind:,}",
                     f"{row.ante:,}{' bb' if row.bb_ante else ''}" if row.ante else "",
                     f"{row.minutes:g}" if row.minutes is not None else f"{row.hands} hands",
                     f"{row.starting_bb:,.1f}", "" if row.players_left is None else f"{row.players_left:,.0f}",
                     "" if row.average_bb is None else f"{row.average_bb:,.1f}",
                     "" if row.starts_minute is None else hours_minutes(row.starts_minute / 60)])
        if row.break_minutes and following is not None:  # a row of its own, as every levels table has it
            begins = following.starts_minute
            rows.append(["break", "", "", f"{row.break_minutes:g}", "", "", "",
                         "" if begins is None else hours_minutes((begins - row.break_minutes) / 60)])
    widths = [max(len(line[column]) for line in [header, *rows]) for column in range(len(header))]
    lines += ["  ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in [header, *rows]]
    return "\n".join(lines)
