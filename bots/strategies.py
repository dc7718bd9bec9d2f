"""Bot strategies: pure functions from what a seat can see to a decision.

A strategy gets a :class:`SeatView` and an RNG and returns ``(action, amount)``
as ``Hand.act`` takes it. A view holds only what the seat's owner sees: their
own hole cards, the board, the pot, their stack and the legal actions.
"""

from __future__ import annotations

import functools
import importlib
import math
import random
from collections.abc import Callable, Iterable
from typing import Final, NamedTuple, cast

from engine.cards import RANKS
from engine.evaluate import HIGH_CARD, PAIR, THREE_OF_A_KIND, TWO_PAIR, hand_category, hand_class, hand_strength
from engine.hand import Hand, LegalActions, added_up
from engine.wire import Action, Stage

Decision = tuple[Action, int | None]


class SeatView:
    """What a seat sees when it is to act. A class, not a NamedTuple, which compiled code builds through Python:
    the simulator builds one a decision.

    Besides the seat's own cards and the betting, what anyone at the table or
    in the lobby sees: the stacks of the opponents still in the hand, and
    where the tournament stands (``engine.wire.Stage``: players left, places
    paid, the players left at the next pay jump, the average stack; zeros
    where nothing is known, as in a cash hand).
    """

    __slots__ = ("legal", "hole", "board", "pot", "stack", "big_blind", "players", "behind", "to_match", "opponents",
                 "players_left", "paid", "next_jump", "average")

    def __init__(self, legal: LegalActions, hole: tuple[int, int], board: tuple[int, ...], pot: int, stack: int,
                 big_blind: int, players: int = 6, behind: int = 0, to_match: int = 0,
                 opponents: tuple[int, ...] = (), players_left: int = 0, paid: int = 0, next_jump: int = 0,
                 average: int = 0) -> None:
        self.legal = legal
        self.hole = hole
        self.board = board
        self.pot = pot  # every chip in the middle, this street's bets included
        self.stack = stack
        self.big_blind = big_blind
        # What anyone at the table sees too, for a player who plays by position and by the betting so far:
        self.players = players  # dealt in this hand
        self.behind = behind  # still to act after this player on this street (preflop, unraised: the position)
        self.to_match = to_match  # this street's highest bet (preflop: the big blind, a raise's size, a re-raise's)
        self.opponents = opponents  # the chips behind of each opponent still in the hand
        # ... and in the lobby: where the tournament stands (engine.wire.Stage)
        self.players_left = players_left
        self.paid = paid
        self.next_jump = next_jump
        self.average = average


Strategy = Callable[[SeatView, random.Random], Decision]
NO_STAGE: Final = Stage()


def seat_view(hand: Hand, stage: Stage = NO_STAGE) -> SeatView:
    """What the player to act sees of ``hand`` in a tournament at ``stage`` (the simulator's in-process stand-in
    for the wire)."""
    legal = hand.legal_actions()
    seat = legal.player
    pot = added_up(hand.committed) + added_up(hand.bets) + hand.dead
    stacks, folded = hand.stacks, hand.folded
    opponents = tuple([stacks[other] for other in range(hand.n) if other != seat and not folded[other]])
    return SeatView(legal, hand.hole[seat], tuple(hand.board), pot, stacks[seat], hand.big_blind, hand.n,
                    len(hand.queue) - 1, hand.level, opponents, stage.players_left, stage.paid, stage.next_jump,
                    stage.average)


def play_out(hand: Hand, plays: list[Strategy], rng: random.Random, stage: Stage = NO_STAGE) -> int:
    """The hand played to its end by ``plays`` (one per player, in the hand's order) in a tournament at ``stage``;
    how many decisions it took.

    Here and not in the simulator so that mypyc compiles the loop with the strategies and the hand: a decision's
    view, choice and action are native calls.
    """
    decisions = 0
    while not hand.finished:
        view = seat_view(hand, stage)
        strategy = plays[view.legal.player]
        # The default player called by name: a native call, where a function taken from a list is called through
        # Python with its arguments parsed.
        action, amount = regular(view, rng) if strategy is regular else strategy(view, rng)
        hand.play(action, amount)  # not act: the list of what each decision caused would go unread
        decisions += 1
    return decisions


def _passive(legal: LegalActions) -> Decision:
    return ("check", None) if legal.can_check else ("call", None)


def _check_or_fold(legal: LegalActions) -> Decision:
    return ("check", None) if legal.can_check else ("fold", None)


def _raise(legal: LegalActions, to: int) -> Decision:
    """Raise to ``to``, kept inside the legal range; call when no raise is allowed."""
    if legal.min_raise_to is None or legal.max_raise_to is None:
        return _passive(legal)
    return "raise", max(legal.min_raise_to, min(legal.max_raise_to, to))


def random_player(view: SeatView, rng: random.Random) -> Decision:
    """Checks or calls mostly, raises sometimes, folds to some bets."""
    legal = view.legal
    roll = rng.random()
    if legal.min_raise_to is not None and legal.max_raise_to is not None and roll < 0.15:
        return "raise", rng.randint(legal.min_raise_to, min(legal.max_raise_to, 3 * legal.min_raise_to))
    if legal.can_fold and roll > 0.7:
        return "fold", None
    return _passive(legal)


def calling_station(view: SeatView, rng: random.Random) -> Decision:
    """Never folds, never raises."""
    return _passive(view.legal)


def preflop_score(hole: tuple[int, int]) -> int:
    """A rough starting-hand score, 0-100: pairs and high, suited, connected cards score higher."""
    high, low = sorted((hole[0] // 4, hole[1] // 4), reverse=True)
    if high == low:
        return 50 + 4 * high
    score = 3 * high + 2 * low
    if hole[0] % 4 == hole[1] % 4:
        score += 6
    if high - low == 1:
        score += 4
    return score


# The module's constants are Final: compiled, a Final is read from a C variable, any other global is looked up in
# the module's dictionary at each use.
ACE: Final = RANKS.index("A")
PREMIUM: Final = preflop_score((4 * ACE, 4 * RANKS.index("J")))  # AJ offsuit and better


def tight_aggressive(view: SeatView, rng: random.Random) -> Decision:
    """Plays few hands, raises them; after the flop bets made hands and gives up on air.

    Pre-flop it raises the top hands, calls cheap with middling ones and
    folds the rest. After the flop, by the evaluator's hand category: two
    pair or better bets the pot; one pair calls when the pot odds are better
    than 2 to 1; anything less checks or folds.
    """
    legal = view.legal
    if not view.board:
        score = preflop_score(view.hole)
        if score >= PREMIUM:
            return _raise(legal, 3 * max(view.big_blind, legal.call + legal.call // 2) + legal.call)
        if score >= 45 and legal.call <= 3 * view.big_blind:
            return _passive(legal)
        return _check_or_fold(legal)
    category = hand_category(hand_strength(view.hole + view.board))
    if category not in ("High Card", "Pair"):
        return _raise(legal, view.pot + legal.call)
    # Pot odds: a pair calls while the price is under a third of the pot it would win.
    if category == "Pair" and 3 * legal.call <= view.pot + legal.call:
        return _passive(legal)
    return _check_or_fold(legal)


def push_fold(view: SeatView, rng: random.Random) -> Decision:
    """Short-stack play: at ten big blinds or less, all-in with a decent hand, otherwise fold; deeper, tight."""
    legal = view.legal
    if view.stack + legal.call > 10 * view.big_blind or view.board:
        return tight_aggressive(view, rng)
    if preflop_score(view.hole) >= 40:
        return ("raise", legal.max_raise_to) if legal.max_raise_to is not None else _passive(legal)
    return _check_or_fold(legal)


def chen_points(hole: tuple[int, int]) -> float:
    """Bill Chen's starting-hand formula ("The Mathematics of Poker" authors' quick ranking): the high card's
    points, doubled for a pair, plus suited, minus the gap, plus a small straight bonus."""
    high, low = sorted((hole[0] // 4, hole[1] // 4), reverse=True)
    value = {12: 10.0, 11: 8.0, 10: 7.0, 9: 6.0}.get(high, (high + 2) / 2)
    if high == low:
        return max(5.0, 2 * value)
    gap = high - low - 1
    value += 2 if hole[0] % 4 == hole[1] % 4 else 0
    value -= (0, 1, 2, 4)[gap] if gap < 4 else 5
    if gap <= 1 and high < 10:
        value += 1
    return value


def _percentiles() -> dict[tuple[int, int, bool], float]:
    """Each of the 169 starting hands (high rank, low rank, suited) as the share of the 1,326 deals at least as
    good by Chen's points (ties by the high card, then the low), its middle: 0 is aces, 1 the worst."""
    classes = [(high, low, suited) for high in range(13) for low in range(high + 1) for suited in (False, True)
               if not (high == low and suited)]
    def points(key: tuple[int, int, bool]) -> tuple[float, int, int]:
        high, low, suited = key
        return chen_points((4 * high, 4 * low + (0 if suited else 1))), high, low
    classes.sort(key=points, reverse=True)
    shares, above = {}, 0
    for key in classes:
        combos = 6 if key[0] == key[1] else 4 if key[2] else 12
        shares[key] = (above + combos / 2) / 1326
        above += combos
    return shares


def _by_cards() -> list[float]:
    """``_percentiles`` by the two cards, ``52 * first + second``: a decision reads one list item, not a sort and
    a tuple's hash (a twentieth of the simulator's time)."""
    shares = _percentiles()
    return [shares[(max(a // 4, b // 4), min(a // 4, b // 4), a // 4 != b // 4 and a % 4 == b % 4)]
            for a in range(52) for b in range(52)]


_PERCENTILE: Final = _by_cards()


def percentile(hole: tuple[int, int]) -> float:
    """The hand's place among all starting hands: 0.01 is the top 1% (aces), 0.5 the middle."""
    return _PERCENTILE[52 * hole[0] + hole[1]]


# Raise first in, by the players still to act behind (the button has two, the small blind one), as a share of
# hands: about what solvers and winning players open six-handed at 100 big blinds (UTG 15%, HJ 19%, CO 27%,
# BTN 43%, SB 40%); further from the button in a full ring, tighter still. Heads-up the button opens 80%.
OPEN: Final = {1: 0.40, 2: 0.43, 3: 0.27, 4: 0.19, 5: 0.15, 6: 0.13, 7: 0.11, 8: 0.10, 9: 0.09}
HEADS_UP_OPEN: Final = 0.78
PUSH_DEPTH: Final = 12  # big blinds: at or below, tournament players move all in or fold


def _push_share(view: SeatView, depth: float) -> float:
    """How wide to move all in first at ``depth`` big blinds: the Nash push charts' shape (HoldemResources'),
    roughly: ten big blinds on the button push ~40%, in the small blind ~55%, under the gun ~15%; shorter, wider."""
    base = 0.62 if view.players == 2 else {1: 0.55, 2: 0.40, 3: 0.28, 4: 0.21}.get(view.behind, 0.15)
    return min(0.9, base * math.sqrt(10 / max(depth, 2)))


def regular(view: SeatView, rng: random.Random) -> Decision:
    """A tournament regular, as real players play on average (calibrated on ../shared/data/real-play-stats.json:
    VPIP ~26%, PFR ~17% six-handed, docs/swarm.md has the figures).

    Preflop, by position and the betting: open-raises a range by the players behind, limps a little, defends the
    big blind and calls raises with the hands under its raising range, re-raises the top few percent, and moves
    all in or folds at 12 big blinds or less (Nash push ranges' shape). After the flop, by what it holds against
    the board: bets and raises its strong hands, bets some air and middle pairs, calls by pot odds, and folds
    weak hands to bets.

    A tournament life is at stake in every pot (``bubble_factor``): a chip lost costs more than a chip won, more
    so near the money and for a medium stack, so a call is priced as if it cost that much more, one pair folds
    to a bet that would commit a deep stack (a big bet into a deep stack comes from a strong range), two pair
    no longer raises a raise, and a deep stack goes all in only with a set or better (docs/director.md).
    """
    legal, big = view.legal, view.big_blind
    if not view.board:
        return _regular_preflop(view, rng)
    strength = _made(view)
    style = HEADS_UP if view.players == 2 else SHORT if view.players <= 6 else FULL
    roll = rng.random()
    deep = _effective(view) > DEEP_BIG_BLINDS * big
    if legal.call == 0:  # checked to: bet the strong hands, some middle pairs and some air
        bet = view.pot * 2 // 3 or big
        if strength < 3 and deep and bet > POT_CONTROL * view.stack:
            return _passive(legal)  # one pair keeps a deep stack's pot small: it checks
        if strength >= 3 or roll < (0, style.bet_pair, style.bet_top)[strength] or roll < style.bluff:
            return _sized(legal, bet)
        return _passive(legal)
    at_risk = min(1.0, legal.call / view.stack) if view.stack else 1.0
    raise_to = 3 * legal.call + view.pot // 2
    if strength >= 3:
        # A raise of a raise, or one that puts most of a deep stack in, is made only with a set or better.
        raised = legal.call < view.to_match  # this player bet or raised on this street, and was raised
        commits = raise_to >= COMMITTED * (view.stack + view.to_match - legal.call)
        if strength >= 4 or not (raised or (deep and commits)):
            if roll < style.raise_strong:
                return _sized(legal, raise_to)
        if strength == 3 and deep and rng.random() < at_risk * TWO_PAIR_FOLDS:
            return _check_or_fold(legal)
        return _passive(legal)
    if strength == 0 and roll < style.bluff_raise and at_risk < BLUFF_RISK:
        return _sized(legal, raise_to)
    # How often it calls, by what it holds, against a bet of two thirds of the pot (a price of 2/7), more
    # often against a smaller one and less against a larger: people call by the price, not at a threshold. The
    # price is what the call costs in the tournament: the chips times the bubble factor.
    cost = bubble_factor(view, at_risk) * legal.call
    price = cost / (view.pot + cost)
    calls = (style.float_flop if len(view.board) == 3 else style.float_later, style.call_pair, style.call_top)
    chance = calls[strength] * (2 / 7) / max(price, 0.01)
    if deep:  # the more of a deep stack a bet asks for, the stronger the hands it comes from
        chance *= math.exp(-ONE_PAIR_COMMITMENT * at_risk * at_risk)
    return _passive(legal) if rng.random() < chance else _check_or_fold(legal)


# The tournament's risk premium (docs/director.md): how much a chip lost costs beyond a chip won, at every stage
# (a stack lost ends the event), and what the money adds to it for a medium stack near the bubble or a pay jump.
RISK_PREMIUM: Final = 0.5  # at 100 big blinds deep; a deeper stack has more to lose, a short one less (below)
PREMIUM_DEPTH: Final = 100.0
SHALLOWEST: Final = 0.5  # the premium at 50 big blinds or less, of the one at 100
DEEPEST: Final = 2.0  # ... and at 200 or more
BUBBLE_PREMIUM: Final = 2.0  # on the bubble a medium stack's factor is 1 + 0.5 + 2: ICM's 2.5-3 and more
BUBBLE_REACH: Final = 0.08  # the premium falls by e over this share of the places paid still to bust
JUMP_PREMIUM: Final = 0.2  # near a pay jump in the money
DEEP_BIG_BLINDS: Final = 40  # deeper than this, a big bet comes from a strong range
COMMITTED: Final = 0.4  # a raise to this share of the stack commits it
TWO_PAIR_FOLDS: Final = 0.35  # how often two pair folds to a bet of its whole deep stack
ONE_PAIR_COMMITMENT: Final = 4.0  # one pair calls a bet of half a deep stack e times less often, of all of it e^4
BLUFF_RISK: Final = 0.2  # a bluff raise only into a bet under this share of the stack
POT_CONTROL: Final = 0.3  # one pair bets no more than this share of a deep stack


def _effective(view: SeatView) -> int:
    """The chips this player can win or lose in the hand: their stack, or the largest opponent's still in."""
    largest = 0
    for stack in view.opponents:
        largest = max(largest, stack)
    return min(view.stack, largest) if view.opponents else view.stack


def bubble_factor(view: SeatView, at_risk: float) -> float:
    """What a chip this decision may lose costs in the tournament, in chips it may win (ICM's bubble factor):
    1 plus the tournament's risk premium on the share of the stack at risk, plus what the next pay jump adds when
    it is near, as a medium stack feels it (a short stack must gamble, a big one bullies), whole for a decision
    that risks two fifths of the stack or more (ICM's price of chips falls with every chip). Pure: the players
    left, the places paid, the next jump and the average stack are what the lobby shows."""
    depth = _effective(view) / view.big_blind if view.big_blind else 0.0
    factor = 1.0 + RISK_PREMIUM * min(DEEPEST, max(SHALLOWEST, depth / PREMIUM_DEPTH)) * at_risk
    left, paid = view.players_left, view.paid
    if paid and left > 1:
        ratio = view.stack / view.average if view.average else 1.0
        weight = min(1.0, max(0.3, (ratio - 0.15) / 0.55)) if ratio < 2.5 else max(0.5, 1.0 - (ratio - 2.5) / 5)
        if left > paid:  # before the money: how many must bust before everyone left is paid
            near = BUBBLE_PREMIUM * math.exp(-(left - paid - 1) / max(1.0, BUBBLE_REACH * paid))
        elif view.next_jump:
            near = JUMP_PREMIUM * math.exp(-(left - view.next_jump) / max(1.0, 0.5 * view.players))
        else:
            near = 0.0
        factor += near * weight * min(1.0, 2.5 * at_risk)
    return factor


class Postflop(NamedTuple):
    """How often a regular bets and calls after the flop, by what it holds (``_made``); fitted to the reference's
    aggression and showdowns by table size (docs/swarm.md)."""

    bluff: float  # bets air when checked to
    bet_pair: float  # bets a pair below the top card when checked to
    bet_top: float  # bets top pair or an overpair when checked to
    raise_strong: float  # raises a bet with two pair or better
    call_top: float  # calls a bet of two thirds of the pot with top pair or an overpair (scaled by the price)
    call_pair: float  # the same with a lower pair
    bluff_raise: float  # raises a bet with air
    float_flop: float  # calls a flop bet with air
    float_later: float  # the same on the turn and river


SHORT: Final = Postflop(bluff=0.15, bet_pair=0.3, bet_top=0.75, raise_strong=0.4, call_top=0.9, call_pair=0.62,
                        bluff_raise=0.05, float_flop=0.22, float_later=0.08)
HEADS_UP: Final = Postflop(bluff=0.28, bet_pair=0.45, bet_top=0.9, raise_strong=0.35, call_top=0.95, call_pair=0.65,
                           bluff_raise=0.08, float_flop=0.3, float_later=0.1)
FULL: Final = Postflop(bluff=0.12, bet_pair=0.35, bet_top=0.8, raise_strong=0.3, call_top=0.8, call_pair=0.45,
                       bluff_raise=0.05, float_flop=0.18, float_later=0.04)


def _made(view: SeatView) -> int:
    """What the hand holds against the board, by what the hole cards add to it: 0 nothing, 1 a pair below the top
    card (or the board's own hand), 2 top pair or an overpair, 3 two pair, 4 three of a kind, 5 a straight or
    better. A pair the board shows counts for nobody: a pocket pair on a paired board is one pair, not two, and
    three of a kind on the board is nobody's set."""
    hole, board = view.hole, view.board
    made = hand_class(hand_strength(hole + board))
    first, second = hole[0] // 4, hole[1] // 4
    top = 0
    seen = 0  # a bit per rank on the board
    paired = 0  # ... and per rank it shows twice or more
    tripled = False
    for card in board:
        rank = card // 4
        top = max(top, rank)
        if seen >> rank & 1:
            tripled = tripled or bool(paired >> rank & 1)
            paired |= 1 << rank
        seen |= 1 << rank
    if made > THREE_OF_A_KIND:
        return 1 if len(board) == 5 and made == hand_class(hand_strength(board)) else 5
    if made == THREE_OF_A_KIND:
        return 1 if tripled else 4
    if made == TWO_PAIR and paired:
        if paired & (paired - 1):
            return 1  # both pairs the board's: a kicker
        if first != second and not ((seen & ~paired) >> first & 1 or (seen & ~paired) >> second & 1):
            return 0  # the board's pair and nothing
        made = PAIR  # the board's pair and one of the player's own: that one decides
        seen &= ~paired
    elif made == TWO_PAIR:
        return 3
    if made == HIGH_CARD:
        return 0
    if first != second and not (seen >> first & 1 or seen >> second & 1):
        return 0  # the pair is the board's
    if (first == second and first > top) or top in (first, second):
        return 2
    return 1


def _sized(legal: LegalActions, to: int) -> Decision:
    """A bet or raise to ``to`` (street total), inside the legal range; a check or call when none is allowed."""
    if legal.min_raise_to is None or legal.max_raise_to is None:
        return _passive(legal)
    return "raise", max(legal.min_raise_to, min(legal.max_raise_to, to))


def _regular_preflop(view: SeatView, rng: random.Random) -> Decision:
    legal, big = view.legal, view.big_blind
    share = percentile(view.hole)
    depth = (view.stack + legal.call) / big
    facing = view.to_match / big  # 1: unraised; an open ~2-3; a re-raise ~8-10; more: a fourth bet
    all_in = ("raise", legal.max_raise_to) if legal.max_raise_to is not None else _passive(legal)
    # A call's range narrows by what the chips it risks cost in the tournament (``bubble_factor``): little for a
    # small raise, by half and more for a medium stack calling an all-in on the bubble. A hand beyond the widest
    # range is folded before any price is worked out: most decisions facing a bet are such folds.
    risk = min(1.0, legal.call / view.stack) if view.stack else 1.0
    if depth <= PUSH_DEPTH:
        if facing <= 1:  # first in: all in or fold, a little tighter where busting costs more (ICM)
            if share <= _push_share(view, depth) / math.sqrt(bubble_factor(view, 1.0)):
                return all_in
            return ("check", None) if legal.can_check else _check_or_fold(legal)
        # Calling an all-in or a raise short: with what is well ahead of a pushing range.
        widest = min(0.5, 0.12 * math.sqrt(10 / max(depth, 2)) + 0.04)
        return _passive(legal) if share <= widest and share <= widest / bubble_factor(view, risk) else \
            _check_or_fold(legal)
    heads_up = view.players == 2
    if facing <= 1:
        return _regular_unopened(view, share, rng)
    in_blind = legal.call < view.to_match  # part of the price is already in: a blind
    # A raise's range narrows by what its chips cost too (a re-raise of an all-in is a call with more behind it).
    already = view.to_match - legal.call  # this player's chips in on this street
    if facing <= 5:  # one raise
        three = 0.14 if heads_up else 0.06 if in_blind or view.behind <= 2 else 0.04
        call = (0.30 if heads_up else 0.24) if in_blind and legal.call <= 3 * big else \
            0.11 if view.players <= 6 else 0.13
        if share > three + call:
            return _check_or_fold(legal)
        to = 3 * view.to_match + (big if in_blind else 0)
        if share <= three / bubble_factor(view, min(1.0, (to - already) / view.stack)):
            return _sized(legal, to)
        if share <= three + call / bubble_factor(view, risk):
            return _passive(legal)
        return _check_or_fold(legal)
    if facing <= 16:  # a re-raise
        if share > (0.12 if heads_up else 0.045):
            return _check_or_fold(legal)
        to = int(2.3 * view.to_match) if depth > 40 else view.stack + already
        if share <= (0.045 if heads_up else 0.02) / bubble_factor(view, min(1.0, (to - already) / view.stack)):
            return _sized(legal, to) if depth > 40 else all_in
        return _passive(legal) if share <= (0.12 if heads_up else 0.045) / bubble_factor(view, risk) else \
            _check_or_fold(legal)
    # A fourth bet or more, or an all-in: the stack goes in with the very best; a deep one with aces alone, the
    # other premium pairs calling (a deep tournament stack is not shoved in with kings).
    if share > 0.025:
        return _check_or_fold(legal)
    deep = _effective(view) > DEEP_SHOVE_BIG_BLINDS * big
    if share <= (DEEP_SHOVE if deep else 0.015) / bubble_factor(view, 1.0):
        return all_in
    return _passive(legal) if share <= (DEEP_CALL if deep else 0.025) / bubble_factor(view, risk) else \
        _check_or_fold(legal)


def _regular_unopened(view: SeatView, share: float, rng: random.Random) -> Decision:
    """Nobody raised: open, limp a little, or check the big blind."""
    legal, heads_up = view.legal, view.players == 2
    wide = HEADS_UP_OPEN if heads_up else OPEN.get(view.behind, 0.09 if view.behind > 9 else OPEN[1])
    if share <= wide:
        return _sized(legal, int((2.2 if heads_up else 2.5) * view.big_blind))
    if legal.can_check:
        return ("check", None)
    if share <= wide + (0.05 if heads_up else 0.04 if view.players <= 6 else 0.07) and rng.random() < 0.6:
        return _passive(legal)  # a limp
    return _check_or_fold(legal)


DEEP_SHOVE: Final = 0.005  # aces
DEEP_CALL: Final = 0.01  # kings and queens call a fourth bet of a deep stack; the rest fold
DEEP_SHOVE_BIG_BLINDS: Final = 100


DEFAULT_MIX = {"regular": 1.0}
"""What the simulator, the demo and the swarm seat by default: players as real ones play (docs/swarm.md).
The old strategies stay to be asked for: tag, pushfold, station and random (``--mix``)."""

STRATEGIES: dict[str, Strategy] = {
    "random": random_player,
    "station": calling_station,
    "tag": tight_aggressive,
    "pushfold": push_fold,
    "regular": regular,
}


class MoneyView(NamedTuple):
    """What a seat sees when it is offered chips for money or a deal.

    ``offer`` is 'rebuy', 'add_on', 'press_deal' or 'deal'; ``deal_cents``
    is this seat's amount in a proposed deal, ``chip_share`` its part of
    the chips in play and ``pool_cents`` what the prizes left add up to.
    """

    offer: str
    stack: int
    starting_stack: int
    chip_share: float = 0.0
    deal_cents: int = 0
    pool_cents: int = 0


def money_choice(strategy: str, view: MoneyView, rng: random.Random) -> bool:
    """Whether a bot of ``strategy`` says yes: buy the chips, press Deal, accept the deal.

    A station says yes to everything; a random bot flips a coin; a tight
    player re-buys, adds on when short (under two starting stacks), wants a
    deal, and accepts one worth at least 90% of its chip share of the
    prizes; a push/fold player buys every chip it can and plays on.
    """
    if strategy == "station":
        return True
    if strategy == "random":
        return rng.random() < 0.5
    if strategy == "pushfold":
        return view.offer in ("rebuy", "add_on")
    if view.offer == "add_on":
        return view.stack < 2 * view.starting_stack
    if view.offer == "deal":
        return view.deal_cents >= 0.9 * view.chip_share * view.pool_cents
    return True


@functools.cache
def load_strategy(path: str) -> Strategy:
    """A player of the user's own, ``module.path:Name`` (docs/swarm.md): a function of what its seat sees and an
    RNG to a decision, as the built-in strategies are; ValueError naming what is wrong."""
    module_name, _, name = path.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as error:
        raise ValueError(f"strategy {path!r}: its module {module_name!r} does not import ({error})") from None
    strategy = getattr(module, name, None)
    if not callable(strategy):
        raise ValueError(f"strategy {path!r}: {module_name} has no function {name!r}")
    return cast(Strategy, strategy)


def parse_mix(text: str, known: Iterable[str] = STRATEGIES, *, custom: bool = False) -> dict[str, float]:
    """'tag=4,random=1' -> weights per tag; a tag not in ``known`` is refused by name. With ``custom``, a tag
    ``module.path:Name`` names a player of the user's own, loaded to be checked."""
    known = list(known)
    mix: dict[str, float] = {}
    for part in text.split(","):
        name, _, weight = part.partition("=")
        name = name.strip()
        if custom and ":" in name:
            load_strategy(name)
        elif name not in known:
            raise ValueError(f"unknown strategy {name!r}; choose from {', '.join(known)}"
                             + (", or module.path:Name for your own" if custom else ""))
        try:
            mix[name] = float(weight or 1)
        except ValueError:
            raise ValueError(f"weight of {name} must be a number, not {weight!r}") from None
        if not 0 <= mix[name] < float("inf"):
            raise ValueError(f"weight of {name} must be a finite number, 0 or more, not {weight!r}")
    if sum(mix.values()) <= 0:
        raise ValueError("the mix needs a positive weight")
    return mix
