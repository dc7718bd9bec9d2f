"""Late registration and re-entry in the browser: the lobby offers registration while a tournament
runs and says until when; the player sits down at once; out, she re-enters from the banner and plays on."""

from __future__ import annotations

import re

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import ARTIFACTS, SIZES, WIDTH, open_as, watch_errors
from tests.live_server import ADMIN, definition, live_server, until
from tests.tournaments import AllBut, rig_winners

pytestmark = pytest.mark.asyncio(loop_scope="session")


@pytest.mark.parametrize("size", SIZES)
async def test_a_person_registers_late_from_the_lobby_busts_and_reenters_from_her_page(browser, size):
    ARTIFACTS.mkdir(exist_ok=True)
    levels = [{"small_blind": 10, "big_blind": 20, "minutes": 60}, {"small_blind": 20, "big_blind": 40, "minutes": 60}]
    body = definition(10, 4, action_seconds=30, stack=2000, paid=1, levels=levels,
                      late_registration={"until_level": 2, "stack": 500}, reentry={"until_level": 2, "max_count": 1})
    async with live_server(hand_pause=0.3) as live, \
            httpx.AsyncClient(base_url=live.http) as client:
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        added = await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                                  json={"count": 3, "mix": "station", "think_min": 0, "think_max": 0})
        assert added.status_code == 201
        runtime = live.runtime(tournament)
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 3)
        assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200
        director = runtime.director
        # The late entry (p4, then p5) never wins a pot; her stack is short, so that no station calling her all-in
        # risks all of its own and the field stays above the bubble.
        rig_winners(director, AllBut("p4"))

        page = await (await browser.new_context(viewport=SIZES[size])).new_page()
        errors = watch_errors(page)
        await page.goto(live.http + "/")
        row = page.locator(f"tr[data-id='{tournament}']")
        late = re.compile(r"late registration: \d+:\d\d / until level 2")
        await expect(row.locator("td.times")).to_contain_text(late)
        await expect(row).to_contain_text("late reg")
        await row.locator(".name-input").fill("Lena")
        await page.screenshot(path=ARTIFACTS / f"late-registration-{size}.png")
        assert await page.evaluate(WIDTH) <= SIZES[size]["width"], "the lobby"
        await row.locator(".register").click()
        await expect(page).to_have_url(re.compile(f"#/t/{tournament}$"))  # a late entry goes straight to its seat
        assert director.where["p4"]  # seated at once, while the tournament runs
        await expect(page.locator("#late")).to_contain_text("until level 2")
        await expect(page.locator("#terms")).to_contain_text("Re-entry")
        await expect(page.locator(".seat.me")).to_contain_text("Lena", timeout=20_000)
        # She goes all-in when she can and calls otherwise; the stations hold the best cards.
        while not await page.locator("#reenter").count():
            mine = page.locator(".controls.mine")
            if await mine.locator(".preset", has_text="all-in").count():
                await mine.locator(".preset", has_text="all-in").click()
                await mine.locator("#raise").click()
            elif await mine.locator("#call, #check").count():
                await mine.locator("#call, #check").first.click()
            await page.wait_for_timeout(100)
        assert "p4" in director.results
        await expect(page.locator("#reentry")).to_contain_text("You are out. Re-enter for $11.00")
        await page.screenshot(path=ARTIFACTS / f"reentry-offer-{size}.png")
        assert await page.evaluate(WIDTH) <= SIZES[size]["width"], await page.evaluate(
            "w => [...document.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > w)"
            ".map(e => `${e.tagName}.${e.className}#${e.id} ${Math.round(e.getBoundingClientRect().right)}`)",
            SIZES[size]["width"])

        await page.click("#reenter")
        await expect(page.locator("#status")).to_contain_text("playing as Lena (p5)")
        await expect(page.locator(".seat.me")).to_contain_text("Lena", timeout=20_000)
        assert director.stacks.get("p5") is not None and director.person("p5") == director.person("p4")
        await expect(page.locator("#reentry")).to_have_count(0)
        assert not errors, errors


async def test_the_admin_adds_bots_that_reenter_with_the_chance_typed_in_the_lobby(browser):
    body = definition(10, 4, late_registration={"until_level": 1}, reentry={"until_level": 1})
    async with live_server() as live, \
            httpx.AsyncClient(base_url=live.http) as client:
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        plain = (await client.post("/api/tournaments", json=definition(10, 4), headers=ADMIN)).json()["id"]
        page = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
        await expect(page.locator(f"tr[data-id='{plain}'] .add-bots")).to_be_visible()
        assert not await page.locator(f"tr[data-id='{plain}'] .bot-reentry").count()  # no re-entry there
        row = page.locator(f"tr[data-id='{tournament}']")
        await row.locator(".bot-count").fill("3")
        await row.locator(".bot-mix").fill("station=1")
        await row.locator(".bot-reentry").fill("25")
        await row.locator(".add-bots").click()
        await expect(page.locator("#message")).to_contain_text("3 bots registered")
        runtime = live.runtime(tournament)
        assert sorted(runtime.entries.bot_reentry.values()) == [0.25, 0.25, 0.25]
