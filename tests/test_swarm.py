"""The swarm: bots over REST and websockets play a live tournament to its end, measured; faults included."""

from __future__ import annotations

import asyncio
import csv
import json
import random
import sys

import pytest
import uvicorn

from bots.client import SeatBot
from bots.loadreport import merged_report
from bots.strategies import STRATEGIES
from bots.swarm import KEEPALIVE_SECONDS, SwarmOptions, run_swarm
from engine.wire import Private, YourTurn, encoder
from tests.live_server import definition, live_server

pytestmark = pytest.mark.asyncio
# Blinds that double every few hands, so no heads-up between two careful bots drags on.
RISING = [{"small_blind": 10 * 2**k, "big_blind": 20 * 2**k, "hands": 6} for k in range(10)]


def accounted(live, tournament: str, players: int, stack: int) -> None:
    """Every chip is with the winner and every cent of the pool is paid, each entry placed once."""
    director = live.runtime(tournament).director
    results = director.standings()
    assert sorted(r.place for r in results) == list(range(1, players + 1))
    assert sum(r.prize_cents for r in results) == director.prize_pool_cents == players * 1000
    assert director.chips_in_play() == players * stack


@pytest.mark.process
async def test_a_swarm_plays_a_tournament_to_a_winner_without_protocol_errors(tmp_path):
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "swarm", "--url", live.http, "--players", "30", "--create",
            "--admin-token", "admin-token", "--config", str(write_config(tmp_path, 30)), "--seed", "4", "--json",
            "--csv", str(tmp_path / "run"), stdout=asyncio.subprocess.PIPE)
        out, _ = await asyncio.wait_for(process.communicate(), 180)
        assert process.returncode == 0
        report = json.loads(out)
        assert report["finished"] and report["players"] == 30
        assert report["errors"] == 0 and report["missed_deadlines"] == 0
        assert report["actions"] > 0 and report["latency_ms"]["p99"] > 0 and report["event_lag_ms"]["p50"] >= 0
        assert set(report) >= {"players", "tables", "actions", "actions_per_s", "latency_ms", "event_lag_ms",
                               "errors", "missed_deadlines", "reconnections", "finished", "swarm_cpu_percent"}
        accounted(live, report["tournament"], 30, 500)
        rows = list(csv.DictReader(open(tmp_path / "run_stats.csv")))
        assert [r["Name"] for r in rows] == ["act -> acted", "register", "connect", "reconnect", "snapshot",
                                             "watch", "GET /api/tournaments", "Aggregated"]
        assert int(rows[0]["Request Count"]) == report["actions"]  # every action acknowledged
        assert int(rows[1]["Request Count"]) == int(rows[2]["Request Count"]) == 30  # each bot registered, connected
        assert int(rows[4]["Request Count"]) >= 30  # and was sent its snapshot


async def test_fault_injectors_cause_timeouts_reconnects_and_errors_and_the_tournament_still_ends():
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        # Deep stacks and a clock a busy machine still beats: every faulty bot plays many turns of its own
        # (a flaky one hangs up after 3 to 8), so each fault shows whatever the machine's pace.
        options = SwarmOptions(url=live.http, players=18, admin_token="admin-token", seed=2,
                               definition=definition(18, 6, action_seconds=1.0, stack=1000, levels=RISING),
                               mix={"random": 2, "tag": 1, "slow": 1, "flaky": 2, "rude": 1})
        report = await asyncio.wait_for(run_swarm(options), 240)
        assert report["finished"]
        assert report["timeouts"] > 0  # slow bots let the clock run out
        assert report["reconnections"] > 0  # flaky bots came back with their tokens
        assert report["provoked_errors"] > 0  # rude bots got error replies
        assert report["errors"] == 0  # and nobody else did
        accounted(live, report["tournament"], 18, 1000)


async def test_two_shards_share_one_tournament():
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        creator = SwarmOptions(url=live.http, players=12, admin_token="admin-token", seed=5, shard=(0, 2),
                               definition=definition(12, 6, action_seconds=1, stack=400, levels=RISING),
                               mix={"random": 1})
        first = asyncio.create_task(run_swarm(creator))
        await until_created(live)
        (tournament,) = live.app.state.server.tournaments
        joiner = SwarmOptions(url=live.http, players=12, tournament=tournament, seed=6, shard=(1, 2),
                              mix={"random": 1})
        reports = await asyncio.wait_for(asyncio.gather(first, run_swarm(joiner)), 180)
        assert [r["players"] for r in reports] == [6, 6]
        assert all(r["finished"] and r["errors"] == 0 for r in reports)
        accounted(live, tournament, 12, 400)
        merged = merged_report(reports)  # one report of the run: the union's percentiles lie between the shards'
        assert merged["players"] == 12 and merged["actions"] == sum(r["actions"] for r in reports)
        for key in ("p50", "p99"):
            shard_values = [r["latency_ms"][key] for r in reports]
            assert 0.98 * min(shard_values) <= merged["latency_ms"][key] <= 1.02 * max(shard_values)


async def until_created(live) -> None:
    while not live.app.state.server.tournaments:
        await asyncio.sleep(0.05)


def write_config(tmp_path, players: int):
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(definition(players, 6, action_seconds=1, stack=500, levels=RISING)))
    return path


@pytest.mark.process
async def test_a_swarm_rides_through_a_server_restart_and_reports_it(tmp_path):
    """SIGKILL the server mid-tournament and start it again on the same journal: the swarm waits for it,
    its bots reconnect with their tokens, and the tournament is played to its end."""
    import os
    import signal

    from tests.live_server import TOKEN, free_port, serve

    port, db = free_port(), str(tmp_path / "journal.db")
    process = await asyncio.to_thread(serve, port, db)
    options = SwarmOptions(url=f"http://127.0.0.1:{port}", players=12, admin_token=TOKEN, think=(0.0, 0.02),
                           definition=definition(12, 6, action_seconds=2.0, levels=RISING), mix={"pushfold": 1.0})
    swarm = asyncio.create_task(run_swarm(options))
    try:
        import httpx

        async with httpx.AsyncClient(base_url=options.url) as http:
            while not (listed := (await http.get("/api/tournaments")).json()) or listed[0]["status"] != "running" \
                    or listed[0]["players_left"] == 12 and not listed[0]["tables"]:
                await asyncio.sleep(0.05)
        await asyncio.sleep(0.5)  # some hands in
        os.kill(process.pid, signal.SIGKILL)
        await asyncio.to_thread(process.wait, 10)
        await asyncio.sleep(1.0)  # away a while: the swarm asks, and its bots knock, in vain
        process = await asyncio.to_thread(serve, port, db)
        report = await asyncio.wait_for(swarm, 240)
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
    assert report["finished"] and report["server_away"]["times"] >= 1
    # each bot still playing came back with its token, once: a session back, not each refused try
    assert 1 <= report["reconnections"] <= 12


async def test_a_swarm_registers_late_and_reenters_and_the_tournament_accounts_for_every_entry():
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        # Six seconds for each of the windows' two levels, then blinds by hands; bots that think a little, so
        # that the bubble (which closes the windows) comes after the late arrivals.
        levels = [{"small_blind": 10, "big_blind": 20, "minutes": 0.1},
                  {"small_blind": 20, "big_blind": 40, "minutes": 0.1},
                  *({"small_blind": 50 * 2**k, "big_blind": 100 * 2**k, "hands": 3} for k in range(8))]
        body = definition(100, 6, action_seconds=1.0, stack=3000, paid=2, levels=levels,
                          late_registration={"until_level": 2}, reentry={"until_level": 2, "max_count": 1})
        options = SwarmOptions(url=live.http, players=12, admin_token="admin-token", seed=3, definition=body,
                               mix={"station": 1, "tag": 2}, late=6, reentry=1.0, think=(0.03, 0.08))
        report = await asyncio.wait_for(run_swarm(options), 240)
        assert report["finished"] and report["errors"] == 0
        assert report["late_registrations"] + report["late_refused"] == 6 and report["late_registrations"] > 0
        assert report["reentries"] > 0
        director = live.runtime(report["tournament"]).director
        entries = 12 + report["late_registrations"] + report["reentries"]
        assert len(director.entries) == entries and report["reentries"] == sum(director.reentries.values())
        assert sorted(r.place for r in director.standings()) == list(range(1, entries + 1))
        assert director.ledger.summary()["held"] == 0 and director.chips_in_play() == director.chips_issued


async def test_a_bot_answers_a_turn_once_when_a_snapshot_shows_the_turn_it_is_thinking_over():
    """A ``your_turn``, then a snapshot showing the same turn (a move, a reconnect, the draw): one answer, not two;
    and a turn the clock took while the bot thought gets no late answer."""
    class Transport:
        is_close_frame_sent = False

        def __init__(self) -> None:
            self.sent: list[bytes] = []

        def send(self, kind: object, data: bytes) -> None:
            self.sent.append(data)

    turn = YourTurn(1, True, False, 20, 40, 1000, 15.0, (1, 2), (), 30, 1000, 20)
    legal = {"can_fold": True, "can_check": False, "call": 20, "min_raise_to": 40, "max_raise_to": 1000}
    snapshot = json.dumps({"type": "snapshot", "seq": 3, "tournament": {"starting_stack": 1000, "status": "running",
                                                                         "big_blind": 20},
                           "table": {"board": [], "pot": 30}, "you": {"stack": 1000, "result": None, "legal": legal,
                                                                      "hole": [1, 2]}}).encode()
    bot = SeatBot("ws://127.0.0.1:1", "t", "p1", "token", STRATEGIES["station"], random.Random(1), think=(0.05, 0.05))
    bot._transport = transport = Transport()
    bot._handle(encoder.encode(Private(turn, 0.0)), 0.0)
    bot._handle(snapshot, 0.0)
    await asyncio.sleep(0.3)
    assert [json.loads(data)["type"] for data in transport.sent] == ["act"]

    bot._handle(encoder.encode(Private(turn, 0.0)), 0.0)
    timed_out = {"type": "event", "seq": 4, "table": 1,
                 "event": {"type": "timed_out", "player": "p1", "action": "fold"}}
    bot._handle(json.dumps(timed_out).encode(), 0.0)
    await asyncio.sleep(0.3)
    assert [json.loads(data)["type"] for data in transport.sent] == ["act", "back"]


async def test_the_swarm_lets_an_idle_connection_go_before_the_server_would():
    """A connection the server may close as the swarm sends on it fails a request that cannot be retried."""
    assert KEEPALIVE_SECONDS < uvicorn.Config(app=None).timeout_keep_alive
