"""A killed server loses no chip and no cent: SIGKILL a real server process mid-tournament, restart it, repeat.

The server runs ``mttsim serve --db`` in a child process with its own bots
(they are journaled with the tournament, and come back with it). Each restart
replays the journal, voids the hands the kill interrupted and plays on.
"""

from __future__ import annotations

import os
import random
import signal
import time

import httpx
from pokerkit import HandHistory

from tests.live_server import TOKEN, definition, free_port, serve

ADMIN = {"Authorization": f"Bearer {TOKEN}"}


def test_sigkill_at_random_moments_then_restart_loses_no_chip_and_no_cent(tmp_path):
    rng = random.Random(20261129)
    port = free_port()
    db = str(tmp_path / "journal.db")
    base = f"http://127.0.0.1:{port}/api/tournaments"
    levels = [{"small_blind": sb, "big_blind": 2 * sb, "hands": 4} for sb in (10, 20, 40, 80, 150, 300, 600, 1200)]
    body = definition(24, 6, action_seconds=1.0, paid=3, levels=levels,
                      rebuys={"levels": 2, "price_cents": 1000, "chips": 1000, "fee_cents": 100})
    process = serve(port, db)
    try:
        tournament = httpx.post(base, json=body, headers=ADMIN).json()["id"]
        added = httpx.post(f"{base}/{tournament}/bots", headers=ADMIN,
                           json={"count": 24, "mix": "pushfold=2,station=1,tag=1", "think_min": 0, "think_max": 0.02})
        assert added.status_code == 201
        assert httpx.post(f"{base}/{tournament}/start", headers=ADMIN).status_code == 200
        restarts, voided = 0, 0
        while restarts < 3:
            time.sleep(rng.uniform(0.5, 2.0))
            if httpx.get(f"{base}/{tournament}").json()["status"] != "running":
                break
            process.send_signal(signal.SIGKILL)
            process.wait(10)
            process = serve(port, db)
            restarts += 1
            shown = httpx.get(f"{base}/{tournament}").json()
            if shown["status"] == "finished":  # it finished between the look and the kill: shown, not restored
                break
            assert shown["restored_at"] is not None
            assert shown["chips_in_play"] == shown["chips_issued"], "chips were lost or made by the restart"
            assert shown["ledger"]["paid_in"] == (shown["ledger"]["held"] + shown["ledger"]["prizes"]
                                                  + shown["ledger"]["refunds"] + shown["ledger"]["fees_kept"])
            voided += len(shown["voided_hands"])
        assert restarts >= 2, "the tournament ended before the server could be killed twice"

        deadline = time.monotonic() + 240
        while (shown := httpx.get(f"{base}/{tournament}").json())["status"] != "finished":
            assert time.monotonic() < deadline, f"the tournament did not finish: {shown['players_left']} left"
            time.sleep(0.5)
        process.send_signal(signal.SIGKILL)  # a finished tournament comes back too, to be shown
        process.wait(10)
        process = serve(port, db)
        again = httpx.get(f"{base}/{tournament}").json()
        assert {key: again[key] for key in ("status", "results", "ledger", "prize_pool_cents")} == {
            key: shown[key] for key in ("status", "results", "ledger", "prize_pool_cents")}
        results = shown["results"]
        assert sorted(r["place"] for r in results) == list(range(1, 25)), "every player has exactly one place"
        assert len({r["player"] for r in results}) == 24
        ledger = shown["ledger"]
        assert ledger["held"] == 0 and ledger["refunds"] == 0
        assert sum(r["prize_cents"] for r in results) == ledger["prizes"] == shown["prize_pool_cents"]
        assert ledger["paid_in"] == ledger["prizes"] + ledger["fees_kept"]
        assert ledger["fees_kept"] == 100 * (24 + (ledger["paid_in"] - 24 * 1100) // 1100)
        hands = httpx.get(f"{base}/{tournament}/hands", params={"player": "p1"}).json()["hands"]
        assert hands and all("p1" in row["players"] for row in hands)
        phh = httpx.get(f"{base}/{tournament}/hands/{hands[-1]['hand']}").text
        history = HandHistory.loads(phh)
        assert "p1" in history.players and history.variant == "NT"
        print(f"{restarts} restarts, {voided} hands voided")
    finally:
        process.send_signal(signal.SIGKILL)
        process.wait(10)
        if os.path.exists(db):
            os.remove(db)
