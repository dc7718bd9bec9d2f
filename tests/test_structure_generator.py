"""Structures from a few numbers (``mttsim structure``, ``POST /api/structures``, the admin's form), whose
levels bring a field down to about one player near the requested time in the simulator."""

from __future__ import annotations

import asyncio
import itertools
import json
import re
import statistics

import httpx
import msgspec
import pytest
from playwright.async_api import expect

from bots.lab import fit_structure, hours_minutes
from engine.structure import (
    MAX_STEP_BY_SPEED, DefinitionError, generate_structure, level_starts, load_definition, nice_blind,
    structure_hours,
)
from server.cli import main
from bots.simulator import simulate
from tests.browser import FITTING_MS, generated_in_the_lobby, open_as, tab, watch_errors
from tests.live_server import live_server


def test_blinds_are_round_rising_numbers_with_antes_from_level_three():
    assert [nice_blind(v) for v in (97, 130, 240, 333, 7_100, 1_150_000)] == [100, 120, 250, 300, 8_000, 1_200_000]
    for ante in ("bb", "classic"):
        definition = generate_structure(1_000, 3, 10_000, ante=ante)
        blinds = [level.big_blind for level in definition.levels]
        assert blinds == sorted(set(blinds)) and blinds[0] == 100  # 100 big blinds to start
        assert all(level.small_blind * 2 == level.big_blind for level in definition.levels)
        antes = [level.ante for level in definition.levels]
        assert antes[:2] == [0, 0] and all(antes[2:])
        assert all(level.bb_ante == (ante == "bb" and number >= 2) for number, level in enumerate(definition.levels))
        assert definition.breaks is not None and definition.breaks.at_minute == 55
        assert definition.payout_rule is not None and definition.max_players == 10_000  # ten times the field
    assert generate_structure(300, 1, 5_000, speed="turbo").levels[0].minutes == 5
    with pytest.raises(DefinitionError, match="at least 2 players"):
        generate_structure(1, 1, 10_000)


@pytest.mark.parametrize(("players", "hours", "speed"), [(100, 1, "regular"), (300, 2, "regular"),
                                                         (1_000, 3, "regular"), (500, 1, "turbo"),
                                                         (200, 0.5, "hyper")])
def test_the_simulated_field_comes_down_to_one_player_near_the_time_the_structure_takes(players, hours, speed):
    """The time asked for, or the shortest whose big blind climbs at most the speed's step a level,
    as it says."""
    definition = generate_structure(players, hours, 10_000, speed=speed)
    made = structure_hours(players, hours, 10_000, speed)
    assert made >= hours and (made > hours) == ("climbs at most" in definition.name)
    durations = [simulate(definition, players, seed).simulated_hours for seed in (1, 2, 3)]
    assert abs(statistics.median(durations) - made) <= 0.3 * made, durations


@pytest.mark.parametrize("speed", ["regular", "turbo", "hyper"])
def test_no_level_climbs_more_than_its_speeds_step_at_any_field_length_or_stack(speed):
    """6 players in 0.2 h went from a big blind of 16 to 500 in one level; rooms run 20-50%
    steps (a hyper up to a doubling), never three doublings in a row."""
    fields, lengths, stacks = (2, 6, 9, 45, 180, 1_000, 10_000, 100_000), (0.1, 0.2, 0.3, 0.5, 1, 2, 3, 4, 6, 8), \
        (100, 1_500, 10_000, 50_000)
    for players, hours, stack in itertools.product(fields, lengths, stacks):
        definition = generate_structure(players, hours, stack, speed=speed)
        blinds = [level.big_blind for level in definition.levels]
        # below 10 chips the even round numbers are 2, 4, 6, 8: from 2 to 4 is the only step there is
        steps = [later / earlier for earlier, later in zip(blinds, blinds[1:]) if earlier >= 10]
        assert 1 < min(steps) and max(steps) <= MAX_STEP_BY_SPEED[speed], (players, hours, stack, blinds)
        made = structure_hours(players, hours, stack, speed)
        assert made >= hours and (made > hours) == ("climbs at most" in definition.name)


def test_the_command_says_when_the_hours_asked_for_cannot_be_met_and_what_would_meet_them(capsys):
    assert main(["structure", "--players", "6", "--hours", "0.2", "--stack", "1500", "--json"]) == 0
    printed = capsys.readouterr()
    definition = load_definition(printed.out.encode())
    blinds = [level.big_blind for level in definition.levels]
    # not 16 -> 500, nor doubling: at most half again a level (the pace is fitted on simulated runs)
    assert blinds[0] == 16 and all(1 < later / earlier <= 1.5 for earlier, later in zip(blinds[:5], blinds[1:5]))
    # One length everywhere: what stderr says is what the simulations found, as the name says it
    said = re.search(r"takes about (\d+):(\d\d)", printed.err)
    named = re.search(r"(\d+\.\d) h regular", definition.name)
    assert said and named and "more than a level's step" in printed.err
    assert abs(int(said[1]) + int(said[2]) / 60 - float(named[1])) <= 0.05
    assert "--hyper" not in printed.err and "--turbo" not in printed.err  # nothing meets 0.2 h
    assert main(["structure", "--players", "100", "--hours", "1", "--stack", "10000", "--runs", "0"]) == 0
    assert "(--hyper meets 1 h)" in capsys.readouterr().err
    assert main(["structure", "--players", "1000", "--hours", "5", "--stack", "10000", "--runs", "0"]) == 0
    assert capsys.readouterr().err == ""  # met: nothing to say


def test_the_command_prints_a_definition_the_server_reads(capsys):
    assert main(["structure", "--players", "120", "--hours", "2", "--stack", "20000", "--turbo", "--ante",
                 "classic", "--json", "--runs", "0"]) == 0
    definition = load_definition(capsys.readouterr().out.encode())
    assert definition.starting_stack == 20_000 and definition.levels[0].minutes == 5
    assert definition.levels[2].ante and not definition.levels[2].bb_ante
    assert main(["structure", "--players", "1", "--hours", "2", "--stack", "20000"]) == 2


def test_the_command_prints_the_structure_as_a_table_with_the_field_and_length_to_expect(capsys):
    assert main(["structure", "--players", "200", "--hours", "4", "--stack", "10000", "--runs", "2"]) == 0
    lines = capsys.readouterr().out.splitlines()
    definition, made = fit_structure(200, 4, 10000, runs=2, jobs=1)  # the levels' pace fitted on the estimate's runs
    assert lines[1].startswith(f"about {made.hours and hours_minutes(made.hours.median)} to one player left")
    assert lines[2].split() == ["level", "blinds", "ante", "minutes", "start", "BB", "field", "avg", "BB", "clock"]
    rows = [line.split() for line in lines[3:]]
    assert len(rows) == len(definition.levels)
    starts = level_starts(definition)
    for row, level, begins, expected in zip(rows, definition.levels, starts, made.levels):
        assert row[0] == str(expected.level) and row[1] == f"{level.small_blind:,}/{level.big_blind:,}"
        assert row[-1] == hours_minutes(begins / 60) and float(row[-4 if expected.players_left is not None else -2]) \
            == round(definition.starting_stack / level.big_blind, 1)
        if expected.players_left is not None:
            assert row[-3] == f"{expected.players_left:,.0f}" and row[-2] == f"{expected.average_bb:,.1f}"
    assert made.levels[0].players_left == 200 and made.levels[0].average_bb == 10000 / definition.levels[0].big_blind
    # the clock: 10-minute levels (unfitted), a 5-minute break at :55 of each hour inside the level it falls in
    assert level_starts(generate_structure(200, 4, 10000))[:8] == [0, 10, 20, 30, 40, 50, 65, 75]
    minutes = definition.levels[0].minutes
    assert minutes is not None and minutes == int(minutes)  # a fitted length is whole minutes


@pytest.mark.asyncio(loop_scope="session")
async def test_the_admin_generates_a_structure_in_the_lobby_and_creates_it(browser):
    async with live_server() as live:
        async with httpx.AsyncClient(base_url=live.http) as client:
            bad = await client.post("/api/structures", json={"players": 1, "hours": 1, "stack": 100})
            assert bad.status_code == 400 and "players" in bad.json()["message"]
            good = generate_structure(50, 1, 10000)
            body = {"definition": msgspec.to_builtins(good), "players": 50, "runs": 1}
            assert (await client.post("/api/estimates", json=body)).status_code == 401  # an admin's tool
            admin = {"Authorization": "Bearer admin-token"}
            too_many = await client.post("/api/estimates", json={**body, "players": 3001}, headers=admin)
            assert too_many.status_code == 400 and "players" in too_many.json()["message"]
            broken = await client.post("/api/estimates", headers=admin,
                                       json={**body, "definition": {**body["definition"], "levels": []}})
            assert broken.status_code == 400 and broken.json()["error"] == "bad_definition"
        page = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
        errors = watch_errors(page)
        await page.fill("#structure-players", "50")
        await page.fill("#structure-hours", "1.5")
        await page.select_option("#structure-speed", "turbo")
        async with page.expect_response("**/api/estimates", timeout=FITTING_MS) as answer:
            await page.click("#generate")
        estimated = await (await answer.value).json()
        await expect(page.locator("#message")).to_contain_text("A structure of", timeout=FITTING_MS)
        made = json.loads(await page.locator("#definition").input_value())
        # fitted on three simulations (the admin's Generate): the hours asked, met within 5%
        assert made["name"] == "50 players, 1.5 h turbo" and made["levels"][0]["minutes"] == 5
        assert abs(estimated["hours"]["median"] - 1.5) <= 0.05 * 1.5
        # before creating it, the structure as a table with the duration the simulations expect
        hours = estimated["hours"]
        await expect(page.locator("#schedule .estimate")).to_have_text(
            f"Estimated duration {hours_minutes(hours['median'])} ({hours_minutes(hours['p10'])} to "
            f"{hours_minutes(hours['p90'])}, 3 simulated runs).")
        rows = page.locator("#schedule table.schedule tbody tr")
        await expect(rows).to_have_count(len(made["levels"]))
        for index in (0, 2, len(made["levels"]) - 1):
            level, row = made["levels"][index], estimated["levels"][index]
            cells = await rows.nth(index).locator("td").all_inner_texts()
            assert cells[:5] == [str(index + 1), f"{level['small_blind']:,}/{level['big_blind']:,}",
                                 f"{level['ante']:,} BB ante" if level["ante"] else "", "5",
                                 f"{row['starting_bb']:,.1f}".rstrip("0").rstrip(".")]
            assert cells[7] == hours_minutes(row["starts_minute"] / 60)
            assert cells[5] == ("" if row["players_left"] is None else f"{round(row['players_left']):,}")
        assert estimated["levels"][0]["players_left"] == 50
        await page.click("#create")
        await expect(page.locator("tr[data-id]")).to_contain_text("50 players, 1.5 h turbo")
        assert errors == []


def _stated_hours(name: str) -> float:
    return float(name.split(" players, ")[1].split(" h ")[0])


def test_the_generator_meets_the_hours_it_states_within_five_percent_of_its_own_simulations():
    """The generator undershot its own hours by 9-19%. Fitted on the estimate's runs, the length its
    name states is within 5% of the simulated median (and a tenth of an hour, the name's rounding), the hours
    asked where the steps allow them, over fields, hours, stacks, level lengths and speeds; no step is above
    the speed's."""
    from engine.structure import EventOptions

    grid = [(40, 1, 5_000, None, "hyper"), (400, 3, 10_000, None, "turbo"), (150, 1, 5_000, None, "turbo"),
            (40, 3, 20_000, 15, "regular"), (400, 1, 20_000, 10, "hyper")]
    for players, hours, stack, minutes, speed in grid:
        options = EventOptions(minutes=minutes)
        definition, made = fit_structure(players, hours, stack, speed=speed, options=options, runs=3, jobs=1)
        assert made.hours is not None and made.name == definition.name
        stated = _stated_hours(definition.name)
        assert abs(made.hours.median - stated) <= 0.05 * stated + 0.05, (definition.name, made.hours)
        if structure_hours(players, hours, stack, speed, options) == hours:  # the hours asked, met: or as near
            assert stated == hours or "the nearest these round blinds make" in definition.name and \
                abs(stated / hours - 1) <= 0.1 + 1e-9, definition.name  # as the round blinds' steps allow
        blinds = [level.big_blind for level in definition.levels]
        assert max(later / earlier for earlier, later in zip(blinds, blinds[1:])) <= MAX_STEP_BY_SPEED[speed]
        if minutes is not None:
            assert {level.minutes for level in definition.levels} == {minutes}  # a length given is kept


def test_the_structure_table_has_a_row_for_each_break_after_a_level(capsys):
    assert main(["structure", "--players", "200", "--hours", "4", "--stack", "10000", "--breaks-every", "4",
                 "--break-minutes", "10", "--runs", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    rows = [line.split() for line in lines[2:]]
    pauses = [n for n, row in enumerate(rows) if row[0] == "break"]
    assert pauses and all(rows[n - 1][0] in {"4", "8", "12", "16", "20", "24", "28"} for n in pauses)
    first = pauses[0]
    assert rows[first][1] == "10" and rows[first][-1] == "0:40"  # after four 10-minute levels, ten minutes long
    assert rows[first + 1][-1] == "0:50"  # the level after it begins when it ends


def test_the_command_takes_the_events_options(capsys):
    assert main(["structure", "--players", "300", "--hours", "6", "--stack", "30000", "--minutes", "20",
                 "--seats", "8", "--buy-in", "100", "--fee", "10", "--late-levels", "6", "--reentry-levels", "6",
                 "--reentries", "2", "--breaks-every", "4", "--break-minutes", "10", "--ante", "none",
                 "--name", "Sunday 300", "--runs", "0", "--json"]) == 0
    definition = load_definition(capsys.readouterr().out.encode())
    assert definition.name == "Sunday 300" and definition.seats_per_table == 8
    assert (definition.buy_in_cents, definition.fee_cents) == (10_000, 1_000)
    assert {level.minutes for level in definition.levels} == {20} and not any(level.ante for level in definition.levels)
    assert definition.late_registration is not None and definition.late_registration.until_level == 6
    assert definition.reentry is not None and (definition.reentry.until_level, definition.reentry.max_count) == (6, 2)
    assert definition.breaks is not None and (definition.breaks.every_levels, definition.breaks.minutes) == (4, 10)
    assert main(["structure", "--players", "300", "--hours", "6", "--stack", "30000", "--seats", "11"]) == 2
    assert "seats" in capsys.readouterr().err


@pytest.mark.asyncio(loop_scope="session")
async def test_the_lobbys_generator_takes_the_events_name_level_length_buy_in_and_late_entry(browser):
    async with live_server() as live:
        async with httpx.AsyncClient(base_url=live.http) as client:
            wrong = await client.post("/api/structures", json={"players": 40, "hours": 2, "stack": 10000,
                                                               "options": {"seats": 11}})
            assert wrong.status_code == 400 and "seats" in wrong.json()["message"]
            fitted = await client.post("/api/structures", json={"players": 40, "hours": 2, "stack": 10000,
                                                                "fit": True})
            assert fitted.status_code == 401  # fitting simulates: the admin's, as an estimate is
        page = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
        errors = watch_errors(page)
        await page.fill("#structure-players", "40")
        await page.fill("#structure-hours", "3")
        await page.fill("#structure-name", "Sunday 40")
        await page.fill("#structure-minutes", "20")
        await page.fill("#structure-buy-in", "50")
        await page.fill("#structure-late", "4")
        await page.fill("#structure-reentry", "4")
        await page.click("#generate")
        await expect(page.locator("#message")).to_contain_text("A structure of", timeout=FITTING_MS)
        made = load_definition((await page.locator("#definition").input_value()).encode())
        assert made.name == "Sunday 40" and {level.minutes for level in made.levels} == {20}
        assert made.buy_in_cents == 5_000 and made.late_registration is not None and made.reentry is not None
        assert made.late_registration.until_level == made.reentry.until_level == 4
        assert errors == []


@pytest.mark.asyncio(loop_scope="session")
async def test_the_levels_are_edited_cell_by_cell_with_a_break_row_and_the_tournament_plays_them(browser):
    """No JSON needed: a cell edited, a level inserted and one deleted, a break row after level 3;
    the definition box follows, and the tournament created from it plays the break after level 3."""
    async with live_server(hand_pause=0.05) as live:
        page, errors = await generated_in_the_lobby(browser, live, 40, 3)
        generated = json.loads(await page.locator("#definition").input_value())["levels"]
        await page.click("#edit-levels")
        rows = page.locator("#levels-editor tr.level-row")
        await expect(rows).to_have_count(len(generated))
        for index in (1, 2):  # short levels, so that the tournament gets to the break in a test's time
            await page.get_by_label(f"level {index} minutes", exact=True).fill("0.05")
            await page.get_by_label(f"level {index} minutes", exact=True).dispatch_event("change")
        await page.get_by_label("insert a level after level 1", exact=True).click()
        await expect(rows).to_have_count(len(generated) + 1)
        await page.get_by_label(f"delete level {len(generated) + 1}", exact=True).click()
        await expect(rows).to_have_count(len(generated))
        await page.get_by_label("a break after level 3", exact=True).click()
        breaks = page.locator("#levels-editor tr.break-row")
        await expect(breaks).to_have_count(1)
        await expect(breaks.first).to_have_attribute("data-after", "3")
        minutes = page.get_by_label("break after level 3, minutes", exact=True)
        await minutes.fill("0.05")
        await minutes.dispatch_event("change")
        edited = json.loads(await page.locator("#definition").input_value())["levels"]
        assert edited[0]["minutes"] == edited[2]["minutes"] == 0.05 and edited[2]["break_minutes"] == 0.05
        assert edited[1]["big_blind"] == 2 * edited[0]["big_blind"]  # the level inserted after level 1
        assert len(edited) == len(generated) and edited[-1] == generated[-2]  # the last one deleted
        assert edited[1]["minutes"] == 0.05  # copied from the level it follows
        await page.click("#estimate")  # the schedule shows the break as a row of its own, at its clock time
        pause = page.locator("#schedule table.schedule tr.break-row")
        await expect(pause).to_have_count(1)
        await expect(pause).to_contain_text("Break")
        await page.click("#create")
        await expect(page.locator("tr[data-id]")).to_have_count(1)
        created = await page.locator("tr[data-id]").first.get_attribute("data-id")
        await page.goto(f"{live.http}/#/t/{created}")
        await tab(page, "info")  # and so does the tournament's Info tab
        await expect(page.locator("table.structure tr.break-row")).to_contain_text("Break, 0.05 min")
        assert errors == []
        # the definition created plays its break after level 3
        async with httpx.AsyncClient(base_url=live.http, headers={"Authorization": "Bearer admin-token"}) as client:
            tournament = (await client.get("/api/tournaments")).json()[0]["id"]
            # Tight players who think a fifth of a second: four of them never finish before the break nine
            # seconds in (bots that never think could, on an idle machine, and the test saw no break).
            assert (await client.post(f"/api/tournaments/{tournament}/bots", json={
                "count": 4, "mix": "tag=1", "think_min": 0.2, "think_max": 0.2})).status_code < 300
            assert (await client.post(f"/api/tournaments/{tournament}/start")).status_code == 200
            for _ in range(1200):  # levels of three seconds: the break is nine seconds in, given a busy machine's
                kinds = [json.loads(line)["type"] for line in  # delays a couple of minutes
                         (await client.get(f"/api/tournaments/{tournament}/events")).text.splitlines()]
                if "break_started" in kinds:
                    break
                await asyncio.sleep(0.1)
            assert "break_started" in kinds, kinds
            levels_before = [kind for kind in kinds[:kinds.index("break_started")] if kind == "level_changed"]
            assert len(levels_before) == 3  # levels 1, 2 and 3 began, then the break came
