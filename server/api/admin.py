"""The director's commands over REST: the tournament's life (open, start, pause, resume, cancel), the console (time,
breaks, hand-for-hand, a player's seat, announcements) and the money corrections. Every one needs the admin token.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Literal

import msgspec
from starlette.requests import Request
from starlette.responses import Response

from engine.refunds import RefundPolicy
from engine.wire import RefundRow
from server.tournament import chaining
from server.tournament.director_log import LogLine, actions_of
from server.tournament import records as r
from server.errors import Refused, refusals
from server.api.edge import Body, body_of, reply
from server.api.process import require_admin, runtime_of, server_of
from server.tournament.runtime import TournamentRuntime


class CancelRequest(msgspec.Struct, forbid_unknown_fields=True):
    """An optional refund policy for this cancellation; without one, the tournament's own applies.
    ``entry_into`` (a satellite): refunds covering that tournament's buy-in and fee become entries there.
    ``reschedule_at`` (a freeroll before its final stage): nothing of the prize pool is paid, and the same
    tournament is created to start then, with the players still in registered under their tokens."""

    policy: RefundPolicy | None = None
    entry_into: str | None = None
    # A freeroll played again for the same players (seed 004): the new start, in seconds since the epoch.
    reschedule_at: Annotated[float, msgspec.Meta(gt=0, le=10**11)] | None = None


class CompensateRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A compensation from the house to a player (seed 004): ``cents`` and why."""

    player: str
    cents: Annotated[int, msgspec.Meta(gt=0, le=10**12)]
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    incident: Annotated[int, msgspec.Meta(ge=1)] | None = None  # the incident on the record it is for


class FailureRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A failure the tournament cannot resume from (seed 000): what happened; its refunds are due within
    ``due_hours``; ``policy`` overrides the definition's."""

    what: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    due_hours: Annotated[float, msgspec.Meta(gt=0, le=24 * 365)] = 48.0
    policy: RefundPolicy | None = None


class IncidentRequest(msgspec.Struct, forbid_unknown_fields=True):
    """One player's case (seed 004): who, what went wrong, the director's decision."""

    player: str
    what: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]
    decision: Annotated[str, msgspec.Meta(min_length=1, max_length=500)]


class WithdrawRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A prize paid in error taken back: all of it, or ``cents`` of it; a seat withdrawn is unregistered."""

    player: str
    reason: Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    cents: Annotated[int, msgspec.Meta(gt=0, le=10**12)] | None = None


class ClockRequest(msgspec.Struct, forbid_unknown_fields=True):
    """Seconds added to (or, negative, taken from) the level or break under way."""

    seconds: Annotated[float, msgspec.Meta(ge=-86_400, le=86_400)]


class BreakRequest(msgspec.Struct, forbid_unknown_fields=True):
    minutes: Annotated[float, msgspec.Meta(gt=0, le=1440)]


class HandForHandRequest(msgspec.Struct, forbid_unknown_fields=True):
    on: bool


class SeatRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A player's seat: sit them out (the clock acts for them until they come back), or remove them from the
    tournament, their buy-in and fee refunded or not."""

    player: str
    action: Literal["sit_out", "remove"]
    refund: bool = False


class SeatDone(msgspec.Struct):
    """What a seat command did: ``removed_when_hand_ends`` when the player was in a hand."""

    outcome: Literal["sitting_out", "removed", "removed_when_hand_ends"]


class AnnounceRequest(msgspec.Struct, forbid_unknown_fields=True):
    text: Annotated[str, msgspec.Meta(min_length=1, max_length=300)]


class LevelRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A level not yet started as it is to be played: its blinds and ante, and (a timed level) its minutes;
    without ``minutes`` it keeps its length."""

    small_blind: Annotated[int, msgspec.Meta(ge=0, le=10**12)]
    big_blind: Annotated[int, msgspec.Meta(gt=0, le=10**12)]
    ante: Annotated[int, msgspec.Meta(ge=0, le=10**12)] = 0
    minutes: Annotated[float, msgspec.Meta(gt=0, le=1440)] | None = None


class WithdrawMoveRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A move queued for the end of ``player``'s hand, taken back."""

    player: str


class MoveRequest(msgspec.Struct, forbid_unknown_fields=True):
    """A player moved, between hands, to an open seat of ``table`` (the one posting the big blind soonest)."""

    player: str
    table: Annotated[int, msgspec.Meta(ge=1)]


class DirectorLog(msgspec.Struct):
    actions: list[LogLine]


class CancellationPreview(msgspec.Struct):
    refunds: list[RefundRow]


def admin_command(request: Request, command: Callable[[TournamentRuntime], object]) -> Response:
    """An admin command without a body; the answer is the tournament's summary after it."""
    require_admin(request)
    runtime = runtime_of(request)
    with logged_refusals(request, runtime):
        command(runtime)
    return reply(runtime.summary())


async def open_registration(request: Request) -> Response:
    return admin_command(request, TournamentRuntime.open_registration)


async def start(request: Request) -> Response:
    return admin_command(request, TournamentRuntime.start)


async def pause(request: Request) -> Response:
    return admin_command(request, TournamentRuntime.pause)


async def resume(request: Request) -> Response:
    return admin_command(request, TournamentRuntime.resume)


async def cancel(request: Request) -> Response:
    require_admin(request)
    runtime = runtime_of(request)
    body = await body_of(request, CancelRequest, empty=b"{}")
    if body.reschedule_at is None:
        runtime.cancel(body.policy, body.entry_into)
    else:
        chaining.reschedule(runtime, server_of(request).create, body.policy, body.reschedule_at)
    return reply(runtime.summary())


async def compensate(request: Request) -> Response:
    return await console_command(
        request, CompensateRequest,
        lambda runtime, body: runtime.compensate(body.player, body.cents, body.reason, body.incident),
        answer=TournamentRuntime.details)


async def declare_failure(request: Request) -> Response:
    return await console_command(request, FailureRequest,
                                 lambda runtime, body: runtime.declare_failure(body.what, body.due_hours, body.policy),
                                 answer=TournamentRuntime.details)


async def record_incident(request: Request) -> Response:
    return await console_command(request, IncidentRequest,
                                 lambda runtime, body: runtime.record_incident(body.player, body.what, body.decision),
                                 answer=TournamentRuntime.details)


async def withdraw_prize(request: Request) -> Response:
    def withdraw(runtime: TournamentRuntime, body: WithdrawRequest) -> None:
        chaining.withdraw_prize(runtime, body.player, body.cents, body.reason)

    return await console_command(request, WithdrawRequest, withdraw, answer=TournamentRuntime.details)


async def console_command(request: Request, kind: type[Body], command: Callable[[TournamentRuntime, Body], object],
                          answer: Callable[[TournamentRuntime], object] = TournamentRuntime.summary) -> Response:
    """A command from the director's console with its body; the answer is the summary after it (a correction's:
    the details, with the ledger)."""
    require_admin(request)
    runtime = runtime_of(request)
    body = await body_of(request, kind)
    with logged_refusals(request, runtime, getattr(body, "player", None)):
        command(runtime, body)
    return reply(answer(runtime))


# The refusals that are the director's rules saying no, as against a request that was malformed or unauthorised.
DIRECTORS_NO = ("refused", "not_running", "not_paused")
# The console's commands by their path's last part, as the director's log names a refused one.
ACTIONS = {"pause": "Pause", "resume": "Resume", "start": "Start", "open": "Open registration", "move": "Move",
           "withdraw-move": "Withdraw a move", "balance": "Balance now", "withdraw-balance": "Withdraw the balance",
           "clock": "Clock", "break": "Break", "hand-for-hand": "Hand-for-hand", "seat": "Seat",
           "announce": "Announcement", "compensate": "Compensation", "withdraw": "Prize withdrawn",
           "incidents": "Incident", "failure": "Failure"}


@contextlib.contextmanager
def logged_refusals(request: Request, runtime: TournamentRuntime, player: str | None = None) -> Iterator[None]:
    """The director's refusals, as ``refusals`` makes them, each journaled for the director's log: it changes
    nothing, and a director reading the log sees what was refused and why beside what was done."""
    try:
        with refusals():
            yield
    except Refused as refused:
        if refused.code in DIRECTORS_NO:
            last = request.url.path.rstrip("/").rsplit("/", 1)[-1]
            action = ACTIONS.get(last, "Level edit" if last.isdigit() else last)
            runtime.submit(r.ConsoleRefused(action, player, refused.message, time.time()))
        raise


async def adjust_clock(request: Request) -> Response:
    return await console_command(request, ClockRequest,
                                 lambda runtime, body: runtime.submit(r.AdjustClock(body.seconds, time.time())))


async def call_break(request: Request) -> Response:
    return await console_command(
        request, BreakRequest,
        lambda runtime, body: runtime.submit(r.CallBreak(runtime.now(), body.minutes, time.time())))


async def hand_for_hand(request: Request) -> Response:
    return await console_command(request, HandForHandRequest,
                                 lambda runtime, body: runtime.submit(r.ForceHandForHand(body.on, time.time())))


async def edit_level(request: Request) -> Response:
    """A level not yet started, edited: 409 for the level under way or one played."""
    number = request.path_params["level"]
    if not (number.isascii() and number.isdigit() and len(number) <= 6):
        raise Refused("bad_request", f"level: a level's number, not {number!r}")
    return await console_command(request, LevelRequest, lambda runtime, body: runtime.submit(r.EditLevel(
        int(number), body.small_blind, body.big_blind, body.ante, body.minutes, time.time())))


async def move_player(request: Request) -> Response:
    return await console_command(
        request, MoveRequest, lambda runtime, body: runtime.submit(r.MovePlayer(body.player, body.table, time.time())))


async def withdraw_move(request: Request) -> Response:
    return await console_command(
        request, WithdrawMoveRequest, lambda runtime, body: runtime.submit(r.WithdrawMove(body.player, time.time())))


async def balance_now(request: Request) -> Response:
    return admin_command(request, lambda runtime: runtime.submit(r.BalanceNow(time.time())))


async def withdraw_balance(request: Request) -> Response:
    return admin_command(request, lambda runtime: runtime.submit(r.WithdrawBalance(time.time())))


async def director_log(request: Request) -> Response:
    """What the director did, from the audit trail (the journal), oldest first."""
    require_admin(request)
    runtime = runtime_of(request)
    return reply(DirectorLog(actions_of(server_of(request).storage.records(runtime.id), runtime.entries.name)))


async def seat_command(request: Request) -> Response:
    """Sit a player out, or remove them (at once between their hands, else when their hand ends)."""
    require_admin(request)
    runtime = runtime_of(request)
    body = await body_of(request, SeatRequest)
    with logged_refusals(request, runtime, body.player):
        if body.player not in runtime.director.stacks:
            raise Refused("refused", f"{body.player!r} is not playing in this tournament")
        if body.action == "sit_out":
            runtime.tables.set_sitting_out(body.player, True)
            runtime.submit(r.SitOutPlayer(body.player, time.time()))
            return reply(SeatDone("sitting_out"))
        runtime.submit(r.RemovePlayer(body.player, body.refund, time.time()))
    return reply(SeatDone("removed_when_hand_ends" if body.player in runtime.director.removals else "removed"))


async def announce(request: Request) -> Response:
    def tell(runtime: TournamentRuntime, body: AnnounceRequest) -> None:
        runtime.submit(r.Announce(body.text, time.time()))
        runtime.streams.announce(body.text)

    return await console_command(request, AnnounceRequest, tell)


async def cancellation_preview(request: Request) -> Response:
    """What a cancellation would refund now, under the tournament's policy or ``?policy=A|B``."""
    require_admin(request)
    runtime = runtime_of(request)
    name = request.query_params.get("policy")
    if name not in (None, "A", "B"):
        raise Refused("bad_request", "policy: A or B")
    policy = msgspec.structs.replace(runtime.definition.refund_policy, name=name) if name else None
    return reply(CancellationPreview(runtime.cancellation_preview(policy, request.query_params.get("entry_into"))))
