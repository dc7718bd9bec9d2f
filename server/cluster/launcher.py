"""``mttsim cluster``: a whole cluster on this machine, for a try or a benchmark (docs/deployment.md).

A NATS server (Debian's ``nats-server`` on PATH, JetStream on, on a free
loopback port) unless ``--nats`` names one, then the director, the table
workers and the gateways, each a ``mttsim serve`` process of its own. It
prints where each is and keeps them running: a child that dies is started
again after a back-off (its tables fail over meanwhile; a director restores
from its journal), as a process supervisor does, and only Ctrl-C or SIGTERM
stops them all, the NATS server last. A child that keeps dying (more than
``RESTARTS_PER_MINUTE`` restarts within a minute) stops the cluster with an
error, as systemd's start limit does: starting it again would not help.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from server.cluster.bus import rights
from server.cluster.schema import LEASE_BUCKET, SEAL_BUCKET, SEAL_KEY, STREAM_PREFIX, STREAMS

STARTUP_SECONDS = 30.0
RESTARTS_PER_MINUTE = 5
FIRST_BACKOFF_SECONDS, LONGEST_BACKOFF_SECONDS = 0.5, 8.0  # doubled for each restart of the last minute
NATS_ENV = "MTTSIM_NATS"  # ``mttsim serve`` reads ``--nats`` here when not given: a token stays off command lines


def shown(url: str) -> str:
    """``url`` without the user, password or token in it, to print or log."""
    scheme, separator, rest = url.rpartition("://")
    return f"{scheme}{separator}{rest.rpartition('@')[2]}"


def nats_binary() -> str | None:
    """Debian's nats-server, on PATH or in sbin (not on a user's PATH)."""
    return shutil.which("nats-server") or shutil.which("nats-server", path="/usr/sbin:/usr/local/sbin")


@dataclasses.dataclass(frozen=True)
class Users:
    """The URL each role of a cluster connects with: its NATS user and password in it."""

    director: str
    tables: str
    gateways: list[str]  # one realm (NATS user) a gateway
    server_pid: int | None = None  # the NATS server's, where this process started it


def permissions(gateways: int) -> dict[str, dict[str, list[str]]]:
    """What each user may publish and subscribe to (docs/deployment.md, docs/security.md): least privilege on the
    bus, every JetStream right named one by one and nobody holding ``$JS.>``.

    The director is trusted with the money and the tournaments; it sets up JetStream (the leases' bucket, the
    tables' streams, the seal's key) and reads nothing of it but its key. The table workers with the tables: they
    hold leases, number each table's stream and read its last number, and read the key that tells the
    director's word from a forgery. A gateway, the edge that faces the Internet, may publish only its clients'
    traffic on its own realm's subjects (``server/cluster/schema.py``) and read only its own clients' frames and
    answers: no JetStream at all, since JetStream publishes what its requester chose onto a subject of the
    requester's choosing (a consumer's delivery, a direct get's reply), which the NATS server checks against no
    permission.
    """
    seal = f"$KV.{SEAL_BUCKET}.{SEAL_KEY}"
    jetstream = {  # what the NATS form's machinery needs beside the cluster's own subjects (``bus.rights``)
        "director": (["_INBOX.tables.>", "_INBOX.gateway.>", f"$JS.API.STREAM.CREATE.KV_{LEASE_BUCKET}",
                      f"$JS.API.STREAM.CREATE.KV_{SEAL_BUCKET}", f"$JS.API.STREAM.CREATE.{STREAMS}",
                      f"$JS.API.STREAM.UPDATE.{STREAMS}", seal, f"$JS.API.DIRECT.GET.KV_{SEAL_BUCKET}.{seal}"],
                     ["_INBOX.director.>"]),
        "tables": ([f"$KV.{LEASE_BUCKET}.>", f"$JS.API.STREAM.MSG.GET.KV_{LEASE_BUCKET}",
                    f"$JS.API.DIRECT.GET.{STREAMS}.{STREAM_PREFIX}.>", f"$JS.API.DIRECT.GET.KV_{SEAL_BUCKET}.{seal}"],
                   ["_INBOX.tables.>"]),
    }
    users: dict[str, dict[str, list[str]]] = {}
    for role in ("director", "tables"):
        publish, subscribe = rights(role)
        users[role] = {"publish": publish + jetstream[role][0], "subscribe": subscribe + jetstream[role][1]}
    for number in range(1, gateways + 1):
        realm = f"gateway-{number}"
        publish, subscribe = rights("gateway", realm)
        users[realm] = {"publish": publish, "subscribe": subscribe + [f"_INBOX.gateway.{realm}.>"]}
    return users


def configuration(passwords: dict[str, str], gateways: int) -> str:
    """nats-server's configuration: a user each role (a gateway each realm), with its permissions."""
    entries = [f"    {{user: {json.dumps(user)}, password: {json.dumps(passwords[user])}, permissions: "
               f"{{publish: {json.dumps(allowed['publish'])}, subscribe: {json.dumps(allowed['subscribe'])}}}}}"
               for user, allowed in permissions(gateways).items()]
    return "authorization {\n  users: [\n" + "\n".join(entries) + "\n  ]\n}\n"


@contextlib.contextmanager
def nats_server(gateways: int = 2) -> Iterator[Users]:
    """A NATS server with JetStream in a directory of its own, which admits only the cluster's users, each with
    a password of its own and the permissions of its role; yields their URLs (``nats://USER:PASSWORD@...``).

    Without authorization anyone who reaches the port could play any
    table, or take its lease; with one token for all, a gateway's host
    could deal hands. The passwords are in a file only this user
    reads, not on a command line that ``ps`` shows to every user.
    """
    binary = nats_binary()
    if binary is None:
        raise SystemExit("nats-server is not installed: apt-get install nats-server, or give --nats URL")
    with tempfile.TemporaryDirectory(prefix="mttsim-nats-") as directory:
        ports = Path(directory) / "ports"
        ports.mkdir()
        # hex: nothing in them to escape, in the configuration or the URL
        passwords = {user: secrets.token_hex(24) for user in permissions(gateways)}
        configuration_file = Path(directory) / "nats.conf"
        configuration_file.touch(mode=0o600)
        configuration_file.write_text(configuration(passwords, gateways))
        process = subprocess.Popen([binary, "-c", str(configuration_file), "-a", "127.0.0.1", "-p", "-1", "-js",
                                    "-sd", str(Path(directory) / "js"), "--ports_file_dir", str(ports)],
                                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + STARTUP_SECONDS
            while not (found := list(ports.glob("*.ports"))) or not found[0].read_text().strip():
                if process.poll() is not None or time.monotonic() > deadline:
                    raise SystemExit("nats-server did not start")
                time.sleep(0.05)
            address = str(json.loads(found[0].read_text())["nats"][0])

            def url(user: str) -> str:
                return address.replace("nats://", f"nats://{user}:{passwords[user]}@", 1)

            yield Users(url("director"), url("tables"), [url(f"gateway-{n}") for n in range(1, gateways + 1)],
                        process.pid)
        finally:
            process.terminate()
            process.wait(10)


class Child:
    """One ``mttsim serve`` of the cluster, started again when it dies (the URL, which may hold a secret,
    is given in its environment)."""

    def __init__(self, name: str, url: str, *options: str) -> None:
        self.name, self.url, self.options = name, url, options
        self.restarts: deque[float] = deque()  # when it was started again, for the back-off and the limit
        self.due: float | None = None  # when it is to be started again
        self.process = self._spawn()

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen([sys.executable, "-m", "server.cli", "serve", *self.options],
                                env={**os.environ, NATS_ENV: self.url})

    def watch(self, now: float) -> bool:
        """Start the child again if it died and its back-off is over; False once it died too often."""
        if self.due is None and self.process.poll() is not None:
            while self.restarts and now - self.restarts[0] > 60:
                self.restarts.popleft()
            if len(self.restarts) >= RESTARTS_PER_MINUTE:
                print(f"{self.name} (pid {self.process.pid}) stopped (code {self.process.returncode}) after "
                      f"{len(self.restarts)} restarts within a minute: stopping the cluster", file=sys.stderr,
                      flush=True)
                return False
            wait = min(LONGEST_BACKOFF_SECONDS, FIRST_BACKOFF_SECONDS * 2 ** len(self.restarts))
            print(f"{self.name} (pid {self.process.pid}) stopped (code {self.process.returncode}): starting it "
                  f"again in {wait:g} s", file=sys.stderr, flush=True)
            self.due = now + wait
        if self.due is not None and now >= self.due:
            self.due = None
            self.restarts.append(now)
            self.process = self._spawn()
            print(f"{self.name}: started again (pid {self.process.pid})", file=sys.stderr, flush=True)
        return True


def run(args: argparse.Namespace) -> int:
    token = args.admin_token or secrets.token_urlsafe(24)
    stopping = False

    def stop(*_: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    with contextlib.ExitStack() as stack:
        users = Users(args.nats, args.nats, [args.nats] * args.gateways) if args.nats \
            else stack.enter_context(nats_server(args.gateways))
        # A director started again restores from its journal: with --memory, the journal lives in a directory
        # removed when the cluster stops, so that nothing is kept on disk but a restart still finds it.
        db = str(Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="mttsim-cluster-"))) / "journal.db") \
            if args.memory else args.db
        director_port = args.port + args.gateways
        logs = ("--log-level", args.log_level, *(("--log-json",) if args.log_json else ()))  # each child logs alike
        children = [Child("director", users.director, *logs, "--role", "director", "--host", args.host,
                          "--port", str(director_port), "--admin-token", token, "--hand-pause", str(args.hand_pause),
                          "--db", db)]
        children += [Child(f"table worker {i + 1}", users.tables, *logs, "--role", "tables")
                     for i in range(args.table_workers)]
        children += [Child(f"gateway {i + 1}", users.gateways[i], *logs, "--role", "gateway", "--host", args.host,
                           "--port", str(args.port + i), "--admin-token", token) for i in range(args.gateways)]
        print(f"NATS: {shown(users.director)}", flush=True)
        print(f"admin token: {token}", flush=True)
        print(f"director: http://{args.host}:{director_port}/ (pid {children[0].process.pid})", flush=True)
        for worker in children[1:1 + args.table_workers]:
            print(f"table worker: pid {worker.process.pid}", flush=True)
        for i, gateway in enumerate(children[1 + args.table_workers:]):
            print(f"gateway: http://{args.host}:{args.port + i}/ (pid {gateway.process.pid})", flush=True)
        try:
            while not stopping:
                now = time.monotonic()
                if not all(child.watch(now) for child in children):
                    return 1
                time.sleep(0.2)
        finally:
            stop_processes(*reversed([child.process for child in children]))  # the gateways first, the director last
    return 0


def stop_processes(*processes: subprocess.Popen[Any], patience: float = 15) -> None:
    """Each process asked to end, in this order; one still running ``patience`` seconds later is killed."""
    for process in processes:
        if process.poll() is None:
            process.terminate()
    for process in processes:
        try:
            process.wait(patience)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)
