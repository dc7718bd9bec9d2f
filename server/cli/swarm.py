"""``mttsim swarm`` and ``mttsim swarm-merge``: load-test a server with websocket bots, and one report of a run's
shards (docs/swarm.md)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from bots.strategies import parse_mix
from server.cli.common import allow_many_sockets, command, logging_options, quiet_garbage_collector, read_definition

if TYPE_CHECKING:
    from collections.abc import Callable

    from bots.otlp import OtlpPush
    from bots.swarm import Live, SwarmOptions
    from bots.swarmmetrics import SwarmMetrics
    from bots.thresholds import Threshold

EXAMPLE = ("  mttsim swarm --create --admin-token secret --players 1000 --csv run --html run.html\n"
           "  mttsim swarm --tournament t1 --players 500 --duration 300 \\\n"
           "      --threshold 'latency.p99<100ms' --threshold 'errors==0'    # exit 99 if one fails")

MERGE_EXAMPLE = "  mttsim swarm-merge shard0.json shard1.json --csv run --html run.html"


WORKER_EXAMPLE = ("  mttsim swarm-worker --coordinator nats://127.0.0.1:4333  # each machine, MTTSIM_SWARM_SECRET set\n"
                  "  mttsim swarm --coordinate nats://127.0.0.1:4333 --expect-workers 4 --create \\\n"
                  "      --admin-token secret --players 20000 --url http://server:8000 --html run.html")


def add(commands: Any) -> None:
    add_swarm(commands)
    add_merge(commands)
    add_worker(commands)


def add_swarm(commands: Any) -> None:
    parser = command(commands, "swarm", EXAMPLE, "load-test a server with websocket bots; exit 99 when a threshold "
                     "fails (docs/swarm.md)")
    parser.add_argument("--url", default="http://127.0.0.1:8000",
                        help="the server, or a cluster's gateways separated by commas: the bots spread over "
                             "them, and a bot whose gateway is gone goes on to the next")
    parser.add_argument("--players", type=int, required=True, help="bots (across every shard)")
    parser.add_argument("--tournament", help="join this tournament (its id)")
    parser.add_argument("--create", action="store_true", help="create the tournament (needs --admin-token)")
    parser.add_argument("--config", help="with --create: a definition file (default: the default structure)")
    parser.add_argument("--admin-token", help="the server's admin token: to create, start and cancel")
    parser.add_argument("--mix", help="strategies and faults with weights: regular=4,random=1,slow=1,flaky=1,"
                                      "rude=1, and players of your own as module.path:Name=10 (default: regular=1)")
    parser.add_argument("--think", help="seconds a bot thinks, MIN-MAX (default: 0-0)")
    parser.add_argument("--shard", help="I/N: this process plays every N-th bot, starting at I (default: 0/1)")
    parser.add_argument("--seed", type=int, help="the bots' seed (default: a new one)")
    report_options(parser)
    parser.add_argument("--threshold", action="append", metavar="EXPR",
                        help="pass/fail, several allowed: latency.p99<100ms, event_lag.p99<250ms, errors==0, "
                             "missed_deadlines<=5, finished (default: errors==0 and finished; with "
                             "--duration errors==0); exit 99 when one fails")
    parser.add_argument("--duration", type=float, metavar="SECONDS",
                        help="stop after this many seconds of play, report, and cancel or leave the "
                             "tournament (--on-stop)")
    parser.add_argument("--on-stop", choices=["cancel", "leave"],
                        help="what a run stopped early (--duration, Ctrl-C, SIGTERM) does with the "
                             "tournament (default: cancel one it created, leave one it joined)")
    parser.add_argument("--interval", type=float, default=5.0, metavar="SECONDS",
                        help="seconds between the rows of the time series")
    parser.add_argument("--late", type=int, default=0,
                        help="more bots (per shard) that register while late registration is open")
    parser.add_argument("--reentry", type=float, default=0.0,
                        help="the chance a bot that is out re-enters while re-entry is open")
    shape_options(parser)
    parser.add_argument("--metrics-port", type=int, metavar="PORT",
                        help="serve the swarm's own measures as Prometheus metrics at :PORT/metrics (0: any free "
                             "port, printed)")
    parser.add_argument("--metrics-host", default="127.0.0.1",
                        help="the address /metrics listens on (0.0.0.0 for a Prometheus elsewhere)")
    parser.add_argument("--otlp", metavar="URL",
                        help="push the swarm's metrics (those of /metrics) at each row to this OTLP/HTTP endpoint "
                             "(an OpenTelemetry collector, Prometheus' OTLP receiver): http://127.0.0.1:4318")
    parser.add_argument("--run-name", help="the run label of the metrics (default: the tournament's id), and "
                        "with --coordinate the run its workers join (default: swarm)")
    parser.add_argument("--coordinate", metavar="NATS_URL",
                        help="play no bot: coordinate mttsim swarm-worker processes joined over this NATS server, "
                             "which share the bots, start together and send their figures here for one report")
    parser.add_argument("--expect-workers", type=int, default=1, metavar="N",
                        help="with --coordinate: the workers to wait for before the run starts")
    parser.add_argument("--expect-workers-max-wait", type=float, metavar="SECONDS",
                        help="with --coordinate: give up (exit 3) when the workers have not all come by then "
                             "(default: --wait-for-server)")
    parser.add_argument("--away-limit", type=float, default=5.0, metavar="SECONDS",
                        help="the run fails (exit 99) when its server was away longer than this in all, however "
                             "it came back: the check 'the server answered throughout'")
    wait_option(parser)
    logging_options(parser)
    parser.set_defaults(run=swarm)


def wait_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--wait-for-server", type=float, default=120.0, metavar="SECONDS",
                        help="the one budget for what is away: a server (the bots retry it with backoff), the "
                             "run's NATS, the coordinator for a worker, the workers for a coordinator")


def add_worker(commands: Any) -> None:
    parser = command(commands, "swarm-worker", WORKER_EXAMPLE, "play a share of a coordinated swarm run: join the "
                     "coordinator over NATS and play what it plans (docs/swarm.md)")
    parser.add_argument("--coordinator", metavar="NATS_URL", required=True, help="the NATS server of the run")
    parser.add_argument("--run-name", default="swarm", help="the run to join (the coordinator's --run-name)")
    parser.add_argument("--name", help="this worker's name (default: host and process id)")
    parser.add_argument("--url", help="the server as this machine reaches it (default: the coordinator's --url)")
    parser.add_argument("--json", action="store_true", help="print this worker's own report as JSON at the end")
    parser.add_argument("--player", action="append", default=[], metavar="MODULE:NAME",
                        help="a player of your own this worker may play when the plan's mix names it (repeat for "
                             "more); a plan naming any other is refused, and nothing of it is imported")
    wait_option(parser)
    logging_options(parser)
    parser.set_defaults(run=swarm_worker)


def shape_options(parser: argparse.ArgumentParser) -> None:
    """The load's shape and the load that is not a player (docs/swarm.md)."""
    parser.add_argument("--stages", metavar="STAGES",
                        help="the bots connected over time, as k6's stages: 30s:100,2m:1000,30s:0 or a JSON "
                             "file of them; the others are away (the clock acts for them); --duration defaults "
                             "to their total")
    parser.add_argument("--spawn-rate", type=float, metavar="BOTS/S",
                        help="bots that connect a second from the start, as Locust's spawn rate")
    parser.add_argument("--arrival-rate", type=float, metavar="N/S",
                        help="registrations a second, sent at their moment whether the ones before are "
                             "answered or not (k6's arrival rate), before the start and late (--late)")
    parser.add_argument("--warmup", type=float, default=0.0, metavar="SECONDS",
                        help="the first seconds of play, left out of the latency and event-lag figures")
    parser.add_argument("--observers", type=int, default=0,
                        help="spectators watching the tables over websockets (their own row: watch)")
    parser.add_argument("--lobby", type=int, default=0,
                        help="lobby pages reading the tournament list every --lobby-every seconds (their own "
                             "row: GET /api/tournaments)")
    parser.add_argument("--lobby-every", type=float, default=2.0, metavar="SECONDS",
                        help="seconds between a lobby page's reads")


def add_merge(commands: Any) -> None:
    parser = command(commands, "swarm-merge", MERGE_EXAMPLE, "one report of the --json reports of a run's shards")
    parser.add_argument("reports", nargs="+", metavar="REPORT.json", help="the shards' reports")
    report_options(parser)
    parser.add_argument("--threshold", action="append", metavar="EXPR",
                        help="pass/fail on the whole run, as mttsim swarm's (default: errors==0 and finished)")
    parser.set_defaults(run=swarm_merge)


def report_options(parser: argparse.ArgumentParser) -> None:
    """What a run leaves behind, beside its exit code."""
    parser.add_argument("--csv", metavar="PREFIX",
                        help="write PREFIX_stats.csv, PREFIX_stats_history.csv and PREFIX_failures.csv "
                             "(Locust's files and columns), rewritten at every row of the time series")
    parser.add_argument("--html", metavar="FILE", help="write one self-contained report with charts")
    parser.add_argument("--summary-export", metavar="FILE", help="write the whole report as JSON (as --json prints "
                        "it), beside the lines of the log")
    parser.add_argument("--junit", metavar="FILE", help="write the thresholds as a JUnit XML test suite, one test "
                        "case each, for a pipeline's test report")
    parser.add_argument("--json", action="store_true", help="print the whole report as JSON")


def _options(args: argparse.Namespace) -> tuple[SwarmOptions, list[Threshold]]:
    """The run the options ask for, and its thresholds; ValueError or OSError naming what is wrong."""
    from bots import shapes, thresholds
    from bots.client import FAULTS
    from bots.strategies import STRATEGIES
    from bots.swarm import SwarmOptions

    mix = parse_mix(args.mix, [*STRATEGIES, *FAULTS], custom=True) if args.mix else None
    low, _, high = (args.think or "0-0").partition("-")
    shard, _, shards = (args.shard or "0/1").partition("/")
    shard_of = (int(shard), int(shards))
    if not 0 <= shard_of[0] < shard_of[1]:
        raise ValueError("--shard I/N needs 0 <= I < N")
    if (args.tournament is None) == (not args.create):
        raise ValueError("give exactly one of --tournament ID or --create")
    if args.interval <= 0:
        raise ValueError("--interval: a number of seconds above 0")
    definition = msgspec.to_builtins(read_definition(Path(args.config))) if args.config else None
    stages = shapes.parse_stages(args.stages) if args.stages else \
        shapes.spawning(args.players, args.spawn_rate) if args.spawn_rate is not None else None
    if args.stages and args.spawn_rate is not None:
        raise ValueError("give --stages or --spawn-rate, not both")
    if stages and max(stage.target for stage in stages) > args.players:
        raise ValueError(f"--stages asks for more bots than --players {args.players}")
    if args.arrival_rate is not None and args.arrival_rate <= 0:
        raise ValueError("--arrival-rate: registrations a second, above 0")
    if min(args.warmup, args.observers, args.lobby) < 0 or args.lobby_every <= 0:
        raise ValueError("--warmup, --observers and --lobby are at least 0, --lobby-every above 0")
    # a run of stages ends with them (k6), a spawn rate holds its bots to the end
    duration = shapes.total_seconds(stages) if args.stages and args.duration is None and stages else args.duration
    if args.wait_for_server <= 0 or args.away_limit < 0:
        raise ValueError("--wait-for-server: seconds above 0; --away-limit: seconds, 0 or more")
    checks = [thresholds.parse(text) for text in (args.threshold or thresholds.defaults(
        stopping=duration is not None, coordinated=bool(args.coordinate)))]
    options = SwarmOptions(url=args.url.rstrip("/"), players=args.players, tournament=args.tournament,
                           definition=definition, admin_token=args.admin_token, think=(float(low), float(high or low)),
                           shard=shard_of, seed=args.seed, late=args.late, reentry=args.reentry,
                           duration=duration, interval=args.interval, on_stop=args.on_stop, thresholds=checks,
                           stages=stages, arrival_rate=args.arrival_rate, warmup=args.warmup,
                           observers=args.observers, lobby=args.lobby, lobby_every=args.lobby_every,
                           wait_s=args.wait_for_server)
    if mix:
        options.mix = mix
    return options, checks


def _live_line(live: Live) -> None:
    """On a terminal, the run so far on one line rewritten in place."""
    sys.stderr.write(f"\r{live.players_left:>6} players left | {live.tables:>5} tables | "
                     f"{live.actions_per_s:>7,.0f} actions/s | p50 {live.p50_ms:6.1f} ms p99 {live.p99_ms:6.1f} ms"
                     f" | {live.errors} errors ")
    sys.stderr.flush()


def _row_line(row: dict[str, Any]) -> None:
    """Without a terminal (a pipeline's log), a plain line per row of the time series."""
    from bots.histogram import percentiles

    p50, p99 = percentiles(row["latency_ms"], (0.5, 0.99))
    print(f"mttsim swarm: {row['elapsed_s']:.0f} s: {row['players_left']} players left, {row['users']} bots "
          f"connected, {row['actions'] / (row['seconds'] or 1):,.0f} actions/s, latency p50 {p50} ms p99 {p99} "
          f"ms, {row['errors']} errors, {row['reconnections']} reconnections", file=sys.stderr, flush=True)


async def _coordinated(args: argparse.Namespace, options: SwarmOptions, stop: asyncio.Event, terminal: bool,
                       rows: Callable[[dict[str, Any]], None] | None, metrics: SwarmMetrics | None) -> dict[str, Any]:
    """``mttsim swarm --coordinate``: the run's secret (made and printed when the environment has none), and the
    coordinator's run to its one report."""
    import os
    import secrets

    from bots.coordinator import SECRET_ENV, coordinate
    from bots.loadreport import write_csvs

    print(f"mttsim swarm: waiting for {args.expect_workers} workers on {args.coordinate}", file=sys.stderr,
          flush=True)
    secret = os.environ.get(SECRET_ENV) or secrets.token_urlsafe(24)
    if SECRET_ENV not in os.environ:
        print(f"mttsim swarm: the run's secret, for every worker: export {SECRET_ENV}={secret}", file=sys.stderr,
              flush=True)
    return await coordinate(options, args.coordinate, args.expect_workers, args.run_name or "swarm", secret, stop,
                            _live_line if terminal else None, rows, metrics,
                            lambda said: print(f"mttsim swarm: {said}", file=sys.stderr, flush=True),
                            (lambda partial: write_csvs(args.csv, partial)) if args.csv else None,
                            args.expect_workers_max_wait)


def swarm(args: argparse.Namespace) -> int:
    """Load-test a server with bots over the wire (``mttsim swarm``); the exit code says whether the thresholds
    passed (docs/swarm.md)."""
    import signal

    import httpx
    import uvloop

    from bots import thresholds
    from bots.loadreport import StreamedCsvs
    from bots.swarm import run_swarm

    on_the_plugin_path()
    try:
        options, checks = _options(args)
    except (OSError, ValueError) as error:
        print(f"mttsim swarm: {error}", file=sys.stderr)
        return thresholds.USAGE
    terminal = sys.stderr.isatty() and not args.json

    async def run() -> dict[str, Any]:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):  # the report is written with what was measured
            loop.add_signal_handler(number, stop.set)
        metrics, pusher = _metrics_out(args)
        rows = None if terminal or args.json else _row_line
        try:
            if args.coordinate:
                return await _coordinated(args, options, stop, terminal, rows, metrics)
            return await run_swarm(options, _live_line if terminal else None, stop, rows,
                                   StreamedCsvs(args.csv) if args.csv else None, metrics)
        finally:
            if pusher is not None:
                pushed.update(await pusher.close())

    pushed: dict[str, object] = {}
    quiet_garbage_collector()
    allow_many_sockets()
    try:
        report = uvloop.run(run())
    except (httpx.HTTPError, OSError) as error:
        # every file is still written: a pipeline's test tab says the run could not start, and why
        report = unrun_report(could_not_run(error, args.url), options)
    if pushed:
        report["otlp"] = pushed
    if terminal:
        sys.stderr.write("\n")
    return _swarm_outcome(args, report, checks, "swarm")


def _metrics_out(args: argparse.Namespace) -> tuple[SwarmMetrics | None, OtlpPush | None]:
    """The swarm's metrics, if they go anywhere: served for a scrape (``--metrics-port``), pushed (``--otlp``)."""
    import os

    from bots.otlp import OtlpPush
    from bots.swarmmetrics import SwarmMetrics, serve

    if args.metrics_port is None and not args.otlp:
        return None, None
    metrics = SwarmMetrics(args.run_name or "")
    if args.metrics_port is not None:
        port = serve(metrics, args.metrics_host, args.metrics_port)
        print(f"mttsim swarm: metrics at http://{args.metrics_host}:{port}/metrics", file=sys.stderr, flush=True)
    pusher = OtlpPush(args.otlp, metrics, str(os.getpid())) if args.otlp else None
    if pusher is not None:
        metrics.listeners.append(pusher.push)
    return metrics, pusher


def _swarm_outcome(args: argparse.Namespace, report: dict[str, Any], checks: list[Threshold], command: str) -> int:
    """Check the thresholds, write what was asked for (CSVs, the HTML report, JSON or a summary), and say with
    the exit code how the run went."""
    from bots import thresholds
    from bots.loadreport import identity, write_csvs, write_html

    report["thresholds"] = [*thresholds.check(checks, report),
                            thresholds.answered(report, getattr(args, "away_limit", thresholds.AWAY_LIMIT_SECONDS))]
    report["exit_code"], report["verdict"] = thresholds.verdict(report)
    report["run"] = identity(command, sys.argv[2:])
    if args.csv:
        write_csvs(args.csv, report)
    if args.summary_export:
        Path(args.summary_export).write_bytes(msgspec.json.encode(report))
    if args.junit:
        Path(args.junit).write_text(thresholds.junit(report, f"mttsim {command}"))
    if args.html:
        write_html(args.html, report, {key: value for key, value in sorted(vars(args).items())
                                       if key not in ("run", "admin_token") and value is not None})
    if args.json:
        print(msgspec.json.encode(report).decode())
    else:
        latency = report["latency_ms"]
        shards = f"{report['shards']} shards, " if "shards" in report else ""
        print(f"{shards}{report['players']} bots, {report['actions']:,} actions in {report['wall_s']} s "
              f"({report['actions_per_s']:,} actions/s); latency p50 {latency['p50']} ms, p99 {latency['p99']} ms; "
              f"{report['errors']} errors, {report['missed_deadlines']} missed deadlines, "
              f"{report['reconnections']} reconnections ({report['failovers']} to another gateway); "
              f"swarm CPU {report['swarm_cpu_percent']}%; finished: {report['finished']}")
        if report.get("late_registrations") or report.get("reentries"):
            print(f"{report['late_registrations']} late registrations ({report['late_refused']} found it closed), "
                  f"{report['reentries']} re-entries")
        if report.get("stopped"):
            why = {"duration": "the --duration", "signal": "a signal", "server_lost": "the server gone",
                   "aborted": f"the threshold {report.get('aborted_by')}"}.get(report["stopped"], report["stopped"])
            print(f"stopped by {why}; the tournament: {report['tournament_after']}")
        for check in report["thresholds"]:
            print(f"threshold {check['threshold']}: {'passed' if check['passed'] else 'FAILED'} "
                  f"({check['actual']}{(' ' + check['unit']) if check.get('unit') else ''})")
    if report["exit_code"] != thresholds.OK:
        print(f"mttsim {command}: {report['verdict']}", file=sys.stderr)
    code: int = report["exit_code"]
    return code


def on_the_plugin_path() -> None:
    """The current directory is where a user's players are (``--mix mybots:Player``), as for ``python -m``, also
    when the command runs from the installed script."""
    import os

    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())


def could_not_run(error: Exception, url: str) -> str:
    """Why the swarm could not run, naming the address that failed: an error of our own (the run's NATS, its
    workers) names its own; an HTTP one, the game server's."""
    import httpx

    return f"could not run: {error}" if not isinstance(error, httpx.HTTPError) else \
        f"could not run against {url}: {error}"


def unrun_report(why: str, options: SwarmOptions) -> dict[str, Any]:
    """The report of a run that could not start: nothing measured, and why."""
    from bots.client import Measured
    from bots.swarm import report_of

    report = report_of(0, Measured(), options.tournament or "", {}, 0.0, 0.0)
    report.update(could_not_run=why, server_away={"times": 0, "seconds": 0, "longest": 0, "at_the_end": False},
                  stopped=None, aborted_by="", tournament_after="", interval_s=options.interval, history=[])
    return report


def swarm_merge(args: argparse.Namespace) -> int:
    """One report of the shards of one swarm run (``mttsim swarm-merge``): counts added, percentiles from the
    merged histograms (bots/histogram.py), the time series merged, the CSVs and report written from them, and
    the thresholds checked on the whole run."""
    from bots import thresholds
    from bots.loadreport import merged_report

    try:
        checks = [thresholds.parse(text) for text in (args.threshold or thresholds.defaults(stopping=False))]
        reports = [json.loads(Path(path).read_text()) for path in args.reports]
        report = merged_report(reports)
    except KeyError as missing:
        print(f"mttsim swarm-merge: a report has no {missing}: give the --json reports of mttsim swarm",
              file=sys.stderr)
        return thresholds.USAGE
    except (OSError, ValueError) as error:
        print(f"mttsim swarm-merge: {error}", file=sys.stderr)
        return thresholds.USAGE
    return _swarm_outcome(args, report, checks, "swarm-merge")


def swarm_worker(args: argparse.Namespace) -> int:
    """Play a share of a coordinated run (``mttsim swarm-worker``): the coordinator checks the thresholds and
    writes the report; a worker's exit code says only whether it could play."""
    import signal

    import httpx
    import uvloop

    import os

    from bots import thresholds
    from bots.coordinator import SECRET_ENV, CoordinatorGone, PlanRefused, work, worker_name

    on_the_plugin_path()
    secret = os.environ.get(SECRET_ENV)
    if not secret:
        print(f"mttsim swarm-worker: {SECRET_ENV} is not set: the run's secret, which the coordinator printed "
              "(or was given), signs every message of the run", file=sys.stderr)
        return thresholds.USAGE

    async def run() -> dict[str, Any] | None:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(number, stop.set)
        return await work(args.coordinator, args.run_name, args.name or worker_name(), args.url, secret, stop,
                          args.player, args.wait_for_server)

    quiet_garbage_collector()
    allow_many_sockets()
    try:
        report = uvloop.run(run())
    except PlanRefused as error:
        print(f"mttsim swarm-worker: {error}", file=sys.stderr)
        return thresholds.USAGE
    except CoordinatorGone as error:
        print(f"mttsim swarm-worker: {error}", file=sys.stderr)
        return thresholds.SERVER_LOST
    except (httpx.HTTPError, OSError) as error:
        print(f"mttsim swarm-worker: could not run: {error}", file=sys.stderr)
        return thresholds.COULD_NOT_RUN
    if report is None:
        print("mttsim swarm-worker: stopped before the coordinator gave a plan", file=sys.stderr)
        return thresholds.CUT_SHORT
    if args.json:
        print(msgspec.json.encode(report).decode())
    return thresholds.OK
