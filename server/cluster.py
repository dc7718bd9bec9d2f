"""The director process of a cluster: its tables are played by table workers elsewhere, over the bus.

The director process keeps every tournament's director, journal, clocks and
connections, as one ``mttsim serve`` does, and runs no table tasks. A worker
holding a table's lease (server/worker.py) asks it to ``deal``, runs each
decision's clock as told, says when one ran out (``expire``) and settles the
hand (``end``). Every answer is the table's state; every change of it (a
player acted, the barrier opened, the table broke) goes to the worker as a
notice on the table's subject.

Each command carries its lease's epoch: an older one than the table's newest
is fenced off, so a worker that stalled past its lease changes nothing. A
new epoch voids the hand the last worker left in progress, as a restart does.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from functools import partial

import msgspec

from engine.director import Status
from engine.status import TournamentError
from server.bus import COMMANDS, TABLES, Bus, Process, TableCommand, TableState, notices
from server.errors import Refused
from server.runtime import TournamentRuntime

logger = logging.getLogger("mttsim.cluster")
encode = msgspec.msgpack.encode
_command = msgspec.msgpack.Decoder(TableCommand)
GONE = encode(TableState("gone", 0))
HEARTBEAT_SECONDS = 1.0


class DirectorService:
    """Answers the table workers for every tournament of this process, and tells them what changed."""

    def __init__(self, bus: Bus, tournaments: Mapping[str, TournamentRuntime], me: Process) -> None:
        self.bus = bus
        self.tournaments = tournaments
        self.me = me
        self._heartbeat: asyncio.Task[None] | None = None

    async def start(self) -> None:
        await self.bus.serve(COMMANDS, self.answer)
        await self.bus.serve(TABLES, self.tables)
        self._heartbeat = asyncio.get_running_loop().create_task(self._beat(), name="cluster:heartbeat")

    async def stop(self) -> None:
        if self._heartbeat is not None:
            self._heartbeat.cancel()
            await asyncio.gather(self._heartbeat, return_exceptions=True)
        await self.bus.close()

    def attach(self, runtime: TournamentRuntime) -> None:
        """``runtime``'s tables are played by workers: their notices go on the bus."""
        runtime.tables.remote = partial(self._notify, runtime.id)

    def _notify(self, tournament: str, table: int, state: TableState) -> None:
        self.bus.publish(notices(tournament, table), encode(state))

    def tables(self, _: bytes) -> bytes:
        """Every table of every running tournament, for the workers to share out."""
        return encode([(runtime.id, table) for runtime in self.tournaments.values()
                       if runtime.director.status is Status.RUNNING for table in sorted(runtime.director.tables)])

    def answer(self, data: bytes) -> bytes:
        try:
            command = _command.decode(data)
        except msgspec.DecodeError:
            return GONE
        runtime = self.tournaments.get(command.tournament)
        if runtime is None:
            return GONE
        tables, table = runtime.tables, command.table
        if table not in runtime.director.tables:
            return GONE
        try:
            if command.verb == "take":
                if not tables.take(table, command.epoch):
                    return encode(TableState("fenced", 0))
            elif tables.fenced(table, command.epoch):
                return encode(TableState("fenced", 0))
            elif command.verb == "deal":
                if runtime.director.hand(table) is None and tables.may_deal(table) and not tables.gone(table):
                    tables.deal(table)
            elif command.verb == "expire":
                tables.expire(table, command.decision)
            elif command.verb == "end":
                hand = runtime.director.hand(table)
                if hand is not None and hand.finished:
                    tables.end(table)
        except (TournamentError, Refused):  # the state moved on since the worker's last look
            logger.debug("table %s/%s: %s refused", command.tournament, table, command.verb, exc_info=True)
        except Exception:  # a bug must not take the director down with it: logged, and the worker is told the state
            logger.exception("table %s/%s: %s failed", command.tournament, table, command.verb)
        return encode(tables.state(table))

    async def _beat(self) -> None:
        while True:
            try:
                await self.bus.register(self.me)
            except Exception:  # the bus is down or reconnecting: the next beat tries again
                logger.warning("the director could not register with the cluster", exc_info=True)
            await asyncio.sleep(HEARTBEAT_SECONDS)

