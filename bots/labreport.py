"""What the structure lab leaves a director (bots/lab.py): the text, the HTML report with its pictures, and the
comparison of structures side by side.

Every table is made once, as rows of text, and written by tabulate for a terminal (aligned at any width: a
blind of six digits moves its column, not the next one's) and by ``pages.table`` for the page: the text, the
HTML and ``--json`` say the same figures. The pictures are drawn for reading at a glance: whole numbers for
levels, plain numbers for big blinds and dollars, marks at the breaks, the bubble and the final table, a line
at the players paid.
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from tabulate import tabulate

from bots import pages
from bots.lab import Comparison, LabReport, Run, Spread, hours_minutes

BUBBLE, FINAL_TABLE, BREAK, PAID = "#b00020", "#1d7a2c", "#999999", "#8a5a00"
PALETTE = ("#1f4e8c", "#c2571a", "#1d7a2c", "#7b3f9e")  # one structure each in a comparison
# two pictures a row on a wide page, one on a narrow one
WIDE = ("body { max-width: 96rem; } "
        ".charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(34rem, 1fr)); }")


def _count(value: float) -> str:
    return f"{value:,.0f}"


def _bb(value: float) -> str:
    return f"{value:,.1f}"


def _dollars(cents: float) -> str:
    return f"${cents / 100:,.0f}"


# (name, the report's figure, how it reads): the headline of a report and of a comparison alike
Figure = tuple[str, Callable[[LabReport], Spread | None], Callable[[float], str]]
HEADLINE: tuple[Figure, ...] = (
    ("Duration", lambda r: r.hours, hours_minutes),
    ("Bubble", lambda r: r.bubble_h, hours_minutes),
    ("Bubble: level", lambda r: r.bubble_level, _count),
    ("Players paid", lambda r: r.paid, _count),
    ("Average stack at the bubble (BB)", lambda r: r.bubble_average_bb, _bb),
    ("Hand-for-hand", lambda r: r.hand_for_hand_h, hours_minutes),
    ("Final table", lambda r: r.final_table_h, hours_minutes),
    ("Final table: level", lambda r: r.final_table_level, _count),
    ("Average stack at the final table (BB)", lambda r: r.final_table_average_bb, _bb),
    ("Hands", lambda r: r.hands, _count),
)
ENTRIES: tuple[Figure, ...] = (  # for an event with late entries or re-entries
    ("Entries", lambda r: r.entries, _count),
    ("Late entries", lambda r: r.late_entries, _count),
    ("Re-entries", lambda r: r.reentries, _count),
    ("Prize pool", lambda r: r.pool_cents, _dollars),
)


LEVELS = frozenset(("Bubble: level", "Final table: level"))  # a change in these reads in levels, not percent


def figures(report: LabReport) -> tuple[Figure, ...]:
    """The headline, and the entries for an event that takes entries while it runs: shown whatever the runs
    bought, so that one whose runs took no late entry says 0 rather than leaving the rows out; a freezeout has
    none."""
    reentering = report.entries_open or any(run.entries != run.players for run in report.runs)
    return HEADLINE + ENTRIES if reentering else HEADLINE


def shown(figure: Spread | None, show: Callable[[float], str]) -> list[str]:
    """Median, p10, p90 and the runs that had the figure."""
    if figure is None:
        return ["-", "-", "-", "0"]
    return [show(figure.median), show(figure.p10), show(figure.p90), str(figure.runs)]


def moment_rows(report: LabReport) -> list[list[str]]:
    return [[name, *shown(of(report), show)] for name, of, show in figures(report)]


MOMENT_HEADER = ["", "median", "p10", "p90", "runs"]
LEVEL_HEADER = ["Level", "Blinds", "Ante", "Starts", "Players left", "p10-p90", "Average stack (BB)", "M",
                "Eliminations", "Runs"]
LEVEL_NOTE = ("Players left counts a run already over as its one winner left; the stacks are of the runs that "
              "reached the level.")


def level_rows(report: LabReport) -> list[list[str]]:
    """A row a level, and a row a break after the level it followed."""
    breaks = {pause.after_level: pause for pause in report.breaks}
    rows = []
    for level in report.levels:
        left = level.players_left
        rows.append([str(level.level), f"{level.small_blind:,}/{level.big_blind:,}",
                     f"{level.ante:,}" if level.ante else "", hours_minutes(level.started_h.median),
                     _count(left.median), f"{_count(left.p10)}-{_count(left.p90)}", _bb(level.average_bb.median),
                     _bb(level.m.median), _count(level.eliminations.median),
                     f"{level.reached}" + (f" ({level.ended} over)" if level.ended else "")])
        pause = breaks.get(level.level)
        if pause is not None:
            rows.append(["Break", f"{pause.minutes:g} minutes", "", hours_minutes(pause.started_h.median), "", "",
                         "", "", "", str(pause.started_h.runs)])
    return rows


def _text_table(header: list[str], rows: list[list[str]]) -> str:
    text: str = tabulate(rows, header, tablefmt="simple", disable_numparse=True,
                    colalign=("left", *["right"] * (len(header) - 1)))
    return text


def lab_summary(report: LabReport) -> str:
    """The runs' spread as text: the moments, then the levels."""
    runs = len(report.runs)
    return "\n".join([
        f"{report.name}: {report.players:,} players, {runs} run{'s' if runs > 1 else ''} (hours:minutes; median, "
        "p10 and p90 over the runs)", "", _text_table(MOMENT_HEADER, moment_rows(report)), "",
        _text_table(LEVEL_HEADER, level_rows(report)), LEVEL_NOTE])


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


def _plain(axes: Any, axis: str, show: Callable[[float], str]) -> None:
    """Ticks in plain numbers (a log axis shows 10^2 otherwise)."""
    from matplotlib.ticker import FuncFormatter, NullFormatter

    which = axes.yaxis if axis == "y" else axes.xaxis
    which.set_major_formatter(FuncFormatter(lambda value, _: show(value)))
    which.set_minor_formatter(NullFormatter())


def _log_ticks(axes: Any) -> None:
    """A log axis read in 1, 2, 5 steps (10, 20, 50, 100), never only at the powers of ten."""
    from matplotlib.ticker import LogLocator

    axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))


def _moments(axes: Any, report: LabReport, color: str | None = None, label: bool = True) -> None:
    """Vertical marks at the breaks, the bubble and the final table (their medians), on a time axis."""
    for pause in report.breaks:
        axes.axvline(pause.started_h.median, color=BREAK, linestyle=":", linewidth=0.9, zorder=1)
    for name, moment, mark in (("bubble", report.bubble_h, BUBBLE), ("final table", report.final_table_h,
                                                                      FINAL_TABLE)):
        if moment is not None:
            axes.axvline(moment.median, color=color or mark, linestyle="--", linewidth=1.1, zorder=2,
                         label=name if label else None)


def _level_marks(axes: Any, report: LabReport) -> None:
    for name, level, mark in (("bubble", report.bubble_level, BUBBLE),
                              ("final table", report.final_table_level, FINAL_TABLE)):
        if level is not None:
            axes.axvline(level.median, color=mark, linestyle="--", linewidth=1.1, label=name)


def _level_bands(axes: Any, report: LabReport, end: float) -> None:
    """The levels as bands behind the curve, every other one shaded and each numbered at the top, where it began
    (the median of the runs that reached it)."""
    starts = [(level.level, level.started_h.median) for level in report.levels if level.reached]
    for number, (level, begins) in enumerate(starts):
        ends = starts[number + 1][1] if number + 1 < len(starts) else end
        if ends <= begins:
            continue
        if number % 2:
            axes.axvspan(begins, ends, color="#000000", alpha=0.045, linewidth=0, zorder=0)
        axes.text((begins + ends) / 2, 0.98, str(level), transform=axes.get_xaxis_transform(), ha="center",
                  va="top", fontsize=6, color="#666666")


def _players_left(plt: Any, reports: Sequence[LabReport], names: Sequence[str]) -> str:
    """Players left over time: the median of each structure (and its p10-p90 band when alone), the moments and
    the players paid marked."""
    from matplotlib.ticker import MaxNLocator

    end = max(run.hours for report in reports for run in report.runs) or 1.0
    grid = np.linspace(0.0, end, 300)
    figure, axes = plt.subplots(figsize=(6.6, 3.2))
    alone = len(reports) == 1
    if alone:
        _level_bands(axes, reports[0], end)
    for number, (report, name) in enumerate(zip(reports, names)):
        color = PALETTE[number % len(PALETTE)]
        left = players_left_on(report.runs, grid)
        if alone and len(report.runs) > 1:
            axes.fill_between(grid, np.percentile(left, 10, axis=0), np.percentile(left, 90, axis=0), alpha=0.25,
                              color=color, label="p10-p90", linewidth=0)
        axes.plot(grid, np.median(left, axis=0), color=color, linewidth=1.7, label="median" if alone else name)
        _moments(axes, report, None if alone else color, label=alone)
    for number, report in enumerate(reports):  # each structure's own players paid, in its colour when several
        paid = report.paid.median
        axes.axhline(paid, color=PAID if alone else PALETTE[number % len(PALETTE)], linestyle="-.", linewidth=1.0,
                     label=f"{paid:,.0f} paid" + ("" if alone else f" ({names[number]})"))
    axes.set_xlabel("hours from the start (dotted: breaks; dashed: the bubble, then the final table)")
    axes.set_ylabel("players left")
    axes.yaxis.set_major_locator(MaxNLocator(integer=True))
    _plain(axes, "y", _count)
    axes.grid(alpha=0.3)
    axes.legend(loc="upper right", fontsize=8)
    axes.set_title("Players left over time")
    return pages.svg(figure)


def _stacks_by_level(plt: Any, reports: Sequence[LabReport], names: Sequence[str]) -> str:
    from matplotlib.ticker import MaxNLocator

    figure, axes = plt.subplots(figsize=(6.6, 3.2))
    alone = len(reports) == 1
    for number, (report, name) in enumerate(zip(reports, names)):
        color = PALETTE[number % len(PALETTE)]
        numbers = [level.level for level in report.levels]
        if alone and len(report.runs) > 1:
            axes.fill_between(numbers, [level.average_bb.p10 for level in report.levels],
                              [level.average_bb.p90 for level in report.levels], alpha=0.25, color=color,
                              label="p10-p90", linewidth=0)
        axes.plot(numbers, [level.average_bb.median for level in report.levels], marker="o", markersize=3,
                  color=color, label="median" if alone else name)
        if alone:
            _level_marks(axes, report)
    axes.set_xlabel("level")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.set_ylabel("average stack, big blinds")
    axes.set_yscale("log")
    _log_ticks(axes)
    _plain(axes, "y", lambda value: f"{value:,.0f}" if value >= 1 else f"{value:g}")
    axes.grid(alpha=0.3, which="both")
    axes.legend(loc="upper right", fontsize=8)
    axes.set_title("Average stack in big blinds by level")
    return pages.svg(figure)


def charts(report: LabReport) -> list[tuple[str, str]]:
    """(title, SVG): players left over time, the average stack in big blinds by level, the stacks at the bubble
    and the payout curve."""
    plt = pages.pyplot()
    drawn = [("Players left over time", _players_left(plt, [report], [report.name])),
             ("Average stack in big blinds by level", _stacks_by_level(plt, [report], [report.name]))]
    runs = report.runs
    figure, axes = plt.subplots(figsize=(6.6, 3.2))
    stacks = [stack for run in runs for stack in run.bubble_stacks_bb]
    if stacks:
        axes.hist(stacks, bins=min(30, max(5, len(stacks) // 4)), color=PALETTE[0])
    axes.set_xlabel("stack, big blinds")
    axes.set_ylabel(f"players ({len(runs)} run{'s' if len(runs) > 1 else ''})")
    _plain(axes, "x", _count)
    axes.grid(alpha=0.3)
    axes.set_title("Stacks in big blinds as the bubble burst")
    drawn.append(("Stacks in big blinds as the bubble burst", pages.svg(figure)))
    figure, axes = plt.subplots(figsize=(6.6, 3.2))
    prizes = [run.prizes_cents for run in runs if run.prizes_cents]
    if prizes:
        from matplotlib.ticker import MaxNLocator

        paid = min(len(row) for row in prizes)
        dollars = np.asarray([row[:paid] for row in prizes], dtype=float) / 100
        axes.plot(np.arange(1, paid + 1), np.median(dollars, axis=0), marker="o", markersize=3, color=PALETTE[0])
        axes.set_yscale("log")
        _log_ticks(axes)
        axes.xaxis.set_major_locator(MaxNLocator(integer=True))
        _plain(axes, "y", lambda value: f"${value:,.0f}")
    axes.set_xlabel("place")
    axes.set_ylabel("prize")
    axes.grid(alpha=0.3, which="both")
    axes.set_title("Payout by place")
    drawn.append(("Payout by place", pages.svg(figure)))
    return drawn


def _page(title: str, body: str) -> str:
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>{pages.STYLE}{WIDE}</style></head><body>
{body}
</body></html>
"""


def write_html(path: str, report: LabReport, settings: dict[str, Any]) -> None:
    """One self-contained file: the distribution over the runs, the pictures, the levels and each run."""
    each = [[run.seed, hours_minutes(run.hours), f"{run.hands:,}",
             *map(hours_minutes, (run.bubble_h, run.hand_for_hand_h, run.final_table_h))] for run in report.runs]
    runs = len(report.runs)
    body = f"""<h1>{html.escape(report.name)}: {report.players:,} players, {runs} run{"s" if runs > 1 else ""}</h1>
<p>Simulated time, hours:minutes from the start; median and the 10th and 90th percentiles over the runs.</p>
<h2>When</h2>{pages.table(MOMENT_HEADER, moment_rows(report), "moments")}
<h2>Pictures</h2><div class="charts">{pages.figures(charts(report))}</div>
<h2>Levels</h2><p>{LEVEL_NOTE}</p>{pages.table(LEVEL_HEADER, level_rows(report), "levels")}
<h2>Runs</h2>{pages.table(["Seed", "Duration", "Hands", "Bubble", "Hand-for-hand", "Final table"], each, "runs")}
<h2>Settings</h2>{pages.table(["Setting", "Value"], sorted(settings.items()), "settings")}"""
    with open(path, "w") as out:
        out.write(_page(f"mttsim structure lab: {report.name}", body))


def names(comparison: Comparison) -> list[str]:
    """Each structure's name, its place added when two share one."""
    given = [report.name for report in comparison.structures]
    return [name if given.count(name) == 1 else f"{name} ({number})" for number, name in enumerate(given, start=1)]


def change(before: Spread | None, after: Spread | None, levels: bool = False) -> str:
    """The median's change from the first structure: in levels for a level, in percent for anything else."""
    if before is None or after is None:
        return "-"
    if levels:
        moved = after.median - before.median
        return f"{moved:+g} level{'' if abs(moved) == 1 else 's'}"
    if not before.median:
        return "-"
    return f"{100 * (after.median - before.median) / before.median:+.0f}%"


def compare_rows(comparison: Comparison) -> tuple[list[str], list[list[str]]]:
    """The headline figures side by side: each structure's median [p10-p90], and the change from the first."""
    reports = comparison.structures
    header = ["", *(name for name in names(comparison)),
              *(f"change ({name})" for name in names(comparison)[1:])]
    rows = []
    for name, of, show in max((figures(report) for report in reports), key=len):
        values = [of(report) for report in reports]
        rows.append([name, *("-" if value is None else
                             f"{show(value.median)} [{show(value.p10)}-{show(value.p90)}]" for value in values),
                     *(change(values[0], value, name in LEVELS) for value in values[1:])])
    return header, rows


def compare_text(comparison: Comparison) -> str:
    runs = len(comparison.seeds)
    header, rows = compare_rows(comparison)
    return "\n".join([f"{len(comparison.structures)} structures, {comparison.structures[0].players:,} players, the "
                      f"same {runs} seed{'s' if runs > 1 else ''} each (median [p10-p90]; change: of the medians, "
                      "from the first)", "", _text_table(header, rows)])


def write_compare_html(path: str, comparison: Comparison, settings: dict[str, Any]) -> None:
    """One file: the headline figures side by side, the pictures overlaid, and each structure's levels."""
    plt = pages.pyplot()
    header, rows = compare_rows(comparison)
    called = names(comparison)
    drawn = [("Players left over time", _players_left(plt, comparison.structures, called)),
             ("Average stack in big blinds by level", _stacks_by_level(plt, comparison.structures, called))]
    levels = "".join(f"<h3>{html.escape(name)}</h3>{pages.table(LEVEL_HEADER, level_rows(report), 'levels')}"
                     for name, report in zip(called, comparison.structures))
    body = f"""<h1>Structures compared: {" / ".join(html.escape(name) for name in called)}</h1>
<p>{comparison.structures[0].players:,} players, the same {len(comparison.seeds)} seeds for each. Simulated time,
hours:minutes; median [p10-p90] over the runs; the change is of the medians, from the first structure.</p>
<h2>Side by side</h2>{pages.table(header, rows, "compare")}
<h2>Pictures</h2><div class="charts">{pages.figures(drawn)}</div>
<h2>Levels</h2><p>{LEVEL_NOTE}</p>{levels}
<h2>Settings</h2>{pages.table(["Setting", "Value"], sorted(settings.items()), "settings")}"""
    with open(path, "w") as out:
        out.write(_page("mttsim structure lab: structures compared", body))
