"""The browser client, driven by Playwright in Debian's chromium against a real server on 127.0.0.1.

A person registers in the lobby; the admin creates the tournament, fills it with bots and starts it, all
through the page. The person sees their cards, plays with the buttons and the keyboard, lets the clock run
out once, is moved when their table breaks and keeps playing; another page watches a table as an observer.
Screenshots go to test-artifacts/.
"""

from __future__ import annotations

import json
import re

import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import expect

from tests.browser import ARTIFACTS, SIZES, WIDTH, my_turn, tab, watch_errors
from tests.clocks import ManualClock, run_out
from tests.live_server import live_server
from tests.tournaments import Favour, rig_winners

pytestmark = pytest.mark.asyncio(loop_scope="session")
DEFINITION = {
    "name": "Browser test", "seats_per_table": 3, "starting_stack": 3000, "buy_in_cents": 500, "fee_cents": 50,
    "min_players": 2, "max_players": 4, "action_seconds": 60, "time_bank_seconds": 0,
    "levels": [{"small_blind": 10, "big_blind": 20, "minutes": 60}], "payouts": [{"places": "1", "percent": 100}],
}


def rig_for(runtime, player: str) -> None:
    """Deal ``player`` the best hand at their table, so the break that follows is theirs to be moved by."""
    rig_winners(runtime.director, Favour(player))


async def new_page(browser, size: str):
    page = await (await browser.new_context(viewport=SIZES[size])).new_page()
    return page, watch_errors(page)


async def all_in_while(page, going_on) -> None:
    """Her rigged best hand in at each of her turns while ``going_on()`` holds: all-in when she can raise, a call
    when the other is all-in already (a blind may have taken his last chips), back in if the clock sat her out."""
    controls = page.locator(".controls.mine")
    while going_on():
        try:
            if await page.locator("#back").count():
                await page.locator("#back").click(timeout=2000)
            await controls.wait_for(timeout=1000)
            if await controls.locator("#raise").count():
                await controls.get_by_text("All-in").click(timeout=2000)
                await controls.locator("#raise").click(timeout=2000)
            else:
                await controls.locator("#call, #check").first.click(timeout=2000)
        except PlaywrightTimeout:
            continue  # not her turn (yet, or any more: the hand that ended it was her last)


async def accept(dialog) -> None:
    await dialog.accept()


@pytest.mark.parametrize("size", SIZES)
async def test_a_person_plays_a_tournament_in_the_browser(browser, size):
    """The play-through, at 1366 x 900 and at 390 x 844 with nothing wider than the screen: registration through
    the lobby, hands played by clicking and by keyboard, the clock running out, a break called from the director's
    console, a move when a table breaks, and the results; every page's screenshot goes to test-artifacts/."""
    ARTIFACTS.mkdir(exist_ok=True)
    shot = lambda page, name: page.screenshot(path=ARTIFACTS / f"{name}-{size}.png")  # noqa: E731
    clock = ManualClock(runs=True)  # her decision's minute runs out when the test says, however busy the machine
    async with live_server(clock, hand_pause=0.4) as live:
        admin, admin_errors = await new_page(browser, size)
        person, person_errors = await new_page(browser, size)

        # The admin creates the tournament from the lobby's form.
        await admin.goto(live.http + "/")
        await admin.click("summary")
        await admin.fill("#admin-token", "admin-token")
        await admin.click("#save-token")
        await admin.reload()  # the lobby redraws with the admin's controls; fill the form once it has
        await expect(admin.locator(".admin-panel[open] #definition")).to_be_visible()
        await admin.fill("#definition", json.dumps(DEFINITION))
        await admin.click("#create")
        row = admin.locator("tr[data-id]")
        await expect(row).to_have_count(1)
        tournament = await row.get_attribute("data-id")
        rig_for(live.runtime(tournament), "p1")

        # The person registers in the lobby, which follows what happens without a reload.
        await person.goto(live.http + "/")
        await person.fill(".name-input", "Alice")
        await person.click(".register")
        await expect(person.locator("tr[data-id] .registered")).to_have_text("Registered as Alice · your page")
        await expect(person.locator("#message")).to_have_class(re.compile(r"\bok\b"))  # not the colour of errors
        await shot(person, "lobby")
        assert await person.evaluate(WIDTH) <= SIZES[size]["width"], "the lobby"

        # The admin fills it with bots (calling stations: they never fold, never raise) and starts it.
        await admin.fill(".bot-count", "3")
        await admin.fill(".bot-mix", "station=1")
        await admin.click(".add-bots")
        await expect(admin.locator("tr[data-id]")).to_contain_text("4 / 4")
        await admin.click(".start")
        await expect(admin.locator("tr[data-id] .status")).to_have_text("running")
        # Her lobby, open, follows the start without a reload and opens her table, as the rooms' do.
        await expect(person).to_have_url(re.compile(f"#/t/{tournament}$"))

        # The person sees their two cards, face up, and what they make.
        await expect(person.locator(".seat.me .cards .card:not(.back)")).to_have_count(2, timeout=20_000)
        await expect(person.locator("#strength")).not_to_be_empty()
        first_table = await person.locator(".middle").inner_text()

        # Another page watches the other table as an observer: no cards face up but shown ones.
        runtime = live.runtime(tournament)
        other = next(t for t in runtime.director.tables if t != runtime.director.where["p1"][0])
        observer, observer_errors = await new_page(browser, size)
        await observer.goto(f"{live.http}/#/t/{tournament}/table/{other}")
        await expect(observer.locator(".controls.observer")).to_be_visible()
        await expect(observer.locator(".middle")).to_contain_text(f"Table {other}")
        await expect(observer.locator(".seat")).to_have_count(2)
        await shot(observer, "observer")

        # A hand with the buttons, then one with the keyboard.
        await my_turn(person)
        await shot(person, "table")
        assert await person.evaluate(WIDTH) <= SIZES[size]["width"], "the table, on the player's turn"
        await expect(person.locator("#raise")).to_be_in_viewport()
        await person.locator("#call, #check").first.click()
        await my_turn(person)
        await person.keyboard.press("c")

        # The clock runs out once: the page shows the automatic check or fold, and the way back.
        await my_turn(person)
        await run_out(clock, 61.0)
        await expect(person.locator("#log")).to_contain_text("You ran out of time", timeout=10_000)
        await person.click("#back")

        # The director calls a break from the console, then takes its minute away: every page shows it.
        await admin.goto(f"{live.http}/#/t/{tournament}")
        await tab(admin, "console")
        await shot(admin, "console")
        await admin.fill("#break-minutes", "1")
        await admin.click("#call-break")
        await expect(admin.locator("#console-result")).to_contain_text("1-minute break")
        await expect(person.locator("#break")).to_contain_text("Break: play resumes in", timeout=10_000)
        await shot(person, "break")
        admin.once("dialog", accept)  # taking time away asks first
        await admin.click("#remove-minute")
        await expect(person.locator("#break")).to_have_count(0, timeout=10_000)

        # All-in with the rigged best hand until the station has busted (a hand may leave it the blinds): the
        # table breaks, Alice moves.
        await all_in_while(person, lambda: runtime.director.where["p1"][0] != other)
        await expect(person.locator("#notice")).to_contain_text("your table was broken", timeout=20_000)
        await expect(person.locator(".middle")).not_to_have_text(first_table)
        assert runtime.director.where["p1"][0] == other

        # She plays on at the new table, all-in each hand with the best cards, until she has won.
        await all_in_while(person, lambda: runtime.director.status.value == "running")
        await expect(person.locator("#winner")).to_contain_text("Alice wins $", timeout=20_000)
        await expect(person.locator("#log")).to_contain_text("You win the tournament")
        await shot(person, "results")

        # Every tab, each at this size, with nothing wider than the screen.
        for name in ("info", "payouts", "players", "tables", "hands"):
            await tab(person, name)
            if name == "payouts":
                await expect(person.locator("tr.standing").first).to_contain_text("Alice")
            if name == "hands":
                await person.locator(".hand-link").first.click()
                await expect(person.locator("#replay-step")).to_contain_text("Blinds and antes; the cards are dealt")
            await shot(person, f"tab-{name}")
            assert await person.evaluate(WIDTH) <= SIZES[size]["width"], name
        assert admin_errors == person_errors == observer_errors == []
