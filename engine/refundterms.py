"""A tournament's refund rules as a player reads them: what each stage of a cancellation gives back, for this
tournament's policy, kind, re-buys and bounties (the seed: the specific refund rules "may be accessed from the
TOURNAMENT INFO section"). The sentences are engine/refunds.py's, each beside the rule that pays it.
"""

from __future__ import annotations

from engine.refunds import Form, terms
from engine.structure import Definition, refund_kind


def refund_terms(definition: Definition) -> list[str]:
    """One sentence a stage, in the order the stages come, and the note on bounties."""
    return terms(definition.refund_policy, form_of(definition))


def form_of(definition: Definition) -> Form:
    return Form(refund_kind(definition), rebuys=definition.rebuys is not None,
                bounty=definition.bounty is not None, flight=definition.flight is not None,
                final=definition.final is not None)
