"""The gateways the director vouches for: the list every browser fails over to (``GET /api/gateways``).

A gateway's heartbeat says where it is reached, and a heartbeat is only as honest as the password that sent it:
a gateway's stolen password could list any address, for every browser to send its player's token to. So the
director lists a gateway only once it has checked the address itself:

- the address is an origin a browser can open and nothing more: http or https, a host and a port, no user
  information (``user@host`` would hand a token to another host), no path, query or fragment;
- the director asks that address for its identity (``GET /api/gateway``, which a gateway answers itself and never
  passes on) and hears the id of the gateway whose heartbeat named it;
- a realm's user speaks for one gateway: the first vouched for while it lives keeps the realm's place, so that a
  realm's password describes only its own gateway, never a crowd of them. Gateways sharing the one token of a
  cluster without users (``GATEWAY_REALM``) share a realm, as they share the token.

A check that fails is tried again after ``RETRY_SECONDS``; an address that changes is checked again.
"""

from __future__ import annotations

import asyncio
import logging
import urllib.parse
from collections.abc import Awaitable, Callable

import httpx
import msgspec

from server.processes import GATEWAY_REALM, Process

logger = logging.getLogger("mttsim.cluster")

RETRY_SECONDS = 10.0  # between two checks of an address that failed its last
PROBE_SECONDS = 2.0  # for the address to answer the director's question
IDENTITY_PATH = "/api/gateway"  # what a gateway answers itself: its id


class Identity(msgspec.Struct):
    """A gateway's answer to ``GET /api/gateway``."""

    id: str


def origin_problem(url: str | None) -> str | None:
    """Why ``url`` is not an address a browser may be sent to (None: it is one)."""
    if not url:
        return "no address"
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port
    except ValueError as error:
        return f"not an address ({error})"
    if parts.scheme not in ("http", "https"):
        return "not http or https"
    if not parts.hostname:
        return "no host"
    if port is None:
        return "no port"
    if parts.username is not None or parts.password is not None:
        return "user information before the host"
    if parts.path not in ("", "/") or parts.query or parts.fragment:
        return "more than an origin"
    return None


async def ask_identity(url: str) -> str | None:
    """The id the gateway at ``url`` gives for itself, or None if it gives none."""
    try:
        async with httpx.AsyncClient(timeout=PROBE_SECONDS, follow_redirects=False, trust_env=False) as client:
            answer = await client.get(url.rstrip("/") + IDENTITY_PATH)
        return msgspec.json.decode(answer.content, type=Identity).id if answer.status_code == 200 else None
    except (httpx.HTTPError, msgspec.DecodeError):
        return None


class Vouching:
    """The gateways' addresses the director has checked, and the checks under way."""

    def __init__(self, ask: Callable[[str], Awaitable[str | None]] = ask_identity) -> None:
        self.ask = ask
        self.vouched: dict[str, str] = {}  # gateway id -> the address it was checked at
        self._tried: dict[str, tuple[str, float]] = {}  # gateway id -> the address last tried, and when
        self.checks: set[asyncio.Task[None]] = set()  # the addresses being asked now

    def heard(self, gateway: Process, now: float, alive: Callable[[str], bool]) -> None:
        """A gateway's heartbeat: its address checked, unless it was just now, or is being, or its realm's place
        is held by another gateway that lives (``alive``)."""
        self._forget(alive)
        url = gateway.url or ""
        if self.vouched.get(gateway.id) == url:
            return
        tried = self._tried.get(gateway.id)
        if tried is not None and tried[0] == url and now - tried[1] < RETRY_SECONDS:
            return
        self._tried[gateway.id] = (url, now)
        problem = origin_problem(gateway.url)
        if problem is not None:
            logger.warning("gateway %s advertised %r (%s): not listed", gateway.id, url, problem)
            return
        holder = self.realm_holder(gateway.id, alive)
        if holder is not None:
            logger.warning("gateway %s speaks for realm %s, whose place gateway %s holds: not listed", gateway.id,
                           realm_of_gateway(gateway.id), holder)
            return
        check = asyncio.get_running_loop().create_task(self._check(gateway.id, url), name=f"vouch:{gateway.id}")
        self.checks.add(check)
        check.add_done_callback(self.checks.discard)

    def realm_holder(self, gateway: str, alive: Callable[[str], bool]) -> str | None:
        """Another living gateway vouched for in ``gateway``'s realm, if its realm has a user of its own."""
        realm = realm_of_gateway(gateway)
        if realm == GATEWAY_REALM:
            return None
        return next((other for other in self.vouched
                     if other != gateway and realm_of_gateway(other) == realm and alive(other)), None)

    async def _check(self, gateway: str, url: str) -> None:
        answered = await self.ask(url)
        if answered == gateway:
            self.vouched[gateway] = url
            logger.info("gateway %s vouched for at %s", gateway, url)
        else:
            self.vouched.pop(gateway, None)
            logger.warning("gateway %s advertised %s, which answered %s: not listed", gateway, url,
                           "nothing" if answered is None else f"as {answered!r}")

    def listed(self, alive: Callable[[str], bool]) -> list[str]:
        """The addresses of the living gateways vouched for; the others are forgotten."""
        self._forget(alive)
        return sorted(self.vouched.values())

    def _forget(self, alive: Callable[[str], bool]) -> None:
        """The gateways no longer heard, made-up ones too, so that a flood of ids holds no memory."""
        for gone in [gateway for gateway in self._tried if not alive(gateway)]:
            self.vouched.pop(gone, None)
            del self._tried[gone]

    async def stop(self) -> None:
        for check in list(self.checks):
            check.cancel()
        await asyncio.gather(*self.checks, return_exceptions=True)


def realm_of_gateway(gateway: str) -> str:
    """The realm a gateway's id names (``gateway.REALM.host.pid``)."""
    return gateway.split(".")[1] if gateway.count(".") >= 2 else ""
