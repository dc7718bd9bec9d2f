"""Routing: where connections watch as tables open and close."""

from __future__ import annotations

from engine.events import TableBroken
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import Watcher
from tests.tournaments import definition as rules


def test_a_busted_players_connection_follows_when_their_table_closes():
    """A busted player's page stayed on a table that later broke; now it follows, as an observer's."""
    runtime = TournamentRuntime.create("t", rules(6), MemoryStorage(), hand_pause=0)
    for number in range(12):
        runtime.register(f"player {number}")
    runtime.start()  # outside an event loop: the draw is routed at once, no table plays
    director = runtime.director
    busted = director.tables[2].table.players[0]
    connection = Watcher(busted)
    runtime.connect(connection, None)
    assert connection.table == 2
    director.floor.forget(busted)  # out, as an elimination leaves them
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


class Sink:
    """A table's sink that keeps what it is given, listening or not."""

    def __init__(self, listening: bool = True) -> None:
        self.heard = listening
        self.lines: list[tuple[bytes, str]] = []
        self.told: list[tuple[str, bytes]] = []

    def listening(self) -> bool:
        return self.heard

    def fan_out(self, line: bytes, concerned: str) -> None:
        self.lines.append((line, concerned))

    def tell(self, player: str, line: bytes) -> None:
        self.told.append((player, line))


def test_a_table_stream_writes_the_wires_envelope_numbered_on_without_a_gap_and_hole_cards_to_their_owner():
    """One TableStream writes a table's stream wherever the table is played: its lines are the bytes of
    engine.wire's Envelope, numbered one more each, also while nobody listens (then nothing is encoded)."""
    import msgspec

    from engine.events import HandStarted, HoleDealt
    from engine.wire import Envelope, Turn, encoder
    from server.tournament.table_stream import TableStream, numbered

    sink = Sink()
    stream = TableStream(4, sink, seq=41)
    turn = Turn("p2", 30.0, 5.0)
    stream.publish(turn)
    (line, concerned), = sink.lines
    envelope = msgspec.json.decode(line, type=Envelope)
    assert concerned == "p2" and envelope.seq == 42 and envelope.table == 4 and envelope.event == turn
    assert line == encoder.encode(Envelope(42, 4, turn, envelope.at))
    assert numbered.decode(line).seq == 42  # what a worker taking the table over reads of it
    stream.publish_encoded(encoder.encode(turn), "p2")  # a cluster's director encodes, the worker numbers
    wrapped, concerned = sink.lines[-1]
    at = msgspec.json.decode(wrapped, type=Envelope).at
    assert concerned == "p2" and wrapped == encoder.encode(Envelope(43, 4, turn, at))
    sink.heard = False
    stream.publish(turn)  # nobody listens: numbered, not sent
    sink.heard = True
    started = HandStarted(4, 7, 1, 1, ())
    stream.route_hand([started, HoleDealt("p1", (3, 4)), HoleDealt("p2", (5, 6))])
    assert [msgspec.json.decode(line)["seq"] for line, _ in sink.lines] == [42, 43, 45]
    assert [player for player, _ in sink.told] == ["p1", "p2"]
    assert all(msgspec.json.decode(line)["type"] == "private" for _, line in sink.told)


def test_director_events_on_a_tables_stream_carry_the_tournament_clock_and_a_hands_own_do_not():
    """The websocket stream's director events say when (``at``, tournament seconds) and in which level
    (``in_level``) they happened, as the audit trail and ``--events-out`` do."""
    import msgspec

    from engine.events import HandStarted, Posted
    from server.tournament.table_stream import Clock, TableStream, numbered

    sink = Sink()
    stream = TableStream(4, sink, seq=9)
    stream.publish(HandStarted(4, 7, 1, 2, ()), Clock(12.34, 3))
    stream.publish(Posted("p1", "small_blind", 10))
    director_line, hand_line = (msgspec.json.decode(line) for line, _ in sink.lines)
    assert director_line["event"] == {"type": "hand_started", "table": 4, "hand": 7, "button": 1, "level": 2,
                                      "players": [], "at": 12.3, "in_level": 3}
    assert director_line["seq"] == 10 and numbered.decode(sink.lines[0][0]).seq == 10
    assert "at" not in hand_line["event"] and "in_level" not in hand_line["event"]
    sink.heard = False
    stream.publish(HandStarted(4, 8, 1, 2, ()), Clock(20.0, 3))  # nobody listens: numbered, nothing encoded
    assert stream.seq == 12 and len(sink.lines) == 2

    from engine.events import TableKept

    runtime = TournamentRuntime.create("t", rules(6), MemoryStorage(), hand_pause=0)
    for number in range(12):
        runtime.register(f"player {number}")
    connection = Watcher(runtime.register("watched")[0])
    runtime.connect(connection, None)
    runtime.start()  # outside an event loop the clock stands at 0
    assert connection.table is not None
    runtime.streams.route([TableKept(connection.table, 13)])  # a director event for the watched table
    kept = [m["event"] for m in connection.messages if m["type"] == "event" and m["event"]["type"] == "table_kept"]
    assert kept == [{"type": "table_kept", "table": connection.table, "players_left": 13, "at": 0.0, "in_level": 1}]
