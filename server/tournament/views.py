"""What a tournament, a table and a player look like from outside: pure functions of the state, as typed Structs.

Nothing here changes the tournament. The runtime hands in what only it knows
(the clock, who is connected, who sits out, a decision's countdown).
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Generic, Literal, TypeVar

from engine.refundterms import refund_terms
from engine.director import Status, Tournament
from engine.events import Result, Shown
from engine.hand import Hand
from engine.refunds import Refund
from engine.wire import (
    Countdown, DealView, Details, Legal, QueuedMove, RefundRow, SeatView, Standing, Summary, TableView, Ticket,
    Timeline, VoidedHand, You,
)
from server.tournament.entries import Entries

Value = TypeVar("Value")


class Cache(Generic[Value]):
    """Values built once per state version and key: a thousand readers of one state cost one build."""

    def __init__(self) -> None:
        self._version: object = None
        self._built: dict[object, Value] = {}

    def get(self, version: object, key: object, build: Callable[[], Value]) -> Value:
        if version != self._version:
            self._version, self._built = version, {}
        if key not in self._built:
            self._built[key] = build()
        return self._built[key]


TABLES_PER_PAGE = 100
ROWS_PER_PAGE = 1000


class Facts:
    """What the views read besides the director: the runtime's facts at this moment."""

    __slots__ = ("id", "now", "paused", "started_wall", "finished_wall", "restored_at", "voided", "entries",
                 "sitting_out", "connected", "countdown", "button", "stack_figures")

    def __init__(self, tournament_id: str, *, now: float, paused: bool, started_wall: float | None,
                 finished_wall: float | None,
                 restored_at: float | None, voided: list[VoidedHand], entries: Entries, sitting_out: set[str],
                 connected: Callable[[str], bool], countdown: Callable[[int], Countdown | None],
                 button: Callable[[int], int], stack_figures: tuple[int | None, int | None]) -> None:
        self.id = tournament_id
        self.now = now
        self.paused = paused
        self.started_wall = started_wall
        self.finished_wall = finished_wall
        self.restored_at = restored_at
        self.voided = voided
        self.entries = entries
        self.sitting_out = sitting_out
        self.connected = connected
        self.countdown = countdown
        self.button = button
        self.stack_figures = stack_figures  # (average, largest), kept per journal position by the runtime


def stack_figures(director: Tournament) -> tuple[int | None, int | None]:
    """The average and largest stacks over every player, once running."""
    stacks = list(director.stacks.values()) if director.status is Status.RUNNING else []
    return (sum(stacks) // len(stacks), max(stacks)) if stacks else (None, None)


def summary(director: Tournament, facts: Facts) -> Summary:
    definition = director.definition
    level = definition.levels[director.level]
    running = director.status is Status.RUNNING  # a finished or cancelled tournament's clocks stand still
    ends_at = director.level_ends_at() if running else None
    break_at = director.break_starts_at() if running else None
    average_stack, largest_stack = facts.stack_figures
    now = facts.now
    # While a deal is open the level's clock stands still: its seconds left, as of the engine's clock, stay put.
    level_now = director.clock.now if director.proposal is not None else now
    late_ends_at = director.entries_close_at("late_registration")
    standings = director.standings() if director.status is Status.FINISHED else []
    return Summary(
        id=facts.id, name=definition.name, status=director.status.value, paused=facts.paused,
        starting_stack=definition.starting_stack, entries=len(director.entries), players_left=director.players_left,
        buy_in_cents=definition.buy_in_cents, fee_cents=definition.fee_cents,
        level=director.level + 1, small_blind=level.small_blind, big_blind=level.big_blind,
        ante=level.ante, bb_ante=level.bb_ante, hand_for_hand=director.hand_for_hand,
        level_ends_in=max(0.0, ends_at - level_now) if ends_at is not None else None,
        on_break_for=max(0.0, director.break_until - now) if director.break_until and running else None,
        average_stack=average_stack, largest_stack=largest_stack, tables=len(director.tables),
        started_at=facts.started_wall,
        prize_pool_cents=director.prize_pool_cents or definition.buy_in_cents * len(director.entries),
        add_on_open_for=max(0.0, director.add_on_until - now) if director.add_on_until and running else None,
        rebuy_period=not director.rebuy_period_over, deals=definition.deals, deal=deal_view(director, now),
        bounty=definition.bounty, flight=definition.flight, final=definition.final,
        entries_per_person=definition.entries_per_person, restored_at=facts.restored_at, voided_hands=facts.voided,
        rebuys=definition.rebuys, add_on=definition.add_on,
        min_players=definition.min_players,
        registration_opens_at=definition.registration_opens_at, starts_at=definition.starts_at,
        satellite=definition.satellite,
        late_registration=definition.late_registration, reentry=definition.reentry,
        late_registration_open=director.entries_open("late_registration"),
        reentry_open=director.entries_open("reentry"),
        late_registration_ends_in=max(0.0, late_ends_at - now) if late_ends_at is not None else None,
        winner=facts.entries.name(standings[0].player) if standings else None,
        finished_at=facts.finished_wall if director.status in (Status.FINISHED, Status.CANCELLED) else None,
        time_bank=definition.time_bank,
        bounty_pool_cents=director.ledger.bounties_cents + director.ledger.summary()["bounties"]
        if definition.bounty is not None else None,
        hand_for_hand_reason=hand_for_hand_reason(director),
        break_starts_in=max(0.0, break_at - level_now) if break_at is not None else None,
        queued_moves=[QueuedMove(player, facts.entries.name(player), director.where[player][0], table)
                      for player, table in director.floor.queued.items() if player in director.where],
        balance_queued=director.floor.balance_asked, ended_in_deal=director.ended_by_deal,
        level_after_break=None if director.break_until is None or not running else
        min(director.level + (1 if director.break_keeps_level else 2), len(definition.levels)),
    )


def hand_for_hand_reason(director: Tournament) -> Literal["director", "pay_jump", "ending"] | None:
    if not director.hand_for_hand:
        return None
    if director.hand_for_hand_forced:
        return "director"
    return "pay_jump" if director.hand_for_hand_due() else "ending"


def deal_view(director: Tournament, now: float) -> DealView | None:
    proposal = director.proposal
    if proposal is None:
        terms = director.deal_terms
        if terms is not None:
            return DealView(asked_by=terms.proposer, kind=terms.kind, keep_cents=terms.keep_cents)
        return DealView(pressed=sorted(director.deal_pressed)) if director.deal_pressed else None
    return DealView(amounts=proposal.amounts, accepted=sorted(proposal.accepted),
                    seconds=max(0.0, proposal.until - now), kind=proposal.kind, keep_cents=proposal.keep_cents)


def table_view(director: Tournament, table: int, facts: Facts) -> TableView:
    """What anyone at or watching the table may see: no hole cards unless shown."""
    state = director.tables[table]
    seats = [SeatView(seat=seat, player=player, name=facts.entries.name(player),
                      stack=director.stacks.get(player, 0), bet=0, in_hand=False, folded=False, shown=[],
                      sitting_out=player in facts.sitting_out, bounty_cents=director.bounties.get(player),
                      connected=facts.connected(player))
             for seat, player in enumerate(state.table.seats) if player is not None]
    view = TableView(clock=None, id=table, seats=seats, size=state.table.size, button=facts.button(table), hand=None,
                     board=[], pot=0, actor=None)
    if state.hand is not None:
        playing(view, state.hand, state.number, facts.countdown(table), facts.sitting_out)
    return view


def playing(view: TableView, hand: Hand, number: int, countdown: Countdown | None,
            sitting_out: Collection[str]) -> None:
    """``view`` with ``hand`` in progress at its table: where the hand is played, in a cluster a table worker
    (server/cluster/playing.py), which has the hand that the director's view was built without."""
    in_hand = {player: i for i, player in enumerate(hand.players)}
    shown = {event.player: event.cards for event in hand.events if isinstance(event, Shown)}
    for seat in view.seats:
        i = in_hand.get(seat.player)
        if i is None:
            continue
        seat.stack, seat.bet, seat.in_hand, seat.folded = hand.stacks[i], hand.bets[i], True, bool(hand.folded[i])
        seat.shown, seat.sitting_out = list(shown.get(seat.player, ())), seat.player in sitting_out
    view.actor = hand.players[hand.actor] if hand.actor is not None else None
    view.clock, view.hand, view.board = countdown, number, list(hand.board)
    view.pot = sum(hand.committed) + sum(hand.bets) + hand.dead


def you(director: Tournament, player: str, facts: Facts) -> You:
    where = director.where.get(player)
    offer = director.rebuy_offers.get(player)
    mine = You(
        player=player, name=facts.entries.name(player), table=where[0] if where else None,
        seat=where[1] if where else None, stack=director.stacks.get(player),
        sitting_out=player in facts.sitting_out, time_bank=facts.entries.time_bank.get(player, 0.0),
        result=director.results.get(player), hole=None, legal=None,
        rebuy_offer=max(0.0, offer - facts.now) if offer is not None else None,
        rebuys=director.rebuys_taken.get(player, 0), add_on_taken=player in director.add_ons,
        deal_pressed=player in director.deal_pressed,
    )
    hand = director.hand(where[0]) if where else None
    if hand is not None:
        your_hand(mine, hand)
    return mine


def your_hand(mine: You, hand: Hand) -> None:
    """``mine`` with the player's cards in ``hand``, and their legal actions if they are to act."""
    if mine.player not in hand.players:
        return
    i = hand.players.index(mine.player)
    mine.hole = list(hand.hole[i])
    mine.legal = None
    if not hand.finished and hand.actor == i:
        legal = hand.legal_actions()
        mine.legal = Legal(legal.can_fold, legal.can_check, legal.call, legal.min_raise_to, legal.max_raise_to)


def standing(result: Result, entries: Entries, knockouts: Mapping[str, int]) -> Standing:
    return Standing(result.player, result.place, result.prize_cents, result.ticket, entries.name(result.player),
                    knockouts.get(result.player, 0))


def refund_row(refund: Refund, entries: Entries) -> RefundRow:
    return RefundRow(refund.player, entries.names.get(refund.player, "the house"), refund.cents, refund.fee_cents,
                     refund.rule)


def details(director: Tournament, facts: Facts, tickets: list[Ticket], page: int = 0,
            timeline: Timeline | None = None) -> Details:
    """``GET /api/tournaments/{id}``: the summary, the payouts and the tables' seats, the long lists a page
    at a time (``TABLES_PER_PAGE`` tables, ``ROWS_PER_PAGE`` results, refunds and tickets), so that one
    request's work stays bounded however large the field."""
    definition = director.definition
    lobby = summary(director, facts)
    tables, results = sorted(director.tables), director.standings()
    pages = max(1, *(-(-len(rows) // size) for rows, size in (
        (tables, TABLES_PER_PAGE), (results, ROWS_PER_PAGE), (director.refunds, ROWS_PER_PAGE),
        (tickets, ROWS_PER_PAGE))))
    rows = slice(page * ROWS_PER_PAGE, (page + 1) * ROWS_PER_PAGE)
    return Details(
        **{field: getattr(lobby, field) for field in Summary.__struct_fields__},
        payouts_cents=list(director.projected_prizes()), full_field_payouts_cents=director.full_field_prizes(),
        refund_policy=definition.refund_policy,
        refund_terms=refund_terms(definition), failure=director.failure, incidents=list(director.incidents),
        refunds=[refund_row(refund, facts.entries) for refund in director.refunds[rows]],
        tickets=tickets[rows],
        chips_in_play=director.chips_in_play(), chips_issued=director.chips_issued,
        ledger=director.ledger.summary(),
        results=[standing(r, facts.entries, director.knockouts) for r in results[rows]],
        table_list=[table_view(director, table, facts)
                    for table in tables[page * TABLES_PER_PAGE:(page + 1) * TABLES_PER_PAGE]],
        page=page, pages=pages, timeline=timeline,
    )
