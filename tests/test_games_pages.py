"""The games pages: results in words, the Pi's local time, a phone-friendly table, stepping through a game
move by move, and HTML error pages for browsers (JSON for /api/)."""

import time

import pytest
from doubles import Driver

from thoughtwave.engine import Rules
from thoughtwave.game import Settings
from thoughtwave.webui.app import create_app, load_secret_key
from thoughtwave.webui.words import local_time, result_words

HTML = {"Accept": "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}
# Red links west and east along row 5 while Black lays a row of its own on row 8.
RED, BLACK = ["ew"] * 5 + ["nesw"] * 2 + ["new"] * 3, ["ew"] * 5 + ["esw"] * 4
WIN = [line for i, col in enumerate("ABCDEFGHIJ")
       for line in [f"red {RED[i]}@{col}5"] + ([f"black {BLACK[i]}@{col}8"] if i < 9 else [])]


@pytest.fixture
def settings():
    return Settings(auto_new_game=False)   # an ended game stays shown: these tests read its page


@pytest.fixture
def client(companion, tmp_path):
    return create_app(companion, pin="1357", secret_key=load_secret_key(tmp_path), threads=4).test_client()


def test_results_read_as_words():
    rules = Rules()
    assert result_words("red", True, rules, 31) == "Red won, linking west and east, in 31 moves."
    assert result_words("black", True, rules, 1) == "Black won, linking north and south, in 1 move."
    assert result_words("draw", True, rules, 48) == "A draw, after 48 moves."
    assert result_words("ongoing", True, rules, 3) == "Abandoned after 3 moves, with no winner."
    assert result_words("ongoing", False, rules, 3) == "Being played: 3 moves so far."


def test_times_are_shown_in_the_local_time(monkeypatch):
    monkeypatch.setenv("TZ", "Europe/Paris")
    time.tzset()
    try:
        assert local_time("2026-01-15T10:30:00+00:00") == "2026-01-15 11:30"
        assert local_time("2026-07-15T10:30:00+00:00") == "2026-07-15 12:30"
    finally:
        monkeypatch.delenv("TZ")
        time.tzset()


def test_the_list_says_who_won_and_ended_games_are_not_ongoing(companion, game, client):
    driver = Driver(companion, game)
    state = driver.play(*WIN)
    assert state["winner"] == "red"
    won = state["game"]["id"]
    driver.play("clear")
    companion.new_game()
    driver.play("red ew@E5")
    companion.end()
    html = client.get("/games").get_data(as_text=True)
    assert f"Red won, linking west and east, in {len(WIN)} moves." in html
    assert "Abandoned after 1 move, with no winner." in html
    assert "ongoing" not in html and "(UTC)" not in html
    assert 'data-label="Result"' in html and f'href="/games/{won}"' in html


def test_a_game_page_steps_through_the_moves(companion, game, client):
    Driver(companion, game).play("red ew@E5", "black ns@A1", "red ns@C3")
    gid = companion.game.id
    start = client.get(f"/games/{gid}?move=0").get_data(as_text=True)
    assert "Before the first move." in start and 'data-cell="E5"' not in _tiles(start)
    one = client.get(f"/games/{gid}?move=1").get_data(as_text=True)
    assert "Move 1 of 3: Red ew@E5." in one and 'aria-current="step"' in one
    assert 'data-cell="E5"' in _tiles(one) and 'data-cell="C3"' not in _tiles(one)
    assert f'href="/games/{gid}?move=2"' in one and f'href="/games/{gid}?move=0"' in one
    last = client.get(f"/games/{gid}").get_data(as_text=True)
    assert "Move 3 of 3: Red ns@C3." in last
    assert client.get(f"/games/{gid}?move=99").get_data(as_text=True).count("Move 3 of 3") == 1


def _tiles(html: str) -> str:
    """The drawn tiles of a page's board (the cells with a piece carry their name)."""
    return html[html.index("<svg"):html.index("</svg>")]


def test_an_unknown_game_is_an_html_page_for_a_browser_and_json_for_the_api(client):
    page = client.get("/games/999", headers=HTML)
    assert page.status_code == 404 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "There is no game 999." in text and 'href="/games"' in text
    assert client.get("/nowhere", headers=HTML).mimetype == "text/html"
    api = client.get("/api/games/999", headers=HTML)
    assert api.status_code == 404 and "error" in api.get_json()
    assert client.get("/games/999").get_json()["error"]          # no Accept: JSON, as before
