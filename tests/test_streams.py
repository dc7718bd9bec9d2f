"""Routing: where connections watch as tables open and close."""

from __future__ import annotations

from engine.events import TableBroken
from server.journal import MemoryStorage
from server.runtime import TournamentRuntime
from tests.test_security import Watcher
from tests.tournaments import definition as rules


def test_a_busted_players_connection_follows_when_their_table_closes():
    """Issue 16: a busted player's page stayed on a table that later broke; now it follows, as an observer's."""
    runtime = TournamentRuntime.create("t", rules(6), MemoryStorage(), hand_pause=0)
    for number in range(12):
        runtime.register(f"player {number}")
    runtime.start()  # outside an event loop: the draw is routed at once, no table plays
    director = runtime.director
    busted = director.tables[2].table.players[0]
    connection = Watcher(busted)
    runtime.connect(connection, None)
    assert connection.table == 2
    director.where.pop(busted)  # out, as an elimination leaves them
    runtime.streams.route([TableBroken(2, 11)])
    assert connection.table == 1 and connection.messages[-1]["type"] == "snapshot"
