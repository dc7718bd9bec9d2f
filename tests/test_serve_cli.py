"""``mttsim serve`` starts the server on the given port and prints the admin token it made."""

from __future__ import annotations

import subprocess
import sys
import time

import httpx

from tests.live_server import free_port


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
