"""The display in French and German in a real browser: an illegal placement's flag and the winner
announcement, shown and spoken in the page's language (a voice of that language: utterance.lang)."""

import pytest
from serving import serving

from thoughtwave.engine import Rules
from thoughtwave.game import Companion, ScriptedGame, ScriptedSource, Settings, Store
from thoughtwave.webui.app import create_app, load_secret_key

pytestmark = pytest.mark.browser
expect = pytest.importorskip("playwright.sync_api").expect

# Black's straight on A6 meets the blank south edge of Red's A5 with its wave: flagged until taken off;
# then Red joins west and east along row 5.
GAME = ["red ew@A5", "black ns@A6", "wait 10", "off A6", "red ew@B5", "red ew@C5", "black ns@A1", "red ew@D5",
        "black ns@C1", "red ew@E5", "black ns@E1", "red nesw@F5", "black ns@G1", "red nesw@G5", "black nes@I1",
        "red esw@H5", "black nesw@A3", "red esw@I5", "black nesw@C3", "red esw@J5"]

# Speech is recorded instead of spoken (headless Chromium has no voices): each utterance's text and language.
RECORD_SPEECH = """
window.spoken = [];
Object.defineProperty(window, "speechSynthesis", {value: {
  cancel() {}, getVoices() { return []; },
  speak(u) { window.spoken.push({text: u.text, lang: u.lang}); },
}});
"""

EXPECTED = {
    "fr": {"flag": "Retirez la droite noire ns de A6 ; elle est retirée du jeu ; Noir passe son tour",
           "wins": "Rouge gagne !", "turn": "Rouge a gagné", "said": "Rouge gagne"},
    "de": {"flag": "Nehmen Sie die schwarze Gerade ns von A6; der Stein ist aus dem Spiel; Schwarz muss eine "
                   "Runde aussetzen",
           "wins": "Rot gewinnt!", "turn": "Rot hat gewonnen", "said": "Rot gewinnt"},
}


@pytest.fixture
def served(tmp_path):
    game = ScriptedGame(GAME, frames_per_step=2)
    store = Store.in_dir(tmp_path)
    companion = Companion(store, Rules(), lambda: ScriptedSource(20), game.watcher, Settings(speech=True))
    app = create_app(companion, pin="135790", secret_key=load_secret_key(tmp_path), threads=6)
    with serving(app, threads=6) as url:
        yield url, companion
        companion.stop()
    store.close()


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_a_flag_and_the_winner_in_the_browsers_language(served, chromium, lang):
    url, companion = served
    context = chromium.new_context(viewport={"width": 1280, "height": 800}, locale=lang,
                                   extra_http_headers={"Accept-Language": lang})
    page = context.new_page()
    try:
        errors: list[str] = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.add_init_script(RECORD_SPEECH)
        page.goto(url + "/")
        assert page.evaluate("document.documentElement.lang") == lang
        expect(page.locator("#connection")).to_be_hidden()
        companion.start()
        flag = page.locator('#flags .flag[data-cells="A6"]')
        expect(flag).to_be_visible(timeout=10_000)
        expect(flag).to_contain_text(EXPECTED[lang]["flag"])
        expect(flag).to_have_count(0, timeout=10_000)
        expect(page.locator("#winner")).to_be_visible(timeout=20_000)
        expect(page.locator("#winner-text")).to_have_text(EXPECTED[lang]["wins"])
        expect(page.locator("#turn")).to_have_text(EXPECTED[lang]["turn"])
        spoken = page.evaluate("window.spoken")
        assert {"text": EXPECTED[lang]["said"], "lang": lang} in spoken
        assert all(s["lang"] == lang for s in spoken)
        assert errors == []
    finally:
        context.close()


@pytest.mark.parametrize("lang", ["fr", "de"])
def test_the_calibration_page_after_check_in_the_browsers_language(chromium, tmp_path, lang):
    """Check pressed on the calibration page: the results the page script draws (marks, names, advice, the
    summary and the light map with its words) are in the page's language."""
    from test_i18n_calibration import GLARE, PICTURE, dark_calibration

    from thoughtwave.calibration.profile import FILE_NAME
    from thoughtwave.config import Config
    from thoughtwave.webui.calibration_desk import CalibrationDesk

    class Still:     # a camera that keeps seeing one (colour) picture
        index = 0

        def read(self):
            from thoughtwave.vision.sources import Frame
            self.index += 1
            return Frame(self.index, self.index * 0.1, PICTURE)

        def close(self):
            pass

    game = ScriptedGame([])
    store = Store.in_dir(tmp_path)
    companion = Companion(store, Rules(), Still, game.watcher, Settings(speech=False))
    desk = CalibrationDesk(tmp_path / FILE_NAME, 0.4, calibrate=dark_calibration)
    app = create_app(companion, pin="135790", secret_key=load_secret_key(tmp_path), threads=4,
                     config=Config().with_state_dir(tmp_path), desk=desk)
    words = {"fr": ("Vérifier", "Valider", "ÉCHEC", "netteté", "Échec : netteté, exposition.", "Reflets sur 3 cases"),
             "de": ("Prüfen", "Eingeben", "FEHLER", "Schärfe", "Nicht bestanden: Schärfe, Belichtung.",
                    "Spiegelung auf 3 Feldern")}[lang]
    with serving(app, threads=4) as url:
        companion.start()
        context = chromium.new_context(viewport={"width": 800, "height": 480}, locale=lang,
                                       extra_http_headers={"Accept-Language": lang})
        page = context.new_page()
        try:
            errors: list[str] = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(url + "/calibrate")
            expect(page.locator("#light-map")).to_be_hidden()
            page.fill('#pin-form input[name="pin"]', "135790")
            page.get_by_role("button", name=words[1]).click()
            check = page.get_by_role("button", name=words[0], exact=True)
            expect(check).to_be_visible()     # the page reloaded, unlocked
            page.wait_for_load_state()
            check.click()
            expect(page.locator("#checks li")).to_have_count(5, timeout=20_000)
            focus = page.locator('#checks li[data-name="focus"]')
            expect(focus.locator(".mark")).to_have_text(words[2])
            expect(focus.locator(".name")).to_have_text(words[3])
            expect(page.locator("#last-summary")).to_contain_text(words[4])
            expect(page.locator("#light-map")).to_be_visible()
            expect(page.locator("#light-rows td.glare")).to_have_count(len(GLARE))
            expect(page.locator("#light-glare")).to_contain_text(words[5])
            expect(page.locator("#result")).to_contain_text(words[4])
            assert errors == []
        finally:
            context.close()
            companion.stop()
    store.close()
