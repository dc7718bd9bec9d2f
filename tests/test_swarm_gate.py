"""The swarm as a load test a pipeline can stop on: thresholds and their exit codes, a run stopped by
its duration or a signal that still leaves its report, CSVs and the tournament as asked, the time series, and
the HTML report with its charts, opened in Chromium."""

from __future__ import annotations

import asyncio
import csv
import json
from xml.etree import ElementTree
import signal
import subprocess
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import Any

import httpx
import pytest
from playwright.async_api import expect

from bots import thresholds
from bots.loadreport import HISTORY_COLUMNS, HISTORY_EXTRA, STATS_COLUMNS, merged_report
from bots.timeline import merged
from tests.live_server import ADMIN, definition, live_server

on_the_session_loop = pytest.mark.asyncio(loop_scope="session")  # beside the browser tests' Chromium
RISING = [{"small_blind": 10 * 2**k, "big_blind": 20 * 2**k, "hands": 6} for k in range(10)]
SLOW = [{"small_blind": 10, "big_blind": 20, "minutes": 60}]  # a tournament that outlasts any test


def deep(tmp_path: Path) -> str:
    """Twelve players 5,000 big blinds deep: nobody is out in the few hands before a fault, so every bot playing
    then is one to come back."""
    path = tmp_path / "deep.json"
    path.write_text(json.dumps(definition(12, 6, action_seconds=2, stack=100_000, levels=SLOW)))
    return str(path)


def config(tmp_path: Path, players: int, levels: list[dict]) -> str:
    path = tmp_path / "definition.json"
    path.write_text(json.dumps(definition(players, 6, action_seconds=2, stack=500, levels=levels)))
    return str(path)


async def swarm(live, *arguments: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "swarm", "--url", live.http, "--admin-token", "admin-token", *arguments,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)


def rows(path: Path) -> list[dict[str, str]]:
    with open(path) as opened:
        return list(csv.DictReader(opened))


@pytest.mark.process
@on_the_session_loop
async def test_a_threshold_that_fails_exits_99_and_every_file_holds_the_run(tmp_path):
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        prefix = tmp_path / "run"
        process = await swarm(live, "--players", "12", "--create", "--config", config(tmp_path, 12, RISING),
                              "--seed", "3", "--interval", "0.5", "--csv", str(prefix), "--json",
                              "--threshold", "latency.p50<0.001ms", "--threshold", "errors==0",
                              "--threshold", "finished", "--html", str(tmp_path / "report.html"),
                              "--junit", str(tmp_path / "junit.xml"), "--summary-export", str(tmp_path / "run.json"))
        out, err = await asyncio.wait_for(process.communicate(), 180)
        assert process.returncode == thresholds.THRESHOLD_FAILED, err.decode()
        report = json.loads(out)
        assert [(c["threshold"], c["passed"]) for c in report["thresholds"]] == [
            ("latency.p50<0.001ms", False), ("errors==0", True), ("finished", True), (thresholds.ANSWERED, True)]
        assert b"a threshold failed" in err
        assert (report["exit_code"], report["verdict"]) == (thresholds.THRESHOLD_FAILED,
                                                            "a threshold failed: latency.p50<0.001ms")
        assert json.loads((tmp_path / "run.json").read_text()) == report  # the same report, beside the log
        suite = ElementTree.parse(tmp_path / "junit.xml").getroot()  # a pipeline's test report
        cases = suite.findall("testcase")
        assert (suite.tag, suite.get("tests"), suite.get("failures")) == ("testsuite", "4", "1")
        failed = [case.find("failure") for case in cases if case.find("failure") is not None]
        assert [case.get("name") for case in cases if case.find("failure") is not None] == ["latency.p50<0.001ms"]
        assert failed[0].text.startswith("latency.p50<0.001ms: the run's figure was ")  # its own figure
        assert failed[0].text.endswith(" ms")
        run = report["run"]  # what wrote it, and how it was asked, without the token
        assert run["version"] and run["commit"] and run["command"].startswith("mttsim swarm --url ")
        assert "--admin-token ***" in run["command"] and report["started_at"]

        history = rows(Path(f"{prefix}_stats_history.csv"))
        assert list(history[0]) == [*HISTORY_COLUMNS, *HISTORY_EXTRA]
        assert len(history) == len(report["history"]) >= 2
        # a row per interval: each covers from the row before, none shorter than the interval but the last (the
        # stop's); a busy machine may make an interval longer, never skip a row
        series = report["history"]
        assert all(abs(row["elapsed_s"] - sum(r["seconds"] for r in series[:n + 1])) < 0.01 * (n + 1)
                   for n, row in enumerate(series))
        assert all(row["seconds"] >= 0.499 for row in series[:-1])
        assert sum(int(row["Total Request Count"]) - int(previous["Total Request Count"])
                   for previous, row in zip([{"Total Request Count": "0"}, *history], history)) == report["actions"]
        assert int(history[-1]["Players Left"]) == 1
        stats = rows(Path(f"{prefix}_stats.csv"))
        assert list(stats[0]) == STATS_COLUMNS
        assert [r["Name"] for r in stats] == ["act -> acted", "register", "connect", "reconnect", "snapshot", "watch",
                                              "GET /api/tournaments", "Aggregated"]
        assert int(stats[0]["Request Count"]) == report["actions"]
        reconnects = stats[3]  # nobody reconnected: no sample, and Locust's N/A rather than a measured-looking 0
        assert reconnects["Request Count"] == "0" and reconnects["50%"] == reconnects["99%"] == "N/A"
        assert list(rows(Path(f"{prefix}_failures.csv"))) == []  # no failure: the header alone
        assert Path(f"{prefix}_failures.csv").read_text().startswith("Method,Name,Error,Occurrences")


@pytest.mark.process
@on_the_session_loop
async def test_sigterm_mid_run_leaves_the_report_the_csvs_and_a_cancelled_tournament(tmp_path):
    async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
        prefix = tmp_path / "cut"
        process = await swarm(live, "--players", "12", "--create", "--config", config(tmp_path, 12, SLOW),
                              "--think", "0.05-0.1", "--interval", "0.5", "--csv", str(prefix), "--json",
                              "--html", str(tmp_path / "cut.html"))
        async with httpx.AsyncClient(base_url=live.http) as client:
            while not (listed := (await client.get("/api/tournaments")).json()) or listed[0]["status"] != "running":
                await asyncio.sleep(0.1)
            await asyncio.sleep(2.0)  # some play measured
            process.send_signal(signal.SIGTERM)
            out, err = await asyncio.wait_for(process.communicate(), 60)
            assert process.returncode == thresholds.CUT_SHORT, err.decode()
            report = json.loads(out)
            assert report["stopped"] == "signal" and report["tournament_after"] == "cancelled"
            assert report["verdict"].startswith("cut short")  # the report says what the exit code says
            assert report["verdict"] in (tmp_path / "cut.html").read_text()
            assert report["actions"] > 0 and report["history"]
            assert (await client.get(f"/api/tournaments/{report['tournament']}")).json()["status"] == "cancelled"
        assert len(rows(Path(f"{prefix}_stats_history.csv"))) == len(report["history"])
        # a row counts the actions answered; the signal may come while a bot's last action awaits its answer,
        # at most one a bot
        answered = int(rows(Path(f"{prefix}_stats.csv"))[0]["Request Count"])
        assert report["actions"] - report["players"] <= answered <= report["actions"]


@pytest.mark.process
@on_the_session_loop
async def test_a_run_stopped_by_its_duration_leaves_a_tournament_it_joined_to_play_on(tmp_path):
    async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live, \
            httpx.AsyncClient(base_url=live.http) as client:
        body = definition(12, 6, action_seconds=2, stack=500, levels=SLOW)
        tournament = (await client.post("/api/tournaments", json=body, headers=ADMIN)).json()["id"]
        starting = asyncio.create_task(start_when_full(client, tournament, 12))
        process = await swarm(live, "--players", "12", "--tournament", tournament, "--think", "0.05-0.1",
                              "--duration", "3", "--interval", "1")
        out, err = await asyncio.wait_for(process.communicate(), 60)
        await starting
        assert process.returncode == thresholds.OK, err.decode()  # the default without `finished`: errors==0
        said = out.decode()
        assert "stopped by the --duration; the tournament: left" in said
        assert "threshold errors==0: passed" in said and "threshold finished" not in said
        # Not on a terminal (a pipeline's log): a plain line per row of the time series.
        rows_said = [line for line in err.decode().splitlines() if line.startswith("mttsim swarm: ")]
        assert rows_said and all("players left" in line and "actions/s" in line for line in rows_said)
        assert (await client.get(f"/api/tournaments/{tournament}")).json()["status"] == "running"


async def start_when_full(client: httpx.AsyncClient, tournament: str, players: int) -> None:
    while (await client.get(f"/api/tournaments/{tournament}")).json()["entries"] < players:
        await asyncio.sleep(0.1)
    await asyncio.sleep(0.5)
    assert (await client.post(f"/api/tournaments/{tournament}/start", headers=ADMIN)).status_code == 200


@pytest.mark.process
@on_the_session_loop
async def test_a_swarm_that_cannot_run_or_is_told_nonsense_says_so_with_its_own_code(tmp_path):
    """Nonsense is refused before anything runs (2); a server that is not there is waited for (here 2 s), then
    the run could not start (3), and a pipeline still gets its JUnit file (a failed case saying why) and its
    summary."""
    junit, summary = tmp_path / "junit.xml", tmp_path / "run.json"
    for arguments, code, said in (
            (["--threshold", "latency.p99<fast"], thresholds.USAGE, "threshold 'latency.p99<fast'"),
            (["--threshold", "speed>1"], thresholds.USAGE, "no metric 'speed'"),
            (["--threshold", "errors<5ms"], thresholds.USAGE, "errors is a count"),
            (["--wait-for-server", "0"], thresholds.USAGE, "--wait-for-server: seconds above 0"),
            (["--wait-for-server", "2", "--junit", str(junit), "--summary-export", str(summary)],
             thresholds.COULD_NOT_RUN, "could not run against http://127.0.0.1:9")):
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server.cli", "swarm", "--url", "http://127.0.0.1:9", "--players", "2", "--create",
            "--admin-token", "x", *arguments, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(process.communicate(), 60)
        assert process.returncode == code and said in err.decode(), (arguments, err.decode())
    report = json.loads(summary.read_text())
    assert report["exit_code"] == thresholds.COULD_NOT_RUN and "127.0.0.1:9" in report["could_not_run"]
    suite = ElementTree.parse(junit).getroot()
    failures = suite.findall("testcase/failure")
    assert int(suite.get("failures")) == len(failures) >= 1
    answered = next(case for case in suite.findall("testcase") if case.get("name") == thresholds.ANSWERED)
    assert "could not run against http://127.0.0.1:9" in answered.find("failure").text


def test_thresholds_read_as_k6_writes_them():
    """Any percentile of any kind of request, read from the report's histograms (so that a merged report is
    judged alike), rates per action, counts, yes/no, and ``:abort``."""
    from bots.histogram import histogram

    latencies = [0.003] * 500 + [0.009] * 450 + [0.04] * 45 + [0.09] * 5  # seconds: p99 40 ms, p99.9 90 ms
    report = {"histograms": {"latency_ms": histogram(latencies), "event_lag_ms": histogram([0.3] * 10),
                             "connect_ms": histogram([0.6] * 10)},
              "errors": 2, "actions": 1000, "missed_deadlines": 6, "finished": False}
    checked = thresholds.check([thresholds.parse(text) for text in (
        "latency.p99<100ms", "latency.p99 < 0.03s", "event_lag.p99<250ms", "errors==0", "missed_deadlines<=5",
        "finished", "latency.p99.9<80ms", "errors.rate<0.001", "connect.p95<500ms", "errors.rate<=0.002")], report)
    assert [c["passed"] for c in checked] == [True, False, False, False, False, False, False, False, False, True]
    assert abs(checked[1]["actual"] - 40.0) < 1 and checked[1]["unit"] == "ms"  # within a bucket's 2%
    assert abs(checked[6]["actual"] - 90.0) < 2 and checked[7]["actual"] == 0.002 and checked[7]["unit"] == \
        "per action"
    aborting = thresholds.parse("latency.p99<30ms : abort after 10s")
    assert aborting.abort == 10.0 and thresholds.parse("errors==0:abort").abort == 0.0
    assert thresholds.failing([aborting], report, played=5.0) is None  # its grace is not over
    assert thresholds.failing([aborting], report, played=10.0) == aborting
    for nonsense in ("latency.p100<1", "errors.rate<1ms", "finished:abort", "connect.p95", "latency.p99<1ms:later",
                     "connect.p99 over 5s<1s", "latency.p99 over 0s<1s", "errors over 5s<1"):
        with pytest.raises(ValueError):
            thresholds.parse(nonsense)


def test_a_refused_bot_backs_off_doubling_to_five_seconds_at_random_in_the_upper_half():
    import random

    from bots.client import backoff

    rng = random.Random(4)
    for tries, step in ((1, 0.25), (2, 0.5), (3, 1.0), (5, 4.0), (6, 5.0), (40, 5.0)):
        pauses = [backoff(tries, rng) for _ in range(200)]
        assert step / 2 <= min(pauses) and max(pauses) <= step, tries
        assert max(pauses) - min(pauses) > step / 4  # spread: a swarm's retries never come in one wave
    mean = sum(backoff(50, rng) for _ in range(10_000)) / 10_000
    assert 300 / mean == pytest.approx(80, rel=0.05)  # 300 bots at a server that is down: about 80 tries a second


def test_a_window_of_the_time_series_fails_on_what_the_whole_run_hides():
    """``over Ns``: the worst of every window of N seconds ending at a row (k6 has no such form; Locust none)."""
    def row(at: float, lag_s: list[float], actions: int = 100, away: float = 0.0) -> dict:
        return {"at": at, "seconds": 1.0, "latency_ms": histogram([0.002] * actions), "actions": actions,
                "event_lag_ms": histogram(lag_s), "server_away_s": away}

    from bots.histogram import histogram

    quiet = [0.001] * 20
    history = [row(1000.0 + k, quiet) for k in range(30)]
    history[12] = row(1012.0, [3.0] * 5 + [0.001] * 200, actions=0, away=3.0)  # a freeze: a few late, then none
    report = {"history": history, "histograms": {"event_lag_ms": histogram([0.001] * 780 + [3.0] * 5)},
              "server_away": {"seconds": 3.0, "longest": 3.0, "times": 1}, "actions": 2900, "actions_per_s": 96.7}
    checked = thresholds.check([thresholds.parse(text) for text in (
        "event_lag.p99<1s", "event_lag.p99 over 5s<1s", "actions_per_s over 5s>90", "actions_per_s>90",
        "server_away.seconds<5", "server_away.seconds over 10s<2", "server_away.times==1")], report)
    assert [c["passed"] for c in checked] == [True, False, False, True, True, False, True]
    assert checked[1]["actual"] == pytest.approx(3000, rel=0.02) and checked[2]["actual"] == 80.0
    assert checked[4]["unit"] == "s"
    assert thresholds.parse("event_lag.p99 over 5s<1s:abort after 10s").window == 5.0


def test_a_point_between_gaps_is_drawn_with_a_marker_and_the_time_away_shaded():
    """A row between two rows with no sample (the one after a freeze) is a point no line draws: a marker draws
    it. The rows the server was away are shaded on every chart."""
    from bots.loadreport import charts
    from bots.histogram import histogram

    def row(k: int, lag: list[float], away: float = 0.0) -> dict:
        return {"at": 1000.0 + k, "elapsed_s": float(k), "seconds": 1.0, "users": 4, "players_left": 9,
                "actions": len(lag), "failures": 0, "total_actions": 10 * k, "total_failures": 0, "errors": 0,
                "reconnections": 0, "latency_ms": histogram(lag), "event_lag_ms": histogram(lag),
                "latency_sum_s": 0.01 * k, "latency_min_ms": 1.0, "latency_max_ms": 2.0, "average_bytes": 100,
                "server_away_s": away}

    history = [row(1, [0.002] * 9), row(2, []), row(3, [], away=1.0), row(4, [3.0]), row(5, []),
               row(6, [0.002] * 9)]
    drawn = dict(charts(history))
    lag = drawn["Event lag"]
    assert lag.count('id="lone-2-') == 3  # p50, p95 and p99 of the lone row
    assert 'id="away-2-0"' in lag and all('id="away-' in svg for svg in drawn.values())
    assert 'id="lone-' not in drawn["Bots connected"]  # a line with no gap has no lone point


def test_the_histories_of_shards_merge_interval_by_interval():
    def row(elapsed: float, users: int, actions: int, latency: dict[str, int], left: int) -> dict:
        return {"at": 1000 + elapsed, "elapsed_s": elapsed, "seconds": 1.0, "users": users, "players_left": left,
                "actions": actions, "failures": 0, "total_actions": actions, "total_failures": 0, "errors": 0,
                "reconnections": 0, "latency_ms": latency, "event_lag_ms": {}, "latency_sum_s": 0.0,
                "latency_min_ms": 1.0, "latency_max_ms": 2.0, "average_bytes": 100}

    one = [row(1.0, 3, 10, {"10": 10}, 50), row(2.0, 3, 5, {"20": 5}, 40)]
    two = [row(1.1, 4, 7, {"10": 7}, 49), row(2.05, 2, 2, {"30": 2}, 41)]
    history = merged([one, two], 1.0)
    assert [(r["users"], r["actions"], r["players_left"]) for r in history] == [(7, 17, 49), (5, 7, 41)]
    assert history[0]["latency_ms"] == {"10": 17} and history[1]["latency_ms"] == {"20": 5, "30": 2}
    reports = [{"tournament": "t", "tables": 1, "players": 1, "actions": 1, "errors": 0, "wall_s": 2.0,
                "latency_ms": {"max": 1.0}, "event_lag_ms": {"max": 1.0}, "finished": True,
                "swarm_cpu_percent": 1.0, "histograms": {"latency_ms": {"10": 1}, "event_lag_ms": {"5": 1}},
                "history": history, "interval_s": 1.0} for history in (one, two)]
    assert merged_report(reports)["history"] == merged([one, two], 1.0)


@on_the_session_loop
async def test_the_html_report_opens_in_chromium_with_its_charts_drawn(browser, tmp_path):
    """Made from a real run's report: it opens with no network and no console error, and draws each chart."""
    from bots.loadreport import write_html

    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        process = await swarm(live, "--players", "12", "--create", "--config", config(tmp_path, 12, RISING),
                              "--seed", "5", "--interval", "0.5", "--spawn-rate", "24", "--json")
        out, err = await asyncio.wait_for(process.communicate(), 180)
        assert process.returncode == thresholds.OK, err.decode()
    report = json.loads(out)
    path = tmp_path / "report.html"
    write_html(str(path), report, {"players": 12})
    context = await browser.new_context(offline=True)  # self-contained: nothing to fetch
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    await page.goto(path.as_uri())
    await expect(page.locator("#verdict")).to_have_text("all thresholds passed")
    charts = page.locator("figure.chart")
    titles = [await charts.nth(i).get_attribute("data-title") for i in range(await charts.count())]
    assert titles == ["Actions per second", "Latency, act to acted", "Event lag", "Bots connected", "Players left",
                      "Errors (running total)"]
    for index in range(len(titles)):  # each chart drawn: an SVG with its lines, in sight when scrolled to
        chart = charts.nth(index).locator("svg")
        await chart.scroll_into_view_if_needed()
        await expect(chart).to_be_visible()
        assert await chart.locator("path").count() > 5
    await expect(page.locator("table.thresholds tr.passed")).to_have_count(3)  # and the server answered throughout
    await expect(page.locator("table.kinds tbody tr")).to_have_count(8)
    # the shape's target drawn beside the bots connected
    await expect(page.locator('figure[data-title="Bots connected"] svg text', has_text="target")).to_have_count(1)
    # Locust's 22 columns scroll in their own box: the page itself never scrolls sideways
    assert await page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    await page.screenshot(path=str(Path(__file__).resolve().parents[1] / "test-artifacts" / "swarm-report.png"),
                          full_page=True)
    await context.close()
    assert errors == [] and requests == [path.as_uri()]


@pytest.mark.asyncio
async def test_a_swarm_whose_server_is_killed_stops_at_its_duration_and_leaves_what_it_measured(tmp_path):
    """A server SIGKILLed mid-run held the swarm two minutes past its ``--duration``, deaf to signals,
    and it exited 3 with no file at all. Now it keeps its clock while the server is away (rows at zero in the time
    series), stops at its duration, writes its report, CSVs and HTML, and says with exit code 4 that the server
    was gone at the end."""
    from tests.live_server import TOKEN, free_port, serve

    port = free_port()
    server = serve(port, str(tmp_path / "journal.db"))
    prefix, page = tmp_path / "run", tmp_path / "run.html"
    junit, summary = tmp_path / "junit.xml", tmp_path / "run.json"
    running = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "swarm", "--url", f"http://127.0.0.1:{port}", "--admin-token", TOKEN,
        "--create", "--config", config(tmp_path, 12, SLOW), "--players", "12", "--duration", "15", "--interval", "1",
        "--csv", str(prefix), "--html", str(page), "--json", "--junit", str(junit), "--summary-export", str(summary),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    try:
        await until_hands(port, 3)
        server.kill()
        server.wait(10)
        out, err = await asyncio.wait_for(running.communicate(), 90)  # it held 120 s and more before
    finally:
        if server.poll() is None:
            server.kill()
        if running.returncode is None:
            running.kill()
    assert running.returncode == thresholds.SERVER_LOST, err.decode()[-2000:]
    report = json.loads(out)
    assert report["actions"] > 0 and report["stopped"] == "duration"
    assert report["server_away"]["at_the_end"] and report["server_away"]["times"] == 1
    assert report["tournament_after"].startswith("unknown")
    history = report["history"]
    away = [row for row in history if row["elapsed_s"] > history[-1]["elapsed_s"] - report["server_away"]["seconds"]]
    assert len(away) >= 2 and all(row["actions"] == 0 for row in away[1:]), history  # its rows, at zero
    assert rows(Path(f"{prefix}_stats.csv")) and rows(Path(f"{prefix}_stats_history.csv")) and page.exists()
    assert json.loads(summary.read_text())["exit_code"] == thresholds.SERVER_LOST
    suite = ElementTree.parse(junit).getroot()  # a pipeline's test tab shows the failure: it was 0 failures
    failed = {case.get("name"): case.find("failure") for case in suite.findall("testcase")
              if case.find("failure") is not None}
    assert suite.get("failures") == "1" and list(failed) == [thresholds.ANSWERED]
    assert failed[thresholds.ANSWERED].text.endswith(" s away")


async def swarm_through(running: asyncio.subprocess.Process, servers: list[subprocess.Popen],
                        faults: Coroutine[Any, Any, None], code: int) -> dict:
    """The swarm's report once ``faults`` are done to its server and it ends, which it must with ``code``; the last
    of ``servers`` (a restart appends one) and the swarm are stopped whatever happens."""
    try:
        await faults
        out, err = await asyncio.wait_for(running.communicate(), 120)
    finally:
        servers[-1].kill()
        if running.returncode is None:
            running.kill()
    assert running.returncode == code, err.decode()[-2000:]
    report: dict = json.loads(out)
    return report


async def until_hands(port: int, hands: int) -> None:
    """Until the bots have played ``hands`` hands on the server at ``port``."""
    from tests.live_server import TOKEN

    async with httpx.AsyncClient(base_url=f"http://127.0.0.1:{port}", timeout=10,
                                 headers={"Authorization": f"Bearer {TOKEN}"}) as client:
        for _ in range(1200):
            listed = (await client.get("/api/tournaments")).json()
            if listed and listed[0]["status"] == "running":
                trail = (await client.get(f"/api/tournaments/{listed[0]['id']}/events")).text
                if trail.count('"hand_finished"') >= hands:
                    return
            await asyncio.sleep(0.1)
    raise AssertionError(f"fewer than {hands} hands in two minutes")


@pytest.mark.asyncio
async def test_a_server_down_a_minute_then_back_is_played_through_and_fails_the_run(tmp_path):
    """A server that came back after 60 s: every bot had given up 35 s in (a minute of refusals with no
    backoff, ~900 tries a second from 300 bots), none came back, the time series stopped, and the run exited 0
    with each refused try counted as a reconnection. Now the bots back off up to 5 s and wait as long as the
    swarm does, each reconnects within 10 s of the return (one reconnection a session), the rows tell the
    minute away, and the run fails on "the server answered throughout"."""
    import time

    from tests.live_server import TOKEN, free_port, serve

    port, db = free_port(), str(tmp_path / "journal.db")
    server = serve(port, db)
    junit = tmp_path / "junit.xml"
    running = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "swarm", "--url", f"http://127.0.0.1:{port}", "--admin-token", TOKEN,
        "--create", "--config", deep(tmp_path), "--players", "12", "--think", "0.05-0.2",
        "--duration", "85", "--interval", "1", "--json", "--junit", str(junit), "--threshold", "errors==0",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    servers, moments = [server], {}

    async def a_minute_down() -> None:
        await until_hands(port, 3)
        moments["killed"] = time.time()  # before the kill: a busy machine's wait for the process is after it
        server.kill()
        await asyncio.to_thread(server.wait, 10)
        await asyncio.sleep(60 - (time.time() - moments["killed"]))
        moments["starting"] = time.time()  # before the start: a busy machine's bots may act before serve returns
        servers.append(await asyncio.to_thread(serve, port, db))
        moments["back"] = time.time()

    report = await swarm_through(running, servers, a_minute_down(), thresholds.THRESHOLD_FAILED)
    killed, back = moments["killed"], moments["back"]
    away = report["server_away"]
    assert away["times"] == 1 and 60 <= away["longest"] <= back - killed + 3 and not away["at_the_end"]
    assert report["verdict"].startswith("the server was away")
    assert [(c["threshold"], c["passed"]) for c in report["thresholds"]] == [("errors==0", True),
                                                                             (thresholds.ANSWERED, False)]
    history = report["history"]
    before = [row for row in history if row["at"] < killed]
    after = [row for row in history if row["at"] > back]
    sessions = before[-1]["users"]  # the bots playing when the server went
    assert sessions == 12 and report["reconnections"] == sessions  # a session back, not a refused try
    returned = next(row for row in after if row["users"] == sessions)
    assert returned["at"] - back < 10, [(round(row["at"] - back, 1), row["users"]) for row in after]
    assert sum(row["server_away_s"] for row in history) == pytest.approx(away["seconds"], abs=0.5)
    # The rows wholly inside the time away (written after the kill, the row before them too: a row counts what
    # happened since the one before, and a busy machine writes it late) count no action.
    away_rows = [row for previous, row in zip(history, history[1:])
                 if previous["at"] >= killed and row["at"] <= moments["starting"]]
    assert len(away_rows) >= 30 and all(row["actions"] == 0 for row in away_rows), away_rows
    assert sum(row["actions"] for row in after) > 0  # play went on
    refused = {failure["name"] for failure in report["failures"] if failure["name"] != "act -> acted"}
    assert refused == {"reconnect"}  # the refused tries, counted against the reconnections, not the first connects
    suite = ElementTree.parse(junit).getroot()
    assert [case.get("name") for case in suite.findall("testcase") if case.find("failure") is not None] == [
        thresholds.ANSWERED]


@on_the_session_loop
async def test_a_three_second_freeze_fails_a_windowed_lag_threshold_and_the_report_shows_it(browser, tmp_path):
    """A 4-s freeze passed a whole run's p99 and the report's chart drew nothing of it, and server_away said 1 s
    for 3. A window of 5 s fails on it: every action sent in the freeze waits for its acknowledgement (the event
    lag sees only the events caught on their way out, when there are some), the time away is the freeze's own,
    and the HTML report's latency chart climbs to it with the time away shaded."""
    import os
    import time

    from bots.histogram import percentiles
    from tests.live_server import TOKEN, free_port, serve

    port = free_port()
    server = serve(port, str(tmp_path / "journal.db"))
    page_path = tmp_path / "run.html"
    running = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server.cli", "swarm", "--url", f"http://127.0.0.1:{port}", "--admin-token", TOKEN,
        "--create", "--config", config(tmp_path, 12, SLOW), "--players", "12", "--think", "0.05-0.2",
        "--duration", "12", "--interval", "1", "--json", "--html", str(page_path),
        "--threshold", "latency.p99 over 5s<1s",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    moments = {}

    async def three_seconds_frozen() -> None:
        await until_hands(port, 3)
        moments["frozen"] = time.time()
        os.kill(server.pid, signal.SIGSTOP)
        await asyncio.sleep(3)
        os.kill(server.pid, signal.SIGCONT)

    report = await swarm_through(running, [server], three_seconds_frozen(), thresholds.THRESHOLD_FAILED)
    frozen = moments["frozen"]
    windowed, answered = report["thresholds"]
    assert not windowed["passed"] and windowed["actual"] >= 2500  # the freeze, in the window it fell in
    assert answered["passed"] and 2.5 <= report["server_away"]["seconds"] <= 4.5  # the freeze's own length
    slowest = max(report["history"], key=lambda row: percentiles(row["latency_ms"], (1.0,))[0])
    # the row's stamp is the wall clock as it was written: the freeze's acknowledgements came as it ended
    assert frozen + 2.9 <= slowest["at"] <= frozen + 3 + 1 + 3, (slowest["at"] - frozen)  # a row, a busy loop
    page = await browser.new_page()
    await page.goto(page_path.as_uri())
    lag = page.locator('figure[data-title="Latency, act to acted"] svg')
    ticks = [float(text) for text in await lag.locator("text").all_text_contents()
             if text.strip().replace(".", "", 1).isdigit()]
    assert max(ticks) >= 2500, ticks  # the chart's scale climbs to the freeze: its point is drawn
    await expect(lag.locator('[id^="away-"]')).not_to_have_count(0)  # the time away, shaded
    await expect(page.locator("table.thresholds tr.failed")).to_have_count(1)


@pytest.mark.process
@on_the_session_loop
async def test_a_swarm_killed_outright_leaves_its_csv_rows_up_to_the_last_interval(tmp_path):
    """Nothing was written until the end, so a swarm killed by a CI step's timeout or the OOM killer
    left no file. The CSVs are written again at every row of the time series."""
    async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
        prefix = tmp_path / "killed"
        process = await swarm(live, "--players", "12", "--create", "--config", config(tmp_path, 12, SLOW),
                              "--think", "0.05-0.1", "--interval", "0.5", "--csv", str(prefix))
        history = Path(f"{prefix}_stats_history.csv")
        for _ in range(1200):
            if history.exists() and len(rows(history)) >= 3:
                break
            await asyncio.sleep(0.1)
        process.kill()
        await process.wait()
        kept = rows(history)
        assert len(kept) >= 3 and list(kept[0]) == [*HISTORY_COLUMNS, *HISTORY_EXTRA]
        assert sum(int(row["Total Request Count"]) > 0 for row in kept) >= 1  # play was measured, and kept
        assert rows(Path(f"{prefix}_stats.csv"))[0]["Name"] == "act -> acted"


@pytest.mark.process
@on_the_session_loop
async def test_a_threshold_that_fails_with_abort_stops_the_run_and_says_so(tmp_path):
    """``:abort`` (k6's abortOnFail): a threshold that fails as the run goes stops it, the tournament the swarm
    created is cancelled, and the verdict and the exit code say which threshold."""
    async with live_server(hand_pause=0.05, rate=1000, burst=1000) as live:
        process = await swarm(live, "--players", "12", "--create", "--config", config(tmp_path, 12, SLOW),
                              "--think", "0.05-0.1", "--json", "--threshold", "latency.p50<0.001ms:abort",
                              "--threshold", "errors==0")
        out, err = await asyncio.wait_for(process.communicate(), 120)  # a SLOW tournament never ends by itself
    assert process.returncode == thresholds.THRESHOLD_FAILED, err.decode()
    report = json.loads(out)
    assert report["stopped"] == "aborted" and report["aborted_by"] == "latency.p50<0.001ms:abort"
    assert report["tournament_after"] == "cancelled" and report["actions"] > 0
    assert "stopped for it: latency.p50<0.001ms:abort" in report["verdict"]


@pytest.mark.process
@on_the_session_loop
async def test_a_swarm_plays_players_of_the_users_own_named_by_module_and_function(tmp_path):
    """``--mix module.path:Name=W`` seats a strategy of the user's own (tests/custom_players.py)
    beside the built-in ones; a name that does not load is refused before anything runs."""
    from bots.strategies import parse_mix

    with pytest.raises(ValueError, match="does not import"):
        parse_mix("no.such.module:player=1", custom=True)
    with pytest.raises(ValueError, match="has no function"):
        parse_mix("tests.custom_players:nobody=1", custom=True)
    with pytest.raises(ValueError, match="unknown strategy"):
        parse_mix("tests.custom_players:shover=1")  # the simulator's mix takes the built-in ones only
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        process = await swarm(live, "--players", "12", "--create", "--config", config(tmp_path, 12, RISING),
                              "--mix", "tests.custom_players:shover=3,station=1", "--json")
        out, err = await asyncio.wait_for(process.communicate(), 180)
    assert process.returncode == thresholds.OK, err.decode()
    report = json.loads(out)
    assert report["finished"] and report["errors"] == 0 and report["actions"] > 0


PLAYER_CLASS = """
from bots.plugins import Player


class Counting(Player):
    \"\"\"State of its own per bot, a lifecycle, checks, tags, one exception and one illegal action a bot.\"\"\"

    def on_start(self):
        self.decisions = 0
        self.started = True

    def decide(self, view, rng):
        self.decisions += 1
        self.check("two hole cards", len(view.hole) == 2)
        self.check("checked to", view.legal.can_check)  # fails facing a bet: a check is not an error
        if self.decisions == 2:
            raise RuntimeError("a bug of the plug-in's")
        if self.decisions == 3:
            return "raise", 1  # below any minimum: the plug-in's mistake, not the server's
        if self.decisions % 7 == 0 and view.legal.max_raise_to is not None:
            return "raise", view.legal.max_raise_to, "shove"
        return ("check", None, "check") if view.legal.can_check else ("call", None, "call")

    def on_stop(self):
        self.check("started before it stopped", self.started)
"""


@pytest.mark.process
@on_the_session_loop
async def test_a_class_player_keeps_state_checks_and_tags_and_its_mistakes_are_its_own(tmp_path):
    """A plug-in was one decision function: no state per bot, no lifecycle, no checks, no tags; its exception
    showed only as a traceback (0 errors) and its illegal move was charged to the server (exit 99). A class of
    the user's own, in the current directory, run by the installed command: its checks and tags are in the report
    by name, its exception and its illegal actions are its own errors, and the server's errors stay 0."""
    (tmp_path / "mybots.py").write_text(PLAYER_CLASS)
    async with live_server(hand_pause=0.02, rate=1000, burst=1000) as live:
        process = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "mttsim"), "swarm", "--url", live.http, "--admin-token", "admin-token",
            "--players", "6", "--create", "--config", config(tmp_path, 6, RISING), "--mix", "mybots:Counting=1",
            "--json", "--html", str(tmp_path / "run.html"), "--threshold", "errors==0", "--threshold", "finished",
            cwd=tmp_path, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
        out, err = await asyncio.wait_for(process.communicate(), 180)
    assert process.returncode == thresholds.OK, err.decode()[-3000:]
    report = json.loads(out)
    assert report["finished"] and report["errors"] == 0  # nothing of the plug-in's charged to the server
    kinds = report["plugin_error_kinds"]
    assert kinds["decide: RuntimeError: a bug of the plug-in's"] == 6  # once a bot: its own count of decisions
    assert kinds["illegal action: raise to 1"] == 6 and report["plugin_errors"] == 12
    assert report["provoked_errors"] == 6  # the server's refusals of the illegal raises, expected
    checks = report["checks"]
    assert checks["two hole cards"]["failed"] == 0 and checks["two hole cards"]["passed"] > 0
    assert checks["checked to"]["failed"] > 0 and report["checks_failed"] == checks["checked to"]["failed"]
    assert checks["started before it stopped"] == {"passed": 6, "failed": 0}  # on_start, then on_stop, each bot
    assert set(report["tags"]) <= {"shove", "check", "call"} and report["tags"]["shove"] > 0
    page = (tmp_path / "run.html").read_text()
    assert "Players of your own" in page and "checked to" in page and "shove" in page
    assert "Traceback" not in err.decode()
