"""PokerKit as the test oracle: the same hand, set up and driven in both engines.

Test-only code; nothing in mttsim imports PokerKit.
"""

from __future__ import annotations

from pokerkit import Automation, Mode, NoLimitTexasHoldem

from engine.cards import card_text
from engine.hand import Hand
from engine.history import position_forced_bets

AUTOMATIONS = (
    Automation.ANTE_POSTING,
    Automation.BET_COLLECTION,
    Automation.BLIND_OR_STRADDLE_POSTING,
    Automation.CARD_BURNING,
    Automation.HOLE_CARDS_SHOWING_OR_MUCKING,
    Automation.HAND_KILLING,
    Automation.CHIPS_PUSHING,
    Automation.CHIPS_PULLING,
)


def pokerkit_state(hand: Hand):
    """A PokerKit state at the same point as a freshly built ``hand``, same cards dealt."""
    antes, blinds, trimming = position_forced_bets(hand)
    state = NoLimitTexasHoldem.create_state(
        AUTOMATIONS,
        trimming,
        tuple(antes),
        tuple(blinds),
        hand.min_bet,
        hand.starting_stacks,
        hand.n,
        mode=Mode.TOURNAMENT,
    )
    for cards in hand.hole:
        state.deal_hole(card_text(cards))
    return state


def deal_board_like(state, hand: Hand) -> None:
    """Deal PokerKit whatever board cards our hand has dealt and it has not."""
    dealt = sum(len(cards) for cards in state.board_cards)
    while state.can_deal_board():
        count = 3 if dealt == 0 else 1
        state.deal_board(card_text(hand.board[dealt : dealt + count]))
        dealt += count


def pokerkit_legal(state) -> tuple:
    """(actor, can_fold, call, min_raise_to, max_raise_to) as PokerKit sees them."""
    can_raise = state.can_complete_bet_or_raise_to()
    return (
        state.actor_index,
        state.can_fold(),
        state.checking_or_calling_amount,
        state.min_completion_betting_or_raising_to_amount if can_raise else None,
        state.max_completion_betting_or_raising_to_amount if can_raise else None,
    )


def our_legal(hand: Hand) -> tuple:
    legal = hand.legal_actions()
    return (legal.player, legal.can_fold, legal.call, legal.min_raise_to, legal.max_raise_to)
