"""Cancellation and crash refunds (rules.md I.38-I.39): every worked example to the cent, and the ledger's rules."""

from __future__ import annotations

from fractions import Fraction

import msgspec
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.money import Ledger, LedgerError, largest_remainder
from engine.refunds import RefundPolicy, Situation, plan, water_fill
from engine.structure import refund_kind

SEED_PRIZES = [300_000, 200_000, 150_000] + [50_000] * 7  # $10,000: 30%, 20%, 15%, then 5% for 4th-10th


def paid(entries: int, buy_in: int, fee: int) -> dict[str, dict[str, int]]:
    return {f"p{i}": {"buy_in": buy_in, "fee": fee} for i in range(entries)}


def three_left() -> Situation:
    """The seed's example: $10,000 pool, three left with 50/40/10 chips, 4th-10th already paid."""
    return Situation(entries=100, live=[("p0", 50), ("p1", 40), ("p2", 10)], paid=paid(100, 10_000, 1_000),
                     pool_cents=650_000, prizes=SEED_PRIZES, buy_in_cents=10_000)


def amounts(refunds: list) -> dict[str, int]:
    return {refund.player: refund.cents for refund in refunds}


def test_policy_a_in_the_money_is_the_seed_example() -> None:
    refunds = plan(RefundPolicy("A"), three_left())
    assert amounts(refunds) == {"p0": 233_334, "p1": 223_333, "p2": 193_333}
    assert all(refund.fee_cents == 0 and "A3" in refund.rule for refund in refunds)


def test_the_sites_that_disagree_are_selectable():
    """Bovada and PlayersOnly: the remainder all by chips; GG: ICM in the money (rules.md I.38)."""
    assert amounts(plan(RefundPolicy("A", split="chips"), three_left())) == {"p0": 250_000, "p1": 230_000,
                                                                             "p2": 170_000}
    assert amounts(plan(RefundPolicy("A", split="icm"), three_left())) == {"p0": 244_445, "p1": 232_222,
                                                                           "p2": 173_333}


def test_policy_b_late_chip_equity_floors_the_short_stack_at_the_next_prize() -> None:
    assert amounts(plan(RefundPolicy("B"), three_left())) == {"p0": 263_889, "p1": 236_111, "p2": 150_000}


def test_policy_b_late_chip_position() -> None:
    refunds = plan(RefundPolicy("B", late_formula="chip_position"), three_left())
    assert amounts(refunds) == {"p0": 258_334, "p1": 208_333, "p2": 183_333}


def test_policy_a_before_the_money_is_the_pokerstars_example() -> None:
    """$9,000 pool, 100 left, 37,500 of 300,000 chips: $45 + $562.50 = $607.50, plus the $3 fee when refunded."""
    live = [("p0", 37_500), ("p1", 2_800)] + [(f"p{i}", 2_650) for i in range(2, 100)]
    situation = Situation(entries=300, live=live, paid=paid(300, 3_000, 300), pool_cents=900_000,
                          prizes=[300_000, 200_000, 150_000] + [25_000] * 10, buy_in_cents=3_000)
    assert amounts(plan(RefundPolicy("A"), situation))["p0"] == 60_750
    with_fees = plan(RefundPolicy("A", refund_fees=True), situation)
    assert amounts(with_fees)["p0"] == 61_050
    assert sum(refund.pool_cents for refund in with_fees) == 900_000


def test_under_a_fifth_eliminated_everything_paid_comes_back() -> None:
    entries = paid(10, 1_000, 100)
    entries["p3"] |= {"rebuy": 1_000, "rebuy_fee": 100}
    situation = Situation(entries=10, live=[(f"p{i}", 1500) for i in range(1, 10)], paid=entries,
                          pool_cents=11_000, prizes=[7_000, 4_000], buy_in_cents=1_000)
    refunds = amounts(plan(RefundPolicy("A"), situation))
    assert refunds["p0"] == 1_100  # eliminated, still rolled back
    assert refunds["p3"] == 2_200
    assert sum(refunds.values()) == 11_000 + 1_100


def test_interrupted_in_the_rebuy_period_every_entry_gets_everything_back_eliminated_ones_too() -> None:
    """rules.md I.38 A4 (corrected; seed 000, Notes): a full rollback, however many are out."""
    entries = paid(10, 1_000, 100)
    entries["p9"] |= {"rebuy": 1_000, "rebuy_fee": 100, "add_on": 1_000, "add_on_fee": 100}
    live = [("p7", 6000), ("p8", 3000), ("p9", 3000)]  # 7 of 10 out: A2 outside the period
    situation = Situation(entries=10, live=live, paid=entries, pool_cents=12_000, prizes=[7_000, 5_000],
                          buy_in_cents=1_000, in_rebuy_period=True)
    for policy in (RefundPolicy("A"), RefundPolicy("B")):
        refunds = amounts(plan(policy, situation))
        assert refunds == {**{f"p{i}": 1_100 for i in range(9)}, "p9": 3_300}
        assert sum(refunds.values()) == 12_000 + 1_200


def test_rollback_comes_before_in_the_money() -> None:
    """10 entries, 10 places paid, cancelled right after the start: everyone gets buy-in and fee (I.38)."""
    situation = Situation(entries=10, live=[(f"p{i}", 1_000 * (i + 1)) for i in range(10)], paid=paid(10, 1_000, 100),
                          pool_cents=10_000, prizes=[1_000] * 10, buy_in_cents=1_000)
    for policy in (RefundPolicy("A"), RefundPolicy("B")):
        refunds = plan(policy, situation)
        assert amounts(refunds) == {f"p{i}": 1_100 for i in range(10)}
        assert all("everything paid comes back" in r.rule for r in refunds)


def test_policy_b_stages_by_the_share_eliminated() -> None:
    def situation(left: int) -> Situation:
        return Situation(entries=100, live=[(f"p{i}", 1000) for i in range(left)], paid=paid(100, 1_000, 100),
                         pool_cents=100_000, prizes=[50_000, 30_000, 20_000], buy_in_cents=1_000)

    pre = plan(RefundPolicy("B"), situation(96))
    assert len(pre) == 100 and all("B-pre" in r.rule and r.cents == 1_100 for r in pre)
    # Seed 004, regular early: the fee back and the pool evenly among the players still in (each 100 + 1,250).
    early = plan(RefundPolicy("B"), situation(80))
    assert len(early) == 80 and all("early" in r.rule and (r.fee_cents, r.pool_cents) == (100, 1_250) for r in early)
    middle = plan(RefundPolicy("B"), situation(75))
    assert all("middle" in r.rule for r in middle)


def test_a_freeroll_in_its_first_stage_pays_nothing_and_the_sponsor_gets_the_pool_back() -> None:
    situation = Situation(entries=100, live=[(f"p{i}", 1000) for i in range(98)], paid={"": {"added": 50_000}},
                          pool_cents=50_000, prizes=[30_000, 20_000], buy_in_cents=0, kind="freeroll")
    assert amounts(plan(RefundPolicy("B"), situation)) == {"": 50_000}
    later = plan(RefundPolicy("B"), Situation(**{**msgspec_fields(situation), "live": [("a", 900), ("b", 100)] * 20}))
    assert sum(r.cents for r in later) == 50_000


def freeroll_with_points(live: list[tuple[str, int]], entries: int = 100,
                         prizes: tuple[int, ...] = (60_000, 40_000)) -> Situation:
    """A $1,000 sponsored freeroll whose entries each cost 500 entry points (kept as the entry's fee)."""
    points = {f"p{i}": {"fee": 500} for i in range(entries)}
    return Situation(entries=entries, live=live, paid={**points, "": {"added": 100_000}}, pool_cents=100_000,
                     prizes=list(prizes), buy_in_cents=0, kind="freeroll")


def test_a_freeroll_cancelled_before_it_starts_gives_its_entry_points_back() -> None:
    """Seed 004, freeroll pre: as if it never happened; the entry points come back, the sponsor's pool too."""
    for live in (100, 97):  # not started, and under 5% out
        refunds = plan(RefundPolicy("B"), freeroll_with_points([(f"p{i}", 1_000) for i in range(live)]))
        assert amounts(refunds) == {"": 100_000} | {f"p{i}": 500 for i in range(100)}
        assert all(r.fee_cents == 500 and r.pool_cents == 0 for r in refunds if r.player)


def test_a_freeroll_pays_plain_chip_equity_with_no_floor_or_cap() -> None:
    """Seed 004 names clamps for regular tournaments only: 37,000/1,000 x3 chips of a $1,000 pool pay
    $500/4 + $500 x 37/40 = $587.50 and $137.50 x3 (capped at first prize it was $400/$200 x3)."""
    live = [("p0", 37_000), ("p1", 1_000), ("p2", 1_000), ("p3", 1_000)]
    final = plan(RefundPolicy("B"), freeroll_with_points(live, entries=10, prizes=(40_000, 30_000, 20_000, 10_000)))
    assert {r.player: r.pool_cents for r in final} == {"p0": 58_750, "p1": 13_750, "p2": 13_750, "p3": 13_750}
    middle = plan(RefundPolicy("B"), freeroll_with_points(live, entries=10))
    assert {r.player: r.pool_cents for r in middle} == {"p0": 58_750, "p1": 13_750, "p2": 13_750, "p3": 13_750}


def msgspec_fields(situation: Situation) -> dict:
    return {name: getattr(situation, name) for name in situation.__struct_fields__}


def satellite(live: list[tuple[str, int]]) -> Situation:
    return Situation(entries=50, live=live, paid=paid(50, 1_000, 100), pool_cents=50_000, prizes=[25_000, 25_000],
                     buy_in_cents=1_000, kind="satellite", seat_value_cents=25_000)


def test_a_satellite_in_its_middle_stage_pays_as_the_director_chose() -> None:
    """Seed 004, satellite middle: (2) half evenly and half by stack sizes in cash (the default), or (1) the
    whole pool by chip equity, as a seat as far as a share covers and the rest in cash; no clamps."""
    middle = satellite([("a", 80_000), ("b", 10_000), ("c", 5_000), ("d", 5_000)])
    # 50% evenly (6,250 each) and 50% by stack sizes (80/10/5/5%), not the formula applied twice (75/25)
    assert amounts(plan(RefundPolicy("B"), middle)) == {"a": 26_250, "b": 8_750, "c": 7_500, "d": 7_500}
    seats = plan(RefundPolicy("B", satellite_middle="seats"), middle)
    assert [(r.player, r.pool_cents, r.ticket) for r in seats] == [
        ("a", 25_000, True), ("a", 1_250, False), ("b", 8_750, False), ("c", 7_500, False), ("d", 7_500, False)]


def test_a_satellite_cancelled_in_the_money_gives_every_player_left_their_seat() -> None:
    """Seed 004, satellite final: seats, not cash (tickets registered into the target, as won seats are)."""
    refunds = plan(RefundPolicy("B"), satellite([("a", 90_000), ("b", 10_000)]))
    assert [(r.player, r.pool_cents, r.ticket) for r in refunds] == [("a", 25_000, True), ("b", 25_000, True)]


def test_a_freeroll_pays_no_prize_money_before_its_middle_stage_and_the_director_chooses_in_it() -> None:
    def freeroll(left: int) -> Situation:
        return Situation(entries=100, live=[(f"p{i}", 1000 + i) for i in range(left)],
                         paid={"": {"added": 50_000}}, pool_cents=50_000, prizes=[30_000, 20_000],
                         buy_in_cents=0, kind="freeroll")

    assert amounts(plan(RefundPolicy("B"), freeroll(80))) == {"": 50_000}  # early: the sponsor's pool back
    rescheduled = plan(RefundPolicy("B", freeroll_middle="reschedule"), freeroll(40))
    assert amounts(rescheduled) == {"": 50_000} and "rescheduled" in rescheduled[0].rule
    by_equity = plan(RefundPolicy("B"), freeroll(40))
    assert len(by_equity) == 40 and sum(r.pool_cents for r in by_equity) == 50_000


def test_water_filling_where_one_clamp_pushes_another_player_past_it() -> None:
    """Edge case 7: capping the chip leader hands money to the second, who then passes the cap too."""
    weights = [Fraction(w) for w in (600, 399, 1)]

    def chip_equity(total: Fraction, w: list[Fraction]) -> list[Fraction]:
        return [total / 2 / len(w) + total / 2 * x / sum(w) for x in w]

    first_pass = chip_equity(Fraction(1000), weights)
    assert first_pass[0] > 400 >= first_pass[1]
    shares = water_fill(Fraction(1000), weights, [Fraction(100)] * 3, Fraction(400), chip_equity)
    assert shares == [400, 400, 200]
    odd = water_fill(Fraction(1001), [Fraction(w) for w in (5, 3, 3)], [Fraction(300)] * 3, Fraction(400),
                     chip_equity)
    # three equal remainders: the odd cent to the first
    assert largest_remainder(odd, 1001, [0, 1, 2]) == [395, 303, 303]
    assert sum(odd) == 1001


def test_the_ledger_refuses_what_it_does_not_hold_and_balances() -> None:
    ledger = Ledger()
    ledger.record("buy_in", "a", 1_000)
    ledger.record("fee", "a", 100)
    with pytest.raises(LedgerError, match="exceeds"):
        ledger.record("prize", "a", 1_001)
    with pytest.raises(LedgerError, match="positive whole"):
        ledger.record("refund", "a", 0)
    ledger.record("refund", "a", 100, account="fees")
    ledger.record("prize", "a", 1_000)
    assert ledger.balances() and ledger.pool_cents == ledger.fees_cents == 0
    assert ledger.received_by("a") == 1_100


@pytest.mark.parametrize("stacks", [(80, 10, 10), (90, 5, 5), (98, 1, 1)])
def test_policy_b_late_caps_a_dominant_leader_first_and_never_raises(stacks) -> None:
    """rules.md I.39 (corrected): the seed's pool with a dominant leader: caps first, then floors."""
    situation = Situation(entries=100, live=list(zip(("p0", "p1", "p2"), stacks)), paid=paid(100, 10_000, 1_000),
                          pool_cents=650_000, prizes=SEED_PRIZES, buy_in_cents=10_000)
    assert amounts(plan(RefundPolicy("B"), situation)) == {"p0": 300_000, "p1": 175_000, "p2": 175_000}


@settings(max_examples=400, deadline=None)
@given(stacks=st.lists(st.integers(1, 10_000), min_size=1, max_size=9),
       entries_extra=st.integers(0, 200), paid_places=st.integers(1, 30),
       pool=st.integers(1, 5_000_000), buy_in=st.integers(0, 50_000),
       kind=st.sampled_from(["regular", "freeroll", "satellite"]),
       late=st.sampled_from(["chip_equity", "chip_position"]),
       name=st.sampled_from(["A", "B"]), split=st.sampled_from(["half_and_half", "chips"]))
def test_any_situation_refunds_the_whole_pool_to_the_cent_within_the_clamps_that_can_hold(
        stacks, entries_extra, paid_places, pool, buy_in, kind, late, name, split) -> None:
    live = [(f"p{i}", stack) for i, stack in enumerate(stacks)]
    entries = len(stacks) + entries_extra
    shares = [Fraction(pool, paid_places)] * paid_places
    prizes = largest_remainder(shares, pool, list(range(paid_places)))
    situation = Situation(entries=entries, live=live, paid=paid(entries, buy_in, 100), pool_cents=pool, prizes=prizes,
                          buy_in_cents=buy_in, kind=kind, seat_value_cents=max(1, pool // 3))
    policy = RefundPolicy(name, late_formula=late, split=split)
    refunds = plan(policy, situation)  # never raises
    rollback = any("everything paid comes back" in r.rule for r in refunds)
    if not rollback and refunds and not any("freeroll" in r.rule for r in refunds):
        assert sum(r.pool_cents for r in refunds) == pool
    if name == "B" and kind == "regular" and not rollback and refunds:
        got = {r.player: r.pool_cents for r in refunds}
        first = prizes[0]
        count = len(live)
        floor = prizes[count - 1] if count <= len(prizes) else buy_in
        if floor * count <= pool <= first * count:  # both clamps can hold: they do (to the cent)
            assert all(floor - 1 <= got.get(player, 0) <= first + 1 for player, _ in live)


def test_policy_a_everyone_left_in_the_money_with_no_prize_paid_yet_is_a2_not_a3() -> None:
    """rules.md I.38, corrected: A3 applies once the prize pool has begun to be paid out, that is once a player
    was eliminated in the money. Four left of four paid, nobody paid yet: half equally, half by chips."""
    live = [("p0", 37_000), ("p1", 1_000), ("p2", 1_000), ("p3", 1_000)]
    situation = Situation(entries=10, live=live, paid=paid(10, 4_000, 400), pool_cents=40_000,
                          prizes=[20_000, 10_000, 6_000, 4_000], buy_in_cents=4_000)
    refunds = plan(RefundPolicy("A"), situation)
    assert amounts(refunds) == {"p0": 23_500, "p1": 5_500, "p2": 5_500, "p3": 5_500}
    assert {refund.rule for refund in refunds} == {next(r.rule for r in refunds)} and "A2" in refunds[0].rule
    # One paid place later (three left of four paid, 4th paid): the next unawarded prize first (A3).
    situation = msgspec.structs.replace(situation, live=live[:3], pool_cents=36_000)
    assert "A3" in plan(RefundPolicy("A"), situation)[0].rule


def test_the_refund_rules_read_as_sentences_for_this_tournaments_policy_kind_rebuys_and_bounties():
    """What each stage gives back is said for the tournament: its policy and options, a freeroll's or a
    satellite's stages, re-buys and bounties."""
    from engine.refunds import RefundPolicy
    from engine.refundterms import refund_terms
    from engine.structure import Bounty, Rebuys, Satellite
    from tests.tournaments import definition

    plain = refund_terms(definition(9))
    assert len(plain) == 3 and plain[0].startswith("Before the start, or with fewer than 20%")
    assert "the buy-in and the fee come back" in plain[0] and "the fees are kept" in plain[1]
    assert "half of it shared equally" in plain[1] and "next prize not yet paid" in plain[2]
    rebuys = refund_terms(definition(9, rebuys=Rebuys(levels=2, price_cents=1000, chips=1000),
                                     refund_policy=RefundPolicy(refund_fees=True, split="icm")))
    assert "every re-buy and add-on" in rebuys[0] and rebuys[1].startswith("During the re-buy or add-on period")
    assert "the fees come back" in rebuys[2] and "by ICM" in rebuys[3]
    bounty = refund_terms(definition(9, bounty=Bounty(cents=500), refund_policy=RefundPolicy(name="B")))
    assert [term.split(":")[0] for term in bounty[:4]] == [
        "Before the start, or with fewer than 5% of the entries out", "With 5% to 25% of the entries out",
        "With 25% or more of the entries out, before the money", "In the money, or after a partial deal"]
    assert bounty[-1] == BOUNTIES
    seats = refund_terms(definition(9, satellite=Satellite(seat_value_cents=1000),
                                    refund_policy=RefundPolicy(name="B", satellite_middle="seats")))
    assert "as a seat as far as it covers one" in seats[2] and "each gets their seat" in seats[3]
    freeroll = refund_terms(definition(9, buy_in_cents=0, added_cents=5000,
                                       refund_policy=RefundPolicy(name="B", freeroll_middle="reschedule")))
    assert "the entry points come back" in freeroll[0] and "played again at a new date" in freeroll[2]


BOUNTIES = "Bounties on the players still in play go back to them; bounties already won stay won."
FORMATS = ["regular", "rebuys", "bounty", "satellite", "freeroll", "flight", "final"]
POLICIES = [RefundPolicy("A"), RefundPolicy("A", refund_fees=True, split="chips"), RefundPolicy("A", split="icm"),
            RefundPolicy("B"), RefundPolicy("B", late_formula="chip_position", refund_fees=True),
            RefundPolicy("B", freeroll_middle="reschedule", satellite_middle="seats")]


def format_definition(form: str, policy: RefundPolicy):
    from engine.structure import AddOn, Bounty, Final, Flight, Rebuys, Satellite
    from tests.tournaments import definition

    more = {"rebuys": {"rebuys": Rebuys(levels=2, price_cents=1_000, chips=1_000, fee_cents=100),
                       "add_on": AddOn(price_cents=1_000, chips=1_000)},
            "bounty": {"bounty": Bounty(cents=300)}, "satellite": {"satellite": Satellite(seat_value_cents=2_200)},
            "freeroll": {"buy_in_cents": 0, "added_cents": 20_000},
            "flight": {"flight": Flight(final="final", stop_share_percent=10)},
            "final": {"final": Final()}}.get(form, {})
    return definition(9, refund_policy=policy, **more)


def situations(definition) -> list[tuple[Situation, dict[str, int]]]:
    """A cancellation of a 20-entry tournament at every stage: not started, 1, 3, 6, 15 and 18 out (the last
    with a prize paid); in the re-buy period too where it has re-buys. Each with what every entry paid (an entry
    out in the re-buy period bought a re-buy besides)."""
    fee, bounty = definition.fee_cents, definition.bounty.cents if definition.bounty else 0
    buy_in = definition.buy_in_cents - bounty
    found = []
    for out, started, in_period in [(0, False, False), (1, True, False), (3, True, False), (6, True, False),
                                    (15, True, False), (18, True, False), (1, True, True), (6, True, True)]:
        if in_period and definition.rebuys is None:
            continue
        paid = {f"p{i}": {kind: cents for kind, cents in (("buy_in", buy_in), ("fee", fee)) if cents}
                for i in range(20)}
        if in_period:
            paid["p0"] |= {"rebuy": 1_000, "rebuy_fee": 100}
        if definition.added_cents:
            paid[""] = {"added": definition.added_cents}
        carried = 5_000 if definition.final else 0  # a final's pool holds what its flights carried in
        pool = sum(kinds.get("buy_in", 0) + kinds.get("rebuy", 0) for kinds in paid.values()) + definition.added_cents
        pool += carried
        prizes = [2_200] * (pool // 2_200) if definition.satellite else [pool * 5 // 10, pool * 3 // 10, pool // 5]
        prizes = [] if definition.flight else prizes  # a flight's pool goes to its final
        live = [(f"p{i}", 1_000 + 150 * i) for i in range(out, 20)]
        paid_out = prizes[len(live)] if len(live) < len(prizes) else 0
        found.append((Situation(
            entries=20, live=live, paid=paid, pool_cents=pool - paid_out, prizes=prizes, buy_in_cents=buy_in,
            started=started, in_rebuy_period=in_period, kind=refund_kind(definition),
            seat_value_cents=2_200 if definition.satellite else 0,
            bounties={player: bounty for player, _ in live} if bounty else {},
            qualified=[player for player, _ in live[:4]] if definition.final else []),
            {p: sum(kinds.values()) for p, kinds in paid.items()}))
    return found


@pytest.mark.parametrize("form", FORMATS)
@pytest.mark.parametrize("policy", POLICIES, ids=lambda p: f"{p.name}-{p.split}-{p.late_formula}-{p.refund_fees}")
def test_what_a_cancellation_pays_at_every_stage_is_what_the_terms_say_of_that_stage(form, policy):
    """The terms shown in the Info tab and what a cancellation pays come from one rule per stage
    (engine/refunds.py's ``rule_for``): for every policy and format, the stage a cancellation is judged in has
    its sentence in the terms, and each claim of that sentence holds of the payments. Policy B with re-buys said
    nothing of the re-buy period, where everything comes back to everyone, eliminated players included."""
    from engine.refunds import stage_of, stages
    from engine.refundterms import form_of, refund_terms

    definition = format_definition(form, policy)
    said = refund_terms(definition)
    reached = set()
    for situation, paid in situations(definition):
        stage = stage_of(situation, policy)
        reached.add(stage)
        refunds = plan(policy, situation)
        sentence = next((term for term in said if term.startswith(_when(stage, situation.kind))), None)
        assert sentence is not None, (stage, said)
        got = {refund.player: refund for refund in refunds if refund.pool_cents or refund.fee_cents}
        live = [player for player, _ in situation.live]
        if "those already out too" in sentence:
            for player, cents in paid.items():
                back = sum(r.pool_cents + r.fee_cents for r in refunds if r.player == player)
                assert back >= cents, (player, sentence)
            assert sum(r.pool_cents for r in refunds) == situation.pool_cents
        if "no prize is paid" in sentence:
            assert not any(got[p].pool_cents for p in live if p in got) and got[""].pool_cents == situation.pool_cents
        if "fee back, and the prize pool is shared evenly" in sentence:
            shares = [got[p].pool_cents for p in live]
            assert max(shares) - min(shares) <= 1 and all(got[p].fee_cents == definition.fee_cents for p in live)
        if "the fees are kept" in sentence:
            assert not any(refund.fee_cents for refund in refunds)
        if "the fees come back" in sentence:
            assert all(got[p].fee_cents == definition.fee_cents for p in live)
        if "at least the buy-in" in sentence:
            assert all(got[p].pool_cents >= situation.buy_in_cents - 1 for p in live)
        if "at most the first prize" in sentence:
            assert all(got[p].pool_cents <= situation.prizes[0] + 1 for p in live)
        if "at least the next elimination's prize" in sentence:
            floor = situation.prizes[len(live) - 1]
            assert all(got[p].pool_cents >= floor - 1 for p in live)
        if "the next prize not yet paid" in sentence:
            assert all(got[p].pool_cents >= situation.prizes[len(live) - 1] for p in live)
        if "each gets their seat" in sentence:
            assert all(any(r.ticket and r.pool_cents == 2_200 for r in refunds if r.player == p) for p in live)
        if "in cash, half evenly and half by stack sizes" in sentence:
            assert not any(refund.ticket for refund in refunds)
        if definition.bounty is not None:
            heads = {r.player: r.bounty_cents for r in refunds}
            assert said[-1] == BOUNTIES and all(heads[p] == definition.bounty.cents for p in live)
    assert reached == set(stages(policy, form_of(definition)))  # every stage, and no other


def _when(stage: str, kind: str) -> str:
    """How the terms begin the sentence of ``stage`` (the test's own reading of rules.md I.38-I.39)."""
    if stage == "B-middle" and kind == "satellite":
        return "With 25% or more of the entries out, before the seats are won"
    if stage == "B-late" and kind == "satellite":
        return "Once every player left is sure of a seat"
    return {"A1": "Before the start, or with fewer than 20%", "A4": "During the re-buy or add-on period",
            "A2": "With 20% or more", "A3": "Once prizes are being paid", "B-pre": "Before the start, or with fewer "
            "than 5%", "B-early": "With 5% to 25%", "B-middle": "With 25% or more of the entries out, before the "
            "money", "B-late": "In the money"}[stage]
