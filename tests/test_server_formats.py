"""Tournament formats end to end: a real server, its own websocket bots, played to the end."""

from __future__ import annotations

import httpx
import pytest

from engine.events import HandStarted
from tests.live_server import ADMIN, bots, definition, live_server, until

pytestmark = pytest.mark.asyncio
LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "hands": 3} for sb in (10, 25, 50, 100, 200, 400, 800)]


async def filled_with_pushers(live, client, body, count: int):
    """A tournament filled with the server's own push/fold bots, all connected; returns its id and runtime."""
    tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
    added = await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                              json={"count": count, "mix": "pushfold=1", "think_min": 0, "think_max": 0})
    assert added.status_code == 201
    runtime = live.runtime(tournament)
    await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == count)
    return tournament, runtime


async def test_a_progressive_knockout_plays_to_the_end_with_every_bounty_paid():
    body = definition(12, 4, action_seconds=2, paid=2, levels=LEVELS,
                      bounty={"cents": 400, "progressive_percent": 50})
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await filled_with_pushers(live, client, body, 12)
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["bounty"] == {"cents": 400, "progressive_percent": 50, "mystery": None, "from_players_left": None}
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        seats = (await client.get(f"/api/tournaments/{tournament}")).json()["table_list"][0]["seats"]
        assert all(seat["bounty_cents"] == 400 for seat in seats)  # a bounty on every seat
        director = live.runtime(tournament).director
        await until(lambda: director.status.value == "finished", timeout=60)
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        ledger = shown["ledger"]
        assert ledger["bounties"] == 12 * 400 and ledger["held"] == 0
        assert ledger["prizes"] == 12 * 600 and ledger["paid_in"] == 12 * 1100
        knockouts = [event for _, event in live.runtime(tournament).log if type(event).__name__ == "BountyWon"]
        assert len(knockouts) == 12  # eleven knockouts and the winner's own head


async def test_a_satellite_registers_its_seat_winners_into_the_target_tournament():
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        target = (await client.post("/api/tournaments", json=definition(20, 9, buy_in_cents=2_100),  # + fee 100
                                    headers=ADMIN)).json()["id"]
        body = definition(6, 3, action_seconds=2, levels=LEVELS, satellite={"seat_value_cents": 2200, "target": target})
        satellite, runtime = await filled_with_pushers(live, client, body, 6)
        await client.post(f"/api/tournaments/{satellite}/start", headers=ADMIN)
        await until(lambda: runtime.director.status.value == "finished", timeout=60)
        shown = (await client.get(f"/api/tournaments/{satellite}")).json()
        seats = [r for r in shown["results"] if r["ticket"]]
        assert [r["place"] for r in seats] == [1, 2] and all(r["prize_cents"] == 2200 for r in seats)
        assert next(r for r in shown["results"] if r["place"] == 3)["prize_cents"] == 6 * 1000 - 2 * 2200
        assert shown["ledger"]["tickets"] == 4400 and shown["ledger"]["held"] == 0
        tickets = shown["tickets"]
        assert [t["player"] for t in tickets] == [r["player"] for r in seats] and all(t["entry"] for t in tickets)
        entered = live.runtime(target)
        for ticket in tickets:
            _, token, _, _ = runtime.entries.bots[ticket["player"]]
            assert entered.player_for(token) == ticket["entry"]  # the same token plays the seat it won
            assert entered.entries.names[ticket["entry"]] == ticket["name"]
        assert len(entered.director.entries) == 2 and set(entered.entries.bots) == {t["entry"] for t in tickets}


async def test_multi_entry_over_rest_never_seats_one_persons_entries_together():
    body = definition(12, 3, action_seconds=2, paid=2, levels=LEVELS, entries_per_person=3)
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        register = f"/api/tournaments/{tournament}/register"
        first = (await client.post(register, json={"name": "ann"})).json()
        as_ann = {"Authorization": f"Bearer {first['token']}"}
        ann = [first]
        for _ in range(2):
            again = await client.post(register, json={"name": "ann"}, headers=as_ann)
            assert again.status_code == 201
            ann.append(again.json())
        fourth = await client.post(register, json={"name": "ann"}, headers=as_ann)
        assert fourth.status_code == 409 and "M.50" in fourth.json()["message"]
        others = [(await client.post(register, json={"name": f"bot {n}"})).json() for n in range(9)]
        seats = [(entry["player_id"], entry["token"]) for entry in ann + others]
        bots(live, tournament, seats, "pushfold")
        runtime = live.runtime(tournament)
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 12)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await until(lambda: runtime.director.status.value == "finished", timeout=90)
        anns = {entry["player_id"] for entry in ann}
        hands = [event for _, event in runtime.log if isinstance(event, HandStarted)]
        assert hands and all(len(anns & {seat.player for seat in event.players}) <= 1 for event in hands)
        results = (await client.get(f"/api/tournaments/{tournament}")).json()["results"]
        assert sorted(r["place"] for r in results) == list(range(1, 13))


async def test_two_flights_carry_their_survivors_and_pools_into_the_final_which_plays_to_the_end():
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        final = (await client.post("/api/tournaments", headers=ADMIN, json=definition(
            20, 6, action_seconds=1, paid=2, levels=LEVELS, final={"forward": "best"}))).json()["id"]
        flights = []
        for _ in range(2):
            body = definition(7, 4, action_seconds=1, levels=LEVELS, flight={"final": final, "stop_share_percent": 50})
            flights.append((await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"])
        ann = (await client.post(f"/api/tournaments/{flights[0]}/register", json={"name": "ann"})).json()
        again = await client.post(f"/api/tournaments/{flights[1]}/register", json={"name": "ann"},
                                  headers={"Authorization": f"Bearer {ann['token']}"})
        assert again.status_code == 201 and again.json()["token"] == ann["token"]  # one person, one token
        for flight, entry in zip(flights, (ann, again.json())):
            bots(live, flight, [(entry["player_id"], ann["token"])], "station")
            await client.post(f"/api/tournaments/{flight}/bots", headers=ADMIN,
                              json={"count": 6, "mix": "pushfold=1", "think_min": 0, "think_max": 0})
            runtime = live.runtime(flight)
            await until(lambda runtime=runtime: len([p for p, c in runtime.streams.players.items() if c]) == 7)
            await client.post(f"/api/tournaments/{flight}/start", headers=ADMIN)
        for flight in flights:
            await until(lambda flight=flight: live.runtime(flight).director.status.value == "finished", timeout=60)
        target = live.runtime(final)
        survivors: dict[str, list[int]] = {}
        for flight in flights:
            shown = (await client.get(f"/api/tournaments/{flight}")).json()
            assert shown["ledger"]["carried"] == 7 * 1000 and shown["ledger"]["held"] == 0
            for ticket in shown["tickets"]:
                key = next(k for k, p in live.runtime(flight).entries.tokens.items() if p == ticket["player"])
                survivors.setdefault(key, []).append(ticket["stack"])
        director = target.director
        assert director.ledger.pool_cents == 2 * 7 * 1000
        assert {key: director.stacks[target.entries.tokens[key]] for key in survivors} == {
            key: max(stacks) for key, stacks in survivors.items()}  # the best stack, never the sum (L.48)
        await client.post(f"/api/tournaments/{final}/start", headers=ADMIN)
        await until(lambda: director.status.value == "finished", timeout=90)
        ledger = (await client.get(f"/api/tournaments/{final}")).json()["ledger"]
        assert ledger["prizes"] == 14_000 and ledger["held"] == 0



async def test_a_multi_entry_final_seats_each_qualification_and_the_person_plays_both():
    from websockets.asyncio.client import connect

    from server.tournament import records
    from server.tournament.entries import token_key
    from tests.live_server import receive_json

    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(6, 3, final={"forward": "best"}, entries_per_person=2)
        final = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        runtime = live.runtime(final)
        runtime.submit(records.Qualify("p1", "ann", token_key("ann's token"), 1_500))
        runtime.submit(records.Qualify("p2", "ann", token_key("ann's token"), 900))
        runtime.submit(records.Qualify("p3", "bob", token_key("bob's token"), 1_200))
        assert runtime.director.stacks == {"p1": 1_500, "p2": 900, "p3": 1_200}
        assert runtime.entries.names["p2"] == "ann" and runtime.entries.time_bank["p2"] == 0.0
        url = f"{live.ws}/ws/tournaments/{final}?token=ann's%20token"
        async with connect(url) as first, connect(url + "&entry=p2") as second, \
                connect(f"{live.ws}/ws/tournaments/{final}?token=bob's%20token&entry=p2") as not_bobs:
            assert (await receive_json(first))["you"]["player"] == "p1"
            assert (await receive_json(second))["you"]["player"] == "p2"
            assert (await receive_json(not_bobs))["you"]["player"] == "p3"  # not his entry: his own seat


async def test_a_mystery_bounty_tournament_draws_its_envelopes_over_the_websocket_tables_and_pays_them_all():
    mystery = {"cents": 400, "mystery": [{"cents": 1000}, {"cents": 500, "count": 4}], "from_players_left": 6}
    body = definition(12, 4, action_seconds=2, paid=2, levels=LEVELS, bounty=mystery)
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, runtime = await filled_with_pushers(live, client, body, 12)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        seats = (await client.get(f"/api/tournaments/{tournament}")).json()["table_list"][0]["seats"]
        assert all(seat["bounty_cents"] is None for seat in seats)  # no heads: the bounties are envelopes
        await until(lambda: runtime.director.status.value == "finished", timeout=60)
        drawn = [event for _, event in runtime.log if type(event).__name__ == "MysteryBountyDrawn"]
        knockouts = [event for event in drawn if event.victim]
        # 4,800 cents paid in for 3,000 listed: the envelopes are 1,600 and 4 x 800.
        assert 1 <= len(knockouts) <= 5 and {event.envelope for event in knockouts} <= {1_600, 800}
        assert sum(sum(event.cash_cents) for event in drawn) == 12 * 400
        ledger = (await client.get(f"/api/tournaments/{tournament}")).json()["ledger"]
        assert ledger["bounties"] == 12 * 400 and ledger["held"] == 0
