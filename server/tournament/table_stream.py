"""One table's stream: number, wrap, fan out. The one writer of a table's messages, wherever the table is played.

In one ``mttsim serve`` the tournament's process writes every table's
stream to the connections watching it (server/tournament/streams.py's
``HereSink``); in a cluster the worker holding a table's lease writes it to
the table's clients at their gateways (server/cluster/playing.py's
``WorkerSink``). They differ only in the ``Sink``, as Centrifuge's brokers and
Colyseus' presence do: numbering, the envelope, who hears a message at once
and hole cards to their owner alone are this module's, once.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from typing import NamedTuple, Protocol, TypeVar

import msgspec

from engine.events import Event, HoleDealt
from engine.wire import Envelope, Private, PrivateMessage, TableMessage, encoder, stamped


class Numbered(msgspec.Struct, tag="event", tag_field="type"):
    """engine.wire's ``Envelope`` (the same bytes) around an event encoded once: a cluster's director encodes what
    it says, the table's worker numbers it."""

    seq: int
    table: int
    event: msgspec.Raw
    at: float


numbered = msgspec.json.Decoder(Numbered)  # a kept line, its event undecoded: a worker taking a table over reads it


def last_seq_kept(kept: bytes) -> int:
    """The number of the last line of what a bus kept of a table's stream (lines, one message each), 0 if none."""
    last = kept.rsplit(b"\n", 1)[-1]
    return numbered.decode(last).seq if last else 0
Gateway = TypeVar("Gateway")  # where a client's frames go: a gateway's link, or its frames' subject


def concerning(message: TableMessage) -> str:
    """Who hears a table's message at once: the player it concerns (who acted, whose turn), or nobody."""
    return getattr(message, "player", None) or ""


def encoded(message: TableMessage, clock: Clock | None) -> bytes:
    """A table's message as its bytes; a director event carries the tournament ``clock`` in its object."""
    return encoder.encode(message) if clock is None else stamped(encoder.encode(message), *clock)


def private_line(message: PrivateMessage) -> bytes:
    """A message for one player alone, as their clients are sent it."""
    return encoder.encode(Private(message, time.time()))


def by_gateway(clients: Iterable[tuple[Gateway, int, str]],
               concerned: str) -> dict[Gateway, tuple[list[int], list[int]]]:
    """Clients at gateways (the gateway, the client's number there, its player), grouped by gateway, each group's
    numbers split into those who hear a line at once (``concerned``'s) and those who hear it with the next tick:
    a line goes to a gateway once for all its clients."""
    grouped: dict[Gateway, tuple[list[int], list[int]]] = {}
    for gateway, number, player in clients:
        now, later = grouped.setdefault(gateway, ([], []))
        (now if concerned and player == concerned else later).append(number)
    return grouped


class Clock(NamedTuple):
    """The tournament clock as a director event happens: seconds since the start, and the level from 1."""

    at: float
    level: int


class Sink(Protocol):
    """Where a table's numbered lines go."""

    def listening(self) -> bool:
        """Whether anyone hears the table now: a line for nobody is numbered, never encoded (the end of a
        hand-for-hand round said to two thousand tables nobody watched held the next round's deals)."""

    def fan_out(self, line: bytes, concerned: str) -> None:
        """To every client of the table: at once to ``concerned``'s (who acted, whose turn), with the next
        broadcast tick to the others."""

    def tell(self, player: str, line: bytes) -> None:
        """To ``player``'s clients alone, at once."""


class TableStream:
    """The numbered stream of one table, written to a ``Sink``."""

    __slots__ = ("table", "sink", "seq")

    def __init__(self, table: int, sink: Sink, seq: int = 0) -> None:
        self.table = table
        self.sink = sink
        self.seq = seq  # the last number given; a worker taking the table over starts from the kept one

    def publish_encoded(self, message: bytes, concerned: str = "") -> None:
        """Number ``message`` (an encoded ``TableMessage``) and send it; ``concerned`` hears it at once."""
        self.seq += 1
        if self.sink.listening():
            self._fan_out_encoded(message, concerned)

    def _fan_out_encoded(self, message: bytes, concerned: str) -> None:
        self.sink.fan_out(encoder.encode(Numbered(self.seq, self.table, msgspec.Raw(message), time.time())),
                          concerned)

    def publish(self, message: TableMessage, clock: Clock | None = None) -> None:
        """Number ``message`` and send it; the player it concerns (who acted, whose turn) hears it at once. A
        director event comes with its ``clock``, which its object carries (``at``, ``in_level``)."""
        self.seq += 1
        if not self.sink.listening():
            return
        concerned = concerning(message)
        if clock is None:  # encoded once, in the wire's own envelope: the bytes of a Numbered
            self.sink.fan_out(encoder.encode(Envelope(self.seq, self.table, message, time.time())), concerned)
        else:
            self._fan_out_encoded(encoded(message, clock), concerned)

    def tell(self, player: str, message: PrivateMessage) -> None:
        self.sink.tell(player, private_line(message))

    def route_hand(self, events: list[Event]) -> None:
        """A hand's events: hole cards to their owner only, the rest to the table."""
        for event in events:
            if isinstance(event, HoleDealt):
                self.tell(event.player, event)
            else:
                self.publish(event)
