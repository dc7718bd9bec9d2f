"""The structure lab as a director decides with it: two structures compared on the same seeds, the
rows a director reads (the bubble's level and the players paid, the final table's level and depth, breaks,
entries and the pool of a re-entry event), text tables aligned at any width, and pictures that read at a glance."""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec
import pytest
from playwright.async_api import expect

from bots.lab import Field, lab
from bots.labreport import lab_summary
from engine.structure import Breaks, LateRegistration, Reentry, default_definition
from server.cli import main

on_the_session_loop = pytest.mark.asyncio(loop_scope="session")  # beside the browser tests' Chromium


def minutes(each: float, name: str, players: int = 90):
    definition = default_definition(players)
    return msgspec.structs.replace(definition, name=name,
                                   levels=[msgspec.structs.replace(level, minutes=each) for level in definition.levels])


def written(tmp_path: Path, definition) -> str:
    path = tmp_path / f"{definition.name}.json"
    path.write_bytes(msgspec.json.encode(definition))
    return str(path)


def test_a_comparison_is_each_structures_lab_on_the_same_seeds_with_the_change_in_percent(tmp_path, capsys):
    fifteen, twenty = minutes(15, "fifteen"), minutes(20, "twenty")
    arguments = ["simulate", "--compare", written(tmp_path, fifteen), written(tmp_path, twenty), "--players", "90",
                 "--runs", "3", "--seed", "11", "--jobs", "2"]
    assert main([*arguments, "--json", "--report", str(tmp_path / "compare.html")]) == 0
    comparison = json.loads(capsys.readouterr().out)
    assert comparison["seeds"] == [11, 12, 13]
    for given, alone in zip(comparison["structures"], (lab(fifteen, Field(90), [11, 12, 13], jobs=1),
                                                       lab(twenty, Field(90), [11, 12, 13], jobs=1))):
        assert given == json.loads(msgspec.json.encode(alone))  # the figures of each structure's own lab
    assert main(arguments) == 0
    text = capsys.readouterr().out
    before, after = (structure["hours"]["median"] for structure in comparison["structures"])
    duration = next(line for line in text.splitlines() if line.startswith("Duration"))
    assert duration.endswith(f"{100 * (after - before) / before:+.0f}%")  # the change of the medians
    assert after > before  # longer levels, a longer tournament
    moved = [structure["final_table_level"]["median"] for structure in comparison["structures"]]
    final_level = next(line for line in text.splitlines() if line.startswith("Final table: level"))
    assert final_level.endswith(f"{moved[1] - moved[0]:+g} level{'' if abs(moved[1] - moved[0]) == 1 else 's'}")
    page = (tmp_path / "compare.html").read_text()
    assert page.count("<svg") == 2 and "fifteen" in page and "twenty" in page


def test_the_rows_a_director_reads_are_in_the_json_and_the_text(capsys):
    definition = msgspec.structs.replace(default_definition(120), breaks=Breaks(every_levels=3, minutes=7))
    report = lab(definition, Field(120), [5, 6], jobs=1)
    for run in report.runs:
        assert run.bubble_level == next(row.level for row in reversed(run.levels) if row.started_h <= run.bubble_h)
        assert len(run.prizes_cents) == report.paid.median and run.pool_cents == sum(run.prizes_cents)
        assert run.final_table_level is not None and run.final_table_average_bb > 0
        assert [pause.after_level for pause in run.breaks][:2] == [3, 6] and run.breaks[0].minutes == 7
        assert run.entries == 120 and run.reentries == run.late_entries == 0
    text = lab_summary(report)
    assert "Bubble: level" in text and "Players paid" in text and "Average stack at the final table (BB)" in text
    assert "Entries" not in text  # a freezeout: no entries rows
    rows = text.splitlines()
    after_three = rows[next(n for n, line in enumerate(rows) if line.startswith("3 ")) + 1]
    assert after_three.startswith("Break") and "7 minutes" in after_three


def test_a_reentry_event_shows_its_entries_and_pool_with_their_spread():
    definition = msgspec.structs.replace(default_definition(200), max_players=400,
                                         late_registration=LateRegistration(until_level=4),
                                         reentry=Reentry(until_level=4, max_count=2))
    report = lab(definition, Field(100, late=30, reentry=0.6), [1, 2, 3], jobs=1)
    for run in report.runs:
        assert run.entries == 100 + run.late_entries + run.reentries > 100 and run.reentries > 0
        assert run.pool_cents == run.entries * definition.buy_in_cents
    assert report.entries.median > 100 and report.pool_cents.median == report.entries.median * 1000
    text = lab_summary(report)
    assert all(name in text for name in ("Entries", "Late entries", "Re-entries", "Prize pool"))


def test_the_text_tables_stay_aligned_when_the_blinds_reach_six_digits():
    definition = default_definition(60)
    deep = msgspec.structs.replace(definition, levels=[
        msgspec.structs.replace(level, small_blind=level.small_blind * 100, big_blind=level.big_blind * 100,
                                ante=level.ante * 100) for level in definition.levels],
        starting_stack=definition.starting_stack * 100)
    text = lab_summary(lab(deep, Field(60), [1]))
    table = text.split("\n\n")[-1].splitlines()[:-1]  # the levels, without the note below them
    assert any("100,000" in line for line in table)
    assert len({len(line) for line in table}) == 1, table  # every line as wide: the columns line up


@on_the_session_loop
async def test_the_compare_report_overlays_its_pictures_two_a_row(browser, tmp_path, capsys):
    page_path = tmp_path / "compare.html"
    assert main(["simulate", "--compare", written(tmp_path, minutes(15, "fifteen")),
                 written(tmp_path, minutes(20, "twenty")), "--players", "90", "--runs", "2", "--seed", "1",
                 "--report", str(page_path)]) == 0
    capsys.readouterr()
    context = await browser.new_context(offline=True, viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    await page.goto(page_path.as_uri())
    await expect(page.locator("table.compare tbody tr").first).to_contain_text("Duration")
    charts = page.locator("figure.chart")
    await expect(charts).to_have_count(2)
    for index in range(2):  # each structure drawn and named in each picture
        await expect(charts.nth(index).locator("svg text", has_text="fifteen").first).to_be_visible()
        await expect(charts.nth(index).locator("svg text", has_text="twenty").first).to_be_visible()
    for name in ("fifteen", "twenty"):  # and each one's players paid, not only the first structure's
        await expect(charts.nth(0).locator("svg text", has_text=re.compile(rf"paid \({name}\)"))).to_have_count(1)
    first, second = [await charts.nth(index).bounding_box() for index in range(2)]
    assert first and second and abs(first["y"] - second["y"]) < 1 and second["x"] > first["x"] + first["width"] / 2
    ticks = await charts.nth(1).locator("svg text").all_text_contents()
    assert "10^" not in " ".join(ticks) and "2.5" not in ticks  # plain numbers, whole levels
    await page.screenshot(path=str(Path(__file__).resolve().parents[1] / "test-artifacts" / "lab-compare.png"),
                          full_page=True)
    await context.close()
    assert errors == []


@on_the_session_loop
async def test_the_lobby_compares_the_structure_being_edited_with_the_one_it_started_from(browser):
    import httpx

    from engine.structure import generate_structure
    from tests.browser import generated_in_the_lobby
    from tests.live_server import live_server

    async with live_server() as live:
        async with httpx.AsyncClient(base_url=live.http) as client:
            body = {"definitions": [msgspec.to_builtins(generate_structure(40, 1, 10000))] * 2, "players": 40}
            assert (await client.post("/api/comparisons", json=body)).status_code == 401  # an admin's tool
            admin = {"Authorization": "Bearer admin-token"}
            alone = await client.post("/api/comparisons", json={**body, "definitions": body["definitions"][:1]},
                                      headers=admin)
            assert alone.status_code == 400 and "definitions" in alone.json()["message"]
        page, errors = await generated_in_the_lobby(browser, live, 40, 1)
        made = json.loads(await page.locator("#definition").input_value())
        longer = {**made, "levels": [{**level, "minutes": level["minutes"] * 2} for level in made["levels"]]}
        await page.fill("#definition", json.dumps(longer))
        async with page.expect_response("**/api/comparisons") as answer:
            await page.click("#compare")
        compared = await (await answer.value).json()
        rows = page.locator("#comparison table.compare tbody tr")
        await expect(rows.first).to_contain_text("Duration")
        cells = await rows.first.locator("td").all_inner_texts()
        assert cells == compared["rows"][0] and cells[3].startswith("+")  # twice the minutes: a longer event
        assert len(compared["comparison"]["seeds"]) == 5  # three runs swung a change by half again
        await expect(page.locator("#comparison caption")).to_contain_text("of 5 runs")
        before, after = (structure["hours"]["median"] for structure in compared["comparison"]["structures"])
        assert after > before
        await expect(page.locator("#message")).to_contain_text("Compared: the duration")
        assert errors == []


@on_the_session_loop
async def test_the_lab_report_shows_the_final_tables_depth_and_a_reentry_events_entries_and_pool(browser, tmp_path):
    from bots.labreport import write_html

    definition = msgspec.structs.replace(default_definition(200), max_players=400,
                                         late_registration=LateRegistration(until_level=4),
                                         reentry=Reentry(until_level=4, max_count=2),
                                         breaks=Breaks(every_levels=4, minutes=10))
    report = lab(definition, Field(80, late=20, reentry=0.6), [1, 2], jobs=1)
    path = tmp_path / "lab.html"
    write_html(str(path), report, {"players": 80})
    context = await browser.new_context(offline=True)
    page = await context.new_page()
    await page.goto(path.as_uri())
    moments = page.locator("table.moments tbody tr")
    named = {(await moments.nth(i).locator("td").first.inner_text()): i for i in range(await moments.count())}
    for name in ("Final table: level", "Average stack at the final table (BB)", "Bubble: level", "Players paid",
                 "Entries", "Late entries", "Re-entries", "Prize pool"):
        assert name in named, named
    pool = await moments.nth(named["Prize pool"]).locator("td").nth(1).inner_text()
    assert pool == f"${report.pool_cents.median / 100:,.0f}"
    await expect(page.locator("table.levels tbody tr", has_text="Break").first).to_contain_text("10 minutes")
    await context.close()
