"""The server under a swarm: latency with thinking bots, peak actions/s, messages/s against a raw floor.

The server (``mttsim serve``) runs in its own process pinned to core 0; the
swarm runs here, pinned to core 1, so each has a core of this 2-core machine.
(a) Tournaments of growing size with bots thinking 1-3 s, each measured for
    ``--window`` seconds of play after a 15 s warm-up (when every table
    deals at once): the largest whose p99 action latency (action sent to
    its ``acted`` event received) stays under 100 ms.
(b) Instant bots (no think time, and by default no pause between hands):
    actions per second through the server, for a few field sizes; the peak.
(c) Messages per second the swarm received at (b)'s peak, next to a floor:
    a bare ``websockets`` server broadcasting small JSON messages to as many
    clients, one a frame, received by the swarm's client, measured in the
    same run on the same cores.
(d) What the time series and its streaming cost the swarm:
    ``--series-players`` thinking bots, the same seed, three times: with the
    CSVs rewritten at every 5 s row and /metrics served and scraped every 5 s,
    with the rows only, and with none. The CPU spent on rows, the report so
    far and its files, and the metrics, as a share of the run's (goal: under
    2%), and the swarm's CPU against the run with none.
(e) The swarm's CPU per bot with the realistic default mix against the old
    one (goal: within 20%), ``--mix-players`` thinking bots.

Run: .venv/bin/python benchmarks/bench_swarm.py [--sizes 2000,6000,10000] [--window S]
         [--instant-players 1800,2700,3600] [--instant-hand-pause S] [--series-players 5000]
         [--mix-players 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import uvloop  # noqa: E402
from msgspec import to_builtins  # noqa: E402

from bots.strategies import DEFAULT_MIX  # noqa: E402
from bots.loadreport import StreamedCsvs  # noqa: E402
from bots.swarm import SwarmOptions, run_swarm  # noqa: E402
from bots.swarmmetrics import SwarmMetrics, serve  # noqa: E402
from engine.structure import default_definition  # noqa: E402
from server.cli import quiet_garbage_collector  # noqa: E402

TOKEN = "bench-admin"
WARMUP = 15.0  # seconds after the start left out: every table deals its first hand at once


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def pin(core: int) -> None:
    if hasattr(os, "sched_setaffinity") and os.cpu_count() and os.cpu_count() > 1:
        os.sched_setaffinity(0, {core})


def start_server(port: int, hand_pause: float) -> subprocess.Popen:
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--admin-token", TOKEN,
         "--hand-pause", str(hand_pause), "--db", str(Path(tempfile.mkdtemp()) / "journal.db")],
        preexec_fn=lambda: pin(0), stdout=subprocess.DEVNULL)  # the journal on, as a real server runs
    deadline = time.monotonic() + 20
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError("the server did not start") from None
            time.sleep(0.1)


def process_cpu(pid: int) -> float:
    """CPU seconds (user + system) a process has used so far, from /proc (Linux)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def definition(players: int, action_seconds: float) -> dict:
    body = to_builtins(default_definition(players))
    body["action_seconds"] = action_seconds
    return body


OLD_MIX = {"tag": 4.0, "pushfold": 3.0, "station": 2.0, "random": 1.0}  # (a)-(d) keep it: figures comparable


async def measure(players: int, think: tuple[float, float], duration: float, hand_pause: float,
                  interval: float | None = 5.0, mix: dict[str, float] = OLD_MIX, streamed: bool = False) -> dict:
    """A run; ``streamed``: with the CSVs rewritten at every row and /metrics served and scraped every 5 s, as a
    CI job watched by Prometheus runs it."""
    port = free_port()
    server = start_server(port, hand_pause)
    metrics = SwarmMetrics("bench") if streamed else None
    scraping = None
    try:
        options = SwarmOptions(url=f"http://127.0.0.1:{port}", players=players, admin_token=TOKEN,
                               definition=definition(players, 15.0), think=think, duration=duration, seed=1,
                               warmup=WARMUP, interval=interval, mix=mix)
        cpu_before, wall_before = process_cpu(server.pid), time.perf_counter()
        prefix = tempfile.mkdtemp(prefix="bench-swarm-") + "/run"
        if metrics is not None:
            scraping = scrape_every(5.0, serve(metrics, "127.0.0.1", 0))
        report = await run_swarm(options, written=StreamedCsvs(prefix) if streamed else None,
                                 metrics=metrics)
        report["metrics_cpu_s"] = metrics.cpu_s if metrics is not None else 0.0
        report["server_cpu_percent"] = round(
            100 * (process_cpu(server.pid) - cpu_before) / (time.perf_counter() - wall_before), 1)
        return report
    finally:
        if scraping is not None:
            scraping.set()
        server.terminate()
        server.wait(20)


def share(part: float, whole: float) -> float:
    return 100 * part / whole if whole else 0.0


def scrape_every(seconds: float, port: int) -> threading.Event:
    """Prometheus, scraping the swarm's /metrics from another process's side (a thread of its own here)."""
    done = threading.Event()

    def scrape() -> None:
        while not done.wait(seconds):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10).read()

    threading.Thread(target=scrape, daemon=True).start()
    return done


async def broadcast_floor(clients: int, messages: int) -> float:
    """Messages/s a bare websockets server delivers: ``messages`` broadcasts of a small JSON text to ``clients``,
    received by the swarm's own client (picows), one message a frame.
    """
    from picows import WSListener, ws_connect

    port = free_port()
    text = json.dumps({"type": "event", "seq": 1, "table": 1, "event": {"type": "acted", "player": "p1",
                                                                       "action": "call", "amount": 20}})
    script = (
        "import asyncio, sys, os\n"
        "os.sched_setaffinity(0, {0})\n"
        "from websockets.asyncio.server import serve, broadcast\n"
        f"N, M, TEXT = {clients}, {messages}, {text!r}\n"
        "async def main():\n"
        "    peers = set(); full = asyncio.Event()\n"
        "    async def handler(ws):\n"
        "        peers.add(ws)\n"
        "        if len(peers) == N: full.set()\n"
        "        await ws.wait_closed()\n"
        f"    async with serve(handler, '127.0.0.1', {port}):\n"
        "        await full.wait()\n"
        "        for i in range(M):\n"
        "            broadcast(peers, TEXT)\n"
        "            if i % 50 == 0: await asyncio.sleep(0)\n"
        "        await asyncio.sleep(3600)\n"
        "asyncio.run(main())\n")
    server = subprocess.Popen([sys.executable, "-c", script])
    received = 0
    started = 0.0
    done = asyncio.get_running_loop().create_future()

    class Counter(WSListener):
        def on_ws_frame(self, transport, frame) -> None:
            nonlocal received, started
            if not started:
                started = time.perf_counter()
            received += 1
            if received == clients * messages and not done.done():
                done.set_result(time.perf_counter())

    try:
        await asyncio.sleep(0.5)
        transports = [(await ws_connect(Counter, f"ws://127.0.0.1:{port}"))[0] for _ in range(clients)]
        finished = await asyncio.wait_for(done, 300)
        for transport in transports:
            transport.disconnect()
        return received / (finished - started)
    finally:
        server.terminate()
        server.wait(10)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="2000,6000,10000", help="(a): fields to try, smallest first ('' skips)")
    parser.add_argument("--window", type=float, default=40.0, help="(a): seconds measured after the warm-up")
    parser.add_argument("--instant-players", default="1800,2700,3600", help="(b): fields to try ('' skips)")
    parser.add_argument("--instant-window", type=float, default=10.0, help="(b): seconds measured after the warm-up")
    parser.add_argument("--instant-hand-pause", type=float, default=0.0,
                        help="(b): seconds between hands (instant bots, and no pause either, by default)")
    parser.add_argument("--series-players", type=int, default=5000, help="(d): the field (0 skips)")
    parser.add_argument("--series-window", type=float, default=45.0, help="(d): seconds measured after the warm-up")
    parser.add_argument("--mix-players", type=int, default=2000, help="(e): the field (0 skips)")
    args = parser.parse_args()
    pin(1)
    quiet_garbage_collector()  # as `mttsim swarm` does

    if args.sizes:
        print("(a) p99 action latency, bots thinking 1-3 s")
        largest = None
        for players in map(int, args.sizes.split(",")):
            report = await measure(players, (1.0, 3.0), WARMUP + args.window, hand_pause=2.0)
            p99 = report["latency_ms"]["p99"]
            print(f"  {players:>6} players, {report['tables']:>5} tables: {report['actions_per_s']:7,.0f} actions/s,"
                  f" latency p50 {report['latency_ms']['p50']:.1f} ms p99 {p99:.1f} ms max "
                  f"{report['latency_ms']['max']:.0f} ms, event lag p50 {report['event_lag_ms']['p50']:.1f} ms p99 "
                  f"{report['event_lag_ms']['p99']:.1f} ms, errors {report['errors']}, CPU server "
                  f"{report['server_cpu_percent']}% swarm {report['swarm_cpu_percent']}%", flush=True)
            if p99 >= 100:
                break
            largest = players
        print(f"  largest with p99 under 100 ms: {largest} players (goal 10,000)")

    if args.instant_players:
        print(f"(b) instant bots, {args.instant_hand_pause} s between hands")
        peak: tuple[int, dict] | None = None
        for players in map(int, args.instant_players.split(",")):
            report = await measure(players, (0.0, 0.0), WARMUP + args.instant_window,
                                   hand_pause=args.instant_hand_pause)
            print(f"  {players:>6} players: {report['actions_per_s']:7,.0f} actions/s, latency p50 "
                  f"{report['latency_ms']['p50']:.1f} ms p99 {report['latency_ms']['p99']:.1f} ms, CPU server "
                  f"{report['server_cpu_percent']}% swarm {report['swarm_cpu_percent']}%", flush=True)
            if peak is None or report["actions_per_s"] > peak[1]["actions_per_s"]:
                peak = (players, report)
        assert peak is not None
        players, report = peak
        print(f"  peak: {report['actions_per_s']:,.0f} actions/s with {players} players (goal 5,000)")
        delivered = report["messages"] / report["wall_s"]
        floor = await broadcast_floor(players, 200)
        print(f"(c) messages delivered at the peak: {delivered:,.0f}/s; a bare websockets server broadcasting to "
              f"{players} clients, same cores: {floor:,.0f}/s -> {delivered / floor:.2f} of the floor")

    if args.series_players:
        print(f"(d) the time series' cost, and the streaming's: the CSVs rewritten at every row, /metrics served "
              f"and scraped every 5 s; {args.series_players} bots thinking 1-3 s")
        runs = {}
        for name, interval, streamed in (("streamed", 5.0, True), ("rows only", 5.0, False), ("none", None, False)):
            runs[name] = report = await measure(args.series_players, (1.0, 3.0), WARMUP + args.series_window,
                                                hand_pause=2.0, interval=interval, streamed=streamed)
            print(f"  {name}: swarm CPU {report['swarm_cpu_percent']}%, {report['actions_per_s']:,.0f} actions/s, "
                  f"{len(report['history'])} rows", flush=True)
        for name in ("rows only", "streamed"):
            run = runs[name]
            cpu = run["swarm_cpu_percent"] / 100 * run["wall_s"]
            streaming = run["streaming_cpu_s"] + run["metrics_cpu_s"]
            print(f"  {name}: rows {run['history_cpu_s']:.3f} s of CPU, {share(run['history_cpu_s'], cpu):.2f}% of "
                  f"the swarm's (goal under 2%); the report so far and its files {run['streaming_cpu_s']:.3f} s and "
                  f"the metrics {run['metrics_cpu_s']:.3f} s, {share(streaming, cpu):.2f}% (goal under 2%); swarm "
                  f"CPU against none: {run['swarm_cpu_percent'] / runs['none']['swarm_cpu_percent']:.3f}")

    if args.mix_players:
        print(f"(e) the swarm's CPU per bot by mix, {args.mix_players} bots thinking 1-3 s")
        cost = {}
        for name, mix in (("old", OLD_MIX), ("realistic", DEFAULT_MIX)):
            report = await measure(args.mix_players, (1.0, 3.0), WARMUP + args.series_window, hand_pause=2.0,
                                   mix=mix)
            cost[name] = report["swarm_cpu_percent"] / args.mix_players
            print(f"  {name} mix: swarm CPU {report['swarm_cpu_percent']}% ({1000 * cost[name]:.2f} per mille of a "
                  f"core a bot), {report['actions_per_s']:,.0f} actions/s", flush=True)
        print(f"  realistic / old, CPU per bot: {cost['realistic'] / cost['old']:.3f} (goal: within 20%)")


if __name__ == "__main__":
    uvloop.run(main())  # as `mttsim swarm` runs
