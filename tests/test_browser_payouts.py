"""Issue 35.6 in the browser: the Payouts tab as rooms show it, checked against the tournament's own numbers."""

from __future__ import annotations

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import ARTIFACTS, open_as, tab, watch_errors
from tests.live_server import ADMIN, create, definition, live_server

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def test_the_payouts_tab_heads_its_columns_and_says_how_many_are_paid_the_min_cash_and_the_bubble(browser):
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(30, 6, paid=6, stack=100_000), 30)
        assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200
        shown = (await client.get(f"/api/tournaments/{tournament}", headers=ADMIN)).json()
        prizes = shown["payouts_cents"]
        assert prizes[:2] == [9000, 4200] and len([p for p in prizes if p]) == 6
        page = await open_as(browser, live, f"/#/t/{tournament}", {})
        errors = watch_errors(page)
        await tab(page, "payouts")
        table = page.locator("#payouts")
        await expect(table.locator("thead th")).to_have_text(["Place", "Prize", "Share", "Player"])
        rows = table.locator("tbody tr")
        await expect(rows).to_have_count(2)  # 1st, then 2nd to 6th alike
        await expect(rows.nth(0).locator("td")).to_have_text(["1", "$90.00", "30.0%", ""])
        await expect(rows.nth(1).locator("td")).to_have_text(["2-6", "$42.00 each", "14.0%", ""])
        # Every band's amount is the API's for each place in it, and the shares add up to the whole pool.
        for index in range(await rows.count()):
            row = rows.nth(index)
            low, high, cents = [int(await row.get_attribute(name)) for name in ("data-from", "data-to", "data-cents")]
            assert prizes[low - 1:high] == [cents] * (high - low + 1)
        assert sum(prizes) == shown["prize_pool_cents"] == 30_000
        await expect(page.locator("#payout-summary")).to_have_text(
            "6 of 30 paid (20.0%) · min-cash $42.00 (4.2x the buy-in) · the bubble: 7th")
        await page.screenshot(path=ARTIFACTS / "payouts-tab.png")
        assert errors == []
