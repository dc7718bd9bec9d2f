"""``mttsim cluster``: a director, table workers and gateways on this machine, over a NATS server of its own (or
one given), each a process; or all in this one process over a bus in memory (``--bus memory``)."""

from __future__ import annotations

import argparse
import asyncio
import secrets
import signal
import sys
from typing import Any

from server.cli.common import command, logging_options

EXAMPLE = ("  mttsim cluster --table-workers 2 --gateways 2 --admin-token secret\n"
           "  mttsim cluster --bus memory --table-workers 3       # one process, no nats-server: to try, to debug")


def add(commands: Any) -> None:
    parser = command(commands, "cluster", EXAMPLE, "a director, table workers and gateways, here")
    parser.add_argument("--bus", choices=["nats", "memory"], default="nats",
                        help="nats: each role a process, over a NATS server; memory: every role in this process")
    parser.add_argument("--host", default="127.0.0.1", help="the address the gateways and director listen on")
    parser.add_argument("--port", type=int, default=8000, help="the first gateway's port (the director: "
                        "the port after the last gateway's)")
    parser.add_argument("--admin-token", help="the admin's bearer token (default: a new one, printed)")
    parser.add_argument("--table-workers", type=int, default=2, help="workers that play the tables")
    parser.add_argument("--gateways", type=int, default=1, help="gateways the clients connect to")
    parser.add_argument("--nats", metavar="URL", help="an existing NATS server (default: start one)")
    parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    parser.add_argument("--db", default="mttsim.db", help="the director's journal")
    parser.add_argument("--memory", action="store_true",
                        help="keep nothing on disk once the cluster stops (the director's journal is in a "
                             "temporary directory, so that a director started again restores from it)")
    logging_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """``mttsim cluster``: server/cluster/launcher.py starts the processes, server/cluster/inprocess.py the roles of
    ``--bus memory``."""
    if args.bus == "memory":
        if args.nats:
            print("mttsim cluster: --nats names a bus; --bus memory keeps it in this process", file=sys.stderr)
            return 2
        return in_memory(args)
    from server.cluster import launcher

    return launcher.run(args)


def in_memory(args: argparse.Namespace) -> int:
    """Every role in this process until Ctrl-C or SIGTERM."""
    import uvloop

    from server.cluster.inprocess import InProcessCluster

    token = args.admin_token or secrets.token_urlsafe(24)

    async def until_stopped() -> None:
        stop = asyncio.Event()
        for number in (signal.SIGINT, signal.SIGTERM):
            asyncio.get_running_loop().add_signal_handler(number, stop.set)
        cluster = InProcessCluster(token, table_workers=args.table_workers, gateways=args.gateways, host=args.host,
                                   port=args.port, hand_pause=args.hand_pause, db=None if args.memory else args.db)
        async with cluster.running():
            print("bus: in this process", flush=True)
            print(f"admin token: {token}", flush=True)
            print(f"director: {cluster.director_url}/", flush=True)
            print(f"table workers: {len(cluster.workers)}", flush=True)
            for url in cluster.gateway_urls:
                print(f"gateway: {url}/", flush=True)
            await stop.wait()

    uvloop.run(until_stopped())
    return 0
