"""Test helpers: small tournaments whose hands end the way a test says."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from engine.cards import card, cards, shuffled_deck
from engine.director import Status, Tournament
from engine.events import HandFinished, HandStarted, PlayerMoved
from engine.structure import Definition, Level, Payout

# The winner holds aces; the others hold low cards that can make no straight or
# flush with this board, so aces over kings always win, and win alone.
# Tests of the director, not of the bots: chips change hands fast with stations and random players (the mix that
# was the default before the regular players), so a field comes down in few hands.
FAST_MIX = {"tag": 4.0, "pushfold": 3.0, "station": 2.0, "random": 1.0}
WINNER_HOLE = cards("AcAd")
BOARD = cards("KsKhQsJs2h")
LOSER_CARDS = [card(rank + suit) for rank in "345678" for suit in "cdh"]


class RiggedDealer:
    """Deals the deck set in ``next`` once; else, with ``choose``, the best cards to ``choose(players in dealing
    order)``; else (or when it chooses nobody) shuffles as usual."""

    def __init__(self, choose: Favour | AllBut | None = None) -> None:
        self.next: list[int] | None = None
        self.choose = choose

    def __call__(self, rng: random.Random, players: Sequence[str]) -> list[int]:
        deck, self.next = self.next, None
        if deck is None and self.choose is not None:
            winner = self.choose(list(players))
            if winner is not None:
                deck = rigged_deck(len(players), list(players).index(winner))
        return deck if deck is not None else shuffled_deck(rng)


def rigged_deck(n: int, winner: int) -> list[int]:
    """A deck where player ``winner`` of an ``n``-player hand has the best hand."""
    losers = iter(LOSER_CARDS)
    holes = [WINNER_HOLE if i == winner else (next(losers), next(losers)) for i in range(n)]
    top = [h[0] for h in holes] + [h[1] for h in holes]
    used = set(top) | set(BOARD)
    spare = [c for c in range(52) if c not in used]
    burn = spare.pop
    deck = top + [burn(), *BOARD[:3], burn(), BOARD[3], burn(), BOARD[4]]
    return deck + spare


class Favour:
    """The best cards to ``player`` whenever they are dealt in (else a fair deal)."""

    def __init__(self, player: str) -> None:
        self.player = player

    def __call__(self, order: list[str]) -> str | None:
        return self.player if self.player in order else None


class AllBut:
    """The best cards to the first player dealt in who is not ``loser``."""

    def __init__(self, loser: str) -> None:
        self.loser = loser

    def __call__(self, order: list[str]) -> str | None:
        return next(player for player in order if player != self.loser)


def rig_winners(director: Tournament, choose: Favour | AllBut) -> None:
    """From now on each hand's best cards go to ``choose(players in dealing order)`` (None: a fair deal)."""
    director.deal = RiggedDealer(choose)


def definition(seats: int, *, starting_stack: int = 1000, paid: int = 3, min_players: int = 2, buy_in_cents: int = 1000,
               levels: list[Level] | None = None, payouts: list[Payout] | None = None, **more) -> Definition:
    """A small tournament: blinds 10/20 for an hour unless ``levels`` say otherwise."""
    if payouts is None:
        share = 100 // (paid + 1)
        payouts = [Payout(places="1", percent=100 - share * (paid - 1))]
        if paid > 1:
            payouts.append(Payout(places=f"2-{paid}", percent=share))
    return Definition(
        name="test", seats_per_table=seats, starting_stack=starting_stack, buy_in_cents=buy_in_cents, fee_cents=100,
        min_players=min_players, levels=levels or [Level(10, 20, minutes=60)], payouts=payouts,
        **{"max_players": 10_000, **more},
    )


def running(players: int, seats: int, *, seed: int = 0, people: dict[str, str] | None = None,
            **options) -> tuple[Tournament, RiggedDealer]:
    """A started tournament of ``players`` entries p1, p2 ... (``people`` maps entries to persons)."""
    dealer = RiggedDealer()
    tournament = Tournament(definition(seats, **options), random.Random(seed), deal=dealer)
    tournament.open_registration()
    for number in range(1, players + 1):
        tournament.register(f"p{number}", (people or {}).get(f"p{number}"))
    tournament.start(0.0)
    return tournament, dealer


def deal(tournament: Tournament, dealer: RiggedDealer, table: int, winner: str | None = None) -> list:
    """Start a hand at ``table`` where ``winner`` has the best cards; returns the start events.

    Without a winner the deck is shuffled as usual.
    """
    order = [tournament.tables[table].table.seats[s] for s in tournament.tables[table].table.next_positions().dealt]
    if winner is not None:
        dealer.next = rigged_deck(len(order), order.index(winner))
    return tournament.start_hand(table)


def play_out(tournament: Tournament, table: int, all_in: set[str] | frozenset[str] = frozenset()) -> None:
    """Players in ``all_in`` go all-in or call it; everyone else checks or folds."""
    hand = tournament.hand(table)
    while not hand.finished:
        legal = hand.legal_actions()
        player = hand.players[legal.player]
        if player in all_in:
            if legal.max_raise_to is not None:
                tournament.act(table, "raise", legal.max_raise_to)
            else:
                tournament.act(table, "check" if legal.can_check else "call")
        else:
            tournament.act(table, "check" if legal.can_check else "fold")


def hand(tournament: Tournament, dealer: RiggedDealer, table: int, winner: str | None = None,
         all_in: set[str] | frozenset[str] = frozenset()) -> list:
    """Deal, play and settle one hand; returns the director's events of its start and its end."""
    events = deal(tournament, dealer, table, winner)
    play_out(tournament, table, all_in)
    return events + tournament.end_hand(table)


def seated(tournament: Tournament, table: int) -> list[str]:
    return tournament.tables[table].table.players


def set_stacks(tournament: Tournament, stacks: dict[str, int]) -> None:
    """Arrange stacks between hands for a test; the tournament's chip total must not change."""
    total = sum(tournament.stacks.values())
    for player, stack in stacks.items():
        tournament.chips.set(player, stack)
    assert sum(tournament.stacks.values()) == total, "a test must move chips, not make them"


def check_after_every_hand(total_chips: int | None, seats: int, *, exact_tables: bool = True):
    """Invariants after every event (money) and every hand (chips, seats, tables).

    ``total_chips`` None: chips are bought during the tournament, so the
    total is what the director has issued. ``exact_tables`` False: a person
    with several entries may keep more tables open than the field needs
    while late entries can come (rules.md M.50).
    """
    def watch(tournament, event, at=0.0):
        assert tournament.ledger.balances(), f"the ledger does not balance after {event}"
        if isinstance(event, PlayerMoved):
            in_hands = {p for state in tournament.tables.values() if state.hand for p in state.hand.players}
            assert event.player not in in_hands, f"{event.player} moved during a hand"
        if isinstance(event, HandStarted):
            assert len({p.player for p in event.players}) == len(event.players)
        if not isinstance(event, HandFinished):
            return
        assert tournament.chips_in_play() == (tournament.chips_issued if total_chips is None else total_chips)
        seated = [p for state in tournament.tables.values() for p in state.table.players]
        assert len(seated) == len(set(seated)), "a player is seated twice"
        assert sorted(seated) == sorted(tournament.stacks), "every live player has exactly one seat"
        for player, (table, seat) in tournament.where.items():
            assert tournament.tables[table].table.seats[seat] == player
        if tournament.status is Status.RUNNING:
            pending = tournament.tables_to_break
            assert all(tournament.tables[t].hand is not None for t in pending), "a closing table waits idle"
            needed = math.ceil(tournament.players_left / seats)
            open_tables = len(tournament.tables) - len(pending)
            assert open_tables == needed if exact_tables else open_tables >= needed

    return watch
