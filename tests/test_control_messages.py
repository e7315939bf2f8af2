"""The control page's actions each tell the player what actually happened: applied, refused with the
reason in a player's words, or waiting for the board (then the verdict comes over the event stream).
The handicap rules: a blank field means the standard set; impossible handicaps are refused naming the
field as the page names it."""

import re

import pytest
from doubles import Driver

from thoughtwave.webui.app import create_app, load_secret_key

PIN = "1357"


@pytest.fixture
def play(companion, game):
    return Driver(companion, game).play


@pytest.fixture
def client(companion, tmp_path):
    client = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4).test_client()
    csrf = client.get("/api/session").get_json()["csrf"]
    csrf = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).get_json()["csrf"]
    client.environ_base["HTTP_X_CSRF_TOKEN"] = csrf
    return client


def said(response) -> tuple[int, str, str]:
    """(HTTP status, the outcome's status or "refused", the sentence the player reads)."""
    body = response.get_json()
    if "error" in body:
        return response.status_code, "refused", body["error"]
    return response.status_code, body["done"]["status"], body["done"]["message"]


# ---- correct ------------------------------------------------------------------------------------------

def test_a_correction_of_a_ruled_cell_is_applied_and_says_the_new_verdict(client, play):
    play("red ew@E5", "black ns@E6")
    assert said(client.post("/api/correct", json={"cell": "E6", "colour": "black", "piece": "w"})) == (
        200, "applied", "Corrected E6: Black's terminator (w) on E6 counts: a legal move.")


def test_a_correction_the_referee_refuses_is_not_done_and_says_why(client, play):
    play("red ew@E5")
    status, outcome, message = said(client.post("/api/correct", json={"cell": "E5", "colour": "black",
                                                                       "piece": "ew"}))
    assert (status, outcome) == (400, "refused")
    assert message == "The referee would not accept Black's straight (ew) on E5: it is Red's turn, not Black's."
    moves = client.get("/api/state").get_json()["moves"]
    assert [(m["colour"], m["move"]) for m in moves] == [("red", "ew@E5")]


def test_a_correction_that_waits_for_the_board_says_so_then_the_verdict_comes(client, play):
    play("red ew@E5", "black nesw@E4")      # the illegal cross must come off before anything else is ruled
    response = client.post("/api/correct", json={"cell": "E7", "colour": "red", "piece": "ns"})
    assert said(response) == (200, "waiting", "E7 is taken as Red's straight (ns); the referee rules on it "
                                              "once the board is in order.")
    assert response.get_json()["done"]["cell"] == "E7"
    state = play("off E4", "wait 2")
    assert [(m["move"], m["verdict"]) for m in state["moves"]][-1] == ("ns@E7", "legal")


def test_a_correction_of_an_empty_cell_is_ruled_at_once_when_the_board_is_in_order(client, play):
    play("red ew@E5", "black nesw@E3")
    assert said(client.post("/api/correct", json={"cell": "E7", "colour": "red", "piece": "ns"})) == (
        200, "applied", "Red's straight (ns) on E7 counts: a legal move.")


def test_a_correction_ruled_at_once_reports_the_verdict(client, play):
    play("red ew@E5", "red ns@E6")          # refused: Red played twice; the camera still sees it
    assert said(client.post("/api/correct", json={"cell": "E6", "colour": "black", "piece": "ns"})) == (
        200, "applied", "Black's straight (ns) on E6 is an illegal placement (wave on the north edge of ns@E6 "
                        "touches the blank edge of E5); the penalty applies.")


def test_taking_away_a_piece_that_is_not_in_the_game_is_refused(client, play):
    play("red ew@E5")
    assert said(client.post("/api/correct", json={"cell": "B2", "piece": ""})) == (
        400, "refused", "The game has nothing on B2 to take away.")


def test_a_piece_without_an_owner_is_refused(client, play):
    play("red ew@E5")
    assert said(client.post("/api/correct", json={"cell": "B2", "piece": "ns"})) == (
        400, "refused", "Say whose piece it is: red or black.")


def test_a_blank_cell_is_refused_naming_the_field(client):
    assert said(client.post("/api/correct", json={"cell": " ", "colour": "red", "piece": "n"})) == (
        400, "refused", "Cell: write it like E5.")


# ---- undo and end ------------------------------------------------------------------------------------

def test_taking_back_a_move_says_which_and_what_to_lift(client, play):
    play("red ew@E5")
    assert said(client.post("/api/undo")) == (
        200, "applied", "Took back move 1: Red's straight (ew) on E5. Take that piece off E5.")


def test_taking_back_with_nothing_played_is_refused_in_words(client):
    assert said(client.post("/api/undo")) == (409, "refused", "There is no move to take back yet.")


def test_end_game_ends_it_without_starting_another_and_says_so(companion, client, play):
    play("red ew@E5", "black nesw@E3")
    before = client.get("/api/state").get_json()["game"]["id"]
    response = client.post("/api/game/end")
    assert said(response) == (200, "applied", f"Game {before} has ended after 2 moves, with no winner. Clear the "
                                               "board to start the next game, or start a new one below.")
    state = response.get_json()
    assert state["game"]["id"] == before and state["game"]["ended"]
    assert [g["id"] for g in client.get("/api/games").get_json()["games"]] == [before]
    # Pieces laid after the end are not counted, and nothing more can be changed in the ended game.
    state = play("red ns@A1")
    assert [m["move"] for m in state["moves"]] == ["ew@E5", "nesw@E3"]
    assert said(client.post("/api/undo")) == (409, "refused", f"Game {before} has ended: start a new game first.")
    assert said(client.post("/api/game/end")) == (409, "refused", f"Game {before} has already ended.")
    # A cleared board starts the next game.
    state = play("clear")
    assert state["game"]["id"] != before and state["moves"] == []


# ---- new game and the handicap -----------------------------------------------------------------------

def test_a_new_game_says_who_plays_and_the_penalty_in_words(client):
    response = client.post("/api/game/new", json={"red": "Ann", "black": "", "penalty": "forfeit",
                                                   "first": "black", "computer": "none"})
    game = response.get_json()["game"]["id"]
    assert said(response) == (200, "applied", f"Game {game} has started: Ann (red) against Black (black); Black "
                                               "moves first; illegal piece: it is lost, and play goes on.")


def test_a_blank_handicap_means_the_standard_set_not_the_last_one(client):
    state = client.post("/api/game/new", json={"red_pieces": "bend=0 cross=0"}).get_json()
    assert state["left"]["red"]["bend"] == 0
    assert state["done"]["message"].endswith(" Red has 1 terminator, 0 bends, 5 straights, 6 junctions and "
                                              "0 crosses.")
    state = client.post("/api/game/new", json={"red_pieces": "", "black_pieces": ""}).get_json()
    assert state["left"]["red"] == {"terminator": 1, "bend": 10, "straight": 5, "junction": 6, "cross": 2}
    assert state["left"]["black"] == state["left"]["red"]


@pytest.mark.parametrize("fields, message", [
    ({"red_pieces": "bend=11"}, "Red's bends: at most 10."),
    ({"black_pieces": "cross=3"}, "Black's crosses: at most 2."),
    ({"red_pieces": "terminator=0 bend=0 straight=0 junction=0 cross=0"},
     "Red's pieces (handicap): a player needs at least one piece."),
    ({"black_pieces": "dragon=2"},
     "Black's pieces (handicap): 'dragon=2' is not KIND=COUNT (kinds: terminator, bend, straight, junction, "
     "cross)."),
    ({"inventory": {"red": {"bend": "ten"}}}, "Red's bends: a whole number from 0 to 10."),
])
def test_impossible_handicaps_are_refused_naming_the_field(client, fields, message):
    before = client.get("/api/state").get_json()["game"]["id"]
    assert said(client.post("/api/game/new", json=fields)) == (400, "refused", message)
    assert client.get("/api/state").get_json()["game"]["id"] == before      # no game was started


def test_the_page_offers_the_penalties_in_words_and_hides_the_computer_fields_in_a_two_person_game(client):
    html = client.get("/control").get_data(as_text=True)
    assert "illegal piece: it is lost and the player misses a turn" in html
    assert ">skip-turn<" not in html
    assert re.search(r'id="computer-fields"[^>]* hidden>', html)
    assert "Take back the last move" in html and "Undo last verdict" not in html
