"""REST: create, list, show, register, unregister, start, pause, resume, cancel; errors with the right status."""

from __future__ import annotations

import typing

import httpx
import pytest

from server.api.edge import STATUS_OF
from server.errors import Code

from tests.live_server import ADMIN, create, definition, live_server

pytestmark = pytest.mark.asyncio


async def test_every_refusal_code_has_one_http_status():
    """Codes are a Literal that mypy checks where a refusal is written; each must have its status here, or the
    refusal would be a KeyError, a 500."""
    assert set(typing.get_args(Code)) == set(STATUS_OF)


async def test_the_rest_flow_and_its_refusals():
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(3, 3, min_players=2)
        assert (await client.post("/api/tournaments", json=body)).status_code == 401
        bad = await client.post("/api/tournaments", json={**body, "seats_per_table": 11}, headers=ADMIN)
        assert bad.status_code == 400 and "seats_per_table" in bad.json()["message"]
        garbage = await client.post("/api/tournaments", content=b"{not json", headers=ADMIN)
        assert garbage.status_code == 400 and garbage.json()["error"] == "bad_definition"

        created = await client.post("/api/tournaments", json=body, headers=ADMIN)
        assert created.status_code == 201
        tournament = created.json()["id"]
        assert [t["id"] for t in (await client.get("/api/tournaments")).json()] == [tournament]
        assert (await client.get("/api/tournaments/nope")).status_code == 404

        empty = await client.post(f"/api/tournaments/{tournament}/register", json={"name": ""})
        assert empty.status_code == 400
        for unprintable in ("\u202eexe.jpg", "bell\x07", "two\nlines", "   ", "zero\u200bwidth"):
            refused = await client.post(f"/api/tournaments/{tournament}/register", json={"name": unprintable})
            assert refused.status_code == 400 and "printable" in refused.json()["message"], unprintable
        seats = [(await client.post(f"/api/tournaments/{tournament}/register", json={"name": n})).json()
                 for n in ("ann", "bob", "cy")]
        assert [s["player_id"] for s in seats] == ["p1", "p2", "p3"]
        full = await client.post(f"/api/tournaments/{tournament}/register", json={"name": "dee"})
        assert full.status_code == 409 and "full" in full.json()["message"]

        wrong = await client.post(f"/api/tournaments/{tournament}/unregister",
                                  headers={"Authorization": "Bearer nope"})
        assert wrong.status_code == 401
        left = await client.post(f"/api/tournaments/{tournament}/unregister",
                                 headers={"Authorization": f"Bearer {seats[2]['token']}"})
        assert left.json() == {"refund_cents": 1100}

        assert (await client.post(f"/api/tournaments/{tournament}/start")).status_code == 401
        assert (await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN)).status_code == 409
        started = await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        assert started.status_code == 200 and started.json()["status"] == "running"
        assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 409
        late = await client.post(f"/api/tournaments/{tournament}/unregister",
                                 headers={"Authorization": f"Bearer {seats[0]['token']}"})
        assert late.status_code == 409 and "Register" in late.json()["message"]
        assert (await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN)).json()["paused"]
        assert not (await client.post(f"/api/tournaments/{tournament}/resume", headers=ADMIN)).json()["paused"]
        bad_policy = await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN,
                                       content=b'{"policy": {"name": "C"}}')
        assert bad_policy.status_code == 400 and "policy.name" in bad_policy.json()["message"]
        assert (await client.get(f"/api/tournaments/{tournament}/cancellation")).status_code == 401

        shown = (await client.get(f"/api/tournaments/{tournament}")).json()
        assert shown["status"] == "running" and shown["players_left"] == 2 and shown["level"] == 1
        assert shown["payouts_cents"] == [2000] and shown["hand_for_hand"] is False
        (table,) = shown["table_list"]
        assert {s["player"] for s in table["seats"]} == {"p1", "p2"}
        assert all("hole" not in s for s in table["seats"])


async def test_cancel_during_registration_and_the_openapi_description():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 2)
        cancelled = await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN)
        assert cancelled.json()["status"] == "cancelled"
        document = (await client.get("/api/openapi.json")).json()
        assert document["openapi"].startswith("3.")
        assert {"/api/tournaments", "/api/tournaments/{id}/register", "/api/tournaments/{id}/start",
                "/api/tournaments/{id}/hands", "/api/tournaments/{id}/cancellation"} <= set(document["paths"])
        assert (await client.get(f"/api/tournaments/{tournament}/hands/7")).status_code == 404
        beyond = await client.get(f"/api/tournaments/{tournament}/hands/{2**64 + 7}")  # outside 64 bits: no 500
        assert beyond.status_code == 404 and beyond.json()["error"] == "no_finished_hand"
        assert (await client.get(f"/api/tournaments/{tournament}/hands/{'9' * 5000}")).status_code == 404
        assert (await client.get(f"/api/tournaments/{tournament}/hands", params={"table": "x"})).status_code == 400
        assert "seats_per_table" in document["components"]["schemas"]["Definition"]["properties"]


async def test_every_operation_answers_with_the_schema_its_openapi_description_names():
    """The description is generated from the same operations the routes are: each answer decodes as the
    type the document names for it, and each route is documented."""
    import msgspec

    from server.api.app import OPERATIONS, create_app
    from server.api.edge import Settings

    paths = {(route.path, method) for route in create_app(Settings(admin_token="x")).routes
             for method in (getattr(route, "methods", None) or ())
             if (route.path.startswith("/api/") or route.path == "/metrics") and route.path != "/api/openapi.json"}
    assert paths - {(p, "HEAD") for p, _ in paths} == {(op.path, op.method) for op in OPERATIONS}
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        document = (await client.get("/api/openapi.json")).json()
        tournament, seats = await create(live, definition(4, 4), 3)
        _, token = seats[0]
        answers = {
            "list_tournaments": await client.get("/api/tournaments"),
            "show_tournament": await client.get(f"/api/tournaments/{tournament}"),
            "register": await client.post(f"/api/tournaments/{tournament}/register", json={"name": "late"}),
            "unregister": await client.post(f"/api/tournaments/{tournament}/unregister",
                                            headers={"Authorization": f"Bearer {token}"}),
            "cancellation_preview": await client.get(f"/api/tournaments/{tournament}/cancellation", headers=ADMIN),
            "start": await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN),
            "pause": await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN),
            "resume": await client.post(f"/api/tournaments/{tournament}/resume", headers=ADMIN),
            "hand_list": await client.get(f"/api/tournaments/{tournament}/hands"),
            "cancel": await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN),
        }
        for op in OPERATIONS:
            described = document["paths"][op.path][op.method.lower()]
            assert str(op.status) in described["responses"] and described["operationId"] == op.endpoint.__name__
            answer = answers.get(op.endpoint.__name__)
            if answer is not None:
                assert answer.status_code == op.status, (op.endpoint.__name__, answer.text)
                msgspec.json.decode(answer.content, type=op.response, strict=False)
        refusal = await client.post(f"/api/tournaments/{tournament}/pause", headers=ADMIN)
        assert refusal.status_code == 409 and set(refusal.json()) == {"error", "message"}
        schema = document["paths"]["/api/tournaments/{id}"]["get"]["responses"]["200"]["content"]
        assert schema["application/json"]["schema"] == {"$ref": "#/components/schemas/Details"}
        assert "table_list" in document["components"]["schemas"]["Details"]["properties"]


async def test_a_tournaments_own_bots_are_stopped_and_awaited_when_the_server_shuts_down():
    async with live_server(hand_pause=0.05) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(6, 3), 0)
        added = await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                                  json={"count": 4, "think_min": 0, "think_max": 0})
        assert added.status_code == 201
        runtime = live.runtime(tournament)
        tasks = set(runtime.bots.tasks)
        assert len(tasks) == 4 and not any(task.done() for task in tasks)
    assert all(task.done() for task in tasks) and not runtime.bots.tasks


async def test_the_admin_reads_a_tournaments_events_as_lines_also_after_a_restart(tmp_path):
    import json

    db = str(tmp_path / "journal.db")
    async with live_server(db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 4)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN)
        assert (await client.get(f"/api/tournaments/{tournament}/events")).status_code == 401
        answer = await client.get(f"/api/tournaments/{tournament}/events", headers=ADMIN)
        assert answer.headers["content-type"].startswith("application/x-ndjson")
        before = answer.text
    types = [json.loads(line)["type"] for line in before.splitlines()]
    assert types[0] == "status_changed" and types.count("registered") == 4 and "seated" in types
    assert types[-5:] == ["status_changed", "refunded", "refunded", "refunded", "refunded"]
    async with live_server(db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        after = (await client.get(f"/api/tournaments/{tournament}/events", headers=ADMIN)).text
    assert after == before


async def test_a_freeroll_cancelled_with_a_new_date_is_in_the_lobby_with_its_players_under_their_tokens():
    """`reschedule_at` on the cancel; the new tournament is listed, starts then, and a player's
    token leads to their seat there."""
    import time

    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        body = definition(4, 4, buy_in_cents=0, added_cents=5_000)
        tournament, seats = await create(live, body, 3)
        past = await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN, json={"reschedule_at": 1})
        assert past.status_code == 400 and "reschedule_at" in past.json()["message"]
        at = time.time() + 3_600
        cancelled = await client.post(f"/api/tournaments/{tournament}/cancel", headers=ADMIN,
                                      json={"reschedule_at": at})
        assert cancelled.status_code == 200 and cancelled.json()["status"] == "cancelled"
        listed = {row["id"]: row for row in (await client.get("/api/tournaments")).json()}
        (again,) = set(listed) - {tournament}
        assert listed[again]["status"] == "register" and listed[again]["entries"] == 3
        shown = (await client.get(f"/api/tournaments/{again}")).json()
        assert shown["starts_at"] == at
        tickets = (await client.get(f"/api/tournaments/{tournament}")).json()["tickets"]
        assert {t["player"]: t["target"] for t in tickets} == {player: again for player, _ in seats}
        left = await client.post(f"/api/tournaments/{again}/unregister",
                                 headers={"Authorization": f"Bearer {seats[0][1]}"})
        assert left.status_code == 200  # the same token: their seat on the new date


async def test_a_tournament_cancelled_while_a_table_shows_a_hands_result_stops_cleanly(monkeypatch):
    """A swarm stopped early cancels its tournament at any moment: one came just as a table's pause
    after a hand ended, and the table then settled the hand the cancellation had voided (an AssertionError that
    stopped the tournament's task as a crash). The cancellation is made to arrive at that very moment."""
    import asyncio

    import server.tournament.tables
    from tests.live_server import bots, until

    real_sleep = asyncio.sleep
    armed: list[object] = []

    async def pause_then_cancelled(seconds: float, *more: object) -> None:
        await real_sleep(seconds, *more)
        if armed and seconds == 0.3:  # a table's pause after a hand: the cancellation lands as it ends
            runtime = armed.pop()
            runtime.cancel()

    monkeypatch.setattr(server.tournament.tables.asyncio, "sleep", pause_then_cancelled)
    async with live_server(hand_pause=0.3) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(6, 3, stack=100_000), 6)
        runtime = live.runtime(tournament)
        bots(live, tournament, seats, "station")
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 6)
        armed.append(runtime)
        assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200
        await until(lambda: runtime.director.status.value == "cancelled")
        await real_sleep(0.5)
        assert not runtime.crashed
        assert runtime.director.chips_in_play() == runtime.director.chips_issued
