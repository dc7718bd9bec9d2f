"""The structure lab: what a tournament director wants to know of a structure before running it.

``mttsim simulate --runs N`` plays N seeds of one tournament (in parallel processes with ``--jobs``) and
reports each run's timeline (when the bubble burst, hand-for-hand began, the final table formed; the field
and the stacks at each level) and the distribution over the runs: median, p10 and p90. A run is observed
through the simulator's ``on_event`` hook on the simulated clock, so the lab sees what an observer of the
room would, and the simulator is not slowed when no one observes.
"""

from __future__ import annotations

import html
import multiprocessing
import os
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any

import msgspec
import numpy as np

from bots import pages
from bots.simulator import Report, simulate
from engine.director import Tournament
from engine.events import Event, HandForHandStarted, LevelChanged, PlayerEliminated, TableBroken
from engine.structure import Definition, level_starts


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


class Spread(msgspec.Struct, frozen=True):
    median: float
    p10: float
    p90: float
    runs: int  # how many runs had the figure (a run can end before the bubble of a larger field's, say)


class LevelSpread(msgspec.Struct, frozen=True):
    level: int
    small_blind: int
    big_blind: int
    ante: int
    started_h: Spread
    players_left: Spread
    average_bb: Spread
    m: Spread
    eliminations: Spread


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
                self.bubble_h = hours
            elif not self.bubble_stacks_bb:
                big_blind = self.definition.levels[tournament.level].big_blind
                self.bubble_stacks_bb = [round(stack / big_blind, 1) for stack in tournament.stacks.values()]
        elif isinstance(event, HandForHandStarted) and self.hand_for_hand_h is None:
            self.hand_for_hand_h = hours
        elif isinstance(event, TableBroken) and len(tournament.tables) == 1 and self.final_table_h is None:
            self.final_table_h = hours

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
                   self.bubble_stacks_bb)


class Field(msgspec.Struct, frozen=True):
    """Who plays each run: the entries at the start, the bots' mix, late entries and the re-entry chance."""

    players: int
    mix: dict[str, float] | None = None
    late: int = 0
    reentry: float = 0.0


def play(definition: Definition, field: Field, seed: int) -> Run:
    """One seed of the tournament, observed."""
    observer = Observer(definition)
    return observer.run(seed, simulate(definition, field.players, seed, mix=field.mix, on_event=observer,
                                       late_players=field.late, reentry_probability=field.reentry))


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
                          spread([row.started_h for row in rows]), spread([row.players_left for row in rows]),
                          spread([row.average_bb for row in rows]), spread([row.m for row in rows]),
                          spread([row.eliminations for row in rows]))
              for number, rows in sorted(by_level.items())]
    return LabReport(definition.name, players, list(runs), spread([run.hours for run in runs]),
                     spread([run.hands for run in runs]), _optional([run.bubble_h for run in runs]),
                     _optional([run.hand_for_hand_h for run in runs]),
                     _optional([run.final_table_h for run in runs]), levels)


def lab(definition: Definition, field: Field, seeds: Sequence[int], *, jobs: int | None = None,
        apart: bool = False) -> LabReport:
    """Every seed played, by ``jobs`` processes at once (default: one per core, at most one per seed); with one
    job in this process, unless ``apart`` (a server's loop must not wait on a simulation holding the GIL).
    The processes start from a fork server: forking a process with threads running (a server) is unsafe."""
    jobs = min(jobs or os.cpu_count() or 1, len(seeds))
    if jobs <= 1 and not apart:
        runs = [play(definition, field, seed) for seed in seeds]
    else:
        encoded, who = msgspec.msgpack.encode(definition), msgspec.msgpack.encode(field)
        with ProcessPoolExecutor(max(jobs, 1), mp_context=multiprocessing.get_context("forkserver")) as pool:
            futures = [pool.submit(_play_encoded, encoded, who, seed) for seed in seeds]
            runs = [msgspec.msgpack.decode(future.result(), type=Run) for future in futures]
    return summarize(definition, field.players, runs)


def hours_minutes(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{int(value)}:{round(value % 1 * 60):02d}" if value % 1 * 60 < 59.5 else f"{int(value) + 1}:00"


def _shown(figure: Spread | None, hours: bool = True) -> list[str]:
    if figure is None:
        return ["-", "-", "-", "0"]
    show = hours_minutes if hours else (lambda value: f"{value:,.0f}")
    return [show(figure.median), show(figure.p10), show(figure.p90), str(figure.runs)]


def players_left_on(runs: Sequence[Run], grid: np.ndarray) -> np.ndarray:
    """Each run's field at each time of the grid (a step: the count after the last bust before it; one player
    once the run is over), a row per run."""
    rows = []
    for run in runs:
        times = np.asarray([hours for hours, _ in run.players_left])
        counts = np.asarray([left for _, left in run.players_left] + [1])
        rows.append(counts[np.searchsorted(times, grid, side="right") - 1].clip(min=1) if len(times) else
                    np.ones_like(grid))
    return np.asarray(rows)


def charts(report: LabReport) -> list[tuple[str, str]]:
    """(title, SVG): players left over time with the levels as bands, the average stack in big blinds by level,
    the stacks at the bubble and the payout curve, each with its median and p10-p90 band over the runs."""
    plt = pages.pyplot()
    runs = report.runs
    drawn = []
    end = max(run.hours for run in runs) or 1.0
    grid = np.linspace(0.0, end, 300)
    left = players_left_on(runs, grid)
    figure, axes = plt.subplots(figsize=(7.2, 3.0))
    for number, level in enumerate(report.levels):
        if level.started_h.median < end:
            following = report.levels[number + 1].started_h.median if number + 1 < len(report.levels) else end
            axes.axvspan(level.started_h.median, min(following, end), color="#eef2f7" if number % 2 else "#ffffff",
                         zorder=0)
            axes.text(level.started_h.median, 1.0, str(level.level), transform=axes.get_xaxis_transform(),
                      fontsize=7, va="bottom", color="#666")
    if len(runs) > 1:
        axes.fill_between(grid, np.percentile(left, 10, axis=0), np.percentile(left, 90, axis=0), alpha=0.3,
                          color="#3a6ea5", label="p10-p90", linewidth=0)
    axes.plot(grid, np.median(left, axis=0), color="#1f4e8c", linewidth=1.6, label="median")
    axes.set_xlabel("hours (bands: levels, numbered on top)")
    axes.set_ylabel("players left")
    axes.grid(alpha=0.3)
    axes.legend(loc="upper right", fontsize=8)
    axes.set_title("Players left over time")
    drawn.append(("Players left over time", pages.svg(figure)))
    figure, axes = plt.subplots(figsize=(7.2, 3.0))
    numbers = [level.level for level in report.levels]
    if len(runs) > 1:
        axes.fill_between(numbers, [level.average_bb.p10 for level in report.levels],
                          [level.average_bb.p90 for level in report.levels], alpha=0.3, color="#3a6ea5",
                          label="p10-p90", linewidth=0)
    axes.plot(numbers, [level.average_bb.median for level in report.levels], marker="o", markersize=3,
              color="#1f4e8c", label="median")
    axes.set_xlabel("level")
    axes.set_ylabel("average stack, big blinds")
    axes.set_yscale("log")
    axes.grid(alpha=0.3, which="both")
    axes.legend(loc="upper right", fontsize=8)
    axes.set_title("Average stack in big blinds by level")
    drawn.append(("Average stack in big blinds by level", pages.svg(figure)))
    stacks = [stack for run in runs for stack in run.bubble_stacks_bb]
    if stacks:
        figure, axes = plt.subplots(figsize=(7.2, 3.0))
        axes.hist(stacks, bins=min(30, max(5, len(stacks) // 4)), color="#3a6ea5")
        axes.set_xlabel("stack, big blinds")
        axes.set_ylabel(f"players ({len(runs)} run{'s' if len(runs) > 1 else ''})")
        axes.grid(alpha=0.3)
        axes.set_title("Stacks in big blinds as the bubble burst")
        axes.set_title("Stacks in big blinds as the bubble burst")
    drawn.append(("Stacks in big blinds as the bubble burst", pages.svg(figure)))
    prizes = [run.prizes_cents for run in runs if run.prizes_cents]
    if prizes:
        figure, axes = plt.subplots(figsize=(7.2, 3.0))
        paid = min(len(row) for row in prizes)
        cents = np.asarray([row[:paid] for row in prizes], dtype=float) / 100
        places = np.arange(1, paid + 1)
        axes.plot(places, np.median(cents, axis=0), marker="o", markersize=3, color="#1f4e8c")
        axes.set_yscale("log")
        axes.set_xlabel("place")
        axes.set_ylabel("prize, $")
        axes.grid(alpha=0.3, which="both")
        axes.set_title("Payout by place")
        axes.set_title("Payout by place")
    drawn.append(("Payout by place", pages.svg(figure)))
    return drawn


def write_html(path: str, report: LabReport, settings: dict[str, Any]) -> None:
    """One self-contained file: the distribution over the runs, the pictures, the levels and each run."""
    moments = [("Duration", report.hours), ("Bubble", report.bubble_h), ("Hand-for-hand", report.hand_for_hand_h),
               ("Final table", report.final_table_h)]
    rows = [[name, *_shown(figure)] for name, figure in moments]
    rows.append(["Hands played", *_shown(report.hands, hours=False)])
    levels = [[level.level, f"{level.small_blind:,}/{level.big_blind:,}", f"{level.ante:,}" if level.ante else "",
               hours_minutes(level.started_h.median), f"{level.players_left.median:,.0f}",
               f"{level.players_left.p10:,.0f}-{level.players_left.p90:,.0f}", f"{level.average_bb.median:,.1f}",
               f"{level.m.median:,.1f}", f"{level.eliminations.median:,.0f}", level.players_left.runs]
              for level in report.levels]
    each = [[run.seed, hours_minutes(run.hours), f"{run.hands:,}",
             *map(hours_minutes, (run.bubble_h, run.hand_for_hand_h, run.final_table_h))] for run in report.runs]
    runs = len(report.runs)
    page = f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>mttsim structure lab: {html.escape(report.name)}</title>
<style>{pages.STYLE}</style></head><body>
<h1>{html.escape(report.name)}: {report.players:,} players, {runs} run{"s" if runs > 1 else ""}</h1>
<p>Simulated time, hours:minutes from the start; median and the 10th and 90th percentiles over the runs.</p>
<h2>When</h2>{pages.table(["", "median", "p10", "p90", "runs"], rows, "moments")}
<h2>Pictures</h2><div class="charts">{pages.figures(charts(report))}</div>
<h2>Levels</h2>{pages.table(["Level", "Blinds", "Ante", "Starts", "Players left", "p10-p90", "Average stack (BB)",
                             "M", "Eliminations", "Runs"], levels, "levels")}
<h2>Runs</h2>{pages.table(["Seed", "Duration", "Hands", "Bubble", "Hand-for-hand", "Final table"], each, "runs")}
<h2>Settings</h2>{pages.table(["Setting", "Value"], sorted(settings.items()), "settings")}
</body></html>
"""
    with open(path, "w") as out:
        out.write(page)


def lab_summary(report: LabReport) -> str:
    """The runs' spread as text: the moments, then the levels."""
    runs = len(report.runs)
    lines = [f"{report.name}: {report.players:,} players, {runs} run{'s' if runs > 1 else ''} (hours:minutes, "
             "median [p10-p90])"]
    moments = [("duration", report.hours), ("bubble", report.bubble_h), ("hand-for-hand", report.hand_for_hand_h),
               ("final table", report.final_table_h)]
    for name, figure in moments:
        median, p10, p90, seen = _shown(figure)
        lines.append(f"  {name:<14}{median:>7} [{p10}-{p90}]" + (f" in {seen} runs" if int(seen) < runs else ""))
    median, p10, p90, _ = _shown(report.hands, hours=False)
    lines.append(f"  {'hands':<14}{median:>7} [{p10}-{p90}]")
    lines.append(f"  {'level':>5} {'blinds':>13} {'ante':>6} {'starts':>7} {'left':>7} {'avg BB':>7} {'M':>6} "
                 f"{'busts':>6}")
    for level in report.levels:
        lines.append(f"  {level.level:>5} {f'{level.small_blind:,}/{level.big_blind:,}':>13} "
                     f"{f'{level.ante:,}' if level.ante else '':>6} {hours_minutes(level.started_h.median):>7} "
                     f"{level.players_left.median:>7,.0f} "
                     f"{level.average_bb.median:>7,.1f} {level.m.median:>6,.1f} {level.eliminations.median:>6,.0f}")
    return "\n".join(lines)


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


class Estimate(msgspec.Struct, frozen=True):
    """What ``mttsim structure`` and ``POST /api/estimates`` answer: the levels and the duration to expect."""

    name: str
    players: int
    runs: int
    hours: Spread | None  # None when nothing was simulated (--runs 0)
    levels: list[ScheduleRow]


def estimate(definition: Definition, players: int, runs: int, *, jobs: int | None = None,
             apart: bool = False) -> Estimate:
    """The structure's schedule and, from ``runs`` quick simulations (seeds 1 to runs), the field and the
    average stack to expect at each level and the tournament's length."""
    report = lab(definition, Field(players), range(1, runs + 1), jobs=jobs, apart=apart) if runs else None
    reached = {level.level: level for level in report.levels} if report else {}
    rows = []
    for number, (level, starts) in enumerate(zip(definition.levels, level_starts(definition)), start=1):
        seen = reached.get(number)
        seen = seen if seen and 2 * seen.players_left.runs > runs else None  # most runs got there
        rows.append(ScheduleRow(number, level.small_blind, level.big_blind, level.ante, level.bb_ante,
                                level.minutes, level.hands, starts,
                                round(definition.starting_stack / level.big_blind, 1),
                                seen.players_left.median if seen else None,
                                round(seen.average_bb.median, 1) if seen else None))
    return Estimate(definition.name, players, runs, report.hours if report else None, rows)


def schedule_text(made: Estimate) -> str:
    """The structure as a table: level, blinds, ante, minutes, the starting stack and the expected average
    stack in big blinds, and the clock time each level begins."""
    lines = [f"{made.name}: {len(made.levels)} levels, {made.players:,} players expected"]
    if made.hours is not None:
        spread_text = f"{hours_minutes(made.hours.p10)} to {hours_minutes(made.hours.p90)}"
        lines.append(f"about {hours_minutes(made.hours.median)} to one player left (median of {made.runs} simulated "
                     f"run{'s' if made.runs > 1 else ''}, {spread_text})")
    header = ["level", "blinds", "ante", "minutes", "start BB", "field", "avg BB", "clock"]
    rows = [[str(row.level), f"{row.small_blind:,}/{row.big_blind:,}",
             f"{row.ante:,}{' bb' if row.bb_ante else ''}" if row.ante else "",
             f"{row.minutes:g}" if row.minutes is not None else f"{row.hands} hands", f"{row.starting_bb:,.1f}",
             "" if row.players_left is None else f"{row.players_left:,.0f}",
             "" if row.average_bb is None else f"{row.average_bb:,.1f}",
             "" if row.starts_minute is None else hours_minutes(row.starts_minute / 60)] for row in made.levels]
    widths = [max(len(line[column]) for line in [header, *rows]) for column in range(len(header))]
    lines += ["  ".join(cell.rjust(width) for cell, width in zip(line, widths)) for line in [header, *rows]]
    return "\n".join(lines)
