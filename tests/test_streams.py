"""Routing: where connections watch as tables open and close."""

from __future__ import annotations

from engine.events import TableBroken
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import Watcher
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


def test_memory_keeps_the_latest_events_and_the_audit_trail_stays_whole_in_the_journal(monkeypatch):
    """The director kept every event in memory: about 4 GB over a 250,000-entry field, which nothing served."""
    import json

    from server.tournament import streams
    from server.tournament.persistence import audit_lines

    monkeypatch.setattr(streams, "EVENTS_KEPT", 10)
    runtime = TournamentRuntime.create("t", rules(6), MemoryStorage(), hand_pause=0)
    players = [runtime.register(f"player {number}")[0] for number in range(25)]
    kept = [event.player for _, event in runtime.log]
    assert kept == players[-10:]
    trail = [json.loads(line) for line in audit_lines(runtime.storage.records("t"))]
    assert [event["player"] for event in trail if event["type"] == "registered"] == players
