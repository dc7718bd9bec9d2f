"""An announced tournament (rules.md F.23, Waiting): registration opens at its time or by the admin, and it starts
at its time by itself."""

from __future__ import annotations

import time

import httpx
import pytest

from engine.director import Status
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import ADMIN, definition, live_server, until
from tests.tournaments import definition as rules

pytestmark = pytest.mark.asyncio


async def test_an_announced_tournament_waits_then_opens_and_starts_on_time():
    now = time.time()
    runtime = TournamentRuntime.create("w", rules(3, registration_opens_at=now + 1.0, starts_at=now + 2.0),
                                       MemoryStorage(), hand_pause=0)
    runtime.keep_time()
    assert runtime.director.status is Status.WAITING and runtime.summary().starts_at == now + 2.0
    with pytest.raises(Exception, match="only in Register"):
        runtime.register("too early")
    await until(lambda: runtime.director.status is Status.REGISTER, timeout=30)
    for name in ("ann", "bob", "cy"):
        runtime.register(name)
    await until(lambda: runtime.director.status is Status.RUNNING, timeout=30)
    assert runtime.session.started_wall >= now + 2.0
    await runtime.shutdown()


async def test_below_the_minimum_an_announced_start_cancels_and_refunds():
    now = time.time()
    runtime = TournamentRuntime.create("w", rules(3, min_players=3, starts_at=now + 0.5), MemoryStorage(),
                                       hand_pause=0)
    runtime.keep_time()
    runtime.register("ann")
    await until(lambda: runtime.director.status is Status.CANCELLED, timeout=30)
    assert [r.cents for r in runtime.director.refunds] == [1_100]
    await runtime.shutdown()


async def test_the_admin_opens_an_announced_tournament_early_and_the_lobby_shows_its_times():
    later = time.time() + 3600
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(4, 4, registration_opens_at=later, starts_at=later + 600)
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        (shown,) = (await client.get("/api/tournaments")).json()
        assert shown["status"] == "waiting" and shown["registration_opens_at"] == later
        assert (await client.post(f"/api/tournaments/{tournament}/register", json={"name": "a"})).status_code == 409
        opened = await client.post(f"/api/tournaments/{tournament}/open", headers=ADMIN)
        assert opened.status_code == 200 and opened.json()["status"] == "register"
        assert (await client.post(f"/api/tournaments/{tournament}/register", json={"name": "a"})).status_code == 201
        again = await client.post(f"/api/tournaments/{tournament}/open", headers=ADMIN)
        assert again.status_code == 409
