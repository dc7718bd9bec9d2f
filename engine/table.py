"""Seats, and the button and blinds from hand to hand (dead-button rule).

rules.md C.9-C.11: the big blind moves to the next seat clockwise with a player
in it; the small blind sits where the big blind was (no small blind if that
seat is now empty); the button goes where the small blind was, even onto an
empty seat. Heads-up, the button posts the small blind, and the big blind
still moves on, so nobody posts it twice in a row. A player newly seated
strictly between the button and the small blind waits until the button has
passed (C.10). Who is dealt in is decided when the hand starts.
"""

from __future__ import annotations

from mypy_extensions import mypyc_attr


class Positions:
    """Where the next hand's button and blinds are, and who is dealt in.

    ``dealt`` lists the seats dealt in, clockwise from the first seat left of
    the button: the order ``engine.hand.Hand`` takes its players in.
    ``sb_index`` and ``bb_index`` point into ``dealt``. A class, not a
    NamedTuple, which a compiled table would build through Python (one a hand).
    """

    __slots__ = ("button_seat", "sb_seat", "bb_seat", "dealt", "sb_index", "bb_index")

    def __init__(self, button_seat: int, sb_seat: int | None, bb_seat: int, dealt: tuple[int, ...],
                 sb_index: int | None, bb_index: int) -> None:
        self.button_seat = button_seat
        self.sb_seat = sb_seat
        self.bb_seat = bb_seat
        self.dealt = dealt
        self.sb_index = sb_index
        self.bb_index = bb_index


@mypyc_attr(serializable=True, allow_interpreted_subclasses=True)
class Table:
    """One table's seats and its button history. Seats are numbered 0 .. size-1."""

    def __init__(self, size: int) -> None:
        if not 2 <= size <= 10:
            raise ValueError(f"a table has 2 to 10 seats, not {size}")
        self.size = size
        self.seats: list[str | None] = [None] * size
        self.waiting: set[int] = set()
        self.last_sb_seat: int | None = None  # the small blind's seat, even when nobody posted it
        self.last_bb_seat: int | None = None

    @property
    def players(self) -> list[str]:
        return [p for p in self.seats if p is not None]

    @property
    def seated(self) -> int:
        """How many players sit here: ``len(players)`` without building the list, for checks made per table and
        per hand."""
        return self.size - self.seats.count(None)

    def occupants(self, seats: tuple[int, ...]) -> list[str]:
        """The players in ``seats``, which must all be taken (a hand's dealt seats)."""
        players = [player for player in (self.seats[seat] for seat in seats) if player is not None]
        if len(players) != len(seats):
            raise ValueError("an empty seat cannot be dealt in")
        return players

    def open_seats(self) -> list[int]:
        return [s for s in range(self.size) if self.seats[s] is None]

    def seat(self, player: str, seat: int) -> None:
        """Put a player in an empty seat between hands (new, moved or late)."""
        if not 0 <= seat < self.size:
            raise ValueError(f"seat {seat} does not exist at a {self.size}-seat table")
        if self.seats[seat] is not None:
            raise ValueError(f"seat {seat} is taken by {self.seats[seat]}")
        self.seats[seat] = player
        if self.last_bb_seat is not None:
            self.waiting.add(seat)  # decided at the next hand's start (C.10)

    def remove(self, seat: int) -> str:
        """Take a player out of a seat (bust, move, break); the seat's history stays."""
        player = self.seats[seat]
        if player is None:
            raise ValueError(f"seat {seat} is empty")
        self.seats[seat] = None
        self.waiting.discard(seat)
        return player

    def next_positions(self) -> Positions:
        """The next hand's button and blinds, without committing them."""
        return self._positions()[0]

    def start_hand(self) -> Positions:
        """Fix the next hand's positions: the button and blinds move on."""
        positions, activated = self._positions()
        self.waiting -= activated
        # With a dead small blind its seat (the last big blind's) still carries the button next hand;
        # the first hand always has a small blind.
        self.last_sb_seat = positions.sb_seat if positions.sb_seat is not None else self.last_bb_seat
        self.last_bb_seat = positions.bb_seat
        return positions

    # ---------------------------------------------------------------- internals

    def _next_from(self, seat: int, active: set[int]) -> int:
        for step in range(1, self.size + 1):
            candidate = (seat + step) % self.size
            if candidate in active:
                return candidate
        raise AssertionError("no active seat")

    def _between(self, seat: int, start: int, end: int) -> bool:
        """Whether ``seat`` lies strictly between ``start`` and ``end``, clockwise."""
        return 0 < (seat - start) % self.size < (end - start) % self.size

    def _positions(self) -> tuple[Positions, set[int]]:
        occupied = {seat for seat, player in enumerate(self.seats) if player is not None}
        if len(occupied) < 2:
            raise ValueError("a hand needs at least two seated players")
        if self.last_bb_seat is None:
            return self._first_positions(occupied), set()
        sb_seat = self.last_bb_seat
        button = self.last_sb_seat if self.last_sb_seat is not None else sb_seat
        if not self.waiting:  # as at most hands: nobody newly seated
            activated: set[int] = set()
            active = occupied
        else:
            activated = {s for s in self.waiting & occupied if not self._between(s, button, sb_seat)}
            active = (occupied - self.waiting) | activated
        if len(active) < 2:
            # Only a waiting player could play: the wait cannot hold the game up.
            activated = set(self.waiting & occupied)
            active = occupied
        bb = self._next_from(sb_seat, active)
        sb: int | None
        if len(active) == 2:
            # Heads-up (C.11): the big blind moves on; the other player has the button and the small blind.
            sb = button = next(s for s in active if s != bb)
        else:
            sb = sb_seat if sb_seat in active else None
        return self._order(button, sb, bb, active), activated

    def _first_positions(self, occupied: set[int]) -> Positions:
        """The first hand: the button on the first seat with a player from seat 0 [PS-R]."""
        button = min(occupied)
        if len(occupied) == 2:
            sb, bb = button, self._next_from(button, occupied)
        else:
            sb = self._next_from(button, occupied)
            bb = self._next_from(sb, occupied)
        return self._order(button, sb, bb, occupied)

    def _order(self, button: int, sb: int | None, bb: int, active: set[int]) -> Positions:
        size = self.size
        dealt = tuple([seat % size for seat in range(button + 1, button + size + 1) if seat % size in active])
        return Positions(
            button_seat=button,
            sb_seat=sb,
            bb_seat=bb,
            dealt=dealt,
            sb_index=dealt.index(sb) if sb is not None else None,
            bb_index=dealt.index(bb),
        )
