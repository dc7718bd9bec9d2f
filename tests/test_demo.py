"""``mttsim demo``: the server comes up with a running, bot-filled tournament and the browser page."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import time

import httpx
from websockets.asyncio.client import connect

from tests.live_server import free_port, receive_json


def test_the_demo_serves_the_page_and_a_tournament_played_by_bots():
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "server.cli", "demo", "--port", str(port), "--players", "12",
         "--think-min", "0", "--think-max", "0.01", "--hand-pause", "0.1"],
        stdout=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(2)]
        assert f"http://127.0.0.1:{port}/" in lines[1]
        page = httpx.get(f"http://127.0.0.1:{port}/")
        assert page.status_code == 200 and 'src="app.js"' in page.text
        assert httpx.get(f"http://127.0.0.1:{port}/app.js").status_code == 200
        (tournament,) = httpx.get(f"http://127.0.0.1:{port}/api/tournaments").json()
        assert tournament["status"] == "running" and tournament["entries"] == 12

        async def watch() -> list[dict]:
            async with connect(f"ws://127.0.0.1:{port}/ws/tournaments/{tournament['id']}") as websocket:
                messages = []
                while not any(m.get("event", {}).get("type") == "acted" for m in messages):
                    messages.append(await receive_json(websocket, 20))
                return messages

        messages = asyncio.run(watch())
        assert messages[0]["type"] == "snapshot" and messages[0]["table"] is not None
        hands = f"http://127.0.0.1:{port}/api/tournaments/{tournament['id']}/hands"
        for _ in range(100):  # the demo's finished hands are served as any tournament's
            if listed := httpx.get(hands).json()["hands"]:
                break
            time.sleep(0.1)
        assert listed and "variant" in httpx.get(f"{hands}/{listed[0]['hand']}").text
        # Ctrl-C while it plays: stopping is not a finish, and nobody is announced as the winner.
        assert httpx.get(f"http://127.0.0.1:{port}/api/tournaments").json()[0]["status"] == "running"
        process.send_signal(signal.SIGINT)
        said, _ = process.communicate(timeout=30)
        assert process.returncode == 0 and "wins" not in said
        assert "The demo stopped at level" in said and "players still in" in said
    finally:
        process.terminate()
        process.wait(10)
