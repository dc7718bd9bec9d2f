"""mttsim: a real-time multi-table No-Limit Hold'em tournament simulator. Play-test a tournament's rules live in a
browser, simulate its structure in accelerated time, and load-test the server with swarms of bots."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import logging
import os
import random
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import msgspec

from bots.lab import Field, estimate, lab, lab_summary, schedule_text
from bots.lab import write_html as write_lab_html
from bots.playstats import Counts, CountingWriter, hands_of
from bots.playstats import table as stats_table
from bots.simulator import Progress, Report, simulate
from bots.strategies import parse_mix
from engine.structure import (
    Definition, DefinitionError, Speed, default_definition, generate_structure, load_definition, structure_hours,
)
from server.cluster.local import NATS_ENV, shown

if TYPE_CHECKING:
    from bots.thresholds import Threshold


def demo(args: argparse.Namespace) -> int:
    """Start the server with a bot-filled tournament to watch in a browser (``mttsim demo``)."""
    import asyncio

    from server.demo import run_demo

    allow_many_sockets()
    try:
        asyncio.run(run_demo(args.host, args.port, args.players, args.seats, (args.think_min, args.think_max),
                             args.hand_pause, args.seed))
    except KeyboardInterrupt:
        pass
    return 0


def _definition(args: argparse.Namespace) -> Definition:
    """The tournament to simulate: a definition file, or the default structure for --players."""
    if args.config:
        path = Path(args.config)
        definition = load_definition(path.read_bytes(), toml=path.suffix.lower() == ".toml")
    else:
        definition = default_definition(args.players or 1000)
    if args.seats is not None:
        definition = msgspec.structs.replace(definition, seats_per_table=args.seats)
        if not 2 <= args.seats <= 10:
            raise ValueError("--seats must be 2 to 10")
    return definition


def _progress_line(progress: Progress) -> None:
    rate = progress.hands / progress.wall_s if progress.wall_s else 0.0
    done = (progress.players - progress.players_left) / max(progress.players - 1, 1)
    bar = "#" * round(20 * done)
    sys.stderr.write(f"\r[{bar:<20}] {progress.players_left:>7} players left | level {progress.level:>2} | "
                     f"{progress.tables:>5} tables | {progress.hands:>8} hands | {rate:>8,.0f} hands/s ")
    sys.stderr.flush()


def _summary(report: Report, definition: Definition, seed: int) -> str:
    lines = [
        f"{definition.name}: {report.players} players, seed {seed}",
        f"{report.hands:,} hands in {report.wall_s:.2f} s ({report.hands_per_s:,.0f} hands/s), "
        f"{report.simulated_hours:.1f} simulated hours",
        f"{report.tables_broken} tables broken, {report.moves} players moved, "
        f"hand-for-hand at {', '.join(map(str, report.hand_for_hand_at)) or 'none'} players left",
        "money: " + ", ".join(f"{name.replace('_', ' ')} ${report.money[name] / 100:,.2f}"
                              for name in ("paid_in", "prizes", "bounties", "refunds", "fees_kept"))
        + f"; {report.money['rebuys']} re-buys, {report.money['add_ons']} add-ons",
    ]
    if definition.late_registration or definition.reentry:
        lines.append(f"{report.late_registrations} late registrations, {report.reentries} re-entries "
                     f"({len(report.results)} entries in all)")
    paid = [r for r in report.results if r["prize_cents"] > 0]
    for result in paid[:10]:
        lines.append(f"  {result['place']:>4}. {result['player']:<12} ${result['prize_cents'] / 100:,.2f}")
    if len(paid) > 10:
        lines.append(f"  ... {len(paid) - 10} more paid places")
    return "\n".join(lines)


def simulate_command(args: argparse.Namespace) -> int:
    """Play a whole tournament with bots in accelerated time (``mttsim simulate``)."""
    try:
        definition = _definition(args)
        mix = parse_mix(args.mix) if args.mix else None
    except (OSError, ValueError) as error:
        print(f"mttsim simulate: {error}", file=sys.stderr)
        return 2
    players = args.players if args.players is not None else definition.max_players
    if not 2 <= players <= definition.max_players:
        print(f"mttsim simulate: --players must be 2 to max_players ({definition.max_players})", file=sys.stderr)
        return 2
    late = args.late if args.late is not None else players // 10 if definition.late_registration else 0
    reentry = args.reentry if args.reentry is not None else 0.5 if definition.reentry else 0.0
    if late < 0 or not 0 <= reentry <= 1:
        print("mttsim simulate: --late is a number of entries, --reentry a probability from 0 to 1", file=sys.stderr)
        return 2
    per_person = args.entries_per_person
    if per_person < 1 or per_person > 1 and per_person > (definition.entries_per_person or 1):
        print(f"mttsim simulate: --entries-per-person is at least 1 and at most the definition's entries_per_person "
              f"({definition.entries_per_person or 1})", file=sys.stderr)
        return 2
    # botK belongs to person K // N (rounded up): the events name entries, and who holds which follows from this
    people = {f"bot{number}": f"person{(number - 1) // per_person + 1}"
              for number in range(1, players + late + 1)} if per_person > 1 else None
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    if args.runs is not None or args.report:
        if people is not None:
            print("mttsim simulate: --entries-per-person plays one run, not the lab's --runs", file=sys.stderr)
            return 2
        return _lab(args, definition, Field(players, mix, late, reentry), seed)
    show_progress = sys.stderr.isatty() and not args.json
    strategies: dict[str, str] = {}
    counted = CountingWriter(strategies, args.deep or None) if args.stats else None
    with contextlib.ExitStack() as files:
        events_out = files.enter_context(open(args.events_out, "wb")) if args.events_out else None
        hands_out = files.enter_context(open(args.hands_out, "w", encoding="utf-8")) if args.hands_out else None
        if counted is not None:
            counted.also = hands_out
        report = simulate(definition, players, seed, mix=mix, events_out=events_out,
                          hands_out=counted if counted is not None else hands_out,
                          progress=_progress_line if show_progress else None, late_players=late,
                          reentry_probability=reentry, strategies=strategies, people=people)
    if show_progress:
        sys.stderr.write("\n")
    if args.json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
    else:
        print(_summary(report, definition, seed))
    if counted is not None:
        _print_stats(counted.counts, as_json=args.json)
    return 0


def _lab(args: argparse.Namespace, definition: Definition, field: Field, seed: int) -> int:
    """``mttsim simulate --runs N``: N seeds from --seed on, the distribution over them, and the report."""
    runs = args.runs or 1
    if runs < 1 or (args.jobs is not None and args.jobs < 1):
        print("mttsim simulate: --runs and --jobs are numbers from 1", file=sys.stderr)
        return 2
    if args.events_out or args.hands_out:
        print("mttsim simulate: --events-out and --hands-out write one run: leave out --runs", file=sys.stderr)
        return 2
    report = lab(definition, field, range(seed, seed + runs), jobs=args.jobs)
    if args.report:
        settings = {"players": field.players, "runs": runs, "seeds": f"{seed} to {seed + runs - 1}",
                    "config": args.config or "the default structure", "mix": args.mix or "the default mix",
                    "late entries": field.late, "re-entry chance": field.reentry}
        write_lab_html(args.report, report, settings)
    if args.json:
        sys.stdout.write(msgspec.json.encode(report).decode() + "\n")
    else:
        print(lab_summary(report))
        if args.report:
            print(f"report: {args.report}")
    return 0


def serve(args: argparse.Namespace) -> int:
    """Run the real-time server (``mttsim serve``); prints the admin token when it makes one."""
    import secrets

    import uvicorn

    from server.api.app import create_app, uvicorn_websockets
    from server.api.edge import Settings

    quiet_garbage_collector()
    allow_many_sockets()
    if args.role == "tables":
        return table_worker(args)
    if args.role == "gateway":
        return gateway(args)
    token = args.admin_token or secrets.token_urlsafe(24)
    if not args.admin_token:
        print(f"admin token: {token}", flush=True)
    reachable = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    if args.nats:
        from server.cluster.director import join
    app = create_app(Settings(admin_token=token, hand_pause=args.hand_pause, db=None if args.memory else args.db,
                              ws_url=f"ws://{reachable}:{args.port}", broadcast_tick=args.broadcast_tick,
                              nats=args.nats), join_cluster=join if args.nats else None)
    if args.metrics_port is not None:
        from prometheus_client import start_http_server

        start_http_server(args.metrics_port, addr="127.0.0.1", registry=app.state.server.metrics.registry)
    role = f"the director of the cluster at {shown(args.nats)}" if args.nats else "mttsim"
    print(f"{role} serving on http://{args.host}:{args.port}/"
          f" ({'nothing kept' if args.memory else f'journal: {args.db}'})", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, loop="uvloop", **uvicorn_logging(args), **uvicorn_websockets())
    return 0


def gateway(args: argparse.Namespace) -> int:
    """``mttsim serve --nats URL --role gateway``: the REST API, websockets and web client in front of the
    cluster's director."""
    import uvicorn

    from server.api.app import uvicorn_websockets
    from server.api.edge import Settings
    from server.cluster.gateway import create_gateway

    if not (args.nats and args.admin_token):
        print("--role gateway needs --nats URL and the cluster's --admin-token", file=sys.stderr)
        return 2
    reachable = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    app = create_gateway(Settings(admin_token=args.admin_token, nats=args.nats), f"http://{reachable}:{args.port}")
    print(f"gateway of the cluster at {shown(args.nats)} serving on http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, loop="uvloop", **uvicorn_logging(args), **uvicorn_websockets())
    return 0


def cluster(args: argparse.Namespace) -> int:
    """``mttsim cluster``: NATS, a director, table workers and gateways on this machine (server/cluster/local.py)."""
    from server.cluster import local as localcluster

    return localcluster.run(args)


def table_worker(args: argparse.Namespace) -> int:
    """``mttsim serve --nats URL --role tables``: play the cluster's tables until stopped (SIGTERM lets go of
    the leases at once; SIGKILL leaves them to expire)."""
    import signal

    import uvloop

    from server.cluster.worker import work

    if not args.nats:
        print("--role tables needs --nats URL", file=sys.stderr)
        return 2

    async def until_stopped() -> None:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        print(f"table worker on the cluster at {shown(args.nats)}", flush=True)
        try:
            await work(args.nats, args.metrics_port)
        except asyncio.CancelledError:
            pass

    uvloop.run(until_stopped())
    return 0


LOG_LEVELS = ("debug", "info", "warning", "error")


class JsonLines(logging.Formatter):
    """A record as one JSON object a line (``--log-json``), for a log collector."""

    def format(self, record: logging.LogRecord) -> str:
        entry = {"time": round(record.created, 3), "level": record.levelname.lower(), "logger": record.name,
                 "message": record.getMessage()}
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return msgspec.json.encode(entry).decode()


def log_handler(json_lines: bool) -> logging.Handler:
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(JsonLines() if json_lines else logging.Formatter("%(asctime)s %(levelname)s %(name)s: "
                                                                          "%(message)s"))
    return handler


def set_up_logging(args: argparse.Namespace) -> None:
    """``--log-level`` and ``--log-json`` for mttsim's own loggers (and what they pass on to the root)."""
    logging.basicConfig(level=args.log_level.upper(), handlers=[log_handler(args.log_json)], force=True)


def uvicorn_logging(args: argparse.Namespace) -> dict[str, Any]:
    """uvicorn's logs at the same level and in the same form; its access log (a line per request) at info."""
    handler = {"()": "server.cli.log_handler", "json_lines": args.log_json}
    config = {"version": 1, "disable_existing_loggers": False, "handlers": {"stderr": handler},
              "loggers": {name: {"handlers": ["stderr"], "level": args.log_level.upper(), "propagate": False}
                          for name in ("uvicorn", "uvicorn.error", "uvicorn.access")}}
    return {"log_config": config, "log_level": args.log_level,
            "access_log": args.log_level in ("debug", "info")}


def allow_many_sockets() -> None:
    """Raise the soft limit on open files to the hard one: a server holds a socket per client and a swarm one per
    bot, and many systems start a process at 1,024 of a hard limit far above it. (A limit of 20,000, soft and
    hard, is what kept this machine's benchmarks from fields of 20,000, docs/performance.md.)"""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
        except (ValueError, OSError):  # a hard limit the kernel will not give as a soft one (unlimited, on macOS)
            pass


def quiet_garbage_collector() -> None:
    """Fewer, later collections. With thousands of connections the default thresholds trigger full
    collections that stall the event loop for tens of milliseconds; a live server's objects are
    long-lived, and the chips never form cycles that need prompt freeing."""
    import gc

    gc.freeze()
    gc.set_threshold(100_000, 50, 1000)


def swarm(args: argparse.Namespace) -> int:
    """Load-test a server with bots over the wire (``mttsim swarm``); the exit code says whether the thresholds
    passed (docs/swarm.md)."""
    import signal

    import httpx
    import uvloop

    from bots import thresholds
    from bots.client import FAULTS
    from bots.strategies import STRATEGIES
    from bots.swarm import Live, SwarmOptions, run_swarm

    try:
        mix = parse_mix(args.mix, [*STRATEGIES, *FAULTS]) if args.mix else None
        low, _, high = (args.think or "0-0").partition("-")
        think = (float(low), float(high or low))
        shard, _, shards = (args.shard or "0/1").partition("/")
        shard_of = (int(shard), int(shards))
        if not 0 <= shard_of[0] < shard_of[1]:
            raise ValueError("--shard I/N needs 0 <= I < N")
        if (args.tournament is None) == (not args.create):
            raise ValueError("give exactly one of --tournament ID or --create")
        if args.interval <= 0:
            raise ValueError("--interval: a number of seconds above 0")
        checks = [thresholds.parse(text) for text in
                  (args.threshold or thresholds.defaults(stopping=args.duration is not None))]
        definition = None
        if args.config:
            path = Path(args.config)
            definition = msgspec.to_builtins(load_definition(path.read_bytes(), toml=path.suffix.lower() == ".toml"))
    except (OSError, ValueError) as error:
        print(f"mttsim swarm: {error}", file=sys.stderr)
        return thresholds.USAGE
    options = SwarmOptions(url=args.url.rstrip("/"), players=args.players, tournament=args.tournament,
                           definition=definition, admin_token=args.admin_token, think=think, shard=shard_of,
                           seed=args.seed, late=args.late, reentry=args.reentry, duration=args.duration,
                           interval=args.interval, on_stop=args.on_stop)
    if mix:
        options.mix = mix
    terminal = sys.stderr.isatty() and not args.json

    def line(live: Live) -> None:
        sys.stderr.write(f"\r{live.players_left:>6} players left | {live.tables:>5} tables | "
                         f"{live.actions_per_s:>7,.0f} actions/s | p50 {live.p50_ms:6.1f} ms p99 {live.p99_ms:6.1f} ms"
                         f" | {live.errors} errors ")
        sys.stderr.flush()

    def row_line(row: dict[str, Any]) -> None:
        """Without a terminal (a pipeline's log), a plain line per row of the time series."""
        from bots.histogram import percentiles

        p50, p99 = percentiles(row["latency_ms"], (0.5, 0.99))
        print(f"mttsim swarm: {row['elapsed_s']:.0f} s: {row['players_left']} players left, {row['users']} bots "
              f"connected, {row['actions'] / (row['seconds'] or 1):,.0f} actions/s, latency p50 {p50} ms p99 {p99} "
              f"ms, {row['errors']} errors, {row['reconnections']} reconnections", file=sys.stderr, flush=True)

    async def run() -> dict[str, Any]:
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for number in (signal.SIGINT, signal.SIGTERM):  # the report is written with what was measured
            loop.add_signal_handler(number, stop.set)
        return await run_swarm(options, line if terminal else None, stop,
                               None if terminal or args.json else row_line)

    quiet_garbage_collector()
    allow_many_sockets()
    try:
        report = uvloop.run(run())
    except (httpx.HTTPError, OSError) as error:
        print(f"mttsim swarm: could not run against {args.url}: {error}", file=sys.stderr)
        return thresholds.COULD_NOT_RUN
    if terminal:
        sys.stderr.write("\n")
    return _swarm_outcome(args, report, checks, "swarm")


def _swarm_outcome(args: argparse.Namespace, report: dict[str, Any], checks: list[Threshold], command: str) -> int:
    """Check the thresholds, write what was asked for (CSVs, the HTML report, JSON or a summary), and say with
    the exit code how the run went."""
    from bots import thresholds
    from bots.loadreport import write_csvs, write_html

    report["thresholds"] = thresholds.check(checks, report)
    if args.csv:
        write_csvs(args.csv, report)
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
            print(f"stopped by {'the --duration' if report['stopped'] == 'duration' else 'a signal'}; the "
                  f"tournament: {report['tournament_after']}")
        for check in report["thresholds"]:
            print(f"threshold {check['threshold']}: {'passed' if check['passed'] else 'FAILED'} "
                  f"({check['actual']})")
    if report.get("stopped") == "signal":
        return thresholds.CUT_SHORT
    if not all(check["passed"] for check in report["thresholds"]):
        print(f"mttsim {command}: a threshold failed", file=sys.stderr)
        return thresholds.THRESHOLD_FAILED
    return thresholds.OK


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


def stats_command(args: argparse.Namespace) -> int:
    """``mttsim stats FILE...``: the real-play statistics of hand histories, as docs/swarm.md defines them."""
    counts = Counts()
    try:
        for path in args.files:
            for hand in hands_of(Path(path).read_text()):
                counts.add(hand, deep_bb=args.deep or None)
    except (OSError, ValueError) as error:
        print(f"mttsim stats: {error}", file=sys.stderr)
        return 2
    _print_stats(counts, as_json=args.json)
    return 0


def _print_stats(counts: Counts, *, as_json: bool) -> None:
    if as_json:
        print(json.dumps({group: counts.rows(group) for group in ["all", *counts.groups()]}))
    else:
        print(stats_table(counts))


def structure_command(args: argparse.Namespace) -> int:
    """A structure from a few numbers: as a table a director reads, with the field and the length to expect from
    quick simulations, or (``--json``) the whole definition, as ``--config`` and the admin's form read it."""
    speed: Speed = "hyper" if args.hyper else "turbo" if args.turbo else "regular"
    try:
        definition = generate_structure(args.players, args.hours, args.stack, speed=speed, ante=args.ante)
    except DefinitionError as problem:
        print(f"mttsim structure: {problem}", file=sys.stderr)
        return 2
    made = structure_hours(args.players, args.hours, args.stack, speed)
    if made > args.hours:
        faster = next((other for other in ("turbo", "hyper") if other != speed and
                       structure_hours(args.players, args.hours, args.stack, other) <= args.hours), None)
        print(f"mttsim structure: in {args.hours:g} h the big blind would have to more than double a level; this "
              f"structure takes about {made:g} h, the shortest that climbs at most twice a level"
              + (f" (--{faster} meets {args.hours:g} h)" if faster else ""), file=sys.stderr)
    if args.json:
        print(msgspec.json.format(msgspec.json.encode(definition), indent=1).decode())
    else:
        print(schedule_text(estimate(definition, args.players, args.runs)))
    return 0


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option's default after its help, where it has one worth saying (not None, not off); the examples
    below a command as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" not in text and action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
            text += " (default: %(default)s)"
        return text


EXAMPLES = {
    "demo": "  mttsim demo                      # http://127.0.0.1:8000/ : 45 bots, a table to watch\n"
            "  mttsim demo --players 90 --seats 6 --port 8080",
    "simulate": "  mttsim simulate --players 2000 --seed 7\n"
                "  mttsim simulate --players 2000 --runs 8 --report lab.html\n"
                "  mttsim simulate --config docs/examples/sunday-mystery.json --json --events-out events.jsonl",
    "serve": "  mttsim serve --admin-token secret --db mttsim.db\n"
             "  mttsim serve --log-level info --log-json     # uvicorn's access log too, as JSON lines",
    "cluster": "  mttsim cluster --table-workers 2 --gateways 2 --admin-token secret",
    "stats": "  mttsim stats run.phhs --deep 40     # run.phhs from mttsim simulate ... --hands-out run.phhs\n"
             "  mttsim simulate --players 600 --seats 6 --seed 1 --stats --mix regular=1,station=1",
    "structure": "  mttsim structure --players 200 --hours 4 --stack 20000   # a table with the field to expect\n"
                 "  mttsim structure --players 200 --hours 4 --stack 20000 --json > structure.json",
    "swarm": "  mttsim swarm --create --admin-token secret --players 1000 --csv run --html run.html\n"
             "  mttsim swarm --tournament t1 --players 500 --duration 300 \\\n"
             "      --threshold 'latency.p99<100ms' --threshold 'errors==0'    # exit 99 if one fails",
    "swarm-merge": "  mttsim swarm-merge shard0.json shard1.json --csv run --html run.html",
}


def _command(commands: Any, name: str, helped: str) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = commands.add_parser(name, help=helped, description=helped,
                                                          formatter_class=HelpFormatter,
                                                          epilog=f"example:\n{EXAMPLES[name]}")
    return parser


def _logging_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="warning",
                        help="what is logged to stderr; info adds uvicorn's access log, a line per request")
    parser.add_argument("--log-json", action="store_true", help="log one JSON object a line")


def build_parser() -> argparse.ArgumentParser:
    """Every command and option, with its help."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("mttsim")
    except PackageNotFoundError:
        release = "unknown (not installed)"
    parser = argparse.ArgumentParser(prog="mttsim", description=__doc__, formatter_class=HelpFormatter)
    parser.add_argument("--version", action="version", version=f"mttsim {release}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    demo_parser = _command(commands, "demo", "the server with a bot-filled tournament to watch in a browser")
    demo_parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    demo_parser.add_argument("--port", type=int, default=8000, help="the port to listen on")
    demo_parser.add_argument("--players", type=int, default=45, help="bots in the tournament")
    demo_parser.add_argument("--seats", type=int, default=9, help="seats per table")
    demo_parser.add_argument("--think-min", type=float, default=0.3, help="seconds a bot thinks, at least")
    demo_parser.add_argument("--think-max", type=float, default=1.5, help="seconds a bot thinks, at most")
    demo_parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    demo_parser.add_argument("--seed", type=int, default=None, help="the bots' and the deal's seed (default: new)")
    demo_parser.set_defaults(run=demo)
    simulate_parser = _command(commands, "simulate", "play a whole tournament with bots, in accelerated time")
    simulate_parser.add_argument("--config", help="tournament definition, JSON or TOML (docs/config.md)")
    simulate_parser.add_argument("--players", type=int, help="entries (default: 1000, or max_players of --config)")
    simulate_parser.add_argument("--seats", type=int, help="seats per table (overrides the definition)")
    simulate_parser.add_argument("--seed", type=int, help="same seed, same tournament (default: a new one, printed)")
    simulate_parser.add_argument("--mix", help="bot strategies and weights, e.g. regular=4,tag=1,station=1 "
                                               "(default: regular=1, players as real ones play)")
    simulate_parser.add_argument("--stats", action="store_true",
                                 help="print how the bots played (VPIP, PFR, 3-bet ...) by table size and strategy")
    simulate_parser.add_argument("--deep", type=float, default=0.0, metavar="BB",
                                 help="with --stats, count only hands where every stack is above BB big blinds")
    simulate_parser.add_argument("--events-out", metavar="PATH", help="write every event as a JSON line")
    simulate_parser.add_argument("--hands-out", metavar="PATH", help="write every hand as PHH (.phhs)")
    simulate_parser.add_argument("--late", type=int, help="bots that try to register late, at random moments of "
                                 "the late registration (default: a tenth of --players, if the definition has it)")
    simulate_parser.add_argument("--reentry", type=float, help="the chance a bot that is out re-enters while it may "
                                 "(default: 0.5, if the definition has re-entry)")
    simulate_parser.add_argument("--entries-per-person", type=int, default=1, metavar="N",
                                 help="a multi-entry field: bot1 to botN are one person's entries, botN+1 to bot2N the "
                                      "next one's ... (late entries too), up to the definition's entries_per_person")
    simulate_parser.add_argument("--json", action="store_true", help="print one JSON report instead of a summary")
    simulate_parser.add_argument("--runs", type=int, metavar="N",
                                 help="play N seeds from --seed on and report their spread (docs/director.md)")
    simulate_parser.add_argument("--jobs", type=int, metavar="J",
                                 help="processes playing the runs at once (default: one per core)")
    simulate_parser.add_argument("--report", metavar="FILE.html",
                                 help="write the runs' report with its pictures, one self-contained file")
    simulate_parser.set_defaults(run=simulate_command)
    serve_parser = _command(commands, "serve", "run the real-time server")
    serve_parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    serve_parser.add_argument("--port", type=int, default=8000, help="the port to listen on")
    serve_parser.add_argument("--admin-token", help="the admin's bearer token (default: a new one, printed)")
    serve_parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    serve_parser.add_argument("--db", default="mttsim.db",
                              help="the SQLite journal: tournaments survive a restart or a crash")
    serve_parser.add_argument("--memory", action="store_true", help="keep nothing on disk")
    serve_parser.add_argument("--nats", metavar="URL", default=os.environ.get(NATS_ENV),
                              help=f"join a cluster over this NATS server, nats://TOKEN@HOST:PORT where it wants a "
                                   f"token (default: ${NATS_ENV}, which keeps the token off the command line; "
                                   "docs/deployment.md)")
    serve_parser.add_argument("--role", choices=["director", "tables", "gateway"], default="director",
                              help="with --nats: the director (its journal, REST and websockets), a table worker, "
                                   "or a gateway (REST, websockets and the web client, in front of the director)")
    serve_parser.add_argument("--metrics-port", type=int, help="also serve Prometheus metrics on 127.0.0.1:PORT")
    serve_parser.add_argument("--broadcast-tick", type=float, default=0.05,
                              help="seconds other players' actions may wait to leave together (0: at once)")
    _logging_options(serve_parser)
    serve_parser.set_defaults(run=serve)
    cluster_parser = _command(commands, "cluster", "a NATS server, a director, table workers and gateways, here")
    cluster_parser.add_argument("--host", default="127.0.0.1", help="the address the gateways and director listen on")
    cluster_parser.add_argument("--port", type=int, default=8000, help="the first gateway's port (the director: "
                                "the port after the last gateway's)")
    cluster_parser.add_argument("--admin-token", help="the admin's bearer token (default: a new one, printed)")
    cluster_parser.add_argument("--table-workers", type=int, default=2, help="processes that play the tables")
    cluster_parser.add_argument("--gateways", type=int, default=1, help="processes the clients connect to")
    cluster_parser.add_argument("--nats", metavar="URL", help="an existing NATS server (default: start one)")
    cluster_parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    cluster_parser.add_argument("--db", default="mttsim.db", help="the director's journal")
    cluster_parser.add_argument("--memory", action="store_true",
                                help="keep nothing on disk once the cluster stops (the director's journal is in a "
                                     "temporary directory, so that a director started again restores from it)")
    _logging_options(cluster_parser)
    cluster_parser.set_defaults(run=cluster)
    stats_parser = _command(commands, "stats", "how hands were played (VPIP, PFR, 3-bet ...), from PHH files")
    stats_parser.add_argument("files", nargs="+", metavar="FILE", help="hand histories, .phh or .phhs")
    stats_parser.add_argument("--deep", type=float, default=0.0, metavar="BB",
                              help="count only hands where every stack is above BB big blinds")
    stats_parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    stats_parser.set_defaults(run=stats_command)
    structure_parser = _command(commands, "structure", "print a whole definition from a few numbers")
    structure_parser.add_argument("--players", type=int, required=True, help="the expected field")
    structure_parser.add_argument("--hours", type=float, required=True, help="about when one player is left")
    structure_parser.add_argument("--stack", type=int, required=True, help="the starting stack")
    speed = structure_parser.add_mutually_exclusive_group()
    speed.add_argument("--turbo", action="store_true", help="5-minute levels (regular: 10)")
    speed.add_argument("--hyper", action="store_true", help="3-minute levels")
    structure_parser.add_argument("--ante", choices=["bb", "classic"], default="bb",
                                  help="a big-blind ante, or everyone's, from level 3")
    structure_parser.add_argument("--json", action="store_true",
                                  help="print the whole definition as JSON (for --config) instead of the table")
    structure_parser.add_argument("--runs", type=int, default=3, metavar="N",
                                  help="quick simulations for the field and length to expect (0: none)")
    structure_parser.set_defaults(run=structure_command)
    swarm_parser = _command(commands, "swarm", "load-test a server with websocket bots; exit 99 when a threshold "
                                               "fails (docs/swarm.md)")
    swarm_parser.add_argument("--url", default="http://127.0.0.1:8000",
                              help="the server, or a cluster's gateways separated by commas: the bots spread over "
                                   "them, and a bot whose gateway is gone goes on to the next")
    swarm_parser.add_argument("--players", type=int, required=True, help="bots (across every shard)")
    swarm_parser.add_argument("--tournament", help="join this tournament (its id)")
    swarm_parser.add_argument("--create", action="store_true", help="create the tournament (needs --admin-token)")
    swarm_parser.add_argument("--config", help="with --create: a definition file (default: the default structure)")
    swarm_parser.add_argument("--admin-token", help="the server's admin token: to create, start and cancel")
    swarm_parser.add_argument("--mix", help="strategies and faults with weights: regular=4,random=1,slow=1,flaky=1,"
                                            "rude=1 (default: regular=1)")
    swarm_parser.add_argument("--think", help="seconds a bot thinks, MIN-MAX (default: 0-0)")
    swarm_parser.add_argument("--shard", help="I/N: this process plays every N-th bot, starting at I (default: 0/1)")
    swarm_parser.add_argument("--seed", type=int, help="the bots' seed (default: a new one)")
    swarm_parser.add_argument("--csv", metavar="PREFIX",
                              help="write PREFIX_stats.csv, PREFIX_stats_history.csv and PREFIX_failures.csv "
                                   "(Locust's files and columns)")
    swarm_parser.add_argument("--html", metavar="FILE", help="write one self-contained report with charts")
    swarm_parser.add_argument("--threshold", action="append", metavar="EXPR",
                              help="pass/fail, several allowed: latency.p99<100ms, event_lag.p99<250ms, errors==0, "
                                   "missed_deadlines<=5, finished (default: errors==0 and finished; with "
                                   "--duration errors==0); exit 99 when one fails")
    swarm_parser.add_argument("--duration", type=float, metavar="SECONDS",
                              help="stop after this many seconds of play, report, and cancel or leave the "
                                   "tournament (--on-stop)")
    swarm_parser.add_argument("--on-stop", choices=["cancel", "leave"],
                              help="what a run stopped early (--duration, Ctrl-C, SIGTERM) does with the "
                                   "tournament (default: cancel one it created, leave one it joined)")
    swarm_parser.add_argument("--interval", type=float, default=5.0, metavar="SECONDS",
                              help="seconds between the rows of the time series")
    swarm_parser.add_argument("--late", type=int, default=0,
                              help="more bots (per shard) that register while late registration is open")
    swarm_parser.add_argument("--reentry", type=float, default=0.0,
                              help="the chance a bot that is out re-enters while re-entry is open")
    swarm_parser.add_argument("--json", action="store_true", help="print the whole report as JSON")
    _logging_options(swarm_parser)
    swarm_parser.set_defaults(run=swarm)
    merge_parser = _command(commands, "swarm-merge", "one report of the --json reports of a run's shards")
    merge_parser.add_argument("reports", nargs="+", metavar="REPORT.json", help="the shards' reports")
    merge_parser.add_argument("--csv", metavar="PREFIX",
                              help="write PREFIX_stats.csv, PREFIX_stats_history.csv and PREFIX_failures.csv")
    merge_parser.add_argument("--html", metavar="FILE", help="write one self-contained report with charts")
    merge_parser.add_argument("--threshold", action="append", metavar="EXPR",
                              help="pass/fail on the whole run, as mttsim swarm's (default: errors==0 and finished)")
    merge_parser.add_argument("--json", action="store_true", help="print the merged report as JSON")
    merge_parser.set_defaults(run=swarm_merge)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if hasattr(args, "log_level"):
        set_up_logging(args)
    code: int = args.run(args)
    return code


if __name__ == "__main__":
    sys.exit(main())
