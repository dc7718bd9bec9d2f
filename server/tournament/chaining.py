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

from engine import corrections, delivery
from engine.director import Status, TournamentError
from engine.events import Event, Refunded
from engine.money import dollars
from engine.refunds import RefundPolicy
from engine.structure import Definition
from engine.wire import Ticket
from server.tournament import hosted
from server.tournament import records as r
from server.errors import Refused, refusals

if TYPE_CHECKING:
    from server.tournament.runtime import TournamentRuntime

logger = logging.getLogger("mttsim.server")


def verify_target(registry: dict[str, TournamentRuntime], definition: Definition) -> None:
    """A satellite's or a flight's definition against the tournament it sends players to, when it is created
    (K.44, L.47): the target is here and open for entries, a satellite's seat buys its entry exactly (or the
    definition says the difference is settled: ``satellite.difference``), a flight's final is a final."""
    satellite, flight = definition.satellite, definition.flight
    if satellite is not None and satellite.target is not None:
        target = registry.get(satellite.target)
        if target is None or target.director.status not in (Status.WAITING, Status.REGISTER) and not (
                target.director.status is Status.RUNNING and target.director.entries_open("late_registration")):
            raise Refused("bad_request", f"satellite.target: no tournament {satellite.target!r} here open for "
                                         f"entries")
        price = target.definition.buy_in_cents + target.definition.fee_cents
        value = satellite.seat_value_cents
        if value != price and satellite.difference == "equal":
            settles = (f"the house adds the {dollars(price - value)} missing" if value < price
                       else f"the {dollars(value - price)} over is paid in cash with the seat")
            raise Refused("bad_request", f"satellite.seat_value_cents: a seat is worth {dollars(value)} and "
                                         f"{satellite.target}'s entry (buy-in and fee) costs {dollars(price)}: make "
                                         f"them equal, or set satellite.difference to \"settled\" ({settles})")
    if flight is not None and flight.final is not None:
        final = registry.get(flight.final)
        if final is None or final.definition.final is None or final.director.status not in (
                Status.WAITING, Status.REGISTER):
            raise Refused("bad_request", f"flight.final: no final {flight.final!r} here open for registration "
                                         f"(a tournament with a \"final\" section)")


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
    """A finished satellite's seat winners and a flight's survivors become entries of their target; what the
    target does not take is paid to them in cash (engine/delivery.py)."""
    director = runtime.director
    satellite, flight = runtime.definition.satellite, runtime.definition.flight
    if director.status is Status.CANCELLED and satellite is not None:  # seats and entries a cancellation gave
        send_seats(runtime, satellite.target, {refund.player: refund.pool_cents
                                               for refund in director.refunds if refund.ticket})
        send_seats(runtime, runtime.entry_into, {refund.player: refund.pool_cents
                                                 for refund in director.refunds if refund.entry})
    if director.status is not Status.FINISHED:
        return
    if satellite is not None:
        send_seats(runtime, satellite.target, {result.player: delivery.seat_cents(director, result.player)
                                               for result in director.standings() if result.ticket})
    if flight is not None:
        send_stacks(runtime, flight.final, dict(director.stacks), director.ledger.summary()["carried"])


def _target(source: TournamentRuntime, target_id: str | None) -> tuple[TournamentRuntime | None, str]:
    """The tournament ``target_id`` names here, or None and why not."""
    if not target_id:
        return None, "no target tournament was set"
    target = source.registry.get(target_id)
    if target is None or target is source:
        return None, f"no tournament {target_id!r} here"
    return target, ""


def _settle(source: TournamentRuntime, record: r.ReturnSeat | r.TopUpSeat | r.ReturnPool) -> list[Event]:
    """A settlement of what was sent, on the source's record; never refused for a seat or pool it sent."""
    try:
        return source.submit(record)
    except TournamentError as refusal:  # a bug, not a player's doing: the money stays where the ledger says
        logger.error("tournament %s could not settle %r: %s", source.id, record, refusal)
        return []


def send_seats(source: TournamentRuntime, target_id: str | None, seats: dict[str, int]) -> None:
    """Seats worth ``seats[player]`` cents into ``target_id``, each as a paid entry there (K.44).

    A seat buys the target's entry (its buy-in and fee): one worth more pays
    its winner the rest in cash; one worth less is topped up by the house
    where the satellite settles the difference (``satellite.difference``), and
    is refused otherwise. A seat the target cannot take (none named, gone,
    cancelled, started without late registration, full) is paid to its winner
    in cash, the whole seat, with the reason, on the source's record.
    """
    target, refused = _target(source, target_id)
    settled = source.definition.satellite is not None and source.definition.satellite.difference == "settled"
    keys = {owner: key for key, owner in source.entries.tokens.items()}
    for player, value in seats.items():
        ticket = Ticket(player, source.entries.names.get(player), None, target_id)
        source.tickets.append(ticket)
        key, why, price, entry = keys.get(player), refused, 0, ""
        if target is not None and not why:
            price = target.definition.buy_in_cents + target.definition.fee_cents
            entry = target.entries.mint()
            try:
                target.director.verify_register(entry)
            except TournamentError as refusal:
                why = f"{target_id} did not take the seat: {refusal}"
            if not why and value < price and not settled:
                why = f"the seat ({dollars(value)}) does not buy {target_id}'s entry ({dollars(price)})"
            if not why and key is None:
                why = "the winner holds no token to play it with"
        if why or target is None or key is None:
            ticket.refused = why
            ticket.refunded_cents = value
            _settle(source, r.ReturnSeat(player, value, f"the seat paid in cash: {why}"))
            continue
        if value < price:
            _settle(source, r.TopUpSeat(player, price - value, f"the house tops up the seat ({dollars(value)}) to "
                                                              f"{target_id}'s entry ({dollars(price)})"))
        if not _enter(source, target, ticket, entry, key, None):  # refused after all: the seat as it stands in cash
            ticket.refunded_cents = delivery.seat_cents(source.director, player)
            _settle(source, r.ReturnSeat(player, ticket.refunded_cents, f"the seat paid in cash: {ticket.refused}"))
        elif value > price:
            ticket.refunded_cents = value - price
            _settle(source, r.ReturnSeat(player, value - price, f"the seat ({dollars(value)}) is worth more "
                                                                f"than {target_id}'s entry ({dollars(price)}): "
                                                                f"the rest in cash"))


def send_stacks(source: TournamentRuntime, target_id: str | None, stacks: dict[str, int], pool_cents: int) -> None:
    """A flight's survivors into its final with their stacks, and the pool it carried (L.47). A final that cannot
    take them (none named, gone, cancelled, started) gets nothing: the pool goes to the survivors in cash, each
    their stack's share, with the reason, on the flight's record."""
    target, refused = _target(source, target_id)
    if target is not None and pool_cents:
        try:
            target.submit(r.CarryIn(pool_cents, len(source.director.entries)))
        except TournamentError as refusal:
            target, refused = None, f"{target_id} did not take the flight's pool: {refusal}"
    shares: dict[str, int] = {}
    if target is None and pool_cents:
        shares = {event.player: event.refund_cents
                  for event in _settle(source, r.ReturnPool(f"the flight's pool paid in cash: {refused}"))
                  if isinstance(event, Refunded)}
    keys = {owner: key for key, owner in source.entries.tokens.items()}
    for player, stack in stacks.items():
        ticket = Ticket(player, source.entries.names.get(player), stack, target_id)
        source.tickets.append(ticket)
        key = keys.get(player)
        if target is None or key is None:
            ticket.refused = refused or "the survivor holds no token to play it with"
            ticket.refunded_cents = shares.get(player, 0)
            continue
        _enter(source, target, ticket, target.entries.mint(), key, stack)


def register_players(source: TournamentRuntime, target_id: str, players: list[str]) -> None:
    """``players`` registered into ``target_id`` under their names and tokens, as a rescheduled freeroll's are."""
    target, refused = _target(source, target_id)
    keys = {owner: key for key, owner in source.entries.tokens.items()}
    for player in players:
        ticket = Ticket(player, source.entries.names.get(player), None, target_id)
        source.tickets.append(ticket)
        key = keys.get(player)
        if target is None or key is None:
            ticket.refused = refused or "the player holds no token"
            continue
        _enter(source, target, ticket, target.entries.mint(), key, None)


def _enter(source: TournamentRuntime, target: TournamentRuntime, ticket: Ticket, entry: str, key: str,
           stack: int | None) -> bool:
    """One player into ``target`` as ``entry``: registered (``stack`` None) or qualified with ``stack``, under
    their name and token; the server's bot that played them plays on there. ``ticket`` says where they landed;
    False when the target refused them."""
    player = ticket.player
    name = source.entries.names.get(player, entry)
    try:
        target.submit(r.Register(entry, name, key) if stack is None else r.Qualify(entry, name, key, stack))
    except TournamentError as refusal:
        ticket.refused = str(refusal)
        return False
    # An entry of its own (a multi-entry final's second qualification) is named as itself; a stack that replaced
    # or lost to the person's other one, by the entry the token leads to.
    ticket.entry = entry if entry in target.director.stacks else target.entries.player_for_key(key)
    bot = source.entries.bots.get(player)
    if bot is not None and ticket.entry == entry:
        tag, token, think_min, think_max = bot
        target.bots.ws_url = target.bots.ws_url or source.bots.ws_url
        hosted.host(target, entry, tag, token, (think_min, think_max), random.Random())
    return True


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
    register_players(runtime, again.id, players)
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
    of what this takes back. A flight's qualification is withdrawn whole: the final gives back its share of the
    pool, and its entry (before the start) or its stack (after, by the director's removal) leaves."""
    left, kind = corrections.withdrawable(runtime.director, player)
    amount = left if cents is None else cents
    with refusals():
        runtime.director.verify_withdraw_prize(player, amount, reason)
        sent = [(ticket, runtime.registry.get(ticket.target or "")) for ticket in runtime.tickets
                if ticket.player == player and ticket.entry and kind != "prize"]
        for ticket, target in sent:
            if kind == "qualification" and target is not None:
                assert ticket.entry is not None
                final = target.director
                if final.status is Status.REGISTER and final.stacks.get(ticket.entry) != ticket.stack:
                    raise Refused("refused", f"{player}'s stack in the final is another qualification's (L.48): "
                                             f"withdraw that one")
                target.director.verify_withdraw_qualified(ticket.entry, amount)
        for ticket, target in sent:
            if target is None or ticket.entry is None:
                continue
            if kind == "seat" and target.director.can_unregister(ticket.entry):
                target.submit(r.Unregister(ticket.entry))
            elif kind == "qualification":
                target.submit(r.WithdrawQualified(ticket.entry, amount))
        runtime.submit(r.WithdrawPrize(player, amount, reason, time.time()))
