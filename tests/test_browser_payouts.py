"""The Payouts tab as rooms show it, checked against the tournament's own numbers."""

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


async def test_before_the_start_the_payouts_tab_shows_the_rules_table_for_the_entries_so_far_and_a_full_field(
        browser):
    """In Register, ``payouts_cents`` was [] and the Payouts tab empty; and a structure for 300
    started with 120 paid 41.7% of them a min-cash of half the buy-in. A payout rule sizes the table from the
    entries: 20 entries of a 300-place structure pay 15% of 20, a min-cash of 1.5x the buy-in, to the cent; the
    tab shows it, and what a full field would pay."""
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        body = {**definition(300, 9), "buy_in_cents": 20_000, "fee_cents": 2_000, "payout_rule": {}}
        del body["payouts"]
        tournament, _ = await create(live, body, 20)
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["status"] == "register"
        prizes, full = shown["payouts_cents"], shown["full_field_payouts_cents"]
        assert len(prizes) == 3 and prizes[-1] >= 30_000 and sum(prizes) == 20 * 20_000
        assert [round(100 * prize / sum(prizes)) for prize in prizes] == [49, 30, 21]  # rooms pay 50/30/20
        assert len(full) == 45 and full[-1] >= 30_000 and sum(full) == 300 * 20_000
        page = await open_as(browser, live, f"/#/t/{tournament}", {})
        errors = watch_errors(page)
        await tab(page, "payouts")
        rows = page.locator("#payouts tbody tr")
        await expect(rows).to_have_count(3)
        await expect(rows.nth(2).locator("td").nth(1)).to_have_text(f"${prizes[2] / 100:,.2f}")
        await expect(page.locator("#payout-summary")).to_contain_text(
            f"3 of 20 paid (15.0%) · min-cash ${prizes[2] / 100:,.2f}")
        await expect(page.locator("#full-field-payouts")).to_have_text(
            f"So far, from 20 entries. If the field fills: 45 paid, first ${full[0] / 100:,.2f}, "
            f"min-cash ${full[-1] / 100:,.2f}.")
        await page.screenshot(path=ARTIFACTS / "payouts-before-the-start.png")
        assert errors == []
