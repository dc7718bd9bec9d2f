"""One process against a cluster on this machine, side by side in one run (docs/performance.md).

(a) The same swarm of instant bots against ``mttsim serve`` and against a
    cluster (a NATS server, the director, table workers, a gateway): actions
    per second, p99 action latency, the CPU all the server's processes used
    per 1,000 actions, and so what the bus costs per action.
(b) The largest field each holds under p99 100 ms: bots thinking 1-3 s, as
    bench_swarm.py's (a) measures one process, in growing fields.
(c) Hand-for-hand across many tables: players registered over REST who never
    connect (the clock acts for them once, then they sit out and act at
    once), hand-for-hand forced by the director, and the director's
    ``mttsim_barrier_seconds`` histogram read from its metrics: the time from
    a round's last hand settled to the next round's first deal.

This machine has two cores shared by the swarm, every server process and
NATS: the cluster's figures show what the bus costs, not what more machines
would give.

Run: .venv/bin/python benchmarks/bench_cluster.py [--players 1800] [--window 10] [--sizes 2000,6000,10000]
     [--tables 2000] [--rounds-for 20] [--runs 1]
"""

from __future__ import annotations

import argparse
import contextlib
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import httpx  # noqa: E402
import uvloop  # noqa: E402
from msgspec import to_builtins  # noqa: E402

from benchmarks.bench_swarm import free_port, process_cpu  # noqa: E402
from bots.swarm import SwarmOptions, run_swarm  # noqa: E402
from engine.structure import default_definition  # noqa: E402
from server.cluster.launcher import nats_server  # noqa: E402

TOKEN = "bench-admin"
ADMIN = {"Authorization": f"Bearer {TOKEN}"}
WARMUP = 10.0


def serve(*options: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--admin-token", TOKEN, *options],
                            stdout=subprocess.DEVNULL)


def wait_http(port: int) -> None:
    deadline = time.monotonic() + 30
    while True:
        try:
            httpx.get(f"http://127.0.0.1:{port}/api/tournaments", timeout=2)
            return
        except httpx.TransportError:
            if time.monotonic() > deadline:
                raise RuntimeError("a server did not start") from None
            time.sleep(0.1)


@contextlib.contextmanager
def single(hand_pause: float) -> Iterator[tuple[int, int, dict[str, list[int]]]]:
    """One ``mttsim serve``: yields (the port to play on, the director's port, the pids to count by role)."""
    port = free_port()
    process = serve("--port", str(port), "--memory", "--hand-pause", str(hand_pause))
    try:
        wait_http(port)
        yield port, port, {"server": [process.pid]}
    finally:
        process.terminate()
        process.wait(20)


@contextlib.contextmanager
def cluster(hand_pause: float, workers: int) -> Iterator[tuple[int, int, dict[str, list[int]]]]:
    """NATS, the director, ``workers`` table workers and a gateway: yields (the gateway's port, the director's
    port, every pid by role, NATS's included)."""
    with nats_server(gateways=1) as users:
        nats_pid = int(subprocess.run(["pgrep", "-n", "nats-server"], capture_output=True, text=True).stdout)
        gateway_port, director_port = free_port(), free_port()
        processes = [serve("--nats", users.director, "--role", "director", "--port", str(director_port), "--memory",
                           "--hand-pause", str(hand_pause))]
        wait_http(director_port)
        processes += [serve("--nats", users.tables, "--role", "tables") for _ in range(workers)]
        processes.append(serve("--nats", users.gateways[0], "--role", "gateway", "--port", str(gateway_port)))
        try:
            wait_http(gateway_port)
            yield gateway_port, director_port, {"NATS": [nats_pid], "director": [processes[0].pid],
                                                "workers": [process.pid for process in processes[1:-1]],
                                                "gateway": [processes[-1].pid]}
        finally:
            for process in reversed(processes):
                process.terminate()
            for process in processes:
                process.wait(120)  # a worker lets go of two thousand leases


def cpu(pids: dict[str, list[int]]) -> dict[str, float]:
    return {role: sum(process_cpu(pid) for pid in ids) for role, ids in pids.items()}


async def swarm(port: int, pids: dict[str, list[int]], players: int, window: float,
                think: tuple[float, float] = (0.0, 0.0)) -> dict[str, Any]:
    body = to_builtins(default_definition(players))
    body["action_seconds"] = 15.0
    options = SwarmOptions(url=f"http://127.0.0.1:{port}", players=players, admin_token=TOKEN, definition=body,
                           duration=WARMUP + window, warmup=WARMUP, seed=1, think=think,
                           mix={"tag": 4, "pushfold": 3, "station": 2, "random": 1})
    before = cpu(pids)
    report = await run_swarm(options)
    per_1000 = {role: 1000 * (used - before[role]) / max(1, report["actions"]) for role, used in cpu(pids).items()}
    return {"actions_per_s": report["actions_per_s"], "p99_ms": report["latency_ms"]["p99"],
            "cpu_per_1000": sum(per_1000.values()), "by_role": per_1000, "errors": report["errors"],
            "error_codes": report["error_codes"], "timeouts": report["timeouts"]}


def barrier_p99(port: int) -> tuple[int, float]:
    """(rounds, p99 seconds) of the director's barrier histogram: the upper bound of the p99's bucket."""
    text = httpx.get(f"http://127.0.0.1:{port}/metrics", headers=ADMIN, timeout=30).text
    buckets = [(float(line.split('le="')[1].split('"')[0]), float(line.split()[-1]))
               for line in text.splitlines() if line.startswith("mttsim_barrier_seconds_bucket")]
    total = buckets[-1][1]
    bound = next((le for le, count in buckets if count >= 0.99 * total), float("inf"))
    return int(total), bound


def hand_for_hand(port: int, tables: int, seconds: float) -> tuple[int, float]:
    players = tables * 9
    body = to_builtins(default_definition(players))
    body |= {"action_seconds": 0.05, "time_bank_seconds": 0.0, "seats_per_table": 9,
             "levels": [{"small_blind": 1, "big_blind": 2, "minutes": 600}]}
    with httpx.Client(base_url=f"http://127.0.0.1:{port}/api/tournaments", timeout=60) as client:
        tournament = client.post(f"http://127.0.0.1:{port}/api/tournaments", json=body, headers=ADMIN).json()["id"]
        for n in range(players):
            assert client.post(f"/{tournament}/register", json={"name": f"n{n}"}).status_code == 201
        assert client.post(f"/{tournament}/start", headers=ADMIN).status_code == 200
        time.sleep(3)  # every player's first decision times out once; then they act at once
        assert client.post(f"/{tournament}/hand-for-hand", json={"on": True}, headers=ADMIN).status_code == 200
        time.sleep(seconds)
    return barrier_p99(port)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1800, help="(a): instant bots (0 skips)")
    parser.add_argument("--window", type=float, default=10.0, help="(a): seconds measured after the warm-up")
    parser.add_argument("--workers", type=int, default=1, help="table workers in the cluster")
    parser.add_argument("--sizes", default="2000,6000,10000", help="(b): fields to try, smallest first ('' skips)")
    parser.add_argument("--sizes-window", type=float, default=20.0, help="(b): seconds measured after the warm-up")
    parser.add_argument("--tables", type=int, default=2000, help="(c): tables playing hand-for-hand (0 skips)")
    parser.add_argument("--rounds-for", type=float, default=20.0, help="(c): seconds of hand-for-hand")
    parser.add_argument("--runs", type=int, default=1, help="(c): runs of each setup, and their median")
    args = parser.parse_args()

    if args.players:
        await throughput(args)
    if args.sizes:
        await largest_field(args)
    if args.tables:
        barrier(args)


async def throughput(args: argparse.Namespace) -> None:
    print(f"(a) {args.players} instant bots, {args.window:.0f} s after a {WARMUP:.0f} s warm-up", flush=True)
    results = {}
    for name, setup in (("one process", single), ("cluster", lambda pause: cluster(pause, args.workers))):
        with setup(0.0) as (port, _, pids):
            results[name] = report = await swarm(port, pids, args.players, args.window)
        roles = ", ".join(f"{role} {seconds:.2f}" for role, seconds in report["by_role"].items())
        print(f"  {name:>11}: {report['actions_per_s']:7,.0f} actions/s, p99 {report['p99_ms']:6.1f} ms, "
              f"CPU {report['cpu_per_1000']:.2f} s per 1,000 actions ({roles})", flush=True)
    one, many = results["one process"], results["cluster"]
    print(f"  cluster / one process: {many['actions_per_s'] / one['actions_per_s']:.2f} of the actions/s; the bus "
          f"costs {1000 * (many['cpu_per_1000'] - one['cpu_per_1000']) / 1000:.2f} ms of CPU per action", flush=True)


async def largest_field(args: argparse.Namespace) -> None:
    print(f"(b) p99 action latency with bots thinking 1-3 s, {args.sizes_window:.0f} s after a {WARMUP:.0f} s warm-up, "
          "in growing fields until one passes 100 ms", flush=True)
    setups = {"one process": single, "cluster": lambda pause: cluster(pause, args.workers)}
    largest: dict[str, int] = {}
    for players in map(int, args.sizes.split(",")):
        for name, setup in list(setups.items()):
            with setup(2.0) as (port, _, pids):
                report = await swarm(port, pids, players, args.sizes_window, think=(1.0, 3.0))
            roles = ", ".join(f"{role} {seconds:.2f}" for role, seconds in report["by_role"].items())
            print(f"  {players:>6} players, {name:>11}: {report['actions_per_s']:7,.0f} actions/s, "
                  f"p99 {report['p99_ms']:6.1f} ms, CPU {report['cpu_per_1000']:.2f} s per 1,000 actions ({roles}), "
                  f"errors {report['errors']} {report['error_codes'] or ''}, clocks run out {report['timeouts']}",
                  flush=True)
            if report["p99_ms"] < 100:
                largest[name] = players
            else:
                del setups[name]  # a larger field would only be slower
        if not setups:
            break
    for name in ("one process", "cluster"):
        print(f"  {name}: the largest field tried with p99 under 100 ms: {largest.get(name, 'none')}", flush=True)


def barrier(args: argparse.Namespace) -> None:
    print(f"(c) hand-for-hand at {args.tables} tables for {args.rounds_for:.0f} s: last hand settled -> next "
          "round's first deal", flush=True)
    for name, setup in (("one process", single), ("cluster", lambda pause: cluster(pause, args.workers))):
        runs = []
        for _ in range(args.runs):
            with setup(0.0) as (_, director_port, _):
                runs.append(hand_for_hand(director_port, args.tables, args.rounds_for))
            print(f"  {name:>11}: {runs[-1][0]} rounds, p99 under {1000 * runs[-1][1]:.1f} ms", flush=True)
        if args.runs > 1:
            print(f"  {name:>11}, median of {args.runs}: {statistics.median(r for r, _ in runs):.0f} rounds, p99 under "
                  f"{1000 * statistics.median_high(p99 for _, p99 in runs):.1f} ms", flush=True)  # a bucket's bound


if __name__ == "__main__":
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    uvloop.run(main())
