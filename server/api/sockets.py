"""A websocket session, wherever its socket is: here (server/api/app.py) or on a cluster's gateway
(server/cluster/service.py).

Who may open one, what each incoming message does (limits first, then a
clear error or the command, never an exception), and what closing it leaves
behind. The socket itself is the caller's.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import NamedTuple

import msgspec

from engine.wire import (
    MAX_MESSAGE_BYTES, Act, Back, Follow, Incoming, Say, SitOut, Sync, Watch, describe_decode_error, error_message,
    incoming_decoder,
)
from server.errors import Refused
from server.hub import CLOSE_FLOOD, CLOSE_TOO_BIG, Connection
from server.api.metrics import Metrics
from server.api.process import Server
from server.tournament.runtime import TournamentRuntime


class Admitted(NamedTuple):
    runtime: TournamentRuntime
    player: str | None
    table: int | None


class Turned(NamedTuple):
    """A session refused: the error message to send, then the close code and reason."""

    message: bytes
    code: int
    reason: str


def admit(server: Server, tournament: str, query: Mapping[str, str]) -> Admitted | Turned:
    """A player (``?token=``, maybe ``&entry=`` another entry of theirs) or an observer (``?table=``)."""
    runtime = server.tournaments.get(tournament)
    token = query.get("token")
    player = runtime.player_for(token) if runtime is not None and token else None
    entry = query.get("entry")  # another entry of the same person (a multi-entry final)
    if runtime is not None and player is not None and entry and entry in runtime.director.stacks \
            and runtime.director.person(entry) == runtime.director.person(player):
        player = entry
    if runtime is None or (token and player is None):
        reason = "no such tournament" if runtime is None else "unknown player token"
        return Turned(error_message("refused", reason), 4404 if runtime is None else 4401, reason)
    if player is not None and not server.connection_rate(runtime.id, player).allow():
        return Turned(error_message("too_many_connections", "reconnecting too fast: wait"), 4029,
                      "reconnecting too fast")
    try:
        table = table_number(query.get("table"))
    except Refused as refusal:
        return Turned(error_message(refusal.code, refusal.message), 4400, refusal.message)
    return Admitted(runtime, player, table)


def leave(runtime: TournamentRuntime, connection: Connection) -> None:
    """The session is over: presence, a deal waiting on the player (H.36), the board's feed."""
    runtime.disconnect(connection)
    runtime.board.subscribers.discard(connection)


def lobby_connection(server: Server, connection: Connection) -> Connection:
    """A lobby session (built with ``lobby=True``), subscribed to the feed: any message it sends asks for the
    snapshot again."""
    server.lobby.subscribe(connection)
    return connection


def lobby_message(server: Server, connection: Connection, data: bytes) -> None:
    if len(data) > MAX_MESSAGE_BYTES:
        connection.drop(CLOSE_TOO_BIG, f"message over {MAX_MESSAGE_BYTES} bytes")
    elif not connection.rate_limit.allow():
        connection.drop(CLOSE_FLOOD, "too many messages")
    else:
        server.lobby.subscribe(connection)


def receive(runtime: TournamentRuntime, connection: Connection, data: bytes, metrics: Metrics) -> None:
    """One incoming message: limits first, then a clear error or the command, and never an exception."""
    if connection.closed:
        return
    metrics.messages_received.inc()
    if len(data) > MAX_MESSAGE_BYTES:
        connection.drop(CLOSE_TOO_BIG, f"message over {MAX_MESSAGE_BYTES} bytes")
        return
    if not connection.rate_limit.allow():
        connection.drop(CLOSE_FLOOD, "too many messages")
        return
    try:
        request = incoming_decoder.decode(data)
    except msgspec.DecodeError as problem:
        connection.send(error_message(*describe_decode_error(problem)))
        return
    started = time.perf_counter()
    try:
        handle(runtime, connection, request)
    except Refused as refusal:
        connection.send(error_message(refusal.code, refusal.message))
    else:
        if isinstance(request, Act):
            metrics.acted(runtime.id, time.perf_counter() - started)


def handle(runtime: TournamentRuntime, connection: Connection, request: Incoming) -> None:
    if isinstance(request, Sync):
        runtime.streams.send_snapshot(connection)
    elif isinstance(request, Watch):
        runtime.watch(connection, request.table)
    elif isinstance(request, Follow):
        runtime.board.subscribe(connection)
    elif connection.player is None:
        if isinstance(request, Say):
            raise Refused("observer", "observers read the table's chat; only its players write in it")
        raise Refused("observer", "observers cannot act; connect with your player token")
    elif isinstance(request, Say):
        runtime.streams.chat(connection.player, request.text)
    elif isinstance(request, Act):
        runtime.player_act(connection.player, request, connection)
    elif isinstance(request, Back):
        runtime.player_back(connection.player)
    elif isinstance(request, SitOut):
        runtime.tables.sit_out_next(connection.player, request.when)
    else:
        runtime.player_money(connection.player, request)




def table_number(text: str | None) -> int | None:
    """A ``table`` parameter: a table number as ASCII digits, or None when absent; anything else is refused."""
    if text is None or text == "":
        return None
    if not (text.isascii() and text.isdigit() and len(text) <= 9):
        raise Refused("bad_request", "table: a table number")
    return int(text)
