"""Late registration and re-entry end to end: a real server, websocket bots, REST entries while it runs."""

from __future__ import annotations

import httpx
import pytest

from engine.events import HandStarted
from tests.live_server import ADMIN, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio

LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "hands": 4} for sb in (10, 25, 50, 100, 200, 400, 800, 1600)]


async def test_a_late_entry_and_a_reentry_play_to_the_end_with_places_for_all_and_the_ledger_balanced():
    body = definition(40, 4, paid=2, levels=LEVELS, late_registration={"until_level": 8},
                      reentry={"until_level": 8, "max_count": 1})
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, body, 16)  # four full tables
        runtime = live.runtime(tournament)
        director = runtime.director
        bots(live, tournament, seats, "pushfold")
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 16)
        lobby = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert lobby["late_registration"] == {"until_level": 8, "stack": None} and not lobby["late_registration_open"]
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["late_registration_open"] and shown["reentry_open"]

        late = await client.post(f"/api/tournaments/{tournament}/register", json={"name": "late"})
        assert late.status_code == 201, late.text
        player, token = late.json()["player_id"], late.json()["token"]
        assert director.where[player][0] == 5  # every table was full: a fifth opened for it
        bots(live, tournament, [(player, token)], "pushfold", seed=1)
        # Balancing fills the new table and she is dealt in (there, or wherever a break has moved her since).
        await until(lambda: any(isinstance(event, HandStarted) and player in {seat.player for seat in event.players}
                                for _, event in runtime.log))

        tokens = dict(seats)
        await until(lambda: any(entry in director.results for entry in tokens), timeout=60)
        out = next(entry for entry in director.results if entry in tokens)
        as_out = {"Authorization": f"Bearer {tokens[out]}"}
        again = await client.post(f"/api/tournaments/{tournament}/reenter", headers=as_out)
        assert again.status_code == 201, again.text
        new = again.json()["player_id"]
        assert new in director.stacks and director.person(new) == director.person(out)
        assert runtime.player_for(tokens[out]) == new  # the token leads to the new entry now
        twice = await client.post(f"/api/tournaments/{tournament}/reenter", headers=as_out)
        assert twice.status_code == 409 and "has not been eliminated" in twice.json()["message"]
        bots(live, tournament, [(new, tokens[out])], "pushfold", seed=2)

        await until(lambda: director.status.value == "finished", timeout=120)
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["entries"] == 18
        places = sorted(row["place"] for row in shown["results"])
        assert places == list(range(1, 19))  # the old entry and its re-entry each have one
        ledger = shown["ledger"]
        assert ledger["paid_in"] == 18 * 1100 and ledger["held"] == 0
        assert ledger["prizes"] + ledger["fees_kept"] == 18 * 1100
        closed = [event for _, event in runtime.log if type(event).__name__ == "EntriesClosed"]
        assert {(event.kind, event.reason) for event in closed} == {("late_registration", "bubble"),
                                                                     ("reentry", "bubble")}
        refused = await client.post(f"/api/tournaments/{tournament}/register", json={"name": "too late"})
        assert refused.status_code == 409


async def test_registration_while_running_is_refused_without_late_registration():
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(4, 4, levels=LEVELS), 4)
        bots(live, tournament, seats, "station")
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        refused = await client.post(f"/api/tournaments/{tournament}/register", json={"name": "late"})
        assert refused.status_code == 409 and "only in Register" in refused.json()["message"]
        reentry = await client.post(f"/api/tournaments/{tournament}/reenter",
                                    headers={"Authorization": f"Bearer {seats[0][1]}"})
        assert reentry.status_code == 409 and "no re-entry" in reentry.json()["message"]


async def test_the_servers_own_bots_reenter_with_the_chance_they_were_given():
    body = definition(40, 4, paid=2, levels=LEVELS, late_registration={"until_level": 8},
                      reentry={"until_level": 8, "max_count": 1})
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        bad = await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN, json={"count": 8, "reentry": 2})
        assert bad.status_code == 400 and "reentry" in bad.json()["message"]
        added = await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                                  json={"count": 8, "mix": "pushfold", "think_min": 0, "think_max": 0,
                                        "reentry": 1.0})
        assert added.status_code == 201
        runtime = live.runtime(tournament)
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 8)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        director = runtime.director
        await until(lambda: director.status.value == "finished", timeout=120)
        assert director.reentered and set(director.reentered.values()) <= set(runtime.entries.bots)
        assert len(director.entries) == 8 + len(director.reentered)
        assert all(runtime.entries.bot_reentry[entry] == 1.0 for entry in director.reentered.values())
        assert director.ledger.summary()["held"] == 0
