"""Past games: the list, each game's page (stepping through its moves, the board at each) and record (a text
file to download), and the same as JSON. A browser asking for a page that is not there gets an HTML page
with a way back; ``/api/`` always answers JSON."""

from __future__ import annotations

from flask import Blueprint, Response, current_app, jsonify, render_template, request
from werkzeug.exceptions import HTTPException, NotFound

from thoughtwave.engine import GameRecord
from thoughtwave.game import GameRow
from thoughtwave.webui.apierrors import ApiError, http_error
from thoughtwave.webui.boardsvg import board_svg
from thoughtwave.webui.context import web
from thoughtwave.webui.language import current_language, text
from thoughtwave.webui.view import board_cells, move_rows, stored_game
from thoughtwave.webui.words import local_time, placed, players_words, result_words

bp = Blueprint("games", __name__)

#: Where each app keeps the moves counted in its ended games (they no longer change), by game and end.
MOVES_CACHE = "thoughtwave.games.moves"


class GameMissing(Exception):
    """A game page for a game that is not stored."""

    def __init__(self, game_id: int) -> None:
        super().__init__(game_id)
        self.game_id = game_id


def wants_html() -> bool:
    """Whether the request is a browser's for a page (not ``/api/``, and HTML accepted before JSON)."""
    if request.path.startswith("/api/"):
        return False
    best = request.accept_mimetypes.best_match(["application/json", "text/html"])
    return best == "text/html" and request.accept_mimetypes["text/html"] > request.accept_mimetypes["application/json"]


def error_page(status: int, title: str, message: str) -> tuple[str, int]:
    return render_template("error.html", title=title, message=message), status


@bp.app_errorhandler(GameMissing)
def game_missing(err: GameMissing) -> Response | tuple[str, int]:
    if wants_html():
        t = text()
        return error_page(404, t.gettext("No such game"), t.gettext("There is no game %(id)s.", id=err.game_id))
    return http_error(NotFound())


@bp.app_errorhandler(NotFound)
def not_found(err: HTTPException) -> Response | tuple[str, int]:
    if wants_html():
        t = text()
        return error_page(404, t.gettext("Page not found"),
                          t.gettext("There is no page at %(path)s.", path=request.path))
    return http_error(err)


def _game(game_id: int, page: bool = False) -> tuple[GameRow, GameRecord]:
    store = web().companion.store
    row, record = store.game(game_id), store.record(game_id)
    if row is None or record is None:
        if page:
            raise GameMissing(game_id)
        raise ApiError(404, f"there is no game {game_id}")
    return row, record


def _moves(row: GameRow) -> int:
    """How many moves ``row``'s game has had (cached once it has ended)."""
    cache: dict[tuple, int] = current_app.extensions.setdefault(MOVES_CACHE, {})
    key = (row.id, row.ended, row.result)      # a won game taken back and won again is ended anew
    if row.ended and key in cache:
        return cache[key]
    record = web().companion.store.record(row.id)
    count = placed(move_rows(record.replay().verdicts)) if record else 0
    if row.ended:
        cache[key] = count
    return count


def _listed(row: GameRow) -> dict:
    t = text()
    return {"id": row.id, "started": local_time(row.started), "players": players_words(row.to_json(), t),
            "result": result_words(row.result, bool(row.ended), row.rules, _moves(row), t), "playing": not row.ended}


@bp.get("/games")
def index() -> str:
    return render_template("games.html", games=[_listed(g) for g in web().companion.store.games()])


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    row, record = _game(game_id, page=True)
    verdicts = record.replay().verdicts
    moves = move_rows(verdicts, text())
    final = len(verdicts)
    step = request.args.get("move", type=int)
    step = final if step is None else max(0, min(final, step))
    if step == final:
        svg = stored_game(row, record, current_language())["svg"]
    else:
        cells, _ = board_cells(verdicts[:step])
        last = str(verdicts[step - 1].cell) if step and verdicts[step - 1].cell else None
        svg = board_svg(cells, last=last, red_sides=row.rules.red_sides, t=text(),
                        title=text().gettext("Game %(id)s after move %(step)s", id=row.id, step=step))
    shown = moves[step - 1] if step else None
    return render_template("game.html", game=row.to_json(), moves=moves, svg=svg, step=step, final=final,
                           shown=shown, started=local_time(row.started), players=players_words(row.to_json(), text()),
                           result=result_words(row.result, bool(row.ended), row.rules, placed(moves), text()))


@bp.get("/games/<int:game_id>/record.txt")
def record(game_id: int) -> Response:
    found = web().companion.store.record(game_id)
    if found is None:
        raise GameMissing(game_id)
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
