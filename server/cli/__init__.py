"""mttsim: a real-time multi-table No-Limit Hold'em tournament simulator. Play-test a tournament's rules live in a
browser, simulate its structure in accelerated time, and load-test the server with swarms of bots."""

from __future__ import annotations

import argparse

from server.cli import cluster, demo, serve, simulate, stats, structure, swarm
from server.cli.common import HelpFormatter, allow_many_sockets, log_handler, quiet_garbage_collector, set_up_logging

__all__ = ["allow_many_sockets", "build_parser", "log_handler", "main", "quiet_garbage_collector"]

# One module per command, each adding its own parser (and its options' help and an example) in ``add``.
COMMANDS = (demo, simulate, serve, cluster, stats, structure, swarm)


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
    for module in COMMANDS:
        module.add(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if hasattr(args, "log_level"):
        set_up_logging(args)
    code: int = args.run(args)
    return code
