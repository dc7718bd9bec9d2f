"""A cluster's tables without a bus: the director's side (server/tournament/at_workers.py's hands) deals and
settles, a worker's side (server/cluster/playing.py) plays the hand it is sent; the test carries what passes
between them."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import pickle

import msgspec
import pytest

from engine.status import TournamentError
from server.cluster.schema import (
    ANY_HOLDER, Acted, Adopt, Frames, Route, TableBatch, ToGateway, decisions_for, frames_for, table_subject,
)
from server.tournament.remote import HandOut, TableState
from server.storage import MemoryStorage
from server.cluster.playing import WorkerOutlet
from engine.structure import Definition
from engine.wire import Act
from server.tournament.at_workers import HandsAtWorkers
from server.tournament.runtime import TournamentRuntime
from server.tournament.streams import DRAW_SNAPSHOTS_PER_TURN, Streams, HereWriters
from server.tournament.tables import Tables
from tests.live_server import Watcher, until
from tests.tournaments import definition as rules

PLAYERS = 3 * DRAW_SNAPSHOTS_PER_TURN  # a draw routed over several turns of the event loop
GATEWAY = frames_for("gateway.north.host-1")  # the frames' subject of a gateway of the realm "north"
DECISIONS = decisions_for("north", table_subject("t", 1))  # where that realm's gateways send decisions


class Dealt:
    """The tables' workers, as the director's tables speak to them: the hands dealt are kept, the rest dropped."""

    def __init__(self) -> None:
        self.hands: dict[int, HandOut] = {}
        self.closed: list[int] = []

    def notify(self, table: int, state: TableState) -> None:
        pass

    def deal(self, table: int, out: HandOut) -> None:
        self.hands[table] = out

    def adopt(self, table: int) -> None:
        pass

    def act(self, table: int, connection: object, action: str, amount: int | None) -> None:
        pass

    def back(self, table: int, player: str) -> None:
        pass

    def close(self, table: int) -> None:
        self.closed.append(table)


class AtDealt:
    """A cluster's placement without a bus: this process writes the streams, the hands go to ``Dealt``."""

    def __init__(self) -> None:
        self.workers = Dealt()

    def writers(self, streams: Streams) -> HereWriters:
        return HereWriters(streams)

    def hands(self, tables: Tables, writers: object) -> HandsAtWorkers:
        return HandsAtWorkers(tables, self.workers)


def at_workers(tournament: str, definition: Definition) -> tuple[TournamentRuntime, Dealt]:
    placement = AtDealt()
    runtime = TournamentRuntime.create(tournament, definition, MemoryStorage(), hand_pause=0, placement=placement)
    return runtime, placement.workers


class Bus:
    """What a worker's frames publish: each client's lines, by number."""

    def __init__(self) -> None:
        self.lines: dict[int, list[dict]] = {}

    def publish(self, subject: str, payload: bytes) -> None:
        for frame in msgspec.msgpack.decode(payload, type=list[ToGateway]):
            for number in [*frame.now, *frame.later]:
                self.lines.setdefault(number, []).extend(json.loads(line) for line in frame.lines)


@pytest.mark.asyncio
async def test_no_table_deals_before_the_draw_has_told_every_player_where_they_sit() -> None:
    """A worker that took its tables as the tournament started had them dealt while the draw's snapshots were
    still going out: a player was told their turn, then sent the draw's snapshot, which showed the same turn,
    and a bot answered both (the cluster's ``not_your_turn`` errors). One server's tables start after the draw."""
    runtime, workers = at_workers("t", rules(9, action_seconds=60))
    players = [runtime.register(f"player {number}")[0] for number in range(PLAYERS)]
    connections = {player: Watcher(player) for player in players}
    for connection in connections.values():
        runtime.connect(connection, None)  # type: ignore[arg-type]
    snapshots_when_dealt: list[int] = []
    deal = workers.deal
    workers.deal = lambda table, out: (snapshots_when_dealt.append(min(  # type: ignore[method-assign]
        sum(message["type"] == "snapshot" for message in connection.messages)
        for connection in connections.values())), deal(table, out))
    runtime.start()
    for table in runtime.director.tables:  # the workers take their tables at once, as DirectorService answers them
        assert runtime.tables.hands.take(table, 1)
        runtime.tables.hands.state(table)
    director = runtime.director
    await until(lambda: all(director.hand(table) is not None for table in director.tables))
    assert snapshots_when_dealt and min(snapshots_when_dealt) >= 2  # the connection's own, then the draw's


async def one_table_running() -> tuple[TournamentRuntime, Dealt, int]:
    """A six-handed table whose tournament runs, as a cluster's director holds it: its hands go to ``Dealt``."""
    runtime, workers = at_workers("t", rules(6, action_seconds=60))
    for number in range(6):
        player, _ = runtime.register(f"player {number}")
        runtime.connect(Watcher(player), None)  # type: ignore[arg-type]  # here, as their gateways' clients are
    runtime.start()
    (table,) = runtime.director.tables
    await until(lambda: runtime.tables.may_deal(table))
    return runtime, workers, table


@pytest.mark.asyncio
async def test_a_hand_played_at_a_worker_comes_back_journaled_and_settled_as_one_server_settles_it() -> None:
    runtime, workers, table = await one_table_running()
    assert runtime.tables.hands.take(table, 7)
    assert runtime.tables.hands.state(table).kind == "wait"  # as DirectorService answers the take: the director deals
    await until(lambda: table in workers.hands)  # dealt by the director itself, as soon as a worker holds it
    out = workers.hands[table]
    players = list(out.hand.players)
    route = {player: Route(GATEWAY, number, player) for number, player in enumerate(players, start=1)}
    bus = Bus()
    kept: list[bytes] = []
    played = WorkerOutlet(table, 7, lambda subject: Frames(bus, subject), kept.append,  # type: ignore[arg-type]
                         lambda: None, lambda seconds: None, lambda: None, seq=41)
    played.heard(msgspec.msgpack.encode(TableBatch(7, [Adopt(list(route.values())), out])))
    played.heard(msgspec.msgpack.encode(TableBatch(6, [Acted(route[players[0]], Act("fold"))])))  # an older lease's
    playing = asyncio.get_running_loop().create_task(played.play(asyncio.Event()))
    await until(lambda: played.desk is not None)
    topped_up = players[0]
    runtime.entries.time_bank[topped_up] += 5.0  # a level's top-up while the hand is out
    desk = played.desk
    assert desk is not None and runtime.director.hand(table) is not None
    while not desk.hand.finished:
        actor = desk.hand.players[desk.hand.actor]  # type: ignore[index]
        other = next(player for player in players if player != actor)
        played.heard(msgspec.msgpack.encode(TableBatch(7, [Acted(route[other], Act("call"))])))  # not their turn
        legal = desk.hand.legal_actions()
        # From the player's gateway, which knows no lease: a decision is taken, anything else ignored.
        played.decided(DECISIONS, msgspec.msgpack.encode(TableBatch(ANY_HOLDER, [
            Adopt([]), Acted(route[actor], Act("check" if legal.can_check else "call"))])))
    assert runtime.director.hand(table).actor is not None  # type: ignore[union-attr]  # the director's is as dealt
    back = await playing
    assert back is not None and back.number == out.number
    dealt_bank = out.banks[topped_up]
    with pytest.raises(TournamentError):
        runtime.tables.hands.hand_back(table, msgspec.structs.replace(back, number=back.number + 1))
    runtime.tables.hands.hand_back(table, back)
    played.settled()

    director = runtime.director
    assert director.hand(table) is None
    assert {player: director.stacks[player] for player in players} == dict(zip(players, desk.hand.stacks))
    assert director.chips_in_play() == 6 * 1000
    # Journaled as one server journals a hand: a restore from the journal replays it to the same stacks.
    (stored,) = runtime.storage.tournaments()
    restored = TournamentRuntime.restore(stored, runtime.storage)
    assert restored.director.stacks == director.stacks and restored.director.hand(table) is None
    assert [hand.hand for hand in runtime.storage.hands("t")] == [out.number]  # its history stored
    last_bank = [decision.bank for decision in back.decisions if decision.player == topped_up]
    assert runtime.entries.time_bank[topped_up] == (last_bank[-1] if last_bank else dealt_bank) + 5.0
    # The stream the worker wrote: numbered from 1 without a gap, the same for every client; each player's cards
    # to them alone; a decision out of turn refused to whoever sent it, and an older lease's ignored.
    for number, player in enumerate(players, start=1):
        lines = bus.lines[number]
        numbered = [line["seq"] for line in lines if line["type"] == "event"]
        assert numbered == list(range(42, 42 + len(numbered)))  # on from the stream's last number
        holes = [line["event"]["player"] for line in lines
                 if line["type"] == "private" and line["event"]["type"] == "hole_dealt"]
        assert holes == [player]
    # The stream as JetStream keeps it: every numbered message, once, in order, a loop turn's in one message.
    assert [json.loads(line)["seq"] for message in kept for line in message.split(b"\n")] == \
        [line["seq"] for line in bus.lines[1] if line["type"] == "event"]
    errors = [line["code"] for lines in bus.lines.values() for line in lines if line["type"] == "error"]
    assert errors and set(errors) == {"not_your_turn"}
    assert "fold" not in [decision.action for decision in back.decisions]  # the older lease's fold changed nothing


@pytest.mark.asyncio
async def test_a_gone_tables_worker_is_told_nothing_more_follows_after_its_last_messages() -> None:
    """A worker told ``gone`` let go of its table before the tournament's last events, sent to the table on
    another subject than the answer, reached it: a bot of that table never heard the finish, and its swarm
    waited for ever (a busy machine's run of the cluster's tournament test)."""
    from server.cluster.schema import Closed

    runtime, workers, table = await one_table_running()
    assert runtime.tables.hands.take(table, 3)
    runtime.cancel()
    assert runtime.tables.hands.state(table).kind == "gone" and runtime.tables.hands.state(table).kind == "gone"
    assert workers.closed == [table]  # once, and queued after what the cancellation said to the table

    played = WorkerOutlet(table, 3, lambda subject: None, lambda lines: None, lambda: None,  # type: ignore[arg-type]
                         lambda seconds: None, lambda: None)
    played.heard(msgspec.msgpack.encode(TableBatch(2, [Closed()])))  # an older lease's
    assert not played.closed.is_set()
    played.heard(msgspec.msgpack.encode(TableBatch(3, [Closed()])))
    assert played.closed.is_set()


class _Payload:
    """What an attack with the bus's token pickled: unpickling it runs code (here, it writes a file)."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self) -> tuple[object, ...]:
        return os.system, (f"touch {self.path}",)


class _PickledHandOut(msgspec.Struct, tag="deal", array_like=True):
    """A ``HandOut`` as it crossed the bus before: the hand as a pickle."""

    hand: bytes
    number: int
    opening: list[bytes]
    banks: dict[str, float]
    sitting_out: list[str]
    grace: list[str]
    names: dict[str, str]
    action_seconds: float
    grace_seconds: float
    pause: float


class _Batch(msgspec.Struct, array_like=True):
    epoch: int
    items: list[_PickledHandOut]


async def dealt_to_a_worker(runtime: TournamentRuntime, workers: Dealt, table: int) -> HandOut:
    """The hand the director deals once a worker has taken the table, as DirectorService answers the take."""
    assert runtime.tables.hands.take(table, 7)
    runtime.tables.hands.state(table)
    await until(lambda: table in workers.hands)
    return workers.hands[table]


def a_played_table(epoch: int = 7) -> tuple[WorkerOutlet, Bus]:
    bus = Bus()
    played = WorkerOutlet(3, epoch, lambda subject: Frames(bus, subject), lambda data: None,  # type: ignore[arg-type]
                         lambda: None, lambda seconds: None, lambda: None)
    return played, bus


@pytest.mark.asyncio
async def test_a_pickled_hand_on_the_table_subject_is_refused_with_a_log_line_and_runs_nothing(
        tmp_path: object, caplog: pytest.LogCaptureFixture) -> None:
    """An attack: with the bus's token and the epoch read off any batch, a crafted pickle made a worker
    run a command. The hand now crosses as plain data, and nothing in the worker unpickles what the bus brings."""
    marker = os.path.join(str(tmp_path), "ran")
    played, _ = a_played_table()
    crafted = _PickledHandOut(pickle.dumps(_Payload(marker)), 1, [], {}, [], [], {}, 30.0, 0.0, 0.0)
    with caplog.at_level(logging.WARNING, logger="mttsim.worker"):
        played.heard(msgspec.msgpack.encode(_Batch(7, [crafted])))
    assert not os.path.exists(marker)
    assert played.out is None
    assert any("malformed batch" in record.getMessage() for record in caplog.records)


@pytest.mark.asyncio
async def test_a_dealt_hand_the_rules_refuse_is_ignored_with_a_log_line(caplog: pytest.LogCaptureFixture) -> None:
    runtime, workers, table = await one_table_running()
    out = await dealt_to_a_worker(runtime, workers, table)
    played, _ = a_played_table()
    bad = msgspec.structs.replace(out, hand=msgspec.structs.replace(out.hand, stacks=[0] * len(out.hand.stacks)))
    with caplog.at_level(logging.WARNING, logger="mttsim.worker"):
        played.heard(msgspec.msgpack.encode(TableBatch(7, [bad])))
    assert played.out is None and any("makes no hand" in record.getMessage() for record in caplog.records)
    played.heard(msgspec.msgpack.encode(TableBatch(7, [out])))
    assert played.out is not None
    hand = played.out[1]
    dealt = runtime.director.hand(table)
    assert dealt is not None and hand.hole == dealt.hole and hand.stacks == dealt.stacks
    assert hand.legal_actions() == dealt.legal_actions()


@pytest.mark.asyncio
async def test_a_decision_forged_for_a_player_the_director_placed_elsewhere_or_nowhere_is_refused(
        caplog: pytest.LogCaptureFixture) -> None:
    """A second attack: a decision published under ANY_HOLDER for any player was applied. A worker takes a
    gateway's decision only for the client at which the director placed that player, and only from that gateway's
    realm (the subject it came on, on which NATS lets only that realm's user publish)."""
    runtime, workers, table = await one_table_running()
    out = await dealt_to_a_worker(runtime, workers, table)
    players = list(out.hand.players)
    placed = {player: Route(GATEWAY, number, player) for number, player in enumerate(players[1:], start=1)}
    south = frames_for("gateway.south.host-2")  # another realm's gateway, at which the director placed nobody
    played, bus = a_played_table()
    played.heard(msgspec.msgpack.encode(TableBatch(7, [Adopt(list(placed.values())), out])))
    playing = asyncio.get_running_loop().create_task(played.play(asyncio.Event()))
    await until(lambda: played.desk is not None)
    desk = played.desk
    assert desk is not None
    actor = desk.hand.players[desk.hand.actor]  # type: ignore[index]
    elsewhere = next(route for player, route in placed.items() if player != actor)
    from_south = decisions_for("south", table_subject("t", 1))
    forged = [
        (DECISIONS, Route(frames_for("gateway.north.host-9"), 1, actor)),  # another gateway of the realm
        (DECISIONS, Route(GATEWAY, elsewhere.number, actor)),  # another client's number on this one
        (DECISIONS, Route(GATEWAY, 99, actor)),  # no client at all
        (DECISIONS, Route(GATEWAY, 0, players[0])),  # the player who never connected
        (DECISIONS, Route(south, 1, actor)),  # a gateway of another realm, named by this one
        *((from_south, route) for route in placed.values()),  # another realm for this one's players
    ]
    if actor in placed:
        forged.append((DECISIONS, Route(GATEWAY, placed[actor].number, "")))  # an observer's
    events_before = len(desk.hand.events)
    with caplog.at_level(logging.WARNING, logger="mttsim.worker"):
        for subject, route in forged:
            played.decided(subject, msgspec.msgpack.encode(TableBatch(ANY_HOLDER, [Acted(route, Act("all_in"))])))
        # and on the table's own subject, the director's, a decision under no epoch is not even looked at
        played.heard(msgspec.msgpack.encode(TableBatch(ANY_HOLDER, [Acted(placed.get(actor, forged[0][1]),
                                                                          Act("all_in"))])))
    assert len(desk.hand.events) == events_before and played.decisions == []
    assert sum("refused" in record.getMessage() for record in caplog.records) == len(forged)
    if actor in placed:  # the placed client's own decision is taken
        played.decided(DECISIONS, msgspec.msgpack.encode(TableBatch(ANY_HOLDER, [Acted(placed[actor],
                                                                                       Act("fold"))])))
        assert [(decision.player, decision.action) for decision in played.decisions] == [(actor, "fold")]
    playing.cancel()
    await asyncio.gather(playing, return_exceptions=True)


def test_a_dealt_hand_crosses_as_data_and_deals_the_same_hand_with_its_decisions_taken() -> None:
    from engine.hand import POKERKIT_RULES, Hand
    from server.tournament.remote import DealtHand

    hand = Hand(["a", "b", "c", "d"], [500, 800, 1200, 90], small_blind=10, big_blind=20, ante=5,
                deck=list(range(51, 11, -1)), rules=POKERKIT_RULES)
    hand.raise_to(60)
    hand.call()
    hand.all_in()
    wire = msgspec.msgpack.encode(DealtHand.of(hand))
    again = msgspec.msgpack.decode(wire, type=DealtHand).build()
    assert again.events == hand.events and again.rules == hand.rules
    assert again.legal_actions() == hand.legal_actions() and again.stacks == hand.stacks


def test_disconnect_grace_is_given_to_a_disconnected_player_once_per_its_period_wherever_the_hand_is_played():
    """One rule: the director's and a worker's Grace agree, the worker's dealt with what was given."""
    from server.tournament.decisions import Grace

    now = [100.0]
    here = Grace(20.0, 600.0, lambda: now[0])
    assert not here.take("p1", connected=True)
    assert here.take("p1", connected=False) and here.given == {"p1": 100.0}
    now[0] = 500.0
    assert not here.take("p1", connected=False)  # within its 10 minutes
    at_worker = Grace(20.0, 600.0, lambda: now[0] + 200.0, dict(here.given))  # dealt at 500, played 200 s on
    assert at_worker.take("p1", connected=False) and at_worker.given["p1"] == 700.0
    assert not Grace(0.0, 600.0, lambda: now[0]).take("p2", connected=False)  # none in this tournament
