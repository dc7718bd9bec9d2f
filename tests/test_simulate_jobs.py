"""One tournament over several processes (``mttsim simulate --jobs N``, bots/playing.py): the same tournament as
one process plays, every rule held, and a worker's outcome checked before the director settles it."""

from __future__ import annotations

import gc
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from bots.lab import Field, lab
from bots.playing import Workers, received, sent
from bots.simulator import Simulation, simulate
from engine.director import Tournament, TournamentError
from engine.eliminations import Outcome
from engine.events import HandForHandStarted, HandStarted
from engine.structure import default_definition
from engine.wire import Stage
from server.cli import main
from server.cli.common import read_definition
from tests.test_director_hand_for_hand import SEED_PAYOUTS
from tests.test_tournament_properties import check_results
from tests.tournaments import check_after_every_hand, definition, running


def test_a_seed_gives_one_tournament_whatever_the_number_of_processes():
    runs = []
    for jobs in (1, 2, 3, 2):
        events = io.BytesIO()
        report = simulate(default_definition(400), 400, 11, jobs=jobs, events_out=events)
        runs.append((report.hands, report.results, report.simulated_hours, events.getvalue()))
    assert runs[0][1] and all(run == runs[0] for run in runs[1:])
    assert simulate(default_definition(400), 400, 12, jobs=2).results != runs[0][1]


def test_late_entries_re_entries_and_mystery_bounties_play_the_same_over_two_processes():
    sunday = read_definition(Path(__file__).resolve().parents[1] / "docs" / "examples" / "sunday-mystery.json")
    runs = []
    for jobs in (1, 2):
        events = io.BytesIO()
        report = simulate(sunday, 300, 3, jobs=jobs, events_out=events, late_players=60, reentry_probability=0.5)
        runs.append((report, events.getvalue()))
    assert runs[0][0].late_registrations and runs[0][0].reentries and runs[0][0].money["bounties"]
    assert runs[0][0].results == runs[1][0].results and runs[0][1] == runs[1][1]


def synchronised_hand_for_hand():
    """A watcher of D.15: under hand-for-hand a table deals once a round, and a round begins only when every
    table has finished the one before."""
    dealt: set[int] = set()
    seen = {"rounds": 0}

    def watch(tournament: Tournament, event, at=0.0):
        if isinstance(event, HandForHandStarted):
            dealt.clear()
        if isinstance(event, HandStarted) and tournament.hand_for_hand:
            if event.table in dealt or not dealt:
                busy = [table for table, state in tournament.tables.items()
                        if state.hand is not None and table != event.table]
                assert not busy, f"table {event.table} dealt a new round while {busy} still played the last"
                dealt.clear()
                seen["rounds"] += 1
            dealt.add(event.table)

    return watch, seen


def test_a_tournament_over_two_processes_keeps_every_rule():
    tournament_definition = definition(10, starting_stack=10_000, payouts=SEED_PAYOUTS)
    chips = check_after_every_hand(150 * tournament_definition.starting_stack, 10)
    hand_for_hand, seen = synchronised_hand_for_hand()

    def watch(tournament, event, at=0.0):
        chips(tournament, event)
        hand_for_hand(tournament, event)

    report = simulate(tournament_definition, 150, 2, jobs=2, on_event=watch)
    assert report.hand_for_hand_at and seen["rounds"] > 0 and report.tables_broken > 0 and report.moves > 0
    check_results(report, 150, 150 * tournament_definition.buy_in_cents)


def test_the_lab_spreads_one_run_over_its_processes_and_plays_the_same_run():
    one = lab(default_definition(300), Field(300), [4], jobs=1)
    spread = lab(default_definition(300), Field(300), [4], jobs=2)
    assert spread.runs == one.runs and one.runs[0].hands > 0


def outcome_test_hand():
    tournament, _ = running(3, 9, seed=5)
    table = tournament.tables_ready()[0]
    tournament.start_hand(table)
    hand = tournament.hand(table)
    assert hand is not None
    return tournament, table, hand


@pytest.mark.parametrize("stacks, knockers, says", [
    (lambda s: (s[0] + 1,) + s[1:], {}, "chips are kept"),
    (lambda s: s[:-1], {}, "chips are kept"),
    (lambda s: (sum(s),) + (0,) * (len(s) - 1), {}, "knock-outs"),
    (lambda s: (sum(s),) + (0,) * (len(s) - 1), "everyone by a bust", "knock-outs"),
])
def test_an_outcome_that_makes_chips_or_knock_outs_up_is_refused_and_changes_nothing(stacks, knockers, says):
    tournament, table, hand = outcome_test_hand()
    start = hand.starting_stacks
    if knockers == "everyone by a bust":
        knockers = {place: (1,) for place in range(1, len(start))}
    before = dict(tournament.stacks)
    with pytest.raises(TournamentError, match=says):
        tournament.end_hand(table, Outcome(stacks(start), knockers))
    assert tournament.hand(table) is hand and tournament.stacks == before


def test_an_outcome_settles_the_dealt_hand_with_its_busts_and_their_knockers():
    tournament, table, hand = outcome_test_hand()
    total = sum(hand.starting_stacks)
    stacks = (total,) + (0,) * (hand.n - 1)
    events = tournament.end_hand(table, Outcome(stacks, {place: (0,) for place in range(1, hand.n)}))
    assert tournament.hand(table) is None and tournament.stacks[hand.players[0]] == total
    assert all(hand.players[0] in tournament.knockouts and player not in tournament.stacks
               for player in hand.players[1:])
    assert tournament.chips_in_play() == tournament.chips_issued and events


def test_the_command_line_plays_one_run_over_two_processes_and_refuses_what_needs_one(tmp_path, capsys):
    assert main(["simulate", "--players", "200", "--seed", "3", "--jobs", "2", "--json"]) == 0
    spread = capsys.readouterr().out
    assert main(["simulate", "--players", "200", "--seed", "3", "--json"]) == 0
    one = capsys.readouterr().out
    assert spread.split('"wall_s"')[0] == one.split('"wall_s"')[0]
    assert spread.split('"tables_broken"')[1] == one.split('"tables_broken"')[1]
    assert main(["simulate", "--players", "200", "--jobs", "2", "--hands-out", str(tmp_path / "h.phhs")]) == 2
    assert "--jobs 1" in capsys.readouterr().err and not (tmp_path / "h.phhs").exists()
    assert main(["simulate", "--players", "200", "--jobs", "0"]) == 2


def test_a_worker_that_dies_stops_the_run_with_a_clear_error_and_no_hang():
    simulation = Simulation(default_definition(2000), 2000, 5, jobs=2)

    def kill_a_worker(tournament, event, at=0.0):
        if isinstance(event, HandStarted) and tournament.hands_played == 500:
            workers = simulation._workers
            assert workers is not None
            workers._processes[0].kill()

    simulation.on_event = kill_a_worker
    with pytest.raises(RuntimeError, match="a worker playing this tournament's hands stopped"):
        simulation.run()


def test_a_first_deal_larger_than_the_pipes_hold_goes_out_and_comes_back_whole():
    """At 100,000 players the first deal is 11,000 hands at once: unbounded, both pipes filled and each side
    waited on the other for ever. A worker now holds at most ``IN_FLIGHT`` hands."""
    workers = Workers(1)
    back: list = []

    def deal_and_collect():
        for number in range(1, 20001):
            workers.submit(number, (number, ("regular", "regular"), [1000, 1000], 5, 10, 0, False, 1, 0, 7, 12,
                                    Stage()))
        workers.send()
        while len(back) < 20000:
            back.extend(workers.results(block=True))

    dealer = threading.Thread(target=deal_and_collect, daemon=True)
    try:
        dealer.start()
        dealer.join(timeout=60)
        assert not dealer.is_alive(), f"the director and its worker wait on each other ({len(back)} hands back)"
    finally:
        workers.close()
    assert sorted(table for table, _ in back) == list(range(1, 20001))
    assert all(sum(outcome.stacks) == 2000 for _, (_, _, outcome) in back)


def test_a_run_leaves_the_garbage_collector_as_it_found_it():
    """The simulator keeps the field out of the collector's passes while it plays, and gives it back after: a lab
    plays many runs in one process."""
    gc.unfreeze()  # whatever an earlier test in this process froze
    simulate(default_definition(100), 100, 1)
    assert gc.get_freeze_count() == 0


ALONE = """
import json
from bots.simulator import Simulation
from engine.structure import default_definition
from engine.wire import Stage
simulation = Simulation(default_definition(300), 300, 6, jobs=2)
report = simulation.run()
print(json.dumps([simulation._workers.start_method, report.hands, report.results]))
"""


def test_a_director_alone_forks_its_workers_and_one_beside_a_thread_uses_the_fork_server_for_the_same_tournament():
    """A fork copies only the thread that forks: beside another thread (a program calling the simulator from a
    thread), a lock it held would stay held in the worker. Alone, a fork's worker plays within milliseconds."""
    alone = subprocess.run([sys.executable, "-c", ALONE], capture_output=True, text=True, timeout=120, check=True,
                           cwd=Path(__file__).resolve().parents[1])
    forked, hands, results = json.loads(alone.stdout)
    stop = threading.Event()
    beside = threading.Thread(target=stop.wait, daemon=True)
    beside.start()
    try:
        simulation = Simulation(default_definition(300), 300, 6, jobs=2)
        report = simulation.run()
    finally:
        stop.set()
    assert simulation._workers is not None
    assert (forked, simulation._workers.start_method) == ("fork", "forkserver")
    assert hands == report.hands and results == json.loads(json.dumps(report.results))


def test_a_message_larger_than_a_pipe_holds_arrives_whole_and_a_closed_pipe_is_the_end():
    readable, writable = os.pipe()
    messages = [b"", b"one hand", bytes(range(256)) * 4096]  # the last, a megabyte: many reads and writes

    def write_them() -> None:
        for message in messages:
            sent(writable, message)

    writer = threading.Thread(target=write_them, daemon=True)
    writer.start()
    try:
        assert [received(readable) for _ in messages] == messages
        writer.join(timeout=60)
        os.close(writable)
        with pytest.raises(EOFError):
            received(readable)
    finally:
        os.close(readable)
