"""A tournament's refund rules as a player reads them: what each stage of a cancellation gives back, for this
tournament's policy, kind, re-buys and bounties (the seed: the specific refund rules "may be accessed from the
TOURNAMENT INFO section"). The rules themselves are engine/refunds.py's; these sentences say what it computes.
"""

from __future__ import annotations

from engine.structure import Definition, refund_kind

_SPLIT = {"half_and_half": "half of it shared equally among the players left and half by their chips",
          "chips": "all of it shared by the players' chips", "icm": "by the players' chips"}
_SPLIT_IN_MONEY = {"half_and_half": "half equally and half by chips", "chips": "by chips",
                   "icm": "by ICM (each stack's equity in the prizes left)"}


def refund_terms(definition: Definition) -> list[str]:
    """One sentence a stage, in the order the stages come, and the notes on re-buys and bounties."""
    policy = definition.refund_policy
    kind = refund_kind(definition)
    freeroll, satellite = kind == "freeroll", kind == "satellite"
    paid = "the entry points" if freeroll else "the buy-in and the fee"
    if definition.rebuys is not None:
        paid += ", and every re-buy and add-on"
    terms = []
    if policy.name == "A":
        terms.append(f"Before the start, or with fewer than 20% of the entries out: {paid} come back.")
        if definition.rebuys is not None:
            terms.append("During the re-buy or add-on period: everything every entry paid comes back, to the "
                         "players already out too.")
        fees = "the fees come back" if policy.refund_fees else "the fees are kept"
        terms.append(f"With 20% or more out, before the money: the prize pool goes to the players left, "
                     f"{_SPLIT[policy.split]}; {fees}.")
        terms.append(f"Once prizes are being paid: each player left gets the next prize not yet paid, then the rest "
                     f"of the pool is shared {_SPLIT_IN_MONEY[policy.split]}.")
    else:
        terms.append(f"With fewer than 5% of the entries out: {paid} come back"
                     + (", and the sponsor's pool goes back to the sponsor." if freeroll else "."))
        if freeroll:
            terms.append("With fewer than 25% out: the same.")
            middle = ("the tournament is played again at a new date, the players left entered in it"
                      if policy.freeroll_middle == "reschedule" else "each player left gets their chip equity")
            terms.append(f"With 25% or more out, before the money: {middle}.")
            terms.append("In the money: each player left gets their chip equity.")
        else:
            terms.append("With fewer than 25% out: the fee comes back, and the prize pool is shared evenly among "
                         "the players left.")
            if satellite:
                middle = ("seats, as far as each player's chip equity covers one, and the rest in cash"
                          if policy.satellite_middle == "seats"
                          else "the pool in cash, half evenly and half by stack sizes")
                terms.append(f"With 25% or more out, before the seats are won: {middle}.")
                terms.append("Once every player left is sure of a seat: each gets their seat.")
            else:
                terms.append("With 25% or more out, before the money: each player left gets their chip equity, at "
                             "least the buy-in and at most the first prize.")
                by = "chip position" if policy.late_formula == "chip_position" else "chip equity"
                terms.append(f"In the money: each player left gets their {by}, at least the next elimination's "
                             f"prize and at most the first prize.")
    if definition.bounty is not None:
        terms.append("Bounties on the players still in play go back to them; bounties already won stay won.")
    return terms
