"""Nothing stale: the lobby's terms and badges and a tournament's banners follow its state, and a finished
tournament has no running clock, in the API or on the page."""

from __future__ import annotations

import asyncio
import json
import re

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import ARTIFACTS, SIZES, alice_among_stations, my_turn, watch_errors
from tests.live_server import ADMIN, admin, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")

# Two quick levels of hands (the re-buy period and late registration end with the first, and the second is paused
# while the pages are read), then blinds that put every stack all in, on a clock whose level is not the last, so
# that a clock would run after the finish if anything let it.
LEVELS = [{"small_blind": 10, "big_blind": 20, "hands": 2}, {"small_blind": 20, "big_blind": 40, "hands": 8},
          {"small_blind": 500, "big_blind": 1000, "minutes": 60},
          {"small_blind": 1000, "big_blind": 2000, "minutes": 60}]


async def test_terms_badges_and_banners_follow_the_state_and_a_finished_tournament_stands_still(browser):
    body = definition(6, 3, levels=LEVELS, paid=1, late_registration={"until_level": 1},
                      rebuys={"levels": 1, "price_cents": 1000, "fee_cents": 100, "chips": 1000},
                      add_on={"price_cents": 500, "chips": 1000, "offer_seconds": 3})
    async with live_server(hand_pause=0.1) as live:
        tournament, seats = await create(live, body, 3)
        director = live.runtime(tournament).director
        lobby = await browser.new_page(viewport={"width": 1366, "height": 900})
        errors = watch_errors(lobby)
        await lobby.goto(live.http + "/")
        row = lobby.locator(f"tr[data-id='{tournament}']")
        await expect(row.locator(".terms")).to_contain_text("Re-buys: $11.00 for 1,000 chips")
        await expect(row.locator(".badges")).to_contain_text("late reg")  # before the start: the format
        async with httpx.AsyncClient(base_url=live.http) as client:
            assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200
        bots(live, tournament, seats, "station")
        page = await browser.new_page(viewport={"width": 1366, "height": 900})
        await page.clock.install()  # the page's time runs on, and the test moves it on at the end
        page_errors = watch_errors(page)
        await page.goto(f"{live.http}/#/t/{tournament}")

        runtime = live.runtime(tournament)

        def paused_once_over() -> bool:
            """Level 2 stands still while the pages are read, paused in the turn of the loop that sees level 1 over:
            a pause sent over HTTP came, once in a busy run, after level 2's eight hands had played and the
            all-in levels had finished the tournament (409)."""
            if director.rebuy_period_over:
                runtime.pause()
            return director.rebuy_period_over

        await until(paused_once_over, timeout=60)
        assert director.level == 1 and director.add_on_until is not None
        terms = row.locator(".terms")
        await expect(terms).to_contain_text("Re-buys: over (they ran to the end of level 1)")
        await expect(terms).to_contain_text("Add-on: open now, $5.00 for 1,000 chips")
        await expect(terms).to_contain_text("Late registration: closed")
        await expect(row.locator(".badges")).not_to_contain_text("late reg")
        await expect(row.locator(".badges")).to_contain_text("re-buy")  # the format stays
        await expect(page.locator("#terms")).to_contain_text("Re-buys: over")
        await expect(page.locator("#terms")).not_to_contain_text("until the end of level 1")
        async with httpx.AsyncClient(base_url=live.http) as client:
            assert (await client.post(f"/api/tournaments/{tournament}/resume", headers=ADMIN)).status_code == 200

        await until(lambda: director.status.value == "finished", timeout=120)
        winner = live.runtime(tournament).entries.name(director.standings()[0].player)
        await expect(row.locator(".times")).to_contain_text(f"won by {winner}, finished ")
        await expect(terms).to_contain_text("Add-on: over")
        next_level = page.locator(".summary div", has_text="Next level").locator("b")
        await expect(next_level).to_have_text("—")
        await page.clock.fast_forward(3_000)  # three seconds on the page's clock: one that ran would have moved
        await expect(next_level).to_have_text("—")
        async with httpx.AsyncClient(base_url=live.http) as client:
            shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["level_ends_in"] is None and shown["on_break_for"] is None and shown["winner"] == winner
        assert shown["finished_at"] is not None
        assert not errors and not page_errors, errors + page_errors


async def bottom_seat(page) -> str:
    """The player of the seat drawn lowest (by its centre, where the table places it: one's own seat, with its
    cards drawn as faces, is the tallest), once the table is drawn, and whether it sits in the middle."""
    await expect(page.locator(".seat").first).to_be_visible(timeout=20_000)
    return await page.evaluate("""() => {
        const boxes = [...document.querySelectorAll('.seat')].map((node) => [node, node.getBoundingClientRect()]);
        const oval = document.querySelector('.oval').getBoundingClientRect();
        const middle = (box) => box.top + box.height / 2;
        const [node, box] = boxes.reduce((low, seat) => middle(seat[1]) > middle(low[1]) ? seat : low);
        const centred = Math.abs(box.left + box.width / 2 - (oval.left + oval.width / 2)) < oval.width * 0.05;
        return centred ? node.dataset.player : 'off centre: ' + node.dataset.player;
    }""")


async def test_every_player_sees_their_own_seat_at_the_bottom_and_an_observer_the_first(browser):
    """One's own seat was drawn where its number put it (top centre in the demo); every room turns the
    table so that it is at the bottom, beside the action bar."""
    async with live_server(hand_pause=30) as live:
        # A page for each screen, told in turn whose seat it is (the seat's key, then a reload): a page of its own
        # for each of the 23 looks cost a renderer each, a quarter of a core-minute.
        pages = {name: await browser.new_page(viewport=SIZES[name]) for name in ("desktop", "phone")}
        for page in pages.values():
            await page.goto(live.http + "/")

        async def bottom_seat_as(page, tournament: str, seat: str | None, path: str) -> str:
            key = f"mttsim:seat:{tournament}"
            await page.evaluate("([k, v]) => v === null ? localStorage.removeItem(k) : localStorage.setItem(k, v)",
                                [key, seat])
            await page.goto(f"{live.http}/#/t/{tournament}{path}")
            await page.reload()
            return await bottom_seat(page)

        for size in (2, 3, 6, 9, 10):  # heads-up, an odd table, six-max and full ring: the turn is one formula
            tournament, seats = await create(live, definition(size, size, action_seconds=60), size)
            async with httpx.AsyncClient(base_url=live.http) as client:
                assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200
            director = live.runtime(tournament).director
            (table,) = director.tables
            ours = [seats[0], seats[-1]]  # two players at the one table, wherever the draw put them
            for name in ("desktop", "phone") if size in (2, 6, 9, 10) else ("desktop",):
                for player, token in ours:
                    seat = json.dumps({"player_id": player, "token": token})
                    assert await bottom_seat_as(pages[name], tournament, seat, "") == player, (size, name, player)
            first = director.tables[table].table.seats[0]  # an observer, with no seat's key
            assert first is not None
            assert await bottom_seat_as(pages["desktop"], tournament, None, f"/table/{table}") == first, size


async def test_the_bet_button_says_what_it_sends_and_an_amount_out_of_range_is_clamped_in_sight_never_sent(browser):
    """"Raise to (R)" showed no amount, and 1 then Enter made a minimum raise with no sign of the
    correction. The button shows its amount, which is the frame sent; out of range, the box is clamped with the
    reason and nothing is sent until the player presses again."""
    async with live_server(hand_pause=0.3) as live:
        rules = definition(2, 2, action_seconds=60, stack=5000)
        tournament, alice, page = await alice_among_stations(live, browser, rules, 2)
        sent: list[dict] = []
        page.on("websocket", lambda socket: socket.on(
            "framesent", lambda payload: sent.append(json.loads(payload)) if '"act"' in str(payload) else None))
        await page.reload()
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await my_turn(page)
        turn = live.runtime(tournament).director.hand(live.runtime(tournament).director.where[alice][0])
        legal = turn.legal_actions()
        raise_button = page.get_by_role("button", name=re.compile(r"^(Bet|Raise to|All-in) "))
        word = "Bet" if turn.bets[legal.player] + legal.call == 0 else "Raise to"  # nothing in yet this street
        await expect(raise_button).to_have_text(f"{word} {legal.min_raise_to:,} (R)")
        box = page.get_by_label("amount")
        await box.fill("1")
        await expect(page.locator("#amount-note")).to_contain_text(f"minimum {'bet' if word == 'Bet' else 'raise'}")
        await box.press("Enter")  # out of range: clamped in the box, with the reason, and not sent
        await expect(box).to_have_value(str(legal.min_raise_to))
        await expect(page.locator("#amount-note")).to_contain_text("press again")
        await page.wait_for_timeout(300)
        assert sent == []
        await box.fill("999999")
        await expect(raise_button).to_have_text(f"All-in {legal.max_raise_to:,} (R)")
        await box.press("Enter")
        await expect(box).to_have_value(str(legal.max_raise_to))
        assert sent == []
        amount = legal.min_raise_to + 100
        await box.fill(str(amount))
        await expect(raise_button).to_have_text(f"{word} {amount:,} (R)")
        await expect(page.locator("#amount-note")).to_be_empty()
        await raise_button.click()
        await until(lambda: bool(sent), timeout=10)
        (act,) = sent
        named = {key: act.pop(key) for key in ("hand", "turn") if key in act}  # the turn it answers
        assert act == {"type": "act", "action": "bet" if word == "Bet" else "raise", "amount": amount}
        assert named == {} or (named["hand"] >= 1 and named["turn"] >= 1)


async def test_register_in_the_lobby_leads_to_the_seat_before_any_clock_runs_for_it(browser):
    """Register answered in red with an internal id, nothing opened the table, and the player was timed
    out meanwhile. The row names the player and links their page; the start opens the table of a player whose
    lobby is open, a late registration at once; and no clock runs for a seat nobody has opened yet."""
    body = definition(6, 6, action_seconds=5, time_bank_seconds=30, late_registration={"until_level": 1},
                      levels=[{"small_blind": 10, "big_blind": 20, "minutes": 60}] * 2)
    async with live_server(hand_pause=0.3) as live:
        tournament, seats = await create(live, body, 2)
        bots(live, tournament, seats, "station")
        runtime = live.runtime(tournament)

        async def register(name: str):
            page = await browser.new_page(viewport=SIZES["desktop"])
            errors = watch_errors(page)
            await page.goto(live.http + "/")
            row = page.locator(f"tr[data-id='{tournament}']")
            await row.get_by_label("name for live test").fill(name)
            await row.get_by_role("button", name="Register").click()
            return page, row, errors

        alice, row, errors = await register("Alice")
        await expect(row.locator(".registered")).to_have_text("Registered as Alice · your page")
        await expect(alice.locator("#message")).to_have_class(re.compile(r"\bok\b"))  # not the colour of errors
        await expect(alice.locator("#message")).to_contain_text("Registered in live test as Alice")
        await admin(live, tournament, "start")
        await expect(alice).to_have_url(re.compile(f"#/t/{tournament}$"))  # the start opens her table
        await expect(alice.locator(".seat.me")).to_contain_text("Alice")
        ada = next(player for player, name in runtime.entries.names.items() if name == "Alice")
        assert runtime.entries.time_bank[ada] == 30.0

        bob, _, bob_errors = await register("Bob")  # late: straight to his seat
        await expect(bob).to_have_url(re.compile(f"#/t/{tournament}$"))
        await expect(bob.locator(".seat.me")).to_contain_text("Bob")
        await expect(alice.locator("#log")).not_to_contain_text("You ran out of time")
        assert not errors and not bob_errors, errors + bob_errors


async def test_sit_out_next_hand_takes_effect_at_the_next_hand_and_im_back_returns(browser):
    async with live_server(hand_pause=0.5) as live:
        rules = definition(2, 2, action_seconds=30, stack=5000)
        tournament, alice, page = await alice_among_stations(live, browser, rules, 2)
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player in runtime.director.stacks))
        await admin(live, tournament, "start")
        await my_turn(page)
        (table, _) = runtime.director.where[alice]
        asked_in = runtime.director.hand_number(table)
        await page.get_by_label("Sit out next hand").check()
        await until(lambda: alice in runtime.tables.sit_out_asked)
        assert alice not in runtime.tables.sitting_out  # this hand is played as usual
        while runtime.director.hand_number(table) == asked_in:  # she plays the hand out, checking or calling
            buttons = page.locator(".controls.mine").locator("#check, #call")
            if await buttons.count():
                await buttons.first.click()
            await asyncio.sleep(0.1)
        await expect(page.locator(".seat.me .marks")).to_contain_text("sitting out", timeout=20_000)
        assert runtime.director.hand_number(table) > asked_in
        await page.get_by_role("button", name="I'm back").click()
        await expect(page.locator(".seat.me .marks")).not_to_contain_text("sitting out")
        assert alice not in runtime.tables.sitting_out


async def test_the_clock_is_a_bar_that_shrinks_then_turns_to_the_time_bank_whose_refill_is_shown(browser):
    async with live_server(hand_pause=0.5) as live:
        rules = definition(2, 2, action_seconds=2, stack=5000, time_bank={"seconds": 20, "add_seconds": 10,
                                                                           "every_levels": 2})
        rules.pop("time_bank_seconds")
        tournament, alice, page = await alice_among_stations(live, browser, rules, 2)
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player in runtime.director.stacks))
        await admin(live, tournament, "start")
        await my_turn(page)
        await expect(page.locator("#time-bank")).to_contain_text("Time bank 20s · +10s every 2 levels")
        clock = page.locator(".seat.me .clock")
        width = "node => parseFloat(node.querySelector('.bar').style.width)"
        await until_true(lambda: clock.evaluate(f"{width} < 100"))  # it shrinks as the action clock runs
        await expect(clock).to_have_class(re.compile(r"\bbank\b"), timeout=20_000)  # then the time bank's
        await expect(clock.locator(".seconds")).to_contain_text("time bank")


async def until_true(probe) -> None:
    """Poll an async ``probe`` of the page until it answers true."""
    for _ in range(200):
        if await probe():
            return
        await asyncio.sleep(0.1)
    raise AssertionError("never true")


PHONES = [{"width": 390, "height": 844}, {"width": 360, "height": 640}]

OVERLAPS = """() => {
    const boxes = [...document.querySelectorAll('.seat')].map((seat) => [seat.dataset.player,
        seat.getBoundingClientRect()]);
    const middle = document.querySelector('.middle .board').getBoundingClientRect();
    const meet = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
    return boxes.flatMap(([p, a], i) => [
        ...boxes.slice(i + 1).filter(([, b]) => meet(a, b)).map(([q]) => `${p} and ${q}`),
        ...(meet(a, middle) ? [`${p} and the board`] : []),
    ]);
}"""


@pytest.mark.parametrize("bounty", [None, {"cents": 250}], ids=["freezeout", "bounty"])
@pytest.mark.parametrize("phone", PHONES, ids=["390x844", "360x640"])
async def test_ten_seats_on_a_phone_never_overlap_with_every_seat_dealt_in_and_one_disconnected(browser, phone,
                                                                                                 bounty):
    """At 390 px with ten seats the seats of the sides touched each other: every seat with its cards, the blinds
    out and a player who lost the connection (sitting out, disconnected) is the most a seat shows."""
    async with live_server(hand_pause=0.3) as live:
        tournament, seats = await create(live, definition(10, 10, action_seconds=60, bounty=bounty), 10)
        (alice, token), others = seats[0], seats[1:]
        bots(live, tournament, others[:-1], "station", think=(30.0, 30.0))  # they hold their cards a while
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player, _ in others[:-1]))
        page = await browser.new_page(viewport=phone)
        errors = watch_errors(page)
        await page.goto(live.http + "/")
        seat = json.dumps({"player_id": alice, "token": token})
        await page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"mttsim:seat:{tournament}", seat])
        await page.goto(f"{live.http}/#/t/{tournament}")
        await admin(live, tournament, "start")
        dealt = page.locator(".seat .cards:not(:empty)")

        async def dealt_in() -> bool:  # all ten, or nine once the disconnected player's turn has folded them
            return await dealt.count() >= 9

        await until_true(dealt_in)
        await expect(page.locator(".seat .bet:not(:empty)")).to_have_count(2)  # the blinds
        await expect(page.locator(f".seat[data-player='{others[-1][0]}'] .marks")).to_contain_text("offline")
        # cards and chips landed, for the picture (one a redraw cancels is settled too: rejected, not awaited)
        await page.evaluate("""Promise.allSettled(document.getAnimations()
            .filter((a) => a.effect.getTiming().iterations !== Infinity).map((a) => a.finished))""")
        kind = "-bounty" if bounty else ""
        await page.screenshot(path=ARTIFACTS / f"phone-ten-seats{kind}-{phone['width']}x{phone['height']}.png")
        assert await page.evaluate(OVERLAPS) == []
        assert not errors, errors



@pytest.mark.parametrize("phone", PHONES, ids=["390x844", "360x640"])
async def test_a_phone_shows_the_board_the_pot_her_cards_and_the_buttons_together_with_every_banner(browser, phone):
    """At 390x844 the header, two banners and two rows of tabs pushed the table 540 px down, and Fold
    and Call needed a scroll on every turn. With re-buys, late registration and hand-for-hand all showing."""
    body = definition(20, 9, action_seconds=60, stack=5000, paid=3, late_registration={"until_level": 1},
                      rebuys={"levels": 1, "price_cents": 1000, "chips": 5000}, add_on={"price_cents": 500,
                                                                                      "chips": 5000})
    async with live_server(hand_pause=0.5) as live:
        tournament, seats = await create(live, body, 12)
        (alice, token), others = seats[0], seats[1:]
        bots(live, tournament, others, "station", think=(0.3, 0.6))
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player, _ in others))
        page = await browser.new_page(viewport=phone)
        errors = watch_errors(page)
        await page.goto(live.http + "/")
        seat = json.dumps({"player_id": alice, "token": token})
        await page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"mttsim:seat:{tournament}", seat])
        await page.goto(f"{live.http}/#/t/{tournament}")
        await admin(live, tournament, "start")
        async with httpx.AsyncClient(base_url=live.http) as client:
            forced = await client.post(f"/api/tournaments/{tournament}/hand-for-hand", json={"on": True},
                                       headers=ADMIN)
            assert forced.status_code == 200, forced.text
        banner = page.locator("#banner")
        await expect(banner).to_contain_text("Re-buys")
        await expect(banner).to_contain_text("late registration")
        await expect(banner).to_contain_text("Hand-for-hand")
        await my_turn(page)
        for shown in (".middle .pot", ".seat.me .cards", ".controls.mine #call, .controls.mine #check", "#raise"):
            await expect(page.locator(shown).first).to_be_in_viewport(ratio=1)
        ARTIFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=ARTIFACTS / f"phone-table-{phone['width']}x{phone['height']}.png")
        folded = await banner.evaluate("node => node.getBoundingClientRect().height")
        await banner.click()  # a tap opens every banner, another folds them
        await expect(banner).to_have_class(re.compile(r"\bopen\b"))
        assert await banner.evaluate("node => node.getBoundingClientRect().height") > folded
        await banner.click()
        overlaps = await page.evaluate("""() => {
            const middle = document.querySelector('.middle').getBoundingClientRect();
            return [...document.querySelectorAll('.seat')].filter((seat) => {
                const box = seat.getBoundingClientRect();
                return box.left < middle.right && box.right > middle.left && box.top < middle.bottom
                    && box.bottom > middle.top;
            }).map((seat) => seat.dataset.player);
        }""")
        assert overlaps == [], overlaps  # no seat over the board and the pot
        assert await page.evaluate("document.documentElement.scrollWidth") <= phone["width"]
        assert not errors, errors


async def test_a_pko_shows_its_bounty_pool_beside_the_prize_pool_and_the_replayer_counts_the_pot_as_the_table(browser):
    """In a PKO nobody saw the bounty pool beside the prize pool; the replayer's "Pot" left out the
    street's bets while the table's included them."""
    import tomllib

    body = definition(6, 3, action_seconds=30, bounty={"cents": 400, "progressive_percent": 50})
    async with live_server(hand_pause=0.3) as live:
        tournament, alice, page = await alice_among_stations(live, browser, body, 3)
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player in runtime.director.stacks))
        await admin(live, tournament, "start")
        summary = page.locator("#summary")
        await expect(summary).to_contain_text("Bounty pool$12.00")  # three heads of $4.00, none won yet
        ledger = runtime.director.ledger
        assert ledger.bounties_cents + ledger.summary()["bounties"] == 1200
        storage = live.app.state.server.storage
        while not storage.hands(tournament, alice, None):  # one hand played out: she checks or calls
            buttons = page.locator(".controls.mine").locator("#check, #call")
            if await buttons.count():
                await buttons.first.click()
            await asyncio.sleep(0.1)
        await page.click("#tab-hands")
        link = page.locator(".hand-link").first
        await expect(link).to_be_visible(timeout=10_000)
        number = int(await link.get_attribute("data-hand"))
        truth = tomllib.loads(storage.hand(tournament, number))
        await link.click()
        await page.click("#replay-start")
        posted = sum(truth["antes"]) + sum(truth["blinds_or_straddles"])
        await expect(page.locator("#replay-pot")).to_have_text(f"Pot {posted:,}")  # the blinds are in the pot
