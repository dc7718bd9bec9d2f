"""A bot playing one seat over the real wire protocol (docs/protocol.md), as any client would.

A swarm runs thousands of these in one process, and the swarm must not be
what a load test measures: so a bot is a picows listener, called for each
frame without a task switch, and it decodes each line only as far as it
needs (``_Line``): the whole message only when it is for this bot.

It keeps no table state: the server's ``your_turn`` message (or, after a
reconnect, the snapshot) carries what a strategy needs, and an ``offer``
(a re-buy, the add-on, a deal) what ``money_choice`` needs. It follows table
moves without reconnecting, because the server moves its connection. It
records what a load test measures: action-to-acknowledgement latency, event
delivery lag, errors, missed deadlines and reconnections.

Fault injectors play like ``random`` but misbehave on purpose:
- ``slow`` lets the clock run out on about half its turns, then says ``back``;
- ``flaky`` hangs up every few decisions (3 to 8) and reconnects with its token;
- ``rude`` sends malformed and out-of-turn messages and expects errors.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array
from dataclasses import dataclass, field
from collections.abc import Callable
from typing import Any, Literal, cast

import msgspec
from picows import WSCloseCode, WSFrame, WSListener, WSMsgType, WSTransport, ws_connect

from bots.plugins import Player, PluginRecord, illegal
from bots.strategies import (
    STRATEGIES, MoneyView, SeatView, Strategy, load_strategy, money_choice, random_player,
)
from engine import wire
from engine.hand import LegalActions

Fault = Literal["slow", "flaky", "rude"]
FAULTS: tuple[Fault, ...] = ("slow", "flaky", "rude")


@dataclass
class SeatReport:
    """What one bot saw and measured."""

    player: str
    decisions: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)  # error replies the bot did not provoke
    provoked_errors: int = 0  # error replies to a rude bot's bad messages
    stale: int = 0  # decisions that came after their turn was over (a slow line, a stalled server): not errors
    moves: list[dict[str, Any]] = field(default_factory=list)
    decisions_before_move: list[int] = field(default_factory=list)
    place: int | None = None
    timed_out: int = 0  # the clock acted for this bot
    missed_deadlines: int = 0  # ... although it meant to act
    reconnections: int = 0
    failovers: int = 0  # times the bot found its gateway gone and went to the next address
    snapshots: int = 0
    # The seconds from sending an action to its ``acted``, and from the server's stamp to receipt. A swarm's
    # bots share one array of each (``Measured``), so that its time series reads only what is new, with no
    # loop over the bots, and numpy reads them without a copy (bots/timeline.py).
    latencies: array[float] = field(default_factory=lambda: array("d"))
    lags: array[float] = field(default_factory=lambda: array("d"))
    messages: int = 0
    bytes: int = 0  # of the messages received
    connects: list[float] = field(default_factory=list)  # seconds the first connection's handshake took
    reconnects: list[float] = field(default_factory=list)  # ... and each later one's
    snapshots_after: list[float] = field(default_factory=list)  # seconds from a connection to its snapshot
    refused: list[str] = field(default_factory=list)  # why connections failed


@dataclass
class Tally:
    """A swarm's bots' figures added up as they happen (each bot counts into its own report and into this):
    the time series and the report so far read them at once. Added up from 5,000 bots at each row, they cost
    more than every other figure of the row, each pass missing the CPU's cache at every bot."""

    connected: int = 0
    decisions: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    provoked_errors: int = 0
    stale: int = 0
    missed_deadlines: int = 0
    timed_out: int = 0
    reconnections: int = 0
    failovers: int = 0
    messages: int = 0
    bytes: int = 0
    connects: list[float] = field(default_factory=list)
    reconnects: list[float] = field(default_factory=list)
    snapshots_after: list[float] = field(default_factory=list)
    refused: list[str] = field(default_factory=list)  # first connections refused
    refused_again: list[str] = field(default_factory=list)  # reconnections refused
    heard: float = 0.0  # the wall clock when a bot last received a frame: the server was there then


@dataclass
class Measured:
    """The latencies and lags of many bots, in the order they came, and their figures added up (a swarm's,
    bots/swarm.py)."""

    latencies: array[float] = field(default_factory=lambda: array("d"))
    lags: array[float] = field(default_factory=lambda: array("d"))
    tally: Tally = field(default_factory=Tally)
    plugins: PluginRecord = field(default_factory=PluginRecord)  # what players of the user's own recorded




class _Event(msgspec.Struct):
    """What every bot reads of a public event: the rest of the line is skipped, not decoded."""

    type: str
    player: str | None = None
    place: int | None = None


class _Line(msgspec.Struct):
    type: str
    at: float = 0.0
    event: _Event | None = None


read_line = msgspec.json.Decoder(_Line).decode
read_whole = msgspec.json.Decoder().decode
_write = wire.encoder.encode
_BACK = _write(wire.Back())
_FOLD = _write(wire.Act("fold"))
_MALFORMED = _FOLD[:-10]  # cut off mid-message
MAX_FRAME_BYTES = 4 << 20  # a frame carries a batch of messages: far more than the server ever sends
WAIT_SECONDS = 120.0  # how long a swarm waits for a server away (a restart) before it gives up: its one budget
BACKOFF_FIRST_SECONDS = 0.25
BACKOFF_CAP_SECONDS = 5.0  # a bot is back within this of its server's return


def backoff(tries: int, rng: random.Random) -> float:
    """The pause before the next try after ``tries`` refusals: capped exponential, in the upper half of its
    step at random ("equal jitter"), so that a swarm's retries spread out and never fall to nothing."""
    step = min(BACKOFF_CAP_SECONDS, BACKOFF_FIRST_SECONDS * 2 ** min(tries - 1, 16))
    return rng.uniform(step / 2, step)


def view_of(turn: dict[str, Any]) -> SeatView:
    legal = LegalActions(0, turn["can_fold"], turn["can_check"], turn["call"], turn["min_raise_to"],
                         turn["max_raise_to"])
    return SeatView(legal, tuple(turn["hole"]), tuple(turn["board"]), turn["pot"], turn["stack"], turn["big_blind"],
                    turn.get("players") or 6, turn.get("behind", 0), turn.get("to_match", 0),
                    tuple(turn.get("opponents", ())), turn.get("players_left", 0), turn.get("paid", 0),
                    turn.get("next_jump", 0), turn.get("average", 0))


def turn_from_snapshot(snapshot: dict[str, Any]) -> dict[str, Any] | None:
    """The pending decision in a snapshot (after a reconnect), in ``your_turn``'s shape."""
    you, table, tournament = snapshot["you"], snapshot["table"], snapshot["tournament"]
    if not you or not you.get("legal") or not table:
        return None
    seats = table.get("seats", [])  # a snapshot always has them; a stand-in may not
    return {**you["legal"], "hole": you["hole"] or [], "board": table["board"], "pot": table["pot"],
            "stack": you["stack"] or 0, "big_blind": tournament["big_blind"],
            "players": sum(seat["in_hand"] or seat["folded"] for seat in seats),
            "to_match": max((seat["bet"] for seat in seats), default=0),
            "opponents": [seat["stack"] for seat in seats if seat["in_hand"] and seat["player"] != you["player"]],
            "players_left": tournament.get("players_left", 0), "average": tournament.get("average_stack") or 0}


class SeatBot(WSListener):
    """One seat: strategy, optional fault, think time, and its report. picows calls it for each frame."""

    def __init__(self, ws_url: str | list[str], tournament: str, player: str, token: str,
                 strategy: Strategy | type[Player] | Player,
                 rng: random.Random, think: tuple[float, float] = (0.0, 0.0), fault: Fault | None = None,
                 measured: Measured | None = None, wait_s: float = WAIT_SECONDS) -> None:
        """``ws_url``: the server, or the gateways of a cluster, the first to try first; ``measured``: where the
        bot's latencies and lags go (a swarm's, shared by its bots; by default its own); ``wait_s``: how long
        the bot waits for a server that refuses it before giving up."""
        self.bases = [ws_url] if isinstance(ws_url, str) else ws_url
        self.urls = [f"{url}/ws/tournaments/{tournament}?token={token}" for url in self.bases]
        self.url = self.urls[0]
        self.token = token
        self.player = player
        self.strategy = strategy
        # a player class of the user's own: one of it per bot (kept across the bot's re-entries), and a plug-in's
        # mistakes counted as its own, apart from the server's errors
        self.plugin = strategy() if isinstance(strategy, type) else strategy if isinstance(strategy, Player) \
            else None
        self.custom = self.plugin is not None or not (strategy in STRATEGIES.values() or strategy is random_player)
        self.plugins = measured.plugins if measured is not None else PluginRecord()
        if self.plugin is not None:
            self.plugin.record = self.plugins
        self._refusal_expected = False  # the action sent was illegal: the server's refusal is the plug-in's doing
        self.rng = rng
        self.think = think
        self.fault = fault
        self.report = SeatReport(player) if measured is None else \
            SeatReport(player, latencies=measured.latencies, lags=measured.lags)
        self.tally = measured.tally if measured is not None else Tally()  # the swarm's, counted beside the seat's
        self.style = next((name for name, play in STRATEGIES.items() if play is strategy), "random")
        self._stack = 0
        self._starting_stack = 0
        self._sent_at: float | None = None
        self._ignored_turn = False
        self._done = False
        self._transport: WSTransport | None = None
        self._connected_at: float | None = None  # until this connection's snapshot arrives
        self._thinking: asyncio.TimerHandle | None = None
        self._until_hang_up = rng.randint(3, 8)  # decisions, for a flaky bot
        self._wanted = asyncio.Event()  # cleared while a swarm's load shape keeps the bot away (bots/shapes.py)
        self._wanted.set()
        self.wait_s = wait_s
        self._dropped = False  # the last session ended without the bot or the shape asking

    async def play(self) -> SeatReport:
        """Play until the player is out or the tournament is over; returns the report.

        A dropped connection, or a server that is not there (restarting after
        a crash), is retried with the same token, after a pause that doubles
        with each refusal up to ``BACKOFF_CAP_SECONDS``, drawn at random from
        its upper half, so that thousands of bots neither hammer a server
        that is down nor come back in one wave. The bot gives up after
        ``wait_s`` seconds of refusals in a row: the swarm's one budget for a
        server away. Given several gateways, a bot whose gateway refuses the
        connection goes on to the next at once (any gateway serves any
        session, as behind a load balancer), and pauses after a round of them.
        """
        if self.plugin is not None and isinstance(self.strategy, type):  # a new player (a re-entry keeps its own)
            self._plugin_says(self.plugin.on_start)
        try:
            await self._play()
        finally:
            if self.plugin is not None:  # out, the tournament over, or the run stopped (this task cancelled)
                self._plugin_says(self.plugin.on_stop)
        return self.report

    async def _play(self) -> None:
        refused_since: float | None = None
        refused = tries = 0  # refusals in a row; pauses taken
        while not self._done:
            await self._wanted.wait()
            began = time.monotonic()
            try:
                transport, _ = await ws_connect(lambda: self, self.url, max_frame_size=MAX_FRAME_BYTES)
            except OSError as error:
                reason = f"{type(error).__name__}: {error.strerror or error}"
                self.report.refused.append(reason)
                (self.tally.refused_again if self.report.connects else self.tally.refused).append(reason)
                refused_since = began if refused_since is None else refused_since
                refused += 1
                if time.monotonic() - refused_since > self.wait_s:
                    raise
                if len(self.urls) > 1:
                    self.url = self.urls[(self.urls.index(self.url) + 1) % len(self.urls)]
                    self.report.failovers += 1
                    self.tally.failovers += 1
                    if refused % len(self.urls):
                        continue  # the next one now; after a round of refusals, the pause
                tries += 1
                await asyncio.sleep(backoff(tries, self.rng))
                continue
            refused_since, refused, tries = None, 0, 0
            if not self._wanted.is_set():  # told to leave while the handshake was under way
                transport.disconnect(graceful=False)
                continue
            self._session_began(began)
            try:
                await transport.wait_disconnected()
            finally:
                transport.disconnect(graceful=False)
                self._stop_thinking()
            self._dropped = not self._done and self._wanted.is_set()  # a flaky bot hung up, or the line dropped
            if self._dropped:
                await asyncio.sleep(self.rng.uniform(0.1, 0.5))  # then come back with the token

    def _plugin_says(self, hook: Callable[[], object]) -> None:
        try:
            hook()
        except Exception as error:  # noqa: BLE001 - the user's code: whatever it raises is its own error
            self.plugins.errors[f"{hook.__name__}: {type(error).__name__}: {error}"] += 1

    def _session_began(self, began: float) -> None:
        """A connection is open: its handshake measured, and counted as a reconnection if it replaces one that
        dropped (a refused try is not one, nor a return the load's shape asked for)."""
        self._connected_at = time.monotonic()
        again = bool(self.report.connects)
        (self.report.reconnects if again else self.report.connects).append(self._connected_at - began)
        (self.tally.reconnects if again else self.tally.connects).append(self._connected_at - began)
        if self._dropped:
            self._dropped = False
            self.report.reconnections += 1
            self.tally.reconnections += 1

    def gateways_from_here(self) -> list[str]:
        """The addresses, the one this bot plays through now first (for its next entry)."""
        at = self.urls.index(self.url)
        return self.bases[at:] + self.bases[:at]

    @property
    def connected(self) -> bool:
        return self._transport is not None

    @property
    def done(self) -> bool:
        """Out of the tournament, or it is over."""
        return self._done

    @property
    def away(self) -> bool:
        return not self._wanted.is_set()

    def leave(self) -> None:
        """Hang up and stay away (a load shape's fall): the clock acts for the seat until ``come_back``."""
        self._wanted.clear()
        if self._transport is not None:
            self._transport.disconnect()

    def come_back(self) -> None:
        self._wanted.set()

    def on_ws_connected(self, transport: WSTransport) -> None:
        if self._transport is None:
            self.tally.connected += 1
        self._transport = transport

    def on_ws_disconnected(self, transport: WSTransport) -> None:
        if self._transport is transport:
            self._transport = None
            self.tally.connected -= 1

    def on_ws_frame(self, transport: WSTransport, frame: WSFrame) -> None:
        if frame.msg_type == WSMsgType.CLOSE:
            transport.send_close(frame.get_close_code())
            transport.disconnect()
            return
        if frame.msg_type != WSMsgType.TEXT:
            return
        received = time.time()
        self.tally.heard = received
        for line in frame.get_payload_as_bytes().split(b"\n"):  # one or more messages, one per line
            if self._handle(line, received):
                self._done = True
                transport.send_close(WSCloseCode.OK)
                transport.disconnect()
                return

    def _send(self, data: bytes) -> bool:
        """Send on the current connection; False when there is none (the clock will act for the seat)."""
        if self._transport is None or self._transport.is_close_frame_sent:
            return False
        self._transport.send(WSMsgType.TEXT, data)
        return True

    def _handle(self, line: bytes, received: float) -> bool:
        """One message; True when this bot's tournament is over."""
        report = self.report
        message = read_line(line)
        counted = self.tally
        report.messages += 1
        report.bytes += len(line)
        counted.messages += 1
        counted.bytes += len(line)
        if message.at:
            report.lags.append(received - message.at)
        kind = message.type
        if kind == "event":
            assert message.event is not None
            return self._public(message.event, line)
        whole = read_whole(line)
        if kind == "private":
            self._private(whole["event"])
        elif kind == "error":
            if self.fault == "rude" or self._refusal_expected:
                self._refusal_expected = False
                report.provoked_errors += 1
                counted.provoked_errors += 1
            elif whole.get("code") == "stale":
                report.stale += 1
                counted.stale += 1
            else:
                report.errors.append(whole)
                counted.errors.append(whole)
        elif kind == "snapshot":
            report.snapshots += 1
            if self._connected_at is not None:
                report.snapshots_after.append(time.monotonic() - self._connected_at)
                counted.snapshots_after.append(report.snapshots_after[-1])
                self._connected_at = None
            self._starting_stack = whole["tournament"]["starting_stack"]
            if whole["you"] and whole["you"]["stack"] is not None:
                self._stack = whole["you"]["stack"]
            result = whole["you"]["result"] if whole["you"] else None
            if result is not None or whole["tournament"]["status"] in ("finished", "cancelled"):
                report.place = result["place"] if result else None
                return True
            turn = turn_from_snapshot(whole)
            if turn is not None:
                self._decide(turn)
        return False

    def _private(self, event: dict[str, Any]) -> None:
        if event["type"] == "your_turn":
            self._stack = event["stack"]
            self._decide(event)
        elif event["type"] == "offer":
            self._answer(event)
        elif event["type"] == "moved":
            self.report.moves.append(event)
            self.report.decisions_before_move.append(self.report.decisions)

    def _public(self, event: _Event, line: bytes) -> bool:
        """A public event; True when this bot's tournament is over."""
        report = self.report
        kind = event.type
        mine = event.player == self.player
        if kind == "acted" and mine and self._sent_at is not None:
            report.latencies.append(time.monotonic() - self._sent_at)
            self._sent_at = None
        elif kind == "timed_out" and mine:
            self._stop_thinking()  # the clock decided: a late answer would be out of turn
            report.timed_out += 1
            self.tally.timed_out += 1
            if not self._ignored_turn:
                report.missed_deadlines += 1
                self.tally.missed_deadlines += 1
            self._ignored_turn = False
            self._sent_at = None
            self._send(_BACK)
        elif kind == "turn" and not mine and self.fault == "rude" and self.rng.random() < 0.05:
            self._send(_FOLD)  # out of turn
        elif kind == "player_eliminated" and mine:
            report.place = event.place
            return True
        elif kind == "tournament_finished":
            results = read_whole(line)["event"]["results"]
            report.place = next((r["place"] for r in results if r["player"] == self.player), report.place)
            return True
        return False

    def _answer(self, offer: dict[str, Any]) -> None:
        """Say yes or no to a re-buy, the add-on, pressing Deal or a deal's amounts."""
        kind = offer["kind"]
        stacks = offer.get("stacks") or {}
        amounts = offer.get("amounts") or {}
        stack = stacks.get(self.player, 0 if kind == "rebuy" else self._stack)
        view = MoneyView(kind, stack, self._starting_stack, stack / (sum(stacks.values()) or 1),
                         amounts.get(self.player, 0), sum(amounts.values()))
        yes = money_choice(self.style, view, self.rng)
        reply: wire.ClientMessage | None = {
            "rebuy": wire.Rebuy() if yes else wire.DeclineRebuy(),
            "add_on": wire.TakeAddOn() if yes else None,
            "press_deal": wire.PressDeal(True) if yes else None,
            "deal": wire.AnswerDeal(yes),
        }[kind]
        if reply is not None:
            self._send(_write(reply))

    def _decide(self, turn: dict[str, Any]) -> None:
        """Answer ``turn``, now or after thinking; a turn told again (a snapshot showing the one a ``your_turn``
        told of) replaces the one being thought over, so that a decision is answered once."""
        self._stop_thinking()
        if self.fault == "slow" and self.rng.random() < 0.5:
            self._ignored_turn = True  # let the clock run out
            return
        if self.fault == "rude" and self.rng.random() < 0.2:
            self._send(_MALFORMED)
        if self.think[1] > 0:
            # Think in the background: the bot keeps reading while it thinks, so what it measures is the
            # server's delivery, not its own pause.
            delay = self.rng.uniform(*self.think)
            self._thinking = asyncio.get_running_loop().call_later(delay, self._act, turn)
        else:
            self._act(turn)

    def _stop_thinking(self) -> None:
        if self._thinking is not None:
            self._thinking.cancel()
            self._thinking = None

    def _act(self, turn: dict[str, Any]) -> None:
        self._thinking = None
        view = view_of(turn)
        action, amount = self._decision(view) if self.custom else self.strategy(view, self.rng)  # type: ignore
        self._sent_at = time.monotonic()
        # The turn it answers, as ``your_turn`` named it (a snapshot's pending turn names none)
        if not self._send(_write(wire.Act(action, amount, turn.get("hand"), turn.get("turn")))):
            self._sent_at = None
            return
        self.report.decisions += 1
        self.tally.decisions += 1
        if self.fault == "flaky":
            self._until_hang_up -= 1
            if self._until_hang_up == 0 and self._transport is not None:
                self._until_hang_up = self.rng.randint(3, 8)
                self._transport.disconnect()  # play() reconnects


    def _decision(self, view: SeatView) -> tuple[Any, int | None]:
        """A player of the user's own decides: its exception, or an action its view says is illegal, is the
        plug-in's error (an exception leaves the seat checking, or folding); a tag counts the action by it."""
        decide = cast("Callable[[SeatView, random.Random], tuple[Any, ...]]",
                      self.plugin.decide if self.plugin is not None else self.strategy)
        try:
            decision = decide(view, self.rng)
            action, amount = decision[0], decision[1]
        except Exception as error:  # noqa: BLE001 - the user's code: whatever it raises is its own error
            self.plugins.errors[f"decide: {type(error).__name__}: {error}"] += 1
            return ("check", None) if view.legal.can_check else ("fold", None)
        if len(decision) > 2:
            self.plugins.tags[str(decision[2])] += 1
        wrong = illegal(action, amount, view.legal)
        if wrong is not None:
            self.plugins.errors[f"illegal action: {wrong.split(':')[0]}"] += 1
            self._refusal_expected = True
        return action, amount


def strategy_for(tag: str) -> tuple[Strategy, Fault | None]:
    """A mix tag: a strategy name, a fault injector (which plays like ``random``), or a player of the user's own
    (``module.path:Name``)."""
    for fault in FAULTS:
        if tag == fault:
            return random_player, fault
    return (load_strategy(tag) if ":" in tag else STRATEGIES[tag]), None


async def play_seat(ws_url: str, tournament: str, player: str, token: str, strategy: Strategy,
                    rng: random.Random, think: tuple[float, float] = (0.0, 0.0),
                    fault: Fault | None = None) -> SeatReport:
    """Play one seat to its end (see SeatBot)."""
    return await SeatBot(ws_url, tournament, player, token, strategy, rng, think, fault).play()
