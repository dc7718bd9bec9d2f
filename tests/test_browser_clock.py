"""The clock screen a room projects, checked against the tournament's own numbers at
a projector's 1920x1080 and a laptop's 1366x768."""

from __future__ import annotations

import json
import re
import time

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import ARTIFACTS, open_as, tab, watch_errors
from tests.live_server import ADMIN, create, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")

LEVELS = [{"small_blind": 50, "big_blind": 100, "minutes": 10},
          {"small_blind": 100, "big_blind": 200, "ante": 25, "minutes": 10},
          {"small_blind": 200, "big_blind": 400, "ante": 50, "minutes": 10}]
IDS = ("level", "blinds", "ante", "time", "next", "break", "players", "average", "pool", "jump", "jump-more")


def seconds(text: str) -> int:
    minutes, secs = text.split(":")
    return int(minutes) * 60 + int(secs)


def clock_text(left: float) -> str:
    """Seconds left as the clock screen shows them: minutes and whole seconds."""
    return f"{int(left // 60)}:{int(left % 60):02d}"


def to_the_second(left: float) -> re.Pattern[str]:
    """``left`` on the screen, or a second more or less: the feed sends its moments rounded to the second."""
    return re.compile("^(" + "|".join(re.escape(clock_text(left + shift)) for shift in (-1, 0, 1)) + ")$")


@pytest.mark.parametrize("width,height", [(1920, 1080), (1366, 768)])
async def test_the_clock_screen_shows_the_tournaments_numbers_on_one_screen_and_lives(browser, width, height):
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(30, 6, paid=6, stack=100_000, levels=LEVELS, breaks={"every_levels": 2, "minutes": 5})
        tournament, _ = await create(live, body, 30)
        assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200
        page = await (await browser.new_context(viewport={"width": width, "height": height})).new_page()
        await page.clock.set_fixed_time(time.time())  # the page's time stands still until the test moves it
        await page.goto(f"{live.http}/#/t/{tournament}/clock")
        errors = watch_errors(page)
        await expect(page.locator("#clock-level")).to_have_text("Level 1")
        assert "null" not in await page.locator("#clock").inner_text()  # no announcement: nothing in its place
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["level"] == 1
        # level 2 (ten minutes) comes before the break; both clocks are read at one instant, as floats
        assert shown["break_starts_in"] - shown["level_ends_in"] == pytest.approx(600)
        await expect(page.locator("#clock-blinds")).to_have_text(f"{shown['small_blind']}/{shown['big_blind']}")
        await expect(page.locator("#clock-ante")).to_have_text("No ante")
        await expect(page.locator("#clock-next")).to_have_text("100/200 · ante 25")
        await expect(page.locator("#clock-players")).to_have_text(f"{shown['players_left']} / {shown['entries']}")
        average = shown["average_stack"]
        await expect(page.locator("#clock-average")).to_have_text(
            f"{average:,} ({average / shown['big_blind']:.1f} BB)")
        await expect(page.locator("#clock-pool")).to_have_text(f"${shown['prize_pool_cents'] / 100:,.2f}")
        prizes = shown["payouts_cents"]
        paid = len([cents for cents in prizes if cents])
        await expect(page.locator("#clock-jump")).to_have_text(f"{shown['players_left'] - paid} more out")
        await expect(page.locator("#clock-jump-more")).to_have_text(
            f"{paid} paid · min-cash ${prizes[paid - 1] / 100:,.2f}")
        # The clocks, with the page's time set half a second after the start: level 1 ends ten minutes after the
        # start and the break comes after level 2, to the second the feed gives its moments in (feeds.py, steady).
        started = shown["started_at"]
        await page.clock.set_fixed_time(started + 0.5)
        await expect(page.locator("#clock-time")).to_have_text(to_the_second(600 - 0.5))
        await expect(page.locator("#clock-break")).to_have_text(to_the_second(1200 - 0.5))
        await page.clock.set_fixed_time(started + 5.5)
        await expect(page.locator("#clock-time")).to_have_text(to_the_second(600 - 5.5))  # it runs
        # one screen: nothing scrolls, every figure inside the viewport, the digits big enough for a room
        assert await page.evaluate("document.documentElement.scrollHeight <= innerHeight")
        for name in IDS:  # wholly in view; the screen is drawn again every second, so this waits for a drawn one
            await expect(page.locator(f"#clock-{name}")).to_be_in_viewport(ratio=1)
        digits = await page.locator("#clock-time").evaluate("node => parseFloat(getComputedStyle(node).fontSize)")
        assert digits >= 0.15 * height
        await page.screenshot(path=ARTIFACTS / f"clock-{width}x{height}.png")
        # live: a pause stops the clock and says so; the resume runs it again
        assert (await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN)).status_code == 200
        await expect(page.locator("#clock-state")).to_have_text("Paused")
        paused = (await client.get(f"/api/tournaments/{tournament}")).json()
        await expect(page.locator("#clock-time")).to_have_text(clock_text(paused["level_ends_in"]))
        assert (await client.post(f"/api/tournaments/{tournament}/resume", headers=ADMIN)).status_code == 200
        await expect(page.locator("#clock-state")).to_have_text("")
        assert errors == []


# An AudioContext that plays nothing and records each tone's pitch as it starts, in ``window.tones``
HEARD_TONES = """window.tones = [];
window.AudioContext = class {
  constructor() { this.currentTime = 0; this.destination = {}; }
  createGain() { return { gain: { value: 0 }, connect: (node) => node }; }
  createOscillator() {
    const tone = { frequency: { value: 0 }, connect: (node) => node, stop() {} };
    tone.start = () => window.tones.push(tone.frequency.value);
    return tone;
  }
};"""
RISING = [523, 659, 784]


def prize_bands(prizes: list[int]) -> list[str]:
    """The paid places as the clock screen lists them: places paid alike together, at most ten lines."""
    def ordinal(n: int) -> str:
        return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"
    bands: list[list[int]] = []
    for place, cents in enumerate(prizes, start=1):
        if cents and bands and bands[-1][2] == cents:
            bands[-1][1] = place
        elif cents:
            bands.append([place, place, cents])
    lines = [f"{ordinal(low)}{'' if high == low else f'–{ordinal(high)}'} ${cents / 100:,.2f}"
             for low, high, cents in bands]
    return lines[:10] + ([f"{len(lines) - 10} more"] if len(lines) > 10 else [])


async def test_the_clock_screen_for_a_whole_event_and_the_players_chart_with_its_plan(browser):
    """The director's announcement, the break screen (BREAK and the level after it, big), the time of day, the
    projected finish from the plan, the levels to come and the top prizes; the Players tab's chart draws the plan
    beside the actual field, and the projected end."""
    async with live_server(plan_runs=1) as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(30, 6, paid=12, stack=10_000, levels=LEVELS)  # 10th-12th paid alike
        tournament, _ = await create(live, body, 30)
        base = f"/api/tournaments/{tournament}"
        assert (await client.post(f"{base}/start", headers=ADMIN)).status_code == 200
        runtime = live.runtime(tournament)
        page = await open_as(browser, live, f"/#/t/{tournament}/clock", {}, viewport={"width": 1920, "height": 1080},
                             init_script=HEARD_TONES)
        errors = watch_errors(page)
        shown = (await client.get(base)).json()
        await expect(page.locator("#clock-now")).to_have_text(re.compile(r"^\d{1,2}:\d{2}( [AP]M)?$"))
        await expect(page.locator("#clock-upcoming li")).to_have_text(
            ["Level 2: 100/200 · ante 25 · 10 min", "Level 3: 200/400 · ante 50 · 10 min"])
        bands = prize_bands(shown["payouts_cents"])
        assert any("–" in band for band in bands), bands  # places paid alike, one line
        await expect(page.locator("#clock-prizes li")).to_have_text(bands)
        sound = page.get_by_label("Sound at level changes and breaks")
        await expect(sound).not_to_be_checked()  # off by default: a screen that sounds unasked is a nuisance
        assert await page.evaluate("window.tones") == []
        await sound.check()
        assert await page.evaluate("window.tones") == RISING  # heard at once, so the room knows the sound
        await until(lambda: runtime.plan is not None, timeout=60)
        await expect(page.locator("#clock-finish")).to_have_text(re.compile(r"^\d{1,2}:\d{2}( [AP]M)?$"),
                                                                 timeout=10_000)
        await expect(page.locator("#clock-finish-more")).to_have_text(
            re.compile(r"^the plan of 1 simulation · (on the plan|\d+ min (ahead of|behind) the plan)$"))

        assert (await client.post(f"{base}/announce", json={"text": "Dinner break at level 3"},
                                  headers=ADMIN)).status_code == 200
        await expect(page.locator("#clock-announcement")).to_have_text("Dinner break at level 3")
        assert (await client.post(f"{base}/break", json={"minutes": 5}, headers=ADMIN)).status_code == 200
        await expect(page.locator("#clock-level")).to_have_text("BREAK", timeout=15_000)  # once the hands end
        assert await page.evaluate("window.tones") == RISING + RISING[::-1]  # the break sounds, falling
        await expect(page.locator("#clock-after-break")).to_have_text("Then level 1: 50/100")  # called by hand
        await expect(page.locator("#clock-blinds")).to_have_count(0)
        on_break = (await client.get(base)).json()
        assert on_break["level_after_break"] == 1 and on_break["on_break_for"] > 240
        assert 240 <= seconds(await page.locator("#clock-time").inner_text()) <= 300
        await page.screenshot(path=ARTIFACTS / "clock-break-1920x1080.png")
        for name in ("level", "time", "after-break", "announcement", "now", "finish", "prizes", "upcoming"):
            await expect(page.locator(f"#clock-{name}")).to_be_in_viewport(ratio=1)
        assert await page.evaluate("document.documentElement.scrollHeight <= innerHeight")

        # The Players tab: the plan's field over time, dashed, and the projected end as a mark.
        players = await open_as(browser, live, f"/#/t/{tournament}", {}, viewport={"width": 1366, "height": 900})
        # the tournament page's header gives the break's time left where the level's was
        await expect(players.locator(".summary")).to_contain_text(re.compile(r"Break ends in\s*[45]:\d\d"))
        await tab(players, "players")
        plan = players.locator("#chart-players-left path.plan-line")
        await expect(plan).to_have_count(1, timeout=10_000)
        hours = max(at for at, _ in runtime.plan.players) >= 7200
        unit = 3600 if hours else 60
        drawn_plan = json.loads(await plan.get_attribute("data-points"))
        assert [value for point in drawn_plan for value in point] == pytest.approx(
            [value for at, left in runtime.plan.players for value in (at / unit, left)])
        band = players.locator("#chart-players-left polygon.plan-band")  # the runs' p10 to p90, at the same times
        await expect(band).to_have_count(1)
        drawn_band = json.loads(await band.get_attribute("data-points"))
        assert [value for point in drawn_band for value in point] == pytest.approx(
            [value for (at, _), (low, high) in zip(runtime.plan.players, runtime.plan.spread)
             for value in (at / unit, low, high)])
        assert len(runtime.plan.players) > len(LEVELS)  # sampled by time, not at the levels' starts
        average_plan = players.locator("#chart-average-bb path.plan-line")  # level 1 and the one to come
        assert json.loads(await average_plan.get_attribute("data-points")) == [
            list(point) for point in runtime.plan.average_bb[:2]]
        await expect(players.locator("#chart-players-left line.mark")).to_have_count(1)
        await expect(players.locator("#projected-end")).to_contain_text("Projected end: ")
        await players.screenshot(path=ARTIFACTS / "players-plan-1366x900.png", full_page=True)
        assert errors == []
