"""The cluster's logic in one process, on the bus in memory (server/cluster/inprocess.py): no nats-server, no
processes. The same director, workers and gateways as a cluster of processes, each its own user of the bus with
its role's rights; tests/test_cluster.py keeps what only real processes and a real NATS server can show (kills,
stalls, the server's permissions)."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
import msgspec
import pytest
import websockets

from bots.swarm import SwarmOptions, run_swarm
from engine.wire import Act
from server.cluster.bus import Bus
from server.cluster.inprocess import InProcessCluster, Worker
from server.cluster.schema import (
    ANY_HOLDER, COMMANDS, Acted, Deal, Route, TableBatch, beat_for, decisions_for, frames_for,
)
from server.cluster.vouching import Vouching, ask_identity, origin_problem
from server.processes import Process
from server.tournament.remote import TableState
from tests.cluster import ADMIN, PLAYERS, TOKEN, assert_settled
from tests.live_server import definition

LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "hands": 5} for sb in (10, 20, 40, 80, 150, 300, 600, 1200)]


@contextlib.asynccontextmanager
async def a_cluster(**options: Any) -> AsyncIterator[tuple[InProcessCluster, httpx.AsyncClient]]:
    cluster = InProcessCluster(TOKEN, **options)
    async with cluster.running(), httpx.AsyncClient(headers=ADMIN, timeout=30) as client:
        await until(lambda: True)  # the first heartbeats
        yield cluster, client


async def until(condition: Callable[[], Any], seconds: float = 120.0) -> None:
    for _ in range(int(seconds / 0.05)):
        met = condition()
        if await met if inspect.isawaitable(met) else met:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"{condition.__doc__ or 'the condition'} did not come within {seconds} s")


async def processes(client: httpx.AsyncClient, url: str) -> list[dict[str, Any]]:
    listed: list[dict[str, Any]] = (await client.get(f"{url}/api/cluster")).json()["processes"]
    return listed


async def owners(client: httpx.AsyncClient, url: str) -> dict[int, str]:
    """table -> the worker holding its lease now."""
    return {int(held.split(".")[1]): process["id"] for process in await processes(client, url)
            if process["role"] == "tables" for held in process["tables"]}


def lease_holders(cluster: InProcessCluster) -> set[str]:
    """The workers holding a table's lease now, as the broker has them (exact, where the registry lags)."""
    return {holder for holder, _, _ in cluster.broker.leases.values()}


def worker_and_other(cluster: InProcessCluster, worker_id: str) -> tuple[Worker, Worker]:
    """Of a two-worker cluster, the worker ``worker_id`` and the other."""
    first, second = cluster.workers
    return (first, second) if first.table_worker.me.id == worker_id else (second, first)


async def show(client: httpx.AsyncClient, url: str, tournament: str) -> dict[str, Any]:
    shown: dict[str, Any] = (await client.get(f"{url}/api/tournaments/{tournament}")).json()
    return shown


async def trail(client: httpx.AsyncClient, url: str, tournament: str) -> list[dict[str, Any]]:
    text = (await client.get(f"{url}/api/tournaments/{tournament}/events")).text
    return [msgspec.json.decode(line) for line in text.splitlines()]


async def started(client: httpx.AsyncClient, url: str, bots: int = PLAYERS, action_seconds: float = 1.0) -> str:
    body = definition(PLAYERS, 6, action_seconds=action_seconds, paid=12, levels=LEVELS)  # the bubble at 3 tables
    tournament: str = (await client.post(f"{url}/api/tournaments", json=body)).json()["id"]
    if bots:
        added = await client.post(f"{url}/api/tournaments/{tournament}/bots",
                                  json={"count": bots, "mix": "pushfold=2,station=1,tag=1", "think_min": 0,
                                        "think_max": 0.02})
        assert added.status_code == 201
        assert (await client.post(f"{url}/api/tournaments/{tournament}/start")).status_code == 200
    return tournament


def hands_played(cluster: InProcessCluster) -> list[float]:
    return [worker.table_worker.metrics.registry.get_sample_value("mttsim_hands_played_total") or 0.0
            for worker in cluster.workers]


@pytest.mark.asyncio
async def test_a_tournament_through_two_gateways_across_two_workers_plays_hand_for_hand_moves_players_and_finishes():
    """Websocket bots in two shards, each through its own gateway, play a tournament whose tables two workers
    share: every table placed at a worker, hand-for-hand across both, players moved between their tables, tables
    broken, a winner; every hand played by a worker."""
    async with a_cluster(table_workers=2, gateways=2, hand_pause=0.02) as (cluster, client):
        first, second = cluster.gateway_urls

        async def both_registered() -> bool:
            roles = [process["role"] for process in await processes(client, first)]
            return roles.count("tables") == 2 and roles.count("gateway") == 2

        await until(both_registered)
        body = definition(PLAYERS, 6, action_seconds=10.0, paid=12, levels=LEVELS)
        shards = [SwarmOptions(url=through, players=PLAYERS, seed=shard, shard=(shard, 2),
                               mix={"pushfold": 2, "station": 1, "tag": 1}, think=(0.0, 0.02))
                  for shard, through in enumerate((first, second))]
        shards[0].admin_token, shards[0].definition = TOKEN, body  # the first shard creates and starts it
        creating = asyncio.create_task(run_swarm(shards[0]))
        await until(lambda: cluster.director.state.server.tournaments)
        tournament = next(iter(cluster.director.state.server.tournaments))
        shards[1].tournament = tournament
        playing = [creating, asyncio.create_task(run_swarm(shards[1]))]
        held_by: dict[int, str] = {}

        async def every_table_held_by_both() -> bool:
            held_by.update(await owners(client, first))
            shown = await show(client, first, tournament)
            open_tables = {table["id"] for table in shown["table_list"]}
            return (shown["status"] == "running" and open_tables <= held_by.keys()
                    and len(set(held_by.values())) == 2)

        await until(every_table_held_by_both)
        base = f"{first}/api/tournaments/{tournament}"
        assert (await client.post(f"{base}/hand-for-hand", json={"on": True})).status_code == 200
        barrier = cluster.director.state.server.metrics.registry

        def two_rounds() -> bool:
            return (barrier.get_sample_value("mttsim_barrier_seconds_count") or 0) >= 2

        await until(two_rounds)
        assert (await client.post(f"{base}/hand-for-hand", json={"on": False})).status_code == 200
        reports = await asyncio.wait_for(asyncio.gather(*playing), 300)
        assert [report["players"] for report in reports] == [PLAYERS // 2] * 2
        for report in reports:  # every bot was told its every turn through its gateway, and answered it in time
            assert report["finished"] and report["errors"] == 0 and report["timeouts"] == 0, report
        events = await trail(client, first, tournament)
        kinds = {event["type"] for event in events}
        assert {"player_moved", "table_broken", "hand_for_hand_started", "hand_for_hand_ended"} <= kinds
        assert "hand_voided" not in kinds, "no worker died, so no hand was voided"
        moves = [event for event in events if event["type"] == "player_moved"]
        holders = [(held_by.get(move["from_table"]), held_by.get(move["to_table"])) for move in moves]
        assert any(source and target and source != target for source, target in holders), \
            "no player moved between tables of different workers"
        assert_settled(await show(client, first, tournament))
        played = hands_played(cluster)
        assert all(played) and sum(played) == sum(event["type"] == "hand_finished" for event in events), played


@pytest.mark.asyncio
async def test_a_crashed_worker_has_its_tables_taken_over_its_epoch_fenced_off_and_nothing_is_lost():
    """A worker gone without a word (as SIGKILL leaves it): its leases expire, the other worker takes its tables
    (a hand it left in play is void), a command under its old epoch changes nothing, and the tournament ends with
    every place and every cent where they belong."""
    async with a_cluster(table_workers=2, gateways=1, hand_pause=0.05) as (cluster, client):
        url = cluster.gateway_urls[0]

        async def two_workers() -> bool:
            return [process["role"] for process in await processes(client, url)].count("tables") == 2

        await until(two_workers)
        tournament = await started(client, url)
        # Most often both workers hold tables; a loop stalled past the registry's 3 s while they were shared out
        # leaves them all to one, which gives none back (docs/deployment.md): that one dies.
        await until(lambda: lease_holders(cluster))
        doomed_id = min(lease_holders(cluster))
        doomed, survivor = worker_and_other(cluster, doomed_id)
        survivor_id = survivor.table_worker.me.id
        epochs = {key: revision for key, (holder, revision, _) in cluster.broker.leases.items() if holder == doomed_id}
        assert epochs
        await doomed.crash()

        async def survivor_holds_all() -> bool:
            shown = await show(client, url, tournament)
            held = await owners(client, url)
            return shown["status"] != "running" or (
                {table["id"] for table in shown["table_list"]} <= held.keys() and set(held.values()) == {survivor_id})

        await until(survivor_holds_all)
        rogue = await cluster.broker.transport("tables").connect("tables")  # the crashed worker's credentials
        key, epoch = next(iter(epochs.items()))
        table = int(key.split(".")[1])
        answer = msgspec.msgpack.decode(
            await rogue.request(COMMANDS, msgspec.msgpack.encode([Deal(tournament, table, epoch)])),
            type=list[TableState])
        assert [state.kind for state in answer] in (["fenced"], ["gone"])  # gone: the table broke meanwhile
        await rogue.close()
        await until(lambda: show_status_is(client, url, tournament, "finished"))
        assert_settled(await show(client, url, tournament))


async def show_status_is(client: httpx.AsyncClient, url: str, tournament: str, status: str) -> bool:
    return (await show(client, url, tournament))["status"] == status


@pytest.mark.asyncio
async def test_a_stopped_worker_lets_go_of_its_leases_at_once():
    """Stopped as SIGTERM stops it, a worker lets go of every lease before it is gone: another may take its tables
    at once, not when the leases would have expired."""
    async with a_cluster(table_workers=2, gateways=1, hand_pause=0.05) as (cluster, client):
        url = cluster.gateway_urls[0]
        await started(client, url)
        await until(lambda: lease_holders(cluster))  # a worker holding some: most often both are
        leaving_id = min(lease_holders(cluster))
        leaving, _ = worker_and_other(cluster, leaving_id)
        await leaving.stop()
        assert not any(holder == leaving_id for holder, _, _ in cluster.broker.leases.values())


@pytest.mark.asyncio
async def test_a_decision_a_gateway_sends_for_another_realms_player_is_refused(caplog: pytest.LogCaptureFixture):
    """A gateway speaks for its own clients only: a decision sent on gateway-1's realm for a player whose client
    is on gateway-2, with gateway-1's own credentials, is refused by the worker playing the table."""
    async with a_cluster(table_workers=1, gateways=2, hand_pause=0.05) as (cluster, client):
        first, second = cluster.gateway_urls
        tournament = await started(client, first, bots=0, action_seconds=30.0)
        base = f"{first}/api/tournaments/{tournament}"
        async with httpx.AsyncClient(timeout=30) as anyone:  # a player's registration carries no admin token
            registered = (await anyone.post(f"{base}/register", json={"name": "human"})).json()
        await client.post(f"{base}/bots", json={"count": PLAYERS - 1, "mix": "station=1", "think_min": 0,
                                                 "think_max": 0.02})
        socket_url = second.replace("http", "ws", 1) + f"/ws/tournaments/{tournament}?token={registered['token']}"
        async with websockets.connect(socket_url) as websocket:
            assert (await client.post(f"{base}/start")).status_code == 200
            gateway = cluster.gateways[1].state.gateway

            def seated() -> bool:
                return bool(gateway.clients) and bool(gateway.seats)

            await until(seated)
            number, (subject, player) = next(iter(gateway.seats.items()))
            forger: Bus = await cluster.broker.transport("gateway-1").connect("gateway")
            route = Route(frames_for(gateway.me.id), number, player)
            caplog.set_level(logging.WARNING, logger="mttsim")
            forged = msgspec.msgpack.encode(TableBatch(ANY_HOLDER, [Acted(route, Act("fold"))]))

            def refused() -> bool:
                """the worker's refusal"""
                forger.publish(decisions_for("gateway-1", subject), forged)  # again until its worker listens
                return any("refused" in record.getMessage() and repr(player) in record.getMessage()
                           for record in caplog.records)

            await until(refused, 60)
            await forger.close()
            await websocket.close()


async def answering_as(gateway: str) -> tuple[asyncio.Server, str]:
    """An HTTP server on loopback that answers every request as the gateway ``gateway`` would answer who it is."""
    body = msgspec.json.encode({"id": gateway})

    async def answer(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await reader.readuntil(b"\r\n\r\n")
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n"
                     b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        await writer.drain()
        writer.close()

    server = await asyncio.start_server(answer, "127.0.0.1", 0)
    return server, f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}"


@pytest.mark.asyncio
async def test_the_browsers_list_of_gateways_holds_only_gateways_the_director_checked_one_a_realm():
    """gateway-1's password sent heartbeats for made-up gateways of its realm, with any address, and the public
    list gave them to every browser. The director now lists an address only once it asked it and heard the
    gateway's own id, and a realm's user speaks for one gateway."""
    async with a_cluster(table_workers=1, gateways=2) as (cluster, client):
        director = cluster.director.state.server.cluster
        through = cluster.gateway_urls[1]

        async def listed() -> list[str]:
            gateways: list[str] = (await client.get(f"{through}/api/gateways")).json()["gateways"]
            return gateways

        async def both_real() -> bool:
            return await listed() == sorted(cluster.gateway_urls)

        await until(both_real)
        impostor, impostor_url = await answering_as("gateway.gateway-1.evil-0")
        closed, closed_url = await answering_as("nobody")
        closed.close()
        await closed.wait_closed()
        liar = await cluster.broker.transport("gateway-1").connect("gateway")
        addresses = [impostor_url, "not a url", f"http://player@{impostor_url.removeprefix('http://')}", closed_url,
                     cluster.gateway_urls[1], "javascript:alert(1)", f"{impostor_url}/elsewhere"]
        try:
            for _ in range(3):
                for number, url in enumerate(addresses):
                    made_up = Process("gateway", f"gateway.gateway-1.evil-{number}", 4242, "evil", 0.0, url=url)
                    await liar.request(beat_for("gateway-1"), msgspec.msgpack.encode(made_up))
                await asyncio.gather(*director.vouching.checks)
                assert await listed() == sorted(cluster.gateway_urls)
            # the same impostor, once its realm has a place free, is what a stolen password buys: its own realm
            vouching = Vouching(ask_identity)
            vouching.heard(Process("gateway", "gateway.gateway-1.evil-0", 4242, "evil", 0.0, url=impostor_url), 0.0,
                           lambda gateway: True)
            await asyncio.gather(*vouching.checks)
            assert vouching.listed(lambda gateway: True) == [impostor_url]
        finally:
            await liar.close()
            impostor.close()


@pytest.mark.parametrize(("url", "problem"), [
    ("http://127.0.0.1:8000", None), ("https://gw.example:443/", None), (None, "no address"),
    ("not a url", "not http or https"), ("http://127.0.0.1", "no port"), ("http://:80", "no host"),
    ("http://u:p@127.0.0.1:80", "user information before the host"), ("http://u@127.0.0.1:80", "user information"
                                                                                               " before the host"),
    ("http://127.0.0.1:80/x", "more than an origin"), ("http://127.0.0.1:80/?q", "more than an origin"),
    ("http://127.0.0.1:99999", "not an address (Port out of range 0-65535)"),
])
def test_an_advertised_address_is_an_origin_or_says_why_not(url, problem):
    assert origin_problem(url) == problem


@pytest.mark.asyncio
async def test_a_gateway_holds_at_most_its_max_sessions_and_refuses_the_next_socket():
    """One gateway held any number of sessions: 40,000 observers' sockets were taken. Past ``max_sessions`` its
    handshake is refused (a browser goes on through another gateway), and a session that ends frees its place."""
    async with a_cluster(table_workers=1, gateways=1, max_sessions=3) as (cluster, _):
        lobby = cluster.gateway_urls[0].replace("http", "ws", 1) + "/ws/lobby"
        async with contextlib.AsyncExitStack() as held:
            sockets = [await held.enter_async_context(websockets.connect(lobby)) for _ in range(3)]
            with pytest.raises(websockets.InvalidStatus):
                await websockets.connect(lobby)
            await sockets[0].close()
            gateway = cluster.gateways[0].state.gateway
            await until(lambda: len(gateway.clients) == 2)
            async with websockets.connect(lobby):
                assert len(gateway.clients) == 3
        assert gateway.metrics.registry.get_sample_value("mttsim_gateway_sessions_refused_total") == 1
