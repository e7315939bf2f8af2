"""The display's view model without a browser: one banner per kind of flag saying what to do, goal edges that
stand out from the board, only the winner's wave lit, and a board label a screen reader can speak."""

import re

from thoughtwave.webui.boardsvg import EDGE_PLATE, RIM, SIDE_FILL, board_svg
from thoughtwave.webui.view import flag_banners


def _flag(kind: str, cell: str | None, message: str = "do something") -> dict:
    return {"kind": kind, "cell": cell, "message": message}


def _contrast(a: str, b: str) -> float:
    def luminance(colour: str) -> float:
        channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
        linear = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
        return 0.2126 * linear[0] + 0.7152 * linear[1] + 0.0722 * linear[2]
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_a_new_game_with_pieces_left_shows_one_banner_that_says_clear_the_board():
    cells = ["A1", "B2", "C3"]
    banners = flag_banners([_flag("differs", c) for c in cells] + [_flag("hand", None, "please clear")],
                           new_game=True)
    assert [b["kind"] for b in banners] == ["clear-board", "hand"]
    assert banners[0] == {"kind": "clear-board", "tone": "alert", "cells": cells,
                          "text": "Clear the board: 3 pieces are still on it (A1, B2, C3)"}
    assert banners[1]["tone"] == "warn" and banners[1]["text"].startswith("Take your hand")
    assert flag_banners([_flag("unexplained", "D4")], new_game=True)[0]["text"] == \
        "Clear the board: a piece is still on it (D4)"


def test_mid_game_flags_group_by_kind_and_a_single_flag_keeps_its_own_advice():
    flags = [_flag("lifted", "E5"), _flag("illegal-piece", "A6", "take the black straight ns off A6"),
             _flag("lifted", "F5"), _flag("unreadable", "J9")]
    banners = flag_banners(flags, new_game=False)
    assert [(b["kind"], b["cells"]) for b in banners] == [
        ("lifted", ["E5", "F5"]), ("illegal-piece", ["A6"]), ("unreadable", ["J9"])]
    assert banners[0]["text"] == "Put the 2 missing pieces back on E5, F5"
    assert banners[1]["text"] == "Take the black straight ns off A6"
    assert [b["tone"] for b in banners] == ["alert", "alert", "warn"]
    # after a restart (moves made) pieces the stored game lacks are not "left over": they keep their advice
    assert flag_banners([_flag("differs", "A1"), _flag("differs", "B1")], new_game=False)[0]["kind"] == "differs"


def test_both_players_goal_edges_stand_out_from_the_board_at_3_to_1():
    for colour in ("red", "black"):
        assert _contrast(SIDE_FILL[colour], EDGE_PLATE) >= 3, colour
    assert _contrast(EDGE_PLATE, RIM) >= 3
    svg = board_svg({})
    assert svg.count(f'stroke="{EDGE_PLATE}"') == 4      # every bar sits on the light plate


def test_only_the_winners_wave_and_edges_are_lit():
    # Red joins west-east along row 5; the cross on F5 also points north-south (Black's direction)
    cells = {f"{c}5": ("red", "ew") for c in "ABCDEGHIJ"} | {"F5": ("red", "nesw"), "F4": ("black", "ns")}
    svg = board_svg(cells, wave=[f"{c}5" for c in "ABCDEFGHIJ"])
    lit = dict(re.findall(r'data-cell="(\w+)"[^>]*>(?:(?!</g>).)*?<path class="win" d="([^"]+)"', svg))
    assert sorted(lit) == sorted(f"{c}5" for c in "ABCDEFGHIJ")
    assert lit["F5"] == "M50 50 L100 50 M50 50 L0 50"      # west and east arms only
    assert 'class="side side-red win"' in svg and "side-black win" not in svg
    assert svg.count('class="side side-red win"') == 2
    # no winner: nothing lit
    assert 'class="win"' not in board_svg(cells) and " win\"" not in board_svg(cells)


def test_the_board_label_summarises_the_position():
    svg = board_svg({"E5": ("red", "ew"), "F5": ("black", "ns")}, last="F5", flags={"A1": "lifted"})
    label = re.search(r'aria-label="([^"]+)"', svg).group(1)
    assert label == "Thoughtwave board: 1 red and 1 black pieces; last placed on F5; 1 flagged cell"


def test_several_unreadable_cells_say_each_cause_with_its_cells():
    flags = [_flag("unreadable", "E5", "glare on E5: tilt the lamp or the board") | {"cause": "glare"},
             _flag("unreadable", "F5", "glare on F5: tilt the lamp or the board") | {"cause": "glare"},
             _flag("unreadable", "A1", "A1 is in shadow: move what casts it or add light") | {"cause": "shadow"},
             _flag("unreadable", "J9", "can't read J9: clear anything covering it or check the light")]
    [banner] = flag_banners(flags, new_game=False)
    assert banner["cells"] == ["E5", "F5", "A1", "J9"]
    assert banner["text"] == ("Glare on E5, F5: tilt the lamp or the board; A1 is in shadow: move what casts it or "
                              "add light; Can't read J9: clear anything covering it or check the light")


def test_cells_that_look_like_no_piece_are_worded_together_in_each_language():
    from thoughtwave.engine.cells import Cell
    from thoughtwave.i18n import Text
    from thoughtwave.i18n.phrases import say
    from thoughtwave.vision.causes import Cause, cause_message

    flags = [_flag("unreadable", c, str(cause_message(Cause.UNCLEAR, Cell.parse(c)))) | {"cause": "unclear"}
             for c in ("E5", "F5")]
    [banner] = flag_banners(flags, new_game=False)
    assert banner["text"] == ("E5, F5 look like neither empty cells nor whole tiles: lay their tiles flat or clear "
                              "what is on them")
    [french] = flag_banners(flags, new_game=False, t=Text("fr"))
    assert french["text"].startswith("Les cases E5, F5 ne ressemblent ni")
    one = cause_message(Cause.UNCLEAR, Cell.parse("E5"))
    assert say(Text("de"), one.phrase).startswith("Feld E5 sieht weder")


def test_a_cause_over_many_cells_names_the_first_few_and_counts_the_rest_in_each_language():
    from thoughtwave.engine.cells import Cell
    from thoughtwave.i18n import Text
    from thoughtwave.vision.causes import Cause, cause_message

    dark = [f"{c}{r}" for r in (1, 2) for c in "ABCDEFGHIJ"]             # a dim lamp: two rows in shadow
    flags = [_flag("unreadable", c, str(cause_message(Cause.SHADOW, Cell.parse(c)))) | {"cause": "shadow"}
             for c in dark]
    flags += [_flag("unreadable", c, str(cause_message(Cause.GLARE, Cell.parse(c)))) | {"cause": "glare"}
              for c in ("E5", "F5")]
    [banner] = flag_banners(flags, new_game=False)
    assert banner["cells"] == dark + ["E5", "F5"]                          # the board still marks every one
    assert banner["text"] == ("A1, B1, C1, D1, E1, F1 and 14 more are in shadow: move what casts it or add light; "
                              "Glare on E5, F5: tilt the lamp or the board")
    [french] = flag_banners(flags, new_game=False, t=Text("fr"))
    assert french["text"].startswith("Les cases A1, B1, C1, D1, E1, F1 et 14 autres sont dans l'ombre")
    [german] = flag_banners(flags, new_game=False, t=Text("de"))
    assert german["text"].startswith("Felder A1, B1, C1, D1, E1, F1 und 14 weitere liegen im Schatten")
    # Six cells are still named one by one.
    [six] = flag_banners(flags[:6], new_game=False)
    assert six["text"].startswith("A1, B1, C1, D1, E1, F1 are in shadow")
