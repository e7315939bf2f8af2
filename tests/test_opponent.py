"""Playing the computer on the physical board: the opponent stored with the game, the instruction the
display gives, the table that accepts only the instructed piece, and the search kept off the camera loop."""

import sqlite3

import pytest

from engine import Colour, Move, Rules
from webui.opponent import Instruction, Opponent, laying_advice, wave_words
from webui.store import Store

# ---- the opponent and its storage -------------------------------------------------------------------

def test_the_opponent_reads_its_stored_form_and_form_fields_and_refuses_bad_ones():
    opponent = Opponent(Colour.BLACK, 2, 1.5)
    assert Opponent.from_json(opponent.to_json()) == opponent
    assert Opponent.from_json({"colour": "red", "level": "1", "seconds": "0.5"}) == Opponent(Colour.RED, 1, 0.5)
    for nobody in (None, {}, "", {"colour": ""}, {"colour": "none"}):
        assert Opponent.from_json(nobody) is None
    for bad in ({"colour": "green"}, {"colour": "red", "level": 4}, {"colour": "red", "level": "x"},
                {"colour": "red", "seconds": 0}, {"colour": "red", "seconds": "nan"}, {"colour": "red", "level": 1.5},
                {"colour": "red", "level": True}, [1]):
        with pytest.raises(ValueError):
            Opponent.from_json(bad)


def test_a_game_against_the_computer_is_stored_and_an_old_database_gains_the_column(tmp_path):
    path = tmp_path / "old.sqlite3"
    old = sqlite3.connect(path)
    old.executescript("""CREATE TABLE games (id INTEGER PRIMARY KEY, rules TEXT NOT NULL, red TEXT NOT NULL DEFAULT '',
        black TEXT NOT NULL DEFAULT '', started TEXT NOT NULL, ended TEXT, result TEXT NOT NULL DEFAULT 'ongoing');
        INSERT INTO games (rules, red, black, started) VALUES ('{}', 'Ann', 'Bob', '2026-01-01T00:00:00+00:00');""")
    old.commit()
    old.close()
    store = Store(path)
    first = store.game(1)
    assert first is not None and (first.red, first.opponent) == ("Ann", None)
    game = store.new_game(Rules(), "Ann", "Computer", Opponent(Colour.BLACK, 1, 0.5).to_json())
    assert store.game(game).opponent == {"colour": "black", "level": 1, "seconds": 0.5}
    assert store.game(game).to_json()["opponent"]["colour"] == "black"
    store.close()
    assert Store(path).latest_game().opponent["level"] == 1      # opening it again: no second migration


# ---- what the person is told ------------------------------------------------------------------------

def test_the_instruction_names_the_piece_the_cell_and_how_the_wave_runs():
    told = Instruction(Move.parse("ne@F4"), Colour.BLACK, 0.61, ())
    assert told.text == "Black plays bend ne at F4"
    assert told.detail == "lay the black bend so its wave runs north and east"
    assert told.spoken == "Black plays the bend, north and east, at F 4"
    assert told.to_json()["move"] == "ne@F4" and told.to_json()["kind"] == "bend"
    assert wave_words(Move.parse("nes@A1").piece) == "north, east and south"
    assert "any way round" in laying_advice(Move.parse("nesw@A1").piece, Colour.RED)
    assert laying_advice(Move.parse("w@A1").piece, Colour.RED) == \
        "lay the red terminator so its wave runs west from the middle"
