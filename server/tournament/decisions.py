"""One table's hand, decision by decision, against the clock: whose turn it is, how long they have, and what the
clock does when it runs out (rules.md E.19-E.22).

A decision has ``action_seconds`` plus what is left of the player's time
bank, used automatically. When both run out the clock checks if free and
folds otherwise, connected or not, and the player sits out: from then on
their decisions are taken at once, blinds are posted, until they act or send
``back``. A player disconnected at their deadline may get disconnect grace
first.

The same rules run in two places, which differ only in their ``Outlet``:
the director's process for one ``mttsim serve`` (server/tournament/tables.py), where a
decision is a journaled record, and a cluster's table worker
(server/cluster/playing.py), which plays the hand it was dealt and hands its
decisions back to the director at the end.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping
from functools import partial
from typing import NoReturn, Protocol

from engine.hand import Hand, IllegalAction
from engine.wire import Act, Countdown, PrivateMessage, Stage, TableMessage, TimedOut, Turn, YourTurn
from server.errors import Refused
from server.tournament.clock import Clock


def settle(future: asyncio.Future[None]) -> None:
    if not future.done():
        future.set_result(None)


def mark_sitting_out(sitting_out: set[str], player: str, out: bool) -> bool:
    """``player`` sits out, or is back; False if that is no change."""
    if (player in sitting_out) == out:
        return False
    if out:
        sitting_out.add(player)
    else:
        sitting_out.discard(player)
    return True


class Grace:
    """Disconnect grace (docs/config.md, an option beside rules.md E.20): a player disconnected at their deadline
    gets ``seconds`` more, once per ``every`` seconds of the tournament clock. The one rule, wherever the hand
    is played: a cluster's worker is dealt the hand with ``given`` and the clock, and hands back whom it graced,
    and when.

    Kept in memory: a restart forgets it.
    """

    def __init__(self, seconds: float, every: float, now: Callable[[], float],
                 given: dict[str, float] | None = None) -> None:
        self.seconds = seconds
        self.every = every
        self.now = now
        self.given: dict[str, float] = {} if given is None else given  # player -> when they last had it

    def take(self, player: str, connected: bool) -> bool:
        """Whether ``player``, at their deadline, gets grace now; if so it is counted as given."""
        if connected or not self.seconds:
            return False
        now = self.now()
        last = self.given.get(player)
        if last is not None and now - last < self.every:
            return False
        self.given[player] = now
        return True


class TableClock:
    """The decision in progress at one table."""

    __slots__ = ("decision", "answered", "turn_started", "deadline", "seconds", "time_bank")

    def __init__(self) -> None:
        self.decision = 0  # bumped when a turn starts and when it is answered
        self.answered: asyncio.Future[None] | None = None  # what the table's player awaits, with a timer
        self.turn_started = 0.0
        self.deadline = 0.0  # the time when the decision's clock runs out
        self.seconds = 0.0  # the decision's whole clock: action seconds plus the time bank
        self.time_bank = 0.0


class Outlet(Protocol):
    """Where a table's hand is heard, and how its decisions take effect."""

    def publish(self, message: TableMessage) -> None:
        """To everyone watching the table, numbered in its stream."""

    def tell(self, player: str, message: PrivateMessage) -> None:
        """To ``player`` alone."""

    def apply(self, player: str, action: str, amount: int | None, bank: float) -> None:
        """The decision, with what is left of the player's time bank; IllegalAction changes nothing."""

    def grace(self, player: str) -> bool:
        """Whether ``player``, at their deadline, gets disconnect grace now (and it is counted as given)."""

    def sit_out(self, player: str, sitting_out: bool) -> None:
        """The player sits out, or is back; the table hears of a change."""


def stale(decision: Act) -> Refused:
    return Refused("stale", f"that decision was for turn {decision.turn} of hand {decision.hand}, which is over: "
                            f"wait for your next turn")


def early(decision: Act) -> Refused:
    return Refused("not_yet", f"that decision is for turn {decision.turn} of hand {decision.hand}, which has not "
                              f"come yet: wait for your turn")


def raise_no_hand(decision: Act) -> NoReturn:
    """No hand in progress for a decision: one that names its hand came late for it (``stale``)."""
    if decision.hand is not None:
        raise stale(decision)
    raise Refused("no_hand", "you have no hand in progress")


class Decisions:
    """The decisions of one hand at one table, and the clock of the one in progress."""

    def __init__(self, table: int, number: int, hand: Hand, outlet: Outlet, banks: Mapping[str, float],
                 sitting_out: Collection[str], action_seconds: float, grace_seconds: float,
                 name: Callable[[str], str], stage: Stage, clock: Clock) -> None:
        """``stage``: where the tournament stood at the deal, which each ``your_turn`` tells its player; ``clock``:
        the time the decisions' clocks run on."""
        self.stage = stage
        self.server_clock = clock
        self.table = table
        self.number = number  # the table's hand number
        self.hand = hand
        self.outlet = outlet
        self.banks = banks  # what is left of each player's time bank: the outlet's ``apply`` keeps it
        self.sitting_out = sitting_out
        self.action_seconds = action_seconds
        self.grace_seconds = grace_seconds
        self.name = name  # a player's name, for a refusal
        self.clock = TableClock()

    @property
    def in_play(self) -> bool:
        return not self.hand.finished

    def next_turn(self) -> None:
        """Start the clock of the next player to act who is not sitting out; those who are act at once."""
        hand, clock = self.hand, self.clock
        while not hand.finished:
            legal = hand.legal_actions()
            player = hand.players[legal.player]
            if player in self.sitting_out:
                self._decide(player, hand.timeout_action(), None, self.banks[player])
                continue
            bank = self.banks[player]
            seconds = self.action_seconds + bank
            clock.decision += 1
            clock.turn_started = self.server_clock.time()
            clock.deadline = clock.turn_started + seconds
            clock.seconds, clock.time_bank = seconds, bank
            self.outlet.publish(Turn(player, seconds, bank))
            seat, stage = legal.player, self.stage
            self.outlet.tell(player, YourTurn(
                self.number, legal.can_fold, legal.can_check, legal.call, legal.min_raise_to, legal.max_raise_to,
                seconds, hand.hole[seat], tuple(hand.board), sum(hand.committed) + sum(hand.bets) + hand.dead,
                hand.stacks[seat], hand.big_blind, hand.n, len(hand.queue) - 1, hand.level, clock.decision,
                tuple(hand.stacks[other] for other in range(hand.n) if other != seat and not hand.folded[other]),
                stage.players_left, stage.paid, stage.next_jump, stage.average))
            break
        self._answered()

    def expire(self, decision: int) -> None:
        """The clock of ``decision`` ran out: disconnect grace once, else check or fold and sit out.

        A decision already answered (the player acted as the clock ran out) is left alone.
        """
        hand, clock = self.hand, self.clock
        if decision != clock.decision or hand.finished or hand.actor is None:
            return
        player = hand.players[hand.actor]
        if self.grace_seconds and self.outlet.grace(player):
            clock.deadline = self.server_clock.time() + self.grace_seconds
            clock.seconds += self.grace_seconds
            self.outlet.publish(Turn(player, self.grace_seconds, 0.0))
            self._answered()
            return
        action = self.hand.timeout_action()
        self._decide(player, action, None, 0.0)
        self.outlet.publish(TimedOut(player, action))
        self.outlet.sit_out(player, True)
        self.next_turn()

    def act(self, player: str, decision: Act) -> None:
        """A decision from the wire: only the player to act, on the turn it names, by the betting rules."""
        self.outlet.sit_out(player, False)
        hand = self.hand
        on_turn = hand.actor is not None and hand.players[hand.actor] == player
        if (decision.hand is not None and decision.hand > self.number) or (
                decision.hand == self.number and decision.turn is not None and decision.turn > self.clock.decision):
            raise early(decision)
        if (decision.hand is not None and decision.hand != self.number) or hand.finished:
            raise_no_hand(decision)
        if decision.turn is not None and (decision.turn != self.clock.decision or not on_turn):
            raise stale(decision)
        if not on_turn:
            actor = self.name(hand.players[hand.actor]) if hand.actor is not None else "nobody"
            raise Refused("not_your_turn", f"it is not your turn: {actor} is to act")
        try:
            self._decide(player, decision.action, decision.amount, self.bank_after(player))
        except IllegalAction as error:
            raise Refused("illegal_action", str(error)) from None
        self.next_turn()

    def bank_after(self, player: str) -> float:
        """What is left of ``player``'s time bank if they decide now: the action clock is spent first."""
        bank = self.banks[player]
        overtime = self.server_clock.time() - self.clock.turn_started - self.action_seconds
        return max(0.0, bank - overtime) if overtime > 0 else bank

    def _decide(self, player: str, action: str, amount: int | None, bank: float) -> None:
        self.outlet.apply(player, action, amount, bank)
        self.clock.decision += 1

    def _answered(self) -> None:
        """The clock changed: whoever waits on the old one stops."""
        if self.clock.answered is not None:
            settle(self.clock.answered)

    async def play(self) -> None:
        """Wait on each decision's clock until the hand is over; ``expire`` when one runs out."""
        clock = self.clock
        loop = asyncio.get_running_loop()
        while self.in_play:
            asked = clock.decision
            remaining = clock.deadline - self.server_clock.time()
            if remaining <= 0:
                self.expire(asked)
                continue
            # A bare future and a timer: the cheapest wait asyncio has, once per decision.
            clock.answered = answered = loop.create_future()
            timer = self.server_clock.call_later(remaining, partial(settle, answered))
            try:
                await answered
            finally:
                timer.cancel()

    def countdown(self) -> Countdown | None:
        """The clock of the decision in progress, as the table view shows it."""
        hand, clock = self.hand, self.clock
        if hand.finished or hand.actor is None or not clock.turn_started:
            return None
        elapsed = self.server_clock.time() - clock.turn_started
        return Countdown(hand.players[hand.actor], max(0.0, clock.seconds - elapsed), clock.time_bank)
