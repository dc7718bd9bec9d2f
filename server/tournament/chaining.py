"""Tournaments that send players on: a satellite's seat winners (K.44) and a flight's survivors (L.47).

Each becomes an entry of the target tournament, on this server and open for
registration, under the same name and the same token: a seat as a paid
registration, a survivor with their stack and the flight's pool carried
along. Everything reaches the target through its public ``submit``, as any
other command does. Otherwise the entry is listed as refused, for the admin
to settle. The server's own bots are registered as bots and play there too.
A freeroll rescheduled at its cancellation sends its players still in to its
new date the same way.
"""

from __future__ import annotations

import logging
import random
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import msgspec

from engine import corrections
from engine.director import Status, TournamentError
from engine.refunds import RefundPolicy
from engine.structure import Definition
from engine.wire import Ticket
from server.tournament import hosted
from server.tournament import records as r
from server.errors import Refused, refusals

if TYPE_CHECKING:
    from server.tournament.runtime import TournamentRuntime

logger = logging.getLogger("mttsim.server")


def another_flight(runtime: TournamentRuntime, token: str) -> bool:
    """Whether ``token`` plays another flight of this flight's final: the same person again (L.48), who
    registers here under the token they hold, so that the final groups their entries.

    Refused when the final takes the first stack forward and this person has
    already qualified (L.48: no entries after qualifying).
    """
    flight = runtime.definition.flight
    if flight is None or flight.final is None or not any(
            other.definition.flight is not None and other.definition.flight.final == flight.final
            and other.player_for(token) is not None for other in runtime.registry.values() if other is not runtime):
        return False
    final = runtime.registry.get(flight.final)
    if (final is not None and final.definition.final is not None
            and final.definition.final.forward == "first" and final.player_for(token) is not None):
        raise Refused("refused", "you have qualified for the final already: first stack forward (L.48)")
    return True


def send_on(runtime: TournamentRuntime) -> None:
    """A finished satellite's seat winners and a flight's survivors become entries of their target."""
    director = runtime.director
    satellite, flight = runtime.definition.satellite, runtime.definition.flight
    if director.status is Status.CANCELLED and satellite is not None:  # seats and entries a cancellation gave
        carry_players(runtime, satellite.target, {refund.player: None for refund in director.refunds if refund.ticket})
        carry_players(runtime, runtime.entry_into, {refund.player: None for refund in director.refunds if refund.entry})
    if director.status is not Status.FINISHED:
        return
    if satellite is not None:
        seats: dict[str, int | None] = {result.player: None for result in director.standings() if result.ticket}
        carry_players(runtime, satellite.target, seats)
    if flight is not None:
        carry_players(runtime, flight.final, dict(director.stacks), pool_cents=director.ledger.summary()["carried"])


def carry_players(source: TournamentRuntime, target_id: str | None, players: dict[str, int | None],
                  pool_cents: int = 0) -> None:
    """Send ``players`` (each mapped to their stack, or None for a seat) from ``source`` to ``target_id``."""
    target = source.registry.get(target_id) if target_id else None
    if target is not None and pool_cents:
        try:
            target.submit(r.CarryIn(pool_cents, len(source.director.entries)))
        except TournamentError as refusal:
            target = None
            logger.error("flight %s could not carry its pool to %s: %s", source.id, target_id, refusal)
    keys = {owner: key for key, owner in source.entries.tokens.items()}
    for player, stack in players.items():
        ticket = Ticket(player, source.entries.names.get(player), stack, target_id)
        key = keys.get(player)
        if target is None or key is None:
            ticket.refused = f"no tournament {target_id!r} open here" if target_id else "no target set"
        else:
            entry = target.entries.mint()
            name = source.entries.names.get(player, entry)
            try:
                target.submit(r.Register(entry, name, key) if stack is None else r.Qualify(entry, name, key, stack))
                # An entry of its own (a multi-entry final's second qualification) is named as itself; a
                # stack that replaced or lost to the person's other one, by the entry the token leads to.
                ticket.entry = entry if entry in target.director.stacks else target.entries.player_for_key(key)
                bot = source.entries.bots.get(player)
                if bot is not None and ticket.entry == entry:
                    tag, token, think_min, think_max = bot
                    target.bots.ws_url = target.bots.ws_url or source.bots.ws_url
                    hosted.host(target, entry, tag, token, (think_min, think_max), random.Random())
            except TournamentError as refusal:
                ticket.refused = str(refusal)
        source.tickets.append(ticket)


def reschedule(runtime: TournamentRuntime, create: Callable[[Definition], TournamentRuntime],
               policy: RefundPolicy | None, at: float) -> TournamentRuntime:
    """Cancel a freeroll to play it again at ``at`` (seed 004, freeroll early and middle): no prize now, and a
    new tournament of the same definition with the players still in registered under their names and tokens
    (a hosted bot goes along). Each one's record (``tickets``) names their entry there."""
    if at <= time.time():
        raise Refused("bad_request", "reschedule_at: a time to come, in seconds since the epoch")
    with refusals():
        chosen = runtime.director.reschedule_policy(policy)
        players = runtime.director.still_in()
        definition = msgspec.structs.replace(runtime.definition, starts_at=at, registration_opens_at=None)
        runtime.cancel(chosen)
    again = create(definition)
    carry_players(runtime, again.id, dict.fromkeys(players))
    runtime.journal.close(runtime.session)  # its final state again, with whom it sent on
    logger.info("tournament %s rescheduled as %s for %d players", runtime.id, again.id, len(players))
    return again


def entry_price(runtime: TournamentRuntime, entry_into: str | None) -> int:
    """What an entry to ``entry_into`` costs (buy-in and fee), for a satellite's refunds as entries; 0 for none."""
    if entry_into is None:
        return 0
    target = runtime.registry.get(entry_into)
    if target is None or target is runtime or target.director.status is not Status.REGISTER:
        raise Refused("refused", f"no tournament {entry_into!r} open for registration here")
    return target.definition.buy_in_cents + target.definition.fee_cents


def withdraw_prize(runtime: TournamentRuntime, player: str, cents: int | None, reason: str) -> None:
    """Take back a prize paid in error, all of what is left of it or ``cents`` (seed 004). A seat withdrawn is
    unregistered from its tournament if that has not started: the seat's price comes back there, and is part
    of what this takes back."""
    left, ticket = corrections.withdrawable(runtime.director, player)
    amount = left if cents is None else cents
    with refusals():
        runtime.director.verify_withdraw_prize(player, amount, reason)
        for sent in runtime.tickets if ticket else []:
            target = runtime.registry.get(sent.target or "")
            if sent.player == player and sent.entry and target is not None \
                    and target.director.can_unregister(sent.entry):
                target.submit(r.Unregister(sent.entry))
        runtime.submit(r.WithdrawPrize(player, amount, reason, time.time()))
