"""A real cluster for tests: Debian's nats-server on a random loopback port, and mttsim processes around it.

``./dev test`` installs nats-server when it is missing. Where it cannot be
installed the cluster tests are skipped, saying so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx
import pytest

from server.cluster import launcher
from tests import live_server

TOKEN = "cluster-test-token"
PLAYERS = 30  # a cluster test's tournament, unless it says otherwise
ADMIN = {"Authorization": f"Bearer {TOKEN}"}


@contextmanager
def nats_server() -> Iterator[launcher.Users]:
    """A JetStream-enabled nats-server on 127.0.0.1 and a port it picks, with the users of the roles of a cluster
    (server/cluster/launcher.py); their URLs."""
    if launcher.nats_binary() is None:
        pytest.skip("nats-server is not installed (./dev test installs it with apt-get: the nats-server package)")
    with launcher.nats_server() as users:
        yield users


def free_ports_in_a_row(count: int) -> int:
    """The first of ``count`` consecutive free loopback ports, as ``mttsim cluster --port`` takes them."""
    while True:
        with contextlib.ExitStack() as held:
            first = held.enter_context(socket.socket())
            first.bind(("127.0.0.1", 0))
            port = first.getsockname()[1]
            try:
                for following in range(port + 1, port + count):
                    held.enter_context(socket.socket()).bind(("127.0.0.1", following))
            except OSError:
                continue  # taken: another first port
            return int(port)


def mttsim(*args: str) -> subprocess.Popen[str]:
    """A ``mttsim`` process whose log goes to a file (a pipe nobody reads would fill, and stop it)."""
    log = tempfile.NamedTemporaryFile("w", prefix="mttsim-", suffix=".log", delete=False)  # noqa: SIM115
    process = subprocess.Popen([sys.executable, "-m", "server.cli", *args], stdout=subprocess.DEVNULL, stderr=log,
                               text=True)
    LOGS[process.pid] = log.name
    return process


LOGS: dict[int, str] = {}  # pid -> its log, to show when a test fails


def log_of(process: subprocess.Popen[str], whole: bool = False) -> str:
    """What ``process`` has logged: its last 3,000 characters, to describe a time-out, or all of it."""
    text = Path(LOGS[process.pid]).read_text()
    return text if whole else text[-3000:]


def director(users: launcher.Users, port: int, *more: str, db: str | None = None) -> subprocess.Popen[str]:
    """The director process, serving REST and websockets on ``port`` once this returns; its journal in ``db``, or
    nowhere."""
    storage = ("--memory",) if db is None else ("--db", db)
    return serving(mttsim("serve", "--nats", users.director, "--role", "director", "--port", str(port),
                          "--admin-token", TOKEN, *storage, *more), port)


def serving(process: subprocess.Popen[str], port: int) -> subprocess.Popen[str]:
    """``process``, once it answers HTTP on ``port``."""
    return live_server.serving(process, port, lambda: log_of(process))


def worker(users: launcher.Users, *more: str) -> subprocess.Popen[str]:
    return mttsim("serve", "--nats", users.tables, "--role", "tables", *more)


class Unavailable(Exception):
    """A gateway said no director answers it (yet)."""


def cluster(port: int) -> list[dict[str, object]]:
    answer = httpx.get(f"http://127.0.0.1:{port}/api/cluster", headers=ADMIN, timeout=10)
    if answer.status_code == 503:
        raise Unavailable(answer.text)
    processes: list[dict[str, object]] = answer.json()["processes"]
    return processes


def wait_for(what: str, test: Callable[[], bool], timeout: float = 120.0,
             describe: Callable[[], str] = lambda: "") -> None:
    """Poll ``test`` until it is true; a busy machine is given ``timeout`` seconds. ``describe`` says, on a time-out,
    what the test saw."""
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, f"timed out waiting for {what}\n{describe()}"
        time.sleep(0.2)



def gateway(users: launcher.Users, port: int, realm: int = 0) -> subprocess.Popen[str]:
    """A gateway of the ``realm``-th realm, serving on ``port`` once this returns."""
    return serving(mttsim("serve", "--nats", users.gateways[realm], "--role", "gateway", "--port", str(port),
                          "--admin-token", TOKEN), port)


@dataclasses.dataclass
class TwoGateways:
    """A cluster with a gateway in each of two realms: the director's port, the gateways' ports and processes."""

    director_port: int
    port_a: int
    port_b: int
    a: subprocess.Popen[str]
    b: subprocess.Popen[str]
    users: launcher.Users
    processes: list[subprocess.Popen[str]]


@contextmanager
def two_gateways(hand_pause: str) -> Iterator[TwoGateways]:
    """NATS, a director, a worker and two gateways, once both gateways are registered; all stopped after."""
    director_port, port_a, port_b = live_server.free_port(), live_server.free_port(), live_server.free_port()
    with nats_server() as users:
        processes = [director(users, director_port, "--hand-pause", hand_pause), worker(users)]
        a, b = gateway(users, port_a), gateway(users, port_b, 1)
        processes += [a, b]
        try:
            wait_for("both gateways registered", lambda: sum(p["role"] == "gateway" for p in cluster(port_a)) == 2)
            yield TwoGateways(director_port, port_a, port_b, a, b, users, processes)
        finally:
            launcher.stop_processes(*processes, patience=10)


def assert_settled(shown: dict[str, Any], players: int = PLAYERS) -> None:
    """Every entry has one place, every chip is accounted for, and the money balances to the cent."""
    results = shown["results"]
    assert sorted(r["place"] for r in results) == list(range(1, players + 1))
    ledger = shown["ledger"]
    assert ledger["held"] == 0 and ledger["refunds"] == 0
    assert sum(r["prize_cents"] for r in results) == ledger["prizes"] == shown["prize_pool_cents"]
    assert ledger["paid_in"] == ledger["prizes"] + ledger["fees_kept"] == players * 1100
