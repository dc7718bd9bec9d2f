"""``mttsim cluster``: a whole cluster on this machine, for a try or a benchmark (docs/deployment.md).

A NATS server (Debian's ``nats-server`` on PATH, JetStream on, on a free
loopback port) unless ``--nats`` names one, then the director, the table
workers and the gateways, each a ``mttsim serve`` process of its own. It
prints where each is, and stops them all, the NATS server last, on Ctrl-C or
SIGTERM, or when one of them dies.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

STARTUP_SECONDS = 30.0
NATS_ENV = "MTTSIM_NATS"  # ``mttsim serve`` reads ``--nats`` here when not given: a token stays off command lines


def shown(url: str) -> str:
    """``url`` without the user, password or token in it, to print or log."""
    scheme, separator, rest = url.rpartition("://")
    return f"{scheme}{separator}{rest.rpartition('@')[2]}"


def nats_binary() -> str | None:
    """Debian's nats-server, on PATH or in sbin (not on a user's PATH)."""
    return shutil.which("nats-server") or shutil.which("nats-server", path="/usr/sbin:/usr/local/sbin")


@contextlib.contextmanager
def nats_server() -> Iterator[str]:
    """A NATS server with JetStream in a directory of its own, which admits only clients with a token of its own;
    yields its URL, the token in it (``nats://TOKEN@127.0.0.1:PORT``).

    Without a token anyone who reaches the port could play any table, or
    take its lease. The token is in a file only this user reads, not on a
    command line that ``ps`` shows to every user of the machine.
    """
    binary = nats_binary()
    if binary is None:
        raise SystemExit("nats-server is not installed: apt-get install nats-server, or give --nats URL")
    with tempfile.TemporaryDirectory(prefix="mttsim-nats-") as directory:
        ports = Path(directory) / "ports"
        ports.mkdir()
        token = secrets.token_hex(24)  # hex: nothing in it to escape, in the configuration or the URL
        configuration = Path(directory) / "nats.conf"
        configuration.touch(mode=0o600)
        configuration.write_text(f'authorization {{ token: "{token}" }}\n')
        process = subprocess.Popen([binary, "-c", str(configuration), "-a", "127.0.0.1", "-p", "-1", "-js",
                                    "-sd", str(Path(directory) / "js"), "--ports_file_dir", str(ports)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + STARTUP_SECONDS
            while not (found := list(ports.glob("*.ports"))) or not found[0].read_text().strip():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("nats-server did not start")
                time.sleep(0.05)
            address = str(json.loads(found[0].read_text())["nats"][0])
            yield address.replace("nats://", f"nats://{token}@", 1)
        finally:
            process.terminate()
            process.wait(10)


def _serve(url: str, *options: str) -> subprocess.Popen[bytes]:
    """A ``mttsim serve`` of the cluster at ``url``, given in its environment: the URL may hold a secret."""
    return subprocess.Popen([sys.executable, "-m", "server.cli", "serve", *options], env={**os.environ, NATS_ENV: url})


def run(args: argparse.Namespace) -> int:
    token = args.admin_token or secrets.token_urlsafe(24)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with contextlib.ExitStack() as stack:
        url = args.nats or stack.enter_context(nats_server())
        storage = ["--memory"] if args.memory else ["--db", args.db]
        director_port = args.port + args.gateways
        processes = [_serve(url, "--role", "director", "--host", args.host, "--port", str(director_port),
                            "--admin-token", token, "--hand-pause", str(args.hand_pause), *storage)]
        processes += [_serve(url, "--role", "tables") for _ in range(args.table_workers)]
        processes += [_serve(url, "--role", "gateway", "--host", args.host, "--port", str(args.port + i),
                             "--admin-token", token) for i in range(args.gateways)]
        print(f"NATS: {url}", flush=True)
        print(f"admin token: {token}", flush=True)
        print(f"director: http://{args.host}:{director_port}/ (pid {processes[0].pid})", flush=True)
        for worker in processes[1:1 + args.table_workers]:
            print(f"table worker: pid {worker.pid}", flush=True)
        for i, gateway in enumerate(processes[1 + args.table_workers:]):
            print(f"gateway: http://{args.host}:{args.port + i}/ (pid {gateway.pid})", flush=True)
        try:
            while not stopping:
                dead = [process for process in processes if process.poll() is not None]
                if dead:
                    print(f"process {dead[0].pid} stopped (code {dead[0].returncode}): stopping the cluster",
                          file=sys.stderr, flush=True)
                    return 1
                time.sleep(0.2)
        finally:
            for process in reversed(processes):  # the gateways first, the director last
                if process.poll() is None:
                    process.terminate()
            for process in processes:
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(5)
    return 0
