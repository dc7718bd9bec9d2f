"""One swarm run over several processes: a coordinator and two workers on a real nats-server play one
tournament and write one report whose counts are the sum of the workers'; a worker killed mid-run is reported lost,
and the run goes on."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nats
import pytest

from bots import thresholds
from server.cluster.launcher import nats_binary
from tests.cluster import free_ports_in_a_row
from tests.live_server import live_server
from tests.test_swarm_gate import RISING, SLOW, config, on_the_session_loop, rows

pytestmark = [pytest.mark.cluster, on_the_session_loop]


@contextmanager
def plain_nats() -> Iterator[str]:
    """A nats-server of the swarm's own on a free loopback port (no JetStream, no users: the swarm's, not a
    cluster's)."""
    binary = nats_binary()
    if binary is None:
        pytest.skip("nats-server is not installed (./dev test installs it with apt-get: the nats-server package)")
    port = free_ports_in_a_row(1)
    server = subprocess.Popen([binary, "-a", "127.0.0.1", "-p", str(port)], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        yield f"nats://127.0.0.1:{port}"
    finally:
        server.terminate()
        server.wait(10)


async def mttsim(*arguments: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "server.cli", *arguments,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


async def test_a_coordinator_and_two_workers_play_one_tournament_and_write_one_report(tmp_path):
    heard: list[bytes] = []

    async def listen(message) -> None:
        heard.append(message.data)

    with plain_nats() as nats_url:
        spy = await nats.connect(nats_url)  # anyone on the swarm's NATS (docs/security.md)
        await spy.subscribe("mttsim.swarm.>", cb=listen)
        async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
            workers = [await mttsim("swarm-worker", "--coordinator", nats_url, "--run-name", "t1", "--name", name,
                                    "--json") for name in ("a", "b")]
            prefix = tmp_path / "run"
            coordinator = await mttsim(
                "swarm", "--coordinate", nats_url, "--expect-workers", "2", "--run-name", "t1", "--url", live.http,
                "--admin-token", "admin-token", "--create", "--config", config(tmp_path, 12, RISING),
                "--players", "12", "--observers", "2", "--seed", "5", "--interval", "0.5", "--json",
                "--csv", str(prefix), "--threshold", "errors==0", "--threshold", "finished")
            out, err = await asyncio.wait_for(coordinator.communicate(), 240)
            said = [await asyncio.wait_for(worker.communicate(), 60) for worker in workers]
        await spy.close()
    assert coordinator.returncode == thresholds.OK, err.decode()[-3000:]
    assert all(worker.returncode == 0 for worker in workers), [e.decode()[-2000:] for _, e in said]
    report, theirs = json.loads(out), [json.loads(o) for o, _ in said]
    assert report["finished"] and report["shards"] == 2 and report["workers_lost"] == []
    assert sorted(w["name"] for w in report["workers"]) == ["a", "b"]
    assert [r["players"] for r in theirs] == [6, 6] and [r["observers"] for r in theirs] == [1, 1]
    for count in ("players", "actions", "errors", "reconnections", "messages", "observers", "observer_messages"):
        assert report[count] == sum(r[count] for r in theirs), count  # one report, the sum of the workers'
    assert report["tournament"] == theirs[0]["tournament"] == theirs[1]["tournament"]
    latency = sum(report["histograms"]["latency_ms"].values())
    assert latency == sum(sum(r["histograms"]["latency_ms"].values()) for r in theirs) > 0
    assert report["history"] and rows(Path(f"{prefix}_stats_history.csv"))
    # what the swarm's NATS carries: plans, rows and reports, never the server's admin token
    assert len(heard) > 10 and not any(b"admin-token" in message for message in heard)


async def test_a_worker_killed_mid_run_is_reported_lost_and_the_run_goes_on(tmp_path):
    with plain_nats() as nats_url:
        async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
            workers = {name: await mttsim("swarm-worker", "--coordinator", nats_url, "--name", name)
                       for name in ("steady", "doomed")}
            coordinator = await mttsim(
                "swarm", "--coordinate", nats_url, "--expect-workers", "2", "--url", live.http,
                "--admin-token", "admin-token", "--create", "--config", config(tmp_path, 12, SLOW),
                "--players", "12", "--think", "0.02-0.05", "--duration", "8", "--interval", "0.5", "--json",
                "--csv", str(tmp_path / "run"))
            assert coordinator.stderr is not None
            while b"go: 2 workers" not in (line := await asyncio.wait_for(coordinator.stderr.readline(), 120)):
                assert line, "the coordinator ended before the run went"
            history = tmp_path / "run_stats_history.csv"
            for _ in range(600):  # some play measured by both, and written as it goes
                if history.exists() and len(rows(history)) >= 3:
                    break
                await asyncio.sleep(0.1)
            assert len(rows(history)) >= 3
            workers["doomed"].send_signal(signal.SIGKILL)
            out, err = await asyncio.wait_for(coordinator.communicate(), 120)
            await asyncio.wait_for(workers["steady"].communicate(), 60)
            await workers["doomed"].wait()
    assert coordinator.returncode == thresholds.OK, err.decode()[-3000:]
    report = json.loads(out)
    assert report["workers_lost"] == ["doomed"] and report["stopped"] == "duration"
    assert report["players"] == 12 and report["actions"] > 0  # the lost worker's figures until it was lost stay
    assert "lost: doomed" in err.decode()


async def test_a_worker_or_coordinator_without_a_nats_server_says_so_with_the_could_not_run_code():
    for arguments in (["swarm-worker", "--coordinator", "nats://127.0.0.1:9"],
                      ["swarm", "--coordinate", "nats://127.0.0.1:9", "--url", "http://127.0.0.1:9", "--players", "2",
                       "--create", "--admin-token", "x"]):
        process = await mttsim(*arguments)
        _, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == thresholds.COULD_NOT_RUN, err.decode()
        assert "no NATS server at nats://127.0.0.1:9" in err.decode()
