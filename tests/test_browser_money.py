"""Money in the browser: the re-buy and add-on dialogs, an ICM deal, and an admin's cancellation with its refunds.

Chromium (Debian's, through Playwright) against a real server on 127.0.0.1; screenshots go to test-artifacts/.
"""

from __future__ import annotations

import asyncio

import json

import httpx
import pytest
from playwright.async_api import TimeoutError as PlaywrightTimeout
from playwright.async_api import expect

from server.tournament.records import ProposeDeal
from tests.browser import (
    ARTIFACTS, alice_among_stations, grave_violations, my_turn, open_as, small_targets, tab, watch_errors,
)
from tests.live_server import ADMIN, admin, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")


async def losing_alice(live, browser, body):
    """Alice (p1) plays in the browser against two calling stations, always with the worst cards."""
    return await alice_among_stations(live, browser, body, 3, rig=True, name="Alice")


async def test_rebuy_and_add_on_dialogs_then_a_cancellation_whose_refunds_the_page_shows(browser):
    ARTIFACTS.mkdir(exist_ok=True)
    body = definition(3, 3, action_seconds=4, stack=3000,
                      rebuys={"levels": 1, "price_cents": 1000, "fee_cents": 100, "chips": 3000},
                      add_on={"price_cents": 500, "chips": 5000, "offer_seconds": 30},
                      levels=[{"small_blind": 10, "big_blind": 20, "hands": 3},
                              {"small_blind": 20, "big_blind": 40, "minutes": 60}],
                      refund_policy={"name": "B"})
    async with live_server(hand_pause=0.3) as live:
        tournament, alice, person = await losing_alice(live, browser, body)
        admin = await open_as(browser, live, f"/#/t/{tournament}", {"mttsim:admin": "admin-token"})
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)

        # Alice goes all-in with the worst cards and busts: the re-buy dialog, with its clock.
        await my_turn(person)
        await person.click("text=All-in")
        await person.click("#raise")
        await expect(person.locator("#rebuy-dialog")).to_contain_text("Re-buy 3,000 chips for $11.00", timeout=20_000)
        await person.screenshot(path=ARTIFACTS / "rebuy.png")
        await person.click("#rebuy")
        await expect(person.locator("#log")).to_contain_text("You re-buy 3,000 chips")

        # The period ends after three hands: everyone is offered the add-on.
        await expect(person.locator("#add-on-dialog")).to_contain_text("5,000 chips for $5.00", timeout=30_000)
        await person.click("#add-on")
        await expect(person.locator("#log")).to_contain_text("You add on 5,000 chips")
        director = live.runtime(tournament).director
        assert director.ledger.paid_by(alice) == {"buy_in": 1000, "fee": 100, "rebuy": 1000, "rebuy_fee": 100,
                                                  "add_on": 500}

        # The admin previews the refunds under policy A, then cancels with the tournament's own (B).
        await tab(admin, "console")
        await admin.click("text=Cancel with refunds (admin)")
        await admin.select_option("#policy", "A")
        await admin.click("#preview-refunds")
        await expect(admin.locator("#cancellation-preview .refund-list tr[data-player]")).not_to_have_count(0)
        await admin.select_option("#policy", "")

        async def confirm(dialog):
            await dialog.accept()

        admin.once("dialog", confirm)  # a destructive action asks first
        await admin.click("#cancel-tournament")
        await expect(admin.locator("#refunds .refund-list")).to_be_visible(timeout=10_000)
        await admin.screenshot(path=ARTIFACTS / "refunds.png")
        shown = {await row.get_attribute("data-player"): int(await row.locator(".cents").get_attribute("data-cents"))
                 for row in await admin.locator("#refunds tr[data-player]").all()}
        total = int(await admin.locator("#refund-total").get_attribute("data-cents"))
        ledger = director.ledger.summary()
        assert total == sum(shown.values()) == ledger["refunds"]
        assert ledger["paid_in"] == ledger["refunds"] + ledger["fees_kept"] and ledger["held"] == 0
        assert shown == {p: director.ledger.received_by(p) for p in shown}
        await expect(person.locator("#log")).to_contain_text("The tournament is cancelled")


async def final_table_in_the_money(live, browser, *, action_seconds: float = 4, deal_seconds: float = 20,
                                   viewport: dict[str, int] | None = None):
    """Alice in the browser with two calling stations, three paid, deals allowed, started; the stations press
    Deal and accept whatever is proposed. Returns the runtime, Alice's id, her page and the stations' ids."""
    levels = [{"small_blind": 10, "big_blind": 20, "minutes": 60}, {"small_blind": 20, "big_blind": 40, "minutes": 60}]
    body = definition(3, 3, action_seconds=action_seconds, paid=3, deals=True, deal_seconds=deal_seconds,
                      levels=levels)
    tournament, seats = await create(live, body, 3)
    (alice, token), others = seats[0], seats[1:]
    bots(live, tournament, others, "station")
    person = await open_as(browser, live, f"/#/t/{tournament}", {
        f"mttsim:seat:{tournament}": json.dumps({"player_id": alice, "token": token})}, viewport=viewport)
    async with httpx.AsyncClient(base_url=live.http) as client:
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
    return live.runtime(tournament), alice, person, [player for player, _ in others]


async def test_a_deal_in_the_browser(browser):
    async with live_server(hand_pause=0.3) as live:
        runtime, _, person, _ = await final_table_in_the_money(live, browser)
        await person.click("#press-deal", timeout=20_000)
        await expect(person.locator("#deal-dialog")).to_contain_text("Deal proposal (ICM)", timeout=20_000)
        await person.screenshot(path=ARTIFACTS / "deal.png")
        assert await small_targets(person, "#deal-dialog button") == []  # Accept and Reject, for a thumb
        proposal = runtime.director.proposal
        assert proposal is not None and sum(proposal.amounts.values()) == 3000
        await person.click("#accept-deal")
        await expect(person.locator("#log")).to_contain_text("The tournament is finished", timeout=10_000)
        assert {r.player: r.prize_cents for r in runtime.director.standings()} == proposal.amounts
        await tab(person, "payouts")  # the results tab shows what the deal paid, not the prize table
        for cents in proposal.amounts.values():
            await expect(person.locator("#payouts")).to_contain_text(f"${cents / 100:,.2f}")


async def check_or_fold_until(person, done) -> None:
    """Alice checks or folds at each of her turns (her clock is long) until ``done()``."""
    while not done():
        try:
            bar = await person.wait_for_selector(".controls.mine", timeout=200)
        except PlaywrightTimeout:
            continue  # not her turn: the stations play on
        assert bar is not None
        button = await bar.query_selector("#check, #fold")
        if button is not None:
            await button.click()
        await person.wait_for_function("bar => !bar.isConnected", arg=bar, timeout=20_000)  # that turn is over


async def test_a_deal_proposed_during_a_hand_is_shown_at_once_and_comes_with_the_hands_stacks(browser):
    async with live_server(hand_pause=0.3) as live:
        runtime, alice, person, stations = await final_table_in_the_money(live, browser, action_seconds=120)
        await my_turn(person)  # a hand in progress, which waits for Alice
        await person.get_by_text("Propose a deal…").click()
        await person.get_by_label("kind of deal").select_option("chip_chop")
        await person.get_by_role("button", name="Propose").click()
        news = person.locator("#deal-news")
        await expect(news).to_have_text("You proposed a chip chop deal: it is on the table when this hand ends.")
        await expect(person.get_by_text("Propose a deal…")).to_be_hidden()  # one at a time, and nobody unaware
        await expect(person.locator("#log")).to_contain_text("You propose a deal (chip chop): it is on the table")
        assert runtime.director.proposal is None and runtime.director.deal_terms is not None
        await check_or_fold_until(person, lambda: runtime.director.ended_by_deal)  # the deal comes at the hand's end
        await expect(person.locator("#log")).to_contain_text("Deal proposed (chip chop by you)")
        await expect(news).to_have_count(0)
        assert runtime.director.ended_by_deal and sum(r.prize_cents for r in runtime.director.standings()) == 3000


DEAL_SIZES = [(1366, 900), (390, 844), (360, 640), (844, 390), (667, 375)]


async def test_a_deal_on_the_table_stands_above_the_bar_with_icm_beside_it_and_the_level_clock_still(browser):
    """Another player proposes a chip chop between hands; Alice's dialog shows what ICM would pay beside it, stands
    above a phone's bar with Accept and Reject uncovered (at four phone sizes and a desktop's), says the level's
    clock waits, and the tournament's header and the clock screen show it stopped; axe finds nothing serious with
    it open."""
    async with live_server(hand_pause=0.3) as live:
        runtime, alice, person, stations = await final_table_in_the_money(live, browser, action_seconds=120,
                                                                          deal_seconds=600)
        errors = watch_errors(person)
        await my_turn(person)
        await admin(live, runtime.id, "pause")  # between hands, for the proposal to come at once
        director = runtime.director
        await check_or_fold_until(person, lambda: all(director.hand(t) is None for t in director.tables))
        runtime.submit(ProposeDeal(stations[0], "chip_chop", 0, None))
        await admin(live, runtime.id, "resume")  # no hand is dealt while the deal is open
        dialog = person.locator("#deal-dialog")
        await expect(dialog).to_contain_text("Deal proposal (chip chop)", timeout=20_000)
        proposal = runtime.director.proposal
        assert proposal is not None and proposal.icm_cents is not None
        await expect(dialog.locator("th")).to_have_text(["Player", "Chips", "Deal", "ICM"])
        await expect(dialog.locator(".deal-icm")).to_have_text(
            [f"${proposal.icm_cents[p] / 100:,.2f}" for p in proposal.amounts])
        await expect(person.locator("#deal-news")).to_have_text(
            "The players are deciding on a deal: play and the level's clock wait until it is settled.")
        await expect(person.locator(".summary")).to_contain_text("(deal: stopped)")
        for width, height in DEAL_SIZES:
            await person.set_viewport_size({"width": width, "height": height})
            await person.evaluate("new Promise((drawn) => requestAnimationFrame(() => requestAnimationFrame(drawn)))")
            for button in ("#accept-deal", "#reject-deal"):
                # Scrolled to as a person would (a desktop's dialog is below the table): on a phone, under the bar
                # is where scrolling to it would leave it, were it not above the bar.
                on_top = await person.evaluate("""(selector) => { const node = document.querySelector(selector);
                    node.scrollIntoView({ block: "nearest" });
                    const box = node.getBoundingClientRect();
                    return box.bottom <= innerHeight && box.top >= 0
                        && document.elementFromPoint(box.x + box.width / 2, box.y + box.height / 2) === node; }""",
                                               button)
                assert on_top, f"{button} is covered or out of sight at {width}x{height}"
            assert await small_targets(person, "#deal-dialog button") == [], (width, height)
            assert await grave_violations(person) == [], (width, height)
            await person.screenshot(path=ARTIFACTS / f"deal-open-{width}x{height}.png")
        # the clock screen says why the level's clock stands, and shows the time it stands at
        clock = await open_as(browser, live, f"/#/t/{runtime.id}/clock", {}, viewport={"width": 1366, "height": 900})
        await expect(clock.locator("#clock-state")).to_have_text("Paused: the players are deciding on a deal")
        async with httpx.AsyncClient(base_url=live.http) as client:
            left = (await client.get(f"/api/tournaments/{runtime.id}")).json()["level_ends_in"]
        await expect(clock.locator("#clock-time")).to_have_text(f"{int(left // 60)}:{int(left % 60):02d}")
        await person.click("#reject-deal")
        await expect(person.locator("#log")).to_contain_text("No deal (You said no)", timeout=10_000)
        await expect(person.locator("#deal-news")).to_have_count(0)
        assert runtime.director.proposal is None and errors == []


async def test_a_custom_deal_typed_in_the_browser(browser):
    async with live_server(hand_pause=0.3) as live:
        runtime, alice, person, stations = await final_table_in_the_money(live, browser)
        await person.get_by_text("Propose a deal…").click(timeout=20_000)
        await person.get_by_label("kind of deal").select_option("custom")
        typed = dict(zip([alice, *stations], ("15", "10", "5")))
        # Typing goes on in the same field while the action bar is drawn anew for the next turn or hand.
        own = person.locator(f".deal-amount[data-player='{alice}']")
        await own.click()
        await person.keyboard.type("1")
        bar = await person.evaluate_handle("document.querySelector('.controls')")
        await person.wait_for_function("bar => !bar.isConnected", arg=bar, timeout=20_000)
        await person.keyboard.type("5")
        await expect(own).to_have_value("15")
        # Paused between hands, the stacks stand still: the form's figures are the API's, read again as the
        # amount kept is typed.
        await admin(live, runtime.id, "pause")
        await until(lambda: all(runtime.director.hand(t) is None for t in runtime.director.tables))
        await person.get_by_label("kept for the winner").fill("0")
        async with httpx.AsyncClient(base_url=live.http) as client:
            figures = (await client.get(f"/api/tournaments/{runtime.id}/deal-figures?keep_cents=0")).json()
        await expect(person.locator("#deal-split")).to_have_text("To split: $30.00 of the $30.00 pool")
        for player in typed:
            for kind, key in (("stack", "stacks"), ("icm", "icm_cents"), ("chop", "chip_chop_cents")):
                value = figures[key][player]
                shown = f"{value:,}" if kind == "stack" else f"${value / 100:,.2f}"
                await expect(person.locator(f".deal-{kind}[data-player='{player}']")).to_have_text(shown)
        assert sum(figures["icm_cents"].values()) == sum(figures["chip_chop_cents"].values()) == 3000
        # The total is checked as it is typed, in dollars: Propose waits until it is the sum to split.
        await person.fill(f".deal-amount[data-player='{stations[1]}']", "4")
        await person.fill(f".deal-amount[data-player='{stations[0]}']", "10")
        await expect(person.locator("#deal-total")).to_have_text("Total $29.00: $1.00 left to share.")
        await expect(person.get_by_role("button", name="Propose")).to_be_disabled()
        for player, dollars in list(typed.items())[1:]:
            await person.fill(f".deal-amount[data-player='{player}']", dollars)
        await expect(person.locator("#deal-total")).to_have_text("Total $30.00: it adds up.")
        await person.screenshot(path=ARTIFACTS / "deal-custom.png")
        await person.set_viewport_size({"width": 360, "height": 640})  # the form in a hand: nothing sideways
        await expect(person.get_by_role("button", name="Propose")).to_be_enabled()
        assert await person.evaluate("document.documentElement.scrollWidth <= innerWidth")
        assert await small_targets(person, "#propose-deal, .deal-amount, #deal-keep, #deal-kind") == []
        await person.get_by_role("button", name="Propose").scroll_into_view_if_needed()
        await person.screenshot(path=ARTIFACTS / "deal-custom-360x640.png")
        await person.click("#propose-deal")
        await expect(person.locator("#log")).to_contain_text("Deal proposed (custom by you)", timeout=10_000)
        await expect(person.locator("#log")).to_contain_text("The tournament is finished", timeout=10_000)
        assert {r.player: r.prize_cents for r in runtime.director.standings()} == {
            player: int(dollars) * 100 for player, dollars in typed.items()}
        first = runtime.director.standings()[0]  # places follow the stacks
        await expect(person.locator("#winner")).to_have_text(
            f"Ended in a deal: {runtime.entries.name(first.player)} first, for ${first.prize_cents / 100:,.2f}")
        await tab(person, "payouts")
        await expect(person.locator("#payouts th")).to_have_text(["Place", "Player", "Prize"])
        await expect(person.locator("#results-summary")).to_contain_text("ended in a deal")


async def test_every_seat_shows_its_bounty_and_the_log_the_knockouts(browser):
    body = definition(3, 3, action_seconds=4, bounty={"cents": 400, "progressive_percent": 50})
    async with live_server(hand_pause=0.3) as live:
        tournament, alice, person = await losing_alice(live, browser, body)
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await expect(person.locator(".seat .bounty")).to_have_count(3, timeout=20_000)
        await expect(person.locator(".seat.me .bounty")).to_contain_text("$4.00")
        await person.screenshot(path=ARTIFACTS / "bounties.png")
        await my_turn(person)
        await person.click("text=All-in")
        await person.click("#raise")  # with the worst cards: a station covers her and takes her bounty
        await expect(person.locator("#log")).to_contain_text("for knocking out you", timeout=20_000)


async def test_a_second_entry_from_the_lobby_plays_on_its_own_page(browser):
    body = definition(6, 3, entries_per_person=2)
    async with live_server() as live:
        async with httpx.AsyncClient(base_url=live.http) as client:
            tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        page = await open_as(browser, live, "/", {})
        await page.fill(".name-input", "Ann")
        await page.click(".register")
        await expect(page.locator("tr[data-id]")).to_contain_text("Registered as Ann")
        await page.click(".another-entry")
        await expect(page.locator(".more-entry")).to_have_text(" and p2")
        runtime = live.runtime(tournament)
        assert runtime.director.person("p2") == runtime.director.person("p1") == "p1"
        await page.click(".more-entry")
        await expect(page.locator("#status")).to_contain_text("playing as Ann (p2)")


async def test_the_page_says_what_a_satellite_and_a_flight_are(browser):
    async with live_server(hand_pause=0.5) as live:
        satellite, seats = await create(live, definition(6, 3, satellite={"seat_value_cents": 2200}), 6)
        flight, _ = await create(live, definition(6, 3, flight={"stop_share_percent": 50}), 2)
        bots(live, satellite, seats, "station")
        async with httpx.AsyncClient(base_url=live.http) as client:
            await until(lambda: len([p for p, c in live.runtime(satellite).streams.players.items() if c]) == 6)
            await client.post(f"/api/tournaments/{satellite}/start", headers=ADMIN)
        page = await open_as(browser, live, f"/#/t/{satellite}", {})
        await expect(page.locator("#banner")).to_contain_text("Satellite: every seat is worth $22.00")
        await expect(page.locator("#payouts")).to_contain_text("a seat ($22.00)")
        await expect(page.locator("#payouts tbody tr")).to_have_count(2)  # two seats as one row, then $16.00 in cash
        await expect(page.locator("#payouts tbody tr").first).to_contain_text("1-2a seat ($22.00) each")
        await page.goto(f"{live.http}/#/t/{flight}")
        await expect(page.locator("#banner")).to_contain_text("Day-1 flight: it stops when 50% of the field is left")


async def test_the_lobby_and_the_tournament_page_show_the_rebuy_and_add_on_terms(browser):
    body = definition(6, 6, rebuys={"levels": 2, "price_cents": 1000, "fee_cents": 100, "chips": 3000, "max_count": 2},
                      add_on={"price_cents": 500, "chips": 5000},
                      levels=[{"small_blind": 10, "big_blind": 20, "minutes": 10}] * 3)
    async with live_server() as live:
        tournament, _ = await create(live, body, 0)
        page = await open_as(browser, live, "/", {})
        row = page.locator(f"tr[data-id='{tournament}'] .terms")
        await expect(row).to_contain_text("Re-buys: $11.00 for 3,000 chips, up to 2, until the end of level 2")
        await expect(row).to_contain_text("Add-on: $5.00 for 5,000 chips")
        await page.goto(live.http + f"/#/t/{tournament}")
        await expect(page.locator("#terms")).to_contain_text("Re-buys: $11.00 for 3,000 chips, up to 2")


async def test_the_admin_pays_a_compensation_from_the_page_after_confirming_it(browser):
    async with live_server() as live:
        tournament, _ = await create(live, definition(4, 4), 2)
        page = await open_as(browser, live, f"/#/t/{tournament}", {"mttsim:admin": "admin-token"})
        await tab(page, "console")
        await page.locator("summary", has_text="Corrections (admin)").click()
        await page.fill("#correction-player", "bot 1")  # by name, as the console picks players
        await expect(page.locator("#correction-chosen")).to_contain_text("bot 1 (p2)")
        await page.fill("#correction-cents", "250")
        await page.fill("#correction-reason", "our server dropped them")
        questions = []

        async def answer(dialog):
            questions.append(dialog.message)
            await (dialog.dismiss() if len(questions) == 1 else dialog.accept())

        page.on("dialog", answer)
        await page.click("#compensate")  # dismissed: nothing happens
        await page.click("#compensate")  # accepted
        await expect(page.locator("#correction-result")).to_contain_text("Compensations $2.50")
        assert questions == ["Pay bot 1 (p2) $2.50 from the house?"] * 2
        assert live.runtime(tournament).director.ledger.summary()["compensations"] == 250
        await page.click("#withdraw")
        await expect(page.locator("#correction-result")).to_contain_text("no prize to withdraw")


async def test_the_console_records_an_incident_pays_for_it_and_declares_a_failure_with_its_stage_and_deadline(
        browser):
    """In the director's console: one player's case on the record, a compensation naming it, and a
    failure declared with the stage the rules judged it in and the date its refunds are due."""
    async with live_server() as live:
        tournament, _ = await create(live, definition(4, 4), 2)
        page = await open_as(browser, live, f"/#/t/{tournament}", {"mttsim:admin": "admin-token"})
        errors = watch_errors(page)
        page.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
        await tab(page, "console")
        await page.locator("summary", has_text="Corrections (admin)").click()
        await page.fill("#correction-player", "bot 1")
        await page.fill("#incident-what", "disconnected by our server for 2 minutes")
        await page.fill("#incident-decision", "compensate the blinds they lost")
        await page.click("#record-incident")
        await expect(page.locator("#correction-result")).to_have_text("Incident 1 recorded for bot 1 (p2).")
        await page.fill("#correction-cents", "300")
        await page.fill("#correction-reason", "the blinds they lost")
        await page.fill("#correction-incident", "1")
        await page.click("#compensate")
        await expect(page.locator("#correction-result")).to_contain_text("Compensations $3.00")
        director = live.runtime(tournament).director
        assert director.incidents[0].player == "p2"
        await page.locator("summary", has_text="Cancel with refunds (admin)").click()
        await page.fill("#failure-what", "the room lost power")
        await page.fill("#failure-due", "24")
        await page.click("#declare-failure")
        failure = page.locator("#failure-record")
        await expect(failure).to_contain_text("Failure declared (stage A1): refunds of $22.00 due by")
        assert director.status.value == "cancelled" and director.failure is not None
        assert director.failure.due_by == director.failure.at + 24 * 3600
        assert errors == []


async def test_the_lobby_shows_an_announced_tournament_with_its_times(browser):
    import time

    opens = time.time() + 3600
    async with live_server() as live:
        async with httpx.AsyncClient(base_url=live.http) as client:
            body = definition(4, 4, registration_opens_at=opens, starts_at=opens + 1800)
            tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        page = await open_as(browser, live, "/", {})
        row = page.locator(f"tr[data-id='{tournament}']")
        await expect(row.locator(".status")).to_have_text("waiting")
        await expect(row.locator(".times")).to_contain_text("registration opens")
        await expect(row.locator(".times")).to_contain_text("starts")
        await expect(row.locator("button.register")).to_have_count(0)  # not open yet


async def test_the_lobby_asks_before_a_destructive_command_and_says_what_happened(browser):
    """A cancel, and a start below the minimum (which cancels), acted on one click, and said nothing."""
    async with live_server() as live:
        short, _ = await create(live, {**definition(6, 6), "min_players": 3}, 2)
        page = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
        questions = []

        async def answer(dialog):
            questions.append(dialog.message)
            await (dialog.dismiss() if len(questions) == 1 else dialog.accept())

        page.on("dialog", answer)
        row = page.locator(f"tr[data-id='{short}']")
        await row.locator("button.start").click()  # dismissed: nothing happens
        assert live.runtime(short).director.status.value == "register"
        await row.locator("button.start").click()  # accepted
        await expect(page.locator("#message")).to_contain_text("too few entries (2 of 3)")
        assert "2 of the 3 entries it needs" in questions[0]
        assert live.runtime(short).director.status.value == "cancelled"
        # A cancelled tournament takes no command: its row offers none.
        await expect(row).to_have_attribute("data-status", "cancelled")
        await expect(row.locator(".admin button")).to_have_count(0)
