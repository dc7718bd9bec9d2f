"""Keyboard safety in the browser (its two critical problems): a shortcut never fires with Ctrl, Meta or
Alt or while typing in a field, and Enter presses the focused button rather than betting."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import expect

from engine.events import Acted
from tests.browser import alice_among_stations, my_turn, open_as, tab
from tests.live_server import bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")



async def test_modified_keys_and_enter_on_a_focused_button_do_not_act_as_shortcuts(browser):
    async with live_server(hand_pause=0.2) as live:
        rules = definition(2, 2, action_seconds=60)
        tournament, alice, page = await alice_among_stations(live, browser, rules, 2)
        await live_admin_start(live, tournament)
        await my_turn(page)
        runtime = live.runtime(tournament)

        def alices_actions() -> list[str]:
            return [e.action for _, e in runtime.log if isinstance(e, Acted) and e.player == alice]

        before = alices_actions()
        for combination in ("Control+c", "Control+f", "Control+r", "Meta+c", "Alt+f", "Control+Enter"):
            await page.keyboard.press(combination)
        if await page.locator("#amount").count():
            await page.locator("#amount").focus()
            await page.keyboard.type("cf")  # letters typed into the amount box are no shortcuts
        await page.wait_for_timeout(300)
        assert alices_actions() == before and await page.locator(".controls.mine").is_visible()

        button = page.locator("#check, #call").first
        expected = "check" if await button.get_attribute("id") == "check" else "call"
        await button.focus()
        await page.keyboard.press("Enter")  # the focused button, not a bet
        await until(lambda: len(alices_actions()) > len(before), timeout=20)
        assert alices_actions()[len(before)] == expected


async def live_admin_start(live, tournament: str) -> None:
    import httpx

    from tests.live_server import ADMIN

    async with httpx.AsyncClient(base_url=live.http) as client:
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)


async def test_a_busted_player_leaves_the_table_on_every_page_and_their_own_page_says_where_they_finished(browser):
    """Busted players stayed seated as 0-chip ghosts until a reload."""
    import httpx

    from tests.live_server import ADMIN

    async with live_server(hand_pause=0.3) as live:
        rules = definition(3, 3, action_seconds=30, paid=1)
        tournament, alice, person = await alice_among_stations(live, browser, rules, 3, rig=True)
        observer = await open_as(browser, live, f"/#/t/{tournament}/table/1", {})
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await my_turn(person)
        await expect(observer.locator(f".seat[data-player='{alice}']")).to_have_count(1)
        await person.click("text=All-in")
        await person.click("#raise")
        await expect(person.locator("#notice")).to_contain_text(re.compile(r"You finished in place [23]\."),
                                                                 timeout=20_000)
        await expect(observer.locator(f".seat[data-player='{alice}']")).to_have_count(0)
        await expect(person.locator(f".seat[data-player='{alice}']")).to_have_count(0)
        await expect(person.locator(".controls.mine")).to_have_count(0)


async def test_a_cancel_takes_the_live_buttons_and_the_clock_off_the_void_hand(browser):
    """After the admin cancelled, the player's page still offered actions on the void hand."""
    import httpx

    from tests.live_server import ADMIN

    async with live_server(hand_pause=0.3) as live:
        rules = definition(2, 2, action_seconds=60)
        tournament, alice, person = await alice_among_stations(live, browser, rules, 2)
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
            await my_turn(person)
            await expect(person.locator(".seat.actor .clock")).to_have_count(1)
            await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN)
        await expect(person.locator(".controls.mine")).to_have_count(0, timeout=10_000)
        await expect(person.locator(".seat.actor .clock")).to_have_count(0)


async def test_the_bet_box_keeps_what_the_player_typed_and_its_focus_while_messages_arrive(browser):
    """Any incoming message rebuilt the bet box, replacing a typed amount and losing the focus."""
    import httpx

    from tests.live_server import ADMIN

    async with live_server(hand_pause=0.3) as live:
        rules = definition(2, 2, action_seconds=60, stack=5000)
        tournament, alice, person = await alice_among_stations(live, browser, rules, 2)
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
            await my_turn(person)
            box = person.locator("#amount")
            await box.fill("")
            await box.type("12")  # on the way to 1200: below the minimum for now
            await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN)  # a message to every table
            await expect(person.locator("#summary")).to_contain_text("paused", timeout=10_000)
            await client.post(f"/api/tournaments/{tournament}/resume", headers=ADMIN)  # and another
            await expect(person.locator("#summary")).not_to_contain_text("paused", timeout=10_000)
        assert await box.input_value() == "12"
        assert await person.evaluate("document.activeElement && document.activeElement.id") == "amount"


async def test_a_finished_tournament_shows_its_winner_and_what_each_place_was_paid(browser):
    """A finished tournament showed no standings and no winner."""
    import httpx

    from tests.live_server import ADMIN

    levels = [{"small_blind": 50 * 2**k, "big_blind": 100 * 2**k, "hands": 2} for k in range(8)]
    async with live_server(hand_pause=0.02) as live:
        tournament, seats = await create(live, definition(3, 3, action_seconds=5, stack=500, paid=2, levels=levels), 3)
        bots(live, tournament, seats, "pushfold")
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
            director = live.runtime(tournament).director
            await until(lambda: director.status.value == "finished", timeout=60)
        page = await open_as(browser, live, f"/#/t/{tournament}", {})
        winner = director.standings()[0]
        name = live.runtime(tournament).entries.names[winner.player]
        await expect(page.locator("#winner")).to_contain_text(f"{name} wins $", timeout=10_000)
        rows = page.locator("tr.standing")
        paid = [r for r in director.standings() if r.prize_cents > 0 or r.place == 1]  # two, or three sharing a tie
        await expect(rows).to_have_count(len(paid))
        for row, result in zip(await rows.all(), paid):
            await expect(row).to_contain_text(f"${result.prize_cents / 100:,.2f}")
        await expect(rows.first).to_contain_text(name)


async def test_at_390_by_844_no_page_scrolls_sideways(browser):
    """On a phone the page was 835 px wide (the bet controls, seats and log off screen), and the refund
    preview made it 1,675 px. The demo's formats (a knockout with re-buys, an add-on and late registration)
    put their banners and bounties on the page too."""
    import httpx
    import msgspec

    from server.demo import demo_definition
    from tests.live_server import ADMIN

    demo = msgspec.structs.replace(demo_definition(12, 6), action_seconds=60, time_bank_seconds=0)  # two tables
    async with live_server(hand_pause=0.3) as live:
        tournament, seats = await create(live, definition(9, 9, action_seconds=60), 9)
        (alice, token), others = seats[0], seats[1:]
        bots(live, tournament, others, "station")
        context = await browser.new_context(viewport={"width": 390, "height": 844})
        page = await context.new_page()
        width = "document.documentElement.scrollWidth"
        await page.goto(live.http + "/")
        await page.evaluate("localStorage.setItem('mttsim:admin', 'admin-token')")
        await page.evaluate(f"localStorage.setItem('mttsim:seat:{tournament}', "
                            f"JSON.stringify({{player_id: '{alice}', token: '{token}'}}))")
        await page.reload()
        await expect(page.locator(f"tr[data-id='{tournament}']")).to_be_visible()
        assert await page.evaluate(width) <= 390, "the lobby"
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await page.goto(live.http + f"/#/t/{tournament}")
        await my_turn(page)
        assert await page.evaluate(width) <= 390, "the table, on the player's turn"
        await expect(page.locator("#raise")).to_be_in_viewport()
        await tab(page, "console")
        await page.locator("summary", has_text="Cancel with refunds (admin)").click()
        await page.click("#preview-refunds")
        await expect(page.locator("#cancellation-preview tr[data-player]")).not_to_have_count(0)
        assert await page.evaluate(width) <= 390, "the refund preview"
        demo_id, demo_seats = await create(live, msgspec.to_builtins(demo), 12)
        bots(live, demo_id, demo_seats, "station")
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{demo_id}/start", headers=ADMIN)
            await page.goto(live.http + f"/#/t/{demo_id}")
            await expect(page.locator("#terms")).to_be_visible()  # the formats' banners, the bounties on seats
            await expect(page.locator(".seat .bounty").first).to_be_visible()
            assert await page.evaluate(width) <= 390, "the demo's table"
            await client.post(f"/api/tournaments/{demo_id}/hand-for-hand", headers=ADMIN, json={"on": True})
        await expect(page.locator(".banner", has_text="Hand-for-hand")).to_be_visible()
        assert await page.evaluate(width) <= 390, "the demo's table, hand-for-hand"
