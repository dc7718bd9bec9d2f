"""The table in a player's hand, played with one thumb in both orientations (the action bar
fixed at the bottom, every tap target at least 44 px, the hero's cards the largest, nothing of one's turn below the
fold), the phone lobby with Register in sight, and axe-core's accessibility rules on every screen."""

from __future__ import annotations

import pytest
from playwright.async_api import expect

from tests.browser import (
    ARTIFACTS, alice_among_stations, grave_violations, my_turn, open_as, small_targets, tab, watch_errors,
)
from tests.live_server import admin, definition, live_server

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONES = [(390, 844), (360, 640), (844, 390), (667, 375)]  # portrait, a small one, and two held sideways


async def box_of(page, selector: str) -> dict:
    box = await page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box


async def test_a_phone_table_is_played_with_one_thumb_in_both_orientations(browser):
    async with live_server(hand_pause=0.05) as live:
        body = definition(6, 6, action_seconds=60, stack=100_000)  # her clock waits while each size is measured
        tournament, alice, page = await alice_among_stations(live, browser, body, 6, name="Alice")
        errors = watch_errors(page)
        assert (await admin(live, tournament, "start")).status_code == 200
        for width, height in PHONES:
            await page.set_viewport_size({"width": width, "height": height})
            await my_turn(page)
            await page.wait_for_timeout(100)  # a redraw for the new size
            bar = await box_of(page, ".controls.mine")
            # The action bar is fixed under the thumb: at the bottom of the screen, whatever the page's scroll.
            assert bar["y"] + bar["height"] == pytest.approx(height, abs=1.5), (width, height, bar)
            await page.mouse.wheel(0, 2000)
            await page.wait_for_timeout(100)
            assert await box_of(page, ".controls.mine") == bar, (width, height)
            await page.evaluate("window.scrollTo(0, 0)")
            # Nothing of the turn below the fold (or under the bar): the pot, the board's place and her cards.
            for part in (".pot", ".seat.me .cards", ".seat.me", ".board"):
                box = await box_of(page, part)
                assert box["y"] >= 0 and box["y"] + box["height"] <= bar["y"] + 1, (width, height, part, box, bar)
            assert await small_targets(page) == [], (width, height)
            # Her cards are the largest on the screen.
            sizes = await page.evaluate("""() => [...document.querySelectorAll('.card')].map((card) =>
                [card.closest('.seat.me') !== null, card.getBoundingClientRect().height])""")
            mine = [height for own, height in sizes if own]
            others = [height for own, height in sizes if not own]
            assert mine and min(mine) > max(others, default=0), (width, height, sizes)
            assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth"), (width, height)
            await page.screenshot(path=ARTIFACTS / f"phone-turn-{width}x{height}.png")
        assert await grave_violations(page) == []
        await page.set_viewport_size({"width": 1366, "height": 900})
        assert await grave_violations(page) == []
        assert errors == []


async def test_the_phone_lobby_shows_register_with_nothing_sideways(browser):
    async with live_server() as live:
        await admin_create(live)
        for width, height in ((390, 844), (360, 640), (1366, 900)):
            page = await (await browser.new_context(viewport={"width": width, "height": height})).new_page()
            errors = watch_errors(page)
            await page.goto(live.http + "/")
            register = page.locator(".register").first
            await expect(register).to_be_in_viewport(ratio=1)
            if width < 700:  # a thumb's; a desktop's mouse has the table's rows
                assert await small_targets(page, ".register, .name-input") == [], (width, height)
            assert await page.evaluate("document.documentElement.scrollWidth <= innerWidth"), (width, height)
            assert await grave_violations(page) == [], (width, height)
            await page.screenshot(path=ARTIFACTS / f"phone-lobby-{width}x{height}.png")
            assert errors == []


async def admin_create(live) -> None:
    import httpx

    from tests.live_server import ADMIN
    async with httpx.AsyncClient(base_url=live.http) as client:
        created = await client.post("/api/tournaments", json=definition(9, 9), headers=ADMIN)
        assert created.status_code == 201


async def test_the_console_and_the_clock_screen_have_nothing_serious_for_axe_at_desktop_and_phone_sizes(browser):
    async with live_server(hand_pause=0.05) as live:
        body = definition(6, 6, action_seconds=60, stack=100_000)
        tournament, _, _ = await alice_among_stations(live, browser, body, 6, name="Alice")
        assert (await admin(live, tournament, "start")).status_code == 200
        screens = ((f"/#/t/{tournament}", {"mttsim:admin": "admin-token"}), (f"/#/t/{tournament}/clock", {}))
        for path, storage in screens:
            for width, height in ((1366, 900), (390, 844)):
                page = await open_as(browser, live, path, storage, viewport={"width": width, "height": height})
                errors = watch_errors(page)
                if "clock" in path:
                    await expect(page.locator("#clock-level")).to_have_text("Level 1")
                else:
                    await tab(page, "console")
                    await expect(page.locator("#director-log")).to_be_visible()
                assert await grave_violations(page) == [], (path, width)
                assert errors == []
