"""``mttsim swarm``: many bots in one process, playing a real tournament over REST and websockets, measured.

Each bot is a ``bots.client.SeatBot``: it registers over REST, plays its seat
over the websocket like any client, and records latencies and lags. The
swarm adds them up the way load-testing tools report: percentiles,
throughput, failures, a Locust-style CSV. ``--shard I/N`` lets N swarm
processes share one tournament: each registers every N-th bot, and the
creating shard starts the tournament once all have registered.

Late registration and re-entry (rules.md F.24, F.27): ``late`` more bots
per shard register while the tournament runs, at moments drawn over what
is left of its late registration, and a bot that is out re-enters with
probability ``reentry`` while re-entry is open, playing on under its token.
"""

from __future__ import annotations

import asyncio
import gc
import math
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import msgspec

from bots.client import Measured, SeatBot, SeatReport, strategy_for
from bots.histogram import histogram
from bots.strategies import DEFAULT_MIX
from bots.timeline import DEFAULT_INTERVAL, Timeline


@dataclass
class SwarmOptions:
    url: str  # the server, or a cluster's gateways separated by commas (this shard's first first)
    players: int
    tournament: str | None = None
    definition: dict[str, Any] | None = None  # with --create: the definition to create (None: a default)
    admin_token: str | None = None
    mix: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_MIX))
    think: tuple[float, float] = (0.0, 0.0)
    shard: tuple[int, int] = (0, 1)
    seed: int | None = None
    duration: float | None = None  # stop measuring after this many seconds of play (benchmarks)
    warmup: float = 0.0  # seconds of play at the start left out of the latencies and lags
    late: int = 0  # bots of this shard that register after the start, while late registration is open
    reentry: float = 0.0  # the chance a bot that is out re-enters, while re-entry is open
    interval: float | None = DEFAULT_INTERVAL  # seconds between the rows of the time series (None: none kept)
    # What a run stopped early (``duration``, a signal) does with the tournament: "cancel" it (with the admin
    # token) or "leave" it to play on; None: cancel the one this swarm created, leave one it joined.
    on_stop: str | None = None


@dataclass
class Live:
    """Figures for the progress line, refreshed while the bots play."""

    players_left: int = 0
    tables: int = 0
    actions: int = 0
    actions_per_s: float = 0.0
    p50_ms: float = 0.0
    p99_ms: float = 0.0
    errors: int = 0
    wall_s: float = 0.0


def percentiles_ms(values: list[float], fractions: tuple[float, ...]) -> list[float]:
    """Seconds to milliseconds at each ``fraction`` of the sorted data (nearest rank), sorting once: a run
    collects millions of lags. 0 for no data.
    """
    if not values:
        return [0.0] * len(fractions)
    ordered = sorted(values)
    return [round(1000 * ordered[min(len(ordered) - 1, max(0, math.ceil(q * len(ordered)) - 1))], 2)
            for q in fractions]


def default_swarm_definition(players: int) -> dict[str, Any]:
    from engine.structure import default_definition

    definition: dict[str, Any] = msgspec.to_builtins(default_definition(players))
    return definition


async def run_swarm(options: SwarmOptions, progress: Callable[[Live], None] | None = None,
                    stop: asyncio.Event | None = None,
                    sampled: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:
    """Create or join the tournament, register this shard's bots, play to the end (or ``options.duration``,
    or until ``stop`` is set), and report. ``progress`` hears of the figures every second, ``sampled`` of each
    row of the time series."""
    stop = stop or asyncio.Event()
    rng = random.Random(options.seed)
    admin = {"Authorization": f"Bearer {options.admin_token}"} if options.admin_token else {}
    addresses = [address.strip().rstrip("/") for address in options.url.split(",") if address.strip()]
    ws_urls = ["ws" + address.removeprefix("http") for address in addresses]
    shard, shards = options.shard
    limits = httpx.Limits(keepalive_expiry=KEEPALIVE_SECONDS)
    async with httpx.AsyncClient(base_url=addresses[0], timeout=30, limits=limits,
                                 transport=Failover(addresses, limits)) as http:
        tournament = options.tournament
        if tournament is None:
            definition = options.definition or default_swarm_definition(options.players)
            created = await http.post("/api/tournaments", json=definition, headers=admin)
            created.raise_for_status()
            tournament = created.json()["id"]
        mine = [k for k in range(options.players) if k % shards == shard]
        tags = rng.choices(list(options.mix), list(options.mix.values()), k=len(mine))
        registrations: list[float] = []
        measured = Measured()  # every bot's latencies and lags, one array of each

        async def register(k: int, tag: str) -> SeatBot:
            began = time.monotonic()
            answer = await http.post(f"/api/tournaments/{tournament}/register", json={"name": f"{tag} {k + 1}"})
            answer.raise_for_status()
            registrations.append(time.monotonic() - began)
            seat = answer.json()
            strategy, fault = strategy_for(tag)
            # the bots spread over the gateways, each going on to the next when its own is gone
            return SeatBot(ws_urls[k % len(ws_urls):] + ws_urls[:k % len(ws_urls)], tournament, seat["player_id"],
                           seat["token"], strategy,
                           random.Random(rng.random()), options.think, fault, measured)

        bots: list[SeatBot] = []
        for start in range(0, len(mine), 100):  # registration in batches keeps the server's queue short
            if stop.is_set():
                break
            bots += await asyncio.gather(*(register(k, tag) for k, tag in
                                           zip(mine[start:start + 100], tags[start:start + 100])))
        cpu_before, started = time.process_time(), time.perf_counter()
        counts = {"late_registrations": 0, "late_refused": 0, "reentries": 0}

        async def life(bot: SeatBot) -> None:
            """Play the seat; once out, maybe re-enter under the same token and play the new entry."""
            while True:
                report = await bot.play()
                if report.place is None or not options.reentry or rng.random() >= options.reentry:
                    return
                answer = await http.post(f"/api/tournaments/{tournament}/reenter",
                                         headers={"Authorization": f"Bearer {bot.token}"})
                if answer.status_code != 201:
                    return  # re-entry closed, or this entry's person has used them all
                counts["reentries"] += 1
                bot = SeatBot(bot.gateways_from_here(), tournament, answer.json()["player_id"], bot.token, bot.strategy,
                              random.Random(rng.random()), options.think, bot.fault, measured)
                bots.append(bot)

        async def late_arrival(k: int, tag: str, after: float) -> None:
            await asyncio.sleep(after)
            try:
                bot = await register(k, tag)
            except httpx.HTTPStatusError:
                counts["late_refused"] += 1  # late registration closed first
                return
            counts["late_registrations"] += 1
            bots.append(bot)
            await life(bot)

        tasks = [asyncio.create_task(life(bot)) for bot in bots]
        if options.tournament is None:  # the creating shard starts once every shard has registered
            while (await summary_of(http, tournament))["entries"] < options.players and not stop.is_set():
                await asyncio.sleep(0.2)
            await asyncio.sleep(0.5)  # let the last connections open
            if not stop.is_set():
                (await http.post(f"/api/tournaments/{tournament}/start", headers=admin)).raise_for_status()
        if options.late:
            while (window := await summary_of(http, tournament))["status"] == "register" and not stop.is_set():
                await asyncio.sleep(0.2)  # another shard starts it
            seconds = window.get("late_registration_ends_in") or 60.0
            tasks += [asyncio.create_task(late_arrival(options.players + k, tag, rng.uniform(0, seconds)))
                      for k, tag in enumerate(rng.choices(list(options.mix), list(options.mix.values()),
                                                          k=options.late))]
        gc.freeze()  # the bots live for the whole run: keep the collector's passes short, as the server does
        live = Live()
        outage = Outage()
        timeline = Timeline(measured, options.interval or DEFAULT_INTERVAL)
        warm = options.warmup == 0
        stopped: str | None = None
        while not all(task.done() for task in tasks):
            await asyncio.wait(tasks, timeout=1.0)  # a signal is seen within the second
            if not warm and time.perf_counter() - started >= options.warmup:
                warm = True
                del measured.latencies[:]  # the start's burst (every table dealing at once) is not the steady
                del measured.lags[:]  # state
            if options.duration is not None and time.perf_counter() - started >= options.duration:
                stopped = "duration"
            if stop.is_set():
                stopped = "signal"
            if stopped is not None:
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
                break
            summary = await summary_of(http, tournament, outage)
            reports = [bot.report for bot in bots]
            recent = measured.latencies[-20 * len(bots):].tolist()  # about the last 20 actions of each bot
            live.players_left, live.tables = summary["players_left"], summary["tables"]
            live.wall_s = time.perf_counter() - started
            live.actions = sum(r.decisions for r in reports)
            live.actions_per_s = live.actions / live.wall_s if live.wall_s else 0.0
            live.p50_ms, live.p99_ms = percentiles_ms(recent, (0.5, 0.99))
            live.errors = sum(len(r.errors) for r in reports)
            if progress is not None:
                progress(live)
            if options.interval is not None and timeline.due(live.wall_s):
                row = timeline.sample(bots, live.wall_s, live.players_left)
                if sampled is not None:
                    sampled(row)
        final = await summary_of(http, tournament, outage)
        while stopped is None and final["status"] == "running":
            await asyncio.sleep(0.5)  # this shard's bots are out; the others' play on to the end
            stopped = "signal" if stop.is_set() else None
            final = await summary_of(http, tournament, outage)
        wall = time.perf_counter() - started
        cpu = time.process_time() - cpu_before
        if options.interval is not None:
            timeline.sample(bots, wall, final["players_left"])
        after = "finished" if final["status"] == "finished" else final["status"]
        on_stop = options.on_stop or ("cancel" if options.tournament is None else "leave")
        if stopped is not None and final["status"] in ("running", "register"):
            after = "left"
            if on_stop == "cancel":
                cancelled = await http.post(f"/api/tournaments/{tournament}/cancel", headers=admin)
                after = "cancelled" if cancelled.status_code == 200 else f"left (cancel refused: {cancelled.text})"
    report = report_of([bot.report for bot in bots], measured, tournament, final, wall, cpu)
    report["server_away"] = {"times": outage.times, "seconds": round(outage.seconds, 2)}
    report.update(counts)
    report["stopped"] = stopped
    report["tournament_after"] = after
    report["interval_s"] = options.interval
    report["history"] = timeline.rows
    report["history_cpu_s"] = round(timeline.cpu_s, 4)
    report["histograms"]["register_ms"] = histogram(registrations)
    return report


class Failover(httpx.AsyncBaseTransport):
    """Requests to the first of several addresses (a cluster's gateways) that takes the connection: one that
    refuses it is gone, and the request goes to the next, as it would through a load balancer. Only a request
    that could not connect is sent again, so that nothing reaches the server twice."""

    def __init__(self, addresses: list[str], limits: httpx.Limits) -> None:
        self.origins = [httpx.URL(address) for address in addresses]
        self.current = 0
        self.transport = httpx.AsyncHTTPTransport(limits=limits)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        for _ in range(len(self.origins) - 1):
            try:
                return await self._send(request)
            except httpx.ConnectError:
                self.current = (self.current + 1) % len(self.origins)
        return await self._send(request)

    async def _send(self, request: httpx.Request) -> httpx.Response:
        origin = self.origins[self.current]
        request.url = request.url.copy_with(scheme=origin.scheme, host=origin.host, port=origin.port)
        request.headers["Host"] = origin.netloc.decode()
        return await self.transport.handle_async_request(request)

    async def aclose(self) -> None:
        await self.transport.aclose()


# An idle connection is let go before the server's keep-alive (uvicorn's 5 s) can close it: at the same 5 s
# (httpx's default), a server whose loop was busy closed a connection as a request was sent on it, and the
# swarm's POST /start failed with a ReadError (15,000 bots through a gateway).
KEEPALIVE_SECONDS = 2.0
SERVER_AWAY_SECONDS = 120  # how long the swarm waits for a server that went away (a restart) before it gives up


async def summary_of(http: httpx.AsyncClient, tournament: str, outage: Outage | None = None) -> dict[str, Any]:
    """The tournament's summary from the list: cheap for the server, unlike the full table view.

    A server that does not answer (restarting after a crash) is asked again
    every half second for ``SERVER_AWAY_SECONDS``; ``outage`` counts the times
    it went away and for how long, for the report.
    """
    away_since: float | None = None
    while True:
        try:
            answer = await http.get("/api/tournaments")
            answer.raise_for_status()
            listed = answer.json()
            if outage is not None and away_since is not None:
                outage.seconds += time.perf_counter() - away_since
            return next(t for t in listed if t["id"] == tournament)
        except (httpx.TransportError, httpx.HTTPStatusError, StopIteration):
            now = time.perf_counter()
            if away_since is None:
                away_since = now
                if outage is not None:
                    outage.times += 1
            if now - away_since > SERVER_AWAY_SECONDS:
                raise
            await asyncio.sleep(0.5)


@dataclass
class Outage:
    """The times the server went away during a run (a restart), and the seconds it was gone in all."""

    times: int = 0
    seconds: float = 0.0


def report_of(reports: list[SeatReport], measured: Measured, tournament: str, final: dict[str, Any], wall: float,
              cpu: float) -> dict[str, Any]:
    latencies, lags = measured.latencies.tolist(), measured.lags.tolist()
    actions = sum(r.decisions for r in reports)
    p50, p95, p99, longest = percentiles_ms(latencies, (0.5, 0.95, 0.99, 1.0))
    lag_p50, lag_p95, lag_p99, lag_max = percentiles_ms(lags, (0.5, 0.95, 0.99, 1.0))
    refused = Counter(reason for r in reports for reason in r.refused)
    errors = Counter(f"{error.get('code')}: {error.get('message')}" for r in reports for error in r.errors)
    missed = sum(r.missed_deadlines for r in reports)
    return {
        "tournament": tournament, "players": len(reports), "tables": final.get("tables", 0),
        "actions": actions, "actions_per_s": round(actions / wall, 1) if wall else 0.0,
        "latency_ms": {"p50": p50, "p95": p95, "p99": p99, "max": longest},
        "event_lag_ms": {"p50": lag_p50, "p95": lag_p95, "p99": lag_p99, "max": lag_max},
        "errors": sum(len(r.errors) for r in reports),
        "error_codes": dict(Counter(str(error.get("code")) for r in reports for error in r.errors)),
        "provoked_errors": sum(r.provoked_errors for r in reports),
        "stale": sum(r.stale for r in reports),
        "missed_deadlines": sum(r.missed_deadlines for r in reports), "timeouts": sum(r.timed_out for r in reports),
        "reconnections": sum(r.reconnections for r in reports), "failovers": sum(r.failovers for r in reports),
        "messages": sum(r.messages for r in reports),
        "finished": final.get("status") == "finished", "wall_s": round(wall, 2),
        "swarm_cpu_percent": round(100 * cpu / wall, 1) if wall else 0.0,
        "bytes": sum(r.bytes for r in reports),
        "histograms": {"latency_ms": histogram(latencies), "event_lag_ms": histogram(lags),
                       "connect_ms": histogram(x for r in reports for x in r.connects),
                       "reconnect_ms": histogram(x for r in reports for x in r.reconnects),
                       "snapshot_ms": histogram(x for r in reports for x in r.snapshots_after)},
        # Locust's failures: what failed, where, and how often (PREFIX_failures.csv)
        "failures": [*({"method": "WS", "name": "act -> acted", "error": error, "occurrences": n}
                       for error, n in errors.most_common()),
                     *([{"method": "WS", "name": "act -> acted", "error": "missed deadline: the clock acted first",
                         "occurrences": missed}] if missed else []),
                     *({"method": "WS", "name": "connect", "error": reason, "occurrences": n}
                       for reason, n in refused.most_common())],
    }
