"""A tournament's state, below the rules that change it: its definition, its draws, its money and its parts.

Every field lives in a part (engine/parts/) whose own methods are its only
writers: the floor, hand-for-hand's rounds, the people behind the entries,
what waits on an answer, the clock, the stacks and the chips issued, the
entries, the results, where the tournament stands, the prize table, the
re-buys, a deal in the making and the bounties. The policies (engine/floor.py,
eliminations.py, rebuys.py ...) are functions of a ``State``, which they read
and change through those methods, and never name the face: engine/director.py's
``Tournament`` is a ``State`` that sequences them and answers the commands. The
properties below are the reads everyone shares, so that a rule reads
``t.stacks`` and writes ``t.chips.set(...)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence

from mypy_extensions import mypyc_attr

from engine.events import FailureDeclared, HandVoided, IncidentRecorded, Result
from engine.money import Kind, Ledger
from engine.parts.buys import Buys
from engine.parts.clock import Clock
from engine.parts.floor import Floor, Playing
from engine.parts.heads import Heads
from engine.parts.negotiation import Deal, Negotiation, Terms
from engine.parts.pending import Pending
from engine.parts.people import People
from engine.parts.progress import Progress
from engine.parts.purse import Purse
from engine.parts.results import Results
from engine.parts.roster import Roster
from engine.parts.rounds import Rounds
from engine.parts.stacks import Stacks
from engine.refunds import Refund
from engine.status import Status
from engine.structure import Definition

Dealer = Callable[[random.Random, Sequence[str]], list[int] | None]


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class State:
    """The parts of one tournament. ``definition`` is written by the face alone (the director's console edits a
    level to come); ``hands_played`` by its deal; the rest by their parts' methods and the ledger's."""

    def __init__(self, definition: Definition, rng: random.Random, deal: Dealer) -> None:
        self.definition = definition
        self.rng = rng
        self.deal = deal
        self.ledger = Ledger()
        self.floor = Floor(definition.seats_per_table)
        self.rounds = Rounds()
        self.people = People()
        self.pending = Pending()
        self.clock = Clock()
        self.chips = Stacks()
        self.roster = Roster()
        self.places = Results()
        self.progress = Progress()
        self.purse = Purse()
        self.buys = Buys(definition.rebuys is not None)
        self.negotiation = Negotiation()
        self.heads = Heads()
        self.hands_played = 0

    # ------------------------------------------------------------------ the reads every rule shares

    @property
    def status(self) -> Status:
        return self.progress.status

    @property
    def stacks(self) -> Mapping[str, int]:
        """Live players' stacks (start-of-hand values while a hand is on)."""
        return self.chips.stacks

    @property
    def chips_issued(self) -> int:
        """Starting stacks, re-buys and add-ons: what ``chips_in_play()`` must equal."""
        return self.chips.issued

    @property
    def players_left(self) -> int:
        return len(self.chips.stacks)

    @property
    def entries(self) -> list[str]:
        """Every entry, in registration order."""
        return self.roster.entries

    @property
    def results(self) -> Mapping[str, Result]:
        return self.places.results

    @property
    def prizes(self) -> list[int]:
        return self.purse.prizes

    @property
    def prize_pool_cents(self) -> int:
        return self.purse.pool_cents

    @property
    def seats_won(self) -> int:
        """A satellite's seats (K.44)."""
        return self.purse.seats_won

    @property
    def level(self) -> int:
        """The level under way, an index into the definition's levels."""
        return self.clock.level

    @property
    def break_until(self) -> float | None:
        return self.clock.break_until

    @property
    def break_keeps_level(self) -> bool:
        """The break under way was called by hand: the level goes on after it."""
        return self.clock.break_keeps_level

    @property
    def next_break_at(self) -> float:
        """Synchronised breaks (``breaks.at_minute``): when the next one starts."""
        return self.clock.next_break_at

    @property
    def hand_for_hand(self) -> bool:
        return self.rounds.on

    @property
    def hand_for_hand_at(self) -> list[int]:
        return self.rounds.began_at

    @property
    def hand_for_hand_forced(self) -> bool:
        return self.rounds.forced

    @property
    def tables(self) -> dict[int, Playing]:
        """The tables in play, open or closing; read them, the floor changes them."""
        return self.floor.tables

    @property
    def where(self) -> dict[str, tuple[int, int]]:
        """player -> (table id, seat); read it, the floor changes it."""
        return self.floor.where

    @property
    def rebuy_offers(self) -> Mapping[str, float]:
        """player -> the deadline of their re-buy offer."""
        return self.pending.offers

    @property
    def rebuys_taken(self) -> Mapping[str, int]:
        return self.buys.rebuys_taken

    @property
    def rebuy_period_over(self) -> bool:
        return self.buys.period_over

    @property
    def add_on_until(self) -> float | None:
        return self.buys.add_on_until

    @property
    def add_ons(self) -> set[str]:
        return self.buys.add_ons

    @property
    def bounties(self) -> Mapping[str, int]:
        """Each live entry's bounty in cents (rules.md J)."""
        return self.heads.bounties

    @property
    def envelopes(self) -> list[int] | None:
        """A mystery bounty's envelopes left, once sized."""
        return self.heads.envelopes

    @property
    def deal_pressed(self) -> set[str]:
        return self.negotiation.pressed

    @property
    def proposal(self) -> Deal | None:
        return self.negotiation.proposal

    @property
    def deal_terms(self) -> Terms | None:
        """A kind of deal a player asked for, proposed between hands."""
        return self.negotiation.terms

    @property
    def dealt(self) -> Mapping[str, int]:
        """What partial deals paid each player so far."""
        return self.negotiation.dealt

    @property
    def failure(self) -> FailureDeclared | None:
        """A failure the director declared (engine/corrections.py)."""
        return self.progress.failure

    @property
    def incidents(self) -> list[IncidentRecorded]:
        """Players' cases on the record, replaced whole, never appended to."""
        return self.progress.incidents

    @property
    def ended_by_deal(self) -> bool:
        return self.progress.ended_by_deal

    @property
    def flight_stopping(self) -> bool:
        """A flight has met its stop condition; it ends once its hands are over (L.47)."""
        return self.progress.flight_stopping

    @property
    def knockouts(self) -> Mapping[str, int]:
        return self.places.knockouts

    @property
    def removed(self) -> Mapping[str, bool]:
        return self.places.removed

    @property
    def removals(self) -> Mapping[str, bool]:
        return self.places.removals

    @property
    def refunds(self) -> list[Refund]:
        return self.places.refunds

    @property
    def late_entries(self) -> int:
        return self.roster.late_entries

    @property
    def reentered(self) -> Mapping[str, str]:
        return self.roster.reentered

    @property
    def reentries(self) -> Mapping[str, int]:
        return self.roster.reentries

    @property
    def entries_closed(self) -> Mapping[str, str]:
        """late registration, re-entry -> why it closed (engine.windows)."""
        return self.roster.closed

    @property
    def flight_entries(self) -> int:
        return self.roster.flight_entries

    # ------------------------------------------------------------------ what touches state alone

    def person(self, entry: str) -> str:
        """Who holds ``entry``: their person, or the entry itself when it is a person of its own."""
        return self.people.person(entry)

    def in_hand(self, player: str) -> bool:
        state = self.floor.tables.get(self.floor.where[player][0]) if player in self.floor.where else None
        return state is not None and state.hand is not None and player in state.hand.players

    def standings(self) -> list[Result]:
        return sorted(self.places.results.values(), key=lambda result: result.place)

    def pay(self, player: str, price_kind: Kind, price: int, fee_kind: Kind, fee: int) -> None:
        """A price and its fee into the ledger, each if there is one."""
        if price:
            self.ledger.record(price_kind, player, price)
        if fee:
            self.ledger.record(fee_kind, player, fee)

    def void(self, table: int) -> HandVoided:
        """The table's hand is off, whatever the reason (a cancellation, a satellite over, a crash)."""
        hand = self.floor.hand_over(table)
        self.rounds.voided(table)
        for player in hand.players:
            self.chips.credit(player, self.pending.take_chips(player))
        return HandVoided(table, self.floor.tables[table].number)
