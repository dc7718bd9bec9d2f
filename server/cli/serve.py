"""``mttsim serve``: the real-time server, alone or in a cluster's role (director, table worker, gateway)."""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
from typing import Any

from server.cli.common import (
    address_options, allow_many_sockets, command, logging_options, quiet_garbage_collector, uvicorn_logging,
)
from server.cluster.launcher import NATS_ENV, shown

EXAMPLE = ("  mttsim serve --admin-token secret --db mttsim.db\n"
           "  mttsim serve --log-level info --log-json     # uvicorn's access log too, as JSON lines")


def add(commands: Any) -> None:
    parser = command(commands, "serve", EXAMPLE, "run the real-time server")
    address_options(parser)
    parser.add_argument("--admin-token", help="the admin's bearer token (default: a new one, printed)")
    parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    parser.add_argument("--db", default="mttsim.db",
                        help="the SQLite journal: tournaments survive a restart or a crash")
    parser.add_argument("--memory", action="store_true", help="keep nothing on disk")
    parser.add_argument("--nats", metavar="URL", default=os.environ.get(NATS_ENV),
                        help=f"join a cluster over this NATS server, nats://TOKEN@HOST:PORT where it wants a "
                             f"token (default: ${NATS_ENV}, which keeps the token off the command line; "
                             "docs/deployment.md)")
    parser.add_argument("--role", choices=["director", "tables", "gateway"], default="director",
                        help="with --nats: the director (its journal, REST and websockets), a table worker, "
                             "or a gateway (REST, websockets and the web client, in front of the director)")
    parser.add_argument("--metrics-port", type=int, help="also serve Prometheus metrics on 127.0.0.1:PORT")
    parser.add_argument("--broadcast-tick", type=float, default=0.05,
                        help="seconds other players' actions may wait to leave together (0: at once)")
    parser.add_argument("--max-sessions", type=int, default=15_000,
                        help="with --role gateway: the sessions it holds at once; past them a socket is refused "
                             "and a browser goes on through another gateway (mind the open-file limit)")
    parser.add_argument("--plan-runs", type=int, default=3,
                        help="quick simulations of a started tournament's field (up to 3,000 entries), for the plan "
                             "line and the projected finish of its charts and clock screen (0: none)")
    logging_options(parser)
    parser.set_defaults(run=serve)


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
    join = None
    if args.nats:
        from server.cluster.service import joining
        from server.cluster.natsbus import NatsTransport

        join = joining(NatsTransport(args.nats))
    app = create_app(Settings(admin_token=token, hand_pause=args.hand_pause, db=None if args.memory else args.db,
                              ws_url=f"ws://{reachable}:{args.port}", broadcast_tick=args.broadcast_tick,
                              clustered=join is not None, plan_runs=args.plan_runs), join_cluster=join)
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
    from server.cluster.natsbus import NatsTransport

    if not (args.nats and args.admin_token):
        print("--role gateway needs --nats URL and the cluster's --admin-token", file=sys.stderr)
        return 2
    reachable = "127.0.0.1" if args.host in ("0.0.0.0", "::", "") else args.host
    app = create_gateway(Settings(admin_token=args.admin_token, max_sessions=args.max_sessions),
                         f"http://{reachable}:{args.port}",
                         NatsTransport(args.nats))
    print(f"gateway of the cluster at {shown(args.nats)} serving on http://{args.host}:{args.port}/", flush=True)
    uvicorn.run(app, host=args.host, port=args.port, loop="uvloop", **uvicorn_logging(args), **uvicorn_websockets())
    return 0


def table_worker(args: argparse.Namespace) -> int:
    """``mttsim serve --nats URL --role tables``: play the cluster's tables until stopped (SIGTERM lets go of
    the leases at once; SIGKILL leaves them to expire)."""
    import signal

    import uvloop

    from server.cluster.natsbus import NatsTransport
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
            await work(NatsTransport(args.nats), args.metrics_port)
        except asyncio.CancelledError:
            pass

    uvloop.run(until_stopped())
    return 0
