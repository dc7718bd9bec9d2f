"""A table's hand as it leaves for a table worker and comes back (``HandOut``, ``HandBack``), and what the worker
holding the table does now (``TableState``): plain data, the tournament's side of server/cluster/schema.py, so that
one tournament's tables hand hands out without importing the cluster."""

from __future__ import annotations

from typing import Literal, TypeAlias

import msgspec

from engine.events import Acted as EngineActed
from engine.hand import Hand, Rules
from engine.wire import Stage


StateKind: TypeAlias = Literal["ready", "wait", "out", "gone", "fenced"]


class TableState(msgspec.Struct, array_like=True):
    """What the worker holding a table does now.

    ``kind``: ``ready`` (ask to deal), ``wait`` (the director says not yet), ``out`` (a hand is dealt to this
    worker: it comes on the table's subject, to be played and handed back with ``end``), ``gone`` (the table is
    closed: let it go) or ``fenced`` (a newer lease holds it). ``version`` orders the director's answers and
    notices: an older one than the worker has seen is stale.
    """

    kind: StateKind
    version: int


class DealtHand(msgspec.Struct, array_like=True):
    """A hand as the director dealt it: its constructor's arguments and the decisions it has taken, from which the
    worker deals it again. Plain data, so that bytes from the bus are never code: a pickle here ran whatever any
    holder of the bus's token sent."""

    players: list[str]
    stacks: list[int]
    small_blind: int
    big_blind: int
    ante: int
    bb_ante: bool
    sb_index: int | None
    bb_index: int
    deck: list[int]
    short_blind: Literal["posted", "full"]
    reopen: Literal["tda", "consecutive"]
    decisions: list[tuple[str, int]]  # (action, street total) of each decision taken, in order

    @classmethod
    def of(cls, hand: Hand) -> DealtHand:
        return cls(
            list(hand.players), list(hand.starting_stacks), hand.small_blind, hand.big_blind, hand.ante,
            hand.bb_ante, hand.sb_index, hand.bb_index, list(hand.deck), hand.rules.short_blind, hand.rules.reopen,
            [(event.action, event.to) for event in hand.events if isinstance(event, EngineActed)])

    def build(self) -> Hand:
        """The hand again; ValueError (or IllegalAction, a kind of it) when the arguments make no hand."""
        hand = Hand(self.players, self.stacks, small_blind=self.small_blind, big_blind=self.big_blind,
                    deck=self.deck, ante=self.ante, bb_ante=self.bb_ante, sb_index=self.sb_index,
                    bb_index=self.bb_index, rules=Rules(self.short_blind, self.reopen))
        for action, to in self.decisions:
            hand.act(action, to if action in ("bet", "raise") else None)
        return hand


class HandOut(msgspec.Struct, tag="deal", array_like=True):
    """A hand the director dealt, for the table's worker to play: the hand as dealt, the events the deal opened
    with (encoded), and what the decisions' clocks need of the players."""

    hand: DealtHand
    number: int
    opening: list[bytes]
    banks: dict[str, float]  # what is left of each player's time bank
    sitting_out: list[str]
    last_grace: dict[str, float]  # when (the tournament clock) each player was last given disconnect grace
    clock: float  # the tournament clock at the deal: the worker's grace counts on from it
    grace_every: float  # seconds of the tournament clock between two disconnect graces of one player
    names: dict[str, str]
    action_seconds: float
    grace_seconds: float
    pause: float  # how long the finished hand shows before it is handed back
    stage: Stage = Stage()  # where the tournament stood at the deal: what its players' turns tell them


class Act(msgspec.Struct, array_like=True, tag="act"):
    """A decision, with what is left of the player's time bank after it: the journal's record
    (server/tournament/records.py, ``["act", 3, "call", None, "p7", 28.5]``), and what a worker hands back of each
    decision it took, which the director journals as it came."""

    table: int
    action: str
    amount: int | None
    player: str
    bank: float


class HandBack(msgspec.Struct, array_like=True):
    """A hand a worker played, for the director to journal and settle: its decisions as they were taken (the
    journal's ``Act`` records, with the time bank left), who sits out now, and who was given disconnect grace,
    when (the tournament clock)."""

    number: int
    decisions: list[Act]
    sitting_out: dict[str, bool]
    graced: dict[str, float]
