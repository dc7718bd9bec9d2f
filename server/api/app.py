"""The Starlette app: the REST endpoints, the websocket, and the one table of refusal codes to HTTP statuses.

docs/protocol.md describes the wire; /api/openapi.json, generated from the
``OPERATIONS`` below, describes the REST API.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from functools import partial
from collections.abc import AsyncIterator
from typing import Annotated, Literal, TypedDict

import msgspec
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket

from bots.client import FAULTS
from bots.lab import Comparison, Estimate, compare, estimate, expected_field, fit_structure
from bots.labreport import compare_rows
from bots.strategies import DEFAULT_MIX, STRATEGIES, parse_mix
from engine.director import Status
from engine.deals import Figures
from engine.history import hand_seat, redact
from engine.structure import (
    Definition, DefinitionError, EventOptions, Speed, generate_structure, load_definition,
)
from engine.wire import Details, HandSeat, Summary
from server.tournament import hosted
from server.tournament.clock import Clock
from server.api.admin import (
    AnnounceRequest, BreakRequest, CancellationPreview, CancelRequest, ClockRequest, CompensateRequest, DirectorLog,
    FailureRequest, HandForHandRequest, IncidentRequest, LevelRequest, MoveRequest, SeatDone, SeatRequest,
    WithdrawMoveRequest, WithdrawRequest, adjust_clock, announce, balance_now, call_break, cancel, cancellation_preview,
    compensate, declare_failure, director_log, edit_level, hand_for_hand, move_player, open_registration, pause,
    record_incident, resume, seat_command, start, withdraw_balance, withdraw_move, withdraw_prize,
)
from server.api.edge import BodyLimit, CountRequests, Settings, bearer, body_of, client, refused, reply, web_client
from server.errors import Refused, refusals
from server.api.metrics import CONTENT_TYPE as METRICS_CONTENT_TYPE
from server.api.openapi import Operation, document
from server.tournament.persistence import audit_lines
from server.api.process import JoinCluster, Server, is_admin, require_admin, runtime_of, server_of
from server.processes import Process
from server.api.sockets import Turned, admit, leave, lobby_connection, lobby_message, receive, table_number
from server.api.socketwire import WebSocketProtocol, serve, wire_of


# The websocket transport: the protocol the table streams write through (server/hub.py), a frame limit
# over the app's own message limit, and no per-message compression, which cost a quarter of the server's time under a
# swarm (docs/performance.md) for small JSON messages.
class UvicornWebsockets(TypedDict):
    ws: type[WebSocketProtocol]
    ws_max_size: int
    ws_per_message_deflate: bool


def uvicorn_websockets() -> UvicornWebsockets:
    """Uvicorn's websocket options for this app (``uvicorn.run(app, **uvicorn_websockets())``)."""
    return UvicornWebsockets(ws=WebSocketProtocol, ws_max_size=65536, ws_per_message_deflate=False)

# ------------------------------------------------------------------ request and response bodies


class RegisterRequest(msgspec.Struct, forbid_unknown_fields=True):
    name: Annotated[str, msgspec.Meta(min_length=1, max_length=40)]


class BotsRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Fill a tournament with bots that play over the websocket (``mix`` as in ``mttsim simulate --mix``)."""

    count: Annotated[int, msgspec.Meta(ge=1, le=10_000)]
    mix: str | None = None
    think_min: Annotated[float, msgspec.Meta(ge=0, le=60)] = 0.3
    think_max: Annotated[float, msgspec.Meta(ge=0, le=60)] = 1.5
    reentry: Annotated[float, msgspec.Meta(ge=0, le=1)] = 0.0  # the chance a bot that is out re-enters


MAX_ESTIMATED_PLAYERS = 3000  # three runs take about 5 s on this machine's two cores


class StructureRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A few numbers for a whole definition (``mttsim structure``)."""

    players: Annotated[int, msgspec.Meta(ge=2, le=1_000_000)]
    hours: Annotated[float, msgspec.Meta(gt=0, le=72)]
    stack: Annotated[int, msgspec.Meta(ge=100, le=10**9)]
    speed: Speed = "regular"
    ante: Literal["bb", "classic", "none"] = "bb"
    options: EventOptions = EventOptions()  # the event's: name, level length, seats, money, late entry, breaks
    # The levels' pace fitted on three quick simulations, so that the length the structure states is within 5%
    # of them (bots.lab.fit_structure): the admin's, like an estimate, and for a field an estimate takes.
    fit: bool = False


class EstimateRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A definition to try before creating it: quick simulations of ``players`` entries (a lobby's form waits
    for the answer, so the field is bounded)."""

    definition: msgspec.Raw
    players: Annotated[int, msgspec.Meta(ge=2, le=MAX_ESTIMATED_PLAYERS)]
    runs: Annotated[int, msgspec.Meta(ge=1, le=5)] = 3


class CompareRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Structures to try side by side on the same seeds (the lobby's form: the one being edited against the one it
    started from)."""

    definitions: Annotated[list[msgspec.Raw], msgspec.Meta(min_length=2, max_length=4)]
    players: Annotated[int, msgspec.Meta(ge=2, le=MAX_ESTIMATED_PLAYERS)]
    # At least five: three swung a change by half again (+31% where eight runs said +19%); each cell shows p10-p90.
    runs: Annotated[int, msgspec.Meta(ge=5, le=8)] = 5


class Compared(msgspec.Struct):
    """The structures' headline figures side by side as the report's rows (``header``, ``rows``: median
    [p10-p90] and the change from the first), and each structure's lab report."""

    header: list[str]
    rows: list[list[str]]
    comparison: Comparison


class Created(msgspec.Struct):
    id: str


class Registered(msgspec.Struct):
    player_id: str
    token: str


class NewEntry(msgspec.Struct):
    """A re-entry's id; the player's token now leads to it."""

    player_id: str


class Unregistered(msgspec.Struct):
    refund_cents: int


class BotsAdded(msgspec.Struct):
    players: list[str]


class ListedHand(msgspec.Struct):
    """A finished hand; in a list of one player's hands, ``seat`` is their line of it as the asker may see it
    (their own cards with their token or the admin's)."""

    hand: int
    table: int
    players: list[str]
    seat: HandSeat | None = None


class HandList(msgspec.Struct):
    hands: list[ListedHand]


class Health(msgspec.Struct):
    """``storage``: 'ok' or what its check found; ``damaged``: tournament -> why it was not restored."""

    storage: str
    damaged: dict[str, str]


# ------------------------------------------------------------------ endpoints


async def list_tournaments(request: Request) -> Response:
    return reply([runtime.summary() for runtime in server_of(request).tournaments.values()])


async def create_tournament(request: Request) -> Response:
    require_admin(request)
    server = server_of(request)
    try:
        definition = load_definition(await request.body(), toml="toml" in request.headers.get("content-type", ""))
    except DefinitionError as problem:
        raise Refused("bad_definition", str(problem)) from None
    return reply(Created(server.create(definition).id), 201)


async def structure(request: Request) -> Response:
    """A whole definition from a few numbers, to edit and create (docs/config.md); changes nothing."""
    body = await body_of(request, StructureRequest)
    options = msgspec.structs.replace(body.options, ante=body.ante)
    try:
        if not body.fit:
            return reply(generate_structure(body.players, body.hours, body.stack, speed=body.speed, options=options))
        require_admin(request)
        if body.players > MAX_ESTIMATED_PLAYERS:
            raise Refused("bad_request", f"players: at most {MAX_ESTIMATED_PLAYERS:,} to fit on simulations")
        async with server_of(request).estimating:
            fitted, _ = await asyncio.to_thread(fit_structure, body.players, body.hours, body.stack,
                                                speed=body.speed, options=options, jobs=3, apart=True)
        return reply(fitted)
    except DefinitionError as problem:
        raise Refused("bad_request", str(problem)) from None


async def estimate_structure(request: Request) -> Response:
    """The levels with the clock, the field and the average stack to expect, and the duration, from quick
    simulations in other processes (the tables' loop goes on meanwhile); one estimate at a time."""
    require_admin(request)
    body = await body_of(request, EstimateRequest)
    try:
        definition = load_definition(bytes(body.definition))
    except DefinitionError as problem:
        raise Refused("bad_definition", str(problem)) from None
    if body.players > definition.max_players:
        raise Refused("bad_request", f"players: at most the definition's max_players ({definition.max_players})")
    async with server_of(request).estimating:
        made = await asyncio.to_thread(estimate, definition, body.players, body.runs, jobs=body.runs, apart=True)
    return reply(made)


async def compare_structures(request: Request) -> Response:
    """Two structures or more on the same quick simulations, one at a time as estimates are."""
    require_admin(request)
    body = await body_of(request, CompareRequest)
    try:
        definitions = [load_definition(bytes(given)) for given in body.definitions]
    except DefinitionError as problem:
        raise Refused("bad_definition", str(problem)) from None
    if body.players > min(definition.max_players for definition in definitions):
        raise Refused("bad_request", "players: at most each definition's max_players")
    async with server_of(request).estimating:
        fields = [expected_field(definition, body.players) for definition in definitions]
        comparison = await asyncio.to_thread(compare, definitions, fields, range(1, body.runs + 1),
                                             jobs=body.runs, apart=True)
    header, rows = compare_rows(comparison)
    return reply(Compared(header, rows, comparison))


async def show_tournament(request: Request) -> Response:
    page = request.query_params.get("page", "0")
    if not (page.isascii() and page.isdigit() and len(page) <= 6):
        raise Refused("bad_request", "page: a page number, from 0")
    return Response(runtime_of(request).details_json(int(page)), media_type="application/json")


async def register(request: Request) -> Response:
    runtime = runtime_of(request)
    body = await body_of(request, RegisterRequest)
    player, token = runtime.register(body.name, another_of=bearer(request))
    return reply(Registered(player, token), 201)


async def reenter(request: Request) -> Response:
    return reply(NewEntry(runtime_of(request).reenter(bearer(request) or "")), 201)


async def unregister(request: Request) -> Response:
    return reply(Unregistered(runtime_of(request).unregister(bearer(request) or "")))


async def add_bots(request: Request) -> Response:
    require_admin(request)
    runtime = runtime_of(request)
    body = await body_of(request, BotsRequest, empty=b"{}")
    try:
        mix = parse_mix(body.mix, [*STRATEGIES, *FAULTS]) if body.mix else DEFAULT_MIX
    except ValueError as problem:
        raise Refused("bad_request", str(problem)) from None
    free = runtime.definition.max_players - len(runtime.director.entries)
    if runtime.director.status is not Status.REGISTER and not runtime.director.entries_open("late_registration"):
        raise Refused("refused", f"bots register only in Register or late registration; the tournament is "
                                 f"{runtime.director.status}")
    if body.count > free:  # all or none: a partial field would surprise whoever asked
        raise Refused("refused", f"{body.count} bots asked for, {free} seats left")
    added = hosted.add_bots(runtime, body.count, own_ws_url(request), mix=mix, think=(body.think_min, body.think_max),
                            rng=random.Random(), reentry=body.reentry)
    return reply(BotsAdded(added), 201)


def own_ws_url(request: Request) -> str:
    """Where the server's own bots reach it: the address it was told (``mttsim serve`` does), or the one this
    request arrived on, never the Host header a client sent."""
    settings_url = server_of(request).settings.ws_url
    if settings_url is not None:
        return settings_url
    host, port = request.scope["server"] or ("127.0.0.1", 8000)
    return f"ws://{'127.0.0.1' if host in ('0.0.0.0', '::', '') else host}:{port}"


async def deal_figures(request: Request) -> Response:
    """A deal's figures at the final table: stacks, what ICM and a chip chop pay, the sum to split (``keep_cents``
    kept in play)."""
    runtime = runtime_of(request)
    keep = request.query_params.get("keep_cents", "0")
    if not (keep.isascii() and keep.isdigit() and len(keep) <= 12):
        raise Refused("bad_request", f"keep_cents: a whole number of cents, not {keep!r}")
    with refusals():
        return reply(runtime.director.deal_figures(int(keep)))


async def hand_list(request: Request) -> Response:
    """Finished hands, optionally of one ``player`` or at one ``table``."""
    runtime = runtime_of(request)
    table = table_number(request.query_params.get("table"))
    storage = server_of(request).storage
    player = request.query_params.get("player")
    rows = storage.hands(runtime.id, player, table)
    if player is None:
        return reply(HandList([ListedHand(row.hand, row.table, row.players) for row in rows]))
    admin = is_admin(request)
    token = bearer(request)
    viewer = runtime.player_for(token) if token and not admin else None
    listed = []
    for row in rows:
        text = storage.hand(runtime.id, row.hand) or ""
        listed.append(ListedHand(row.hand, row.table, row.players,
                                 hand_seat(text if admin else redact(text, viewer), player)))
    return reply(HandList(listed))


async def hand_history(request: Request) -> Response:
    """One finished hand as PHH (the poker hand history format PokerKit reads)."""
    runtime = runtime_of(request)
    number = request.path_params["hand"]
    # A number SQLite's 64-bit integers cannot hold names no hand either (it was a 500); the length is
    # looked at first, as int() refuses a string of over 4,300 digits with an error of its own.
    text = server_of(request).storage.hand(runtime.id, int(number)) \
        if number.isascii() and number.isdigit() and len(number) <= 19 and int(number) < 2**63 else None
    if text is None:
        raise Refused("no_finished_hand", f"no finished hand {number!r} in this tournament")
    if not is_admin(request):  # hole cards: only those shown at the table, and the player's own
        token = bearer(request)
        text = redact(text, runtime.player_for(token) if token else None)
    return PlainTextResponse(text, media_type="text/plain; charset=utf-8")


async def metrics(request: Request) -> Response:
    require_admin(request)
    return Response(server_of(request).metrics.text(), media_type=METRICS_CONTENT_TYPE)


class Cluster(msgspec.Struct):
    processes: list[Process]


async def cluster(request: Request) -> Response:
    """The processes of the cluster, as the director heard their heartbeats; one server alone lists itself."""
    require_admin(request)
    server = server_of(request)
    return reply(Cluster(server.cluster.processes()))


class Gateways(msgspec.Struct):
    gateways: list[str]


async def gateways(request: Request) -> Response:
    """Where a client may connect: the cluster's gateways heard from now (a page asks once, while its own
    gateway is there, to go on through another when it is gone): those the director has checked answer at the
    address they advertise (server/cluster/vouching.py). One server alone lists none: the page's own address is
    the only one."""
    return reply(Gateways(server_of(request).cluster.listed_gateways()))


async def health(request: Request) -> Response:
    """What the server found wrong with its storage at start, and which tournaments it could not bring back."""
    server = server_of(request)
    return reply(Health(server.storage.health(), dict(server.damaged)))


async def event_log(request: Request) -> Response:
    """The tournament's director events, one JSON object a line, as ``mttsim simulate --events-out`` writes
    them: its audit trail, running, finished or cancelled, and across restarts."""
    require_admin(request)
    runtime = runtime_of(request)
    storage = server_of(request).storage

    async def lines() -> AsyncIterator[bytes]:
        chunk: list[bytes] = []
        opened = runtime.definition.registration_opens_at is None  # at creation, not by a record
        for line in audit_lines(storage.records(runtime.id), opened_at_creation=opened):
            chunk.append(line)
            if len(chunk) == 5_000:  # the loop's other work goes on between chunks
                yield b"".join(chunk)
                chunk = []
                await asyncio.sleep(0)
        yield b"".join(chunk)

    return StreamingResponse(lines(), media_type="application/x-ndjson")


async def openapi(request: Request) -> Response:
    return reply(document(OPERATIONS))


OPERATIONS = [
    Operation(method="GET", path="/metrics", endpoint=metrics, who="admin", refusals=(),
              media_type=METRICS_CONTENT_TYPE,
              summary="Prometheus metrics: tournaments by status, tables, players connected and left, actions, "
                      "action time and event lag histograms (docs/deployment.md)"),
    Operation(method="GET", path="/api/cluster", endpoint=cluster, response=Cluster, who="admin", refusals=(),
              summary="Every process of the cluster: role, pid, host, start, the tables each worker holds "
                      "(one server alone: itself)"),
    Operation(method="GET", path="/api/gateways", endpoint=gateways, response=Gateways, refusals=(),
              summary="The cluster's gateways, where a client may connect (one server alone: none)"),
    Operation(method="GET", path="/api/health", endpoint=health, response=Health, refusals=(),
              summary="The storage's state, and the tournaments a damaged journal kept from coming back"),
    Operation(method="GET", path="/api/tournaments", endpoint=list_tournaments, response=list[Summary],
              summary="List tournaments", refusals=()),
    Operation(method="POST", path="/api/tournaments", endpoint=create_tournament, body=Definition, response=Created,
              status=201, who="admin", summary="Create a tournament from its definition (docs/config.md)",
              refusals=()),
    Operation(method="POST", path="/api/structures", endpoint=structure, body=StructureRequest, response=Definition,
              refusals=(400,), summary="A whole definition (levels, breaks, payouts) from players, hours and stack"),
    Operation(method="POST", path="/api/estimates", endpoint=estimate_structure, body=EstimateRequest,
              response=Estimate, who="admin", refusals=(400,),
              summary="A definition's levels with their clock time, the field and average stack in big blinds to "
                      "expect at each, and the duration, from quick simulations (at most 3,000 players)"),
    Operation(method="POST", path="/api/comparisons", endpoint=compare_structures, body=CompareRequest,
              response=Compared, who="admin", refusals=(400,),
              summary="Two structures or more played on the same quick simulations: their duration, bubble, final "
                      "table and depth side by side, with the change from the first (at most 3,000 players)"),
    Operation(method="GET", path="/api/tournaments/{id}", endpoint=show_tournament, response=Details,
              query=(("page", int),), refusals=(404,),
              summary="Status, level and blinds, tables and stacks, payouts, hand-for-hand; the long lists a page "
                      "at a time (?page=N, `pages` says how many)"),
    Operation(method="POST", path="/api/tournaments/{id}/register", endpoint=register, body=RegisterRequest,
              response=Registered, status=201,
              summary="Register; the token is the player's key to their seat (with a player's token: another entry)"),
    Operation(method="POST", path="/api/tournaments/{id}/reenter", endpoint=reenter, response=NewEntry, status=201,
              who="player", summary="Re-enter after elimination while re-entry is open: a new entry, stack and seat, "
                                    "buy-in and fee paid again; the token now leads to the new entry"),
    Operation(method="POST", path="/api/tournaments/{id}/unregister", endpoint=unregister, response=Unregistered,
              who="player", summary="Unregister during Register: buy-in and fee refunded"),
    Operation(method="POST", path="/api/tournaments/{id}/bots", endpoint=add_bots, body=BotsRequest,
              body_required=False, response=BotsAdded, status=201, who="admin",
              summary="Fill with bots that play over the websocket"),
    Operation(method="GET", path="/api/tournaments/{id}/deal-figures", endpoint=deal_figures, response=Figures,
              query=(("keep_cents", int),), refusals=(400, 404, 409),
              summary="A deal's figures at the final table: each stack, what ICM and a chip chop would pay, and the "
                      "sum to split beyond keep_cents (the deal form shows them); 409 when no deal may be made"),
    Operation(method="GET", path="/api/tournaments/{id}/hands", endpoint=hand_list, response=HandList,
              query=(("player", str), ("table", int)), refusals=(404,),
              summary="Finished hands, optionally of ?player= or at ?table="),
    Operation(method="GET", path="/api/tournaments/{id}/hands/{hand}", endpoint=hand_history, refusals=(404,),
              summary="One finished hand as PHH text: hole cards shown at the table, a player's own (with their "
                      "token), every one with the admin token"),
    Operation(method="POST", path="/api/tournaments/{id}/compensate", endpoint=compensate, body=CompensateRequest,
              response=Details, who="admin",
              summary="Pay a player a compensation from the house, with its reason (seed 004)"),
    Operation(method="POST", path="/api/tournaments/{id}/failure", endpoint=declare_failure, body=FailureRequest,
              response=Details, who="admin",
              summary="Declare a failure the tournament cannot resume from: cancelled by its refund policy, on the "
                      "record with the stage it was judged in, the refunds and the date they are due (seed 000)"),
    Operation(method="POST", path="/api/tournaments/{id}/incidents", endpoint=record_incident, body=IncidentRequest,
              response=Details, who="admin",
              summary="Put one player's case on the record: what went wrong and the director's decision (seed 004); "
                      "a compensation may name it"),
    Operation(method="POST", path="/api/tournaments/{id}/withdraw", endpoint=withdraw_prize, body=WithdrawRequest,
              response=Details, who="admin",
              summary="Take back a prize paid in error, whole or in part; a seat withdrawn is unregistered from its "
                      "tournament if that has not started"),
    Operation(method="GET", path="/api/tournaments/{id}/events", endpoint=event_log, who="admin", refusals=(404,),
              media_type="application/x-ndjson",
              summary="The director's events, one JSON object a line (application/x-ndjson), as mttsim simulate "
                      "--events-out writes them (docs/events.md): the audit trail"),
    Operation(method="GET", path="/api/tournaments/{id}/cancellation", endpoint=cancellation_preview,
              response=CancellationPreview, who="admin", query=(("policy", Literal["A", "B"]), ("entry_into", str)),
              summary="Preview the refunds a cancellation would pay now (rules.md I); ?policy=A or B"),
    Operation(method="POST", path="/api/tournaments/{id}/open", endpoint=open_registration, response=Summary,
              who="admin", summary="Open an announced (Waiting) tournament for registration now"),
    Operation(method="POST", path="/api/tournaments/{id}/start", endpoint=start, response=Summary, who="admin",
              summary="Start: seats are drawn, or the tournament is cancelled below min_players"),
    Operation(method="POST", path="/api/tournaments/{id}/pause", endpoint=pause, response=Summary, who="admin",
              summary="Pause: no new hands and the level clock stops; hands in progress finish"),
    Operation(method="POST", path="/api/tournaments/{id}/resume", endpoint=resume, response=Summary, who="admin",
              summary="Resume after a pause"),
    Operation(method="POST", path="/api/tournaments/{id}/cancel", endpoint=cancel, body=CancelRequest,
              body_required=False, response=Summary, who="admin",
              summary="Cancel: full refunds before the start; while running, the refund policy (the tournament's, "
                      "or {policy} in the body) pays out and hands in progress are void"),
    Operation(method="POST", path="/api/tournaments/{id}/clock", endpoint=adjust_clock, body=ClockRequest,
              response=Summary, who="admin", refusals=(400, 404, 409),
              summary="Add seconds to the level or break under way, or take them away (negative)"),
    Operation(method="POST", path="/api/tournaments/{id}/break", endpoint=call_break, body=BreakRequest,
              response=Summary, who="admin", refusals=(400, 404, 409),
              summary="A break now: hands in progress finish, and the level goes on after it where it stood"),
    Operation(method="POST", path="/api/tournaments/{id}/hand-for-hand", endpoint=hand_for_hand,
              body=HandForHandRequest, response=Summary, who="admin", refusals=(400, 404, 409),
              summary="Hand-for-hand on the director's word (on), or let go (off: as the pay jump calls for it)"),
    Operation(method="POST", path="/api/tournaments/{id}/seat", endpoint=seat_command, body=SeatRequest,
              response=SeatDone, who="admin", refusals=(400, 404, 409),
              summary="Sit a player out, or remove them, when their hand ends if they are in one (their chips "
                      "leave play; refund: their buy-in and fee back, before prizes are paid)"),
    Operation(method="POST", path="/api/tournaments/{id}/levels/{level}", endpoint=edit_level, body=LevelRequest,
              response=Summary, who="admin", refusals=(400, 404, 409),
              summary="Edit a level not yet started (numbered from 1): blinds, ante and minutes; 409 for the level "
                      "under way or one played. Journaled: a restart keeps it"),
    Operation(method="POST", path="/api/tournaments/{id}/move", endpoint=move_player, body=MoveRequest,
              response=Summary, who="admin", refusals=(400, 404, 409),
              summary="Move a player to table N, to its seat posting the big blind soonest: now between their "
                      "hands, else queued until their hand (or the hand-for-hand round) ends (queued_moves in the "
                      "summary); 409 where the balancing rules forbid it (rules.md A.3-A.4, M.50), with the rule"),
    Operation(method="POST", path="/api/tournaments/{id}/withdraw-move", endpoint=withdraw_move,
              body=WithdrawMoveRequest, response=Summary, who="admin", refusals=(400, 404, 409),
              summary="Take back a move queued for the end of the player's hand"),
    Operation(method="POST", path="/api/tournaments/{id}/balance", endpoint=balance_now, response=Summary,
              who="admin", refusals=(404, 409),
              summary="Balance now: the moves balancing makes (A.3-A.4), queued while the tables they come from are "
                      "in a hand (balance_queued in the summary), or 409 saying why there is none"),
    Operation(method="POST", path="/api/tournaments/{id}/withdraw-balance", endpoint=withdraw_balance,
              response=Summary, who="admin", refusals=(404, 409),
              summary="Take back a balance queued for the end of a hand"),
    Operation(method="GET", path="/api/tournaments/{id}/director-log", endpoint=director_log, response=DirectorLog,
              who="admin", refusals=(404,),
              summary="The director's actions from the audit trail: when, what, whom, and what came of it"),
    Operation(method="POST", path="/api/tournaments/{id}/announce", endpoint=announce, body=AnnounceRequest,
              response=Summary, who="admin", refusals=(400, 404),
              summary="Tell every page of the tournament something (the last ten are kept for pages that open later)"),
]


# ------------------------------------------------------------------ the websocket


async def play(websocket: WebSocket) -> None:
    """A player (``?token=``) or an observer (``?table=``) on a tournament's tables."""
    server = server_of(websocket)
    await websocket.accept()
    admitted = admit(server, websocket.path_params["id"], websocket.query_params)
    if isinstance(admitted, Turned):
        await websocket.send_text(admitted.message.decode())
        await websocket.close(admitted.code, admitted.reason)
        return
    runtime, wire = admitted.runtime, wire_of(websocket)
    connection = client(server.settings, server.outbound, websocket.close, wire, player=admitted.player)
    runtime.connect(connection, admitted.table)
    await serve(connection, wire, lambda data: receive(runtime, connection, data, server.metrics),
                partial(leave, runtime, connection))


async def lobby_socket(websocket: WebSocket) -> None:
    """The lobby's live feed: every tournament's summary, then what changes (server/tournament/feeds.py). Any message
    asks for the snapshot again."""
    server = server_of(websocket)
    await websocket.accept()
    wire = wire_of(websocket)
    connection = client(server.settings, server.outbound, websocket.close, wire, lobby=True)
    lobby_connection(server, connection)
    await serve(connection, wire, lambda data: lobby_message(server, connection, data),
                partial(server.lobby.subscribers.discard, connection))


# ------------------------------------------------------------------ the application


@contextlib.asynccontextmanager
async def lifespan(app: Starlette) -> AsyncIterator[None]:
    server: Server = app.state.server
    join: JoinCluster | None = app.state.join_cluster
    if join is not None:  # before the restore, so that restored tournaments' tables go to the workers
        server.cluster = await join(server, app)
    await server.cluster.start()
    for stored in server.storage.tournaments():  # a restart: open tournaments play on, closed ones are shown
        if stored.damage is not None:  # never an older state shown as current: reported, not restored
            server.damaged[stored.id] = stored.damage
            continue
        try:
            server.restore(stored)
        except Exception as error:  # one tournament's broken journal must not keep the others down
            logging.getLogger("mttsim.server").exception("tournament %s could not be restored", stored.id)
            server.damaged[stored.id] = f"its journal does not replay: {error}"
    server.damaged.update(server.storage.damaged())
    try:
        yield
    finally:
        await asyncio.gather(*(runtime.shutdown() for runtime in server.tournaments.values()))
        await server.cluster.stop()
        server.storage.close()


def create_app(settings: Settings, join_cluster: JoinCluster | None = None, clock: Clock | None = None) -> Starlette:
    """One server's application; with ``join_cluster`` (server/cluster/service.py's ``join``, given by the command
    line), the director of a cluster, whose tables the workers play. ``clock``: the time its tournaments' decisions
    and clocks run on (a test's own, server/tournament/clock.py); the event loop's unless told."""
    routes: list[BaseRoute] = [Route("/api/openapi.json", openapi, methods=["GET"])]
    routes += [Route(op.path, op.endpoint, methods=[op.method]) for op in OPERATIONS]
    routes.append(WebSocketRoute("/ws/tournaments/{id}", play))
    routes.append(WebSocketRoute("/ws/lobby", lobby_socket))
    routes += web_client()
    server = Server(settings, clock)
    requests = server.metrics.http_requests

    def counted(method: str, route: str, status: int) -> None:
        requests.labels(method, route, str(status)).inc()

    app = Starlette(routes=routes, lifespan=lifespan, exception_handlers={Refused: refused},
                    middleware=[Middleware(CountRequests, counted=counted), Middleware(BodyLimit)])
    app.state.server = server
    app.state.join_cluster = join_cluster
    return app
