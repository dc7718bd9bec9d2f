"""One swarm run over several processes: a coordinator and two workers on a real nats-server play one
tournament and write one report whose counts are the sum of the workers'; a worker killed mid-run is reported lost,
and the run goes on."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import httpx
import nats
import pytest

from bots import thresholds
from bots.coordinator import SECRET_ENV, Link
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


SECRET = "the run's own secret"


async def mttsim(*arguments: str, **environment: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(sys.executable, "-m", "server.cli", *arguments,
                                                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
                                                env={**os.environ, SECRET_ENV: SECRET, **environment})


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


async def test_a_worker_killed_mid_run_is_reported_lost_fails_the_run_and_its_tournament_is_cancelled(tmp_path):
    """A worker SIGKILLed mid-run: its bots' seats played on the clock, the shape's target dropped with it, the
    run passed and (2 runs in 3) left its tournament running. Now the loss fails the run by default
    (``workers_lost==0``), the target stays the whole shape's (the lost share shows as missing), and the
    tournament the run created is cancelled at its end."""
    with plain_nats() as nats_url:
        async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
            workers = {name: await mttsim("swarm-worker", "--coordinator", nats_url, "--name", name)
                       for name in ("steady", "doomed")}
            coordinator = await mttsim(
                "swarm", "--coordinate", nats_url, "--expect-workers", "2", "--url", live.http,
                "--admin-token", "admin-token", "--create", "--config", config(tmp_path, 12, SLOW),
                "--players", "12", "--think", "0.02-0.05", "--stages", "1s:12,7s:12", "--interval", "0.5",
                "--json", "--csv", str(tmp_path / "run"))
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
            status = await statuses(live)
    assert coordinator.returncode == thresholds.THRESHOLD_FAILED, err.decode()[-3000:]
    report = json.loads(out)
    assert report["workers_lost"] == ["doomed"] and report["stopped"] == "duration"
    assert {"threshold": "workers_lost==0", "actual": 1, "unit": "", "passed": False} in report["thresholds"]
    assert report["players"] == 12 and report["actions"] > 0  # the lost worker's figures until it was lost stay
    assert "lost: doomed" in err.decode()
    assert report["tournament_after"] == "cancelled" and status[report["tournament"]] == "cancelled"
    late = [row for row in report["history"] if row["elapsed_s"] > 2]
    assert late and all(row["target"] == 12 for row in late)  # the whole shape's target, kept
    assert late[-2]["users"] <= 6  # against the bots the one worker left still connects


async def statuses(live) -> dict[str, str]:
    async with httpx.AsyncClient(base_url=live.http) as client:
        return {t["id"]: t["status"] for t in (await client.get("/api/tournaments")).json()}


async def test_a_late_worker_is_sent_home_and_a_coordinator_short_of_workers_gives_up(tmp_path):
    """A worker that came after the run had its workers waited silently forever; a coordinator short of
    workers waited forever too. The late one is told to go home (exit 3, saying so); the short one gives up
    after --expect-workers-max-wait (exit 3, saying how many came) and cancels the tournament it made; its
    lone worker, hearing no coordinator for --wait-for-server, stops too."""
    with plain_nats() as nats_url:
        async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
            first = await mttsim("swarm-worker", "--coordinator", nats_url, "--run-name", "full", "--name", "first")
            full = await mttsim(
                "swarm", "--coordinate", nats_url, "--expect-workers", "1", "--run-name", "full", "--url", live.http,
                "--admin-token", "admin-token", "--create", "--config", config(tmp_path, 6, SLOW), "--players", "6",
                "--interval", "0.5")  # it runs until the late worker has been sent home: a busy machine may be slow
            # to start that one
            lone = await mttsim("swarm-worker", "--coordinator", nats_url, "--run-name", "short", "--name", "lone",
                                "--wait-for-server", "3")
            short = await mttsim(
                "swarm", "--coordinate", nats_url, "--expect-workers", "2", "--run-name", "short", "--url", live.http,
                "--admin-token", "admin-token", "--create", "--config", config(tmp_path, 6, SLOW), "--players", "6",
                "--expect-workers-max-wait", "3", "--json")
            assert full.stderr is not None
            while b"go: 1 workers" not in (line := await asyncio.wait_for(full.stderr.readline(), 120)):
                assert line, "the coordinator ended before the run went"
            late = await mttsim("swarm-worker", "--coordinator", nats_url, "--run-name", "full", "--name", "late")
            _, late_said = await asyncio.wait_for(late.communicate(), 60)
            full.send_signal(signal.SIGTERM)  # then the full run ends, cancelling the tournament it made
            out, short_said = await asyncio.wait_for(short.communicate(), 60)
            _, lone_said = await asyncio.wait_for(lone.communicate(), 60)
            await asyncio.wait_for(full.communicate(), 60)
            await asyncio.wait_for(first.communicate(), 60)
            made = await statuses(live)
    assert late.returncode == thresholds.COULD_NOT_RUN, late_said.decode()[-2000:]
    assert "turned this worker away: the run has the 1 workers it expected" in late_said.decode()
    assert short.returncode == thresholds.COULD_NOT_RUN, short_said.decode()[-2000:]
    assert "1 of the 2 workers expected came in 3 s" in short_said.decode()
    assert json.loads(out)["exit_code"] == thresholds.COULD_NOT_RUN
    assert sorted(made.values()) == ["cancelled", "cancelled"]  # the short run's and the full one's (stopped)
    assert lone.returncode == thresholds.COULD_NOT_RUN and "no coordinator of run 'short'" in lone_said.decode()


async def test_a_worker_whose_coordinator_is_killed_stops_its_bots_and_says_so(tmp_path):
    with plain_nats() as nats_url:
        async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
            worker = await mttsim("swarm-worker", "--coordinator", nats_url, "--name", "orphan")
            coordinator = await mttsim(
                "swarm", "--coordinate", nats_url, "--expect-workers", "1", "--url", live.http,
                "--admin-token", "admin-token", "--create", "--config", config(tmp_path, 6, SLOW), "--players", "6",
                "--think", "0.02-0.05", "--interval", "0.5")
            assert coordinator.stderr is not None
            while b"go: 1 workers" not in (line := await asyncio.wait_for(coordinator.stderr.readline(), 120)):
                assert line, "the coordinator ended before the run went"
            coordinator.kill()
            await coordinator.wait()
            _, said = await asyncio.wait_for(worker.communicate(), 60)  # it played on, and exited 0, before
    assert worker.returncode == thresholds.SERVER_LOST, said.decode()[-2000:]
    assert "the coordinator of run 'swarm' was not heard of for 15 s: this worker stopped its bots" in said.decode()


async def test_a_worker_or_coordinator_without_a_nats_server_says_so_with_the_could_not_run_code():
    """NATS is waited for as long as the game server would be (here --wait-for-server 3; it was given up after
    4.5 s whatever the budget), and the message names NATS, not the game server."""
    for arguments in (["swarm-worker", "--coordinator", "nats://127.0.0.1:9"],
                      ["swarm", "--coordinate", "nats://127.0.0.1:9", "--url", "http://127.0.0.1:8", "--players", "2",
                       "--create", "--admin-token", "x"]):
        process = await mttsim(*arguments, "--wait-for-server", "3")
        _, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == thresholds.COULD_NOT_RUN, err.decode()
        assert "no NATS server at nats://127.0.0.1:9 in 3 s" in err.decode() and "127.0.0.1:8" not in err.decode()


async def test_a_worker_takes_no_plan_from_a_stranger_and_imports_no_player_it_was_not_started_with(tmp_path):
    """A stranger on the swarm's NATS answered a worker's hello with a plan naming ``module:function`` as a
    player, and the worker imported and called it. A worker now hears only messages signed with the run's secret,
    and plays only the players of its own ``--player``: neither plan imports anything (a marker file that the
    module's import would write is never written)."""
    marker = tmp_path / "imported"
    (tmp_path / "intruder.py").write_text(f"open({str(marker)!r}, 'w').close()\n\ndef player(view, rng):\n"
                                          f"    return ('fold', None)\n")
    plan = {"mix": {"intruder:player": 1.0}, "shard": [0, 1], "think": [0, 0], "stages": None,
            "url": "http://127.0.0.1:9", "players": 2}
    with plain_nats() as nats_url:
        client = await nats.connect(nats_url)
        hellos: list[bytes] = []

        async def hello(message) -> None:
            hellos.append(message.data)

        await client.subscribe("mttsim.swarm.guarded.hello", cb=hello)
        worker = await mttsim("swarm-worker", "--coordinator", nats_url, "--run-name", "guarded", "--name", "w",
                              PYTHONPATH=str(tmp_path))
        try:
            for _ in range(600):
                if hellos:
                    break
                await asyncio.sleep(0.05)
            link = Link(client, "guarded", SECRET)
            assert link.opened("mttsim.swarm.guarded.hello", hellos[0]) == {"worker": "w"}  # signed by the worker
            await client.publish("mttsim.swarm.guarded.plan.w", json.dumps(plan).encode())  # a stranger's
            forged = Link(client, "guarded", "a guess at the secret")
            await forged.publish("plan.w", plan)
            await client.flush()
            assert worker.stderr is not None
            said = b""
            while said.count(b"not signed with the run's secret") < 2:  # each dropped, with its line
                line = await asyncio.wait_for(worker.stderr.readline(), 60)
                assert line, "the worker ended"
                said += line
            assert worker.returncode is None  # it took neither, and waits for its plan
            await link.publish("plan.w", plan)  # signed: a plan of the run, naming a player it was not given
            _, rest = await asyncio.wait_for(worker.communicate(), 60)
            err = said + rest
        finally:
            if worker.returncode is None:
                worker.kill()
                await worker.wait()
            await client.close()
    assert worker.returncode == thresholds.USAGE, err.decode()[-2000:]
    assert "was not started with: intruder:player" in err.decode()
    assert err.decode().count("not signed with the run's secret") >= 2
    assert not marker.exists()


async def test_a_worker_without_the_runs_secret_says_so():
    process = await mttsim("swarm-worker", "--coordinator", "nats://127.0.0.1:9", **{SECRET_ENV: ""})
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode == thresholds.USAGE and f"{SECRET_ENV} is not set" in err.decode()
