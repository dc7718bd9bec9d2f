"""The REST API's OpenAPI 3.1 description, generated from the operations server/api/app.py serves.

Each operation names the msgspec types it decodes and encodes, and the same
table builds the routes, so the description cannot drift from what is served.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import msgspec
from starlette.requests import Request
from starlette.responses import Response


class Problem(msgspec.Struct):
    """A refusal: ``error`` is its code (docs/protocol.md lists them), ``message`` names the rule or the field."""

    error: str
    message: str


class Operation(msgspec.Struct, frozen=True, kw_only=True):
    """One route of the REST API, with what it takes and gives."""

    method: str
    path: str
    endpoint: Callable[[Request], Awaitable[Response]]
    summary: str
    status: int = 200
    body: Any = None  # the request body's type
    body_required: bool = True
    response: Any = None  # the response body's type; None: text of ``media_type``
    media_type: str = "text/plain"
    who: str | None = None  # "admin" or "player": the bearer token it needs
    query: tuple[tuple[str, Any], ...] = ()  # (name, type) of optional query parameters
    refusals: tuple[int, ...] = (404, 409)


def _ref(schema: dict[str, Any]) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": schema}}}


def document(operations: list[Operation]) -> dict[str, Any]:
    types = [Problem, *(t for op in operations for t in (op.body, op.response) if t is not None),
             *(t for op in operations for _, t in op.query)]
    schemas, components = msgspec.json.schema_components(types, ref_template="#/components/schemas/{name}")
    schema_of = dict(zip(types, schemas))
    refused = {"description": "refused: the message names the rule", **_ref(schema_of[Problem])}
    paths: dict[str, dict[str, Any]] = {}
    for op in operations:
        parameters = [{"name": name, "in": "path", "required": True, "schema": {"type": "string"}}
                      for name in ("id", "hand", "level") if f"{{{name}}}" in op.path]
        parameters += [{"name": name, "in": "query", "required": False, "schema": schema_of[kind]}
                       for name, kind in op.query]
        ok = {"description": op.summary, **_ref(schema_of[op.response])} if op.response is not None else \
            {"description": op.summary, "content": {op.media_type: {"schema": {"type": "string"}}}}
        codes = set(op.refusals) | ({401} if op.who else set()) | ({400} if op.body is not None or op.query else set())
        operation: dict[str, Any] = {
            "summary": op.summary, "operationId": op.endpoint.__name__, "parameters": parameters,
            "responses": {str(op.status): ok, **{str(code): refused for code in sorted(codes)}},
        }
        if op.body is not None:
            operation["requestBody"] = {"required": op.body_required, **_ref(schema_of[op.body])}
        if op.who is not None:
            operation["security"] = [{op.who: []}]
        paths.setdefault(op.path, {})[op.method.lower()] = operation
    return {
        "openapi": "3.1.0",
        "info": {"title": "mttsim", "version": "0.1.0",
                 "description": "Tournaments over REST; play over the websocket /ws/tournaments/{id} "
                                "(docs/protocol.md)."},
        "components": {"schemas": components,
                       "securitySchemes": {"admin": {"type": "http", "scheme": "bearer"},
                                           "player": {"type": "http", "scheme": "bearer"}}},
        "paths": paths,
    }
