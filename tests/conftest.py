"""The suite's markers, given by where a test lives (or what it is), so that the edit loop's tier is one command:
``./dev test --fast`` leaves out Chromium, nats-server, the tests that start mttsim processes, the properties
over generated cases and the modules that play whole tournaments with swarms or simulations (``slow``)
(docs/architecture.md, "Tests")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import TYPE_CHECKING

import pytest
import pytest_asyncio

if TYPE_CHECKING:  # Playwright is imported by the browser fixtures alone, when a browser test asks for one
    from playwright.async_api import Browser

    from tests.browser import Contexts

BY_MODULE = {
    "cluster": {"test_cluster"},
    "process": {"test_cluster", "test_crash_recovery", "test_demo", "test_serve_cli"},
    "slow": {"test_swarm", "test_swarm_gate", "test_swarm_coordinated", "test_swarm_shapes", "test_simulate_jobs",
             "test_cluster_memory", "test_structure_generator", "test_director_scaling", "test_pokerkit_differential",
             "test_phh", "test_tournament_properties"},
}


# The two tests that wait longest on a wall clock they cannot step (a real network's faults, about 200 s; a server
# down a minute), first: the first worker starts them at once and the others take the rest of its share as they
# free up (``--dist worksteal``). Started where the alphabet put them, the network's faults alone ended the suite
# a minute late.
LONGEST_FIRST = ("test_network_faults.py::", "test_a_server_down_a_minute_then_back")


def _longest_first(item: pytest.Item) -> int:
    return next((rank for rank, name in enumerate(LONGEST_FIRST) if name in item.nodeid), len(LONGEST_FIRST))


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    items.sort(key=_longest_first)  # stable: every other test keeps its place
    for item in items:
        module = item.module.__name__.rpartition(".")[2] if item.module is not None else ""
        if module.startswith("test_browser") or "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.browser)
        for marker, modules in BY_MODULE.items():
            if module in modules:
                item.add_marker(marker)
        if hasattr(getattr(item, "obj", None), "hypothesis"):  # given by hypothesis's @given
            item.add_marker(pytest.mark.property)


@pytest_asyncio.fixture(scope="session", loop_scope="session")
async def chromium_browser() -> AsyncIterator[Browser]:
    """Debian's chromium, launched once for the whole run (it took a second or two a test, thirty times)."""
    from playwright.async_api import async_playwright

    from tests.browser import CHROMIUM_FLAGS, chromium

    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(executable_path=chromium(), args=CHROMIUM_FLAGS)
        yield browser
        await browser.close()


@pytest_asyncio.fixture(loop_scope="session")
async def browser(chromium_browser: Browser) -> AsyncIterator[Contexts]:
    """The session's Chromium with a context of the test's own (tests/browser.py's ``Contexts``); a test that
    takes it runs on the session's event loop, the browser's."""
    from tests.browser import Contexts

    contexts = Contexts(chromium_browser)
    yield contexts
    await contexts.close()
