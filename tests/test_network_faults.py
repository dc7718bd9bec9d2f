"""A cluster between hosts, and a real network's faults: each role on a host of its own (tests/netns.py), a swarm
on another, and links cut, partitions in both directions and in one, or every link slow and lossy
(tests/lossy_link.py), while a tournament plays. Every chip and cent is accounted for after, and no hand is played
twice."""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from server.cluster import launcher
from tests.cluster import ADMIN, TOKEN, assert_settled
from tests.live_server import definition
from tests.netns import Network, nats_on

pytestmark = [pytest.mark.cluster, pytest.mark.slow]

PLAYERS = 24
LEVELS = [{"small_blind": sb, "big_blind": 2 * sb, "hands": 10} for sb in (10, 20, 40, 80, 150, 300, 600, 1200)]
FAULT_SECONDS = 10.0
SLOW_SECONDS = 60.0
DELAY, LOSS = 0.2, 0.02  # each way on every link, and the share of pieces as late as a lost segment makes them
ACTION_SECONDS = 6.0
STACK = 3000  # long enough in starting chips for the faults to meet the tournament running
HOSTS = ("nats", "director", "worker1", "worker2", "gateway", "players")
SERVE = (sys.executable, "-m", "server.cli", "serve", "--log-level", "warning")


def wait_for(what: str, test: Any, timeout: float = 180.0) -> Any:
    """Poll ``test`` until it gives something true, and give that; a busy machine is given ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (found := test()):
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.5)
    return found


class Cluster:
    """The roles on their hosts, and what the players' host sees of them through the gateway. With ``slow``, every
    role reaches NATS, and the players the gateway, through a lossy link on its own host, slow while the file
    ``slow`` exists."""

    def __init__(self, net: Network, logs: Path, slow: Path | None = None) -> None:
        self.net, self.logs, self.slow = net, logs, slow
        self.gateway = f"http://{net.address('gateway')}:8000"
        self.players_url = "http://127.0.0.1:18000" if slow else self.gateway

    def link(self, host: str, listen: int, to: str) -> None:
        """A lossy link on ``host`` from its own ``127.0.0.1:listen`` to ``to``."""
        assert self.slow is not None
        self.net.run(host, [sys.executable, "-m", "tests.lossy_link", "--listen", f"127.0.0.1:{listen}", "--to", to,
                            "--delay", str(DELAY), "--jitter", str(DELAY / 10), "--loss", str(LOSS), "--seed",
                            str(len(self.net.processes)), "--while-exists", str(self.slow)])

    def start(self, nats: str, passwords: dict[str, str]) -> None:
        net = self.net
        if self.slow is not None:
            for host in ("director", "worker1", "worker2", "gateway"):
                self.link(host, 14222, nats.removeprefix("nats://"))
            self.link("players", 18000, self.gateway.removeprefix("http://"))

        def env(user: str) -> dict[str, str]:
            reached = "nats://127.0.0.1:14222" if self.slow is not None else nats
            return {**os.environ,
                    launcher.NATS_ENV: reached.replace("nats://", f"nats://{user}:{passwords[user]}@", 1)}

        net.run("director", [*SERVE, "--role", "director", "--host", net.address("director"), "--port", "8000",
                             "--admin-token", TOKEN, "--memory", "--hand-pause", "0.02"], env("director"),
                self.logs / "director.log")
        for worker in ("worker1", "worker2"):
            net.run(worker, [*SERVE, "--role", "tables"], env("tables"), self.logs / f"{worker}.log")
        net.run("gateway", [*SERVE, "--role", "gateway", "--host", net.address("gateway"), "--port", "8000",
                            "--admin-token", TOKEN], env("gateway-1"), self.logs / "gateway.log")
        wait_for("every role registered", lambda: sorted(process["role"] for process in (
            self.ask("/api/cluster") or {"processes": []})["processes"]) == ["director", "gateway", "tables", "tables"])

    def ask(self, path: str) -> Any:
        return self.net.fetch("players", self.gateway + path, ADMIN)

    def hurry(self, tournament: str) -> None:
        """The faults are over: the levels to come are raised to blinds that end the tournament in a few hands, as
        a director would edit them, where the structure's would play on for a minute or two more."""
        level = (self.ask(f"/api/tournaments/{tournament}") or {}).get("level", len(LEVELS))
        for number in range(level + 1, len(LEVELS) + 1):
            big_blind = PLAYERS * STACK // 8 * 2 ** (number - level - 1)
            self.net.fetch("players", f"{self.gateway}/api/tournaments/{tournament}/levels/{number}", ADMIN,
                           {"small_blind": big_blind // 2, "big_blind": big_blind})

    def hands(self, tournament: str) -> list[tuple[int, int]]:
        """(table, hand) of every hand finished so far."""
        trail = self.ask(f"/api/tournaments/{tournament}/events") or []
        return [(event["table"], event["hand"]) for event in trail if event.get("type") == "hand_finished"]

    def tally(self, tournament: str) -> dict[str, int]:
        """Hands finished and hands voided so far."""
        trail = self.ask(f"/api/tournaments/{tournament}/events") or []
        return {"hands": sum(event.get("type") == "hand_finished" for event in trail),
                "voided": sum(event.get("type") == "hand_voided" for event in trail)}

    def swarm(self, config: Path, out: Path, think: str) -> subprocess.Popen[Any]:
        return self.net.run("players", [sys.executable, "-m", "server.cli", "swarm", "--url", self.players_url,
                                        "--players", str(PLAYERS), "--create", "--admin-token", TOKEN, "--config",
                                        str(config), "--mix", "tag=2,station=1,pushfold=1", "--think", think,
                                        "--seed", "53", "--json", "--threshold", "finished",
                                        # the faults are the test's: the swarm's poll finds the cluster away
                                        # while the gateway or the director is cut off, and says so below
                                        "--away-limit", "600"], log=out)

    def tournament(self) -> str:
        found: str = wait_for("the swarm's tournament", lambda: (self.ask("/api/tournaments") or [{}])[0].get("id"))
        return found


def played(out: Path) -> dict[str, Any]:
    """The swarm's report, the last line of JSON in its output."""
    report: dict[str, Any] = json.loads([line for line in out.read_text().splitlines() if line.startswith("{")][-1])
    return report


def definition_file(directory: Path, stack: int) -> Path:
    """The tournament: long enough in starting chips for the faults to meet it running, and no longer."""
    config = directory / "definition.json"
    config.write_text(json.dumps(definition(PLAYERS, 6, action_seconds=ACTION_SECONDS, paid=4, stack=stack,
                                            levels=LEVELS)))
    return config


def test_a_cluster_between_hosts_lives_through_cut_links_partitions_and_a_minute_of_slow_lossy_links(tmp_path):
    """Under a swarm, in turn for 10 s each: a worker cut off from NATS (its tables taken over, its late words
    fenced), the other worker muted (it hears NATS but cannot speak to it), the gateway cut off from NATS while
    its players stay connected to it, and the director cut off from NATS; then every link (each role to NATS, the
    players to the gateway) 200 ms each way, with jitter and 2% loss, for a minute of play. The tournament
    finishes, the swarm sees no error, an action's round trip stays within its clock, every chip and cent is
    accounted for, and no hand is played twice."""
    slow = tmp_path / "slow"
    with Network(HOSTS) as net:
        passwords = {user: secrets.token_hex(24) for user in launcher.permissions(1)}
        with nats_on(net, "nats", launcher.configuration(passwords, 1)) as nats:
            cluster = Cluster(net, tmp_path, slow)
            cluster.start(nats, passwords)
            out = tmp_path / "swarm.out"
            swarm = cluster.swarm(definition_file(tmp_path, STACK), out, "0.1-0.3")
            tournament = cluster.tournament()
            faults = [("worker1 cut off from NATS", lambda on: net.block("worker1", "nats", on)),
                      ("worker2 heard but not heard", lambda on: net.mute("worker2", "nats", on)),
                      ("the gateway cut off from NATS", lambda on: net.block("gateway", "nats", on)),
                      ("the director cut off from NATS", lambda on: net.block("director", "nats", on)),
                      ("every link slow and lossy", lambda on: slow.touch() if on else slow.unlink())]
            costs: dict[str, dict[str, float]] = {}
            for name, fault in faults:
                wanted = len(cluster.hands(tournament)) + 2
                wait_for(f"hands played before {name}", lambda wanted=wanted: len(cluster.hands(tournament)) >= wanted)
                assert (cluster.ask(f"/api/tournaments/{tournament}") or {}).get("status") == "running", name
                before = cluster.tally(tournament)
                fault(True)
                try:
                    time.sleep(SLOW_SECONDS if name.startswith("every link") else FAULT_SECONDS)  # on the wall
                finally:
                    fault(False)
                healed, during = time.monotonic(), cluster.tally(tournament)
                wait_for(f"a hand after {name}", lambda done=during["hands"]: cluster.tally(tournament)["hands"] > done)
                costs[name] = {"hands played during it": during["hands"] - before["hands"],
                               "hands voided": cluster.tally(tournament)["voided"] - before["voided"],
                               "seconds to the next hand after it": round(time.monotonic() - healed, 1)}
            (tmp_path / "costs.json").write_text(json.dumps(costs, indent=1))  # the figures of docs/deployment.md
            cluster.hurry(tournament)
            assert swarm.wait(480) == 0, out.read_text()[-3000:]
            shown = wait_for("the tournament's result", lambda: cluster.ask(f"/api/tournaments/{tournament}"))
            hands = cluster.hands(tournament)
    report = played(out)
    assert report["finished"] and report["errors"] == 0, {key: report[key] for key in ("errors", "error_codes")}
    assert report["server_away"]["times"] >= 1 and not report["server_away"]["at_the_end"]  # away, then back
    assert costs["every link slow and lossy"]["hands played during it"] > 0, costs
    assert report["latency_ms"]["p99"] < ACTION_SECONDS * 1000, report["latency_ms"]  # within the clock
    assert_settled(shown, PLAYERS)
    assert [hand for hand, count in Counter(hands).items() if count > 1] == []  # no hand played twice
