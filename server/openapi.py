"""The REST API's OpenAPI 3.1 description, served at /api/openapi.json.

Request bodies come from the same msgspec types the server decodes with, so
the description cannot drift from what is accepted.
"""

from __future__ import annotations

from typing import Any

import msgspec

from engine.refunds import RefundPolicy
from engine.structure import Definition


class Register(msgspec.Struct):
    name: str


class Registered(msgspec.Struct):
    player_id: str
    token: str


class Created(msgspec.Struct):
    id: str


class CancelBody(msgspec.Struct):
    policy: RefundPolicy | None = None


class Problem(msgspec.Struct):
    error: str
    message: str


def _json(schema: str) -> dict[str, Any]:
    return {"content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{schema}"}}}}


def _object(description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": {"type": "object"}}}}


def openapi_document() -> dict[str, Any]:
    _, components = msgspec.json.schema_components(
        [Definition, Register, Registered, Created, Problem, CancelBody], ref_template="#/components/schemas/{name}")
    tournament = {"name": "id", "in": "path", "required": True, "schema": {"type": "string"}}
    refused = {"description": "refused: the message names the rule", **_json("Problem")}
    admin = [{"admin": []}]
    return {
        "openapi": "3.1.0",
        "info": {"title": "mttsim", "version": "0.1.0",
                 "description": "Tournaments over REST; play over the websocket /ws/tournaments/{id} (docs/protocol.md)."},
        "components": {"schemas": components,
                       "securitySchemes": {"admin": {"type": "http", "scheme": "bearer"},
                                           "player": {"type": "http", "scheme": "bearer"}}},
        "paths": {
            "/api/tournaments": {
                "get": {"summary": "List tournaments", "responses": {"200": _object("one summary per tournament")}},
                "post": {"summary": "Create a tournament from its definition (docs/config.md)", "security": admin,
                         "requestBody": {"required": True, **_json("Definition")},
                         "responses": {"201": {"description": "created", **_json("Created")},
                                       "400": refused, "401": refused}},
            },
            "/api/tournaments/{id}": {
                "get": {"summary": "Status, level and blinds, tables and stacks, payouts, hand-for-hand",
                        "parameters": [tournament], "responses": {"200": _object("the tournament"), "404": refused}},
            },
            "/api/tournaments/{id}/register": {
                "post": {"summary": "Register; the token is the player's key to their seat",
                         "parameters": [tournament], "requestBody": {"required": True, **_json("Register")},
                         "responses": {"201": {"description": "registered", **_json("Registered")},
                                       "400": refused, "404": refused, "409": refused}},
            },
            "/api/tournaments/{id}/unregister": {
                "post": {"summary": "Unregister during Register: buy-in and fee refunded",
                         "parameters": [tournament], "security": [{"player": []}],
                         "responses": {"200": _object("{refund_cents}"), "401": refused, "409": refused}},
            },
            "/api/tournaments/{id}/bots": {
                "post": {"summary": "Fill with bots that play over the websocket: {count, mix, think_min, think_max}",
                         "parameters": [tournament], "security": admin,
                         "responses": {"201": _object("{players}: the bots' player ids"), "400": refused,
                                       "401": refused, "409": refused}},
            },
            "/api/tournaments/{id}/hands": {
                "get": {"summary": "Finished hands: [{hand, table, players}], optionally of ?player= or at ?table=",
                        "parameters": [tournament,
                                       {"name": "player", "in": "query", "required": False, "schema": {"type": "string"}},
                                       {"name": "table", "in": "query", "required": False, "schema": {"type": "integer"}}],
                        "responses": {"200": _object("{hands: [...]}"), "400": refused, "404": refused}},
            },
            "/api/tournaments/{id}/hands/{hand}": {
                "get": {"summary": "One finished hand as PHH text", "parameters": [
                    tournament, {"name": "hand", "in": "path", "required": True, "schema": {"type": "integer"}}],
                        "responses": {"200": {"description": "the hand history",
                                              "content": {"text/plain": {"schema": {"type": "string"}}}},
                                      "404": refused}},
            },
            "/api/tournaments/{id}/cancellation": {
                "get": {"summary": "Preview the refunds a cancellation would pay now (rules.md I); ?policy=A or B",
                        "parameters": [tournament, {"name": "policy", "in": "query", "required": False,
                                                    "schema": {"enum": ["A", "B"]}}],
                        "security": admin,
                        "responses": {"200": _object("{refunds: [{player, name, refund_cents, fee_cents, rule}]}"),
                                      "400": refused, "401": refused, "404": refused, "409": refused}},
            },
            "/api/tournaments/{id}/cancel": {
                "post": {"summary": "Cancel: full refunds before the start; while running, the refund policy "
                                    "(the tournament's, or {policy} in the body) pays out and hands in progress are void",
                         "parameters": [tournament], "security": admin,
                         "requestBody": {"required": False, **_json("CancelBody")},
                         "responses": {"200": _object("the tournament's summary"), "400": refused, "401": refused,
                                       "404": refused, "409": refused}},
            },
            **{f"/api/tournaments/{{id}}/{command}": {
                "post": {"summary": summary, "parameters": [tournament], "security": admin,
                         "responses": {"200": _object("the tournament's summary"), "401": refused,
                                       "404": refused, "409": refused}},
            } for command, summary in (
                ("start", "Start: seats are drawn, or the tournament is cancelled below min_players"),
                ("pause", "Pause: no new hands and the level clock stops; hands in progress finish"),
                ("resume", "Resume after a pause"),
            )},
        },
    }
