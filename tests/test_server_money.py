"""End to end: re-buys, add-ons and deals through a real server, over real websockets."""

from __future__ import annotations

import json

import pytest
from websockets.asyncio.client import connect

from engine.director import Status
from engine.wire import PressDeal
from tests.live_server import admin, definition, live_server, person_among_stations, player_url, receive_json, until
from tests.tournaments import AllBut, rig_winners

pytestmark = pytest.mark.asyncio


def make_lose(director, loser: str) -> None:
    """Every hand is dealt so that somebody other than ``loser`` holds the winning cards."""
    rig_winners(director, AllBut(loser))


async def wait_for_connections(runtime, players: int) -> None:
    await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) >= players)


async def test_a_player_busts_rebuys_and_adds_on_through_the_server():
    rebuys = {"levels": 1, "price_cents": 1000, "fee_cents": 100, "chips": 1000, "max_count": 2, "offer_seconds": 10}
    body = definition(2, 2, action_seconds=5, rebuys=rebuys, add_on={"price_cents": 500, "chips": 2000},
                      levels=[{"small_blind": 10, "big_blind": 20, "hands": 4},
                              {"small_blind": 20, "big_blind": 40, "minutes": 60}])
    async with live_server(hand_pause=0.05) as live:
        tournament, me, token = await person_among_stations(live, body, 2)
        runtime = live.runtime(tournament)
        director = runtime.director
        make_lose(director, me)
        seen = []
        async with connect(player_url(live, tournament, token)) as websocket:
            await wait_for_connections(runtime, 2)
            await admin(live, tournament, "start")
            rebought = False
            while "add_on_taken" not in seen or not any("already taken" in text for text in seen):
                message = await receive_json(websocket)
                event = message.get("event", {})
                kind = event.get("type")
                if event.get("player") == me or kind == "offer":
                    seen.append(kind)
                if kind == "your_turn":
                    action = ("raise", event["max_raise_to"]) if not rebought and event["max_raise_to"] else (
                        ("check", None) if event["can_check"] else ("fold", None))
                    await websocket.send(json.dumps({"type": "act", "action": action[0], "amount": action[1]}))
                elif kind == "offer" and event["kind"] == "rebuy":
                    assert (event["price_cents"], event["chips"]) == (1100, 1000) and 0 < event["seconds"] <= 10
                    await websocket.send(json.dumps({"type": "rebuy"}))
                    rebought = True
                elif kind == "offer" and event["kind"] == "add_on":
                    await websocket.send(json.dumps({"type": "add_on"}))
                    await websocket.send(json.dumps({"type": "add_on"}))  # a second one is refused by rule
                elif message["type"] == "error":
                    seen.append(message["message"])
        assert seen.index("rebuy_offered") < seen.index("rebuy_taken") < seen.index("add_on_taken")
        assert any("already taken the add-on" in text for text in seen)
        assert me not in director.results  # the re-buy kept the seat: no elimination
        assert director.ledger.paid_by(me) == {"buy_in": 1000, "fee": 100, "rebuy": 1000, "rebuy_fee": 100,
                                               "add_on": 500}
        await until(lambda: director.chips_in_play() == director.chips_issued)
        assert director.ledger.balances()


async def next_event(websocket, kind: str) -> dict:
    """Read until an event of ``kind``, checking or folding whenever it is our turn meanwhile."""
    while True:
        event = (await receive_json(websocket)).get("event", {})
        if event.get("type") == kind:
            return event
        if event.get("type") == "your_turn":
            await websocket.send(json.dumps({"type": "act", "action": "check" if event["can_check"] else "fold"}))


async def three_handed_deal(live):
    body = definition(3, 3, action_seconds=5, paid=3, deals=True, deal_seconds=10)
    tournament, me, token = await person_among_stations(live, body, 3)
    runtime = live.runtime(tournament)
    websocket = await connect(player_url(live, tournament, token))
    await wait_for_connections(runtime, 3)
    await admin(live, tournament, "start")
    while True:
        message = await receive_json(websocket)
        event = message.get("event", {})
        if event.get("type") == "your_turn":
            await websocket.send(json.dumps({"type": "act", "action": "check" if event["can_check"] else "fold"}))
        elif event.get("type") == "offer" and event["kind"] == "press_deal":
            await websocket.send(json.dumps({"type": "deal", "on": True}))
        elif event.get("type") == "offer" and event["kind"] == "deal":
            return tournament, me, runtime, websocket, event


async def test_a_deal_accepted_by_everyone_pays_the_icm_amounts_and_finishes_the_tournament():
    async with live_server(hand_pause=0.05) as live:
        tournament, me, runtime, websocket, offer = await three_handed_deal(live)
        amounts = offer["amounts"]
        assert sum(amounts.values()) == runtime.director.prize_pool_cents == 3000
        assert runtime.summary().deal.amounts == amounts
        await websocket.send(json.dumps({"type": "deal_answer", "accept": True}))
        finished = await next_event(websocket, "tournament_finished")
        await websocket.close()
        assert finished["deal"] is True
        assert {r["player"]: r["prize_cents"] for r in finished["results"]} == amounts
        director = runtime.director
        assert director.status is Status.FINISHED and director.ledger.summary()["held"] == 0


async def test_a_rejected_deal_lets_play_continue_and_a_disconnection_ends_a_proposal():
    async with live_server(hand_pause=0.05) as live:
        tournament, me, runtime, websocket, offer = await three_handed_deal(live)
        hands = runtime.director.hands_played
        await websocket.send(json.dumps({"type": "deal_answer", "accept": False}))
        rejected = await next_event(websocket, "deal_rejected")
        at, level = rejected.pop("at"), rejected.pop("in_level")  # on the tournament's clock, as every director event
        assert rejected == {"type": "deal_rejected", "player": me, "reason": "rejected"} and at >= 0 and level == 1
        await until(lambda: runtime.director.hands_played > hands)  # play goes on
        assert runtime.director.status is Status.RUNNING

        director = runtime.director
        await until(lambda: director.hand(1) is None or director.hand(1).finished)
        for player in list(director.stacks):  # everyone asks again; the proposal follows the hand
            if player not in director.deal_pressed:
                runtime.player_money(player, PressDeal(True))
        await until(lambda: director.proposal is not None)
        await websocket.close()  # one player leaves while the proposal is on the table: no deal (H.36)
        await until(lambda: director.proposal is None)
        assert any(getattr(event, "reason", None) == "disconnected" for _, event in runtime.log)
        assert director.status is Status.RUNNING


async def test_a_player_proposes_a_partial_chip_chop_over_the_websocket_and_play_goes_on_for_what_is_kept():
    async with live_server(hand_pause=0.05) as live:
        levels = [{"small_blind": 10 * 2**k, "big_blind": 20 * 2**k, "hands": 2} for k in range(12)]
        body = definition(3, 3, action_seconds=5, paid=3, deals=True, deal_seconds=10, levels=levels)
        tournament, me, token = await person_among_stations(live, body, 3)
        runtime = live.runtime(tournament)
        websocket = await connect(player_url(live, tournament, token))
        await wait_for_connections(runtime, 3)
        await admin(live, tournament, "start")
        director = runtime.director
        asked = False
        paid = None
        while paid is None:
            message = await receive_json(websocket)
            event = message.get("event", {})
            if event.get("type") == "your_turn":
                await websocket.send(json.dumps({"type": "act", "action": "check" if event["can_check"] else "fold"}))
            elif event.get("type") == "offer" and event["kind"] == "press_deal" and not asked:
                asked = True
                await websocket.send(json.dumps({"type": "deal_propose", "kind": "custom", "amounts": {me: 3000}}))
                refused = await receive_json(websocket)
                while refused["type"] != "error":
                    refused = await receive_json(websocket)
                assert "one for every player left" in refused["message"] and director.proposal is None
                await websocket.send(json.dumps({"type": "deal_propose", "kind": "chip_chop", "keep_cents": 600}))
            elif event.get("type") == "deal_paid":
                paid = event
        assert paid["keep_cents"] == 600 and sum(paid["amounts"].values()) == 2400
        finished = await next_event(websocket, "tournament_finished")  # the rising blinds end it
        await websocket.close()
        prizes = {r["player"]: r["prize_cents"] for r in finished["results"]}
        # Each result counts the partial deal's amount; the 600 kept went to the winner, or, when the last two
        # (the stations) dealt again, between them.
        after = {p: prizes[p] - cents for p, cents in paid["amounts"].items()}
        assert all(cents >= 0 for cents in after.values()) and sum(after.values()) == 600
        assert after[me] == 0 or next(r for r in finished["results"] if r["player"] == me)["place"] == 1
        assert director.ledger.summary()["held"] == 0 and director.ledger.prizes_cents == 3000


async def test_your_turn_carries_the_stacks_at_the_table_and_where_the_tournament_stands():
    """What the simulator's bots weigh near the money reaches a bot over the wire too: the opponents' stacks in
    the hand, the players left, the places paid, the next pay jump and the average stack."""
    async with live_server(hand_pause=0.05) as live:
        tournament, me, token = await person_among_stations(live, definition(12, 6, action_seconds=5, paid=3), 12)
        runtime = live.runtime(tournament)
        websocket = await connect(player_url(live, tournament, token))
        await wait_for_connections(runtime, 12)
        await admin(live, tournament, "start")
        turn = await next_event_of(websocket, "your_turn")
        hand = runtime.director.hand(runtime.director.where[me][0])
        assert (turn["players_left"], turn["paid"], turn["next_jump"], turn["average"]) == (12, 3, 4, 1_000)
        assert sorted(turn["opponents"]) == sorted(stack for player, stack in zip(hand.players, hand.stacks)
                                                   if player != me)  # everyone in: nobody acted before


async def next_event_of(websocket, kind: str) -> dict:
    while True:
        event = (await receive_json(websocket)).get("event", {})
        if event.get("type") == kind:
            return event
