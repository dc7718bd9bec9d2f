"""Hosts of their own on this machine, for a network's faults: each a Linux network namespace, joined to one
switch (a bridge in a namespace of its own) by a veth pair, so that the processes of a cluster talk over a
network as they would between machines, and the test can cut it.

Nothing here touches the machine's own network: every address is in the switch's private subnet, and every
namespace, link and route goes with the ``Network`` at its end. This kernel has neither the ``netem`` queueing
discipline nor tc's actions and classifiers, so a fault is made with what routing has:

- a link down (``cut``): the host hears nothing and says nothing, as a pulled cable;
- a blackhole route (``block``, ``mute``): packets from one host to another are dropped where they leave, in
  both directions or, muted, in one only (the host hears but cannot speak, a one-way partition).

Making namespaces needs root (CI runs as root); ``Network`` skips the test, saying why, where it cannot.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

SUBNET = "10.213.0"  # private, and only inside the switch's namespaces


class Network:
    """Named hosts on one switch; ``address(name)`` is where each is reached."""

    def __init__(self, names: Sequence[str]) -> None:
        self.tag = secrets.token_hex(3)
        self.switch = f"mtt{self.tag}-switch"
        self.hosts = {name: f"mtt{self.tag}-{name}" for name in names}
        self.processes: list[subprocess.Popen[Any]] = []

    def address(self, name: str) -> str:
        return f"{SUBNET}.{10 + list(self.hosts).index(name)}"

    def _link(self, name: str) -> str:
        """The switch's end of the host's veth pair (at most 15 characters, as Linux wants)."""
        return f"m{self.tag}{list(self.hosts).index(name)}"

    def __enter__(self) -> Network:
        if os.geteuid() != 0:
            pytest.skip("network namespaces need root (CI runs as root)")
        try:
            ip("netns", "add", self.switch)
        except (OSError, subprocess.CalledProcessError) as error:
            pytest.skip(f"network namespaces cannot be made here: {error}")
        try:
            inside(self.switch, "ip", "link", "add", "br0", "type", "bridge")
            inside(self.switch, "ip", "link", "set", "br0", "up")
            for name, namespace in self.hosts.items():
                ip("netns", "add", namespace)
                inside(namespace, "ip", "link", "set", "lo", "up")
                outer = self._link(name)
                ip("link", "add", outer, "netns", self.switch, "type", "veth", "peer", "name", "eth0", "netns",
                   namespace)
                inside(self.switch, "ip", "link", "set", outer, "master", "br0", "up")
                inside(namespace, "ip", "addr", "add", f"{self.address(name)}/24", "dev", "eth0")
                inside(namespace, "ip", "link", "set", "eth0", "up")
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *_: object) -> None:
        for process in reversed(self.processes):
            if process.poll() is None:
                process.kill()
            process.wait(10)
        for namespace in [*self.hosts.values(), self.switch]:
            subprocess.run(["ip", "netns", "del", namespace], capture_output=True, check=False)

    def run(self, name: str, argv: Sequence[str], env: dict[str, str] | None = None,
            log: Path | None = None) -> subprocess.Popen[Any]:
        """``argv`` on host ``name``; its output to ``log`` (a file: a pipe nobody reads would fill)."""
        with open(log if log is not None else os.devnull, "w") as out:  # the child keeps its own copy
            process = subprocess.Popen(["ip", "netns", "exec", self.hosts[name], *argv], env=env, stdout=out,
                                       stderr=subprocess.STDOUT)
        self.processes.append(process)
        return process

    def cut(self, name: str, down: bool = True) -> None:
        """The host's cable pulled (or put back)."""
        inside(self.switch, "ip", "link", "set", self._link(name), "down" if down else "up")

    def block(self, one: str, other: str, blocked: bool = True) -> None:
        """Nothing passes between ``one`` and ``other`` (or it passes again)."""
        self.mute(one, other, blocked)
        self.mute(other, one, blocked)

    def mute(self, speaker: str, listener: str, muted: bool = True) -> None:
        """What ``speaker`` sends ``listener`` is dropped as it leaves; what ``listener`` sends still arrives."""
        inside(self.hosts[speaker], "ip", "route", "add" if muted else "del", "blackhole",
               f"{self.address(listener)}/32")

    def fetch(self, name: str, url: str, headers: dict[str, str] | None = None, body: Any = None) -> Any:
        """The JSON (or the lines of JSON) at ``url``, asked from host ``name`` (posted ``body``, if given); None if
        it does not answer."""
        ask = f"httpx.get({url!r}, " if body is None else f"httpx.post({url!r}, json={body!r}, "
        code = ("import httpx, json, sys\n"
                "try:\n"
                f"    answer = {ask}headers={headers or {}!r}, timeout=10)\n"
                "except httpx.HTTPError:\n"
                "    sys.exit(3)\n"
                "sys.stdout.write(answer.text if answer.status_code == 200 else '')\n")
        done = subprocess.run(["ip", "netns", "exec", self.hosts[name], sys.executable, "-c", code],
                              capture_output=True, text=True, timeout=60, check=False)
        if done.returncode != 0 or not done.stdout:
            return None
        try:
            return json.loads(done.stdout)
        except json.JSONDecodeError:
            return [json.loads(line) for line in done.stdout.splitlines()]


def ip(*arguments: str) -> None:
    subprocess.run(["ip", *arguments], check=True, capture_output=True, timeout=30)


def inside(namespace: str, *argv: str) -> None:
    subprocess.run(["ip", "netns", "exec", namespace, *argv], check=True, capture_output=True, timeout=30)


@contextmanager
def nats_on(network: Network, host: str, configuration: str, port: int = 4222) -> Iterator[str]:
    """A JetStream nats-server on ``host`` with ``configuration``'s users; its address, ``nats://HOST:PORT``."""
    from server.cluster.launcher import nats_binary

    binary = nats_binary()
    if binary is None:
        pytest.skip("nats-server is not installed (./dev test installs it with apt-get: the nats-server package)")
    with tempfile.TemporaryDirectory(prefix="mttsim-netns-nats-") as directory:
        config = Path(directory) / "nats.conf"
        config.touch(mode=0o600)
        config.write_text(configuration)
        network.run(host, [binary, "-c", str(config), "-a", network.address(host), "-p", str(port), "-js", "-sd",
                           str(Path(directory) / "js")])
        yield f"nats://{network.address(host)}:{port}"
