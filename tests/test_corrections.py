"""The director's corrections (seed 004, Special cases): a compensation, and a prize paid in error taken back.
Through the ledger, journaled as money, refused with a clear error when they cannot apply."""

from __future__ import annotations

import random

import httpx
import msgspec
import pytest

from engine.structure import Satellite
from server.tournament import records
from server.tournament.chaining import withdraw_prize
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.live_server import ADMIN, bots, create, definition, drive, live_server, until
from tests.tournaments import definition as rules


def finished(storage: MemoryStorage, registry: dict | None = None, **more) -> TournamentRuntime:
    """A tournament of six played to its end, on seeded decks (the same every run)."""
    definition = rules(6, **more)
    runtime = TournamentRuntime("t", definition, storage=storage, hand_pause=0, seed=5)
    storage.create("t", msgspec.json.encode(definition), 5, b"")
    if registry is not None:
        registry["t"] = runtime
        runtime.registry = registry
    for number in range(6):
        runtime.register(f"player {number}")
    runtime.submit(records.Start(0.0, 1.0))
    hands = 0
    while runtime.director.status.value == "running":
        hands += 50
        drive(runtime, random.Random(hands), hands)
    return runtime


def test_a_compensation_and_a_withdrawn_prize_go_through_the_ledger_which_still_balances():
    runtime = finished(MemoryStorage())
    director = runtime.director
    winner = director.standings()[0]
    runtime.compensate("p2", 500, "disconnected by our server")
    withdraw_prize(runtime, winner.player, 1_000, "paid twice by mistake")
    ledger = director.ledger.summary()
    assert ledger["compensations"] == 500 and ledger["withdrawn"] == 1_000 and ledger["held"] == 0
    assert director.ledger.balances()
    withdraw_prize(runtime, winner.player, None, "the rest of it")  # the whole of what is left
    assert director.ledger.summary()["withdrawn"] == winner.prize_cents
    for refused, why in ((lambda: withdraw_prize(runtime, winner.player, 1, "again"), "no prize to withdraw"),
                         (lambda: withdraw_prize(runtime, "p6", 10**9, "too much"), "can be withdrawn"),
                         (lambda: runtime.compensate("nobody", 100, "x"), "not an entry"),
                         (lambda: runtime.compensate("p1", 100, " "), "needs its reason")):
        with pytest.raises(Exception, match=why):
            refused()
    assert director.ledger.balances()


def test_corrections_are_journaled_with_the_strict_sync_and_come_back_after_a_restart():
    storage = MemoryStorage()
    runtime = finished(storage)
    runtime.compensate("p2", 500, "a bad beat by our software")
    (stored,) = storage.tournaments()
    kinds = [line[0][0] for line in (records_of(raw) for raw in storage._records["t"][-1:])]
    assert kinds == ["compensate"]
    from engine.events import Compensated, PrizeWithdrawn
    from server.tournament.persistence import moves_money

    assert moves_money([Compensated("p2", 1, "x")]) and moves_money([PrizeWithdrawn("p2", 1, "x", False)])
    assert TournamentRuntime.restore(stored, storage).director.ledger.summary()["compensations"] == 500


def records_of(raw: bytes):
    return msgspec.msgpack.decode(raw)


def test_a_withdrawn_seat_is_unregistered_from_its_tournament_if_it_has_not_started():
    storage = MemoryStorage()
    target = TournamentRuntime.create("main", rules(9, buy_in_cents=900), storage, hand_pause=0)
    target.registry = {"main": target}
    satellite = finished(storage, target.registry, satellite=Satellite(seat_value_cents=1_000, target="main"))
    seat_holder = next(ticket for ticket in satellite.tickets if ticket.entry)
    assert seat_holder.entry in target.director.stacks
    withdraw_prize(satellite, seat_holder.player, None, "the seat went to the wrong player")
    assert seat_holder.entry not in target.director.stacks
    assert satellite.director.ledger.balances() and target.director.ledger.balances()


@pytest.mark.asyncio
async def test_the_admin_api_refuses_without_the_token_and_names_what_is_wrong():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, _ = await create(live, definition(4, 4), 2)
        base = f"/api/tournaments/{tournament}"
        body = {"player": "p1", "cents": 300, "reason": "a server fault"}
        assert (await client.post(f"{base}/compensate", json=body)).status_code == 401
        paid = await client.post(f"{base}/compensate", json=body, headers=ADMIN)
        assert paid.status_code == 200 and paid.json()["ledger"]["compensations"] == 300
        nothing = await client.post(f"{base}/withdraw", json={"player": "p1", "reason": "x"}, headers=ADMIN)
        assert nothing.status_code == 409 and "no prize to withdraw" in nothing.json()["message"]
        bad = await client.post(f"{base}/compensate", json={**body, "cents": -5}, headers=ADMIN)
        assert bad.status_code == 400


def restarted(storage: MemoryStorage, runtime: TournamentRuntime) -> TournamentRuntime:
    """``runtime`` as a new server brings it back from ``storage``, in the same registry."""
    (stored,) = [stored for stored in storage.tournaments() if stored.id == runtime.id]
    again = TournamentRuntime.restore(stored, storage, hand_pause=0)
    again.registry = runtime.registry
    runtime.registry[runtime.id] = again
    return again


def looks(target: TournamentRuntime) -> tuple[list[str], dict[str, int]]:
    return list(target.director.entries), target.director.ledger.summary()


@pytest.mark.parametrize("kind", ["satellite", "flight"])
def test_corrections_after_a_finish_send_nobody_on_again_before_or_after_a_restart(kind):
    """Each compensation on a finished satellite registered its seat winners in the target again
    (target paid_in 2200 -> 6600: money from nowhere), one on a finished flight carried its pool into the final a
    second time, and after a restart the record of who was sent on was empty, so a withdrawn seat unregistered
    nobody. Sending on happens once, at the finish; corrections change only what they name; the record
    survives a restart."""
    from engine.structure import Final, Flight

    storage = MemoryStorage()
    if kind == "satellite":
        target = TournamentRuntime.create("main", rules(9, buy_in_cents=900), storage, hand_pause=0)
        more = {"satellite": Satellite(seat_value_cents=1_000, target="main")}
    else:
        target = TournamentRuntime.create("main", rules(9, final=Final(forward="best")), storage, hand_pause=0)
        more = {"flight": Flight(final="main", stop_level=1)}
    target.registry = {"main": target}
    source = finished(storage, target.registry, **more)
    sent, before = list(source.tickets), looks(target)
    assert sent and all(ticket.entry for ticket in sent) and before[1]["paid_in"] > 0
    for cents in (100, 200):
        source.compensate("p2", cents, "our server disconnected them")
    assert looks(target) == before and source.tickets == sent
    source = restarted(storage, source)
    assert source.tickets == sent  # kept with its final state
    source.compensate("p3", 300, "a second look at the clock")
    assert looks(target) == before
    if kind == "satellite":  # a seat given for the wrong tournament, withdrawn after the restart
        seat = sent[0]
        withdraw_prize(source, seat.player, None, "the seat was for another tournament")
        entries, ledger = looks(target)
        assert seat.entry not in target.director.stacks and ledger["paid_in"] == before[1]["paid_in"]
        assert ledger["refunds"] == before[1]["refunds"] + 900 + target.definition.fee_cents
        assert looks(target) == (entries, ledger) and source.tickets == sent  # and nobody sent on again
    assert source.director.ledger.balances() and target.director.ledger.balances()


def running_field(storage: MemoryStorage) -> TournamentRuntime:
    """Six players some hands into a tournament on seeded decks, two of them out."""
    definition = rules(6)
    runtime = TournamentRuntime("t", definition, storage=storage, hand_pause=0, seed=5)
    storage.create("t", msgspec.json.encode(definition), 5, b"")
    runtime.registry = {"t": runtime}
    for number in range(6):
        runtime.register(f"player {number}")
    runtime.submit(records.Start(0.0, 1.0))
    hands = 0
    while len(runtime.director.results) < 2:
        hands += 5
        drive(runtime, random.Random(hands), hands)
    return runtime


def test_a_declared_failure_and_a_players_incident_are_on_the_record_and_survive_a_restart():
    """A crash that cannot be resumed left nothing saying it was a failure, when, in what stage, or
    by when its refunds are due (seed 000: "manually refunded within 48 hours"); one player's case had only a
    compensation, with no record of what went wrong. Both are records now, and a compensation names its
    incident."""
    import time

    storage = MemoryStorage()
    runtime = running_field(storage)
    victim = next(iter(runtime.director.stacks))
    runtime.record_incident(victim, "their connection dropped on our side for 3 minutes", "compensate 5 big blinds")
    for refused, why in ((lambda: runtime.record_incident("nobody", "x", "y"), "not an entry"),
                         (lambda: runtime.record_incident(victim, " ", "y"), "needs what happened"),
                         (lambda: runtime.compensate(victim, 100, "x", incident=2), "incident 2 is not one"),
                         (lambda: runtime.declare_failure(" "), "needs a word")):
        with pytest.raises(Exception, match=why):
            refused()
    runtime.compensate(victim, 100, "for the dropped connection", incident=1)
    from engine.cancellation import stage_now

    judged = stage_now(runtime.director)
    assert judged in ("A2", "A3")  # two or more of six out: past the rollback
    before = time.time()
    runtime.declare_failure("the table server lost its disk: play cannot resume", due_hours=24)
    director = runtime.director
    failure = director.failure
    assert director.status.value == "cancelled" and failure is not None
    assert failure.stage == judged  # as the rules judged it when it was declared
    assert failure.refunds_cents == sum(refund.cents for refund in director.refunds) > 0
    assert before <= failure.at <= time.time() and failure.due_by == failure.at + 24 * 3600
    assert director.ledger.balances()

    again = TournamentRuntime.restore(next(s for s in storage.tournaments() if s.id == "t"), storage)
    assert again.director.failure == failure and again.director.incidents == director.incidents
    shown = msgspec.to_builtins(again.details())
    assert shown["failure"]["stage"] == judged and shown["failure"]["due_by"] == failure.due_by
    assert shown["incidents"] == [{"type": "incident_recorded", "number": 1, "player": victim,
                                   "what": "their connection dropped on our side for 3 minutes",
                                   "decision": "compensate 5 big blinds", "at": director.incidents[0].at}]


@pytest.mark.asyncio
async def test_the_admin_api_declares_a_failure_and_records_an_incident_and_the_audit_trail_shows_them():
    async with live_server() as live, httpx.AsyncClient(base_url=live.http) as client:
        tournament, seats = await create(live, definition(6, 6), 6)
        base = f"/api/tournaments/{tournament}"
        assert (await client.post(f"{base}/start", headers=ADMIN)).status_code == 200
        player = seats[0][0]
        body = {"player": player, "what": "a misdeal by our dealer bot", "decision": "the hand stands"}
        assert (await client.post(f"{base}/incidents", json=body)).status_code == 401  # the admin's only
        answer = await client.post(f"{base}/incidents", json=body, headers=ADMIN)
        assert answer.status_code == 200 and answer.json()["incidents"][0]["number"] == 1
        refused = await client.post(f"{base}/failure", json={"what": ""}, headers=ADMIN)
        assert refused.status_code == 400 and "what" in refused.json()["message"]
        answer = await client.post(f"{base}/failure", json={"what": "the room's power failed"}, headers=ADMIN)
        assert answer.status_code == 200, answer.text
        failure = answer.json()["failure"]
        assert failure["stage"] == "A1" and failure["due_by"] == pytest.approx(failure["at"] + 48 * 3600)
        assert answer.json()["status"] == "cancelled"
        trail = (await client.get(f"{base}/events", headers=ADMIN)).text
        assert '"type":"incident_recorded"' in trail.replace(" ", "")
        assert '"type":"failure_declared"' in trail.replace(" ", "")


@pytest.mark.asyncio
async def test_over_rest_corrections_on_a_finished_satellite_leave_its_target_as_the_finish_left_it_across_a_restart(
        tmp_path):
    """Compensations against a live server and its journal: two compensations, a restart, a third and the seat
    withdrawn: the target's entries and money are as the satellite's finish left them, minus the withdrawn
    seat, and nobody is sent on twice."""
    db = str(tmp_path / "journal.db")
    async with live_server(hand_pause=0.01, db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        target = (await client.post("/api/tournaments", json={**definition(9, 9), "buy_in_cents": 900},
                                    headers=ADMIN)).json()["id"]
        body = {**definition(6, 6, action_seconds=5.0), "satellite": {"seat_value_cents": 1000, "target": target}}
        satellite, seats = await create(live, body, 6)
        assert (await client.post(f"/api/tournaments/{satellite}/start", headers=ADMIN)).status_code == 200
        bots(live, satellite, seats, "pushfold")
        await until(lambda: live.runtime(satellite).director.status.value == "finished", timeout=120)

        finished = await looks_at(client, target)
        assert finished[0] >= 1
        for cents in (100, 200):
            answer = await client.post(f"/api/tournaments/{satellite}/compensate", headers=ADMIN,
                                       json={"player": seats[0][0], "cents": cents, "reason": "a dropped line"})
            assert answer.status_code == 200, answer.text
        assert await looks_at(client, target) == finished
        tickets = (await client.get(f"/api/tournaments/{satellite}")).json()["tickets"]
    async with live_server(hand_pause=0.01, db=db) as live, httpx.AsyncClient(base_url=live.http) as client:
        assert (await client.get(f"/api/tournaments/{satellite}")).json()["tickets"] == tickets  # kept
        answer = await client.post(f"/api/tournaments/{satellite}/compensate", headers=ADMIN,
                                   json={"player": seats[0][0], "cents": 300, "reason": "after the restart"})
        assert answer.status_code == 200 and await looks_at(client, target) == finished
        seat = tickets[0]
        answer = await client.post(f"/api/tournaments/{satellite}/withdraw", headers=ADMIN,
                                   json={"player": seat["player"], "reason": "the seat was for another event"})
        assert answer.status_code == 200, answer.text
        entries, ledger = await looks_at(client, target)
        assert entries == finished[0] - 1 and ledger["paid_in"] == finished[1]["paid_in"]
        assert ledger["refunds"] == finished[1]["refunds"] + 900 + 100  # the seat's entry, back to the satellite


async def looks_at(client: httpx.AsyncClient, target: str) -> tuple[int, dict[str, int]]:
    shown = (await client.get(f"/api/tournaments/{target}")).json()
    return shown["entries"], shown["ledger"]
