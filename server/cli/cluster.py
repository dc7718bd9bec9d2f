"""``mttsim cluster``: a NATS server, a director, table workers and gateways on this machine."""

from __future__ import annotations

import argparse
from typing import Any

from server.cli.common import command, logging_options

EXAMPLE = "  mttsim cluster --table-workers 2 --gateways 2 --admin-token secret"


def add(commands: Any) -> None:
    parser = command(commands, "cluster", EXAMPLE, "a NATS server, a director, table workers and gateways, here")
    parser.add_argument("--host", default="127.0.0.1", help="the address the gateways and director listen on")
    parser.add_argument("--port", type=int, default=8000, help="the first gateway's port (the director: "
                        "the port after the last gateway's)")
    parser.add_argument("--admin-token", help="the admin's bearer token (default: a new one, printed)")
    parser.add_argument("--table-workers", type=int, default=2, help="processes that play the tables")
    parser.add_argument("--gateways", type=int, default=1, help="processes the clients connect to")
    parser.add_argument("--nats", metavar="URL", help="an existing NATS server (default: start one)")
    parser.add_argument("--hand-pause", type=float, default=2.0, help="seconds between hands at a table")
    parser.add_argument("--db", default="mttsim.db", help="the director's journal")
    parser.add_argument("--memory", action="store_true",
                        help="keep nothing on disk once the cluster stops (the director's journal is in a "
                             "temporary directory, so that a director started again restores from it)")
    logging_options(parser)
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """``mttsim cluster``: NATS, a director, table workers and gateways on this machine (server/cluster/local.py)."""
    from server.cluster import local as localcluster

    return localcluster.run(args)
