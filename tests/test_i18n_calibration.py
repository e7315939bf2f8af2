"""The calibration page after a check, and the reader's causes, in the players' language: every check's name,
mark, measure and advice, the summary and the glare and shadow map are French (German) on a French (German)
page while the CLI's English words stay as they were; an unreadable cell's flag names its cause in the
viewer's language."""

import json
import re
from dataclasses import replace

import numpy as np
import pytest
from test_i18n import OTHERS, PIN, VisibleText, english_words, html_lang

from thoughtwave.calibration.calibrate import Calibration
from thoughtwave.calibration.checks import cell_size_check, colour_check, exposure_check, focus_check, light_map
from thoughtwave.calibration.profile import FILE_NAME, Profile, load_profile, save_profile
from thoughtwave.config import Config
from thoughtwave.engine import Referee
from thoughtwave.engine.cells import CELLS, Cell
from thoughtwave.engine.phrases import said_as
from thoughtwave.engine.table import Table
from thoughtwave.game import Notice
from thoughtwave.i18n import Text
from thoughtwave.i18n.calibration import words
from thoughtwave.i18n.phrases import say
from thoughtwave.vision.causes import Cause, CellLight, cause_message
from thoughtwave.webui.app import create_app, load_secret_key
from thoughtwave.webui.calibration_desk import CalibrationDesk
from thoughtwave.webui.view import render_state

GLARE, SHADOW = ("A1", "B1", "J10"), ("E5", "E6")
PICTURE = np.zeros((48, 64, 3), np.uint8)


def lit_board() -> CellLight:
    """An empty board's light with a lamp's reflection on GLARE (not clipped enough to refuse) and a shadow on
    SHADOW: the map warns."""
    light, paper = np.ones(100), np.full(100, 200.0)
    clipped, evenness = np.zeros(100), np.ones(100)
    for name in GLARE:
        clipped[Cell.parse(name).index] = 0.05
    for name in SHADOW:
        light[Cell.parse(name).index] = 0.5
    return CellLight(light, paper, clipped, evenness)


def dark_calibration(frames, lens=None) -> Calibration:
    """What calibrating a dim, soft picture gives: a FAIL (exposure, focus) and warnings (cell size, colours,
    the light map), each with advice, measured by the real checks."""
    light = light_map(lit_board())
    checks = [cell_size_check(24.0), focus_check(3.0, 24.0), exposure_check(np.full((64, 64, 3), 40, np.uint8)),
              light.check, colour_check(None)]
    profile = Profile(resolution=(64, 48), homography=((1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)),
                      cell_px=24.0, checks=tuple(checks))
    return Calibration(checks, profile, light)


@pytest.fixture
def client(companion, tmp_path):
    desk = CalibrationDesk(tmp_path / FILE_NAME, 0.4, calibrate=dark_calibration)
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4,
                     config=Config().with_state_dir(tmp_path), desk=desk)
    app.extensions["thoughtwave"].desk.check((PICTURE,))
    return app.test_client()


def test_the_checks_keep_their_english_words_for_the_cli():
    result = dark_calibration([PICTURE])
    lines = [c.line() for c in result.checks]
    assert lines[1].startswith("FAIL  focus: edges 3.0 px wide (12% of a cell) -> focus the lens")
    assert "glare on A1, B1, J10: turn or raise the lamp" in lines[3]
    assert "shadow on E5, E6: move what casts it" in lines[3]
    assert result.profile.to_json()["checks"][2]["advice"] == \
        "too dark: add light over the board or raise the exposure", "the profile stores plain English"


def test_the_page_shows_the_light_map_with_the_cells_named_in_words(client):
    html = client.get("/calibrate").get_data(as_text=True)
    assert html.count('<td class="glare">') == len(GLARE) and html.count('<td class="shadow">') == len(SHADOW)
    assert html.count('<td class="ok">') == 100 - len(GLARE) - len(SHADOW)
    assert "Glare on 3 cells: A1, B1, J10." in html and "Shadow on 2 cells: E5, E6." in html
    assert 'class="light-verdict warn"' in html and "glare on A1, B1, J10: turn or raise the lamp" in html
    last = client.get("/api/calibrate").get_json()["last_check"]
    rows = last["light"]["rows"]
    assert [(r, c) for r in range(10) for c in range(10) if rows[r][c] == "glare"] == [(0, 0), (0, 1), (9, 9)]
    assert last["light"]["glare"] == list(GLARE) and last["light"]["status"] == "warn"


@pytest.mark.parametrize("lang", OTHERS)
def test_after_a_check_the_french_and_german_calibration_page_shows_no_english(client, lang):
    foreign = english_words(lang)
    csrf = client.get("/api/session").get_json()["csrf"]
    assert client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).status_code == 200
    html = client.get("/calibrate", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert html_lang(html) == lang
    assert html.count('class="check fail"') == 2 and html.count('class="check warn"') == 3
    parser = VisibleText()
    parser.feed(html)
    for text in parser.texts:
        seen = {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", text)} & foreign
        assert not seen, f"{lang}: English {sorted(seen)} in {text!r}"
    t = Text(lang)
    last = client.get("/api/calibrate", headers={"Accept-Language": lang}).get_json()["last_check"]
    focus = next(c for c in last["checks"] if c["name"] == "focus")
    assert focus["status"] == "FAIL" and focus["mark"] == t.pgettext("check", "FAIL") != "FAIL"
    assert focus["measured"] == {"fr": "bords larges de 3,0 px (12 % d'une case)",
                                 "de": "Kanten 3,0 px breit (12 % eines Feldes)"}[lang]
    assert last["light"]["glare_text"] == {"fr": "Reflets sur 3 cases : A1, B1, J10.",
                                           "de": "Spiegelung auf 3 Feldern: A1, B1, J10."}[lang]
    assert "A1, B1, J10" in last["light"]["advice"] and "E5, E6" in last["light"]["advice"]
    assert last["summary"].startswith({"fr": "Échec : netteté, exposition.",
                                       "de": "Nicht bestanden: Schärfe, Belichtung."}[lang])


@pytest.mark.parametrize("lang", OTHERS)
def test_after_a_restart_the_stored_checks_are_said_in_the_pages_language(companion, tmp_path, lang):
    save_profile(dark_calibration([PICTURE]).profile, tmp_path / FILE_NAME)
    stored = load_profile(tmp_path / FILE_NAME)
    assert [c.line() for c in stored.checks] == [c.line() for c in dark_calibration([PICTURE]).checks]
    desk = CalibrationDesk(tmp_path / FILE_NAME, 0.4, calibrate=dark_calibration)   # no check since the start
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4,
                     config=Config().with_state_dir(tmp_path), desk=desk)
    html = app.test_client().get("/calibrate", headers={"Accept-Language": lang}).get_data(as_text=True)
    assert {"fr": "bords larges de 3,0 px", "de": "Kanten 3,0 px breit"}[lang] in html
    parser = VisibleText()
    parser.feed(html)
    foreign = english_words(lang)
    for text in parser.texts:
        seen = {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", text)} & foreign
        assert not seen, f"{lang}: English {sorted(seen)} in {text!r}"


def test_a_profile_without_phrases_still_loads_with_its_english_checks(tmp_path):
    data = json.loads(json.dumps(dark_calibration([PICTURE]).profile.to_json()))     # as read from the file
    del data["check_phrases"]
    restored = Profile.from_json(data)
    assert restored.checks[1].measured == "edges 3.0 px wide (12% of a cell)"
    damaged = [{"measured": {"phrase": 7}, "advice": {"phrase": "x", "english": "not the advice", "values": 3}}]
    data["check_phrases"] = damaged * len(data["checks"])     # damaged: the checks load, in English
    loaded = Profile.from_json(data)
    assert [c.line() for c in loaded.checks] == [c.line() for c in restored.checks]
    assert not any(said_as(c.measured) or said_as(c.advice) for c in loaded.checks)


def test_an_advice_naming_many_cells_counts_the_rest_in_each_language():
    light = lit_board()
    light.light[:9] = 0.5      # A1 to I1 dim: 7 cells in shadow there (A1 and B1 glare), and E5, E6
    check = light_map(light).check
    assert "shadow on C1, D1, E1, F1, G1, H1 and 3 more" in check.advice
    assert "ombre sur C1, D1, E1, F1, G1, H1 et 3 autres" in words(Text("fr"), check.advice)
    assert "Schatten auf C1, D1, E1, F1, G1, H1 und 3 weitere" in words(Text("de"), check.advice)


@pytest.mark.parametrize(("lang", "glare", "shadow"), [
    ("fr", "reflet sur la case E5 : inclinez la lampe ou le plateau",
     "la case E5 est dans l'ombre : déplacez ce qui fait de l'ombre ou ajoutez de la lumière"),
    ("de", "Spiegelung auf Feld E5: kippen Sie die Lampe oder den Spielplan",
     "Feld E5 liegt im Schatten: entfernen Sie, was ihn wirft, oder machen Sie mehr Licht"),
])
def test_an_unreadable_cells_flag_names_its_cause_in_the_viewers_language(lang, glare, shadow):
    e5 = Cell.parse("E5")
    table = Table(Referee())
    seen = {cell: None for cell in CELLS if cell != e5}
    for cause, expected in ((Cause.GLARE, glare), (Cause.SHADOW, shadow)):
        table.observe(seen, [e5], {e5: cause_message(cause, e5)})
        flag = table.flags[e5]
        assert flag.message == cause_message(cause, e5), "English stays the reader's words"
        assert say(Text(lang), flag.why) == expected
    for cause in Cause:
        said = say(Text(lang), Table(Referee()).observe(seen, [e5], {e5: cause_message(cause, e5)})[0].flag.why)
        assert "E5" in said and said != cause_message(cause, e5), cause


# ---- refusals -------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("lang", "level", "name", "save"), [
    ("en", "level: Input should be less than or equal to 1000000", "red must be at most 40 characters",
     "the companion is not reading a camera: there is no profile to change"),
    ("fr", "niveau : au plus 1000000", "nom de Rouge : 40 caractères au plus",
     "le compagnon ne lit pas de caméra : il n'y a pas de profil à changer"),
    ("de", "Stufe: höchstens 1000000", "Name von Rot: höchstens 40 Zeichen",
     "der Begleiter liest keine Kamera: es gibt kein Profil zu ändern"),
])
def test_a_refused_request_says_why_in_the_pages_language(companion, tmp_path, lang, level, name, save):
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4,
                     config=Config().with_state_dir(tmp_path))
    client = app.test_client()
    csrf = client.get("/api/session").get_json()["csrf"]
    csrf = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf} | ({"Accept-Language": lang} if lang != "en" else {})

    def error(path: str, body: dict) -> str:
        response = client.post(path, json=body, headers=headers)
        assert 400 <= response.status_code < 500
        return response.get_json()["error"]

    assert error("/api/game/new", {"level": 10**7}) == level
    assert error("/api/game/new", {"red": "x" * 41}) == name
    assert error("/api/calibrate/save", {}) == save, "the companion reads a scripted game"
    not_json = client.post("/api/undo", data="[1", content_type="application/json", headers=headers)
    assert not_json.get_json()["error"].startswith({"en": "the body must be a JSON object: ",
                                                    "fr": "le corps de la requête doit être un objet JSON : ",
                                                    "de": "der Inhalt der Anfrage muss ein JSON-Objekt sein: "}[lang])


@pytest.mark.parametrize("lang", ["en", *OTHERS])
def test_several_unreadable_cells_on_the_display_each_name_their_cause(companion, lang):
    cells = [Cell.parse(c) for c in ("E5", "F5", "A1")]
    causes = {cells[0]: Cause.GLARE, cells[1]: Cause.GLARE, cells[2]: Cause.SHADOW}
    seen = {c: None for c in CELLS}
    table = Table(Referee())
    observed = table.observe(seen, cells, {c: cause_message(causes[c], c) for c in cells})
    notices = tuple(Notice(o.flag.kind.value, o.flag.cell, o.flag.message, o.flag.why) for o in observed)
    state = render_state(replace(companion.state(), notices=notices), lang)
    assert {f["cell"]: f.get("cause") for f in state["flags"]} == {"E5": "glare", "F5": "glare", "A1": "shadow"}
    [banner] = state["banners"]
    t = Text(lang)
    glare = t.gettext("glare on %(cells)s: tilt the lamp or the board", cells="E5, F5")
    shadow = say(t, notices[[str(n.cell) for n in notices].index("A1")].why)
    assert glare[1:] in banner["text"] and shadow[1:] in banner["text"], banner["text"]
