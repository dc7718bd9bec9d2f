"""The structure lab (``mttsim simulate --runs N``): each run's timeline, and the spread over the runs
computed as a person would from the runs themselves."""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from playwright.async_api import expect

from bots.lab import Field, Observer, lab, play
from bots.simulator import simulate
from engine.events import HandForHandStarted, LevelChanged, PlayerEliminated
from engine.structure import default_definition
from server.cli import main

on_the_session_loop = pytest.mark.asyncio(loop_scope="session")  # beside the browser tests' Chromium


def spread_of(values):
    """Median, p10 and p90 by the standard library (the inclusive quantiles interpolate as numpy does)."""
    deciles = statistics.quantiles(values, n=10, method="inclusive")
    return statistics.median(values), deciles[0], deciles[-1]


def test_the_report_of_three_runs_holds_them_and_its_medians_are_the_runs(tmp_path, capsys):
    page = tmp_path / "lab.html"
    code = main(["simulate", "--players", "120", "--seed", "4", "--runs", "3", "--jobs", "2", "--json",
                 "--report", str(page)])
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and [run["seed"] for run in report["runs"]] == [4, 5, 6]
    runs = report["runs"]
    for key in ("hours", "hands", "bubble_h", "hand_for_hand_h", "final_table_h"):
        values = [run[key] for run in runs]
        figure = report[key]
        assert (figure["median"], figure["p10"], figure["p90"]) == tuple(round(v, 4) for v in spread_of(values))
        assert figure["runs"] == 3
    for level in report["levels"]:
        rows = [row for run in runs for row in run["levels"] if row["level"] == level["level"]]
        for key in ("average_bb", "m", "eliminations", "started_h"):  # of the runs that reached the level
            assert level[key]["median"] == round(statistics.median(row[key] for row in rows), 4)
            assert level[key]["runs"] == len(rows) == level["reached"]
        # a run over before the level counts as its one winner left, never as a larger field
        over = [1] * (3 - len(rows))
        assert level["ended"] == len(over) and level["players_left"]["runs"] == 3
        assert level["players_left"]["median"] == round(statistics.median([row["players_left"] for row in rows]
                                                                          + over), 4)
    medians = [level["players_left"]["median"] for level in report["levels"]]
    assert medians == sorted(medians, reverse=True)  # the field never grows from a level to the next
    for run in runs:  # a run's own figures against the tournament it reports
        assert run["players_left"][0] == [0.0, 120] and run["players_left"][-1][1] == 1
        assert sum(row["eliminations"] for row in run["levels"]) == 119
        assert run["levels"][0]["average_bb"] == default_definition(120).starting_stack / 50
        assert sum(run["prizes_cents"]) == 120 * 1000 and run["prizes_cents"] == sorted(run["prizes_cents"],
                                                                                        reverse=True)
    text = page.read_text()
    assert text.count("<svg") == 4 and "https://" not in text.split("<svg")[0]


def test_a_run_observed_is_the_run_played_and_parallel_runs_are_the_runs_played_one_by_one():
    definition = default_definition(90)
    field = Field(90)
    one = play(definition, field, 8)
    report = simulate(definition, 90, 8)
    assert (one.hours, one.hands) == (report.simulated_hours, report.hands)
    assert one.prizes_cents == [r["prize_cents"] for r in sorted(report.results, key=lambda r: r["place"])
                                if r["prize_cents"] > 0]
    assert lab(definition, field, [8, 9], jobs=2).runs == [one, play(definition, field, 9)]


def test_the_observer_times_the_moments_on_the_simulated_clock():
    definition = default_definition(200)
    seen = []
    observer = Observer(definition)

    def both(tournament, event, at):
        observer(tournament, event, at)
        seen.append((event, at, tournament.players_left))

    simulate(definition, 200, 2, on_event=both)
    run = observer.run(2, simulate(definition, 200, 2))
    first_h4h = next(at for event, at, _ in seen if isinstance(event, HandForHandStarted))
    last_unpaid = max(at for event, at, _ in seen if isinstance(event, PlayerEliminated) and not event.prize_cents)
    assert run.hand_for_hand_h == round(first_h4h / 3600, 4) and run.bubble_h == round(last_unpaid / 3600, 4)
    starts = [(event.level, round(at / 3600, 4), left) for event, at, left in seen if isinstance(event, LevelChanged)]
    assert [(row.level, row.started_h, row.players_left) for row in run.levels] == starts
    assert len(run.bubble_stacks_bb) > 1


@on_the_session_loop
async def test_the_lab_report_opens_offline_with_its_pictures(browser, tmp_path, capsys):
    page_path = tmp_path / "lab.html"
    assert main(["simulate", "--players", "150", "--seed", "1", "--runs", "3", "--jobs", "1",
                 "--report", str(page_path)]) == 0
    assert "report:" in capsys.readouterr().out
    context = await browser.new_context(offline=True)
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    await page.goto(page_path.as_uri())
    charts = page.locator("figure.chart")
    titles = [await charts.nth(i).get_attribute("data-title") for i in range(await charts.count())]
    assert titles == ["Players left over time", "Average stack in big blinds by level",
                      "Stacks in big blinds as the bubble burst", "Payout by place"]
    for index in range(len(titles)):
        chart = charts.nth(index).locator("svg")
        await chart.scroll_into_view_if_needed()
        await expect(chart).to_be_visible()
        assert await chart.locator("path").count() > 3
    await expect(page.locator("table.runs tbody tr")).to_have_count(3)
    # The players-left picture numbers its level bands (docs/director.md says so): 1, 2, 3 ... at the top
    numbers = await charts.nth(0).locator("svg text").all_text_contents()
    assert {"1", "2", "3", "4", "5"} <= {text.strip() for text in numbers}
    await page.screenshot(path=str(Path(__file__).resolve().parents[1] / "test-artifacts" / "lab-report.png"),
                          full_page=True)
    await context.close()
    assert errors == []
