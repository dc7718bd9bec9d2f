"""The director's side of tables that a cluster's workers hold (server/tables.py with ``remote`` set), without a
bus: what a worker's commands find there."""

from __future__ import annotations

import pytest

from server.journal import MemoryStorage
from server.runtime import TournamentRuntime
from server.streams import DRAW_SNAPSHOTS_PER_TURN
from tests.test_security import Watcher
from tests.test_server_play import until
from tests.tournaments import definition as rules

PLAYERS = 3 * DRAW_SNAPSHOTS_PER_TURN  # a draw routed over several turns of the event loop


@pytest.mark.asyncio
async def test_no_table_deals_before_the_draw_has_told_every_player_where_they_sit() -> None:
    """A worker that took its tables as the tournament started had them dealt while the draw's snapshots were
    still going out: a player was told their turn, then sent the draw's snapshot, which showed the same turn,
    and a bot answered both (the cluster's ``not_your_turn`` errors). One server's tables start after the draw."""
    runtime = TournamentRuntime.create("t", rules(9, action_seconds=60), MemoryStorage(), hand_pause=0)
    runtime.tables.remote = lambda table, state: None  # a cluster's director: its tables are told, not run here
    players = [runtime.register(f"player {number}")[0] for number in range(PLAYERS)]
    connections = {player: Watcher(player) for player in players}
    for connection in connections.values():
        runtime.connect(connection, None)  # type: ignore[arg-type]
    runtime.start()
    for table in runtime.director.tables:  # the workers take their tables at once, as DirectorService answers them
        assert runtime.tables.take(table, 1)
        runtime.tables.state(table)
    director = runtime.director
    await until(lambda: all(director.hand(table) is not None for table in director.tables))
    for player, connection in connections.items():
        kinds = [message["type"] if message["type"] != "private" else message["event"]["type"]
                 for message in connection.messages]
        drawn = kinds.index("snapshot", 1)  # the first snapshot is the connection's own, before the start
        assert "hole_dealt" not in kinds[:drawn] and "your_turn" not in kinds[:drawn], (player, kinds)
