"""Work that touches every client or every table is spread over turns of the event loop: the tables never wait long."""

from __future__ import annotations

import asyncio

import pytest

import server.hub
import server.tournament.tables
from server.hub import Outbound
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.tournaments import definition

pytestmark = pytest.mark.asyncio


class Client:
    def __init__(self, flushed: list[str], name: str) -> None:
        self.flushed = flushed
        self.name = name

    def flush(self) -> None:
        self.flushed.append(self.name)


async def test_a_broadcast_is_written_a_bounded_number_of_clients_per_turn_and_reaches_every_client(monkeypatch):
    monkeypatch.setattr(server.hub, "MAX_FLUSHES_PER_TURN", 3)
    commits: list[int] = []
    flushed: list[str] = []
    outbound = Outbound(tick=0.01, before=lambda: commits.append(len(flushed)), gather=0)
    clients = [Client(flushed, f"c{k}") for k in range(8)]
    for client in clients:
        outbound.now(client)

    await asyncio.sleep(0)  # the turn that flushes
    assert len(flushed) == 3
    for _ in range(10):
        await asyncio.sleep(0)
    assert sorted(flushed) == sorted(client.name for client in clients) and len(flushed) == 8
    assert commits == [0, 3, 6], "the journal is committed before each part is written"


async def test_tables_that_may_all_deal_at_once_are_woken_a_few_per_turn_and_every_one_is(monkeypatch):
    monkeypatch.setattr(server.tournament.tables, "TABLES_STARTED_PER_TURN", 4)
    runtime = TournamentRuntime.create("t1", definition(2), MemoryStorage(), hand_pause=0)
    runtime.tables.hands.wakers = {table: asyncio.Event() for table in range(1, 11)}

    runtime.tables.hands.wake(list(range(1, 11)), 0)
    woken = [sorted(t for t, waker in runtime.tables.hands.wakers.items() if waker.is_set())]
    for _ in range(3):
        await asyncio.sleep(0)
        woken.append(sorted(t for t, waker in runtime.tables.hands.wakers.items() if waker.is_set()))
    assert woken == [[1, 2, 3, 4], list(range(1, 9)), list(range(1, 11)), list(range(1, 11))]


async def test_a_turn_batch_hands_on_what_one_turn_queued_once_in_order_and_at_once_at_its_limit():
    from server.turns import TurnBatch

    handed: list[list[int]] = []
    batch: TurnBatch[int] = TurnBatch(handed.append, limit=10)
    for item in (1, 2, 3):
        batch.add(item)
    assert handed == []  # nobody who queues waits for it
    await asyncio.sleep(0)
    assert handed == [[1, 2, 3]]
    batch.add(4, size=4)
    batch.add(5, size=6)  # the limit: at once
    assert handed == [[1, 2, 3], [4, 5]]
    await asyncio.sleep(0)  # the turn's flush finds nothing more
    batch.add(6)
    batch.grow(9)  # the last item grew to the limit
    assert handed == [[1, 2, 3], [4, 5], [6]]

