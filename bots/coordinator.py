"""One swarm run over many machines: a coordinator and its workers, in the manner of Locust's master
and workers, over NATS.

The coordinator (``mttsim swarm --coordinate NATS_URL --expect-workers N``) plays no bot. It creates or joins
the tournament, waits for N workers, gives each its share of the bots (``--shard I/N``'s split, its own
seed), waits until every worker's bots are registered, starts the tournament and tells the workers to go
together: the duration and the load's shape count from that one moment for all. As the run goes each worker
sends its rows of the time series with its report so far; the coordinator adds them up (bots/loadreport.py
``merged_report``, histograms bucket by bucket), shows them, serves them as metrics, checks the thresholds
(``:abort`` ones stop every worker) and writes one report. A worker not heard of for ``LOST_SECONDS`` is
reported lost, and its figures until then stay in the report; the run goes on without it.

A worker (``mttsim swarm-worker --coordinator NATS_URL``) needs nothing else: it says hello until it has a
plan, plays its share as a swarm does (bots/swarm.py), and sends its final report.

NATS is the transport the cluster already runs (docs/deployment.md): a subject per message kind under
``mttsim.swarm.RUN``, JSON bodies (msgspec). Core NATS delivers at most once: a row lost on the way is a gap
in the live view, never in the counts, which come from the final reports. The swarm's NATS is its own (a
server, or an account, of its own): a swarm's credentials must never reach a cluster's tables.

Nobody else on that NATS is trusted (``Link``): every message is signed with the run's secret, which the
coordinator and its workers share (``MTTSIM_SWARM_SECRET``), and stamped with the time; one that is not signed,
or not of this minute, is dropped with a line. A worker plays only the players it was started with: a plan
naming a player module of its own (``module.path:Name``) that the worker's ``--player`` did not name is refused,
and nothing of it is imported.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import hmac
import logging
import os
import socket
import struct
import time
from collections.abc import Awaitable, Callable, Collection
from dataclasses import asdict, dataclass, field
from typing import Any

import httpx
import msgspec
import nats
import nats.errors
from nats.aio.client import Client
from nats.aio.msg import Msg

from bots.client import WAIT_SECONDS
from bots.loadreport import merged_report
from bots.shapes import Stage, target_at
from bots.swarm import (
    Live, Outage, SwarmOptions, SwarmRun, addresses_of, default_swarm_definition, left_behind, reachable,
    rest_client, summary_of,
)
from bots.swarmmetrics import SwarmMetrics
from bots.thresholds import Threshold, failing
from bots.timeline import merged as merged_history

LOST_SECONDS = 15.0  # a worker silent this long (and three rows' time) is lost
ALIVE_SECONDS = 2.0  # how often a worker says it is there, rows or not (its bots out, it waits for the end)
HELLO_SECONDS = 0.5  # how often a worker without a plan says hello
DONE_SECONDS = 60.0  # how long the coordinator waits for the workers' final reports once the run stops


SECRET_ENV = "MTTSIM_SWARM_SECRET"  # the run's secret, shared by the coordinator and its workers
SIGNED_MAX_AGE = 60.0  # seconds a signed message may be old (or early: the machines' clocks may differ)
logger = logging.getLogger(__name__)


def subject(run: str, kind: str) -> str:
    return f"mttsim.swarm.{run}.{kind}"


_encode = msgspec.json.encode
_decode = msgspec.json.decode
_STAMP = struct.Struct(">d")


class PlanRefused(ValueError):
    """A plan this worker will not play: it names a player the worker was not started with."""


class TurnedAway(ConnectionError):
    """The coordinator has every worker it expected: this one is not part of the run."""


class WorkersMissing(ConnectionError):
    """Not every worker came within ``--expect-workers-max-wait``: the run never started."""


class CoordinatorGone(ConnectionError):
    """The coordinator has not been heard of for too long (its machine died, its process was killed)."""


class Link:
    """A run's subjects on NATS, every message signed with the run's secret and stamped with the time: what a
    stranger on the swarm's NATS sends (unsigned, or signed with another secret) or sends again later is dropped."""

    def __init__(self, client: Client, run: str, secret: str) -> None:
        self.client = client
        self.run = run
        self.key = hashlib.sha256(b"mttsim swarm run " + secret.encode()).digest()

    def _mac(self, subject_: str, stamp: bytes, body: bytes) -> bytes:
        mac = hmac.new(self.key, subject_.encode() + b" ", hashlib.sha256)
        mac.update(stamp)
        mac.update(body)
        return mac.digest()

    def signed(self, kind: str, body: dict[str, Any]) -> tuple[str, bytes]:
        to, data, stamp = subject(self.run, kind), _encode(body), _STAMP.pack(time.time())
        return to, self._mac(to, stamp, data) + stamp + data

    async def publish(self, kind: str, body: dict[str, Any]) -> None:
        await self.client.publish(*self.signed(kind, body))

    def opened(self, subject_: str, data: bytes) -> dict[str, Any] | None:
        """The body of a message signed for ``subject_`` with the run's secret in the last minute, or None."""
        mac, stamp, body = data[:32], data[32:32 + _STAMP.size], data[32 + _STAMP.size:]
        if len(stamp) < _STAMP.size or not hmac.compare_digest(mac, self._mac(subject_, stamp, body)):
            return None
        if abs(time.time() - _STAMP.unpack(stamp)[0]) > SIGNED_MAX_AGE:
            return None
        try:
            decoded = _decode(body)
        except msgspec.DecodeError:
            return None
        return decoded if isinstance(decoded, dict) else None

    async def subscribe(self, kind: str, heard: Callable[[dict[str, Any]], Awaitable[None]]) -> None:
        async def opened(message: Msg) -> None:
            body = self.opened(message.subject, message.data)
            if body is None:
                logger.warning("a message on %s not signed with the run's secret (or not of this minute) was "
                               "dropped", message.subject)
            else:
                await heard(body)

        await self.client.subscribe(subject(self.run, kind), cb=opened)


@dataclass
class Worker:
    """A worker as the coordinator sees it."""

    name: str
    shard: int
    heard: float = field(default_factory=time.perf_counter)
    registered: bool = False
    lost: bool = False
    rows: list[dict[str, Any]] = field(default_factory=list)
    partial: dict[str, Any] | None = None  # its report so far
    final: dict[str, Any] | None = None


def share(total: int, shard: int, shards: int) -> int:
    """Shard ``shard``'s part of ``total`` split as evenly as can be."""
    return total // shards + (shard < total % shards)


class Coordinator:
    """The coordinator's run: its workers, its clock, its view of the tournament, and the merged report."""

    def __init__(self, options: SwarmOptions, link: Link, http: httpx.AsyncClient, expect: int,
                 stop: asyncio.Event, max_wait: float | None = None) -> None:
        self.options = options
        self.max_wait = options.wait_s if max_wait is None else max_wait  # for the workers to come
        self.link = link
        self.http = http
        self.expect = expect
        self.stop = stop
        self.admin = {"Authorization": f"Bearer {options.admin_token}"} if options.admin_token else {}
        self.workers: dict[str, Worker] = {}
        self.tournament = options.tournament or ""
        self.outage = Outage()
        self.summary: dict[str, Any] = {}
        self.stopped: str | None = None
        self.aborted_by = ""
        self.started = 0.0
        self.started_at = time.time()
        self.joined = asyncio.Event()
        self.registered = asyncio.Event()
        self.metrics: SwarmMetrics | None = None
        self.after = ""  # what became of the tournament
        self.tell: Callable[[str], None] = lambda _: None  # what the coordinator has to say, as it happens
        # the files of the run so far, at each new row: written whole, since a worker's late row may still
        # change an interval already written (the merge adds rows by interval)
        self.written: Callable[[dict[str, Any]], object] | None = None

    async def hear(self) -> None:
        """Listen to the workers: hellos, registrations, rows and final reports."""
        await self.link.subscribe("hello", self._hello)
        await self.link.subscribe("registered", self._registered)
        await self.link.subscribe("row", self._row)
        await self.link.subscribe("done", self._done)
        await self.link.subscribe("alive", self._alive)

    async def _alive(self, body: dict[str, Any]) -> None:
        self._worker(body)

    async def beat(self) -> None:
        """Say the coordinator is there, as the workers do: a worker that stops hearing it stops."""
        while True:
            await self.link.publish("coordinator", {})
            await asyncio.sleep(ALIVE_SECONDS)

    async def _hello(self, body: dict[str, Any]) -> None:
        name = str(body.get("worker"))
        if name not in self.workers and len(self.workers) >= self.expect:  # late: told to go home, not left waiting
            await self.link.publish(f"plan.{name}", {"turned_away": f"the run has the {self.expect} workers it "
                                                                     f"expected (--expect-workers)"})
            return
        if name not in self.workers:
            self.workers[name] = Worker(name, len(self.workers))
            self.tell(f"joined: {name} ({len(self.workers)} of {self.expect})")
            if len(self.workers) == self.expect:
                self.joined.set()

    def _worker(self, body: dict[str, Any]) -> Worker | None:
        worker = self.workers.get(str(body.get("worker")))
        if worker is not None:
            worker.heard = time.perf_counter()
        return worker

    async def _registered(self, body: dict[str, Any]) -> None:
        worker = self._worker(body)
        if worker is not None:
            worker.registered = True
            if all(w.registered for w in self.workers.values()) and self.joined.is_set():
                self.registered.set()

    async def _row(self, body: dict[str, Any]) -> None:
        worker = self._worker(body)
        if worker is not None and not worker.lost:
            worker.rows.append(body["row"])
            worker.partial = body["report"]
            if self.metrics is not None:
                self.metrics.row(body["row"], worker.name)
                self.metrics.report(worker.partial, worker.name)

    async def _done(self, body: dict[str, Any]) -> None:
        worker = self._worker(body)
        if worker is not None:
            worker.final = body["report"]
            worker.rows.append(body["row"])  # the stop's

    def plan(self, worker: Worker) -> dict[str, Any]:
        """What ``worker`` plays: its shard of the bots and of the watchers, its own seed, the run's shape."""
        options, shards = self.options, self.expect
        return {**asdict(options), "tournament": self.tournament, "shard": [worker.shard, shards],
                "seed": None if options.seed is None else options.seed * 1000 + worker.shard,
                "observers": share(options.observers, worker.shard, shards),
                "lobby": share(options.lobby, worker.shard, shards), "thresholds": [], "definition": None,
                "admin_token": None, "on_stop": "leave"}

    async def prepare(self) -> None:
        """The tournament made (or found), the workers joined and given their plans, their bots registered,
        the tournament started: then every worker goes at once. ``WorkersMissing`` if they do not all come
        within ``max_wait``."""
        await reachable(self.http, self.options.wait_s)
        if not self.tournament:
            created = await self.http.post("/api/tournaments", headers=self.admin,
                                           json=self.options.definition or
                                           default_swarm_definition(self.options.players))
            created.raise_for_status()
            self.tournament = created.json()["id"]
        try:
            await asyncio.wait_for(self._until(self.joined), self.max_wait)
        except TimeoutError:
            raise WorkersMissing(f"{len(self.workers)} of the {self.expect} workers expected came in "
                                 f"{self.max_wait:g} s (--expect-workers-max-wait): the run did not start") from None
        if self.stop.is_set():
            return
        for worker in self.workers.values():
            await self.link.publish(f"plan.{worker.name}", self.plan(worker))
        await self._until(self.registered)
        if self.stop.is_set():
            return
        if self.options.tournament is None:
            await asyncio.sleep(0.5)  # let the last connections open
            (await self.http.post(f"/api/tournaments/{self.tournament}/start", headers=self.admin)).raise_for_status()
        await self.link.publish("go", {})
        self.started = time.perf_counter()
        self.tell(f"go: {len(self.workers)} workers ({', '.join(self.workers)}), tournament {self.tournament}")

    async def _until(self, event: asyncio.Event) -> None:
        """Wait for ``event``, or a signal."""
        stopping = asyncio.create_task(self.stop.wait())
        waiting = asyncio.create_task(event.wait())
        await asyncio.wait([stopping, waiting], return_when=asyncio.FIRST_COMPLETED)
        for task in (stopping, waiting):
            task.cancel()

    async def watch(self, progress: Callable[[Live], None] | None,
                    sampled: Callable[[dict[str, Any]], None] | None) -> None:
        """Once a second until the workers are done or the run stops: the tournament asked for, lost workers
        marked, the run's figures shown and its ``:abort`` thresholds checked on the merged report so far."""
        aborting: list[Threshold] = [t for t in self.options.thresholds if t.abort is not None]
        rows_seen = 0
        while not self.stop.is_set():
            await asyncio.sleep(1.0)
            summary = await summary_of(self.http, self.tournament, self.outage)
            self.summary = summary or self.summary
            now = time.perf_counter()
            self._mark_lost(now)
            elapsed = now - self.started
            if self.options.duration is not None and elapsed >= self.options.duration:
                self.stopped = "duration"
                break
            if all(w.final is not None or w.lost for w in self.workers.values()):
                if self.options.duration is not None and self.summary.get("status") != "finished":
                    self.stopped = "duration"  # the workers stopped at their own clock, a moment before this one
                break
            rows = sum(len(w.rows) for w in self.workers.values())
            fresh, rows_seen = rows > rows_seen, rows
            if progress is None and not fresh:
                continue  # nothing new to show, write or check
            partial = self.report(elapsed)
            if progress is not None:
                progress(live_of(partial, elapsed))
            if not fresh:
                continue
            if sampled is not None and partial["history"]:
                sampled(partial["history"][-1])
            if self.written is not None:
                self.written(partial)
            if (failed := failing(aborting, partial, elapsed)) is not None:
                self.stopped, self.aborted_by = "aborted", failed.text
                break
        if self.stop.is_set():
            self.stopped = "signal"

    def _mark_lost(self, now: float) -> None:
        silence = max(LOST_SECONDS, 3 * (self.options.interval or 0))
        for worker in self.workers.values():
            if worker.final is None and not worker.lost and now - worker.heard > silence:
                worker.lost = True
                self.tell(f"lost: {worker.name} (not heard of for {silence:.0f} s); its figures until then stay "
                          f"in the report")

    async def finish(self) -> None:
        """Tell the workers to stop (unless they are done), wait for their final reports, and leave or cancel
        the tournament as ``on_stop`` says."""
        if self.stopped is not None:
            await self.link.publish("stop", {"why": self.stopped})
        deadline = time.perf_counter() + DONE_SECONDS
        while any(w.final is None and not w.lost for w in self.workers.values()) and time.perf_counter() < deadline:
            await asyncio.sleep(0.2)
            self._mark_lost(time.perf_counter())
        self.summary = await summary_of(self.http, self.tournament, self.outage) or self.summary
        self.after = await self.settle()

    async def settle(self) -> str:
        """What becomes of the tournament at the run's end: one this run created is finished or cancelled, never
        left running; one it joined is left unless ``on_stop`` says cancel."""
        created = self.options.tournament is None
        if self.summary.get("status") not in ("running", "register") or not (created or self.stopped is not None):
            return str(self.summary.get("status", ""))
        return await left_behind(self.http, self.tournament, self.admin,
                                 self.options.on_stop or ("cancel" if created else "leave"))

    def report(self, wall: float | None = None) -> dict[str, Any]:
        """One report of every worker: each worker's final report (or, for one lost or not done yet, its report
        so far), with the rows the coordinator heard of."""
        reports = [{**(w.final or w.partial or empty_report(self.tournament)), "history": w.rows}
                   for w in self.workers.values()]
        report = merged_report(reports)
        if wall is not None:
            report["wall_s"] = round(wall, 2)
        report["shards"] = len(self.workers)
        report["workers"] = [{"name": w.name, "shard": w.shard, "lost": w.lost, "players": (w.final or w.partial
                              or {}).get("players", 0)} for w in self.workers.values()]
        report["workers_lost"] = [w.name for w in self.workers.values() if w.lost]
        report["finished"] = self.summary.get("status") == "finished"
        report["stopped"] = self.stopped
        report["aborted_by"] = self.aborted_by
        report["tournament_after"] = self.after
        report["started_at"] = time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(self.started_at))
        report["server_away"] = self.outage.report()
        report["interval_s"] = self.options.interval
        report["history"] = merged_history([w.rows for w in self.workers.values()], self.options.interval or 5.0)
        for row in report["history"]:
            away = self.outage.within(row["at"] - row["seconds"], row["at"])  # the coordinator's polls too
            row["server_away_s"] = round(max(row["server_away_s"], away), 3)
            if self.options.stages:  # the whole shape's target: a lost worker's share shows as missing
                row["target"] = round(target_at(self.options.stages, row["elapsed_s"]))
        return report


def empty_report(tournament: str) -> dict[str, Any]:
    """A worker that sent nothing yet."""
    return {"tournament": tournament, "wall_s": 0.0, "tables": 0, "finished": False, "swarm_cpu_percent": 0.0,
            "histograms": {"latency_ms": {}, "event_lag_ms": {}}, "latency_ms": {"max": 0.0},
            "event_lag_ms": {"max": 0.0}, "failures": []}


def live_of(report: dict[str, Any], elapsed: float) -> Live:
    latency = report["latency_ms"]
    return Live(players_left=report["history"][-1]["players_left"] if report["history"] else 0,
                tables=report["tables"], actions=report["actions"], actions_per_s=report["actions"] / (elapsed or 1),
                p50_ms=latency["p50"], p99_ms=latency["p99"], errors=report["errors"], wall_s=elapsed)


async def coordinate(options: SwarmOptions, nats_url: str, expect: int, run: str, secret: str, stop: asyncio.Event,
                     progress: Callable[[Live], None] | None = None,
                     sampled: Callable[[dict[str, Any]], None] | None = None,
                     metrics: SwarmMetrics | None = None,
                     tell: Callable[[str], None] | None = None,
                     written: Callable[[dict[str, Any]], object] | None = None,
                     max_wait: float | None = None) -> dict[str, Any]:
    """Run the coordinator to the end of the run; its one report. ``tell`` hears of workers joining and lost,
    ``written`` of the report so far at each new row; ``max_wait``: seconds the workers have to come."""
    client = await connected(nats_url, f"mttsim swarm coordinator {run}", options.wait_s)
    try:
        async with rest_client(addresses_of(options.url)) as http:
            coordinator = Coordinator(options, Link(client, run, secret), http, expect, stop, max_wait)
            coordinator.metrics = metrics
            coordinator.tell = tell or coordinator.tell
            coordinator.written = written
            if metrics is not None:
                metrics.run = metrics.run or run
            await coordinator.hear()
            beating = asyncio.create_task(coordinator.beat())
            try:
                await _coordinated(coordinator, progress, sampled)
            finally:
                beating.cancel()
            return coordinator.report()
    finally:
        await client.close()


async def _coordinated(coordinator: Coordinator, progress: Callable[[Live], None] | None,
                       sampled: Callable[[dict[str, Any]], None] | None) -> None:
    try:
        await coordinator.prepare()
    except (WorkersMissing, httpx.HTTPError):
        if coordinator.tournament and coordinator.options.tournament is None:  # never leave one made for nothing
            coordinator.stopped = "not_started"
            coordinator.summary = await summary_of(coordinator.http, coordinator.tournament,
                                                   coordinator.outage) or {"status": "register"}
            await coordinator.settle()
        raise
    if not coordinator.stop.is_set():
        await coordinator.watch(progress, sampled)
    else:
        coordinator.stopped = "signal"
    await coordinator.finish()


def options_of(plan: dict[str, Any], url: str | None) -> SwarmOptions:
    """A worker's options from the coordinator's plan (``url``: the server as this machine reaches it)."""
    fields = {**plan, "shard": tuple(plan["shard"]), "think": tuple(plan["think"]),
              "stages": [Stage(**stage) for stage in plan["stages"]] if plan["stages"] else None,
              "thresholds": []}
    if url:
        fields["url"] = url
    return SwarmOptions(**fields)


async def connected(url: str, name: str, wait_s: float) -> Client:
    """A NATS connection, waited for as long as the game server would be (``wait_s``, the swarm's one budget): nats-py
    tries a server again every second up to its reconnection attempts, at the first connection as after a drop, so
    those attempts are the budget. ConnectionError (an OSError, which the command reports as "could not run")
    naming the NATS server if none came."""
    async def said(error: Exception) -> None:  # one line, not nats-py's traceback at every attempt
        logger.warning("NATS at %s: %s", url, error or type(error).__name__)

    try:
        return await nats.connect(url, name=name, connect_timeout=5, allow_reconnect=True,
                                  max_reconnect_attempts=max(1, math.ceil(wait_s)), reconnect_time_wait=1.0,
                                  error_cb=said)
    except (nats.errors.Error, OSError) as error:
        raise ConnectionError(f"no NATS server at {url} in {wait_s:g} s (--wait-for-server): "
                              f"{error or type(error).__name__}") from error


def worker_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


async def work(nats_url: str, run: str, name: str, url: str | None, secret: str, stop: asyncio.Event,
               players: Collection[str] = (), wait_s: float = WAIT_SECONDS) -> dict[str, Any] | None:
    """A worker: hello until a plan comes, its share played from the coordinator's go to its stop, and its
    final report sent (and returned). None if stopped before a plan came; ``PlanRefused`` for a plan naming a
    player module not among ``players`` (the worker's own ``--player``); ``TurnedAway`` when the run has its
    workers; ConnectionError when no coordinator is heard of for ``wait_s`` before the plan; ``CoordinatorGone``
    when none is heard of for ``LOST_SECONDS`` once playing (its bots stopped first)."""
    client = await connected(nats_url, f"mttsim swarm worker {name}", wait_s)
    link = Link(client, run, secret)
    planned: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
    go = asyncio.Event()
    heard = Heard()

    async def on_plan(plan: dict[str, Any]) -> None:
        heard.now()
        if not planned.done():
            planned.set_result(plan)

    async def on_go(_: dict[str, Any]) -> None:
        heard.now()
        go.set()

    async def on_stop(_: dict[str, Any]) -> None:
        stop.set()

    async def on_beat(_: dict[str, Any]) -> None:
        heard.now()

    try:
        await link.subscribe(f"plan.{name}", on_plan)
        await link.subscribe("go", on_go)
        await link.subscribe("stop", on_stop)
        await link.subscribe("coordinator", on_beat)
        while not planned.done() and not stop.is_set():
            if heard.silent_for() > wait_s:
                raise ConnectionError(f"no coordinator of run {run!r} on {nats_url} answered in {wait_s:g} s "
                                      f"(--wait-for-server)")
            await link.publish("hello", {"worker": name})
            await asyncio.wait([planned], timeout=HELLO_SECONDS)
        if not planned.done():
            return None
        plan = planned.result()
        if "turned_away" in plan:
            raise TurnedAway(f"the coordinator of run {run!r} turned this worker away: {plan['turned_away']}")
        strangers = sorted(str(tag) for tag in plan.get("mix", {}) if ":" in str(tag) and tag not in players)
        if strangers:
            raise PlanRefused(f"the plan names players this worker was not started with: {', '.join(strangers)} "
                              f"(start it with --player {strangers[0]})")
        report = await _play(link, name, options_of(plan, url), go, stop, heard)
        await client.flush()
        if heard.gone:
            raise CoordinatorGone(f"the coordinator of run {run!r} was not heard of for {LOST_SECONDS:g} s: this "
                                  f"worker stopped its bots ({report['actions']} actions played)")
        return report
    finally:
        await client.close()


class Heard:
    """When the coordinator was last heard of, by a worker."""

    def __init__(self) -> None:
        self.at = time.monotonic()
        self.gone = False  # the worker stopped for the silence

    def now(self) -> None:
        self.at = time.monotonic()

    def silent_for(self) -> float:
        return time.monotonic() - self.at


async def _play(link: Link, name: str, options: SwarmOptions, go: asyncio.Event,
                stop: asyncio.Event, heard: Heard) -> dict[str, Any]:
    addresses = addresses_of(options.url)
    async with rest_client(addresses) as http:
        swarm = SwarmRun(options, http, addresses, stop)
        pending: set[asyncio.Task[None]] = set()

        def send(partial: dict[str, Any]) -> None:
            body = {"worker": name, "row": partial["history"][-1], "report": {**partial, "history": []}}
            task = asyncio.ensure_future(link.publish("row", body))
            pending.add(task)
            task.add_done_callback(pending.discard)

        swarm.written = send

        async def beat() -> None:
            while True:
                await link.publish("alive", {"worker": name})
                if heard.silent_for() > LOST_SECONDS:  # the coordinator's machine died, or its process
                    heard.gone = True
                    stop.set()
                await asyncio.sleep(ALIVE_SECONDS)

        beating = asyncio.create_task(beat())
        try:
            return await _played(link, name, swarm, go, stop)
        finally:
            beating.cancel()


async def _played(link: Link, name: str, swarm: SwarmRun, go: asyncio.Event,
                  stop: asyncio.Event) -> dict[str, Any]:
    """The worker's share: registered, played from the go, and its final report sent."""
    await swarm.enter()
    await link.publish("registered", {"worker": name, "bots": len(swarm.bots)})
    while not go.is_set() and not stop.is_set():
        await asyncio.sleep(0.05)
    swarm.start_the_clock()
    await swarm.play(None, None)
    await swarm.end()
    report = swarm.report()
    await link.publish("done", {"worker": name, "report": {**report, "history": []}, "row": report["history"][-1]})
    return report
