"""Test helper: what the browser tests share (Debian's chromium, the page sizes, a page's errors, a player's
page), kept out of the test modules so that none imports another."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from axe_playwright_python.async_playwright import Axe
from playwright.async_api import Browser, BrowserContext, Page, expect

from tests.live_server import bots, create, until
from tests.tournaments import AllBut, rig_winners


ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"


CHROMIUM_FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                  "--disable-background-networking", "--disable-component-update"]


def chromium() -> str:
    path = shutil.which("chromium")
    assert path, "Debian's chromium is missing: ./dev test installs it with apt-get"
    return path


class Contexts:
    """The suite's one Chromium, as a test sees it (the ``browser`` fixture of tests/conftest.py): every context or
    page it opens is its own, and is closed when the test ends, so that no cookie, storage or socket crosses from
    one test to the next."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.opened: list[BrowserContext] = []

    async def new_context(self, **options: Any) -> BrowserContext:
        context = await self.browser.new_context(**options)
        self.opened.append(context)
        return context

    async def new_page(self, **options: Any) -> Page:
        return await (await self.new_context(**options)).new_page()

    async def close(self) -> None:
        for context in self.opened:
            await context.close()


async def my_turn(page):
    await expect(page.locator(".controls.mine")).to_be_visible(timeout=20_000)


SIZES = {"desktop": {"width": 1366, "height": 900}, "phone": {"width": 390, "height": 844}}


WIDTH = "document.documentElement.scrollWidth"


def watch_errors(page) -> list[str]:
    """Every console error and uncaught exception of ``page`` (a favicon's 404 included), for a test to assert none."""
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    return errors


async def grave_violations(page) -> list[str]:
    """What axe-core (Deque's accessibility rules, WCAG 2.1 AA) finds serious or critical on ``page`` as it is
    now: one line a rule, with its impact and the first elements it names."""
    found = (await Axe().run(page)).response["violations"]
    return [f"{v['id']} ({v['impact']}): {[node['target'] for node in v['nodes'][:3]]}" for v in found
            if v["impact"] in ("serious", "critical")]


# Where a thumb taps: the controls of one's turn and before it, and the money dialogs.
TAP_TARGETS = (".controls button, .controls input:not([type=checkbox]), .controls label, .dialog button")


async def small_targets(page, selector: str = TAP_TARGETS, least: float = 44) -> list[str]:
    """The visible tap targets under ``selector`` smaller than ``least`` CSS pixels either way, as text."""
    return await page.evaluate("""([selector, least]) => [...document.querySelectorAll(selector)]
        .filter((node) => node.offsetParent !== null)
        .map((node) => [node, node.getBoundingClientRect()])
        .filter(([, box]) => box.width < least || box.height < least)
        .map(([node, box]) => `${node.id || node.className || node.tagName} ${node.textContent.trim().slice(0, 20)}`
             + ` ${Math.round(box.width)}x${Math.round(box.height)}`)""", [selector, least])


async def tab(page, name: str) -> None:
    await page.click(f"#tab-{name}")


async def open_as(browser, live, path: str, storage: dict[str, str], *,
                  viewport: dict[str, int] | None = None, init_script: str | None = None):
    """A page whose localStorage holds ``storage`` (a player's seat, the admin token) before it loads ``path``;
    ``init_script`` runs before the page's own scripts."""
    page = await (await browser.new_context(viewport=viewport or {"width": 1400, "height": 1000})).new_page()
    if init_script is not None:
        await page.add_init_script(init_script)
    await page.goto(live.http + "/")
    for key, value in storage.items():
        await page.evaluate("([k, v]) => localStorage.setItem(k, v)", [key, value])
    await page.goto(live.http + path)
    return page


# The admin's Generate fits the levels on quick simulations: on a busy machine, a minute or two
FITTING_MS = 180_000


async def generated_in_the_lobby(browser, live, players: int, hours: float):
    """The admin's lobby, a structure generated for ``players`` in ``hours`` into its definition box; the page
    and its errors."""
    page = await open_as(browser, live, "/", {"mttsim:admin": "admin-token"})
    errors = watch_errors(page)
    await page.fill("#structure-players", str(players))
    await page.fill("#structure-hours", f"{hours:g}")
    await page.click("#generate")
    await expect(page.locator("#message")).to_contain_text("A structure of", timeout=FITTING_MS)
    return page, errors


async def alice_among_stations(live, browser, body, players: int, *, rig: bool = False, name: str | None = None):
    """Alice (p1) plays in the browser; the others are calling stations (with ``rig``, she never wins a pot)."""
    tournament, seats = await create(live, body, players)
    (alice, token), others = seats[0], seats[1:]
    if name is not None:
        live.runtime(tournament).entries.names[alice] = name
    if rig:
        rig_winners(live.runtime(tournament).director, AllBut(alice))
    bots(live, tournament, others, "station")
    page = await open_as(browser, live, f"/#/t/{tournament}", {
        f"mttsim:seat:{tournament}": json.dumps({"player_id": alice, "token": token})})
    # Everyone at the table before the start: a player seated before their first connection sits out.
    runtime = live.runtime(tournament)
    await until(lambda: all(runtime.streams.connected(player) for player in runtime.director.stacks))
    return tournament, alice, page
