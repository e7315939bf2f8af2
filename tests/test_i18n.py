"""The players' languages: every message has a French and a German translation with the same placeholders, the
catalogs hold every message the sources ask for, the page language is chosen as the README says, the pages
in French and German show no English, and the CLI's JSON and the notation stay language-neutral."""

import ast
import json
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.pofile import read_po
from doubles import Driver

from thoughtwave.config import Config, DisplayConfig
from thoughtwave.engine import Penalty, Referee
from thoughtwave.engine.phrases import Phrase
from thoughtwave.i18n import LANGUAGES, Text, catalog_path, negotiate, terminal_language
from thoughtwave.i18n.phrases import known_codes, say
from thoughtwave.webui.app import create_app, load_secret_key

ROOT = Path(__file__).resolve().parent.parent
THOUGHTWAVE = Path(sys.executable).parent / "thoughtwave"
PLACEHOLDER = re.compile(r"%\((\w+)\)[sd]")
OTHERS = [lang for lang in LANGUAGES if lang != "en"]
PIN = "246813"


def catalog(lang: str):
    with catalog_path(lang).open("rb") as f:
        return read_po(f)


def source_messages() -> set[tuple[str | None, str]]:
    """(context, msgid) of every message the sources ask for, extracted as ``make catalogs`` does."""
    with (ROOT / "babel.cfg").open() as f:
        method_map, options_map = parse_mapping_cfg(f)
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(str(ROOT), method_map, options_map):
        found.add((context, message[0] if isinstance(message, tuple) else message))
    return found


# ---- the catalogs ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", OTHERS)
def test_every_message_has_a_translation_with_the_same_placeholders(lang):
    messages = [m for m in catalog(lang) if m.id]
    assert len(messages) > 100
    for m in messages:
        ids = m.id if isinstance(m.id, tuple) else (m.id,)
        strings = m.string if isinstance(m.string, tuple) else (m.string,)
        assert all(s.strip() for s in strings), f"{lang}: no translation for {ids[0]!r}"
        assert not m.fuzzy, f"{lang}: {ids[0]!r} is fuzzy"
        wanted = set(PLACEHOLDER.findall(ids[-1])) | (set(PLACEHOLDER.findall(ids[0])) - {"num"})
        for s in strings:
            assert set(PLACEHOLDER.findall(s)) | (wanted & {"num"}) >= wanted - ({"num"} if len(ids) > 1 else set()), \
                f"{lang}: {s!r} lacks a placeholder of {ids[0]!r}"
            assert set(PLACEHOLDER.findall(s)) <= set(PLACEHOLDER.findall(" ".join(ids))), \
                f"{lang}: {s!r} has a placeholder {ids[0]!r} does not give"
            assert s.count("%%") == ids[0].count("%%"), f"{lang}: the literal % signs of {ids[0]!r} differ"


def test_french_sets_a_no_break_space_before_its_high_marks_and_inside_guillemets():
    # A plain space lets a line break before "!" or ":", which then starts the next line alone (seen on a phone).
    for m in (m for m in catalog("fr") if m.id):
        for s in m.string if isinstance(m.string, tuple) else (m.string,):
            assert not re.search(r" [:;!?]|« | »", s), f"fr: a plain space before a mark or inside « » in {s!r}"


def test_the_catalogs_hold_every_message_of_the_sources_and_no_stale_one():
    wanted = source_messages()
    for lang in OTHERS:
        held = {(m.context, m.id[0] if isinstance(m.id, tuple) else m.id) for m in catalog(lang) if m.id}
        assert wanted - held == set(), f"{lang}: run `make catalogs` and translate the new messages"
        assert held - wanted == set(), f"{lang}: messages no source asks for any more"


def phrase_codes(path: Path) -> set[str]:
    """The codes a module gives ``Phrase.of(code, ...)`` and ``flag(kind, cell, code, ...)``: string constants,
    either side of a conditional, a variable's assigned values, and ``f"illegal-{penalty.value}"`` expanded."""
    tree = ast.parse(path.read_text())
    assigned: dict[str, set[str]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            assigned.setdefault(node.targets[0].id, set()).update(
                c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str))
    codes = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        name = ast.unparse(node.func)
        index = {"Phrase.of": 0, "flag": 2}.get(name)
        if index is None or len(node.args) <= index:
            continue
        arg = node.args[index]
        if isinstance(arg, ast.Name):
            codes |= assigned.get(arg.id, set())
        elif isinstance(arg, ast.JoinedStr):
            codes |= {f"illegal-{p.value}" for p in Penalty}
        else:
            codes |= {c.value for c in ast.walk(arg) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return codes


def test_every_phrase_code_of_the_engine_is_worded_in_french_and_german():
    used = set()
    for path in [*ROOT.glob("engine/*.py"), *ROOT.glob("thoughtwave/game/*.py")]:
        used |= phrase_codes(path)
    assert {"taken", "not-your-turn", "wave-on-blank", "blank-on-wave", "lifted", "held", "undone",
            "illegal-retry", "computer-wrong"} <= used
    assert used <= known_codes()


def test_an_illegal_placement_reads_as_a_whole_sentence_in_each_language():
    ref = Referee()
    ref.play("ew@E5")
    verdict = ref.play("black ns@F5")   # its blank west edge meets the wave of E5
    assert verdict.outcome.value == "illegal"
    assert say(Text("en"), verdict.why) == verdict.reason
    assert say(Text("fr"), verdict.why) == "le bord blanc ouest de ns@F5 touche l'onde de E5"
    assert say(Text("de"), verdict.why) == "die leere Westkante von ns@F5 berührt die Welle von E5"


def test_plural_forms_follow_each_language():
    assert [Text("fr").ngettext("%(num)d bend", "%(num)d bends", n) for n in (0, 1, 2)] == \
        ["0 courbe", "1 courbe", "2 courbes"]
    assert [Text("de").ngettext("%(num)d cross", "%(num)d crosses", n) for n in (0, 1, 2)] == \
        ["0 Kreuze", "1 Kreuz", "2 Kreuze"]


def test_the_language_of_a_browser_and_of_a_terminal():
    assert negotiate(["fr-CH", "de"]) == "fr" and negotiate(["es", "de-DE"]) == "de" and negotiate([]) == "en"
    assert terminal_language({"LANG": "de_DE.UTF-8"}) == "de"
    assert terminal_language({"LC_ALL": "fr_CA.UTF-8", "LANG": "de_DE.UTF-8"}) == "fr"
    assert terminal_language({"LANG": "C.UTF-8"}) == "en" and terminal_language({}) == "en"


def test_a_stale_compiled_catalog_gives_way_to_its_po(tmp_path, monkeypatch):
    # The .mo of an editable install is older than an edited .po: the .po is what is shown.
    from thoughtwave import i18n
    locale = tmp_path / "locale" / "fr" / "LC_MESSAGES"
    locale.mkdir(parents=True)
    po = locale / "messages.po"
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\nmsgid "Printing"\n'
                  'msgstr "Impression"\n', encoding="utf-8")
    monkeypatch.setattr(i18n, "LOCALE_DIR", tmp_path / "locale")
    i18n.translations.cache_clear()
    try:
        assert i18n.Text("fr").gettext("Printing") == "Impression"      # no .mo at all: compiled in memory
        i18n.compile_catalog(po, po.with_suffix(".mo"))
        i18n.translations.cache_clear()
        assert i18n.Text("fr").gettext("Printing") == "Impression"      # from the .mo
    finally:
        i18n.translations.cache_clear()


# ---- the web pages --------------------------------------------------------------------------------------

def make_client(companion, tmp_path, language="auto"):
    config = Config(display=DisplayConfig(language=language)).with_state_dir(tmp_path)
    app = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4, config=config)
    return app.test_client()


@pytest.fixture
def client(companion, tmp_path):
    return make_client(companion, tmp_path)


def html_lang(html: str) -> str:
    return re.search(r'<html lang="(\w+)"', html).group(1)


def test_the_page_language_follows_accept_language_then_the_switch_then_the_pin(companion, client, tmp_path):
    assert html_lang(client.get("/").get_data(as_text=True)) == "en"
    assert html_lang(client.get("/", headers={"Accept-Language": "de-DE,de;q=0.9,en;q=0.5"}).get_data(True)) == "de"
    assert html_lang(client.get("/", headers={"Accept-Language": "es, fr;q=0.5"}).get_data(True)) == "fr"
    chosen = client.get("/?lang=de", headers={"Accept-Language": "fr"})
    assert html_lang(chosen.get_data(True)) == "de" and "thoughtwave-lang=de" in chosen.headers["Set-Cookie"]
    assert html_lang(client.get("/control", headers={"Accept-Language": "fr"}).get_data(True)) == "de"  # the cookie
    pinned = make_client(companion, tmp_path, language="fr")
    page = pinned.get("/?lang=de", headers={"Accept-Language": "de"})
    assert html_lang(page.get_data(True)) == "fr" and "thoughtwave-lang" not in page.headers.get("Set-Cookie", "")


def test_the_state_words_flags_reasons_and_sides_in_the_viewers_language(companion, client, game):
    Driver(companion, game).play("red ew@E5", "black ns@F5")
    fr = client.get("/api/state", headers={"Accept-Language": "fr"}).get_json()
    en = client.get("/api/state").get_json()
    assert fr["sides"] == {"red": "l'ouest et l'est", "black": "le nord et le sud"} and fr["lang"] == "fr"
    [flag] = fr["flags"]
    assert flag["message"].startswith("retirez la droite noire ns de F5 ; elle est retirée du jeu ; Noir passe "
                                      "son tour")
    assert en["flags"][0]["message"].startswith("take the black straight ns off F5")
    # the referee's own fields stay as the CLI prints them, whatever the viewer's language
    assert fr["moves"][1]["reason"] == en["moves"][1]["reason"] == "blank west edge of ns@F5 touches the wave of E5"
    assert fr["moves"][1]["reason_text"] == "le bord blanc ouest de ns@F5 touche l'onde de E5"
    assert fr["moves"][1]["move"] == "ns@F5" and fr["cells"] == en["cells"]
    events = client.get("/api/events", headers={"Accept-Language": "de"}, buffered=False)
    first = next(events.response)
    events.close()
    assert b"nehmen Sie die schwarze Gerade ns von F5" in first


class VisibleText(HTMLParser):
    """The text a person reads on a page: text nodes outside script/style/svg, and the attributes shown or
    read aloud (title, alt, placeholder, aria-label, a button's value)."""

    SKIP = {"script", "style", "svg"}
    SHOWN = {"title", "alt", "placeholder", "aria-label"}

    def __init__(self) -> None:
        super().__init__()
        self.skipping = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag, attrs):
        if tag in self.SKIP:
            self.skipping += 1
        for name, value in attrs:
            if value and (name in self.SHOWN or (name == "value" and tag in ("input", "button")
                                                 and dict(attrs).get("type") in ("submit", "button"))):
                self.texts.append(value)

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skipping:
            self.skipping -= 1

    def handle_data(self, data):
        if not self.skipping and data.strip():
            self.texts.append(data.strip())


#: Words that are the same in every language here: names, notation, units.
NEUTRAL = {"thoughtwave", "pin", "ok", "fps", "mm", "json", "csv", "svg", "png", "pdf", "api", "url", "wi", "fi",
           "usb", "id", "aruco", "charuco", "english", "français", "deutsch", "txt", "min", "max"}


def english_words(lang: str) -> set[str]:
    """Words of the English messages that the ``lang`` catalog never uses (so English if seen on its pages)."""
    def words(text):
        return {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", re.sub(PLACEHOLDER, "", text))}
    english, other = set(), set()
    for m in catalog(lang):
        if m.id:
            for text in (m.id if isinstance(m.id, tuple) else (m.id,)):
                english |= words(text)
            for text in (m.string if isinstance(m.string, tuple) else (m.string,)):
                other |= words(text)
    return english - other - NEUTRAL


def page_paths(companion, game) -> list[str]:
    Driver(companion, game).play("red ew@E5", "black ns@F5")   # a flag and a stored game with moves
    return ["/", "/control", "/login", "/games", f"/games/{companion.game.id}", "/calibrate"]


@pytest.mark.parametrize("lang", OTHERS)
@pytest.mark.parametrize("unlocked", [False, True])
def test_the_french_and_german_pages_show_no_english(companion, client, game, lang, unlocked):
    foreign = english_words(lang)
    if unlocked:   # the control and calibration pages show their forms
        csrf = client.get("/api/session").get_json()["csrf"]
        assert client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).status_code == 200
    for path in page_paths(companion, game):
        response = client.get(path, headers={"Accept-Language": lang})
        assert response.status_code == 200, path
        html = response.get_data(as_text=True)
        assert html_lang(html) == lang, path
        parser = VisibleText()
        parser.feed(html)
        for text in parser.texts:
            seen = {w.lower() for w in re.findall(r"[A-Za-zÀ-ÿ]{3,}", text)} & foreign
            assert not seen, f"{lang} {path}: English {sorted(seen)} in {text!r}"


def test_the_script_catalog_is_served_for_each_language(client):
    body = client.get("/i18n/fr.js").get_data(as_text=True)
    catalog = json.loads(body.split("=", 1)[1].rstrip().rstrip(";"))
    assert catalog["lang"] == "fr" and catalog["messages"]
    assert all(v for v in catalog["messages"].values())
    assert client.get("/i18n/xx.js").status_code == 404


# ---- the CLI and the notation ---------------------------------------------------------------------------

def test_the_referee_json_and_the_notation_do_not_change_with_the_locale(tmp_path):
    moves = "ew@E5\nblack ns@F5\nzz\nred ew@E5\n"
    runs = []
    for env in ({"LANG": "C.UTF-8"}, {"LANG": "fr_FR.UTF-8", "LANGUAGE": "fr"}, {"LC_ALL": "de_DE.UTF-8"}):
        done = subprocess.run([str(THOUGHTWAVE), "referee", "--moves", "-"], input=moves, capture_output=True,
                              text=True, timeout=60, env={"PATH": "/usr/bin:/bin", **env})
        assert done.returncode == 0, done.stderr
        runs.append(done.stdout)
    assert runs[0] == runs[1] == runs[2]
    lines = [json.loads(line) for line in runs[0].splitlines()]
    assert lines[1]["reason"] == "blank west edge of ns@F5 touches the wave of E5"


def test_play_in_french_keeps_the_record_in_the_notation(tmp_path):
    record = tmp_path / "game.txt"
    done = subprocess.run([str(THOUGHTWAVE), "play", "--lang", "fr", "--record", str(record)],
                          input="ew@E5\nblack ns@F5\nquit\n", capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Illégal : le bord blanc ouest de ns@F5 touche l'onde de E5 ; la pièce est retirée du jeu" in done.stdout
    assert "Rouge a posé ew@E5." in done.stdout and "Not a move" not in done.stdout
    english = subprocess.run([str(THOUGHTWAVE), "play", "--lang", "en", "--record", str(tmp_path / "en.txt")],
                             input="ew@E5\nblack ns@F5\nquit\n", capture_output=True, text=True, timeout=60)
    assert record.read_text() == (tmp_path / "en.txt").read_text() and "ns@F5" in record.read_text()
    assert "Red laid ew@E5." in english.stdout


def test_a_phrase_is_its_english_sentence():
    assert str(Phrase.of("over-drawn", "the game is over: it was drawn")) == "the game is over: it was drawn"


# ---- the printed kit ------------------------------------------------------------------------------------

def pdf_words(path: Path) -> list[str]:
    """Every string drawn on the kit's pages (reportlab's Helvetica strings are WinAnsi, with octal escapes)."""
    from pdfpages import pdf_pages
    found = []
    for _size, content in pdf_pages(path.read_bytes()):
        for raw in re.findall(r"\(((?:\\.|[^\\)])*)\) Tj", content):
            text = re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), raw)
            text = re.sub(r"\\(.)", r"\1", text)
            found.append(text.encode("latin-1").decode("cp1252"))
    return found


@pytest.mark.parametrize(("lang", "expected"), [
    ("fr", ["Compagnon Thoughtwave : le kit à imprimer", "Impression", "Pièces rouges : 24 en tout",
            "Feuille d'objectif Thoughtwave (facultative) - imprimer à 100% (taille réelle)", "10 courbes"]),
    ("de", ["Thoughtwave-Begleiter: der Druckbogen", "Drucken", "Schwarze Steine: 24 insgesamt", "2 Kreuze"]),
])
def test_print_kit_in_french_and_german_prints_no_english(tmp_path, lang, expected):
    out = tmp_path / "kit.pdf"
    done = subprocess.run([str(THOUGHTWAVE), "print-kit", "--lang", lang, "--lens-sheet", "--out", str(out)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    words = pdf_words(out)
    text = "\n".join(words)
    for wanted in expected:
        assert wanted in text, f"{wanted!r} not in the {lang} kit"
    for line in words:   # the English words of every kit sentence: none is left
        assert not re.search(r"\b(the|and|of|on|with|sheet|tiles|board|print|glue|cut)\b", line, re.I), line


def test_a_wrong_pin_is_refused_in_the_pages_language(client):
    page = client.get("/login", headers={"Accept-Language": "fr"}).get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    refused = client.post("/login", data={"csrf": csrf, "pin": "000000"}, headers={"Accept-Language": "fr"})
    assert "code PIN erroné" in refused.get_data(as_text=True)
    assert client.post("/api/login", json={"pin": "000000"},
                       headers={"X-CSRF-Token": csrf, "Accept-Language": "fr"}).get_json()["error"] == "wrong PIN"


def test_control_actions_answer_in_the_pages_language(companion, client, game):
    csrf = client.get("/api/session").get_json()["csrf"]
    csrf = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf}).get_json()["csrf"]
    headers = {"X-CSRF-Token": csrf, "Accept-Language": "de"}
    assert client.post("/api/undo", json={}, headers=headers).get_json()["error"] == \
        "Es gibt noch keinen Zug zum Zurücknehmen."
    Driver(companion, game).play("red ew@E5")
    done = client.post("/api/undo", json={}, headers=headers).get_json()["done"]
    assert done["message"] == "Zug 1 zurückgenommen: die rote Gerade ew auf E5. Nehmen Sie diesen Stein von E5."
    english = client.post("/api/game/new", json={"penalty": "forfeit"}, headers={"X-CSRF-Token": csrf}).get_json()
    assert english["done"]["message"].startswith("Game 2 has started: Red (red) against Black (black); Red moves first")
