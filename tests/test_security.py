"""What the server refuses to show and to take (docs/security.md): each test failed before its fix."""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest

from tests.live_server import ADMIN, create, definition, live_server

pytestmark = pytest.mark.asyncio


def hole_cards(phh: str) -> dict[str, str]:
    """Seat ("p1") -> the cards the history deals them, from its actions line."""
    actions = json.loads(next(line for line in phh.splitlines() if line.startswith("actions = "))[10:])
    return {action.split()[2]: action.split()[3] for action in actions if action.startswith("d dh ")}


async def test_a_hand_history_shows_hole_cards_only_to_whom_they_belong_or_when_shown():
    async with live_server(hand_pause=0.01) as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(6, 6, action_seconds=5), 0)
        await client.post(f"/api/tournaments/{tournament}/bots", headers=ADMIN,
                          json={"count": 6, "mix": "station=1,tag=1", "think_min": 0, "think_max": 0})
        await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)
        base = f"/api/tournaments/{tournament}/hands"
        folded_and_unshown = None
        for _ in range(500):
            for row in (await client.get(base)).json()["hands"]:
                full = (await client.get(f"{base}/{row['hand']}", headers=ADMIN)).text
                if "sm" not in full.split("actions = ")[1].split("\n")[0]:
                    folded_and_unshown = row, full  # nobody showed: every hole card is private
                    break
            if folded_and_unshown:
                break
            await asyncio.sleep(0.02)
        assert folded_and_unshown, "a hand ended without a showdown"
        row, full = folded_and_unshown
        everything = hole_cards(full)
        assert len(everything) == len(row["players"]) and "????" not in everything.values()
        anonymous = hole_cards((await client.get(f"{base}/{row['hand']}")).text)
        assert set(anonymous.values()) == {"????"} and anonymous.keys() == everything.keys()
        runtime = live.runtime(tournament)
        owner = row["players"][0]
        _, token, _, _ = runtime.entries.bots[owner]
        mine = hole_cards((await client.get(f"{base}/{row['hand']}",
                                            headers={"Authorization": f"Bearer {token}"})).text)
        assert mine["p1"] == everything["p1"] and all(mine[seat] == "????" for seat in mine if seat != "p1")
