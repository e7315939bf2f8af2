"""The control page's refusals in the page's language: a handicap that is not one, the computer opponent's
settings, a correction without a cell. Each is a whole sentence in French (German), and the English client
keeps the words it always had."""

import pytest
from test_i18n import PIN

from thoughtwave.webui.app import create_app, load_secret_key

BODIES = {
    "pieces": ("/api/game/new", {"red_pieces": "bend=x"}),
    "count": ("/api/game/new", {"inventory": {"black": {"bend": 11}}}),
    "unknown": ("/api/game/new", {"inventory": {"red": {"blob": 1}}}),
    "none": ("/api/game/new", {"red_pieces": "terminator=0 bend=0 straight=0 junction=0 cross=0"}),
    "computer": ("/api/game/new", {"computer": "green"}),
    "penalty": ("/api/game/new", {"penalty": "jail"}),
    "cell": ("/api/correct", {"cell": " "}),
}

EXPECTED = {
    "en": {"count": "Black's bends: at most 10.", "computer":
           "The computer: the computer plays red or black (or nobody, for two people).",
           "none": "Red's pieces (handicap): a player needs at least one piece.", "cell": "Cell: write it like E5."},
    "fr": {"count": "courbes de Noir : au plus 10", "computer":
           "l'ordinateur joue Rouge ou Noir (ou personne, pour deux joueurs)", "cell": "Case : écrivez-la comme E5."},
    "de": {"count": "Kurven von Schwarz: höchstens 10", "computer":
           "der Computer spielt Rot oder Schwarz (oder niemand, für zwei Personen)",
           "cell": "Feld: schreiben Sie es wie E5."},
}


@pytest.fixture
def client(companion, tmp_path):
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4)
    client = app.test_client()
    csrf = client.get("/api/session").get_json()["csrf"]
    csrf = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).get_json()["csrf"]
    client.csrf = csrf
    return client


def _errors(client, lang: str) -> dict[str, str]:
    headers = {"X-CSRF-Token": client.csrf} | ({"Accept-Language": lang} if lang != "en" else {})
    errors = {}
    for name, (path, body) in BODIES.items():
        response = client.post(path, json=body, headers=headers)
        assert response.status_code == 400, (name, response.get_json())
        errors[name] = response.get_json()["error"]
    return errors


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
def test_the_control_pages_refusals_are_whole_sentences_in_the_pages_language(client, companion, lang):
    game = companion.game.id
    errors = _errors(client, lang)
    for name, expected in EXPECTED[lang].items():
        assert errors[name].lower() == expected.lower() or errors[name].startswith(expected), (name, errors[name])
    if lang != "en":
        english = _errors(client, "en")
        for name in BODIES:
            assert errors[name] != english[name], f"{name} is still English in {lang}: {errors[name]}"
    assert companion.game.id == game and not companion.game.ended, "a refused request changes no game"
