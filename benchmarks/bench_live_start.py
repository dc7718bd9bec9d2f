"""The start of a live tournament with real websockets: ``mttsim serve`` and ``mttsim swarm`` in two processes.

The server (core 0) runs as ``mttsim serve`` does, with one addition: a task
that asks for the event loop every millisecond and notes every wait over
20 ms, and the time ``TournamentRuntime.start`` was called and took. The
swarm (core 1) registers N bots that think 1-3 s, opens their websockets and
starts the tournament. Printed: the start call, the longest stall from the
start until every table has dealt its first hand (the draw's snapshots and
the first deals, spread over loop turns), the stalls of the play that
follows until ``--after`` seconds, and the longest stall in the seconds
before the start, while the swarm opens its websockets, for comparison.
``benchmarks/bench_stalls.py`` measures the same start with stand-in sockets
and the old way beside it.

Run: .venv/bin/python benchmarks/bench_live_start.py [--players 10000] [--after 10]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TOKEN = "bench-admin"


def serve(port: int, db: str, out: str) -> None:
    """The server's process: ``mttsim serve`` with a loop-lag monitor; writes what it saw to ``out`` on SIGINT."""
    import uvicorn
    import uvloop

    import server.tournament.runtime
    from server.api.app import create_app, uvicorn_websockets
    from server.api.edge import Settings
    from server.cli import quiet_garbage_collector

    quiet_garbage_collector()
    seen: dict[str, list[list[float]]] = {"stalls": [], "starts": [], "dealt": []}
    start = server.tournament.runtime.TournamentRuntime.start
    watchers: set[asyncio.Task[None]] = set()

    async def every_table_dealt(runtime: server.tournament.runtime.TournamentRuntime) -> None:
        director = runtime.director
        while director.hands_played < len(director.tables):
            await asyncio.sleep(0.002)
        seen["dealt"].append([time.time()])

    def timed_start(runtime: server.tournament.runtime.TournamentRuntime) -> None:
        began = time.time()
        start(runtime)
        seen["starts"].append([began, time.time() - began])
        watchers.add(asyncio.get_running_loop().create_task(every_table_dealt(runtime)))

    server.tournament.runtime.TournamentRuntime.start = timed_start  # the server as served, with its start timed

    async def monitor() -> None:
        loop = asyncio.get_running_loop()
        last = loop.time()
        while True:
            await asyncio.sleep(0.001)
            now = loop.time()
            if now - last > 0.02:
                seen["stalls"].append([time.time() - (now - last), now - last])  # when it began, how long
            last = now

    async def main() -> None:
        app = create_app(Settings(admin_token=TOKEN, hand_pause=2.0, db=db, ws_url=f"ws://127.0.0.1:{port}"))
        config = uvicorn.Config(app, host="127.0.0.1", port=port, loop="uvloop", log_level="warning",
                                **uvicorn_websockets())
        watching = asyncio.create_task(monitor())
        try:
            await uvicorn.Server(config).serve()
        finally:
            watching.cancel()
            Path(out).write_text(json.dumps(seen))

    uvloop.install()
    with contextlib.suppress(KeyboardInterrupt):  # uvicorn raises the SIGINT it stopped on again at the end
        asyncio.run(main())


def pin(process: subprocess.Popen[bytes], core: int) -> None:
    if hasattr(os, "sched_setaffinity") and (os.cpu_count() or 1) > 1:
        os.sched_setaffinity(process.pid, {core})


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def statuses(port: int) -> list[str]:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/tournaments", timeout=5) as response:
        listed = json.loads(response.read())
    return [t["status"] for t in (listed if isinstance(listed, list) else listed.get("tournaments", []))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--after", type=float, default=10.0, help="seconds after the start that are measured")
    parser.add_argument("--serve", nargs=3, metavar=("PORT", "DB", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        serve(int(args.serve[0]), args.serve[1], args.serve[2])
        return

    port, scratch = free_port(), tempfile.mkdtemp()
    out = os.path.join(scratch, "seen.json")
    server = subprocess.Popen([sys.executable, __file__, "--serve", str(port), os.path.join(scratch, "j.db"), out],
                              cwd=ROOT)
    pin(server, 0)
    swarm = None
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                statuses(port)
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not start") from None
                time.sleep(0.2)
        swarm = subprocess.Popen(
            [sys.executable, "-m", "server.cli", "swarm", "--url", f"http://127.0.0.1:{port}", "--players",
             str(args.players), "--create", "--admin-token", TOKEN, "--think", "1-3", "--json"],
            cwd=ROOT, stdout=subprocess.DEVNULL)
        pin(swarm, 1)
        while "running" not in statuses(port):
            if swarm.poll() is not None:
                raise RuntimeError("the swarm ended before the start")
            time.sleep(0.2)
        time.sleep(args.after + 1)
    finally:
        if swarm is not None:
            swarm.terminate()
            swarm.wait(30)
        server.send_signal(signal.SIGINT)
        server.wait(30)
    seen = json.loads(Path(out).read_text())
    (began, took), = seen["starts"]
    (dealt,), = seen["dealt"]
    start_stalls = [length for at, length in seen["stalls"] if began - 0.001 <= at <= dealt]
    after = [(at - began, length) for at, length in seen["stalls"] if dealt < at <= began + args.after]
    before = [length for at, length in seen["stalls"] if began - 5 <= at < began - 0.001]
    print(f"{args.players:,} players over real websockets: start() took {took * 1000:.1f} ms; "
          f"every table had dealt {dealt - began:.2f} s later")
    print(f"longest loop stall from the start until every table had dealt: "
          f"{max(start_stalls, default=0) * 1000:.1f} ms ({len(start_stalls)} over 20 ms); goal: under 50 ms")
    print(f"then, as play begins, to {args.after:.0f} s after the start, stalls over 20 ms (s after the start: ms): "
          + ", ".join(f"{at:.2f}: {length * 1000:.0f}" for at, length in after))
    print(f"longest stall in the 5 s before the start, while the swarm opened its websockets: "
          f"{max(before, default=0) * 1000:.1f} ms")


if __name__ == "__main__":
    main()
