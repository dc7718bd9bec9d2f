"""``mttsim serve`` starts the server on the given port and prints the admin token it made."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import httpx

from tests.live_server import definition, free_port


def test_serve_prints_a_token_that_works_and_answers_rest():
    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--memory"],
                               stdout=subprocess.PIPE, text=True)
    try:
        token_line = process.stdout.readline()
        assert token_line.startswith("admin token: ")
        token = token_line.split(": ", 1)[1].strip()
        deadline = time.monotonic() + 20
        while True:
            try:
                response = httpx.get(f"http://127.0.0.1:{port}/api/tournaments")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.1)
        assert response.status_code == 200 and response.json() == []
        refused = httpx.post(f"http://127.0.0.1:{port}/api/tournaments/x/start", headers={"Authorization": "Bearer no"})
        assert refused.status_code == 401
        accepted = httpx.post(f"http://127.0.0.1:{port}/api/tournaments/x/start",
                              headers={"Authorization": f"Bearer {token}"})
        assert accepted.status_code == 404  # past the admin check: there is no tournament x
    finally:
        process.terminate()
        process.wait(10)


def test_a_server_raises_its_limit_of_open_files_to_the_hard_limit():
    """Started at 256 open files, the limit many systems give a process, it could hold about 250 clients."""
    program = """
import resource
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (256, hard))
from server.cli import allow_many_sockets
allow_many_sockets()
print(resource.getrlimit(resource.RLIMIT_NOFILE)[0] == hard > 256)
"""
    shown = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, check=True)
    assert shown.stdout.strip() == "True", shown.stderr


def test_the_command_line_has_a_version_and_every_option_a_help_its_default_and_an_example(capsys):
    import argparse

    import pytest

    from server import cli

    with pytest.raises(SystemExit) as shown:
        cli.main(["--version"])
    assert shown.value.code == 0 and capsys.readouterr().out.startswith("mttsim ")
    parser = cli.build_parser()
    parser_of = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(parser_of) == {"demo", "simulate", "serve", "cluster", "stats", "structure", "swarm", "swarm-merge",
                              "swarm-worker"}
    for name, parser in parser_of.items():
        for action in parser._actions:
            if not isinstance(action, argparse._HelpAction):
                assert action.help, f"mttsim {name} {action.option_strings or action.dest} has no help"
        text = parser.format_help()
        assert "example:\n  mttsim " + name in text, name
        assert "``" not in text
    assert "(default: 8000)" in parser_of["serve"].format_help()
    assert "--log-level" in parser_of["swarm"].format_help() and "--log-json" in parser_of["cluster"].format_help()
    assert "``" not in parser.format_help()


def test_serve_at_info_logs_each_request_as_a_json_line():
    import json

    port = free_port()
    process = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--memory",
                                "--admin-token", "t", "--log-level", "info", "--log-json"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                httpx.get(f"http://127.0.0.1:{port}/api/tournaments")
                break
            except httpx.ConnectError:
                assert time.monotonic() < deadline, "the server did not come up"
                time.sleep(0.1)
    finally:
        process.terminate()
        _, err = process.communicate(timeout=20)
    lines = [json.loads(line) for line in err.splitlines() if line.startswith("{")]
    assert any(line["logger"] == "uvicorn.access" and "/api/tournaments" in line["message"] for line in lines), err
    assert all({"time", "level", "logger", "message"} <= set(line) for line in lines)


def test_mttsim_cluster_on_a_bus_in_memory_runs_every_role_in_one_process_and_stops_on_sigterm():
    """``mttsim cluster --bus memory``: a director, two workers and two gateways in one process, with no
    nats-server; a tournament through a gateway finishes, and SIGTERM stops it all with code 0."""
    import signal

    from tests.cluster import ADMIN, free_ports_in_a_row
    from tests.live_server import definition

    port = free_ports_in_a_row(3)
    process = subprocess.Popen([sys.executable, "-m", "server.cli", "cluster", "--bus", "memory", "--port", str(port),
                                "--table-workers", "2", "--gateways", "2", "--admin-token", ADMIN["Authorization"][7:],
                                "--hand-pause", "0.02", "--memory"], stdout=subprocess.PIPE, text=True)
    try:
        lines = [process.stdout.readline() for _ in range(6)]
        assert lines[0] == "bus: in this process\n" and lines[2] == f"director: http://127.0.0.1:{port + 2}/\n"
        gateway = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            listed = httpx.get(f"{gateway}/api/cluster", headers=ADMIN, timeout=10).json()["processes"]
            if sorted(entry["role"] for entry in listed) == ["director", "gateway", "gateway", "tables", "tables"]:
                break
            assert time.monotonic() < deadline, listed
            time.sleep(0.1)
        body = definition(12, 6, action_seconds=2.0, paid=3)
        tournament = httpx.post(f"{gateway}/api/tournaments", json=body, headers=ADMIN).json()["id"]
        assert httpx.post(f"{gateway}/api/tournaments/{tournament}/bots", headers=ADMIN,
                          json={"count": 12, "mix": "pushfold=1", "think_min": 0, "think_max": 0.01}).status_code == 201
        assert httpx.post(f"{gateway}/api/tournaments/{tournament}/start", headers=ADMIN).status_code == 200
        while httpx.get(f"{gateway}/api/tournaments/{tournament}", timeout=10).json()["status"] != "finished":
            assert time.monotonic() < deadline + 120, "the tournament did not finish"
            time.sleep(0.2)
        process.send_signal(signal.SIGTERM)
        assert process.wait(30) == 0
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(10)


def descendants(root: int) -> set[int]:
    """The live processes below ``root`` (zombies count as gone), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                fields = open(f"/proc/{entry}/stat").read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[0] != "Z":
                children.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.add(child)
            todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        return open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_a_server_killed_outright_with_plans_in_flight_leaves_no_process_behind():
    """Each SIGKILL of ``mttsim serve`` left its fork server, resource tracker and the plan's idle workers running
    (about 50 MB each). Now they die with it (bots/lifeline.py): within 5 s none of the processes it started is
    left."""
    port = free_port()
    server = subprocess.Popen([sys.executable, "-m", "server.cli", "serve", "--port", str(port), "--memory",
                               "--plan-runs", "3"], stdout=subprocess.PIPE, text=True)
    try:
        token = server.stdout.readline().split(": ", 1)[1].strip()
        admin = {"Authorization": f"Bearer {token}"}
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as client:
            deadline = time.monotonic() + 20
            while True:
                try:
                    client.get("/api/tournaments")
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline, "the server did not come up"
                    time.sleep(0.1)
            body = definition(2_000, 9, paid=3)
            body["levels"] = [{"small_blind": 10 * 2**n, "big_blind": 20 * 2**n, "minutes": 20} for n in range(20)]
            tournament = client.post("/api/tournaments", json=body, headers=admin).json()["id"]
            for number in range(1_500):
                client.post(f"/api/tournaments/{tournament}/register", json={"name": f"player {number}"})
            assert client.post(f"/api/tournaments/{tournament}/start", headers=admin).status_code < 300
            deadline = time.monotonic() + 60
            while len(started := descendants(server.pid)) < 4:  # the fork server, its tracker, the pool's workers
                assert time.monotonic() < deadline, f"no plan in flight: {started}"
                time.sleep(0.05)
        server.kill()
        server.wait(10)
        deadline = time.monotonic() + 5
        while any(alive(pid) for pid in started) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [(pid, open(f"/proc/{pid}/cmdline").read().replace("\0", " ")[:200]) for pid in started
                    if alive(pid)]
    finally:
        server.kill()
        for pid in descendants(server.pid):
            os.kill(pid, 9)
