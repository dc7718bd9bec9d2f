"""After a restart the browser shows what the restore did: the hands it voided, on the tournament's page."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import ARTIFACTS
from tests.live_server import ADMIN, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_a_restored_tournament_shows_its_voided_hands(browser, tmp_path):
    ARTIFACTS.mkdir(exist_ok=True)
    db = str(tmp_path / "journal.db")
    async with live_server(hand_pause=0.5, db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament = (await client.post("/api/tournaments", json=definition(6, 3, action_seconds=30), headers=ADMIN)
                      ).json()["id"]
        await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                          json={"count": 6, "mix": "station=1", "think_min": 0.5, "think_max": 1.0})
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        director = live.runtime(tournament).director
        await until(lambda: director.hands_played >= 2 and any(director.hand(t) for t in director.tables))
        in_progress = sorted((t, director.hand_number(t)) for t in director.tables if director.hand(t))
    # The server stopped with hands in progress; a new one on the same journal brings the tournament back.
    async with live_server(hand_pause=0.5, db=db) as live:
        runtime = live.runtime(tournament)
        assert [(v.table, v.hand) for v in runtime.voided] == in_progress
        assert runtime.director.chips_in_play() == runtime.director.chips_issued
        page = await (await browser.new_context(viewport={"width": 1400, "height": 1000})).new_page()
        await page.goto(f"{live.http}/#/t/{tournament}")
        banner = page.locator("#restored")
        await expect(banner).to_contain_text("The server restarted")
        for table, hand in in_progress:
            await expect(banner).to_contain_text(f"hand #{hand} (table {table})")
        await page.screenshot(path=ARTIFACTS / "restored.png")
