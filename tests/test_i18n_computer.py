"""The computer opponent in the players' language: its player's name (stored in English when a new game names
it) and why it has no move, on the display of a French or German viewer; a name the players typed stays."""

import ast
import re
from pathlib import Path

import pytest
from test_i18n import OTHERS, PIN, english_words

from thoughtwave.config import Config
from thoughtwave.game import opponent
from thoughtwave.i18n import Text
from thoughtwave.webui.app import create_app, load_secret_key
from thoughtwave.webui.localized import computer_error, game_names


def opponent_errors() -> list[str]:
    """Every English sentence the opponent gives as the computer's error (the literals assigned to ``error``)."""
    tree = ast.parse(Path(opponent.__file__).read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        targets = getattr(node, "targets", [])
        names = {n.id if isinstance(n, ast.Name) else n.attr for t in targets for n in ast.walk(t)
                 if isinstance(n, ast.Name | ast.Attribute)}
        if "error" in names and isinstance(node.value, ast.Constant | ast.Tuple):
            values = node.value.elts if isinstance(node.value, ast.Tuple) else [node.value]
            found += [v.value for v in values if isinstance(v, ast.Constant) and isinstance(v.value, str)]
    return found


@pytest.mark.parametrize("lang", OTHERS)
def test_every_error_of_the_computer_is_said_in_the_viewers_language(lang):
    errors = opponent_errors() + ["the computer could not choose a move (RuntimeError)"]
    assert len(errors) == 4, errors
    t, foreign = Text(lang), english_words(lang)
    for error in errors:
        said = computer_error(t, error)
        assert said != error and not {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", said)} & foreign, (error, said)
        assert computer_error(Text("en"), error) == error
    assert computer_error(t, "the computer could not choose a move (RuntimeError)").endswith("(RuntimeError)")


def test_the_computers_name_is_said_in_the_viewers_language_and_a_typed_name_stays():
    game = {"id": 1, "red": "Ann", "black": "Computer (level 2)",
            "opponent": {"colour": "black", "level": 2, "seconds": 1.0}}
    assert game_names(Text("fr"), game)["black"] == "Ordinateur (niveau 2)"
    assert game_names(Text("de"), game)["black"] == "Computer (Stufe 2)"
    assert game_names(Text("en"), game) == game
    named = {**game, "black": "Deep Wave"}
    assert game_names(Text("fr"), named) == named
    assert game_names(Text("fr"), {"id": 2, "red": "Ann", "black": "Bob", "opponent": None})["black"] == "Bob"


def test_a_game_against_the_computer_on_a_french_display(companion, tmp_path):
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4,
                     config=Config().with_state_dir(tmp_path))
    client = app.test_client()
    csrf = client.get("/api/session").get_json()["csrf"]
    csrf = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).get_json()["csrf"]
    started = client.post("/api/game/new", json={"computer": "black", "level": 1}, headers={"X-CSRF-Token": csrf})
    assert started.status_code == 200
    french = client.get("/api/state", headers={"Accept-Language": "fr"}).get_json()
    assert french["game"]["black"] == "Ordinateur (niveau 1)" and french["computer"]["name"] == "Ordinateur (niveau 1)"
    english = client.get("/api/state").get_json()
    assert english["game"]["black"] == "Computer (level 1)" and english["computer"]["name"] == "Computer (level 1)"
    games = client.get("/games", headers={"Accept-Language": "de"}).get_data(as_text=True)
    assert "Computer (Stufe 1)" in games and "Computer (level 1)" not in games
