"""The live lobby and its badges, filters and sorting; the tournament's tabs; the table's
pre-actions, presets, time bank, hand strength, winners, settings and motion; the chat with its mute; the hand
replayer; the director's console; and the smaller problems the issue lists (names in the log, the log across a
reload, refusals in words, the dealer button beside a long name, the add-on at once, no failed request).
"""

from __future__ import annotations

import asyncio
import json
import re
import tomllib

import httpx
import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import expect

from engine.events import Acted
from engine.history import hand_seat
from engine.structure import level_starts
from tests.browser import (
    ARTIFACTS,
    SIZES,
    alice_among_stations,
    my_turn,
    open_as,
    tab,
    watch_errors,
)
from tests.live_server import ADMIN, bots, create, definition, live_server, until
from tests.tournaments import AllBut, rig_winners

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def start(live, tournament: str) -> None:
    async with httpx.AsyncClient(base_url=live.http) as client:
        answer = await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        assert answer.status_code == 200, answer.text


def failed_requests(page) -> list[str]:
    """Every response of ``page`` with an error status (a favicon's 404 was one on every load)."""
    failures: list[str] = []
    page.on("response", lambda response: failures.append(f"{response.status} {response.url}")
            if response.status >= 400 else None)
    return failures


async def calling_until(page, selector: str, timeout: float = 60, text: re.Pattern[str] | None = None) -> None:
    """Alice checks or calls whenever it is her turn until ``selector`` shows on her page (holding ``text``)."""
    deadline = asyncio.get_running_loop().time() + timeout

    async def done() -> bool:
        nodes = page.locator(selector)
        return bool(await nodes.count()) and (text is None or bool(text.search(await nodes.first.inner_text())))

    while not await done():
        assert asyncio.get_running_loop().time() < deadline, f"no {selector} in {timeout} s"
        buttons = page.locator(".controls.mine").locator("#call, #check")
        if await buttons.count():
            await buttons.first.click()
        await page.wait_for_timeout(100)


async def test_the_lobby_is_live_with_badges_filters_and_sorting_and_no_page_polls_the_server(browser):
    async with live_server(hand_pause=0.2) as live:
        alpha, _ = await create(live, {**definition(6, 3), "name": "Alpha freezeout", "buy_in_cents": 3000}, 0)
        bravo, _ = await create(live, {**definition(6, 3), "name": "Bravo PKO re-buy",
                                       "rebuys": {"levels": 1, "price_cents": 1000, "chips": 1000},
                                       "bounty": {"cents": 500, "progressive_percent": 50}}, 0)
        charlie, seats = await create(live, {**definition(6, 3), "name": "Charlie satellite", "buy_in_cents": 2000,
                                             "satellite": {"seat_value_cents": 4000}}, 4)
        page = await (await browser.new_context(viewport=SIZES["desktop"])).new_page()
        errors, failures = watch_errors(page), failed_requests(page)
        requests: list[str] = []
        page.on("request", lambda request: requests.append(request.url) if "/api/" in request.url else None)
        await page.goto(live.http + "/")
        rows = page.locator("tr[data-id]")
        await expect(rows).to_have_count(3)
        await expect(page.locator(f"tr[data-id='{bravo}'] .badges")).to_contain_text("re-buy")
        await expect(page.locator(f"tr[data-id='{bravo}'] .badges")).to_contain_text("PKO")
        await expect(page.locator(f"tr[data-id='{charlie}'] .badges")).to_contain_text("satellite")
        await expect(page.locator(f"tr[data-id='{charlie}'] .pool")).to_have_text("$80.00")

        await page.fill("#filter-text", "bra")
        await expect(rows).to_have_count(1)
        await page.fill("#filter-text", "")
        await page.select_option("#filter-format", "satellite")
        await expect(rows).to_have_count(1)
        await expect(rows.first).to_have_attribute("data-id", charlie)
        await page.select_option("#filter-format", "freezeout")
        await expect(rows).to_have_count(2)
        await page.select_option("#filter-format", "")
        await page.click("th[data-sort='buy_in']")
        await expect(rows.first).to_have_attribute("data-id", bravo)  # $11.00, the cheapest
        await page.click("th[data-sort='buy_in']")
        await expect(rows.first).to_have_attribute("data-id", alpha)  # $31.00, the dearest, once reversed
        await page.screenshot(path=ARTIFACTS / "lobby-filters.png")

        # The lobby follows registrations and the start without a reload, and says the time left in the level.
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{alpha}/register", json={"name": "Zoe"})
        await expect(page.locator(f"tr[data-id='{alpha}']")).to_contain_text("1 / 1", timeout=5_000)
        bots(live, charlie, seats, "station", think=(0.2, 0.4))
        await start(live, charlie)
        await expect(page.locator(f"tr[data-id='{charlie}'] .status")).to_have_text("running", timeout=5_000)
        await expect(page.locator(f"tr[data-id='{charlie}'] .times")).to_contain_text("level 1")

        # A tournament's page asks the server for nothing while it plays: the board feed brings the changes.
        await page.goto(f"{live.http}/#/t/{charlie}/table/1")
        await expect(page.locator(".middle")).to_contain_text("Table 1")
        requests.clear()
        await page.wait_for_timeout(4_000)
        await expect(page.locator("#summary")).to_contain_text("Players left")
        assert requests == [], requests  # no polling (it cost the server 17-25 ms a call at 3,000 entries)
        await page.goto(f"{live.http}/#/t/no-such-id")  # refused for good: said once, not retried forever
        await expect(page.locator("#notice")).to_contain_text("The server refused this page")
        assert errors == [] and failures == []


async def test_what_the_admin_types_in_a_lobby_row_survives_the_updates_that_redraw_it(browser):
    async with live_server(hand_pause=0.2) as live:
        tournament, _ = await create(live, {**definition(9, 9), "name": "Typed into"}, 0)
        admin = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
        errors = watch_errors(admin)
        row = admin.locator(f"tr[data-id='{tournament}']")
        await admin.fill(f"tr[data-id='{tournament}'] .bot-count", "7")
        await admin.fill(f"tr[data-id='{tournament}'] .bot-mix", "station=1")  # the cursor stays in it
        async with httpx.AsyncClient(base_url=live.http) as client:  # someone registers: the row is drawn again
            await client.post(f"/api/tournaments/{tournament}/register", json={"name": "Zoe"})
        await expect(row).to_contain_text("1 / 1", timeout=5_000)
        await expect(row.locator(".bot-count")).to_have_value("7")
        await expect(row.locator(".bot-mix")).to_have_value("station=1")
        await expect(row.locator(".bot-mix")).to_be_focused()
        await admin.keyboard.type(",tag=1")  # typing goes on where it was
        await expect(row.locator(".bot-mix")).to_have_value("station=1,tag=1")
        # A number selected to be typed over stays selected through a redraw: "6" replaces the "7", not "76".
        await row.locator(".bot-count").select_text()
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/register", json={"name": "Yan"})
        await expect(row).to_contain_text("2 / 2", timeout=5_000)
        await admin.keyboard.type("6")
        await expect(row.locator(".bot-count")).to_have_value("6")
        await row.locator(".add-bots").click()
        await expect(row).to_contain_text("8 / 8", timeout=5_000)
        assert errors == []


async def test_the_info_tab_schedules_the_levels_with_the_hourly_break_inside_them(browser):
    # 20-minute levels, a 10-minute break at :30 of each hour: level 2 (0:20-0:40) holds it, so level 3 starts at
    # 0:50, as engine.structure.level_starts says, not at 0:40; a level counted in hands ends the schedule.
    levels = [{"small_blind": 10, "big_blind": 20, "minutes": 20}, {"small_blind": 20, "big_blind": 40, "minutes": 20},
              {"small_blind": 30, "big_blind": 60, "minutes": 20}, {"small_blind": 40, "big_blind": 80, "hands": 10},
              {"small_blind": 50, "big_blind": 100, "minutes": 20}]
    async with live_server() as live:
        body = {**definition(6, 6, levels=levels), "breaks": {"at_minute": 30, "minutes": 10}}
        tournament, _ = await create(live, body, 0)
        expected = level_starts(live.runtime(tournament).director.definition)
        assert expected == [0, 20, 50, 70, None]
        viewer = await open_as(browser, live, f"/#/t/{tournament}", {})
        await tab(viewer, "info")
        await expect(viewer.locator("#hourly-breaks")).to_contain_text("10-minute break at :30")
        cells = viewer.locator("table.structure tr td:nth-child(5)")
        await expect(cells).to_have_text(["0:00", "0:20", "0:50", "1:10", ""])
        # The refund rules in words, each stage a sentence, as the API gives them
        async with httpx.AsyncClient(base_url=live.http) as client:
            terms = (await client.get(f"/api/tournaments/{tournament}")).json()
        await expect(viewer.get_by_role("region", name="If the tournament is cancelled").locator("li")).to_have_text(
            terms["refund_terms"])


async def test_the_tournament_tabs_and_the_directors_console(browser):
    levels = [{"small_blind": 10, "big_blind": 20, "minutes": 10}, {"small_blind": 20, "big_blind": 40, "minutes": 10},
              {"small_blind": 30, "big_blind": 60, "ante": 60, "bb_ante": True, "minutes": 15}]
    async with live_server(hand_pause=0.2) as live:
        body = {**definition(6, 3, action_seconds=3, levels=levels), "breaks": {"every_levels": 2, "minutes": 5}}
        tournament, seats = await create(live, body, 6)
        live.runtime(tournament).entries.names["p4"] = "Dora the long-named explorer"
        bots(live, tournament, seats[1:], "station", think=(0.1, 0.2))
        await start(live, tournament)
        runtime = live.runtime(tournament)
        admin = await open_as(browser, live, f"/#/t/{tournament}", {"mttsim:admin": "admin-token"})
        errors = watch_errors(admin)
        viewer = await open_as(browser, live, f"/#/t/{tournament}", {})

        await tab(viewer, "info")
        await expect(viewer.locator("#table")).to_be_hidden()  # one tab at a time
        structure = viewer.locator("table.structure")
        await expect(structure).to_contain_text("30/60")
        await expect(structure.locator("tr.break-row")).to_contain_text("Break, 5 min")
        await expect(structure.locator("tr").nth(4)).to_contain_text("0:25")  # level 3 starts after 20 min + the break
        await expect(structure.locator("tr.break-row")).to_contain_text("0:20")
        assert "null" not in await viewer.locator("#info").inner_text()  # no hourly breaks: no stray "null"
        await tab(viewer, "players")
        await expect(viewer.locator("table.players tr[data-player]")).to_have_count(6)
        await viewer.fill("#player-search", "dora")
        await expect(viewer.locator("table.players tr[data-player]")).to_have_count(1)
        await expect(viewer.locator("table.players tr[data-player]")).to_contain_text("table")
        await tab(viewer, "tables")
        await expect(viewer.locator("table.tables tr[data-table]")).to_have_count(2)
        await viewer.locator("table.tables tr[data-table='2'] a.watch").click()
        await expect(viewer.locator(".middle")).to_contain_text("Table 2")
        await expect(viewer.locator(".controls.observer")).to_be_visible()

        # The console: announcements reach every page; hand-for-hand on demand; a seat sat out, then removed.
        await tab(admin, "console")
        await admin.fill("#announce-text", "Dinner break after level 2")
        await admin.click("#announce")
        await expect(viewer.locator("#announcement")).to_have_text("Director: Dinner break after level 2")
        await expect(viewer.locator("#log")).to_contain_text("Director: Dinner break after level 2")
        switch = admin.get_by_role("switch")
        await expect(switch).to_have_attribute("aria-checked", "false")
        await switch.click()
        await expect(viewer.locator("#banner")).to_contain_text("Hand-for-hand", timeout=10_000)
        await expect(switch).to_have_attribute("aria-checked", "true")
        await expect(admin.locator("#h4h-state")).to_have_text(re.compile("^On, by the director"))
        await switch.click()
        await expect(admin.locator("#console-result")).to_have_text(
            re.compile("Let go: hand-for-hand ends after the round under way.|Hand-for-hand is off."))
        await expect(viewer.locator("#banner")).not_to_contain_text("Hand-for-hand", timeout=20_000)
        await expect(switch).to_have_attribute("aria-checked", "false")
        await admin.fill("#console-player", "bot 0")  # by name, as a director knows them
        await expect(admin.locator("#console-chosen")).to_have_text(re.compile(r"^bot 0 \(p1\) · table \d · "))
        await admin.click("#sit-out")
        await expect(admin.locator("#console-result")).to_have_text("bot 0 (p1) is sitting out.")
        assert "p1" in runtime.tables.sitting_out
        questions: list[str] = []

        async def answer(dialog):
            questions.append(dialog.message)
            await (dialog.dismiss() if len(questions) == 1 else dialog.accept())

        admin.on("dialog", answer)
        await admin.fill("#console-player", "p4")  # or by id
        await admin.click("#remove-refund")  # dismissed: nothing happens
        assert "p4" in runtime.director.stacks
        await admin.click("#remove-refund")
        await expect(admin.locator("#console-result")).to_contain_text(
            re.compile("Dora the long-named explorer \\(p4\\) (is removed|will be removed when their hand ends); "
                       "their buy-in and fee are refunded."))
        await until(lambda: "p4" not in runtime.director.stacks, timeout=20)
        assert questions[1].startswith("Remove Dora the long-named explorer")
        await expect(viewer.locator("#summary")).to_contain_text("5 / 6", timeout=5_000)
        await admin.click("#add-minute")
        await expect(admin.locator("#console-result")).to_contain_text("Added 60 s")
        await admin.screenshot(path=ARTIFACTS / "console-done.png")
        assert errors == []


async def test_pre_actions_presets_time_bank_strength_winners_settings_and_motion(browser):
    async with live_server(hand_pause=1.5) as live:
        tournament, seats = await create(live, definition(3, 3, action_seconds=60, time_bank_seconds=20), 3)
        (alice, token), others = seats[0], seats[1:]
        bots(live, tournament, others, "station", think=(0.6, 0.8))
        context = await browser.new_context(viewport=SIZES["desktop"])
        # Count the sounds made: none until the player turns them on (off by default).
        await context.add_init_script("""window.tones = 0; const Real = window.AudioContext;
            window.AudioContext = class extends Real {
              createOscillator() { window.tones++; return super.createOscillator(); } };""")
        # Whenever a pot's winner is lit, what the bar offers then (the hand has no decision left).
        await context.add_init_script("""window.endings = [];
            new MutationObserver(() => {
              if (document.querySelector('.seat.winner')) window.endings.push({
                boxes: document.querySelector('.pre-actions') !== null,
                inHand: document.querySelector('.seat.me:not(.folded) .card') !== null });
            }).observe(document, { childList: true, subtree: true });""")
        page = await context.new_page()
        await page.goto(live.http + "/")
        await page.evaluate("([k, v]) => localStorage.setItem(k, v)",
                            [f"mttsim:seat:{tournament}", json.dumps({"player_id": alice, "token": token})])
        await page.goto(f"{live.http}/#/t/{tournament}")
        errors = watch_errors(page)
        await start(live, tournament)
        runtime = live.runtime(tournament)

        def alices() -> list[str]:
            return [e.action for _, e in runtime.log if isinstance(e, Acted) and e.player == alice]

        await expect(page.locator("#time-bank")).to_contain_text("Time bank 20s", timeout=20_000)  # always shown
        await expect(page.locator("#strength")).not_to_be_empty(timeout=20_000)
        # A pre-action box ticked before her turn acts when it comes.
        box = page.locator(".pre-actions #pre-call_any")
        while True:
            await calling_until(page, ".pre-actions")
            before = len(alices())
            try:
                await box.click(timeout=1_000)
                if await box.is_checked(timeout=500):
                    break
            except PlaywrightTimeout:
                continue  # her turn came first: try again in the next hand
        await until(lambda: len(alices()) > before, timeout=30)
        assert alices()[before] in ("call", "check")
        assert await page.evaluate("window.tones") == 0

        # Her own presets, the 4-colour deck and sounds, from the table's settings.
        await page.locator(".table-settings summary").click()
        await page.fill("#presets", "3bb, pot")
        await page.locator("#presets").press("Tab")
        await page.check("#pref-fourColour")
        await page.check("#pref-sounds")
        assert await page.evaluate("document.body.classList.contains('four-colour')")
        await my_turn(page)
        if await page.locator("#raise").count():
            await page.click("text=3 BB")
            assert int(await page.locator("#amount").input_value()) >= 60
        await page.locator("#call, #check").first.click()
        await calling_until(page, ".controls.mine")
        await page.wait_for_function("window.tones > 0", timeout=10_000)  # her turn made a sound
        await calling_until(page, ".seat.winner")  # each pot's winner lit up
        # Her cards still shown at the hand's end, no box to tick for a hand that has no decision left.
        endings = await page.evaluate("window.endings")
        assert any(ending["inHand"] for ending in endings), endings
        assert not any(ending["boxes"] for ending in endings), endings
        await calling_until(page, "#log", text=re.compile(r"wins? [\d,]+ with \w"))  # and the hand named
        await expect(page.locator(".seat.winner .won").first).to_contain_text("wins")
        await calling_until(page, ".card.suit-c")
        await expect(page.locator(".card.suit-c").first).to_have_css("color", "rgb(29, 122, 44)")
        assert await page.locator(".dealt").first.evaluate("node => getComputedStyle(node).animationName") == "deal"
        reduced = await (await browser.new_context(viewport=SIZES["desktop"], reduced_motion="reduce")).new_page()
        await reduced.goto(f"{live.http}/#/t/{tournament}/table/1")
        await expect(reduced.locator(".dealt").first).to_be_attached(timeout=20_000)
        # Retried: under load a redraw can replace the node between locating and reading it (an empty style).
        await expect(reduced.locator(".dealt").first).to_have_css("animation-name", "none")
        assert errors == []


async def test_chat_between_players_with_a_mute_and_observers_read_only(browser):
    async with live_server(hand_pause=0.3) as live:
        tournament, seats = await create(live, definition(3, 3, action_seconds=60), 3)
        (alice, alice_token), (bob, bob_token), station = seats
        bots(live, tournament, [station], "station")
        live.runtime(tournament).entries.names.update({alice: "Alice", bob: "Bob"})
        pages = {}
        for who, player, token in (("alice", alice, alice_token), ("bob", bob, bob_token)):
            pages[who] = await open_as(browser, live, f"/#/t/{tournament}", {
                f"mttsim:seat:{tournament}": json.dumps({"player_id": player, "token": token})})
        await start(live, tournament)
        observer = await open_as(browser, live, f"/#/t/{tournament}/table/1", {})
        await expect(observer.locator("#chat-input")).to_be_disabled(timeout=20_000)
        await expect(observer.locator("#chat-input")).to_have_attribute("placeholder", "observers read only")
        await pages["bob"].fill("#chat-input", "nice hand")
        await pages["bob"].locator("#chat-input").press("Enter")
        await expect(pages["alice"].locator("#chat-lines")).to_contain_text("Bob: nice hand", timeout=10_000)
        await expect(observer.locator("#chat-lines")).to_contain_text("Bob: nice hand")
        await pages["alice"].locator(f".chat-line[data-player='{bob}'] .mute").click()
        await expect(pages["alice"].locator("#chat-lines")).not_to_contain_text("nice hand")
        await pages["bob"].fill("#chat-input", "still there?")
        await pages["bob"].locator("#chat-input").press("Enter")
        await expect(observer.locator("#chat-lines")).to_contain_text("still there?", timeout=10_000)
        await asyncio.sleep(0.5)
        await expect(pages["alice"].locator("#chat-lines")).not_to_contain_text("still there?")
        await pages["alice"].screenshot(path=ARTIFACTS / "chat.png")
        await pages["bob"].reload()  # a reconnect keeps the table's chat, oldest first
        await expect(pages["bob"].locator(".chat-line")).to_have_text(["Bob: nice hand", "Bob: still there?"],
                                                                    timeout=10_000)
        await pages["bob"].locator("#chat-lines").scroll_into_view_if_needed()
        await pages["bob"].screenshot(path=ARTIFACTS / "chat-reconnected.png")


async def test_names_in_the_log_the_log_across_a_reload_refusals_in_words_and_the_replayer_hides_cards(browser):
    async with live_server(hand_pause=0.3) as live:
        tournament, seats = await create(live, definition(3, 3, action_seconds=30), 3)
        (alice, token), others = seats[0], seats[1:]
        runtime = live.runtime(tournament)
        runtime.entries.names[alice] = "Alice"
        rig_winners(runtime.director, AllBut(alice))
        bots(live, tournament, others, "tag")  # they fold what they cannot play: their cards stay hidden
        page = await open_as(browser, live, f"/#/t/{tournament}", {
            f"mttsim:seat:{tournament}": json.dumps({"player_id": alice, "token": token})})
        errors = watch_errors(page)
        await until(lambda: all(runtime.streams.connected(player) for player, _ in seats))  # everyone at the table
        await start(live, tournament)
        deadline = asyncio.get_running_loop().time() + 60
        while alice in runtime.director.stacks:  # all-in whenever it is her turn, until she is out
            assert asyncio.get_running_loop().time() < deadline
            if await page.locator(".controls.mine #raise").count():
                await page.click("text=All-in")
                await page.click("#raise")
            await page.wait_for_timeout(100)
        await expect(page.locator("#log")).to_contain_text(re.compile("You are out in place [23]"), timeout=20_000)
        text = await page.locator("#log").inner_text()
        assert alice not in text.split() and "p2 " not in text and "p3 " not in text  # names, never ids
        await page.reload()
        await expect(page.locator("#log")).to_contain_text("You are out in place")  # the log survives a reload

        # Her hands, replayed street by street: the others' cards face down unless shown at the table.
        await tab(page, "hands")
        links = page.locator(".hand-link")
        await expect(links.first).to_be_visible(timeout=10_000)
        hidden = 0
        for index in range(await links.count()):
            number = int(await links.nth(index).get_attribute("data-hand"))
            truth = tomllib.loads(live.app.state.server.storage.hand(tournament, number))  # the admin's, every card
            showed = {truth["players"][int(a.split()[0][1:]) - 1] for a in truth["actions"] if a.split()[1:2] == ["sm"]}
            await links.nth(index).click()
            await page.click("#replay-end")
            await expect(page.locator("#replay-step")).to_contain_text("Finished")
            for player in truth["players"]:
                face_up = page.locator(f".replay-seats tr[data-player='{player}'] .hole .card:not(.back)")
                seen = player == alice or player in showed
                await expect(face_up).to_have_count(2 if seen else 0)
                hidden += not seen
        assert hidden, "no hand had a card to hide"

        # Each row as rooms list a hand: her position, her cards, the board and what she won or lost, as her
        # history says; and the hands she folded before the flop hidden on request.
        rows = page.locator("tr.hand-row")
        for index in range(await rows.count()):
            row = rows.nth(index)
            line = hand_seat(live.app.state.server.storage.hand(tournament, int(await row.get_attribute("data-hand"))),
                             alice)
            await expect(row.locator(".position")).to_have_text(line.position)
            await expect(row.locator(".hole .card:not(.back)")).to_have_count(2)
            await expect(row.locator(".board .card")).to_have_count(len(line.board))
            net = f"+{line.net:,}" if line.net > 0 else f"−{-line.net:,}" if line.net < 0 else "0"
            await expect(row.locator(".net")).to_have_text(net)
        folded = await page.locator("tr.hand-row.folded-preflop").count()
        await page.get_by_label("Only hands I played").check()
        await expect(page.locator("tr.hand-row:visible")).to_have_count(await rows.count() - folded)
        await page.get_by_label("Only hands I played").uncheck()
        await page.screenshot(path=ARTIFACTS / "hands-tab.png")
        await page.click("#replay-start")
        await expect(page.locator("#replay-step")).to_have_text("Blinds and antes; the cards are dealt")
        face_up = page.locator(".replay-seats .hole .card:not(.back)")
        await expect(face_up).to_have_count(2)  # hers alone, until a showdown
        await expect(page.locator(f".replay-seats tr[data-player='{alice}'] .hole .card:not(.back)")).to_have_count(2)
        await page.click("#replay-next")
        await expect(page.locator("#replay-step")).not_to_have_text("Blinds and antes; the cards are dealt")
        await page.screenshot(path=ARTIFACTS / "replay-desktop.png")

        # Her results: the field, her place and her knockouts.
        await tab(page, "payouts")
        result = runtime.director.results[alice]
        knockouts = runtime.director.knockouts.get(alice, 0)
        await expect(page.locator("#results-summary")).to_contain_text(
            f"you finished {'3rd' if result.place == 3 else '2nd'} of 3")
        await expect(page.locator("#results-summary")).to_contain_text(
            f"with {knockouts} knockout{'' if knockouts == 1 else 's'}")

        # A refused registration says what to fix, never a validator's words.
        lobby = await open_as(browser, live, "/", {})
        other, _ = await create(live, definition(3, 3), 0)
        await lobby.locator(f"tr[data-id='{other}'] button.register").click()
        await expect(lobby.locator("#message")).to_have_text("name: required")
        assert errors == []


async def test_the_dealer_button_stays_in_sight_beside_a_long_name(browser):
    async with live_server(hand_pause=0.5) as live:
        tournament, seats = await create(live, definition(2, 2, action_seconds=30), 2)
        markup = '<b>Max</b><img src=x onerror="window.pwned=1">'  # a name is text on the page, never markup
        for player, name in zip([player for player, _ in seats], ["Maximilian Alexander von Long-Named Player",
                                                                   markup]):
            live.runtime(tournament).entries.names[player] = name
        bots(live, tournament, seats, "station", think=(1.0, 1.0))
        await start(live, tournament)
        for size in SIZES:
            page = await (await browser.new_context(viewport=SIZES[size])).new_page()
            await page.goto(f"{live.http}/#/t/{tournament}/table/1")
            await expect(page.locator(".seat .dealer")).to_be_visible(timeout=20_000)
            # Found and measured in one task of the page: a locator's node can be replaced by a redraw of the
            # table between Playwright finding it and measuring it, and a detached node measures 0 x 0 at 0, 0.
            on_top = await page.evaluate("""() => { const node = document.querySelector(".seat .dealer");
                const box = node.getBoundingClientRect();
                return document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === node; }""")
            assert on_top, f"the button is covered or clipped at {size}"
            await expect(page.locator(".seat").filter(has_text=markup)).to_have_count(1)
            assert await page.locator(".seat img, .seat b").count() == 0
            assert await page.evaluate("window.pwned") is None


async def test_the_add_on_is_offered_at_once_not_at_the_next_deal(browser):
    levels = [{"small_blind": 10, "big_blind": 20, "minutes": 0.05},
              {"small_blind": 20, "big_blind": 40, "minutes": 60}]
    body = definition(3, 3, action_seconds=30, levels=levels,
                      rebuys={"levels": 1, "price_cents": 1000, "chips": 3000},
                      add_on={"price_cents": 500, "chips": 5000, "offer_seconds": 60})
    async with live_server(hand_pause=30) as live:  # no second deal in this test
        tournament, alice, page = await alice_among_stations(live, browser, body, 3)
        await start(live, tournament)
        await my_turn(page)
        await page.locator("#fold, #check").first.click()
        await expect(page.locator("#add-on-dialog")).to_contain_text("5,000 chips for $5.00", timeout=20_000)
        assert live.runtime(tournament).director.hands_played <= 1
        assert "Hand #2" not in await page.locator("#log").inner_text()


async def test_an_event_of_another_table_is_set_aside_not_applied_nor_taken_for_a_gap(browser):
    """In a cluster the table a player's move left is another process, whose last events (the move itself) can
    reach the player after the new table's snapshot: applied to the new table they could take the player's own
    seat away, and taken for a gap they cost a snapshot."""
    async with live_server() as live:
        page = await browser.new_page()
        await page.goto(f"{live.http}/")
        answers = await page.evaluate("""async () => {
            const { TableState } = await import("/state.js");
            const state = new TableState();
            state.snapshot({ seq: 10, table: { id: 2, seats: [{ seat: 0, player: "p1", name: "Ada" }] },
                             you: { player: "p1", name: "Ada" }, tournament: {} });
            const moved = { type: "player_moved", player: "p1", from_table: 1, to_table: 2, seat: 0 };
            return [state.numbered({ seq: 11, table: 1, event: moved }), state.seq, state.seat("p1") !== undefined,
                    state.numbered({ seq: 12, table: 2, event: moved }), state.seq,
                    state.numbered({ seq: 11, table: 2, event: { type: "presence", player: "p1", connected: true } }),
                    state.seq];
        }""")
        assert answers == [None, 10, True, False, 10, True, 11]


async def test_a_page_going_on_through_another_gateway_skips_every_entry_it_cannot_parse(browser):
    """A gateway list with a bad entry made ``nextGateway`` throw, so the page stopped reconnecting for good. The
    page takes only http(s) origins with no user information from the list, whatever the director sends."""
    async with live_server() as live:
        page = await (await browser.new_context(viewport=SIZES["desktop"])).new_page()
        errors = watch_errors(page)
        good = "http://127.0.0.1:9/"
        listed = ["not a url", "javascript:alert(1)", "http://player@127.0.0.1:8/", "ftp://127.0.0.1:7/", good]
        asked: list[str] = []

        async def answer(route) -> None:
            asked.append(route.request.url)
            await route.fulfill(json={"gateways": listed})

        await page.route("**/api/gateways", answer)
        await page.goto(live.http + "/")
        origins = await page.evaluate("""async (listed) => {
            const net = await import('/net.js');
            window.lobbySocket = await new Promise((resolve) => {
                const socket = new net.Socket('/ws/lobby', { onMessage() {}, onOpen: () => resolve(socket) });
            });
            window.lobbySocket.stop();
            return listed.map(net.gatewayOrigin);
        }""", listed)
        assert origins == [None, None, None, None, good]
        await until(lambda: bool(asked))
        went_to: list[str | None] = []
        for _ in range(100):  # the list is read once its answer has come: until then the page's own is the only one
            went_to.append(await page.evaluate(
                "() => { lobbySocket.base = null; lobbySocket.nextGateway(); return lobbySocket.base; }"))
            if went_to[-1] is not None:
                break
        assert went_to[-1] == good
        assert not errors, errors
