"""What the server refuses to show and to take (docs/security.md): each test failed before its fix."""

from __future__ import annotations

import asyncio
import json
import time

import httpx
import pytest

from tests.live_server import ADMIN, Watcher, create, definition, live_server

pytestmark = pytest.mark.asyncio


def hole_cards(phh: str) -> dict[str, str]:
    """Seat ("p1") -> the cards the history deals them, from its actions line."""
    actions = json.loads(next(line for line in phh.splitlines() if line.startswith("actions = "))[10:])
    return {action.split()[2]: action.split()[3] for action in actions if action.startswith("d dh ")}


async def test_a_hand_history_shows_hole_cards_only_to_whom_they_belong_or_when_shown():
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(6, 6, action_seconds=5), 0)
        await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                          json={"count": 6, "mix": "tag=1", "think_min": 0, "think_max": 0})
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        base = f"/api/tournaments/{tournament}/hands"
        found = None
        for _ in range(1000):  # a hand in which somebody folded without showing (tight bots fold most hands)
            for row in (await client.get(base)).json()["hands"]:
                full = (await client.get(f"{base}/{row['hand']}", headers=ADMIN)).text
                actions = json.loads(next(line for line in full.splitlines() if line.startswith("actions = "))[10:])
                shown = {action.split()[0] for action in actions if " sm " in action}
                if len(shown) < len(row["players"]) - 1 and "p1" not in shown:
                    found = row, full, shown
                    break
            if found:
                break
            await asyncio.sleep(0.02)
        assert found, "no hand with an unshown player"
        row, full, shown = found
        everything = hole_cards(full)
        assert len(everything) == len(row["players"]) and "????" not in everything.values()
        anonymous = hole_cards((await client.get(f"{base}/{row['hand']}")).text)
        assert anonymous == {seat: everything[seat] if seat in shown else "????" for seat in everything}
        runtime = live.runtime(tournament)
        owner = row["players"][0]
        _, token, _, _ = runtime.entries.bots[owner]
        mine = hole_cards((await client.get(f"{base}/{row['hand']}",
                                            headers={"Authorization": f"Bearer {token}"})).text)
        assert mine == {**anonymous, "p1": everything["p1"]} and anonymous["p1"] == "????"


async def test_a_body_over_its_limit_is_refused_with_413_before_it_is_read_whole():
    from server.api.edge import MAX_BODY_BYTES

    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 0)
        register = f"/api/tournaments/{tournament}/register"
        declared = await client.post(register, content=b"x" * (MAX_BODY_BYTES + 1))
        assert declared.status_code == 413 and declared.json()["error"] == "too_large"

        async def endless():  # no content-length: the body is counted as it comes, and cut off
            for _ in range(10_000):
                yield b"x" * 65536

        streamed = await client.post(register, content=endless())
        assert streamed.status_code == 413
        assert len(live.runtime(tournament).director.entries) == 0
        ok = await client.post(register, json={"name": "ann"})
        assert ok.status_code == 201


async def test_deeply_nested_bodies_and_definitions_are_refused_naming_the_depth():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 0)
        deep = b'{"name": ' + b"[" * 5000 + b"]" * 5000 + b"}"
        refused = await client.post(f"/api/tournaments/{tournament}/register", content=deep)
        assert refused.status_code == 400 and "deeper" in refused.json()["message"]
        bomb = ('name = "x"\nseats_per_table = 2\nlevels = ' + "[" * 20_000 + "]" * 20_000).encode()
        for body, kind in ((b'{"name": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "application/json"),
                           (bomb, "application/toml")):
            answer = await client.post("/api/tournaments", content=body, headers={**ADMIN, "content-type": kind})
            assert answer.status_code == 400 and "deeper" in answer.json()["message"]


async def test_non_finite_numbers_and_integers_past_2_53_are_refused_at_load_naming_the_key():
    toml = ('name = "x"\nseats_per_table = 2\nstarting_stack = 100\nbuy_in_cents = 0\nfee_cents = 0\n'
            'min_players = 2\nmax_players = 4\n[[payouts]]\nplaces = "1"\npercent = 100\n'
            '[[levels]]\nsmall_blind = 1\nbig_blind = 2\nminutes = {minutes}\n')
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        toml_headers = {**ADMIN, "content-type": "application/toml"}
        for bad, key in (("inf", "$.levels[0].minutes"), ("nan", "$.levels[0].minutes")):
            answer = await client.post("/api/tournaments", content=toml.format(minutes=bad), headers=toml_headers)
            assert answer.status_code == 400 and key in answer.json()["message"], answer.text
        body = json.dumps(definition(4, 4)).replace('"action_seconds": 2.0', '"action_seconds": 1e999')
        answer = await client.post("/api/tournaments", content=body, headers=ADMIN)
        assert answer.status_code == 400 and "$.action_seconds" in answer.json()["message"]
        huge = {**definition(4, 4), "buy_in_cents": 2**70}
        answer = await client.post("/api/tournaments", json=huge, headers=ADMIN)
        assert answer.status_code == 400 and "buy_in_cents" in answer.json()["message"]
        # Past 2^53 - 1 a browser's JSON shows an amount wrong; the key is named
        rebuys = {"levels": 2, "price_cents": 1000, "chips": 1000}
        for key, body in (("$.starting_stack", {"starting_stack": 2**53}), ("$.fee_cents", {"fee_cents": 2**62}),
                          ("$.added_cents", {"added_cents": 2**53}),
                          ("$.rebuys.price_cents", {"rebuys": {**rebuys, "price_cents": 2**60}}),
                          ("$.rebuys.chips", {"rebuys": {**rebuys, "chips": 2**60}})):
            answer = await client.post("/api/tournaments", json={**definition(4, 4), **body}, headers=ADMIN)
            assert answer.status_code == 400 and key in answer.json()["message"], answer.text
            assert "2^53 - 1" in answer.json()["message"]
        # A duration past a sane bound (2^64 seconds was taken): refused, naming the key and the bound
        level = definition(4, 4)["levels"][0]
        for key, bound, body in (
                ("$.action_seconds", "<= 600", {"action_seconds": 2**64}),
                ("$.time_bank_seconds", "<= 3600", {"time_bank_seconds": 2**64}),
                ("$.deal_seconds", "<= 3600", {"deal_seconds": 1e9}),
                ("levels[0]", "at most 1,440 minutes", {"levels": [{**level, "minutes": 2**64}]}),
                ("levels[0]", "10,000 hands", {"levels": [{**{k: v for k, v in level.items() if k != "minutes"},
                                                           "hands": 10**6}]}),
                ("$.levels[0].break_minutes", "<= 1440", {"levels": [{**level, "break_minutes": 2**40}]})):
            answer = await client.post("/api/tournaments", json={**definition(4, 4), **body}, headers=ADMIN)
            message = answer.json()["message"]
            assert answer.status_code == 400 and key in message and bound in message, answer.text
        assert (await client.get("/api/tournaments")).json() == []  # nothing was created


async def test_no_two_persons_hold_names_that_look_the_same_and_a_name_is_kept_in_nfc():
    """"аdmin" with a Cyrillic "а" beside "admin", "éve" composed and decomposed, and a second "bob"
    were all accepted; then "Bob " and " bob", Lisu "ꓮnna" beside "Anna", "I"/"l", "O"/"0", "ℌ"/"H" and fullwidth
    "ａｄｍｉｎ". A name is kept in NFC, trimmed, its inner spaces folded, and one that looks like another person's
    (NFKC, UTS #39's skeleton, case-folded) is refused with ``name_taken``; the same person's second entry keeps
    their name."""
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        body = {**definition(12, 9), "entries_per_person": 2}
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        register = f"/api/tournaments/{tournament}/register"
        first = {}
        for name in ("admin", "bob", "\u00e9ve", "Anna", "Ian", "OTTO", "Henry", "Jo Ann"):
            answer = await client.post(register, json={"name": name})
            assert answer.status_code == 201, answer.text
            first[name] = answer.json()["token"]
        for lookalike in ("\u0430dmin", "ADMIN", "bob", "Bob", "e\u0301ve", "b\u043eb", "Bob ", " bob", "\ua4eenna",
                          "lan", "0TT0", "\u210cenry", "\uff41\uff44\uff4d\uff49\uff4e", "Jo  Ann", "jo\u00a0ann"):
            answer = await client.post(register, json={"name": lookalike})
            assert answer.status_code == 409 and answer.json()["error"] == "name_taken", (lookalike, answer.text)
        again = await client.post(register, json={"name": "bob"}, headers={"Authorization": f"Bearer {first['bob']}"})
        assert again.status_code == 201, again.text  # bob's own second entry
        decomposed = await client.post(register, json={"name": " zo\u0065\u0308  \u3000 van  Dam "})
        assert decomposed.status_code == 201
        assert set(live.runtime(tournament).entries.names.values()) == {
            "admin", "bob", "\u00e9ve", "Anna", "Ian", "OTTO", "Henry", "Jo Ann", "zo\u00eb van Dam"}


async def test_odd_parameters_and_tokens_get_clean_refusals():
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    from tests.live_server import receive_json

    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(4, 4), 2)
        base = f"/api/tournaments/{tournament}"
        odd = {"Authorization": "Bearer t\u00e9st".encode("latin-1")}
        assert (await client.post(f"{base}/start", headers=odd)).status_code == 401
        assert (await client.post(f"{base}/unregister", headers=odd)).status_code == 401
        assert (await client.get(f"{base}/hands", params={"table": "9" * 40})).status_code == 400
        assert (await client.get(f"{base}/hands", params={"table": "\u00b2"})).status_code == 400
        assert (await client.get(f"{base}/hands/\u00b2")).status_code == 404
        for mix in ("tag=nan", "tag=inf", "tag=-1"):
            answer = await client.post(f"{base}/bots", headers=ADMIN, json={"count": 1, "mix": mix})
            assert answer.status_code == 400 and "weight" in answer.json()["message"]
        answer = await client.post(f"{base}/bots", headers=ADMIN, content=b'{"count": 1, "think_max": 1e999}')
        assert answer.status_code == 400
        async with connect(f"{live.ws}/ws/tournaments/{tournament}?table=%C2%B2") as websocket:
            refusal = await receive_json(websocket)
            assert refusal == {"type": "error", "code": "bad_request", "message": "table: a table number"}
            with pytest.raises(ConnectionClosed) as closed:
                await websocket.recv()
            assert closed.value.rcvd.code == 4400
        assert len(live.runtime(tournament).director.entries) == 2  # nothing changed


async def test_bots_are_added_all_or_none_and_reach_the_server_by_its_own_address():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 2)
        base = f"/api/tournaments/{tournament}"
        too_many = await client.post(f"{base}/bots", headers=ADMIN, json={"count": 3, "think_max": 0})
        assert too_many.status_code == 409 and "2 seats left" in too_many.json()["message"]
        assert len(live.runtime(tournament).director.entries) == 2
        lied = await client.post(f"{base}/bots", json={"count": 2, "think_max": 0},
                                 headers={**ADMIN, "Host": "attacker.invalid:1"})
        assert lied.status_code == 201
        assert live.runtime(tournament).bots.ws_url == live.ws


async def test_a_tournament_cancelled_while_paused_does_not_resume():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 4)
        base = f"/api/tournaments/{tournament}"
        for command in ("start", "pause", "cancel"):
            assert (await client.post(f"{base}/{command}", headers=ADMIN)).status_code == 200
        refused = await client.post(f"{base}/resume", headers=ADMIN)
        assert refused.status_code == 409 and refused.json()["error"] == "not_running"
        assert (await client.get(base)).json()["status"] == "cancelled"


async def test_an_observer_who_came_before_the_start_is_given_a_table_at_the_draw():
    from websockets.asyncio.client import connect

    from tests.live_server import receive_json

    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 4)
        async with connect(f"{live.ws}/ws/tournaments/{tournament}") as websocket:
            first = await receive_json(websocket)
            assert first["type"] == "snapshot" and first["table"] is None
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
            while (message := await receive_json(websocket))["type"] != "snapshot":
                pass
            assert message["table"]["id"] == 1 and len(message["table"]["seats"]) == 4


async def test_the_voluntary_rebuy_is_taken_live_during_a_hand_and_its_chips_arrive_when_it_ends():
    from engine.wire import Rebuy

    rebuys = {"levels": 1, "price_cents": 500, "chips": 1000, "allowed_at": "starting_stack", "max_count": 3}
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4, action_seconds=5, rebuys=rebuys), 0)
        await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                          json={"count": 4, "mix": "station=1", "think_min": 0.05, "think_max": 0.05})
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        runtime = live.runtime(tournament)
        director = runtime.director
        for _ in range(500):
            hand = director.hand(1)
            if hand is not None and not hand.finished:
                player = next((p for p in hand.players if director.stacks[p] <= 1000), None)
                if player is not None:
                    break
            await asyncio.sleep(0.01)
        runtime.player_money(player, Rebuy())  # refused before: "re-buy between hands", and there never is one
        assert director.rebuys_taken[player] == 1 and director.chips_in_play() == director.chips_issued
        assert director.ledger.balances()
        number = director.hand_number(1)
        assert director.pending.chips_of(player) == 1000  # on the way: the hand is still on
        while director.hand_number(1) == number:  # the next hand: this one has ended
            await asyncio.sleep(0.01)
        assert not director.pending.has_chips() and director.chips_in_play() == director.chips_issued


async def test_a_player_reconnecting_in_a_loop_costs_their_table_one_presence_message_a_tick():
    from server.storage import MemoryStorage
    from server.tournament.runtime import TournamentRuntime
    from server.tournament.streams import PRESENCE_TICK
    from tests.tournaments import definition as rules

    runtime = TournamentRuntime.create("t", rules(4, action_seconds=60), MemoryStorage(), hand_pause=0)
    for number in range(4):
        runtime.register(f"player {number}")
    runtime.start()
    watcher = Watcher()
    runtime.connect(watcher, 1)
    player = runtime.director.tables[1].table.players[0]
    for _ in range(200):  # within one turn of the event loop, as fast as a loop can
        connection = Watcher(player)
        runtime.connect(connection, None)
        runtime.disconnect(connection)
    runtime.connect(Watcher(player), None)  # and it ends connected
    await asyncio.sleep(PRESENCE_TICK * 4)
    told = [m["event"] for m in watcher.messages if m["type"] == "event" and m["event"]["type"] == "presence"]
    assert told == [{"type": "presence", "player": player, "connected": True}]
    await runtime.shutdown()


async def test_connections_per_token_are_rate_limited():
    from websockets.asyncio.client import connect
    from websockets.exceptions import ConnectionClosed

    from tests.live_server import receive_json

    async with live_server() as live:
        tournament, seats = await create(live, definition(4, 4), 2)
        (_, token), (_, other) = seats
        refused = 0
        for _ in range(40):
            async with connect(f"{live.ws}/ws/tournaments/{tournament}?token={token}") as websocket:
                first = await receive_json(websocket)
                if first["type"] == "error":
                    assert first["code"] == "too_many_connections"
                    with pytest.raises(ConnectionClosed) as closed:
                        await websocket.recv()
                    assert closed.value.rcvd.code == 4029
                    refused += 1
        assert refused > 0  # a burst of 10, then 2 a second: 40 in a row are too many
        async with connect(f"{live.ws}/ws/tournaments/{tournament}?token={other}") as websocket:
            assert (await receive_json(websocket))["type"] == "snapshot"  # another player is not held back


async def test_a_large_tournaments_details_come_a_page_at_a_time_and_are_built_once_per_state(monkeypatch):
    import server.tournament.views

    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(3000, 9, action_seconds=60), 0)
        runtime = live.runtime(tournament)
        for number in range(3000):
            runtime.register(f"player {number}")
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN)  # hold the state still
        builds = []
        real = server.tournament.views.details
        monkeypatch.setattr(server.tournament.views, "details", lambda *args: builds.append(args) or real(*args))
        began = time.monotonic()
        first = await client.get(f"/api/tournaments/{tournament}")
        for _ in range(20):
            await client.get(f"/api/tournaments/{tournament}")
        assert len(builds) <= time.monotonic() - began + 2  # one build a second at most, not one a request
        shown = first.json()
        assert len(shown["table_list"]) == 100 and shown["pages"] == 4 and shown["tables"] == 334
        last = (await client.get(f"/api/tournaments/{tournament}", params={"page": 3})).json()
        assert [t["id"] for t in last["table_list"]] == sorted(runtime.director.tables)[300:]
        assert (await client.get(f"/api/tournaments/{tournament}", params={"page": "x"})).status_code == 400



async def test_a_large_running_tournaments_readers_share_one_build_a_second_while_it_plays(monkeypatch):
    """32 readers of a running 3,000-player tournament's details slowed a small tournament's actions
    on the same server from 2.3 to 22.4 ms: each decision wrote a record, so each reader built the details
    anew. A large tournament's details are held for a second, and every reader is served the same bytes."""
    import server.tournament.views
    from server.tournament.runtime import DETAILS_HELD_SECONDS, LARGE_DETAILS

    async with live_server(hand_pause=0) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(LARGE_DETAILS, 9, action_seconds=0.05), 0)
        runtime = live.runtime(tournament)
        for number in range(LARGE_DETAILS):
            runtime.register(f"player {number}")
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)  # every clock runs out: it plays
        builds = []
        real = server.tournament.views.details
        monkeypatch.setattr(server.tournament.views, "details", lambda *args: builds.append(args) or real(*args))
        began, position = time.monotonic(), runtime.journal.position

        async def reader() -> set[bytes]:
            seen = set()
            while time.monotonic() - began < 3 * DETAILS_HELD_SECONDS:
                seen.add((await client.get(f"/api/tournaments/{tournament}")).content)
            return seen

        bodies = set().union(*await asyncio.gather(*(reader() for _ in range(16))))
        elapsed = time.monotonic() - began
        assert runtime.journal.position > position + 20  # it played on, a record a decision
        assert 1 <= len(builds) <= elapsed / DETAILS_HELD_SECONDS + 2, (len(builds), elapsed)
        assert len(bodies) == len(builds)  # each reader was served a build's bytes
