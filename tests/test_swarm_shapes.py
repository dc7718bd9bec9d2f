"""The swarm's load shapes, the load that is not a player, and its own metrics: a stages
run's history follows its stages, observers and lobby pollers have their own rows, and ``/metrics`` scrapes while
it runs, and the same metrics pushed to an OTLP receiver."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import httpx
import pytest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from prometheus_client.parser import text_string_to_metric_families

from bots import shapes, thresholds
from bots.loadreport import stats_rows
from bots.swarmmetrics import SwarmMetrics, prometheus_buckets
from tests.live_server import definition, live_server
from tests.test_swarm_gate import SLOW, config, on_the_session_loop, swarm


def test_stages_read_as_k6_writes_them_and_the_target_climbs_in_straight_lines(tmp_path):
    stages = shapes.parse_stages("30s:100,2m:1000,30s:0")
    assert stages == [shapes.Stage(30, 100), shapes.Stage(120, 1000), shapes.Stage(30, 0)]
    assert [shapes.target_at(stages, t) for t in (0, 15, 30, 90, 150, 165, 180, 999)] == \
        [0, 50, 100, 550, 1000, 500, 0, 0]
    assert shapes.total_seconds(stages) == 180
    listed = tmp_path / "stages.json"
    listed.write_text(json.dumps([{"duration": "1m", "target": 20}, {"duration": "90", "target": 5}]))
    assert shapes.parse_stages(str(listed)) == [shapes.Stage(60, 20), shapes.Stage(90, 5)]
    assert shapes.spawning(50, 10) == [shapes.Stage(5, 50)]  # Locust's spawn rate
    for wrong, said in (("30s", "DURATION:BOTS"), ("fast:10", "not a duration"), ("0s:10", "lasts no time"),
                        (str(tmp_path / "none.json"), "a JSON list")):
        with pytest.raises(ValueError, match=said):
            shapes.parse_stages(wrong)


def test_the_swarms_histograms_are_read_into_prometheus_buckets_cumulatively():
    from bots.histogram import histogram

    counts = histogram([0.0004, 0.003, 0.003, 0.2, 30.0])  # seconds
    buckets, total = prometheus_buckets(counts)
    assert dict(buckets) == {"0.001": 1, "0.0025": 1, "0.005": 3, "0.01": 3, "0.025": 3, "0.05": 3, "0.1": 3,
                             "0.25": 4, "0.5": 4, "1.0": 4, "2.5": 4, "5.0": 4, "10.0": 4, "+Inf": 5}
    assert total == pytest.approx(30.2064, rel=0.02)
    metrics = SwarmMetrics("run-1")
    row = {"total_actions": 5, "total_failures": 0, "errors": 0, "reconnections": 1, "users": 3, "target": None,
           "players_left": 9, "latency_ms": counts, "event_lag_ms": {}}
    metrics.row(row)
    metrics.row({**row, "total_actions": 7, "latency_ms": histogram([0.002])})
    families = {family.name: family for family in metrics.collect()}
    latency = {sample.name: sample.value for sample in families["mttsim_swarm_action_latency_seconds"].samples
               if sample.labels.get("le") in (None, "+Inf")}
    assert latency["mttsim_swarm_action_latency_seconds_count"] == 6  # the rows' buckets added up
    assert families["mttsim_swarm_actions"].samples[0].value == 7  # a counter: the latest running total
    assert families["mttsim_swarm_bots_target"].samples == []  # no shape: no target


@pytest.mark.process
@on_the_session_loop
async def test_a_stages_run_follows_its_stages_with_observers_lobby_pollers_and_metrics_scraped(tmp_path):
    """Bots connect as the stages climb and leave as they fall (the clock acts for the seats away), the run ends
    with its stages, spectators and lobby pages have their own rows, the swarm's /metrics answers a scrape
    while it runs, and the same metrics are pushed to an OTLP receiver at each row."""
    stages = shapes.parse_stages("2s:4,4s:4,2s:0")
    with otlp_receiver() as (receiver, posted):
        async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
            out, err, code, scraped = await shaped_run(live, tmp_path, receiver)
    assert code == thresholds.OK, err.decode()[-3000:]
    assert scraped["mttsim_swarm_actions_total"] > 0 and "mttsim_swarm_bots_target" in scraped
    assert scraped["mttsim_swarm_action_latency_seconds_count"] > 0
    # the CPU, every kind's histogram and the server's absences, which /metrics lacked
    assert scraped["mttsim_swarm_connect_seconds_count"] > 0 and scraped["mttsim_swarm_cpu_percent"] > 0
    assert scraped["mttsim_swarm_server_away_seconds"] == 0 and "mttsim_swarm_lobby_seconds_count" in scraped
    report = json.loads(out)
    assert report["otlp"]["sent"] >= 2 and report["otlp"]["failed"] == 0
    assert {path for path, _, _ in posted} == {"/v1/metrics"}
    last = ExportMetricsServiceRequest.FromString(posted[-1][2])
    metrics = {metric.name: metric for metric in last.resource_metrics[0].scope_metrics[0].metrics}
    assert {"mttsim_swarm_actions_total", "mttsim_swarm_cpu_percent", "mttsim_swarm_server_away_seconds",
            "mttsim_swarm_connect_seconds", "mttsim_swarm_action_latency_seconds"} <= set(metrics)
    point = metrics["mttsim_swarm_action_latency_seconds"].histogram.data_points[0]
    assert {kv.key: kv.value.string_value for kv in point.attributes} == {"run": "shaped", "shard": "0"}
    assert 0 < point.count == sum(point.bucket_counts) <= sum(report["histograms"]["latency_ms"].values())
    assert metrics["mttsim_swarm_actions_total"].sum.data_points[0].as_double > 0
    assert report["stopped"] == "duration" and 8 <= report["wall_s"] < 30  # the stages' 8 s, with its grace
    history = report["history"]
    for row in history[:-1]:  # the last is the stop's, after every bot has gone
        assert abs(row["target"] - shapes.target_at(stages, row["elapsed_s"])) <= 1, row
        assert row["users"] <= row["target"] + 1, row  # a tick of the shape behind a fall, at most
    held = [row["users"] for row in history if 3.0 <= row["elapsed_s"] <= 6.0]
    assert held and max(held) == 4, history  # the hold: four bots at the table
    assert all(row["users"] <= 2 for row in history if row["elapsed_s"] <= 1.0 or row["elapsed_s"] >= 7.5)
    observers_and_lobby_have_their_rows(report)


@contextmanager
def otlp_receiver() -> Iterator[tuple[str, list[tuple[str, str, bytes]]]]:
    """An OTLP/HTTP receiver on a free loopback port: each post's path, content type and body."""
    posted: list[tuple[str, str, bytes]] = []

    class Receiver(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            posted.append((self.path, self.headers["Content-Type"],
                           self.rfile.read(int(self.headers["Content-Length"]))))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *_: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", posted
    finally:
        server.shutdown()
        server.server_close()


async def shaped_run(live, tmp_path, receiver: str) -> tuple[bytes, bytes, int | None, dict[str, float]]:
    """The stages run, its /metrics scraped until a row of play is in: its output, its code, the scrape."""
    process = await swarm(live, "--players", "8", "--create", "--config", config(tmp_path, 8, SLOW),
                          "--think", "0.02-0.05", "--interval", "0.5", "--stages", "2s:4,4s:4,2s:0",
                          "--observers", "3", "--lobby", "2", "--lobby-every", "0.3", "--metrics-port", "0",
                          "--run-name", "shaped", "--json", "--threshold", "errors==0", "--otlp", receiver,
                          "--threshold", "watch.p99<60s", "--threshold", "lobby.p99.9<60s")
    assert process.stderr is not None
    line = (await asyncio.wait_for(process.stderr.readline(), 60)).decode()
    assert "metrics at http://127.0.0.1:" in line, line
    address = line.split("metrics at ")[1].strip()
    scraped: dict[str, float] = {}
    async with httpx.AsyncClient() as client:
        for _ in range(600):  # until a row of play is in
            families = text_string_to_metric_families((await client.get(address)).text)
            scraped = {sample.name: sample.value for family in families for sample in family.samples
                       if sample.labels.get("run") == "shaped" and sample.labels.get("le") in (None, "+Inf")}
            if scraped.get("mttsim_swarm_actions_total"):
                break
            await asyncio.sleep(0.1)
    out, err = await asyncio.wait_for(process.communicate(), 120)
    return out, err, process.returncode, scraped


def observers_and_lobby_have_their_rows(report: dict) -> None:
    assert report["observers"] == 3 and report["observer_messages"] > 0 and report["histograms"]["watch_lag_ms"]
    assert report["lobby_pollers"] == 2 and report["lobby_polls"] >= 4 and report["histograms"]["lobby_ms"]
    names = {row[1]: row for row in stats_rows(report)}
    assert names["watch"][2] > 0 and names["GET /api/tournaments"][2] == sum(report["histograms"]["lobby_ms"].values())
    assert [check["passed"] for check in report["thresholds"]] == [True, True, True, True]  # and the server answered


@pytest.mark.process
@on_the_session_loop
async def test_an_arrival_rate_spreads_the_registrations_a_spawn_rate_the_connections_and_a_warmup_is_left_out(
        tmp_path):
    async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
        deep = tmp_path / "deep.json"  # 5,000 big blinds: nobody busts in six seconds, every bot plays on
        deep.write_text(json.dumps(definition(8, 6, action_seconds=2, stack=100_000, levels=SLOW)))
        process = await swarm(live, "--players", "8", "--create", "--config", str(deep),
                              "--think", "0.02-0.05", "--interval", "0.5", "--arrival-rate", "4", "--spawn-rate", "4",
                              "--warmup", "3", "--duration", "6", "--json")
        out, err = await asyncio.wait_for(process.communicate(), 120)
    assert process.returncode == thresholds.OK, err.decode()[-3000:]
    report = json.loads(out)
    assert report["registering_s"] >= 1.75  # eight at four a second: the last sent 1.75 s after the first
    spawning = shapes.spawning(8, 4)
    assert all(abs(row["target"] - shapes.target_at(spawning, row["elapsed_s"])) <= 1 for row in report["history"])
    assert max(row["users"] for row in report["history"]) == 8  # every bot, once the two seconds of spawning end
    assert all(row["users"] <= 2 for row in report["history"] if row["elapsed_s"] <= 0.5)
    # the latencies measured in the first three seconds are not in the figures; the actions still count
    latencies = sum(report["histograms"]["latency_ms"].values())
    assert report["warmup_s"] == 3 and 0 < latencies < report["actions"]
    assert sum(row["actions"] for row in report["history"] if row["elapsed_s"] < 2.5) > 0
