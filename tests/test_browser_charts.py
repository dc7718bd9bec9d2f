"""The tournament's pictures, read back from the SVG they draw and checked against
``GET /api/tournaments/{id}``: the stacks in big blinds now, the players left over time with the levels as bands,
the average stack in big blinds as each level began, and the payout curve on a log scale."""

from __future__ import annotations

import asyncio
import json
import math

import httpx
import pytest
from playwright.async_api import expect

from tests.browser import ARTIFACTS, open_as, tab, watch_errors
from tests.live_server import admin, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio(loop_scope="session")

RISING = [{"small_blind": 10 * 2**k, "big_blind": 20 * 2**k, "hands": 3} for k in range(12)]


def expected_bars(stacks: list[int], big_blind: int) -> list[int]:
    """The histogram as web/charts.js bins it: equal bins from 0 to the largest stack."""
    values = [stack / big_blind for stack in stacks]
    bins = min(12, max(4, math.ceil(math.sqrt(len(values)))))
    width = max(*values, 1) / bins
    counts = [0] * bins
    for value in values:
        counts[min(bins - 1, math.floor(value / width))] += 1
    return counts


def rounded(points):
    return [[round(x, 6), round(y, 6)] for x, y in points]


async def drawn(page) -> dict:
    return await page.evaluate("""() => {
        const points = (id) => {
            const path = document.querySelector(`#${id} path.line`);
            return path ? JSON.parse(path.dataset.points) : null;
        };
        return {
            bars: [...document.querySelectorAll("#chart-stacks rect.bar")].map((bar) => Number(bar.dataset.count)),
            left: points("chart-players-left"),
            average: points("chart-average-bb"),
            bands: [...document.querySelectorAll("#chart-players-left rect.band")].map((band) => band.dataset.label),
        };
    }""")


async def test_the_pictures_draw_the_tournaments_own_numbers(browser):
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live, \
            httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(24, 6, paid=6, stack=2000, levels=RISING), 24)
        bots(live, tournament, seats, "random", seed=3, think=(0.01, 0.03))
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player, _ in seats))
        page = await open_as(browser, live, f"/#/t/{tournament}", {}, viewport={"width": 390, "height": 844})
        errors = watch_errors(page)
        await tab(page, "players")
        assert (await admin(live, tournament, "start")).status_code == 200
        director = runtime.director
        await until(lambda: director.players_left <= 20 and director.level >= 1, timeout=120, step=0.005)
        paused = await admin(live, tournament, "pause")
        assert paused.status_code == 200, (paused.text, director.status, director.players_left, director.level)
        # The field stands still once the hands under way end; then what is drawn is what the API says.
        for _ in range(200):
            shown = (await client.get(f"/api/tournaments/{tournament}")).json()
            stacks = [seat["stack"] for table in shown["table_list"] for seat in table["seats"]]
            timeline = shown["timeline"]
            want = {"bars": expected_bars(stacks, shown["big_blind"]),
                    "left": rounded([[at / 60, left] for at, left in timeline["players"]]),
                    "average": rounded([[level["level"], level["average_bb"]] for level in timeline["levels"]]),
                    "bands": [str(level["level"]) for level in timeline["levels"]]}
            got = await drawn(page)
            got = {**got, "left": rounded(got["left"] or []), "average": rounded(got["average"] or [])}
            if got == want:
                break
            await asyncio.sleep(0.1)
        assert got == want, (got, want)
        assert sum(want["bars"]) == shown["players_left"] == len(stacks)
        assert timeline["players"][0] == [0.0, 24] and timeline["players"][-1][1] == shown["players_left"]
        assert [level["level"] for level in timeline["levels"]] == list(range(1, shown["level"] + 1))
        assert timeline["levels"][0]["average_bb"] == 2000 / 20
        # readable on a phone: each chart as wide as the screen allows, inside it
        for chart in ("chart-stacks", "chart-players-left", "chart-average-bb"):
            box = await page.locator(f"#{chart} svg").bounding_box()
            assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390 and box["width"] >= 300
        await page.screenshot(path=ARTIFACTS / "charts-players-390x844.png", full_page=True)

        await tab(page, "payouts")
        paid = [cents for cents in shown["payouts_cents"] if cents]
        curve = page.locator("#chart-payouts path.line")
        await expect(curve).to_have_count(1)
        assert json.loads(await curve.get_attribute("data-points")) == [[i + 1, c / 100] for i, c in enumerate(paid)]
        ticks = await page.locator("#chart-payouts text.tick").all_text_contents()
        assert "10" in ticks and "100" in ticks  # a log scale: its ticks are powers of ten
        await page.screenshot(path=ARTIFACTS / "charts-payouts-390x844.png", full_page=True)
        assert errors == []
