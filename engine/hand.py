"""One hand of No-Limit Hold'em: forced bets, four betting rounds, pots, showdown.

The hand is a state machine: build it with the table's stacks and a shuffled
deck, then feed it commands (``fold``, ``check``, ``call``, ``raise_to``,
``all_in``); every step appends a frozen event to ``events``. Queries
(``legal_actions``, ``actor``) say what is allowed before you try it, and a
refused command raises ``IllegalAction`` naming the rule and changes nothing.

Players are given clockwise starting with the first seat left of the button
(index 0 posts the small blind in a normal hand; heads-up, index 0 is the big
blind and index 1 the button, which posts the small blind). Index order is
therefore also the odd-chip and first-to-act-after-the-flop order.

The rules and their sources are in docs/engine.md. Two points where rulebooks
and PokerKit (our oracle) differ are settings of ``Rules``.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal

from engine.evaluate import hand_strength
from engine.events import (
    Acted, BoardDealt, Event, HandEnded, HoleDealt, Posted, PotAwarded, Returned, Shown,
)

BOARD_STREETS: tuple[Literal["flop", "turn", "river"], ...] = ("flop", "turn", "river")


class IllegalAction(ValueError):
    """A command the rules refuse. The message names the rule; the hand is unchanged."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The points of the rules that vary between rulebooks (see docs/engine.md).

    ``short_blind``: when a blind is posted all-in for less than its amount,
    ``"posted"`` makes the others call the largest amount actually posted
    (PokerKit, PokerStars); ``"full"`` makes them call the full big blind
    (Robert's Rules). PHH files can only express ``"posted"``.

    ``reopen``: ``"tda"`` re-opens the betting to a player who already acted
    only when the total he now faces since his action is at least a full bet or
    raise (TDA 47, at least one big blind); ``"consecutive"`` is PokerKit's
    reading, where a street's first bet of any size sets the raise size and a
    run of short all-ins re-opens once it adds up to a full raise. TDA never
    allows a raise that ``"consecutive"`` refuses.
    """

    short_blind: Literal["posted", "full"] = "posted"
    reopen: Literal["tda", "consecutive"] = "tda"

    def __reduce__(self) -> tuple[object, ...]:
        # Python 3.11 cannot unpickle a frozen dataclass with slots by default; rebuild it from its fields.
        return Rules, (self.short_blind, self.reopen)


TDA_RULES = Rules()
POKERKIT_RULES = Rules(short_blind="posted", reopen="consecutive")


class LegalActions:
    """What the player to act may do. Amounts are chips; ``*_raise_to`` are street totals.

    A class of its own rather than a NamedTuple: the bots ask once a decision, and a compiled hand builds a
    NamedTuple through its Python constructor (a fifteenth of a worker's time). Not pickled: a hand
    computes it again (``_rebuild_hand``).
    """

    __slots__ = ("player", "can_fold", "can_check", "call", "min_raise_to", "max_raise_to")

    def __init__(self, player: int, can_fold: bool, can_check: bool, call: int, min_raise_to: int | None,
                 max_raise_to: int | None) -> None:
        self.player = player
        self.can_fold = can_fold
        self.can_check = can_check
        self.call = call
        self.min_raise_to = min_raise_to
        self.max_raise_to = max_raise_to

    def _fields(self) -> tuple[int, bool, bool, int, int | None, int | None]:
        return self.player, self.can_fold, self.can_check, self.call, self.min_raise_to, self.max_raise_to

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LegalActions) and self._fields() == other._fields()

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "LegalActions(player={}, can_fold={}, can_check={}, call={}, min_raise_to={}, max_raise_to={})".format(
            *self._fields())


_NOBODY_TO_ACT: Final[deque[int]] = deque()  # the queue of every hand dealt to be played elsewhere: never written
_NO_STRENGTHS: Final[dict[int, int]] = {}  # and its strengths, never asked

# Every attribute of a hand: its slots, and the state a pickled hand carries.
_HAND_STATE = (
    "players", "rules", "n", "small_blind", "big_blind", "ante", "bb_ante",
    "sb_index", "bb_index", "min_bet", "starting_stacks", "stacks", "bets",
    "committed", "dead", "folded", "hole", "board", "street", "level",
    "full_raise", "queue", "acted", "faced", "short_sum", "short_pending",
    "opener", "events", "finished", "_deck", "_blind_due", "_ante_levelled", "_strengths", "_legal",
    "_max_bet", "_reach_first", "_reach_second", "_reach_leader", "_live",
)


def added_up(chips: list[int]) -> int:
    """``sum(chips)``: compiled, a loop adds machine integers where ``sum`` is a call into Python."""
    total = 0
    for amount in chips:
        total += amount
    return total


def _distinct_cards(deck: Sequence[int]) -> bool:
    """Every card a card, none twice: one pass with a bit per card, where a set, a min and a max made three
    and a set to free (the simulator builds a hand per deal)."""
    seen = 0
    for card in deck:
        if not 0 <= card <= 51 or seen >> card & 1:
            return False
        seen |= 1 << card
    return True


def _checked_hand(players: Sequence[str], stacks: Sequence[int], small_blind: int, big_blind: int, ante: int,
                  sb_index: int | None | Literal["auto"], bb_index: int | Literal["auto"],
                  deck: Sequence[int] | None) -> tuple[int | None, int]:
    """The blinds' seats of a hand that can be dealt (heads-up, the button posts the small blind), or the error
    that says why it cannot."""
    n = len(players)
    if not 2 <= n <= 10:
        raise ValueError(f"a hand needs 2 to 10 players, not {n}")
    if len(stacks) != n or any(type(s) is not int or s <= 0 for s in stacks):
        raise ValueError("every player needs a whole, positive number of chips")
    if len(set(players)) != n:
        raise ValueError("player ids must be distinct")
    if not (0 <= small_blind <= big_blind and big_blind > 0 and ante >= 0):
        raise ValueError("blinds must satisfy 0 <= small blind <= big blind, big blind > 0, ante >= 0")
    if bb_index == "auto":
        bb_index = 0 if n == 2 else 1
    if sb_index == "auto":
        sb_index = 1 if n == 2 else 0
    if not 0 <= bb_index < n or (sb_index is not None and (not 0 <= sb_index < n or sb_index == bb_index)):
        raise ValueError("small and big blind must be two different players of the hand")
    if deck is not None and (len(deck) < 2 * n + 8 or not _distinct_cards(deck)):
        raise ValueError("the deck must hold distinct cards, enough for this hand")
    return sb_index, bb_index


class Hand:
    """One hand from forced bets to the last pot.

    ``stacks`` are the players' chips before the hand. ``sb_index`` is ``None``
    for a dead small blind (rules.md C.9). ``ante`` is paid by every player
    before the blinds; with ``bb_ante`` only the big blind pays it, after the
    blind, and never reduces the blind (rules.md C.12). ``deck`` is a shuffled
    deck (engine.cards.shuffled_deck) from which the hand deals and burns; with
    ``None`` the hand is dealt and played in another process (the simulator's
    workers, bots/playing.py): this copy posts nothing and deals nothing, holds
    the players, stacks, blinds and places, and the director settles it with the
    outcome the other process sends (``Tournament.end_hand``).
    """

    __slots__ = _HAND_STATE

    def __reduce__(self) -> tuple[object, ...]:
        """Pickle support, for journal snapshots of hands in progress (server/storage.py).

        A compiled class cannot be rebuilt without its constructor's
        arguments, so a blank hand is built and given this one's state.
        """
        return _rebuild_hand, (tuple(None if name == "_legal" else getattr(self, name) for name in _HAND_STATE),)

    def __init__(
        self,
        players: Sequence[str],
        stacks: Sequence[int],
        *,
        small_blind: int,
        big_blind: int,
        deck: Sequence[int] | None,
        ante: int = 0,
        bb_ante: bool = False,
        sb_index: int | None | Literal["auto"] = "auto",
        bb_index: int | Literal["auto"] = "auto",
        rules: Rules = TDA_RULES,
    ) -> None:
        n = len(players)
        sb_seat, bb_seat = _checked_hand(players, stacks, small_blind, big_blind, ante, sb_index, bb_index, deck)
        self.players = tuple(players)
        self.rules = rules
        self.n = n
        self.small_blind = small_blind
        self.big_blind = big_blind
        self.min_bet = big_blind
        self.ante = ante
        self.bb_ante = bb_ante
        self.sb_index = sb_seat
        self.bb_index = bb_seat
        self.starting_stacks = tuple(stacks)
        self.stacks = list(stacks)
        self.dead = 0  # big-blind ante: dead money that sits in the main pot
        self._live = n  # players who have not folded
        self.street = 0
        self.level = 0
        self.full_raise = 0
        self.short_sum = 0
        self.short_pending = False
        self.opener = 0
        self.finished = False
        self._legal: LegalActions | None = None
        self._max_bet = 0
        self._reach_first = self._reach_second = 0
        self._reach_leader = -1
        # Per-player antes are split into pots by level like bets (an all-in
        # for part of the ante has a main pot of equal antes); a lone
        # big-blind ante is dead money for the main pot.
        self._ante_levelled = ante > 0 and not bb_ante

        if deck is None:
            self._played_elsewhere()
        else:
            self._deal(deck)

    def _deal(self, deck: Sequence[int]) -> None:
        """The forced bets posted, the hole cards dealt and the first to act asked."""
        n = self.n
        self.bets = [0] * n
        self.committed = [0] * n
        self.folded = [False] * n
        self.board: list[int] = []
        self.queue: deque[int] = deque()
        self.acted = [False] * n
        self.faced = [0] * n
        self.events: list[Event] = []
        self._deck: Sequence[int] = deck
        self._blind_due = [0] * n
        self._strengths: dict[int, int] = {}
        self._post_forced_bets()
        hole = self.hole = [(deck[i], deck[n + i]) for i in range(n)]
        events = self.events
        # Each event gets the tuple the hand holds. Read as typed, a pair would be unpacked into machine integers
        # and packed into a new tuple for the event (compiled code keeps fixed-size tuples unpacked).
        held: Any = hole
        for i in range(n):
            events.append(HoleDealt(self.players[i], held[i]))
        self._start_betting()

    def _played_elsewhere(self) -> None:
        """Dealt and played in another process: nobody is to act here, so no command can write to this copy (each
        first asks ``legal_actions``), and what would hold the play shares a few empty containers. The director
        keeps one such copy per table in play, 11,000 of them at 100,000 players: half the memory of a full one is
        fewer cache misses at each hand's end."""
        n = self.n
        zeros = [0] * n
        nothing: list[Any] = []
        self.bets = self.committed = self.faced = self._blind_due = zeros
        self.folded = self.acted = [False] * n
        self.board = nothing
        self.events = nothing
        self.hole = nothing
        self.queue = _NOBODY_TO_ACT
        self._strengths = _NO_STRENGTHS
        self._deck = ()

    # ----------------------------------------------------------------- queries

    @property
    def deck(self) -> Sequence[int]:
        """The deck the hand deals from: with the constructor's other arguments it deals this hand again."""
        return self._deck

    @property
    def actor(self) -> int | None:
        """Index of the player to act, or None when nobody is (the hand is over)."""
        return self.queue[0] if self.queue else None

    def legal_actions(self) -> LegalActions:
        """Fold, check, call amount and the raise-to range for the player to act."""
        legal = self._legal
        if legal is not None:
            return legal  # asked by the player, then again by the command: computed once per decision
        if not self.queue:
            raise IllegalAction("the hand is over: nobody is to act")
        i = self.queue[0]
        level = self.level
        bet = self.bets[i]
        stack = self.stacks[i]
        # Nobody has to put in chips that no opponent can match.
        cap = self._reach_second if i == self._reach_leader else self._reach_first
        call = (level if level < cap else cap) - bet
        if call < 0:
            call = 0
        elif call > stack:
            call = stack
        if stack > level - bet and cap > level and self._may_raise(i, bet, stack):
            max_to = stack + bet
            min_to = level + (self.min_bet if self.min_bet > self.full_raise else self.full_raise)
            if min_to > max_to:
                min_to = max_to
            legal = self._legal = LegalActions(i, call > 0, call == 0, call, min_to, max_to)
        else:
            legal = self._legal = LegalActions(i, call > 0, call == 0, call, None, None)
        return legal

    def _may_raise(self, i: int, bet: int, stack: int) -> bool:
        """Whether the betting is open to player i (TDA 47, or PokerKit's reading)."""
        if self.rules.reopen == "tda":
            if not self.acted[i]:
                return True
            raise_size = self.min_bet if self.min_bet > self.full_raise else self.full_raise
            return self.level - self.faced[i] >= raise_size
        to_call = self._max_bet - bet
        if (to_call if to_call < stack else stack) < self.full_raise:
            return False
        return not (self.short_pending and self.short_sum < self.full_raise and self.acted[i])

    def timeout_action(self) -> Literal["check", "fold"]:
        """What the clock does for the player to act: check when free, fold otherwise (rules.md E.19)."""
        return "check" if self.legal_actions().can_check else "fold"

    def chips_in_play(self) -> int:
        """Every chip of the hand wherever it is; equal to the starting total after every event."""
        return added_up(self.stacks) + added_up(self.bets) + added_up(self.committed) + self.dead

    # ---------------------------------------------------------------- commands

    def fold(self) -> list[Event]:
        return self.act("fold")

    def check(self) -> list[Event]:
        return self.act("check")

    def call(self) -> list[Event]:
        return self.act("call")

    def raise_to(self, amount: object) -> list[Event]:
        """Bet or raise so that this street's bet totals ``amount``."""
        return self.act("raise", amount)

    def all_in(self) -> list[Event]:
        """Put every chip in: a raise when the betting is open to it, otherwise a call."""
        return self.act("all_in")

    def act(self, action: object, amount: object = None, player: object = None) -> list[Event]:
        """Apply a command by name, as the wire and the bots send it; the events it caused.

        With ``player``, the command is refused unless that player is to act.
        The arguments are typed ``object``: whatever arrives is refused by a
        rule (IllegalAction), never by the compiled module's type checks.
        """
        start = len(self.events)
        self.play(action, amount, player)
        return self.events[start:]

    def play(self, action: object, amount: object = None, player: object = None) -> None:
        """``act`` without the list of the events it caused, for a caller that reads ``events`` when it needs them:
        the simulator acts some eight times a hand and reads a hand's events only when someone busts."""
        if player is not None:
            if not self.queue:
                raise IllegalAction("the hand is over: nobody is to act")
            if self.players[self.queue[0]] != player:
                raise IllegalAction(f"it is not {player}'s turn: {self.players[self.queue[0]]} is to act")
        # Compared one by one, not looked up in a table of methods: a method taken from a table is called through
        # Python, these are native calls.
        if action == "fold":
            self._fold()
        elif action == "call":
            self._call()
        elif action == "check":
            self._check()
        elif action == "raise" or action == "bet":
            if amount is None:
                raise IllegalAction(f"{action} needs an amount to raise to")
            self._raise_to(amount)
        elif action == "all_in":
            self._all_in()
        else:
            raise IllegalAction(f"unknown action {action!r}: expected fold, check, call, bet, raise or all_in")

    def _fold(self) -> None:
        legal = self.legal_actions()
        if not legal.can_fold:
            raise IllegalAction("folding is refused when checking is free: check instead")
        i = self.queue.popleft()
        self.folded[i] = True
        self._live -= 1
        if i == self._reach_leader or self.bets[i] + self.stacks[i] >= self._reach_second:
            self._measure_reach()
        self._mark_acted(i)
        self.events.append(Acted(self.players[i], "fold", 0, self.bets[i], False))
        self._after_action()

    def _check(self) -> None:
        legal = self.legal_actions()
        if not legal.can_check:
            raise IllegalAction(f"cannot check facing a bet: calling costs {legal.call}")
        i = self.queue.popleft()
        self._mark_acted(i)
        self.events.append(Acted(self.players[i], "check", 0, self.bets[i], False))
        self._after_action()

    def _call(self) -> None:
        legal = self.legal_actions()
        if legal.can_check:
            raise IllegalAction("there is no bet to call: check instead")
        i = self.queue.popleft()
        amount = legal.call
        self.bets[i] += amount
        self.stacks[i] -= amount
        if self.bets[i] > self._max_bet:
            self._max_bet = self.bets[i]
        self._mark_acted(i)
        self.events.append(Acted(self.players[i], "call", amount, self.bets[i], self.stacks[i] == 0))
        self._after_action()

    def _raise_to(self, amount: object) -> None:
        """``amount`` is typed ``object`` because it arrives from the wire and
        the bots unchecked: anything but a whole number is refused here, by
        the rule, rather than by the compiled module's type check."""
        legal = self.legal_actions()
        min_to, max_to = legal.min_raise_to, legal.max_raise_to
        if min_to is None or max_to is None:
            raise IllegalAction(self._why_no_raise(legal.player))
        if type(amount) is not int:
            raise IllegalAction(f"a bet must be a whole number of chips, not {amount!r}")
        if amount > max_to:
            raise IllegalAction(f"cannot bet more than your stack: at most {max_to}")
        if amount < min_to:
            raise IllegalAction(f"a bet or raise must reach at least {min_to} (min-raise rule) unless all-in")
        i = self.queue.popleft()
        bets = self.bets
        stacks = self.stacks
        old_level = self.level
        increment = amount - old_level
        added = amount - bets[i]
        stacks[i] -= added
        bets[i] = amount
        self.level = self._max_bet = amount
        all_in = stacks[i] == 0
        if self.rules.reopen == "tda":
            if increment >= (self.min_bet if self.min_bet > self.full_raise else self.full_raise):
                self.full_raise = increment
        else:
            if increment >= self.full_raise:
                self.acted = [False] * self.n
            if increment > self.full_raise:
                self.full_raise = increment
            if all_in:
                self.short_sum += increment
                self.short_pending = True
            else:
                self.short_sum = 0
                self.short_pending = False
            if self.short_sum >= self.full_raise:
                self.short_sum = 0
                self.short_pending = False
        self._mark_acted(i)
        self.opener = i
        n = self.n
        folded = self.folded
        queue: deque[int] = deque()  # a loop, as in _start_betting: compiled, deque(generator) goes through Python
        for k in range(1, n):
            j = (i + k) % n
            if not folded[j] and stacks[j]:
                queue.append(j)
        self.queue = queue
        self.events.append(Acted(self.players[i], "bet" if old_level == 0 else "raise", added, amount, all_in))
        self._after_action()

    def _all_in(self) -> None:
        legal = self.legal_actions()
        stack = self.stacks[legal.player]
        if legal.max_raise_to is not None:
            self._raise_to(legal.max_raise_to)
        elif legal.call == stack:
            self._call()
        else:
            raise IllegalAction(self._why_no_raise(legal.player))

    # ---------------------------------------------------------------- internals

    def _why_no_raise(self, i: int) -> str:
        bet = self.bets[i]
        if self.stacks[i] <= self.level - bet:
            return "cannot raise: your stack does not cover more than the call"
        if not self._may_raise(i, bet, self.stacks[i]):
            return "cannot raise: a short all-in did not re-open the betting to a player who already acted (TDA 47)"
        return "cannot raise: no opponent has chips left to call a raise"

    def _mark_acted(self, i: int) -> None:
        self.acted[i] = True
        self.faced[i] = self.level

    def _post_forced_bets(self) -> None:
        n = self.n
        stacks = self.stacks
        events = self.events
        players = self.players
        if self._ante_levelled:
            for i in range(n):
                paid = min(self.ante, stacks[i])
                stacks[i] -= paid
                self.bets[i] = paid
                events.append(Posted(players[i], "ante", paid))
            self._return_uncalled()  # an ante nobody can match is given back
            self._collect_bets()
        if self.sb_index is not None:
            self._post_blind(self.sb_index, self.small_blind, "small_blind")
        self._post_blind(self.bb_index, self.big_blind, "big_blind")
        if self.bb_ante and self.ante:
            paid = min(self.ante, stacks[self.bb_index])
            stacks[self.bb_index] -= paid
            self.dead += paid
            events.append(Posted(players[self.bb_index], "big_blind_ante", paid))

    def _post_blind(self, index: int, amount: int, kind: Literal["small_blind", "big_blind"]) -> None:
        if amount == 0:
            return
        self._blind_due[index] = amount
        paid = min(amount, self.stacks[index])
        self.stacks[index] -= paid
        self.bets[index] = paid
        self.events.append(Posted(self.players[index], kind, paid))

    def _start_betting(self) -> None:
        """Open the current street's betting round, or close it at once when nobody can act."""
        n = self.n
        bets = self.bets
        stacks = self.stacks
        folded = self.folded
        self.full_raise = 0
        self.short_sum = 0
        self.short_pending = False
        self.acted = [False] * n
        max_bet = 0  # a loop, not max(): compiled, it compares machine integers (bets are never below 0)
        for bet in bets:
            if bet > max_bet:
                max_bet = bet
        self._max_bet = max_bet
        if self.street == 0:
            # Left of the largest blind posted (PokerKit; normally the big blind).
            due = self._blind_due
            # Only the blinds have a blind due; a blind posted as 0 (the ante took the stack) counts as none.
            top_bet, top = 0, n - 1  # the largest (blind, place), in a loop of machine integers
            for i in (self.sb_index, self.bb_index):
                if i is not None and due[i] and (bets[i] > top_bet or bets[i] == top_bet and i > top):
                    top_bet, top = bets[i], i
            self.opener = (top + 1) % n
            self.level = max_bet
            if self.rules.short_blind == "full" and self.level < self.big_blind:
                self.level = self.big_blind
        else:
            self.opener = 0
            self.level = 0
        self._measure_reach()
        second = self._reach_second
        opener = self.opener
        queue: deque[int] = deque()
        for k in range(n):
            i = (opener + k) % n
            if not folded[i] and stacks[i] and second - bets[i] > 0:
                queue.append(i)
        self.queue = queue
        if not queue or (len(queue) == 1 and bets[queue[0]] >= max_bet):
            self._end_betting()

    def _measure_reach(self) -> None:
        """The two largest chip counts (bet plus stack) among players still in.

        They stay fixed while a street's betting moves chips from stacks to
        bets, so the most any opponent can match is known without a scan.
        """
        first = second = 0
        leader = -1
        bets = self.bets
        stacks = self.stacks
        folded = self.folded
        for j in range(self.n):
            if not folded[j]:
                total = bets[j] + stacks[j]
                if total > first:
                    first, second, leader = total, first, j
                elif total > second:
                    second = total
        self._reach_first = first
        self._reach_second = second
        self._reach_leader = leader

    def _after_action(self) -> None:
        self._legal = None
        if not self.queue or self._live <= 1:
            self.queue.clear()
            self._end_betting()

    def _return_uncalled(self) -> None:
        bets = self.bets
        top = cutoff = 0  # the largest bet and the next (equal if two match): what sorted(bets)[-2] would be
        for bet in bets:
            if bet > top:
                top, cutoff = bet, top
            elif bet > cutoff:
                cutoff = bet
        for i in range(self.n):
            if bets[i] > cutoff:
                excess = bets[i] - cutoff
                bets[i] = cutoff
                self.stacks[i] += excess
                self.events.append(Returned(self.players[i], excess))

    def _collect_bets(self) -> None:
        bets = self.bets
        committed = self.committed
        for i in range(self.n):
            committed[i] += bets[i]
            bets[i] = 0

    def _end_betting(self) -> None:
        """Close the round; deal on, show down, or award the pot."""
        while True:
            self._return_uncalled()
            self._collect_bets()
            live = [i for i in range(self.n) if not self.folded[i]]
            if len(live) == 1:
                self._award([(added_up(self.committed) + self.dead, tuple(live))])
                return
            if sum(1 for i in live if self.stacks[i]) <= 1 or self.street == 3:
                # All-in (TDA 16: cards face up once the betting is over) or river showdown.
                self._show(live)
                while self.street < 3:
                    self.street += 1
                    self._deal_board()
                self._award(self._showdown_pots())
                return
            self.street += 1
            self._deal_board()
            self._start_betting()
            if self.queue:
                return
            # Nobody could act on this street either: the loop closes it at once.

    def _deal_board(self) -> None:
        n2 = 2 * self.n
        deck = self._deck
        street = self.street
        new: tuple[int, ...]
        if street == 1:
            new = (deck[n2 + 1], deck[n2 + 2], deck[n2 + 3])
        elif street == 2:
            new = (deck[n2 + 5],)
        else:
            new = (deck[n2 + 7],)
        self.board.extend(new)
        self.events.append(BoardDealt(BOARD_STREETS[street - 1], new))

    def _show(self, live: list[int]) -> None:
        """Showdown order: from the last street's opener (its last aggressor, else left of the button)."""
        n = self.n
        for k in range(n):
            i = (self.opener + k) % n
            if not self.folded[i]:
                self.events.append(Shown(self.players[i], self.hole[i]))

    def _showdown_pots(self) -> list[tuple[int, tuple[int, ...]]]:
        """The pots among the hands still contending at showdown.

        A hand that can win no pot it is in is mucked first; then pots with
        the same contenders are one pot and split once (PokerKit's reading of
        "each pot splits separately", rules.md C.13; it moves at most an odd chip).
        """
        board = self.board
        strengths = self._strengths = {
            i: hand_strength([*self.hole[i], *board]) for i in range(self.n) if not self.folded[i]
        }
        committed = self.committed
        top = max(committed)
        if all(committed[i] == top for i in strengths):
            # Every contender put in the most anyone did: one pot, and only the best hands contend for it.
            best = max(strengths.values())
            return [(added_up(committed) + self.dead, tuple(i for i in strengths if strengths[i] == best))]
        out = list(self.folded)
        pots = self._pots(self.folded)
        for i in strengths:
            out[i] = not any(
                i in eligible and strengths[i] == max(strengths[j] for j in eligible) for _, eligible in pots
            )
        return self._pots(out)

    def _pots(self, out: list[bool]) -> list[tuple[int, tuple[int, ...]]]:
        """Main pot then side pots, by contribution level; equal eligibility merges.

        ``out`` marks the players who can no longer win (folded or mucked).
        """
        committed = self.committed
        n = self.n
        pots: list[tuple[int, tuple[int, ...]]] = []
        amount = self.dead
        previous = 0
        reaching = n  # players whose contribution reaches the current level
        levels = sorted(committed)
        k = 0
        while k < n:
            level = levels[k]
            amount += (level - previous) * reaching
            eligible = tuple(i for i in range(n) if committed[i] >= level and not out[i])
            while pots and pots[-1][1] == eligible:
                amount += pots.pop()[0]
            if amount:
                pots.append((amount, eligible))
            amount = 0
            previous = level
            while k < n and levels[k] == level:
                k += 1
                reaching -= 1
        return pots

    def _award(self, pots: list[tuple[int, tuple[int, ...]]]) -> None:
        players = self.players
        strengths = self._strengths
        for number, (amount, eligible) in enumerate(pots):
            winners: tuple[int, ...]
            if len(eligible) == 1:
                winners = eligible
            else:
                best = max(strengths[i] for i in eligible)
                winners = tuple(i for i in eligible if strengths[i] == best)
            share, odd = divmod(amount, len(winners))
            shares = [share] * len(winners)
            shares[0] += odd  # odd chips to the first winner left of the button (rules.md C.13)
            for i, won in zip(winners, shares):
                self.stacks[i] += won
            self.events.append(
                PotAwarded(
                    number,
                    amount,
                    tuple(players[i] for i in eligible),
                    tuple(players[i] for i in winners),
                    tuple(shares),
                )
            )
        self.committed = [0] * self.n
        self.dead = 0
        self.finished = True
        self.queue.clear()
        self.events.append(HandEnded(tuple(self.stacks)))


def _rebuild_hand(state: tuple[object, ...]) -> Hand:
    hand = Hand(("", " "), (1, 1), small_blind=0, big_blind=1, deck=range(52))
    for name, value in zip(_HAND_STATE, state):  # the legal actions are computed again when asked (an older
        setattr(hand, name, None if name == "_legal" else value)  # snapshot pickled them, as a NamedTuple)
    return hand
