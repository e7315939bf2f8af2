"""The OpenAPI 3.1 description of the JSON API, served at ``/api/openapi.json``: the request bodies come from
the pydantic models of ``webui.schemas`` (one per body), so the description cannot drift from the checks.

The event stream ``/api/events`` (Server-Sent Events, never ending) and the calibration page's API are
not described: a client generated from this description could not use the one, and the other is the
calibration page's own.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from pydantic.json_schema import models_json_schema

from thoughtwave.webui.schemas import REQUESTS

_ERROR = {"type": "object", "properties": {"error": {"type": "string"}}, "required": ["error"]}
_OBJECT = {"type": "object"}

#: What each refusal means, as the API answers it.
_REFUSALS = {
    "400": "the body or a field is wrong (the message names the field)",
    "401": "enter the PIN first",
    "403": "the CSRF token is missing or wrong, or the PIN is wrong",
    "409": "the action cannot be done now (e.g. nothing to take back)",
    "413": "the body is too large",
    "429": "too many wrong PINs: wait",
    "503": "the change could not be kept, or the server is busy: try again",
}

_GETS = {
    "/api/state": "The game being played, as the display shows it.",
    "/api/session": "Whether this session has entered the PIN, and its CSRF token.",
    "/api/games": "Past games, newest first.",
    "/api/openapi.json": "This description.",
}

_POSTS = {
    "/api/login": "Enter the PIN (the session then may change things); answers a new CSRF token.",
    "/api/logout": "End this session's login (every copy of its cookie stops working).",
    "/api/game/new": "End the game as it stands and start another (one transaction); answers the new state.",
    "/api/game/end": "End the game as it stands; answers the new state.",
    "/api/undo": "Take back the last verdict; answers the new state.",
    "/api/correct": "The camera misread a cell: say what is really there; answers the new state.",
    "/api/cases/report": "Report a misread: keep the last camera picture, its reading, the board and the profile "
                         "as a case; answers the state, what was done and the case's name and folder.",
}


def _json(schema: dict, description: str) -> dict:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


@cache
def describe_api() -> dict[str, Any]:
    """The OpenAPI document (a dict ready for JSON)."""
    models = sorted({model for model in REQUESTS.values()}, key=lambda m: m.__name__)
    refs, definitions = models_json_schema([(m, "validation") for m in models],
                                           ref_template="#/components/schemas/{model}")
    paths: dict[str, dict] = {}
    for path, summary in _GETS.items():
        paths[path] = {"get": {"summary": summary, "responses": {"200": _json(_OBJECT, "the answer")}}}
    paths["/api/games/{game_id}"] = {"get": {
        "summary": "One past game: its row, moves, cells and result.",
        "parameters": [{"name": "game_id", "in": "path", "required": True, "schema": {"type": "integer"}}],
        "responses": {"200": _json(_OBJECT, "the game"), "404": _json(_ERROR, "there is no such game")}}}
    for path, summary in _POSTS.items():
        model = REQUESTS[("post", path)]
        responses = {"200": _json(_OBJECT, "done")}
        responses.update({code: _json(_ERROR, why) for code, why in _REFUSALS.items()})
        paths[path] = {"post": {
            "summary": summary,
            "parameters": [{"name": "X-CSRF-Token", "in": "header", "required": True, "schema": {"type": "string"},
                            "description": "the session's CSRF token (from /api/session)"}],
            "requestBody": {"required": False, "content": {"application/json": {
                "schema": refs[(model, "validation")]}}},
            "responses": responses}}
    return {
        "openapi": "3.1.0",
        "info": {"title": "Thoughtwave companion", "version": "1",
                 "description": "Anyone may read; a change needs the PIN (a login, /api/login) and the CSRF "
                                "token. Every refusal is a JSON {\"error\": ...}. Live updates: /api/events "
                                "(Server-Sent Events, not described here)."},
        "paths": paths,
        "components": {"schemas": definitions.get("$defs", {})},
    }
