"""What each entry gets back when a running tournament is cancelled or cannot resume (rules.md I.38-I.39).

A pure function of the situation: who paid what, the pool still held, the
prize table, and the live players' stacks at the start of the interrupted
hand. Two policies from the seed documents:

Policy A (000_22c9604f7bad1698.txt):
  A1  under 20% of entries eliminated: rollback, everything paid comes back;
  A2  20% or more, before the money: half the pool equally among the players
      left, half by chips; fees are kept (a decision, ``refund_fees`` gives
      them back as PokerStars does);
  A3  the prize pool has begun to be paid out (someone was eliminated in
      the money; everyone left being in the money is not enough): each gets
      the next unawarded prize, then the rest half equally and half by chips;
  A4  interrupted in the re-buy or add-on period: everything every entry
      paid comes back, eliminated entries too (rules.md I.38, corrected).
  Rollback comes first: not started or under 20% out is A1 even when every
  player left is in the money.
  The sites that disagree are selectable with ``split`` (rules.md I.38):
  ``chips`` (Bovada, PlayersOnly) shares all of what A2 and A3 split by
  chips; ``icm`` (GG) pays by chips before the money and by ICM in it.

Policy B (004_6c54c0759875b495.txt), by e = eliminated / entries, and the
seed's matrix of tournament kinds (rules.md I.39, corrected):
  pre (e < 5%): rollback (a freeroll pays no prize: its entry points back,
      the sponsor's pool back);
  early (e < 25%): regular and satellite: the fee back and the pool evenly
      among the players left; freeroll: as pre;
  middle: chip equity clamped to at least the buy-in and at most first prize
      (a freeroll: plain chip equity, or rescheduled; a satellite: cash half
      evenly and half by stack sizes, or seats as far as each chip equity
      share covers: ``freeroll_middle`` and ``satellite_middle``);
  late (in the money): chip equity, or chip position when the policy says
      so, clamped to at least the next elimination's prize and at most
      first (a freeroll: plain chip equity); a satellite: every player left
      gets their seat.
Clamps are applied caps first (rules.md I.39, ``water_fill``): violators are
pinned at their bound and the rest of the pool is recomputed over the
others; a pinned floor never strands money, and nothing raises.

"In the money" means every player left is sure of a prize (players left <=
paid places). Every amount is an exact Fraction until the end, then cents by
largest remainder with ties to the bigger stack, then the earlier seat.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Literal

import msgspec

from engine.icm import EXACT_MAX_PLAYERS, equities, monte_carlo
from engine.money import largest_remainder


class RefundPolicy(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    name: Literal["A", "B"] = "A"
    refund_fees: bool = False
    late_formula: Literal["chip_equity", "chip_position"] = "chip_equity"
    split: Literal["half_and_half", "chips", "icm"] = "half_and_half"
    # Policy B's director's choices (seed 004): a freeroll in its middle stage pays by chip equity or is
    # rescheduled (no payout now); a satellite in its middle stage pays cash (half evenly, half by stack
    # sizes) or the whole pool by chip equity as whole seats as far as each share covers, the rest in cash.
    freeroll_middle: Literal["chip_equity", "reschedule"] = "chip_equity"
    satellite_middle: Literal["cash", "seats"] = "cash"


class Situation(msgspec.Struct, frozen=True):
    """A tournament at the moment of cancellation.

    ``live`` is (entry, stack) for every player left, in seat order (that
    order breaks remainder ties); ``paid`` is each entry's payments by ledger
    kind; ``pool_cents`` what the pool still holds (prizes already paid are
    gone from it); ``prizes`` the prize per place, first place first.
    """

    entries: int
    live: list[tuple[str, int]]
    paid: dict[str, dict[str, int]]
    pool_cents: int
    prizes: list[int]
    buy_in_cents: int
    started: bool = True
    in_rebuy_period: bool = False
    kind: Literal["regular", "freeroll", "satellite"] = "regular"
    seat_value_cents: int = 0
    bounties: dict[str, int] = {}  # the bounty on each head still in play (rules.md J)
    qualified: list[str] = []  # a final: the entries that came from its flights, whose pools it holds
    dealt: bool = False  # a partial deal paid the players left: what it shared cannot be rolled back


class Refund(msgspec.Struct, frozen=True):
    """Cents back to ``player`` out of the pool, the fees and the bounties, and the rule that gave them."""

    player: str
    pool_cents: int
    fee_cents: int
    rule: str
    bounty_cents: int = 0
    ticket: bool = False  # ``pool_cents`` is a seat in the satellite's target, not cash (rules.md I.39)
    entry: bool = False  # ``pool_cents`` buys an entry to another tournament the admin named (seed 000)

    @property
    def cents(self) -> int:
        return self.pool_cents + self.fee_cents + self.bounty_cents


_PRICE_KINDS = ("buy_in", "rebuy", "add_on", "added", "carried_in")
_FEE_KINDS = ("fee", "rebuy_fee", "add_on_fee")


def _in_money(situation: Situation) -> bool:
    return 0 < len(situation.live) <= len(situation.prizes)


def _prize_paid(situation: Situation) -> bool:
    """Whether the prize pool has begun to be paid out: someone was eliminated in the money, so fewer are left
    than places paid (rules.md I.38 A3, corrected: everyone left being in the money is not enough)."""
    return 0 < len(situation.live) < len(situation.prizes)


def stage_of(situation: Situation, policy: RefundPolicy) -> str:
    """The rule that applies: A1/A2/A3/A4 or B-pre/B-early/B-middle/B-late.

    Rollback comes first (rules.md I.38 stage order): a tournament not started,
    or with too few out (A: under 20%; B: under 5%), rolls back even when
    everyone left is in the money; so does one interrupted in the re-buy
    period (A4, corrected), however many are out. After a partial deal
    (engine/deals.py) nothing rolls back: the players left shared the pool
    by agreement, and what they kept in play goes as in the money (Decision).
    """
    eliminated = Fraction(situation.entries - len(situation.live), max(situation.entries, 1))
    if situation.dealt:  # the players left agreed on the money and took it: the rest goes as in the money
        return "A3" if policy.name == "A" else "B-late"
    if situation.in_rebuy_period:
        return "A4"
    if not situation.started:
        return "A1" if policy.name == "A" else "B-pre"
    if policy.name == "A":
        if eliminated < Fraction(1, 5):
            return "A1"
        return "A3" if _prize_paid(situation) else "A2"
    if eliminated < Fraction(1, 20):
        return "B-pre"
    if _in_money(situation):
        return "B-late"
    return "B-early" if eliminated < Fraction(1, 4) else "B-middle"


def as_entries(refunds: list[Refund], entry_cents: int) -> list[Refund]:
    """A satellite's cash refunds as entries to another tournament (seed 000, Satellite Tournaments): each
    whose cash from the pool covers the entry's price (buy-in and fee) becomes that entry and the rest cash;
    seats, fees and bounties stay as they are (Decision)."""
    converted: list[Refund] = []
    for refund in refunds:
        if entry_cents <= 0 or refund.ticket or refund.entry or not refund.player or refund.pool_cents < entry_cents:
            converted.append(refund)
            continue
        converted.append(Refund(refund.player, entry_cents, 0, f"an entry to another tournament ({refund.rule})",
                                entry=True))
        if refund.cents > entry_cents:
            converted.append(msgspec.structs.replace(refund, pool_cents=refund.pool_cents - entry_cents))
    return converted


class Form(msgspec.Struct, frozen=True):
    """What the refund rules of a tournament depend on besides its policy, read from its definition
    (engine/refundterms.py): its kind, and whether it has re-buys, bounties, is a flight (which pays no prize:
    its pool goes to the final) or the final of flights."""

    kind: Literal["regular", "freeroll", "satellite"] = "regular"
    rebuys: bool = False
    bounty: bool = False
    flight: bool = False
    final: bool = False


class StageRule:
    """One stage of a cancellation: when it applies and what it pays, in words, beside the function that pays.

    ``rule_for`` chooses the rule for a stage, a policy and a kind of
    tournament; the payments (``plan``) and the terms a player reads
    (``terms``) both go through it, so the two cannot disagree on which rule
    applies when, and each sentence sits beside the code it describes.
    """

    def __init__(self, when: str, says: Callable[[RefundPolicy, Form], str],
                 pays: Callable[[RefundPolicy, Situation, int, str], list[Refund]]) -> None:
        self.when, self.says, self.pays = when, says, pays

    def sentence(self, policy: RefundPolicy, form: Form) -> str:
        return f"{self.when}: {self.says(policy, form)}."


BOUNTIES_BACK = "Bounties on the players still in play go back to them; bounties already won stay won."


def stages(policy: RefundPolicy, form: Form) -> list[str]:
    """Every stage a cancellation of such a tournament can be judged in, in the order they come (``stage_of``
    returns no other): the re-buy period's rollback (A4) follows the start where there are re-buys, whatever
    the policy."""
    first, *rest = ["A1", "A2", "A3"] if policy.name == "A" else ["B-pre", "B-early", "B-middle", "B-late"]
    if form.flight:
        rest.pop()  # a flight pays no prize: it is never in the money
    return [first, *(["A4"] if form.rebuys else []), *rest]


def terms(policy: RefundPolicy, form: Form) -> list[str]:
    """The policy in sentences for such a tournament: one a stage, then bounties (Info tab, seed 000)."""
    said = [rule_for(stage, policy, form.kind).sentence(policy, form) for stage in stages(policy, form)]
    return said + ([BOUNTIES_BACK] if form.bounty else [])


def plan(policy: RefundPolicy, situation: Situation) -> list[Refund]:
    """Every refund the policy gives; what is not refunded of the fees is the house's, pool and bounties empty.

    Bounties: every head still in play goes back to its owner, whatever the
    rule (rules.md J.43, PS-CX, ``BOUNTIES_BACK``); bounties already won stay
    won, so a rollback returns the rest of what an eliminated entry paid, not
    its head.
    """
    stage = stage_of(situation, policy)
    refunds = rule_for(stage, policy, situation.kind).pays(policy, situation, situation.pool_cents, stage)
    if not situation.bounties:
        return refunds
    heads = {player: cents for player, cents in situation.bounties.items() if cents}
    refunds = [msgspec.structs.replace(r, bounty_cents=heads.pop(r.player, 0)) for r in refunds]
    return refunds + [Refund(player, 0, 0, "their bounty back (J.43)", cents) for player, cents in heads.items()]


def rule_for(stage: str, policy: RefundPolicy, kind: str) -> StageRule:
    """The rule of ``stage`` for ``policy`` and a tournament of ``kind`` (rules.md I.38-I.39, seed 004's matrix)."""
    if kind == "freeroll" and (stage in ("B-pre", "B-early")
                               or stage == "B-middle" and policy.freeroll_middle == "reschedule"):
        return FREEROLL_UNPAID[stage]
    if stage in ROLLBACK:
        return ROLLBACK[stage]
    if stage == "B-early":
        return EVEN_SPLIT
    if kind == "satellite" and stage == "B-late":
        return SEATS_FOR_ALL
    if kind == "satellite" and stage == "B-middle":
        return SATELLITE_MIDDLE
    return BY_FORMULA[stage]


def _paid_words(form: Form) -> str:
    paid = "the entry points" if form.kind == "freeroll" else "the buy-in and the fee"
    return paid + (", and every re-buy and add-on with its fee" if form.rebuys else "")


def _fees_words(policy: RefundPolicy, form: Form) -> str:
    """Whether a stage paid by formula gives the fees back (``_by_formula``)."""
    if form.kind == "freeroll":
        return ""
    return "; the fees come back" if policy.refund_fees else "; the fees are kept"


def _rollback_says(policy: RefundPolicy, form: Form) -> str:
    said = f"{_paid_words(form)} come back to every entry, those already out too"
    if form.kind == "freeroll":
        said += ", and the sponsor's pool goes back to the sponsor"
    if form.final:
        said += "; the flights' pool goes to the qualified players still in, half equally and half by chips"
    return said


def _rollback(policy: RefundPolicy, situation: Situation, pool: int, stage: str) -> list[Refund]:
    refunds = []
    for player, paid in situation.paid.items():
        price = sum(paid.get(kind, 0) for kind in _PRICE_KINDS)
        fees = sum(paid.get(kind, 0) for kind in _FEE_KINDS)
        if price or fees:
            refunds.append(Refund(player, price, fees, f"everything paid comes back ({stage})"))
    return refunds + _carried_back(situation, pool - sum(r.pool_cents for r in refunds))


ROLLBACK = {
    "A1": StageRule("Before the start, or with fewer than 20% of the entries out", _rollback_says, _rollback),
    "A4": StageRule("During the re-buy or add-on period, however many are out", _rollback_says, _rollback),
    "B-pre": StageRule("Before the start, or with fewer than 5% of the entries out", _rollback_says, _rollback),
}


def _freeroll_says(policy: RefundPolicy, form: Form) -> str:
    return "no prize is paid; the entry points come back, and the sponsor's pool goes back to the sponsor"


def _rescheduled_says(policy: RefundPolicy, form: Form) -> str:
    return ("no prize is paid now; the tournament is played again at a new date with the players left entered "
            "in it, the entry points come back, and the sponsor's pool goes back to the sponsor")


def _freeroll_pays(policy: RefundPolicy, situation: Situation, pool: int, stage: str) -> list[Refund]:
    why = "rescheduled: no payout now" if stage == "B-middle" else "no prize money before the middle stage"
    return _freeroll_unpaid(situation, pool, stage, why)


FREEROLL_UNPAID = {
    "B-pre": StageRule("Before the start, or with fewer than 5% of the entries out", _freeroll_says,
                       _freeroll_pays),
    "B-early": StageRule("With 5% to 25% of the entries out", _freeroll_says, _freeroll_pays),
    "B-middle": StageRule("With 25% or more of the entries out, before the money", _rescheduled_says,
                          _freeroll_pays),
}


def _even_split(policy: RefundPolicy, situation: Situation, pool: int, stage: str) -> list[Refund]:
    live = situation.live
    cents = _by_rank(_evenly(pool, len(live)), pool, live)
    return [Refund(player, amount, situation.paid.get(player, {}).get("fee", 0),
                   "the fee back and the pool evenly (B early)") for (player, _), amount in zip(live, cents)]


EVEN_SPLIT = StageRule(
    "With 5% to 25% of the entries out",
    lambda policy, form: "each player left gets their fee back, and the prize pool is shared evenly among them",
    _even_split)


def _seats_for_all(policy: RefundPolicy, situation: Situation, pool: int, stage: str) -> list[Refund]:
    return _seats(situation, pool, [situation.seat_value_cents] * len(situation.live),
                  "every player left a seat (B final)")


SEATS_FOR_ALL = StageRule(
    "Once every player left is sure of a seat",
    lambda policy, form: "each gets their seat, and any cash the pool holds beyond the seats is shared evenly",
    _seats_for_all)


def _satellite_middle_says(policy: RefundPolicy, form: Form) -> str:
    if policy.satellite_middle == "seats":
        return ("each player left gets their chip equity (half of the pool evenly, half by stack sizes) as a seat "
                "as far as it covers one, and the rest in cash; the fees are kept")
    return "the pool is paid in cash, half evenly and half by stack sizes; the fees are kept"


def _satellite_middle(policy: RefundPolicy, situation: Situation, pool: int, stage: str) -> list[Refund]:
    live = situation.live
    weights = [Fraction(stack) for _, stack in live]
    if policy.satellite_middle == "cash":
        shares = _half_and_half(Fraction(pool), weights)
        return [Refund(player, amount, 0, "half evenly, half by stack sizes, in cash (B middle)")
                for (player, _), amount in zip(live, _by_rank(shares, pool, live)) if amount]
    equity_cents = _by_rank(_half_and_half(Fraction(pool), weights), pool, live)
    seats = [situation.seat_value_cents if amount >= situation.seat_value_cents > 0 else 0 for amount in equity_cents]
    return _seats(situation, pool, seats, "chip equity, as a seat as far as it covers (B middle)",
                  cash=[amount - seat for amount, seat in zip(equity_cents, seats)])


SATELLITE_MIDDLE = StageRule("With 25% or more of the entries out, before the seats are won",
                             _satellite_middle_says, _satellite_middle)


def _by_formula(policy: RefundPolicy, situation: Situation, pool: int, stage: str) -> list[Refund]:
    """The stages paid by a formula of the stacks within clamps (A2, A3, B middle and late): ``_shares``."""
    cents = _by_rank(_shares(stage, policy, situation, pool), pool, situation.live)
    clamped = "" if situation.kind == "freeroll" else ", clamped"
    rule = {"A2": "half equally, half by chips (A2)", "A3": "the next prize, then half equally, half by chips (A3)",
            "B-middle": f"chip equity{clamped} (B middle)",
            "B-late": f"{policy.late_formula.replace('_', ' ')}{clamped} (B late)"}[stage]
    refunds = []
    for (player, _), amount in zip(situation.live, cents):
        fees = 0
        if policy.refund_fees and situation.kind != "freeroll":
            fees = situation.paid.get(player, {}).get("fee", 0)
        if amount or fees:
            refunds.append(Refund(player, amount, fees, rule))
    return refunds


_SPLIT = {"half_and_half": "half of it shared equally and half by their chips",
          "chips": "all of it shared by their chips", "icm": "all of it shared by their chips"}
_SPLIT_IN_MONEY = {"half_and_half": "half equally and half by chips", "chips": "by chips",
                   "icm": "by ICM (each stack's equity in the prizes left)"}
_EQUITY = "chip equity (half of the pool evenly, half by chips)"


def _a2_says(policy: RefundPolicy, form: Form) -> str:
    return f"the prize pool goes to the players left, {_SPLIT[policy.split]}{_fees_words(policy, form)}"


def _a3_says(policy: RefundPolicy, form: Form) -> str:
    return (f"each player left gets the next prize not yet paid, then the rest of the pool is shared "
            f"{_SPLIT_IN_MONEY[policy.split]}{_fees_words(policy, form)}")


def _b_middle_says(policy: RefundPolicy, form: Form) -> str:
    if form.kind == "freeroll":
        return f"each player left gets their {_EQUITY}"
    bounds = "at least the buy-in" if form.flight else "at least the buy-in and at most the first prize"
    return f"each player left gets their {_EQUITY}, {bounds}{_fees_words(policy, form)}"


def _b_late_says(policy: RefundPolicy, form: Form) -> str:
    if form.kind == "freeroll":
        return f"each player left gets their {_EQUITY}"
    by = ("chip position (half of the pool evenly, half by the prizes of their chip ranks)"
          if policy.late_formula == "chip_position" else _EQUITY)
    return (f"each player left gets their {by}, at least the next elimination's prize and at most the first "
            f"prize{_fees_words(policy, form)}")


BY_FORMULA = {
    "A2": StageRule("With 20% or more of the entries out, before the money", _a2_says, _by_formula),
    "A3": StageRule("Once prizes are being paid, or after a partial deal", _a3_says, _by_formula),
    "B-middle": StageRule("With 25% or more of the entries out, before the money", _b_middle_says, _by_formula),
    "B-late": StageRule("In the money, or after a partial deal", _b_late_says, _by_formula),
}


def _freeroll_unpaid(situation: Situation, pool: int, stage: str, why: str) -> list[Refund]:
    """A freeroll that pays no prize: the entry points come back to whoever paid them, the sponsored pool to
    the house (seed 004, freeroll pre and early; a rescheduled middle)."""
    points = [Refund(player, 0, fees, f"freeroll: its entry points back ({stage})")
              for player, paid in situation.paid.items() if (fees := sum(paid.get(k, 0) for k in _FEE_KINDS))]
    return points + ([Refund("", pool, 0, f"freeroll {why}: the sponsored pool goes back ({stage})")]
                     if pool else [])


def _seats(situation: Situation, pool: int, seats: list[int], rule: str,
           cash: list[int] | None = None) -> list[Refund]:
    """Each player's seat (a ticket into the target, as a won seat is) and their cash; a final's cash left
    once every seat is paid is shared evenly (Decision)."""
    live = situation.live
    if cash is None:
        left = pool - min(pool, sum(seats))
        if sum(seats) > pool:  # fewer seats than players left: the pool's worth of seats, the best stacks first
            order = sorted(range(len(live)), key=lambda i: (-live[i][1], i))
            seats = [0] * len(live)
            for i in order[:pool // max(situation.seat_value_cents, 1)]:
                seats[i] = situation.seat_value_cents
            left = pool - sum(seats)
        cash = _by_rank(_evenly(left, len(live)), left, live)
    refunds = []
    for (player, _), seat, extra in zip(live, seats, cash):
        if seat:
            refunds.append(Refund(player, seat, 0, rule, ticket=True))
        if extra:
            refunds.append(Refund(player, extra, 0, f"{rule}: the cash"))
    return refunds


def _evenly(total: int, count: int) -> list[Fraction]:
    return [Fraction(total, count)] * count if count else []


def _by_rank(shares: list[Fraction], total: int, live: list[tuple[str, int]]) -> list[int]:
    """Whole cents for ``shares`` of ``total``, odd cents to the bigger stack, then the earlier seat (G.30)."""
    stacks = [stack for _, stack in live]
    tie_order = sorted(range(len(stacks)), key=lambda i: (-stacks[i], i))
    rank = {index: position for position, index in enumerate(tie_order)}
    return largest_remainder(shares, total, [rank[i] for i in range(len(stacks))])


def _carried_back(situation: Situation, left: int) -> list[Refund]:
    """A final's pool that came from its flights, after a rollback of what was paid in the final itself.

    Nobody paid it here: it is the qualified players' money, so it goes to
    the qualified players still in (every player still in, if none is), half
    equally and half by chips (Decision); with nobody in, back to the
    house's account for the admin to settle.
    """
    if left <= 0:
        return []
    qualified = set(situation.qualified)
    live = [seat for seat in situation.live if seat[0] in qualified] or situation.live
    if not live:
        return [Refund("", left, 0, "the flights' pool, with nobody left to take it")]
    cents = _by_rank(_half_and_half(Fraction(left), [Fraction(stack) for _, stack in live]), left, live)
    return [Refund(player, amount, 0, "the flights' pool, half equally and half by chips (L.47)")
            for (player, _), amount in zip(live, cents) if amount]


def _shares(stage: str, policy: RefundPolicy, situation: Situation, pool: int) -> list[Fraction]:
    """Each live player's exact share of ``pool`` cents under the stage's formula and clamps."""
    live = situation.live
    count = len(live)
    stacks = [stack for _, stack in live]
    prizes = [Fraction(prize) for prize in situation.prizes]
    first = prizes[0] if prizes else Fraction(pool)
    next_prize = prizes[count - 1] if count <= len(prizes) else Fraction(0)
    weights = [Fraction(stack) for stack in stacks]
    if stage == "A3" and policy.split == "icm":
        return _icm_shares(stacks, prizes[:count], pool)
    if stage in ("A2", "A3"):
        split = _by_chips if policy.split != "half_and_half" else _half_and_half
        if stage == "A2":
            return split(Fraction(pool), weights)
        rest = pool - next_prize * count
        return [next_prize + extra for extra in split(rest, weights)]
    if stage == "B-late" and policy.late_formula == "chip_position":
        weights = _rank_weights(stacks, prizes)
    if situation.kind == "satellite":
        low = [Fraction(0)] * count
        high: Fraction | None = Fraction(situation.seat_value_cents) if situation.seat_value_cents else None
        if high is not None and high * count < pool:
            high = None  # too few players left to hold the pool at a seat each: no cap (Decision)
    elif situation.kind == "freeroll":  # plain chip equity: seed 004 names no floor or cap for a freeroll
        low, high = [Fraction(0)] * count, None
    else:
        low = [next_prize if stage == "B-late" else Fraction(situation.buy_in_cents)] * count
        high = first
    return water_fill(Fraction(pool), weights, low, high, _half_and_half)


def _half_and_half(total: Fraction, weights: list[Fraction]) -> list[Fraction]:
    """Half of ``total`` equally, half in proportion to ``weights`` (chips: the chip equity formula)."""
    if not weights:
        return []
    equal = total / 2 / len(weights)
    weight_sum = sum(weights)
    return [equal + total / 2 * weight / weight_sum for weight in weights]


def _by_chips(total: Fraction, weights: list[Fraction]) -> list[Fraction]:
    weight_sum = sum(weights)
    return [total * weight / weight_sum for weight in weights]


def _icm_shares(stacks: list[int], exact_prizes: list[Fraction], pool: int) -> list[Fraction]:
    """Malmuth-Harville equity of the prizes still to be paid; first place absorbs any difference from the pool.

    Exact up to 20 players; beyond, a Monte Carlo of a million orders from a
    fixed seed, so the same situation always gets the same refunds.
    """
    prizes = [float(prize) for prize in exact_prizes]
    prizes[0] += pool - sum(prizes)
    if len(stacks) <= EXACT_MAX_PLAYERS:
        values = equities(stacks, prizes)
    else:
        import numpy as np

        values, _ = monte_carlo(stacks, prizes, np.random.default_rng(0), samples=1_000_000)
        values = [value * pool / sum(values) for value in values]
    # Rounded to a millionth of a cent so that equal stacks, whose float equities differ only by noise, tie.
    return [Fraction(round(value, 6)) for value in values]


def _rank_weights(stacks: list[int], prizes: list[Fraction]) -> list[Fraction]:
    """Chip position: each player weighs the prize of their chip rank; equal stacks share their ranks' prizes."""
    order = sorted(range(len(stacks)), key=lambda i: -stacks[i])
    weights = [Fraction(0)] * len(stacks)
    position = 0
    while position < len(order):
        tied = [i for i in order[position:] if stacks[i] == stacks[order[position]]]
        ranks = range(position, position + len(tied))
        share = sum((prizes[r] for r in ranks if r < len(prizes)), Fraction(0)) / len(tied)
        for index in tied:
            weights[index] = share
        position += len(tied)
    return weights


def water_fill(total: Fraction, weights: list[Fraction], low: list[Fraction], high: Fraction | None,
               formula: Callable[[Fraction, list[Fraction]], list[Fraction]]) -> list[Fraction]:
    """``formula`` over the players, each held within [low_i, high] where that can hold (rules.md I.39).

    Caps first: compute the formula over the free players with the money not
    yet pinned; pin those above the cap at the cap and repeat; else pin
    those below their floor at it and repeat; else stop. If everyone ends
    pinned and money is left (or missing), the capped players share the
    difference evenly: the cap yields, a floor never strands money. Floors
    that add up to more than the money cannot all hold: the money is then
    shared in proportion to them. The shares always add up to ``total``.
    """
    count = len(weights)
    if count == 0:
        return []
    floors = sum(low)
    if floors > total:
        return [total * floor / floors if floors else total / count for floor in low]
    fixed: dict[int, Fraction] = {}
    capped: list[int] = []
    while len(fixed) < count:
        free = [i for i in range(count) if i not in fixed]
        raw = dict(zip(free, formula(total - sum(fixed.values()), [weights[i] for i in free])))
        above = [i for i in free if high is not None and raw[i] > high]
        below = [] if above else [i for i in free if raw[i] < low[i]]
        if not above and not below:
            fixed.update(raw)
            break
        for i in above:
            fixed[i] = high if high is not None else raw[i]
            capped.append(i)
        for i in below:
            fixed[i] = low[i]
    shares = [fixed[i] for i in range(count)]
    left = total - sum(shares)
    if left:
        takers = capped or list(range(count))
        for i in takers:
            shares[i] += left / len(takers)
    return shares
