"""What the commands share: the help's form, the logging options, and the process's limits."""

from __future__ import annotations

import argparse
import logging
import sys
from pathlib import Path
from typing import Any

import msgspec

from engine.structure import Definition, load_definition

LOG_LEVELS = ("debug", "info", "warning", "error")


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Each option's default after its help, where it has one worth saying (not None, not off); the examples
    below a command as written."""

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        if "default" not in text and action.default not in (None, False, argparse.SUPPRESS) and action.option_strings:
            text += " (default: %(default)s)"
        return text


def command(commands: Any, name: str, example: str, helped: str) -> argparse.ArgumentParser:
    """A subcommand's parser, its help and its example below it."""
    parser: argparse.ArgumentParser = commands.add_parser(name, help=helped, description=helped,
                                                          formatter_class=HelpFormatter,
                                                          epilog=f"example:\n{example}")
    return parser


def address_options(parser: argparse.ArgumentParser) -> None:
    """Where a server listens."""
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    parser.add_argument("--port", type=int, default=8000, help="the port to listen on")


def logging_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--log-level", choices=LOG_LEVELS, default="warning",
                        help="what is logged to stderr; info adds uvicorn's access log, a line per request")
    parser.add_argument("--log-json", action="store_true", help="log one JSON object a line")


def read_definition(path: Path) -> Definition:
    """A definition file, JSON or TOML by its suffix (docs/config.md)."""
    return load_definition(path.read_bytes(), toml=path.suffix.lower() == ".toml")


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
    handler = {"()": "server.cli.common.log_handler", "json_lines": args.log_json}
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
