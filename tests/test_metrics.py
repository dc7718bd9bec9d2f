"""Prometheus metrics (server/api/metrics.py, ``GET /metrics``): the admin reads what the server is doing."""

from __future__ import annotations

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families

from tests.live_server import ADMIN, bots, create, definition, live_server, until

pytestmark = pytest.mark.asyncio


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {(sample.name, tuple(sorted(sample.labels.items()))): sample.value
            for family in text_string_to_metric_families(text) for sample in family.samples}


async def test_metrics_count_tables_players_actions_and_the_time_messages_wait():
    async with live_server(hand_pause=0.02) as live, httpx.AsyncClient(base_url=live.http) as client:
        assert (await client.get("/metrics")).status_code == 401  # the admin's
        await create(live, definition(6, 6), 2)  # one in Register
        tournament, seats = await create(live, definition(6, 3, stack=100_000), 6)
        runtime = live.runtime(tournament)
        bots(live, tournament, seats, "station")  # deep stacks and players who never raise: nobody busts
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 6)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await until(lambda: runtime.director.hands_played >= 6)
        answer = await client.get("/metrics", headers=ADMIN)
        assert answer.status_code == 200 and answer.headers["content-type"].startswith("text/plain")
        seen = samples(answer.text)
        assert seen[("mttsim_tournaments", (("status", "register"),))] == 1
        assert seen[("mttsim_tournaments", (("status", "running"),))] == 1
        mine = (("tournament", tournament),)  # a figure of one tournament carries its label
        assert seen[("mttsim_tables", mine)] == len(runtime.director.tables) == 2
        assert seen[("mttsim_players_connected", mine)] == 6 and seen[("mttsim_players_left", mine)] == 6
        assert seen[("mttsim_failovers_total", mine)] == 0  # a counter, by its name
        actions = seen[("mttsim_actions_total", mine)]
        assert actions > 0 and seen[("mttsim_action_seconds_count", ())] == actions
        assert seen[("mttsim_action_seconds_bucket", (("le", "+Inf"),))] == actions
        assert seen[("mttsim_event_lag_seconds_count", ())] > 0
        assert 0 <= seen[("mttsim_event_lag_seconds_sum", ())] / seen[("mttsim_event_lag_seconds_count", ())] < 5
        # The process's own figures, the build, the traffic; and no ``_created`` series.
        assert seen[("process_resident_memory_bytes", ())] > 0 and ("python_gc_collections_total",
                                                                     (("generation", "0"),)) in seen
        build = next(labels for name, labels in seen if name == "mttsim_build_info")
        assert dict(build)["compiled"] in ("true", "false") and dict(build)["version"]
        assert seen[("mttsim_http_requests_total", (("method", "POST"), ("route", "/api/tournaments/{id}/start"),
                                                    ("status", "200")))] == 1
        assert seen[("mttsim_http_requests_total", (("method", "GET"), ("route", "/metrics"),
                                                    ("status", "401")))] == 1
        assert seen[("mttsim_websocket_messages_received_total", ())] >= actions
        assert seen[("mttsim_websocket_frames_sent_total", ())] > 0
        assert not any(name.endswith("_created") for name, _ in seen)


async def test_the_barrier_histogram_times_each_hand_for_hand_round_from_last_settled_to_first_deal():
    async with live_server(hand_pause=0.0) as live, httpx.AsyncClient(base_url=live.http) as client:
        # Nobody connects: each player's first decision times out, then they sit out and act at once.
        body = definition(27, 9, action_seconds=0.05, time_bank_seconds=0.0, stack=100_000)
        tournament, _ = await create(live, body, 27)
        runtime = live.runtime(tournament)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        before = samples((await client.get("/metrics", headers=ADMIN)).text)[("mttsim_barrier_seconds_count", ())]
        assert before == 0, "no round before hand-for-hand"
        forced = await client.post(f"/api/tournaments/{tournament}/hand-for-hand", json={"on": True}, headers=ADMIN)
        assert forced.status_code == 200
        await until(lambda: runtime.director.hands_played >= 3 * 6)  # a few rounds of three tables
        seen = samples((await client.get("/metrics", headers=ADMIN)).text)
        assert seen[("mttsim_barrier_seconds_count", ())] >= 3
        assert seen[("mttsim_barrier_seconds_bucket", (("le", "+Inf"),))] == seen[("mttsim_barrier_seconds_count", ())]


async def test_every_metric_the_shipped_grafana_dashboard_queries_exists_on_a_live_server():
    import json
    import re
    from pathlib import Path

    dashboard = json.loads((Path(__file__).resolve().parents[1] / "docs" / "grafana" / "mttsim.json").read_text())
    queried = {name for panel in dashboard["panels"] for target in panel["targets"]
               for name in re.findall(r"\b((?:mttsim|process|python)_[a-z_]+)\b", target["expr"])}
    assert {"mttsim_actions_total", "mttsim_players_left", "mttsim_failovers_total"} <= queried
    async with live_server(hand_pause=0.02) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(6, 3, stack=100_000), 6)
        runtime = live.runtime(tournament)
        bots(live, tournament, seats, "station")
        await until(lambda: len([p for p, c in runtime.streams.players.items() if c]) == 6)
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        await until(lambda: runtime.director.hands_played >= 2)
        exposed = {name for name, _ in samples((await client.get("/metrics", headers=ADMIN)).text)}
    # the swarm's panels read what ``mttsim swarm --metrics-port`` serves (bots/swarmmetrics.py), after a row
    from prometheus_client import CollectorRegistry, generate_latest

    from bots.swarmmetrics import SwarmMetrics

    swarm = SwarmMetrics("run")
    swarm.row({"total_actions": 1, "total_failures": 0, "errors": 0, "reconnections": 0, "users": 1, "target": 1,
               "players_left": 6, "latency_ms": {"100": 1}, "event_lag_ms": {"90": 1}})
    swarm.report({"swarm_cpu_percent": 3.0, "server_away": {"seconds": 0.0, "at_the_end": False},
                  "histograms": {"connect_ms": {"80": 1}, "register_ms": {"70": 1}, "snapshot_ms": {"60": 1}}})
    registry = CollectorRegistry(auto_describe=False)
    registry.register(swarm)
    exposed |= {name for name, _ in samples(generate_latest(registry).decode())}
    assert {name for name in queried if name.startswith("mttsim_swarm_")} >= {
        "mttsim_swarm_actions_total", "mttsim_swarm_action_latency_seconds_bucket", "mttsim_swarm_bots_target",
        "mttsim_swarm_cpu_percent", "mttsim_swarm_server_away_seconds", "mttsim_swarm_connect_seconds_bucket"}
    variables = {variable["name"]: variable for variable in dashboard["templating"]["list"]}
    assert {"run", "instance"} <= set(variables)  # runs side by side, servers side by side, each chosen apart
    for panel in dashboard["panels"]:
        for target in panel["targets"]:
            for name in re.findall(r"\b((?:mttsim|process)_[a-z_]+)\b", target["expr"]):
                wanted = '{run=~"$run"}' if name.startswith("mttsim_swarm_") else '{instance=~"$instance"}'
                assert f"{name}{wanted}" in target["expr"], (panel["title"], target["expr"])
    assert queried <= exposed, sorted(queried - exposed)
