"""Where the simulator's hands are played: in the director's process, or also in worker processes (``--jobs``).

The director deals every hand (engine.director: who is dealt in, the stacks,
the button and blinds) and settles it; only the play in between is work
another process can do. A worker gets what it takes to deal the hand again
(the stacks, the blinds and ante, their places, each seat's strategy and the
hand's number), draws its cards, plays it with the same engine and sends back
how it ended (``engine.eliminations.Outcome``): the stacks and who knocked out
whom. The director settles its own copy of the hand, dealt and not played,
with that outcome, after checking that it keeps every chip.

A hand's cards and its bots' choices come from a stream of its own, a hash
of the tournament's hand seed and the hand's number (``dealt``), never from a
stream shared with other hands: a hand is the same wherever and whenever it
is played, which is what lets any number of processes play one tournament
and give the tournament one process gives. The seats, the floor's draws and
the bots' money choices stay on the director's RNGs.
"""

from __future__ import annotations

import gc
import hashlib
import multiprocessing
import os
import pickle
import random
import select
import threading
import time
from collections import deque
from collections.abc import Sequence
from multiprocessing.connection import Connection
from typing import Any, Final

from mypy_extensions import mypyc_attr

from bots import lifeline
from bots.strategies import STRATEGIES, play_out
from engine.cards import streamed_cards
from engine.eliminations import Outcome, outcome_of
from engine.hand import Hand
from engine.wire import Stage

BATCH: Final = 48  # hands a message carries to a worker: enough to pay for the message, few enough to keep it busy
# A worker with less than a batch to play gets a part batch once it holds PART_BATCH hands, or as soon as it has
# fewer than LOW hands left. Sent at every deal, most messages held one to four hands: 24,000 messages each way at
# 10,000 players, 9,000 with a part batch worth a message, and a run 3% shorter.
PART_BATCH: Final = 24
LOW: Final = 16
IN_FLIGHT: Final = 4 * BATCH  # a worker's jobs and answers both fit a pipe's buffers: neither side waits on a full one
SPIN_S: Final = 0.0005  # how long a worker that ran dry looks for more before it sleeps (``_work``)
STOPPED = "a worker playing this tournament's hands stopped; the run cannot go on"
SEATS = tuple(f"seat{number}" for number in range(10))  # a worker's names: the moves never depend on them

# What a worker needs to deal a hand again: its number, each seat's strategy and stack, the blinds and ante,
# whether the big blind posts the ante, the blinds' positions, the hands' seed and the cards the deck holds, and
# where the tournament stands (what its bots weigh near the money).
Job = tuple[int, tuple[str, ...], list[int], int, int, int, bool, int | None, int, int, int, Stage]
Played = tuple[int, int, Outcome]  # the hand's number, its decisions and its end


BLOCK: Final = 64  # bytes of a hand's stream per hash call (BLAKE2b's digest)


def stream_blocks(key: bytes, start: int, count: int) -> bytes:
    """Blocks ``start`` to ``start + count`` of the stream keyed by ``key``: block i is BLAKE2b of the key and i.
    Two calls for 64 bytes each cost less than one SHAKE-256 call for 128, whose OpenSSL digest is looked up by
    name at each call."""
    return b"".join(hashlib.blake2b(key + block.to_bytes(4, "little")).digest()
                    for block in range(start, start + count))


def dealt(seed: int, number: int, cards: int) -> tuple[list[int], HandDice]:
    """Hand ``number``'s cards and its bots' RNG, in a tournament whose hands are seeded with ``seed``: both
    read from one stream of the seed and the number (``stream_blocks``), the cards first. The first blocks hold
    the cards and at least six of the bots' draws; a hand whose bots draw more hashes more."""
    key = seed.to_bytes(8, "little") + number.to_bytes(8, "little")
    used = 3 * cards
    stream = stream_blocks(key, 0, (used + 6 * 7 + BLOCK - 1) // BLOCK)
    return streamed_cards(stream, cards), HandDice(key, stream, used)


@mypyc_attr(native_class=False)
class HandDice(random.Random):
    """A hand's bots' RNG: a ``random.Random`` whose draws are read from the hand's stream (``dealt``), after its
    cards, instead of a Mersenne Twister's.

    Seeding a Mersenne Twister cost a tenth of a simulated hand, and drawing
    the deck from it a thirtieth; the stream costs two hash calls
    a hand. Every method of ``random.Random`` works, as the module's docs say of
    a subclass that gives its own ``random()`` and ``getrandbits()``. Python,
    not compiled: a compiled class cannot extend ``random.Random``.
    """

    __slots__ = ("_key", "_stream", "_at", "_first")  # read through the class, not the instance's dictionary

    def __init__(self, key: bytes, stream: bytes, at: int) -> None:  # not random.Random's: nothing to seed
        self._key, self._stream, self._at = key, stream, at  # ``_at``: where the next draw starts in ``_stream``
        self._first = 0  # the block ``_stream`` starts at: what was read before it is let go
        self.gauss_next = None

    def seed(self, a: object = None, version: int = 2) -> None:
        raise TypeError("a hand's RNG is seeded by the hand: the tournament's seed and the hand's number")

    def getstate(self) -> tuple[Any, ...]:
        return self._key, BLOCK * self._first + self._at, self.gauss_next

    def setstate(self, state: tuple[Any, ...]) -> None:
        self._key, at, self.gauss_next = state
        self._first, self._at = divmod(at, BLOCK)
        self._stream = b""

    def random(self) -> float:
        """53 bits of the stream, as ``random.Random.random`` makes a float of 53 bits of its own. (Each attribute
        of this Python class is a look-up through its type: the common case reads two and writes one.)"""
        at, stream = self._at, self._stream
        if at + 7 > len(stream):
            at, stream = self._hashed_on(7)
        self._at = at + 7
        return (int.from_bytes(stream[at:at + 7], "little") >> 3) * 2.0 ** -53

    def getrandbits(self, k: int, /) -> int:
        if k < 0:
            raise ValueError("number of bits must be non-negative")
        size = (k + 7) // 8
        at, stream = self._at, self._stream
        if at + size > len(stream):
            at, stream = self._hashed_on(size)
        self._at = at + size
        return int.from_bytes(stream[at:at + size], "little") >> (8 * size - k)

    def _hashed_on(self, size: int) -> tuple[int, bytes]:
        """The stream hashed further to hold ``size`` more bytes, without the blocks already read: where the next
        draw starts, and the stream."""
        at, stream = self._at, self._stream
        keep = at // BLOCK
        more = (at + size - len(stream) + BLOCK - 1) // BLOCK
        self._stream = stream[BLOCK * keep:] + stream_blocks(self._key, self._first + len(stream) // BLOCK, more)
        self._first += keep
        self._at = at - BLOCK * keep
        return self._at, self._stream


class Decks:
    """The director's decks (``Tournament(deal=...)``): each drawn from its hand's stream (``dealt``), whose RNG
    ``rng`` keeps for the hand's bots; or, ``elsewhere``, none: the director's copy of a hand a worker plays deals
    nothing, and the worker draws the cards (``played``). Hands are numbered as the director deals them, from 1."""

    def __init__(self, seed: int, cards: int, elsewhere: bool) -> None:
        self.seed, self.cards, self.elsewhere = seed, cards, elsewhere
        self.dealt = 0
        self.rng: random.Random = random.Random()

    def __call__(self, director_rng: random.Random, players: Sequence[str]) -> list[int] | None:
        self.dealt += 1
        if self.elsewhere:
            return None
        deck, self.rng = dealt(self.seed, self.dealt, self.cards)
        return deck


def job_of(hand: Hand, number: int, strategies: tuple[str, ...], decks: Decks, stage: Stage) -> Job:
    return (number, strategies, list(hand.starting_stacks), hand.small_blind, hand.big_blind, hand.ante,
            hand.bb_ante, hand.sb_index, hand.bb_index, decks.seed, decks.cards, stage)


def played(job: Job) -> Played:
    """A hand dealt again from ``job`` and played by its bots: how many decisions it took and how it ended."""
    number, strategies, stacks, small_blind, big_blind, ante, bb_ante, sb_index, bb_index, seed, cards, stage = job
    deck, rng = dealt(seed, number, cards)
    hand = Hand(SEATS[:len(stacks)], stacks, small_blind=small_blind, big_blind=big_blind, ante=ante,
                bb_ante=bb_ante, deck=deck, sb_index=sb_index, bb_index=bb_index)
    decisions = play_out(hand, [STRATEGIES[name] for name in strategies], rng, stage)
    return number, decisions, outcome_of(hand)


def sent(descriptor: int, message: bytes) -> None:
    """``message`` written whole to a pipe, after its length (``received`` reads it back).

    multiprocessing's ``Connection`` frames messages the same way, in
    interpreted code: 2.7 us to send and read a message of 2,500 bytes,
    against 1.6 on the same pipe. The director trades some 18,000
    messages at 10,000 players.
    """
    framed = len(message).to_bytes(4, "little") + message
    written = os.write(descriptor, framed)
    while written < len(framed):  # a pipe whose buffer is full takes part of it
        written += os.write(descriptor, framed[written:])


def received(descriptor: int) -> bytes:
    """The next message ``sent`` to this pipe; EOFError when its other end is closed."""
    return exactly(descriptor, int.from_bytes(exactly(descriptor, 4), "little"))


def exactly(descriptor: int, size: int) -> bytes:
    """``size`` bytes read from a pipe, which may give a long message in parts."""
    data = os.read(descriptor, size)
    if len(data) == size:
        return data  # as nearly always: a message fits the pipe's buffer
    parts = [data]
    while data:
        size -= len(data)
        if not size:
            return b"".join(parts)
        data = os.read(descriptor, size)
        parts.append(data)
    raise EOFError("the pipe's other end closed")


def _work(connection: Connection, directors: list[Connection], director: int) -> None:
    """A worker: batches of (table, job) in, batches of (table, played) out, until the director closes the pipe.

    A forked worker first closes its copies of the director's ends of the pipes (``directors``): the director's
    close is what ends it. What it was forked with, it keeps to the end: the collector need not walk it.

    A worker that runs dry looks for its next batch for up to ``SPIN_S`` before it sleeps on the pipe: the
    director, the slower side, then mostly writes to a process that is running, and a write that must wake one
    costs more. At 10,000 players, when it sent some 24,000 messages, the director's writes took 0.074 s against
    0.093.
    """
    if director:  # forked by the director (the fork server's children are held by its preload)
        lifeline.hold(director)  # a director killed outright takes its workers with it
    for end in directors:
        end.close()
    gc.freeze()
    descriptor = connection.fileno()
    arrived = select.poll()
    arrived.register(descriptor, select.POLLIN)
    try:
        while True:
            if not arrived.poll(0):
                until = time.perf_counter() + SPIN_S
                while not arrived.poll(0) and time.perf_counter() < until:
                    pass
            jobs = pickle.loads(received(descriptor))
            sent(descriptor, pickle.dumps([(table, played(job)) for table, job in jobs], pickle.HIGHEST_PROTOCOL))
    except (EOFError, OSError):
        pass  # the director is done with it, or gone


class Workers:
    """``count`` worker processes playing hands sent in batches, each to the worker with the fewest waiting.

    What is not sent yet stays in ``outbox``: the director plays those
    itself when it needs their outcome before a worker could give it.

    A director that runs alone in its process forks its workers: each plays
    its first hand within milliseconds. A fork server starts a new
    interpreter and imports the program first, a fifth of a second, a
    tenth of a 10,000-player run. A director beside other
    threads (a program that calls the simulator from a thread) uses the
    fork server: a fork copies only the thread that forks, and a lock
    another thread held would stay held in the child for ever.
    """

    def __init__(self, count: int) -> None:
        forks = threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()
        context = multiprocessing.get_context("fork") if forks else lifeline.forkserver()
        self.start_method = context.get_start_method()
        self.outbox: deque[tuple[int, Job]] = deque()
        self._pipes: list[Connection] = []
        self._descriptors: list[int] = []  # the pipes' own, for ``sent`` and ``received``
        self._processes: list[Any] = []
        self._waiting: list[int] = []  # hands sent to each worker and not back yet
        self._received: list[tuple[int, Played]] = []  # answers read to make room, not yet asked for
        # One poll set for the run: multiprocessing's wait() builds a selector at each call, and the director
        # looks for answers about once a hand.
        self._poller = select.poll()
        self._worker_at: dict[int, int] = {}  # a pipe's descriptor -> its worker's index
        for worker in range(count):
            mine, theirs = context.Pipe()
            process = context.Process(target=_work, args=(theirs, [*self._pipes, mine] if forks else [],
                                                          os.getpid() if forks else 0), daemon=True)
            process.start()
            theirs.close()
            descriptor = mine.fileno()
            self._pipes.append(mine)
            self._descriptors.append(descriptor)
            self._processes.append(process)
            self._waiting.append(0)
            self._poller.register(descriptor, select.POLLIN)
            self._worker_at[descriptor] = worker

    def submit(self, table: int, job: Job) -> None:
        self.outbox.append((table, job))
        if len(self.outbox) >= BATCH:
            self.send()

    def send(self, hungry_only: bool = False) -> None:
        """The outbox to the worker with the fewest hands waiting; with ``hungry_only``, only if that worker has
        less than a batch to play and the outbox is worth a message, or the worker is about to run dry (a part
        batch now rather than a worker idle).

        A worker holds at most ``IN_FLIGHT`` hands: beyond, its answers are read first. Unbounded, a large field's
        first deal (11,000 tables at 100,000 players) filled both pipes, each side blocked writing to the other.
        """
        if not self.outbox:
            return
        worker = self._least_waiting()
        waiting = self._waiting[worker]
        if hungry_only and (waiting >= BATCH or len(self.outbox) < PART_BATCH and waiting >= LOW):
            return
        while self._waiting[worker] >= IN_FLIGHT:
            self._received += self._receive(block=True)
            worker = self._least_waiting()
        batch = list(self.outbox)
        self.outbox.clear()
        try:
            sent(self._descriptors[worker], pickle.dumps(batch, pickle.HIGHEST_PROTOCOL))
        except OSError:
            raise RuntimeError(STOPPED) from None
        self._waiting[worker] += len(batch)

    def _least_waiting(self) -> int:
        """The index of the worker with the fewest hands waiting (a loop of machine integers, asked every hand)."""
        least = 0
        for worker in range(1, len(self._waiting)):
            if self._waiting[worker] < self._waiting[least]:
                least = worker
        return least

    @property
    def hungry(self) -> bool:
        """A worker has less than a batch left to play: it may run dry before the next answer is read."""
        return self._waiting[self._least_waiting()] < BATCH

    @property
    def full(self) -> bool:
        """Every worker holds its fill with what waits to be sent: another hand would wait on them."""
        return self._waiting[self._least_waiting()] + len(self.outbox) >= IN_FLIGHT

    def results(self, block: bool) -> list[tuple[int, Played]]:
        """The hands played since last asked, by table; with ``block``, at least one."""
        back, self._received = self._received, []
        return back + self._receive(block and not back)

    def _receive(self, block: bool) -> list[tuple[int, Played]]:
        back: list[tuple[int, Played]] = []
        for descriptor, _ in self._poller.poll(None if block else 0):
            try:
                batch = pickle.loads(received(descriptor))
            except (EOFError, OSError):
                raise RuntimeError(STOPPED) from None
            self._waiting[self._worker_at[descriptor]] -= len(batch)
            back += batch
        return back

    def close(self) -> None:
        """The workers stop when their pipe closes (never a message that could wait on a full pipe)."""
        for pipe in self._pipes:
            pipe.close()
        for process in self._processes:
            process.join(timeout=5)
            if process.is_alive():
                process.kill()
