"""End to end: a real server on 127.0.0.1, real websocket clients, real clocks (short ones)."""

from __future__ import annotations

import asyncio
import json
import logging
import time

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from engine.events import HandFinished, HandForHandEnded, HandForHandStarted, HandStarted
from tests.audit import check_breaks
from tests.clocks import ManualClock, run_out
from tests.live_server import (
    ADMIN,
    SilentClient,
    admin,
    bots,
    connected,
    create,
    definition,
    live_server,
    person_among_stations,
    player_url,
    Watcher,
    receive_json,
    until,
)

pytestmark = pytest.mark.asyncio


async def test_the_clock_checks_when_free_and_folds_facing_a_bet():
    clock = ManualClock()  # her clock runs out when the test says, however slow the machine
    async with live_server(clock, hand_pause=0.05) as live:
        rules = definition(2, 2, action_seconds=30, time_bank_seconds=5)
        tournament, me, token = await person_among_stations(live, rules, 2)
        seen: dict[bool, str] = {}  # could check -> what the clock did
        sitting_out = []
        async with connect(player_url(live, tournament, token)) as websocket:
            await admin(live, tournament, "start")
            can_check = None
            while len(seen) < 2:
                message = await receive_json(websocket)
                event = message.get("event", {})
                if event.get("type") == "your_turn":
                    can_check = event["can_check"]
                    await run_out(clock, 35.0)  # the action's 30 seconds and the bank's 5
                elif event.get("type") == "timed_out" and event["player"] == me:
                    seen[can_check] = event["action"]
                    await websocket.send(json.dumps({"type": "back"}))
                elif event.get("type") == "sitting_out" and event["player"] == me:
                    sitting_out.append(event["sitting_out"])
        assert seen == {True: "check", False: "fold"}
        assert sitting_out[:2] == [True, False]  # a timeout sits the player out; "back" returns them
        assert live.runtime(tournament).entries.time_bank[me] == 0.0  # the bank was spent before the clock acted


async def test_a_disconnected_player_is_acted_for_by_the_clock_and_resumes_with_a_snapshot():
    clock = ManualClock()
    async with live_server(clock, hand_pause=0.05) as live:
        tournament, me, token = await person_among_stations(live, definition(2, 2, action_seconds=30), 2)
        async with connect(player_url(live, tournament, token)) as websocket:
            first = await receive_json(websocket)
            assert first["type"] == "snapshot" and first["you"]["player"] == me
        await admin(live, tournament, "start")
        runtime = live.runtime(tournament)
        director = runtime.director

        def my_turn() -> bool:
            hand = director.hand(director.where[me][0])
            return hand is not None and hand.actor is not None and hand.players[hand.actor] == me

        await until(my_turn)
        await run_out(clock, 30.0)  # the player gone: the clock acts for them, and they sit out
        assert me in runtime.tables.sitting_out
        hands_before = runtime.director.hands_played
        await until(lambda: runtime.director.hands_played >= hands_before + 2)  # and play went on
        async with connect(player_url(live, tournament, token)) as websocket:
            snapshot = await receive_json(websocket)
            assert snapshot["type"] == "snapshot"
            assert snapshot["you"]["player"] == me and snapshot["you"]["sitting_out"] is True
            assert snapshot["table"]["id"] == snapshot["you"]["table"] and snapshot["seq"] > 0
            await websocket.send(json.dumps({"type": "back"}))
            acted = False
            while not acted:
                message = await receive_json(websocket)
                event = message.get("event", {})
                if event.get("type") == "your_turn":
                    await websocket.send(json.dumps({"type": "act", "action": "check" if event["can_check"]
                                                     else "call"}))
                elif event.get("type") == "acted" and event["player"] == me:
                    acted = True
                elif message["type"] == "error":
                    pytest.fail(message["message"])


async def test_under_hand_for_hand_no_table_deals_hand_n_plus_1_before_every_table_finished_hand_n():
    async with live_server(hand_pause=0.02) as live:
        tournament, seats = await create(live, definition(9, 3, paid=8), 9)
        bots(live, tournament, seats, "station")  # nobody raises: busts are rare, rounds many
        await connected(live, tournament, seats)
        await admin(live, tournament, "start")
        runtime = live.runtime(tournament)
        await until(lambda: sum(isinstance(e, HandFinished) for _, e in runtime.log) >= 12, timeout=60)
        # Replay the server's log: hand n+1 at a table only once every table has finished its hand n.
        started = {t: 0 for t in (1, 2, 3)}
        finished = {t: 0 for t in (1, 2, 3)}
        active = False
        hands_checked = 0
        for _, event in runtime.log:
            if isinstance(event, HandForHandStarted):
                active = True
            elif isinstance(event, HandForHandEnded):
                break
            elif active and isinstance(event, HandStarted):
                behind = [t for t in finished if finished[t] < started[event.table]]
                assert not behind, f"table {event.table} dealt hand {started[event.table] + 1} before {behind}"
                started[event.table] += 1
                hands_checked += 1
            elif active and isinstance(event, HandFinished):
                finished[event.table] += 1
        assert hands_checked >= 6


async def test_a_table_break_moves_a_connected_player_who_keeps_playing():
    # Bots answer at once and hands follow each other fast: allow them more messages than a person sends.
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        tournament, seats = await create(live, definition(6, 3, action_seconds=2, stack=300), 6)
        tasks = bots(live, tournament, seats, "random", seed=3)
        await connected(live, tournament, seats)
        await admin(live, tournament, "start")
        reports = await asyncio.wait_for(asyncio.gather(*tasks), 120)
        assert sorted(r.place for r in reports) == [1, 2, 3, 4, 5, 6]
        moved = [r for r in reports if any(m["reason"] == "break" for m in r.moves)]
        assert moved, "nobody was moved by the break"
        assert any(r.decisions > r.decisions_before_move[-1] for r in moved), "no moved player acted again"
        assert all(not r.errors for r in reports)


async def test_nobody_acts_for_another_seat_or_sees_another_players_cards():
    async with live_server(hand_pause=0.05) as live:
        # The other player thinks, so a fold sent on seeing their turn (which may reach us a broadcast tick
        # late) still arrives while it is theirs.
        tournament, me, token = await person_among_stations(live, definition(2, 2, action_seconds=2), 2,
                                                            think=(0.3, 0.3))
        received = []
        async with connect(player_url(live, tournament, token)) as websocket, \
                connect(f"{live.ws}/ws/tournaments/{tournament}") as observer:
            await admin(live, tournament, "start")
            refused_turn = refused_field = False
            hands_seen = set()
            while not (refused_turn and refused_field and len(hands_seen) >= 3):
                message = await receive_json(websocket)
                received.append(message)
                event = message.get("event", {})
                if event.get("type") == "hand_started":
                    hands_seen.add(event["hand"])
                if event.get("type") == "turn" and event["player"] != me and not refused_turn:
                    await websocket.send(json.dumps({"type": "act", "action": "fold"}))
                elif event.get("type") == "your_turn":
                    if not refused_field:
                        await websocket.send(json.dumps({"type": "act", "action": "fold", "player": "p2"}))
                    await websocket.send(json.dumps({"type": "act", "action": "check" if event["can_check"]
                                                     else "call"}))
                elif message["type"] == "error":
                    if message["code"] == "not_your_turn":
                        refused_turn = True
                    elif message["code"] == "invalid_message" and "player" in message["message"]:
                        refused_field = True
            await observer.send(json.dumps({"type": "act", "action": "fold"}))
            watched = []
            while not any(m["type"] == "error" for m in watched):
                watched.append(await receive_json(observer))
        last = None
        for message in received:  # events continue each snapshot's number without a gap
            if message["type"] == "snapshot":
                last = message["seq"]
            elif message["type"] == "event":
                assert message["seq"] == last + 1
                last = message["seq"]
        for message in received:
            event = message.get("event", {})
            if event.get("type") == "hole_dealt":
                assert message["type"] == "private" and event["player"] == me
            if message["type"] == "snapshot" and message["table"]:
                assert all("hole" not in seat for seat in message["table"]["seats"])
        assert any(m.get("event", {}).get("type") == "hole_dealt" for m in received)
        assert not any(m["type"] == "private" for m in watched)
        assert watched[0]["type"] == "snapshot" and watched[0]["you"] is None
        assert watched[-1]["code"] == "observer"
        assert not any(m.get("event", {}).get("type") == "hole_dealt" for m in watched)


async def test_malformed_oversized_and_flooding_clients_get_errors_or_are_closed_while_tables_play_on():
    async with live_server(hand_pause=0.02) as live:
        tournament, _, token = await person_among_stations(live, definition(4, 4, action_seconds=2), 4)
        async with connect(player_url(live, tournament, token)) as websocket:
            await admin(live, tournament, "start")
            runtime = live.runtime(tournament)
            hands_at_start = runtime.director.hands_played

            async def error_for(text: str) -> dict:
                await websocket.send(text)
                while True:
                    message = await receive_json(websocket)
                    if message["type"] == "error":
                        return message

            assert (await error_for("{nope"))["code"] == "malformed_json"
            unknown = await error_for(json.dumps({"type": "dance"}))
            assert unknown["code"] == "invalid_message" and "dance" in unknown["message"]
            negative = await error_for(json.dumps({"type": "act", "action": "raise", "amount": -5}))
            assert negative["code"] == "invalid_message" and "amount" in negative["message"]
            await websocket.send(json.dumps({"type": "sync"}))  # still connected
            while (await receive_json(websocket))["type"] != "snapshot":
                pass

        async with connect(f"{live.ws}/ws/tournaments/{tournament}", max_size=None) as big:
            await big.send("x" * 5000)
            with pytest.raises(ConnectionClosed) as closed:
                while True:
                    await receive_json(big)
            assert closed.value.rcvd.code == 1009

        async with connect(f"{live.ws}/ws/tournaments/{tournament}") as flood:
            with pytest.raises(ConnectionClosed) as closed:
                for _ in range(1000):
                    await flood.send(json.dumps({"type": "sync"}))
                while True:
                    await receive_json(flood)
            assert closed.value.rcvd.code == 1008
        await until(lambda: runtime.director.hands_played > hands_at_start + 5)


async def test_a_client_that_never_reads_is_dropped_without_delaying_the_table():
    async with live_server(hand_pause=0.0, max_queue=16, rate=5000, burst=5000) as live:
        tournament, seats = await create(live, definition(6, 6, action_seconds=2, stack=100_000), 6)
        bots(live, tournament, seats, "station")
        await connected(live, tournament, seats)
        await admin(live, tournament, "start")
        runtime = live.runtime(tournament)
        slow = await SilentClient.open(live, f"/ws/tournaments/{tournament}?table=1")
        await until(lambda: any(c.player is None for c in runtime.streams.watchers.get(1, ())))
        slow_connection = next(c for c in runtime.streams.watchers[1] if c.player is None)
        hands_then = runtime.director.hands_played
        started = time.monotonic()
        while not slow_connection.closed:  # ask for snapshots, never read one
            await slow.send(json.dumps({"type": "sync"}))
            await asyncio.sleep(0.001)
            assert time.monotonic() - started < 60, "the slow client was never dropped"
        slow.close()
        assert slow_connection.close_code == 4008
        await until(lambda: slow_connection not in runtime.streams.watchers.get(1, set()))
        # The table deals on: nothing waited on the slow client.
        await until(lambda: runtime.director.hands_played > hands_then)


async def test_levels_follow_the_wall_clock_and_a_pause_stops_deals_and_the_clock():
    levels = [{"small_blind": 10, "big_blind": 20, "minutes": 0.01}, {"small_blind": 20, "big_blind": 40,
                                                                       "minutes": 0.01},
              {"small_blind": 40, "big_blind": 80, "minutes": 60}]
    clock = ManualClock()  # the level's 0.6 seconds pass when the test says
    async with live_server(clock, hand_pause=0.05) as live:
        tournament, seats = await create(live, definition(4, 4, levels=levels, stack=100_000), 4)
        bots(live, tournament, seats, "station")
        await connected(live, tournament, seats)
        await admin(live, tournament, "start")
        runtime = live.runtime(tournament)
        await until(lambda: runtime.director.hands_played >= 3)  # the level clock has ticked meanwhile
        assert runtime.director.level == 0 and runtime.now() == 0.0  # no time passed: level 1 goes on
        await clock.advance(0.55)
        await until(lambda: runtime.director.hands_played >= 6)
        assert runtime.director.level == 0
        await clock.advance(0.1)
        await until(lambda: runtime.director.level == 1)  # level 2 (from 0) after 0.6 s
        paused = await admin(live, tournament, "pause")
        assert paused.json()["paused"] is True
        await until(lambda: all(state.hand is None for state in runtime.director.tables.values()))
        hands, at = runtime.director.hands_played, runtime.now()
        await clock.advance(600)  # ten minutes paused
        await asyncio.sleep(0.3)  # and a turn of the level clock's on the wall
        assert runtime.director.hands_played == hands  # no new deal while paused
        assert runtime.now() == at and runtime.director.level == 1  # and the tournament clock stood still
        await admin(live, tournament, "resume")
        await until(lambda: runtime.director.hands_played > hands)


async def test_a_players_own_turn_and_action_leave_at_once_and_the_rest_wait_for_the_broadcast_tick():
    # The tick is an hour: the test is its clock (tick_now), so no timing of the machine's decides anything.
    async with live_server(hand_pause=0.05, broadcast_tick=3600.0) as live:
        tournament, me, token = await person_among_stations(live, definition(2, 2, action_seconds=30), 2)
        async with connect(player_url(live, tournament, token)) as websocket:
            await admin(live, tournament, "start")
            async with connect(f"{live.ws}/ws/tournaments/{tournament}?table=1") as observer:
                assert (await receive_json(observer))["type"] == "snapshot"  # a snapshot leaves at once
                while (message := await receive_json(websocket)).get("event", {}).get("type") != "your_turn":
                    pass
                action = "check" if message["event"]["can_check"] else "call"
                await websocket.send(json.dumps({"type": "act", "action": action}))
                while not ((event := (await receive_json(websocket, timeout=10.0)).get("event", {})).get("type")
                           == "acted" and event["player"] == me):
                    pass
                # The player's turn and action came at once; the observer has heard of none of it yet.
                with pytest.raises(TimeoutError):
                    await asyncio.wait_for(observer.recv(), 0.5)
                live.app.state.server.outbound.tick_now()
                frame = await asyncio.wait_for(observer.recv(), 5.0)  # the tick: all of it, in one frame
        events = [json.loads(line)["event"] for line in frame.split("\n")]
        assert len(events) > 1 and {"type": "acted", "player": me} in [
            {"type": event["type"], "player": event.get("player")} for event in events]


@pytest.mark.asyncio
async def test_live_breaks_close_the_fewest_players_table_mid_hand_or_not_as_the_audit_trail_shows():
    """rules.md B.6-B.7 where most tables are mid-hand at any moment: each table locked to close had the fewest
    players seated when it was chosen (a mid-hand table counts), and is the one that closes, after its hand."""
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        rising = [{"small_blind": 10 * 2**k, "big_blind": 20 * 2**k, "hands": 4} for k in range(12)]  # ends soon
        tournament, seats = await create(live, definition(36, 4, action_seconds=2, stack=200, levels=rising), 36)
        tasks = bots(live, tournament, seats, "random", seed=5)
        await connected(live, tournament, seats)
        await admin(live, tournament, "start")
        await asyncio.wait_for(asyncio.gather(*tasks), 240)
        async with httpx.AsyncClient(base_url=live.http) as client:
            trail = await client.get(f"/api/tournaments/{tournament}/events", headers=ADMIN)
    events = [json.loads(line) for line in trail.text.splitlines()]
    broken, _ = check_breaks(events)
    assert broken == 8  # 9 tables to 1


async def test_a_player_who_never_connected_sits_out_from_the_draw_spends_no_clock_and_is_back_on_connecting():
    """A player who had registered and not yet opened the table was timed out hand after hand, and found
    their time bank spent. Seated before their first connection, a player sits out (blinds posted, decisions at
    once, the bank kept); their first connection brings them back."""
    async with live_server(hand_pause=0.05) as live:
        rules = definition(3, 3, action_seconds=5.0, time_bank_seconds=30.0)
        tournament, seats = await create(live, rules, 3)
        (late, token), others = seats[0], seats[1:]
        bots(live, tournament, others, "station")
        runtime = live.runtime(tournament)
        await until(lambda: all(runtime.streams.connected(player) for player, _ in others))
        watcher = Watcher()
        runtime.start()
        runtime.connect(watcher, 1)  # the one table, in the turn of the loop it opens
        director = runtime.director
        await until(lambda: director.hands_played >= 3, timeout=30)
        said = [m["event"] for m in watcher.messages if m["type"] == "event" and m["event"].get("player") == late]
        kinds = {event["type"] for event in said}
        assert "acted" in kinds and not kinds & {"turn", "timed_out"}, said  # at once: no clock ran for them
        assert late in runtime.tables.sitting_out and runtime.entries.time_bank[late] == 30.0
        async with connect(player_url(live, tournament, token)) as websocket:
            await receive_json(websocket)
            await until(lambda: late not in runtime.tables.sitting_out)
            assert runtime.entries.time_bank[late] == 30.0


async def test_a_player_who_asks_to_sit_out_next_hand_sits_out_from_the_next_hand_and_is_back_on_asking():
    """Rooms have "Sit out next hand" and "Sit out next big blind"; here only a timeout sat a player out.
    The request takes effect when the next hand is dealt to the player (the one in progress is played as usual),
    the table hears it, and "back" returns them."""
    async with live_server(hand_pause=0.05) as live:
        tournament, me, token = await person_among_stations(live, definition(2, 2, action_seconds=30), 2)
        runtime = live.runtime(tournament)
        async with connect(player_url(live, tournament, token)) as websocket:
            await receive_json(websocket)  # the snapshot: the server has the connection
            await until(lambda: all(runtime.streams.connected(player) for player in runtime.director.stacks))
            await admin(live, tournament, "start")
            asked_in_hand = dealt = None
            told: list[bool] = []
            while not told:
                message = await receive_json(websocket)
                event = message.get("event", {})
                if event.get("type") == "your_turn" and asked_in_hand is None:
                    asked_in_hand = event["hand"]
                    await websocket.send(json.dumps({"type": "sit_out", "when": "next_hand"}))
                    assert me not in runtime.tables.sitting_out  # not in the hand being played
                    action = "check" if event["can_check"] else "fold"
                    await websocket.send(json.dumps({"type": "act", "action": action}))
                elif event.get("type") == "your_turn" and event["hand"] == asked_in_hand:  # the hand goes on
                    action = "check" if event["can_check"] else "call"
                    await websocket.send(json.dumps({"type": "act", "action": action}))
                elif event.get("type") == "your_turn":
                    raise AssertionError("a player sitting out is not asked")
                elif event.get("type") == "hand_started":
                    dealt = event["hand"]
                elif event.get("type") == "sitting_out" and event["player"] == me:
                    told.append(event["sitting_out"])
                    assert asked_in_hand is not None and dealt == asked_in_hand + 1  # from the next hand
            assert told == [True] and me in runtime.tables.sitting_out
            await websocket.send(json.dumps({"type": "sit_out", "when": "next_big_blind"}))
            await websocket.send(json.dumps({"type": "back"}))
            await until(lambda: me not in runtime.tables.sitting_out and not runtime.tables.sit_out_asked)
            await websocket.send(json.dumps({"type": "sit_out", "when": "sideways"}))
            while (message := await receive_json(websocket)).get("type") != "error":
                pass
            assert message["code"] == "invalid_message"  # a malformed request changes nothing


async def test_a_decision_names_its_turn_and_one_that_comes_after_it_is_refused_as_stale():
    """``act`` applied to whatever turn the player had when it arrived, so a delayed call or all-in
    landed on a hand the player had not seen. ``your_turn`` names its hand and turn, ``act`` echoes them, and a
    decision for a turn that is over is refused as ``stale``, one for a turn to come as ``not_yet``, changing
    nothing; one without them is taken for the turn in progress, as old clients send it."""
    async with live_server(hand_pause=0.05) as live:
        rules = definition(2, 2, action_seconds=30.0)
        tournament, me, token = await person_among_stations(live, rules, 2)
        async with connect(player_url(live, tournament, token)) as websocket:
            await admin(live, tournament, "start")
            turns: list[dict[str, object]] = []
            errors: list[str] = []
            mine: list[str] = []  # my decisions as the table saw them

            async def next_event() -> dict[str, object]:
                """The next message's event, noting the refusals and my decisions as the table saw them."""
                message = await receive_json(websocket, timeout=30)
                event = message.get("event", {})
                if message["type"] == "error":
                    errors.append(message["code"])
                if event.get("type") == "acted" and event["player"] == me:
                    mine.append(event["action"])
                return event

            while len(turns) < 3:
                event = await next_event()
                if event.get("type") != "your_turn":
                    continue
                turns.append(event)
                action = "check" if event["can_check"] else "call"
                if len(turns) == 1:  # the turn before this one, an earlier hand, a later turn and a later hand
                    for wrong in ({"hand": event["hand"], "turn": event["turn"] - 1},
                                  {"hand": event["hand"] - 1, "turn": event["turn"]},
                                  {"hand": event["hand"], "turn": event["turn"] + 1},
                                  {"hand": event["hand"] + 1, "turn": 1}):
                        await websocket.send(json.dumps({"type": "act", "action": "all_in", **wrong}))
                    await websocket.send(json.dumps({"type": "act", "action": action, "hand": event["hand"],
                                                     "turn": event["turn"]}))
                elif len(turns) == 2:  # an old client's decision, naming nothing
                    await websocket.send(json.dumps({"type": "act", "action": action}))
                else:  # answered twice: the second arrives when the turn is over
                    named = {"hand": event["hand"], "turn": event["turn"]}
                    for _ in range(2):
                        await websocket.send(json.dumps({"type": "act", "action": action, **named}))
            while len(errors) < 5 or len(mine) < 3:
                await next_event()
        assert errors == ["stale", "stale", "not_yet", "not_yet", "stale"]  # the second answer to the third turn
        assert all(isinstance(turn["turn"], int) and turn["turn"] > 0 for turn in turns)
        assert "all_in" not in mine[:3] and len(mine) == 3, mine  # each turn answered once, never by a late one


async def test_a_decision_that_arrives_after_a_cancel_is_refused_and_logs_no_error(caplog):
    """Cancelling a running tournament with bots logged server tracebacks ("table N has no hand in progress"): a
    decision came for a hand the cancel had voided. It is refused as one that came late, and nothing is logged."""
    caplog.set_level(logging.WARNING)
    async with live_server(hand_pause=0.05) as live:
        tournament, me, token = await person_among_stations(live, definition(4, 4, action_seconds=30.0), 4)
        async with connect(player_url(live, tournament, token)) as websocket:
            await admin(live, tournament, "start")
            while (turn := await receive_json(websocket, timeout=30)).get("event", {}).get("type") != "your_turn":
                pass
            assert (await admin(live, tournament, "cancel")).status_code == 200
            named = {"hand": turn["event"]["hand"], "turn": turn["event"]["turn"]}
            await websocket.send(json.dumps({"type": "act", "action": "call", **named}))
            while (message := await receive_json(websocket, timeout=30))["type"] != "error":
                pass
    assert message["code"] == "stale", message
    assert [record.getMessage() for record in caplog.records if record.levelno >= logging.ERROR] == []
