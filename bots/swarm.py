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

from bots.client import WAIT_SECONDS, Measured, SeatBot, Tally, backoff, strategy_for
from bots.histogram import histogram, percentiles
from bots.shapes import Stage, target_at
from bots.swarmmetrics import SwarmMetrics
from bots.strategies import DEFAULT_MIX
from bots.thresholds import Threshold, failing
from bots.timeline import DEFAULT_INTERVAL, Timeline
from bots.watchers import Watchers


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
    # Thresholds checked as the run goes (``:abort``): the first that fails stops it (k6's abortOnFail).
    thresholds: list[Threshold] = field(default_factory=list)
    # The load's shape (bots/shapes.py): the bots connected over time, every shard together (None: all, always)
    stages: list[Stage] | None = None
    arrival_rate: float | None = None  # registrations a second, every shard together (None: as fast as answered)
    observers: int = 0  # websocket clients of this shard watching tables, as spectators do (bots/watchers.py)
    lobby: int = 0  # clients of this shard reading the lobby's list every ``lobby_every`` seconds
    lobby_every: float = 2.0
    wait_s: float = WAIT_SECONDS  # how long a server away is waited for (its bots' reconnections, its summary)


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
                    sampled: Callable[[dict[str, Any]], None] | None = None,
                    written: Callable[[dict[str, Any]], object] | None = None,
                    metrics: SwarmMetrics | None = None) -> dict[str, Any]:
    """Create or join the tournament, register this shard's bots, play to the end (or ``options.duration``,
    or until ``stop`` is set, or until the server has been gone ``options.wait_s``), and report.
    ``progress`` hears of the figures every second, ``sampled`` of each row of the time series, and ``written``
    of the report so far at each row (a run killed later leaves what it had measured); ``metrics`` are given
    each row, for a scrape (``--metrics-port``)."""
    addresses = addresses_of(options.url)
    async with rest_client(addresses) as http:
        run = SwarmRun(options, http, addresses, stop or asyncio.Event())
        run.written = written
        await run.enter()
        if metrics is not None:
            metrics.run = metrics.run or run.tournament
            sampled = _also(sampled, metrics.row)
            run.written = _also(written, metrics.report)
        await run.play(progress, sampled)
        await run.end()
    return run.report()


def addresses_of(url: str) -> list[str]:
    """The server, or a cluster's gateways separated by commas (``--url``)."""
    return [address.strip().rstrip("/") for address in url.split(",") if address.strip()]


def rest_client(addresses: list[str]) -> httpx.AsyncClient:
    """The swarm's REST client: to the first of ``addresses`` that takes the connection (``Failover``)."""
    limits = httpx.Limits(keepalive_expiry=KEEPALIVE_SECONDS)
    return httpx.AsyncClient(base_url=addresses[0], timeout=30, limits=limits, transport=Failover(addresses, limits))


def _also(first: Callable[[dict[str, Any]], object] | None,
          then: Callable[[dict[str, Any]], object]) -> Callable[[dict[str, Any]], None]:
    def both(row: dict[str, Any]) -> None:
        if first is not None:
            first(row)
        then(row)
    return both


class SwarmRun:
    """One swarm's run, step by step: its tournament, its bots, the loop that watches them, and its report."""

    def __init__(self, options: SwarmOptions, http: httpx.AsyncClient, addresses: list[str],
                 stop: asyncio.Event) -> None:
        self.options = options
        self.http = http
        self.ws_urls = ["ws" + address.removeprefix("http") for address in addresses]
        self.stop = stop
        self.rng = random.Random(options.seed)
        self.admin = {"Authorization": f"Bearer {options.admin_token}"} if options.admin_token else {}
        self.tournament = options.tournament or ""
        self.registrations: list[float] = []
        self.measured = Measured()  # every bot's latencies and lags, one array of each
        self.bots: list[SeatBot] = []
        self.tasks: list[asyncio.Task[None]] = []
        self.counts = {"late_registrations": 0, "late_refused": 0, "reentries": 0}
        self.outage = Outage(self.measured.tally)
        self.timeline = Timeline(self.measured, options.interval or DEFAULT_INTERVAL)
        self.summary: dict[str, Any] = {}  # the tournament as the server last said
        self.stopped: str | None = None  # duration, signal, server_lost, or aborted
        self.aborted_by = ""  # the threshold that stopped the run
        self._aborting = [threshold for threshold in options.thresholds if threshold.abort is not None]
        self.after = ""
        self.started = self.cpu_before = 0.0
        self.started_at = time.time()  # the wall clock, for the report
        self.wall = self.cpu = 0.0
        self.written: Callable[[dict[str, Any]], object] | None = None
        self._polling: asyncio.Task[None] | None = None  # the summary asked for, never waited on by the loop
        self._shaping: asyncio.Task[None] | None = None
        self.registering_s = 0.0  # from the first registration sent to the last answered
        self.streaming_cpu_s = 0.0  # the CPU spent on the report so far and its files (benchmarks/bench_swarm.py)
        self.share = 1.0  # this shard's part of the run's bots (of a shape's target and an arrival rate)
        self.watchers = Watchers(self.rng.random())

    async def enter(self) -> None:
        """Create the tournament (or join it), register this shard's bots, start it if this shard created it."""
        options = self.options
        await reachable(self.http, options.wait_s)
        if not self.tournament:
            created = await self.http.post("/api/tournaments", headers=self.admin,
                                           json=options.definition or default_swarm_definition(options.players))
            created.raise_for_status()
            self.tournament = created.json()["id"]
        shard, shards = options.shard
        mine = [k for k in range(options.players) if k % shards == shard]
        self.share = len(mine) / options.players if options.players else 0.0
        tags = self.rng.choices(list(options.mix), list(options.mix.values()), k=len(mine))
        registering = time.perf_counter()
        if options.arrival_rate:  # k6's arrival rate: each sent at its moment, answered or not
            arrivals = [self._register_after(n / (options.arrival_rate * self.share), k, tag)
                        for n, (k, tag) in enumerate(zip(mine, tags))]
            self.bots += [bot for bot in await asyncio.gather(*arrivals) if bot is not None]
        else:
            for start in range(0, len(mine), 100):  # in batches: the server's queue stays short
                if self.stop.is_set():
                    break
                self.bots += await asyncio.gather(*(self._register(k, tag) for k, tag in
                                                    zip(mine[start:start + 100], tags[start:start + 100])))
        self.cpu_before, self.started = time.process_time(), time.perf_counter()
        self.registering_s = self.started - registering
        self.tasks = [asyncio.create_task(self._life(bot)) for bot in self.bots]
        if options.tournament is None:  # the creating shard starts once every shard has registered
            while (await self._answered())["entries"] < options.players and not self.stop.is_set():
                await asyncio.sleep(0.2)
            await asyncio.sleep(0.5)  # let the last connections open
            if not self.stop.is_set():
                (await self.http.post(f"/api/tournaments/{self.tournament}/start", headers=self.admin)
                 ).raise_for_status()
        if options.late:  # once the tournament runs (another shard, or the coordinator, may start it)
            self.tasks.append(asyncio.create_task(self._arrive_late()))

    async def _register(self, k: int, tag: str) -> SeatBot:
        began = time.monotonic()
        answer = await self.http.post(f"/api/tournaments/{self.tournament}/register", json={"name": f"{tag} {k + 1}"})
        answer.raise_for_status()
        self.registrations.append(time.monotonic() - began)
        seat = answer.json()
        strategy, fault = strategy_for(tag)
        # the bots spread over the gateways, each going on to the next when its own is gone
        urls = self.ws_urls[k % len(self.ws_urls):] + self.ws_urls[:k % len(self.ws_urls)]
        return self._shaped(SeatBot(urls, self.tournament, seat["player_id"], seat["token"], strategy,
                                    random.Random(self.rng.random()), self.options.think, fault, self.measured,
                                    self.options.wait_s))

    async def _register_after(self, after: float, k: int, tag: str) -> SeatBot | None:
        await asyncio.sleep(after)
        return None if self.stop.is_set() else await self._register(k, tag)

    def _shaped(self, bot: SeatBot) -> SeatBot:
        """Under a load shape a new bot stays away until the shape brings it (``_shape``)."""
        if self.options.stages:
            bot.leave()
        return bot

    async def _life(self, bot: SeatBot) -> None:
        """Play the seat; once out, maybe re-enter under the same token and play the new entry."""
        options = self.options
        while True:
            report = await bot.play()
            if report.place is None or not options.reentry or self.rng.random() >= options.reentry:
                return
            answer = await self.http.post(f"/api/tournaments/{self.tournament}/reenter",
                                          headers={"Authorization": f"Bearer {bot.token}"})
            if answer.status_code != 201:
                return  # re-entry closed, or this entry's person has used them all
            self.counts["reentries"] += 1
            bot = self._shaped(SeatBot(bot.gateways_from_here(), self.tournament, answer.json()["player_id"],
                                       bot.token, bot.plugin or bot.strategy, random.Random(self.rng.random()),
                                       options.think, bot.fault, self.measured, options.wait_s))
            self.bots.append(bot)

    async def _arrive_late(self) -> None:
        """This shard's late bots, at moments drawn over what is left of the late registration."""
        while (window := await self._answered())["status"] == "register" and not self.stop.is_set():
            await asyncio.sleep(0.2)  # another shard starts it
        seconds = window.get("late_registration_ends_in") or 60.0
        mix, rate = self.options.mix, self.options.arrival_rate
        for k, tag in enumerate(self.rng.choices(list(mix), list(mix.values()), k=self.options.late)):
            after = k / (rate * self.share) if rate else self.rng.uniform(0, seconds)
            self.tasks.append(asyncio.create_task(self._late_arrival(self.options.players + k, tag, after)))

    async def _late_arrival(self, k: int, tag: str, after: float) -> None:
        await asyncio.sleep(after)
        try:
            bot = await self._register(k, tag)
        except httpx.HTTPStatusError:
            self.counts["late_refused"] += 1  # late registration closed first
            return
        self.counts["late_registrations"] += 1
        self.bots.append(bot)
        await self._life(bot)

    async def _answered(self) -> dict[str, Any]:
        """The tournament's summary before play: a server away is waited for, ``wait_s`` at most (then the run
        never started: the error rises)."""
        while True:
            summary = await summary_of(self.http, self.tournament, self.outage)
            if summary is not None:
                self.summary = summary
                return summary
            if self.outage.away_for() > self.options.wait_s or self.stop.is_set():
                raise httpx.ConnectError(f"the server at {self.http.base_url} is gone")
            await asyncio.sleep(0.5)

    async def play(self, progress: Callable[[Live], None] | None,
                   sampled: Callable[[dict[str, Any]], None] | None) -> None:
        """Watch the bots play, once a second, until they are done or the run stops: its duration, a signal, or
        its server gone too long. A server away never holds the loop: its rows are measured at what they are."""
        gc.freeze()  # the bots live for the whole run: keep the collector's passes short, as the server does
        live = Live()
        warm = self.options.warmup == 0
        if self.options.stages:
            self._shaping = asyncio.create_task(self._shape())
        if self.options.observers or self.options.lobby:
            self.watchers.start(self.ws_urls, self.http, self.tournament, self.summary.get("tables", 0),
                                self.options.observers, self.options.lobby, self.options.lobby_every)
        while not all(task.done() for task in self.tasks):
            await asyncio.wait(self.tasks, timeout=1.0)  # a signal is seen within the second
            if not warm and time.perf_counter() - self.started >= self.options.warmup:
                warm = True
                del self.measured.latencies[:]  # the start's burst (every table dealing at once) is not the
                del self.measured.lags[:]  # steady state
                self.timeline.forget()
            self._poll()
            if self._stopping() is not None:
                break
            self._sample(live, progress, sampled)
            if self.stopped is not None:  # a threshold with :abort failed
                break
        helpers = [task for task in (self._polling, self._shaping) if task is not None]
        for task in [*self.tasks, *helpers]:
            task.cancel()
        await asyncio.gather(*self.tasks, *helpers, self.watchers.stop(), return_exceptions=True)
        self._polling = self._shaping = None

    async def _shape(self) -> None:
        """Keep the bots connected at the shape's target: the first so many of those still playing come, the
        others stay away (the clock acts for their seats)."""
        while True:
            wanted = round(self._target())
            playing = [bot for bot in self.bots if not bot.done]
            for n, bot in enumerate(playing):
                if n < wanted and bot.away:
                    bot.come_back()
                elif n >= wanted and not bot.away:
                    bot.leave()
            await asyncio.sleep(SHAPE_TICK_SECONDS)

    def _target(self) -> float:
        """This shard's part of the bots the shape wants connected now."""
        assert self.options.stages is not None
        return target_at(self.options.stages, time.perf_counter() - self.started) * self.share

    def _poll(self) -> None:
        """Ask for the summary in a task of its own, if the last ask is answered: the loop's clock (the rows of
        the time series, the duration, a signal) never waits on a server that is slow or gone."""
        if self._polling is None or self._polling.done():
            self._polling = asyncio.get_running_loop().create_task(self._look())

    async def _look(self) -> None:
        summary = await summary_of(self.http, self.tournament, self.outage)
        if summary is not None:
            self.summary = summary

    def _stopping(self) -> str | None:
        """Why the run stops now, if it does."""
        if self.options.duration is not None and time.perf_counter() - self.started >= self.options.duration:
            self.stopped = "duration"
        if self.stop.is_set():
            self.stopped = "signal"
        if self.outage.away_for() > self.options.wait_s:
            self.stopped = "server_lost"
        return self.stopped

    def _sample(self, live: Live, progress: Callable[[Live], None] | None,
                sampled: Callable[[dict[str, Any]], None] | None) -> None:
        live.players_left, live.tables = self.summary.get("players_left", 0), self.summary.get("tables", 0)
        live.wall_s = time.perf_counter() - self.started
        if progress is not None:  # a terminal's line: its figures are made for it alone
            counted = self.measured.tally
            recent = self.measured.latencies[-20 * len(self.bots):].tolist()  # about the last 20 actions a bot
            live.actions, live.errors = counted.decisions, len(counted.errors)
            live.actions_per_s = live.actions / live.wall_s if live.wall_s else 0.0
            live.p50_ms, live.p99_ms = percentiles_ms(recent, (0.5, 0.99))
            progress(live)
        row_due = self.options.interval is not None and self.timeline.due(live.wall_s)
        if row_due:
            row = self.timeline.sample(live.wall_s, live.players_left,
                                       round(self._target()) if self.options.stages else None, self.outage)
            if sampled is not None:
                sampled(row)
        # The report so far, built once for the files and the thresholds that may stop the run: at each row of
        # the time series, or every second when none is kept. Built every second, it cost the swarm's loop a
        # pass over every latency measured.
        checking = bool(self._aborting) and (row_due or self.options.interval is None)
        writing = row_due and self.written is not None
        if not (checking or writing):
            return
        began = time.thread_time()  # this thread's: a scrape of /metrics on its own thread is counted there
        partial = self.report(live.wall_s, time.process_time() - self.cpu_before,
                              so_far=self.options.interval is not None)
        if writing and self.written is not None:
            self.written(partial)
        self.streaming_cpu_s += time.thread_time() - began
        failed = failing(self._aborting, partial, live.wall_s) if checking else None
        if failed is not None:
            self.stopped, self.aborted_by = "aborted", failed.text

    async def end(self) -> None:
        """This shard's bots are out (or the run stopped): the others' play on to the end, unless it stopped;
        then a tournament this shard created is cancelled (or left, as ``on_stop`` says)."""
        await self._look()
        while self.stopped is None and self.summary.get("status") == "running":
            await asyncio.sleep(0.5)
            await self._look()
            self._stopping()
        self.wall, self.cpu = time.perf_counter() - self.started, time.process_time() - self.cpu_before
        if self.options.interval is not None:
            self.timeline.sample(self.wall, self.summary.get("players_left", 0),
                                 round(self._target()) if self.options.stages else None, self.outage)
        self.after = "finished" if self.summary.get("status") == "finished" else self.summary.get("status", "")
        if self.outage.away_since is not None:
            self.after = "unknown: the server does not answer"
        elif self.stopped is not None and self.summary.get("status") in ("running", "register"):
            self.after = await left_behind(self.http, self.tournament, self.admin,
                                           self.options.on_stop or ("cancel" if self.options.tournament is None
                                                                    else "leave"))

    def start_the_clock(self) -> None:
        """Play counts from now (a coordinated run's common start): its duration, its shape, its rows."""
        self.cpu_before, self.started = time.process_time(), time.perf_counter()
        self.timeline.restart()

    def report(self, wall: float | None = None, cpu: float | None = None, so_far: bool = False) -> dict[str, Any]:
        """The run's report: at its end, or so far (``wall`` and ``cpu`` the run's until now). ``so_far``: its
        latencies and lags read from the time series' histograms, not every sample again (at each row, every
        sample sorted cost the swarm 9% of its CPU at 5,000 bots); the percentiles within about 1%."""
        report = report_of(len(self.bots), self.measured,
                           self.tournament, self.summary,
                           self.wall if wall is None else wall, self.cpu if cpu is None else cpu,
                           (self.timeline.latency_total, self.timeline.lag_total) if so_far else None)
        report["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started_at))
        report["server_away"] = self.outage.report()
        if self.outage.times:  # an absence is known once the poll gives up: its rows are told after
            for row in self.timeline.rows:
                row["server_away_s"] = round(self.outage.within(row["at"] - row["seconds"], row["at"]), 3)
        report["server_wait_s"] = self.options.wait_s
        report.update(self.counts)
        report["stopped"] = self.stopped
        report["aborted_by"] = self.aborted_by
        report["tournament_after"] = self.after
        report["interval_s"] = self.options.interval
        report["history"] = self.timeline.rows
        report["history_cpu_s"] = round(self.timeline.cpu_s, 4)
        report["streaming_cpu_s"] = round(self.streaming_cpu_s, 4)
        report["histograms"]["register_ms"] = histogram(self.registrations)
        report["warmup_s"] = self.options.warmup
        report["registering_s"] = round(self.registering_s, 3)
        watched = self.watchers.report()
        report["histograms"].update(watched.pop("histograms"))
        report["failures"] += watched.pop("failures")
        report.update(watched)
        return report


async def left_behind(http: httpx.AsyncClient, tournament: str, admin: dict[str, str], on_stop: str) -> str:
    """What a run stopped early does with the tournament (``on_stop``): cancels it, or leaves it to play on."""
    if on_stop != "cancel":
        return "left"
    try:
        cancelled = await http.post(f"/api/tournaments/{tournament}/cancel", headers=admin)
    except httpx.TransportError as error:
        return f"left (the server did not answer the cancel: {error})"
    return "cancelled" if cancelled.status_code == 200 else f"left (cancel refused: {cancelled.text})"


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
SHAPE_TICK_SECONDS = 0.2  # how often the shape's target is looked at: a ramp of 100 bots a second comes in 20s
SUMMARY_TIMEOUT_SECONDS = 2.0  # a poll of the summary that takes longer counts as the server away


async def reachable(http: httpx.AsyncClient, wait_s: float) -> None:
    """Wait for the server to answer, as long as the swarm waits for one away (a swarm started beside its server
    in a pipeline, a server restarting), with the bots' backoff; the last error rises when it never does."""
    rng, began, tries = random.Random(), time.monotonic(), 0
    while True:
        try:
            (await http.get("/api/tournaments", timeout=SUMMARY_TIMEOUT_SECONDS)).raise_for_status()
            return
        except httpx.TransportError:
            tries += 1
            pause = backoff(tries, rng)
            if time.monotonic() - began + pause > wait_s:
                raise
            await asyncio.sleep(pause)


async def summary_of(http: httpx.AsyncClient, tournament: str, outage: Outage) -> dict[str, Any] | None:
    """The tournament's summary from the list (cheap for the server, unlike the full table view); None while the
    server does not answer, which ``outage`` counts: the times it went away, and for how long. Asked with a short
    timeout, so that a server gone or frozen never holds the run's loop."""
    try:
        answer = await http.get("/api/tournaments", timeout=SUMMARY_TIMEOUT_SECONDS)
        answer.raise_for_status()
        summary: dict[str, Any] = next(t for t in answer.json() if t["id"] == tournament)
    except (httpx.TransportError, httpx.HTTPStatusError, StopIteration):
        outage.away()
        return None
    outage.back()
    return summary


class Outage:
    """The times the server went away during a run (a restart, a crash, a freeze), as the swarm saw them: from
    the last moment it was heard (a bot's frame, or an answer to the swarm's poll) to the first answer after.
    Kept as spans of the wall clock, so that each row of the time series says how much of it the server was
    away (``within``)."""

    def __init__(self, tally: Tally | None = None) -> None:
        self.tally = tally  # the bots' last frame heard; None: only the polls count
        self.answered = time.time()
        self.spans: list[tuple[float, float]] = []  # (away since, back at), each past outage
        self.away_since: float | None = None  # while it is away

    @property
    def times(self) -> int:
        return len(self.spans) + (self.away_since is not None)

    def _heard(self) -> float:
        return max(self.answered, self.tally.heard if self.tally is not None else 0.0)

    def away(self) -> None:
        if self.away_since is None:
            self.away_since = self._heard()

    def back(self) -> None:
        self.answered = time.time()
        if self.away_since is not None:
            self.spans.append((self.away_since, self.answered))
            self.away_since = None

    def away_for(self) -> float:
        """How long the server has been away now (0 while it answers)."""
        return time.time() - self.away_since if self.away_since is not None else 0.0

    def total(self) -> float:
        return sum(back - since for since, back in self.spans) + self.away_for()

    def within(self, start: float, end: float) -> float:
        """The seconds between ``start`` and ``end`` (the wall clock) that the server was away."""
        now = time.time()
        spans = [*self.spans, *([(self.away_since, now)] if self.away_since is not None else [])]
        return sum(max(0.0, min(end, back) - max(start, since)) for since, back in spans)

    def report(self) -> dict[str, Any]:
        spans = [back - since for since, back in self.spans] + ([self.away_for()] if self.away_since else [])
        return {"times": self.times, "seconds": round(self.total(), 2), "longest": round(max(spans, default=0), 2),
                "at_the_end": self.away_since is not None}


def report_of(players: int, measured: Measured, tournament: str, final: dict[str, Any],
              wall: float, cpu: float,
              histograms: tuple[dict[str, int], dict[str, int]] | None = None) -> dict[str, Any]:
    """The report of the bots that counted into ``measured``; given the latency and lag ``histograms`` (a report so
    far: the time series' rows added up), they are not made again from every sample."""
    counted = measured.tally
    fractions = (0.5, 0.95, 0.99, 1.0)
    # Every figure is read from the histograms, as the thresholds, the merge and the CSVs read them: one max
    # everywhere (an exact max beside a bucket's p99.9 could be the smaller of the two)
    latency_counts, lag_counts = histograms if histograms is not None else \
        (histogram(measured.latencies), histogram(measured.lags))
    p50, p95, p99, longest = percentiles(latency_counts, fractions)
    lag_p50, lag_p95, lag_p99, lag_max = percentiles(lag_counts, fractions)
    actions, missed, said = counted.decisions, counted.missed_deadlines, counted.errors
    refused, refused_again = Counter(counted.refused), Counter(counted.refused_again)
    errors = Counter(f"{error.get('code')}: {error.get('message')}" for error in said)
    return {
        "tournament": tournament, "players": players, "tables": final.get("tables", 0),
        "actions": actions, "actions_per_s": round(actions / wall, 1) if wall else 0.0,
        "latency_ms": {"p50": p50, "p95": p95, "p99": p99, "max": longest},
        "event_lag_ms": {"p50": lag_p50, "p95": lag_p95, "p99": lag_p99, "max": lag_max},
        "errors": len(said), "error_codes": dict(Counter(str(error.get("code")) for error in said)),
        "provoked_errors": counted.provoked_errors, "stale": counted.stale, "missed_deadlines": missed,
        "timeouts": counted.timed_out, "reconnections": counted.reconnections, "failovers": counted.failovers,
        "messages": counted.messages,
        "finished": final.get("status") == "finished", "wall_s": round(wall, 2),
        "swarm_cpu_percent": round(100 * cpu / wall, 1) if wall else 0.0,
        "bytes": counted.bytes, **measured.plugins.report(),
        "histograms": {"latency_ms": latency_counts, "event_lag_ms": lag_counts,
                       "connect_ms": histogram(counted.connects), "reconnect_ms": histogram(counted.reconnects),
                       "snapshot_ms": histogram(counted.snapshots_after)},
        # Locust's failures: what failed, where, and how often (PREFIX_failures.csv)
        "failures": [*({"method": "WS", "name": "act -> acted", "error": error, "occurrences": n}
                       for error, n in errors.most_common()),
                     *([{"method": "WS", "name": "act -> acted", "error": "missed deadline: the clock acted first",
                         "occurrences": missed}] if missed else []),
                     *({"method": "WS", "name": "connect", "error": reason, "occurrences": n}
                       for reason, n in refused.most_common()),
                     *({"method": "WS", "name": "reconnect", "error": reason, "occurrences": n}
                       for reason, n in refused_again.most_common())],
    }
