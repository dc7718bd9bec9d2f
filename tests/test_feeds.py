"""The lobby and a tournament's page as live feeds (a snapshot, then numbered changes of only the rows
that changed), table chat with its limits, and the director's console over REST."""

from __future__ import annotations

import asyncio
from typing import Any

import httpx
import msgspec
import pytest
from websockets.asyncio.client import connect

from tests.live_server import ADMIN, bots, create, definition, live_server, receive_json, until

pytestmark = pytest.mark.asyncio


async def next_of(websocket: Any, kind: str, timeout: float = 10.0, **match: Any) -> dict[str, Any]:
    """The next message of ``kind`` (and with the fields in ``match``), the others skipped."""
    async def wait() -> dict[str, Any]:
        while True:
            message = await receive_json(websocket, timeout)
            if message["type"] == kind and all(message.get(k) == v for k, v in match.items()):
                return message
    return await asyncio.wait_for(wait(), timeout)


async def feed_until(websocket: Any, rows: dict[str, Any], seq: int, done: Any) -> int:
    """Apply numbered feed changes to ``rows`` until ``done(rows)``; every change numbered one more."""
    while not done(rows):
        message = await next_of(websocket, "feed")
        assert not message["snapshot"] and message["seq"] == seq + 1
        seq = message["seq"]
        for key, row in message["rows"].items():
            if row is None:
                rows.pop(key, None)
            else:
                rows[key] = row
    return seq


async def test_the_lobby_feed_sends_a_snapshot_then_only_what_changed():
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        quiet, _ = await create(live, definition(4, 4), 0)
        two_levels = [{"small_blind": 10, "big_blind": 20, "minutes": 10},
                      {"small_blind": 20, "big_blind": 40, "minutes": 10}]
        tournament, _ = await create(live, definition(6, 6, levels=two_levels), 2)
        async with connect(f"{live.ws}/ws/lobby") as lobby:
            first = await next_of(lobby, "feed", feed="lobby")
            assert first["snapshot"] and set(first["rows"]) == {quiet, tournament}
            assert first["rows"][tournament]["status"] == "register" and first["rows"][tournament]["entries"] == 2
            rows, seq = dict(first["rows"]), first["seq"]
            await client.post(f"/api/tournaments/{tournament}/register", json={"name": "late"})
            change = await next_of(lobby, "feed")
            assert change["seq"] == seq + 1 and set(change["rows"]) == {tournament}  # the quiet one is not resent
            assert change["rows"][tournament]["entries"] == 3
            rows.update(change["rows"])
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
            seq = await feed_until(lobby, rows, change["seq"], lambda r: r[tournament]["status"] == "running")
            level_ends_at = rows[tournament]["level_ends_at"]
            assert level_ends_at is not None and rows[tournament]["level_ends_in"] is None  # a moment, not a countdown


async def test_a_tournaments_board_follows_its_players_and_tables_and_the_chat_has_limits():
    async with live_server(hand_pause=0.05) as live:
        tournament, seats = await create(live, definition(4, 4, action_seconds=1), 4)
        (me, token), (_, other_token) = seats[0], seats[1]
        bots(live, tournament, seats[2:], "station")
        async with httpx.AsyncClient(base_url=live.http) as client:
            await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        # Unbounded client queues: a socket this test stops reading would otherwise stop reading its close frame.
        async with connect(f"{live.ws}/ws/tournaments/{tournament}?token={token}", max_queue=None) as mine, \
                connect(f"{live.ws}/ws/tournaments/{tournament}?token={other_token}", max_queue=None) as theirs, \
                connect(f"{live.ws}/ws/tournaments/{tournament}?table=1", max_queue=None) as watcher:
            await mine.send('{"type": "follow"}')
            board = await next_of(mine, "feed", feed="board")
            assert board["snapshot"]
            rows = board["rows"]
            assert {"summary", "info", "t:1", f"p:{me}"} <= set(rows) and rows[f"p:{me}"]["table"] == 1
            assert rows["info"]["levels"][0]["big_blind"] == 20 and rows["info"]["payouts_cents"]
            await mine.send('{"type": "say", "text": "good luck\\u0007 all"}')
            said = await next_of(watcher, "chat")
            assert said == {**said, "player": me, "name": "bot 0", "text": "good luck all"}
            await next_of(theirs, "chat", player=me)
            await watcher.send('{"type": "say", "text": "hi"}')
            assert (await next_of(watcher, "error"))["code"] == "observer"
            await mine.send('{"type": "say", "text": "' + "x" * 201 + '"}')
            assert (await next_of(mine, "error"))["code"] == "invalid_message"
            for _ in range(3):
                await mine.send('{"type": "say", "text": "spam"}')
            assert (await next_of(mine, "error"))["code"] == "chat_limit"  # a burst of three after the first
            async with connect(f"{live.ws}/ws/tournaments/{tournament}?token={token}", max_queue=None) as again:
                history = await next_of(again, "chat_history")  # after the snapshot: what was said, not refused
                assert [line["text"] for line in history["lines"]] == ["good luck all", "spam", "spam"]
            # Nobody acts for p1 and p2 here: their clocks fold them, the stations play on, stacks change.
            unchanged = {key: row for key, row in rows.items() if key.startswith("p:")}
            seq = await feed_until(mine, rows, board["seq"], lambda r: any(
                r.get(key, {}).get("stack") != 1000 for key in unchanged))
            assert seq > board["seq"] and sum(row["stack"] for key, row in rows.items() if key.startswith("p:")) == 4000


async def test_the_directors_console_over_rest():
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(8, 4, action_seconds=0.5, levels=[{"small_blind": 10, "big_blind": 20, "minutes": 10},
                                                           {"small_blind": 20, "big_blind": 40, "minutes": 10}])
        tournament, seats = await create(live, body, 8)
        base = f"/api/tournaments/{tournament}"
        await client.post(f"{base}/start", headers=ADMIN)
        async with connect(f"{live.ws}/ws/tournaments/{tournament}?token={seats[0][1]}", max_queue=None) as mine:
            assert (await client.post(f"{base}/clock", json={"seconds": 60})).status_code == 401  # admin only
            before = (await client.get(base)).json()["level_ends_in"]
            answer = await client.post(f"{base}/clock", json={"seconds": 120}, headers=ADMIN)
            assert answer.status_code == 200 and answer.json()["level_ends_in"] > before + 100
            bad = await client.post(f"{base}/clock", json={"seconds": "soon"}, headers=ADMIN)
            assert bad.status_code == 400 and "seconds" in bad.json()["message"]
            forced = await client.post(f"{base}/hand-for-hand", json={"on": True}, headers=ADMIN)
            assert forced.json()["hand_for_hand"]
            told = await client.post(f"{base}/announce", json={"text": "Dinner at level 4"}, headers=ADMIN)
            assert told.status_code == 200
            assert (await next_of(mine, "announcement"))["text"] == "Dinner at level 4"
            sat = await client.post(f"{base}/seat", json={"player": seats[1][0], "action": "sit_out"}, headers=ADMIN)
            assert sat.status_code == 200
            pause = await client.post(f"{base}/break", json={"minutes": 1}, headers=ADMIN)
            assert pause.status_code == 200 and 50 < pause.json()["on_break_for"] <= 60
            again = await client.post(f"{base}/break", json={"minutes": 1}, headers=ADMIN)
            assert again.status_code == 409 and "already on a break" in again.json()["message"]
            runtime = live.runtime(tournament)
            assert seats[1][0] in runtime.tables.sitting_out
            removed = await client.post(f"{base}/seat", json={"player": seats[2][0], "action": "remove",
                                                               "refund": True}, headers=ADMIN)
            assert removed.status_code == 200 and removed.json()["outcome"] in ("removed", "removed_when_hand_ends")
            await until(lambda: seats[2][0] not in runtime.director.stacks, timeout=20)
            details = (await client.get(base)).json()
            assert details["players_left"] == 7 and details["ledger"]["refunds"] == 1100
            assert details["chips_in_play"] == details["chips_issued"] < 8 * 1000
            gone = await client.post(f"{base}/seat", json={"player": seats[2][0], "action": "remove"}, headers=ADMIN)
            assert gone.status_code == 409 and "not playing" in gone.json()["message"]


async def test_the_board_hears_every_announcement_also_past_the_ten_it_keeps():
    from server.storage import MemoryStorage
    from server.tournament.runtime import TournamentRuntime
    from tests.tournaments import definition as rules

    runtime = TournamentRuntime.create("t", rules(6), MemoryStorage(), hand_pause=0)
    board = runtime.board
    board.refresh()
    first = board.seq
    for number in range(12):
        runtime.streams.announce(f"note {number}")
        changes = board.refresh()
        assert list(changes) == ["announcements"] and board.seq == first + number + 1
    assert [a["text"] for a in msgspec.json.decode(board.rows["announcements"])] == [f"note {n}" for n in range(2, 12)]
