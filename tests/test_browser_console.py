"""The director's console as a director uses it (players by name, the levels to come
edited, a move and "balance now" by the floor's rules, the log of what was done), a level edited there is the
level played and survives a restart; and a player's Hands tab lists the hands as rooms do."""

from __future__ import annotations

import asyncio
import re

from playwright.async_api import expect

import pytest

from engine.history import hand_seat
from tests.browser import ARTIFACTS, alice_among_stations, my_turn, open_as, tab, watch_errors
from tests.live_server import admin, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")

LEVELS = [{"small_blind": 10, "big_blind": 20, "minutes": 10}, {"small_blind": 20, "big_blind": 40, "minutes": 10},
          {"small_blind": 40, "big_blind": 80, "minutes": 10}]


async def play_hands(page, storage, tournament: str, alice: str, hands: int, *, fold: bool = True) -> None:
    """Alice (``fold``: folds every other time she faces a bet, else) checks or calls, until ``hands`` of hers
    are done."""
    turns = 0
    while len(storage.hands(tournament, alice, None)) < hands:
        mine = page.locator(".controls.mine")
        if await mine.locator("#check, #call").count():
            turns += 1
            folding = fold and turns % 2 and await mine.locator("#fold").count()
            await (mine.locator("#fold") if folding else mine.locator("#check, #call").first).click()
        await asyncio.sleep(0.05)


async def test_the_console_knows_names_edits_the_levels_to_come_moves_balances_and_logs_it_all(browser, tmp_path):
    db = str(tmp_path / "journal.db")
    async with live_server(hand_pause=0.05, db=db) as live:
        body = definition(11, 7, action_seconds=30, levels=LEVELS, stack=100_000)  # tables of 6 and 5: deep, none busts
        tournament, alice, page = await alice_among_stations(live, browser, body, 11, name="Alice")
        runtime = live.runtime(tournament)
        director = runtime.director
        await admin(live, tournament, "start")
        errors = watch_errors(page)

        # Alice's hands as rooms list them, the ones she folded before the flop hidden on request.
        storage = live.app.state.server.storage
        await asyncio.wait_for(play_hands(page, storage, tournament, alice, 6), 90)
        await tab(page, "hands")
        rows = page.locator("tr.hand-row")
        await expect(rows.first).to_be_visible(timeout=10_000)
        for index in range(await rows.count()):
            line = hand_seat(storage.hand(tournament, int(await rows.nth(index).get_attribute("data-hand"))), alice)
            await expect(rows.nth(index).locator(".position")).to_have_text(line.position)
            net = f"+{line.net:,}" if line.net > 0 else f"−{-line.net:,}" if line.net < 0 else "0"
            await expect(rows.nth(index).locator(".net")).to_have_text(net)
        folded = await page.locator("tr.hand-row.folded-preflop").count()
        assert folded, "Alice folded before the flop: the filter has something to hide"
        await page.screenshot(path=ARTIFACTS / "hands-tab.png")
        await page.get_by_label("Only hands I played").check()
        await expect(page.locator("tr.hand-row:visible")).to_have_count(await rows.count() - folded)

        await tab(page, "table")  # she plays on at her table meanwhile
        playing = asyncio.create_task(play_hands(page, storage, tournament, alice, 10**6, fold=False))
        console = await open_as(browser, live, f"/#/t/{tournament}", {"mttsim:admin": "admin-token"})
        console_errors = watch_errors(console)
        console.on("dialog", lambda dialog: asyncio.ensure_future(dialog.accept()))
        await tab(console, "console")

        # The levels to come: the one under way is not offered; level 2 edited is the level played.
        await expect(console.locator("#level-rows tr[data-level='1']")).to_have_count(0)
        await expect(console.locator("#level-rows tr[data-level]")).to_have_count(2)
        await console.get_by_label("level 2 small blind").fill("25")
        await console.get_by_label("level 2 big blind").fill("50")
        await console.get_by_label("level 2 ante").fill("5")
        await console.get_by_label("level 2 minutes").fill("7")
        await console.get_by_label("save level 2").click()
        await expect(console.locator("#console-result")).to_have_text("Level 2 is now 25/50, ante 5, 7 min.")
        await console.get_by_label("level 3 small blind").fill("90")  # above its big blind: the server says no
        await console.get_by_label("save level 3").click()
        await expect(console.locator("#console-result")).to_have_text("small_blind: at most the big blind")
        await console.fill("#clock-seconds", "-600")
        await console.click("#adjust-clock")
        await expect(page.locator("#summary")).to_contain_text("2: 25/50 (5)", timeout=10_000)
        await expect(console.locator("#level-rows tr[data-level]")).to_have_count(1)  # level 2 has started
        await until(lambda: any((hand := director.hand(t)) is not None and (hand.big_blind, hand.ante) == (50, 5)
                                for t in director.tables))

        # A move by name, between hands (paused: the hands in progress finish), then refusals that name the rule.
        await console.click("#console-pause")
        await until(lambda: all(director.hand(t) is None for t in director.tables))
        full, short = sorted(director.tables, key=lambda t: -director.tables[t].table.seated)
        mover = next(p for p in director.tables[full].table.players if p != alice)
        name = runtime.entries.name(mover)
        await console.fill("#console-player", name)
        await expect(console.locator("#console-chosen")).to_have_text(
            re.compile(rf"^{re.escape(name)} \({mover}\) · table {full} · "))
        # The seating chart: every table's seats and stacks; a click picks the player, another moves them.
        chart = console.get_by_role("group", name="seating chart", exact=True)
        for table in director.tables:
            seats = sorted((seat, player) for player, (at, seat) in director.where.items() if at == table)
            await expect(chart.get_by_role("region", name=f"table {table}").get_by_role("button")).to_have_text(
                [f"Seat {seat + 1}: {runtime.entries.name(player)} · {director.stacks[player]:,}"
                 for seat, player in seats])
        await chart.get_by_role("button", name=re.compile(rf"^Seat \d+: {re.escape(name)} ·")).click()
        await chart.get_by_role("button", name=f"Move {name} here").click()
        await expect(console.locator("#console-result")).to_have_text(
            f"{name} ({mover}) moves to table {short}, to the seat posting the big blind soonest.")
        assert director.where[mover][0] == short
        await expect(chart.get_by_role("region", name=f"table {short}").locator(f"li[data-player='{mover}']")) \
            .to_have_count(1)
        await chart.screenshot(path=ARTIFACTS / "seating-chart.png")
        other = next(p for p in director.tables[full].table.players if p != alice)
        await console.fill("#console-player", runtime.entries.name(other))
        await console.fill("#move-table", str(short))
        await console.click("#move-player")
        await expect(console.locator("#console-result")).to_contain_text("within one player of each other (A.3)")
        await console.fill("#console-player", "nobody at all")
        await console.click("#move-player")
        await expect(console.locator("#console-result")).to_have_text(
            'No player "nobody at all": choose one from the list.')
        await console.click("#balance-now")
        await expect(console.locator("#console-result")).to_contain_text("the tables are balanced (6 and 5 players)")
        playing.cancel()  # Alice stops acting: her next hand waits on her (30 s a decision)
        await console.click("#console-resume")

        # A move asked during Alice's hand waits for its end (A.4); the console shows it pending, and her page
        # follows her to the new table when it is made.
        await my_turn(page)
        here = director.where[alice][0]
        there = next(table for table in director.tables if table != here)
        if director.tables[here].table.seated < director.tables[there].table.seated:
            joining = next(p for p in director.tables[there].table.players if p != alice)  # 6 and 5 the other way
            await console.fill("#console-player", runtime.entries.name(joining))
            await console.fill("#move-table", str(here))
            await console.click("#move-player")
            await until(lambda: director.where[joining][0] == here)
        move = console.get_by_role("button", name="Move to table")
        await console.fill("#console-player", "Alice")
        await console.get_by_label("to table").fill(str(there))
        await move.click()
        await expect(console.get_by_role("status")).to_have_text(
            f"Alice ({alice}) moves to table {there} when their hand ends, to the seat posting the big blind soonest.")
        pending = console.get_by_role("list", name="waiting for a hand to end").get_by_role("listitem")
        await expect(pending).to_have_text([f"Alice: table {here} → table {there} when the hand ends Withdraw"])
        await console.get_by_role("button", name="Withdraw the move of Alice").click()  # taken back, then again
        await expect(pending).to_have_count(0)
        await expect(console.get_by_role("status")).to_have_text(f"The move of Alice to table {there} is off.")
        await move.click()
        await expect(pending).to_have_count(1)
        await console.get_by_role("button", name="Withdraw the move of Alice").scroll_into_view_if_needed()
        await console.screenshot(path=ARTIFACTS / "console-pending.png")
        assert director.where[alice][0] == here
        await expect(page.locator(".log")).to_contain_text(f"You move to table {there} when this hand ends")
        await page.fill("#chat-input", "said at the old table")  # chat is a table's: it stays behind
        await page.press("#chat-input", "Enter")
        await expect(page.locator("#chat-lines")).to_contain_text("said at the old table")
        playing = asyncio.create_task(play_hands(page, storage, tournament, alice, 10**6, fold=False))
        await until(lambda: director.where[alice][0] == there, timeout=60)
        await expect(page.locator(".middle")).to_contain_text(f"Table {there}", timeout=10_000)
        await expect(page.locator("#notice")).to_contain_text("the tournament director moved you")
        await expect(pending).to_have_count(0)
        await expect(page.locator("#chat-lines")).to_have_text(f"Table {there}'s chat")

        # The log, newest first: what was done, to whom, and what came of it, the refusals with their reasons.
        log = console.locator("#director-log tr.log-line")
        await expect(log.first).to_contain_text(f"Queued move madeAlice ({alice})at the hand's end: table {here} → "
                                                f"table {there}")
        await expect(log.filter(has_text="Move queued")).to_contain_text([f"Alice ({alice})to table {there}"] * 2)
        await expect(log.filter(has_text="Queued move withdrawn")).to_have_count(1)
        await expect(log.filter(has_text="Resumed")).to_have_count(1)
        await expect(log.filter(has_text=f"Moved{name} ({mover})table {full} → table {short}, seat ")).to_have_count(1)
        await expect(log.filter(has_text="Move: refused")).to_have_count(1)  # the unbalancing one; the nobody's
        await expect(log.filter(has_text="Balance now: refused")).to_contain_text(["balanced (6 and 5 players)"])
        await expect(log.filter(has_text="Clock −600 s")).to_have_count(1)
        await expect(log.filter(has_text="Level 2 edited25/50, ante 5, 7 min")).to_have_count(1)
        await expect(log.filter(has_text="Level edit: refused")).to_contain_text(["at most the big blind"])
        logged = await log.count()
        await expect(console.locator("#summary")).to_contain_text("Statusrunning")
        await console.screenshot(path=ARTIFACTS / "console.png", full_page=True)
        playing.cancel()
        assert errors == []
        # The refusals' statuses (409) are what Chromium logs of the console's page, and nothing else.
        assert all("status of 409" in error for error in console_errors), console_errors

    # A restart: the edited level is the level under way, and the log is read again from the journal.
    async with live_server(hand_pause=0.05, db=db) as live:
        console = await open_as(browser, live, f"/#/t/{tournament}", {"mttsim:admin": "admin-token"})
        await expect(console.locator("#summary")).to_contain_text("2: 25/50 (5)")
        await tab(console, "console")
        await expect(console.locator("#level-rows tr[data-level]")).to_have_count(1)
        await expect(console.locator("#director-log tr.log-line")).to_have_count(logged)
        assert live.runtime(tournament).director.definition.levels[1].minutes == 7
