"""One process of mttsim as it registers itself in a cluster's registry, and as `GET /api/cluster` lists it: the
API shows it and the cluster keeps it, so it belongs to neither."""

from __future__ import annotations

import os
import socket
import time
from typing import Literal, TypeAlias

import msgspec


Role: TypeAlias = Literal["director", "tables", "gateway", "single"]


GATEWAY_REALM = "gateway"  # a gateway's realm when its URL names no user (a token, or no authorization)


def gateway_id(realm: str, host: str, pid: int) -> str:
    return f"gateway.{realm}.{host.replace('.', '_')}-{pid}"


class Process(msgspec.Struct):
    """One process of the cluster, as it registers itself."""

    role: Role
    id: str
    pid: int
    host: str
    started: float  # the wall clock
    tables: list[str] = []  # "tournament/table" for a worker's leases
    url: str | None = None  # where it serves HTTP, if it does

    @classmethod
    def here(cls, role: Role, url: str | None = None, realm: str = GATEWAY_REALM, instance: str = "") -> Process:
        """This process in ``role``; ``instance`` tells apart roles sharing one process (a cluster in memory)."""
        host, pid = socket.gethostname(), os.getpid()
        process = gateway_id(realm, host, pid) if role == "gateway" else f"{role}-{host.replace('.', '_')}-{pid}"
        process += instance
        return cls(role, process, pid, host, time.time(), url=url)
