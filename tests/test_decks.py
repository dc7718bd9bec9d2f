"""Live decks: keyed by the tournament's secret (docs/security.md), so that nobody can predict them."""

from __future__ import annotations

from engine.cards import keyed_deck
from server.tournament import records
from server.storage import MemoryStorage
from server.tournament.runtime import TournamentRuntime
from tests.tournaments import definition as rules


def test_live_decks_come_from_the_tournaments_secret_not_from_its_seed():
    """Two tournaments with the same seed deal different cards; the same secret deals the same ones (a replay);
    and each deck is a full, unbiased-looking permutation."""
    def first_cards(runtime: TournamentRuntime) -> list[tuple[int, ...]]:
        for number in range(4):
            runtime.register(f"player {number}")
        runtime.start()
        runtime.recorder.record(records.StartHand(1))
        return list(runtime.director.hand(1).hole)

    storage = MemoryStorage()
    one, two = (TournamentRuntime.create(name, rules(4), storage, seed=7, hand_pause=0) for name in ("a", "b"))
    assert first_cards(one) != first_cards(two)  # the seed alone does not tell the cards
    (stored_one, _) = storage.tournaments()
    assert stored_one.secret is not None and len(stored_one.secret) == 32
    again = TournamentRuntime.restore(stored_one, storage, hand_pause=0)
    assert list(again.director.hand(1).hole) == list(one.director.hand(1).hole)
    firsts = [keyed_deck(b"k" * 32, number)[0] for number in range(5200)]
    assert sorted(set(firsts)) == list(range(52)) and max(map(firsts.count, range(52))) < 160
