"""Past games: the list, each game's page and record (a text file to download), and the same as JSON."""

from __future__ import annotations

from flask import Blueprint, Response, jsonify, render_template

from thoughtwave.engine import GameRecord
from thoughtwave.game import GameRow
from thoughtwave.webui.apierrors import ApiError
from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language
from thoughtwave.webui.view import stored_game

bp = Blueprint("games", __name__)


def _game(game_id: int) -> tuple[GameRow, GameRecord]:
    store = web().companion.store
    row, record = store.game(game_id), store.record(game_id)
    if row is None or record is None:
        raise ApiError(404, f"there is no game {game_id}")
    return row, record


@bp.get("/games")
def index() -> str:
    return render_template("games.html", games=[g.to_json() for g in web().companion.store.games()])


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    row, record = _game(game_id)
    view = stored_game(row, record, current_language())
    return render_template("game.html", game=row.to_json(), moves=view["moves"], svg=view["svg"], record=record)


@bp.get("/games/<int:game_id>/record.txt")
def record(game_id: int) -> Response:
    found = web().companion.store.record(game_id)
    if found is None:
        raise ApiError(404, f"there is no game {game_id}")
    response = Response(found.to_text(), mimetype="text/plain")
    response.headers["Content-Disposition"] = f'attachment; filename="thoughtwave-game-{game_id}.txt"'
    return response


@bp.get("/api/games")
def api_games() -> Response:
    return jsonify(games=[g.to_json() for g in web().companion.store.games()])


@bp.get("/api/games/<int:game_id>")
def api_game(game_id: int) -> Response:
    row, record = _game(game_id)
    view = stored_game(row, record, current_language())
    return jsonify(game=row.to_json(), moves=view["moves"], cells=view["cells"], result=view["result"])
