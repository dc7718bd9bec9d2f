"""The table in a player's hand, played with one thumb in both orientations (the action bar
fixed at the bottom, every tap target at least 44 px, the hero's cards the largest, nothing of one's turn below the
fold), the phone lobby with Register in sight, and axe-core's accessibility rules on every screen."""

from __future__ import annotations

import json

import pytest
from playwright.async_api import expect

from tests.browser import (
    ARTIFACTS, alice_among_stations, grave_violations, my_turn, open_as, small_targets, tab, watch_errors,
)
from tests.live_server import admin, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")

PHONES = [(390, 844), (360, 640), (844, 390), (667, 375)]  # portrait, a small one, and two held sideways
CONSOLE_TARGETS = (".tabs .tab, .console button, .console input:not([type=checkbox]):not([type=radio]), "
                   ".console select")
TABLE_TARGETS = ".tabs .tab, #chat-input, details > summary"


def apart(one: dict, other: dict) -> bool:
    """Two boxes that do not overlap."""
    return (one["y"] + one["height"] <= other["y"] or one["y"] >= other["y"] + other["height"]
            or one["x"] + one["width"] <= other["x"] or one["x"] >= other["x"] + other["width"])


async def overlapping(page) -> list[tuple[str, str]]:
    """The pairs of the table's parts drawn over each other: the seats, the table's line ("Table 1 · hand #3"),
    the board, the pot and the hand in words. Held sideways, a top seat covered the table's line and the hero's
    seat the hand in words; at ten seats, neighbours covered each other."""
    return [tuple(pair) for pair in await page.evaluate("""() => {
        const parts = [...document.querySelectorAll('.seat, .table-line, .middle .board, .middle .pot, #strength')]
            .filter((node) => node.offsetParent !== null && node.getBoundingClientRect().width > 0)
            .map((node) => [node.dataset.player || node.className, node.getBoundingClientRect()]);
        const pairs = [];
        parts.forEach(([one, a], i) => parts.slice(i + 1).forEach(([other, b]) => {
            const middle = ['board', 'pot', 'strength'];
            if (middle.includes(one) && middle.includes(other)) return;  // the middle's own rows, side by side
            if (a.bottom > b.top + 0.5 && b.bottom > a.top + 0.5 && a.right > b.left + 0.5 && b.right > a.left + 0.5)
                pairs.push([one, other]);
        }));
        return pairs;
    }""")]


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
            assert await overlapping(page) == [], (width, height)  # six seats apart, held sideways too
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
    """In both orientations: held sideways (844x390) the lobby was the desktop table, Register 66x21 px."""
    async with live_server() as live:
        await admin_create(live)
        for width, height in ((390, 844), (360, 640), (844, 390), (667, 375), (1366, 900)):
            page = await (await browser.new_context(viewport={"width": width, "height": height})).new_page()
            errors = watch_errors(page)
            await page.goto(live.http + "/")
            register = page.locator(".register").first
            await expect(register).to_be_in_viewport(ratio=1)
            if width < 700 or height < 500:  # a thumb's; a desktop's mouse has the table's rows
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
                    if width < 700:  # every console control a thumb's, the tabs too (they were 21 and 30 px)
                        assert await small_targets(page, CONSOLE_TARGETS) == [], width
                assert await grave_violations(page) == [], (path, width)
                assert errors == []


async def test_a_folded_and_a_sitting_out_seat_stay_readable_and_the_table_reads_at_arms_length(browser):
    """axe found 4.24:1 on a dimmed seat as soon as one folded or sat out (opacity); the hero's cards were 21.6 px
    glyphs and the pot 11-12 px; the tabs, the chat box and "Propose a deal" were 21-30 px on a phone. A folded
    seat and one sitting out keep 4.5:1, the hero's cards are faces taller than anything else's, the pot is 16 px
    or more, and every control is a thumb's, at the four phone sizes and a desktop's."""
    async with live_server(hand_pause=0.05) as live:
        tournament, seats = await create(live, definition(3, 3, action_seconds=60, stack=100_000), 3)
        (alice, token), station, absent = seats  # the third never connects: seated, they sit out from the start
        bots(live, tournament, [station], "station")
        page = await open_as(browser, live, f"/#/t/{tournament}", {
            f"mttsim:seat:{tournament}": json.dumps({"player_id": alice, "token": token})})
        errors = watch_errors(page)
        runtime = live.runtime(tournament)
        await until(lambda: runtime.streams.connected(alice) and runtime.streams.connected(station[0]))
        assert (await admin(live, tournament, "start")).status_code == 200
        await expect(page.locator(".seat .mark", has_text="sitting out")).to_have_count(1)
        for _ in range(20):  # her turn in a hand the absent player was dealt into, and folded by the clock before
            await my_turn(page)
            if await page.locator(".seat.folded").count():
                break
            answer = await page.locator("#check, #call").first.element_handle()
            await answer.click()
            await answer.wait_for_element_state("hidden")  # that turn's bar gone (the next may come at once)
        await expect(page.locator(".seat.folded .mark", has_text="sitting out")).to_have_count(1)
        for width, height in [*PHONES, (1366, 900)]:
            await page.set_viewport_size({"width": width, "height": height})
            await page.evaluate("new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))")
            assert await grave_violations(page) == [], (width, height)  # a folded, sitting-out seat kept 4.5:1
            sizes = await page.evaluate("""() => [...document.querySelectorAll('.card')].map((card) =>
                [card.closest('.seat.me') !== null, card.getBoundingClientRect().height])""")
            mine = [size for own, size in sizes if own]
            assert mine and min(mine) > max((size for own, size in sizes if not own), default=0), (width, sizes)
            seat = await box_of(page, ".seat.me")
            for part in ("#strength", ".pot", ".board"):  # her hand in words, the pot, the board: never under her seat
                if await page.locator(part).count():  # held sideways too
                    assert apart(await box_of(page, part), seat), (width, height, part, seat)
            assert await overlapping(page) == [], (width, height)
            pot = await page.evaluate("getComputedStyle(document.querySelector('.pot')).fontSize")
            assert float(pot.removesuffix("px")) >= 16, (width, height, pot)
            if width < 700 or height < 500:
                assert await small_targets(page, TABLE_TARGETS) == [], (width, height)
            await page.screenshot(path=ARTIFACTS / f"phone-folded-{width}x{height}.png")
        assert errors == []


async def test_a_player_who_is_out_keeps_no_seat_controls_and_reads_where_they_finished(browser):
    """After a bust, "Sit out next hand", the time bank and "playing as" stayed, and a tick was refused in red; the
    player who lost at the end got no finishing line. Alice, rigged to lose, goes all in until she is out: her bar
    says where she finished, nothing of a seat is left, and the status line says it too."""
    from tests.test_browser import all_in_while

    async with live_server(hand_pause=0.05) as live:
        body = definition(2, 2, action_seconds=60, stack=1_000)
        tournament, alice, page = await alice_among_stations(live, browser, body, 2, rig=True, name="Alice")
        await page.set_viewport_size({"width": 390, "height": 844})
        errors = watch_errors(page)
        assert (await admin(live, tournament, "start")).status_code == 200
        runtime = live.runtime(tournament)
        await all_in_while(page, lambda: runtime.director.status.value == "running")
        line = page.locator("#finished-line")
        await expect(line).to_have_text("You finished 2nd.")
        for gone in ("#sit-out-next_hand", "#sit-out-next_big_blind", "#time-bank", ".controls.mine"):
            await expect(page.locator(gone)).to_have_count(0)
        await expect(page.locator("#status")).to_contain_text("finished 2nd as Alice")
        assert await grave_violations(page) == []
        assert errors == []
