"""The clocks: synchronised breaks at a minute of the tournament's hour, time-bank top-ups on a schedule,
and disconnect protection (extra time for a disconnected player, once a period)."""

from __future__ import annotations

import httpx
import msgspec
import pytest
from websockets.asyncio.client import connect

from engine.events import BreakEnded, BreakStarted, LevelChanged
from engine.structure import Breaks, DefinitionError, Level, TimeBank
from server.tournament import records
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import ADMIN, create, definition, live_server, receive_json
from tests.tournaments import deal, definition as rules, play_out, running

HALF_HOURS = [Level(10, 20, minutes=30), Level(20, 40, minutes=30), Level(40, 80, minutes=30)]


def test_every_table_breaks_at_the_minute_of_the_hour_and_the_level_goes_on_after_it():
    t, dealer = running(4, 4, levels=HALF_HOURS, breaks=Breaks(at_minute=55, minutes=5))
    assert t.advance(1800) == [LevelChanged(2, 20, 40, 0, False)]
    deal(t, dealer, 1)
    assert t.advance(55 * 60 - 1) == []
    assert t.advance(55 * 60) == [BreakStarted(3600)]  # at :55, with a hand in progress
    play_out(t, 1)  # which finishes
    t.end_hand(1)
    assert t.tables_ready() == [] and not t.can_start_hand(1)
    assert t.advance(3600) == [BreakEnded()] and t.level == 1  # the same level: its clock stood still
    assert t.level_ends_at() == 3600 + 300 and t.tables_ready() == [1]
    assert t.advance(3900) == [LevelChanged(3, 40, 80, 0, False)]
    assert t.advance(2 * 3600 + 55 * 60) == [BreakStarted(7200), BreakEnded(), BreakStarted(3 * 3600)]  # hourly


def test_breaks_take_exactly_one_schedule_and_a_bank_one_way_of_saying_it():
    for breaks in (Breaks(minutes=5), Breaks(every_levels=2, at_minute=55)):
        with pytest.raises(DefinitionError, match="exactly one of every_levels or at_minute"):
            rules(6, breaks=breaks)
    with pytest.raises(DefinitionError, match="lasts less than the hour"):
        rules(6, breaks=Breaks(at_minute=0, minutes=60))
    with pytest.raises(DefinitionError, match="not both"):
        rules(6, time_bank=TimeBank(20), time_bank_seconds=10)
    assert msgspec.json.decode(b'{"minutes": 5, "at_minute": 55}', type=Breaks).every_levels is None


def test_time_banks_are_topped_up_every_n_levels_and_a_restore_gives_the_same_banks():
    definition = rules(6, levels=[Level(10, 20, minutes=1)] * 5, time_bank=TimeBank(20, add_seconds=10, every_levels=2))
    storage = MemoryStorage()
    runtime = TournamentRuntime.create("t", definition, storage, hand_pause=0)
    for number in range(4):
        runtime.register(f"player {number}")
    runtime.start()
    banks = runtime.entries.time_bank
    assert set(banks.values()) == {20}
    runtime.submit(records.Advance(61))  # level 2 (the runtime's clock started a hair after 0): no top-up
    assert set(banks.values()) == {20}
    runtime.submit(records.Advance(121))  # level 3: every second level after the first
    assert set(banks.values()) == {30}
    runtime.submit(records.Advance(241))  # levels 4 and 5 at once: one top-up, at 5
    assert set(banks.values()) == {40}
    (stored,) = storage.tournaments()
    restored = TournamentRuntime.restore(stored, storage, hand_pause=0)
    assert restored.entries.time_bank == banks


@pytest.mark.asyncio
async def test_a_disconnected_player_gets_extra_time_once_a_period():
    body = definition(2, 2, action_seconds=0.2, disconnect_grace_seconds=0.5, disconnect_grace_every_minutes=60)
    async with live_server(hand_pause=0.05) as live:
        tournament, seats = await create(live, body, 2)
        for _, token in seats:  # each has been here, and is gone: both are disconnected
            async with connect(f"{live.ws}/ws/tournaments/{tournament}?token={token}") as socket:
                await receive_json(socket)
        runtime = live.runtime(tournament)
        async with connect(f"{live.ws}/ws/tournaments/{tournament}?table=1") as watcher:
            await receive_json(watcher)
            async with httpx.AsyncClient(base_url=live.http) as client:
                await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)

            async def turns_until_timeout() -> tuple[str, list[float]]:
                """The turn clocks the table hears until somebody times out, and who."""
                seconds: list[float] = []
                while True:
                    event = (await receive_json(watcher)).get("event", {})
                    if event.get("type") == "turn":
                        seconds.append(event["seconds"])
                    elif event.get("type") == "timed_out":
                        return event["player"], seconds

            player, clocks = await turns_until_timeout()
            assert clocks[-2:] == [0.2, 0.5]  # the action clock, then the grace
            runtime.player_back(player)  # back, but still disconnected: no second grace within the hour
            while True:
                again, clocks = await turns_until_timeout()
                if again == player:
                    break
                runtime.player_back(again)
            assert 0.5 not in clocks[-1:] and clocks[-1] == 0.2
