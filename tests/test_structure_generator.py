"""Issue 21: structures from a few numbers (``mttsim structure``, ``POST /api/structures``, the admin's form), whose
levels bring a field down to about one player near the requested time in the simulator."""

from __future__ import annotations

import json
import statistics

import httpx
import pytest
from playwright.async_api import expect

from engine.structure import DefinitionError, generate_structure, load_definition, nice_blind
from server.cli import main
from bots.simulator import simulate
from tests.browser import open_as, watch_errors
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
        assert len(definition.payouts) and definition.max_players == 1_000
    assert generate_structure(300, 1, 5_000, speed="turbo").levels[0].minutes == 5
    with pytest.raises(DefinitionError, match="at least 2 players"):
        generate_structure(1, 1, 10_000)


@pytest.mark.parametrize(("players", "hours", "speed"), [(100, 1, "regular"), (300, 2, "regular"),
                                                         (1_000, 3, "regular"), (500, 1, "turbo"),
                                                         (200, 0.5, "hyper")])
def test_the_simulated_field_comes_down_to_one_player_near_the_requested_time(players, hours, speed):
    definition = generate_structure(players, hours, 10_000, speed=speed)
    durations = [simulate(definition, players, seed).simulated_hours for seed in (1, 2, 3)]
    assert abs(statistics.median(durations) - hours) <= 0.3 * hours, durations


def test_the_command_prints_a_definition_the_server_reads(capsys):
    assert main(["structure", "--players", "120", "--hours", "2", "--stack", "20000", "--turbo", "--ante",
                 "classic"]) == 0
    definition = load_definition(capsys.readouterr().out.encode())
    assert definition.starting_stack == 20_000 and definition.levels[0].minutes == 5
    assert definition.levels[2].ante and not definition.levels[2].bb_ante
    assert main(["structure", "--players", "1", "--hours", "2", "--stack", "20000"]) == 2


@pytest.mark.asyncio(loop_scope="session")
async def test_the_admin_generates_a_structure_in_the_lobby_and_creates_it(browser):
    async with live_server() as live:
        async with httpx.AsyncClient(base_url=live.http) as client:
            bad = await client.post("/api/structures", json={"players": 1, "hours": 1, "stack": 100})
            assert bad.status_code == 400 and "players" in bad.json()["message"]
        page = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
        errors = watch_errors(page)
        await page.fill("#structure-players", "50")
        await page.fill("#structure-hours", "1")
        await page.select_option("#structure-speed", "turbo")
        await page.click("#generate")
        await expect(page.locator("#message")).to_contain_text("A structure of")
        made = json.loads(await page.locator("#definition").input_value())
        assert made["name"] == "50 players, 1 h turbo" and made["levels"][0]["minutes"] == 5
        await page.click("#create")
        await expect(page.locator("tr[data-id]")).to_contain_text("50 players, 1 h turbo")
        assert errors == []
