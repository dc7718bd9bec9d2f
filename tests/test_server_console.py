"""The director's console over REST: a level not yet started edited (409 for a started one), journaled and kept
across a restart; a player moved and the tables balanced by the floor's rules, refused with the rule; hand-for-hand's
state and why; and the log of the director's actions from the audit trail."""

from __future__ import annotations

import contextlib

import httpx
import pytest
from websockets.asyncio.client import connect

from tests.live_server import ADMIN, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio

LEVELS = [{"small_blind": 10, "big_blind": 20, "minutes": 10}, {"small_blind": 20, "big_blind": 40, "minutes": 10},
          {"small_blind": 40, "big_blind": 80, "minutes": 10}]


async def test_a_level_edited_in_the_console_is_the_level_played_and_survives_a_restart(tmp_path):
    db = str(tmp_path / "journal.db")
    async with live_server(hand_pause=0.05, db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(8, 4, levels=LEVELS), 8)
        base = f"/api/tournaments/{tournament}"
        before = await client.post(f"{base}/levels/2", json={"small_blind": 30, "big_blind": 60}, headers=ADMIN)
        assert before.status_code == 200, before.text  # in Register every level is still to come
        bots(live, tournament, seats, "station")
        assert (await client.post(f"{base}/start", headers=ADMIN)).status_code == 200

        started = await client.post(f"{base}/levels/1", json={"small_blind": 5, "big_blind": 10}, headers=ADMIN)
        assert started.status_code == 409 and "level 1 has started" in started.json()["message"]
        for path, body in ((f"{base}/levels/x", {"small_blind": 5, "big_blind": 10}),
                           (f"{base}/levels/3", {"small_blind": 5}),
                           (f"{base}/levels/3", {"small_blind": 5, "big_blind": 10, "blinds": 1})):
            assert (await client.post(path, json=body, headers=ADMIN)).status_code == 400, (path, body)
        inverted = await client.post(f"{base}/levels/3", json={"small_blind": 90, "big_blind": 80}, headers=ADMIN)
        assert inverted.status_code == 409 and "at most the big blind" in inverted.json()["message"]
        assert (await client.post(f"{base}/levels/2", json={"small_blind": 25, "big_blind": 50},
                                  headers={"Authorization": "Bearer nope"})).status_code == 401
        edited = await client.post(f"{base}/levels/2", json={"small_blind": 25, "big_blind": 50, "ante": 5,
                                                             "minutes": 7}, headers=ADMIN)
        assert edited.status_code == 200, edited.text

        # Level 1's time taken away: level 2 starts as edited, and its hands post what the edit says.
        assert (await client.post(f"{base}/clock", json={"seconds": -600}, headers=ADMIN)).status_code == 200
        runtime = live.runtime(tournament)
        await until(lambda: runtime.director.level == 1)
        shown = (await client.get(base)).json()
        assert (shown["small_blind"], shown["big_blind"], shown["ante"]) == (25, 50, 5)
        assert 6 * 60 < shown["level_ends_in"] <= 7 * 60
        await until(lambda: any((hand := runtime.director.hand(t)) is not None and hand.big_blind == 50
                                for t in runtime.director.tables))
        log = (await client.get(f"{base}/director-log", headers=ADMIN)).json()["actions"]
        # The refused edit is in the log with its reason, between the two that were made.
        assert [line["action"] for line in log] == ["Level 2 edited", "Level edit: refused", "Level edit: refused",
                                                     "Level 2 edited", "Clock −600 s"]
        assert [log[0]["result"], log[3]["result"]] == ["30/60, ante 0, 10 min", "25/50, ante 5, 7 min"]
        assert "level 1 has started" in log[1]["result"] and "at most the big blind" in log[2]["result"]
        assert all(line["wall"] > 1.7e9 for line in log) and "on the tournament clock" in log[4]["result"]
        assert (await client.get(f"{base}/director-log")).status_code == 401
    async with live_server(hand_pause=0.05, db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["restored_at"] is not None
        assert (shown["level"], shown["small_blind"], shown["big_blind"], shown["ante"]) == (2, 25, 50, 5)
        assert live.runtime(tournament).director.definition.levels[1].minutes == 7


async def test_a_player_moved_and_the_tables_balanced_by_the_floors_rules_and_every_action_logged():
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(11, 7, levels=LEVELS), 11)  # tables of 6 and 5
        base = f"/api/tournaments/{tournament}"
        bots(live, tournament, seats, "station")
        assert (await client.post(f"{base}/start", headers=ADMIN)).status_code == 200
        runtime = live.runtime(tournament)
        director = runtime.director
        assert (await client.post(f"{base}/pause", headers=ADMIN)).status_code == 200
        assert (await client.post(f"{base}/pause", headers=ADMIN)).status_code == 409  # already: logged too
        await until(lambda: all(director.hand(t) is None for t in director.tables))  # hands in progress finish
        full, short = sorted(director.tables, key=lambda t: -director.tables[t].table.seated)
        mover, staying = director.tables[full].table.players[0], director.tables[short].table.players[0]

        balanced = await client.post(f"{base}/balance", headers=ADMIN)
        assert balanced.status_code == 409 and "balanced (6 and 5 players)" in balanced.json()["message"]
        for body, why in (({"player": staying, "table": full},
                           f"table {full} would seat 7 players and table {short} 4: tables stay within one"),
                          ({"player": mover, "table": full}, f"already sits at table {full}"),
                          ({"player": mover, "table": 99}, "no open table 99"),
                          ({"player": "nobody", "table": short}, "not seated")):
            refused = await client.post(f"{base}/move", json=body, headers=ADMIN)
            assert refused.status_code == 409 and why in refused.json()["message"], (body, refused.text)
        assert (await client.post(f"{base}/move", json={"player": mover}, headers=ADMIN)).status_code == 400
        moved = await client.post(f"{base}/move", json={"player": mover, "table": short}, headers=ADMIN)
        assert moved.status_code == 200, moved.text
        assert director.where[mover][0] == short and director.tables[short].table.seated == 6

        on = await client.post(f"{base}/hand-for-hand", json={"on": True}, headers=ADMIN)
        assert on.json()["hand_for_hand"] and on.json()["hand_for_hand_reason"] == "director"
        off = await client.post(f"{base}/hand-for-hand", json={"on": False}, headers=ADMIN)
        assert off.json()["hand_for_hand_reason"] in (None, "ending")
        assert (await client.post(f"{base}/seat", json={"player": staying, "action": "sit_out"},
                                  headers=ADMIN)).status_code == 200
        assert (await client.post(f"{base}/announce", json={"text": "Dinner at nine"}, headers=ADMIN)).is_success
        assert (await client.post(f"{base}/resume", headers=ADMIN)).status_code == 200

        log = (await client.get(f"{base}/director-log", headers=ADMIN)).json()["actions"]
        # Every refusal is in the log with its reason (the body without a table never reached the director).
        assert [line["action"] for line in log] == ["Paused", "Pause: refused", "Balance now: refused",
                                                    *["Move: refused"] * 4, "Moved", "Hand-for-hand on",
                                                    "Hand-for-hand off", "Sat out", "Announcement", "Resumed"]
        log = log[1:]  # the refused pause: "only a running, unpaused tournament can be paused"
        assert "unpaused" in log[0]["result"]
        assert "balanced (6 and 5 players)" in log[1]["result"] and "no open table 99" in log[4]["result"]
        assert log[2]["player"] == staying and log[2]["name"] == runtime.entries.name(staying)
        moved_line = log[6]
        assert (moved_line["player"], moved_line["name"]) == (mover, runtime.entries.name(mover))
        assert moved_line["result"].startswith(f"table {full} → table {short}, seat ")
        assert log[9]["player"] == staying and log[10]["result"] == "Dinner at nine"


async def test_a_move_asked_during_the_players_hand_waits_for_its_end_and_can_be_withdrawn():
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(11, 6, action_seconds=60, levels=LEVELS), 11)
        base = f"/api/tournaments/{tournament}"
        runtime = live.runtime(tournament)
        director = runtime.director
        # Everyone connected and nobody acting: each table's first hand waits on its first player (60 s); a
        # player never connected would sit out and be played at once.
        async with contextlib.AsyncExitStack() as held:
            for _, token in seats:
                await held.enter_async_context(connect(f"{live.ws}/ws/tournaments/{tournament}?token={token}",
                                                       max_queue=None))
            await until(lambda: all(runtime.streams.connected(player) for player, _ in seats))
            assert (await client.post(f"{base}/start", headers=ADMIN)).status_code == 200
            await until(lambda: all(director.hand(t) is not None for t in director.tables))
            full, short = sorted(director.tables, key=lambda t: -director.tables[t].table.seated)
            mover, other = director.tables[full].table.players[:2]

            queued = await client.post(f"{base}/move", json={"player": mover, "table": short}, headers=ADMIN)
            assert queued.status_code == 200, queued.text
            assert queued.json()["queued_moves"] == [{"player": mover, "name": runtime.entries.name(mover),
                                                       "from_table": full, "to_table": short}]
            assert director.where[mover][0] == full  # in their hand still
            both = await client.post(f"{base}/move", json={"player": other, "table": short}, headers=ADMIN)
            assert [move["player"] for move in both.json()["queued_moves"]] == [mover, other]
            withdrawn = await client.post(f"{base}/withdraw-move", json={"player": other}, headers=ADMIN)
            assert [move["player"] for move in withdrawn.json()["queued_moves"]] == [mover]
            again = await client.post(f"{base}/withdraw-move", json={"player": other}, headers=ADMIN)
            assert again.status_code == 409 and "no move of" in again.json()["message"]

            bots(live, tournament, seats, "station")  # the hands are played now, through a second connection
            await until(lambda: director.where[mover][0] == short)
        assert director.where[other][0] == full
        assert not (await client.get(base)).json()["queued_moves"]
        log = (await client.get(f"{base}/director-log", headers=ADMIN)).json()["actions"]
        assert [line["action"] for line in log] == ["Move queued", "Move queued", "Queued move withdrawn",
                                                    "Withdraw a move: refused", "Queued move made"]
        made = log[-1]
        assert made["name"] == runtime.entries.name(mover) and f"table {full} → table {short}" in made["result"]
        assert made["wall"] > 1.7e9
