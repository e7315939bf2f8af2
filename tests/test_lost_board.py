"""Why the board cannot be seen: a frame without a board names what the picture shows (a lamp in view, too dark,
washed out, blurred, too few markers), and the players are told it in their language, and told again when it changes."""

import time

import cv2
import numpy as np
import pytest

from thoughtwave.engine import Rules
from thoughtwave.engine.phrases import said_as
from thoughtwave.game.snapshot import Camera, Notice
from thoughtwave.i18n import Text
from thoughtwave.synth import Scene, render
from thoughtwave.vision.causes import LOST_MESSAGE, Lost, LostBoard, lost_cause, lost_message
from thoughtwave.vision.deblur import line_psf
from thoughtwave.vision.events import to_json
from thoughtwave.vision.reading import BoardReading
from thoughtwave.vision.recognizer import Recognizer
from thoughtwave.vision.sources import Frame
from thoughtwave.vision.watch import Watcher
from thoughtwave.webui.localized import notice_text


@pytest.fixture(scope="module")
def board() -> np.ndarray:
    frame, _ = render(Scene.random(61, level="mild", hand=False))
    return frame


def _lamp(image: np.ndarray) -> np.ndarray:
    """``image`` with a lamp's bright disk in the top left."""
    out = image.copy()
    h, w = out.shape[:2]
    cv2.circle(out, (w // 5, h // 5), h // 8, (240, 240, 240), -1)
    return out


def test_each_cause_the_whole_picture_shows():
    rng = np.random.default_rng(5)
    shape = (480, 640)
    dim = np.clip(rng.normal(12, 3, shape), 0, 255).astype(np.uint8)
    assert lost_cause(dim, 0) is Lost.DARK
    assert lost_cause(_lamp(dim), 0) is Lost.LAMP
    assert lost_cause(np.full(shape, 248, np.uint8), 0) is Lost.WASHED
    lit = np.clip(rng.normal(120, 3, shape), 0, 255).astype(np.uint8)
    assert lost_cause(lit, 3) is Lost.MARKERS
    assert lost_cause(lit, 0) is None                 # nothing shows why: the camera points elsewhere
    # A smooth picture (a wall, a bare table) has wide edges too: blurred only where marker-like squares showed.
    smooth = cv2.GaussianBlur(rng.integers(0, 256, shape).astype(np.uint8), (0, 0), 8)
    assert lost_cause(smooth, 0, undecoded=0) is None
    assert lost_cause(smooth, 0, undecoded=12) is Lost.BLURRED
    assert lost_cause(cv2.cvtColor(smooth, cv2.COLOR_GRAY2BGR), 0, undecoded=12) is Lost.BLURRED


@pytest.mark.parametrize("spoil, cause", [
    (lambda f: (f.astype(np.float32) * 0.008).astype(np.uint8), Lost.DARK),
    (lambda f: _lamp((f.astype(np.float32) * 0.008).astype(np.uint8)), Lost.LAMP),
    (lambda f: np.clip(f.astype(np.float32) * 0.05 + 242, 0, 255).astype(np.uint8), Lost.WASHED),
    (lambda f: cv2.filter2D(f, -1, line_psf(20.0, 30.0)), Lost.BLURRED),
    (lambda f: cv2.GaussianBlur(f, (0, 0), 8), Lost.BLURRED),
])
def test_the_recogniser_says_why_a_rendered_board_is_lost(board, spoil, cause):
    reading = Recognizer().read(spoil(board))
    assert not reading.board_found
    assert reading.lost == LostBoard(cause, 0, 8)
    assert reading.to_json()["lost"] == cause.value


def test_too_few_markers_are_counted_and_a_board_in_view_says_nothing_lost(board):
    recognizer = Recognizer()
    seen = recognizer.read(board)
    assert seen.board_found and seen.lost is None and "lost" not in seen.to_json()
    covered = board.copy()
    for marker_id, quad in recognizer._seen.found.marker_corners.items():
        if marker_id > 1:       # all but two markers along one side: no pose to place the board by
            (x0, y0), (x1, y1) = quad.min(axis=0).astype(int) - 12, quad.max(axis=0).astype(int) + 12
            covered[y0:y1, x0:x1] = (60, 110, 150)
    reading = Recognizer().read(covered)
    assert not reading.board_found
    assert reading.lost == LostBoard(Lost.MARKERS, 2, 8)
    assert reading.lost.message() == ("can't see the board, it shows only 2 of its 8 markers: uncover the rest or aim "
                                      "the camera at the whole board")


class _Reader:
    """Reads frame i as ``script[i]``."""

    pose_moved = False

    def __init__(self, script: list[BoardReading]) -> None:
        self.script = script

    def read(self, image: np.ndarray) -> BoardReading:
        return self.script[int(image[0, 0, 0])]

    def draw_overlay(self, image: np.ndarray) -> np.ndarray:
        return image


def _lost(cause: Lost | None) -> BoardReading:
    return BoardReading(False, lost=LostBoard(cause))


def test_the_players_are_told_why_and_told_again_when_it_changes_for_as_long():
    fps = 10
    # Lost under a lamp for 2 s (one frame in it reads too dark: a flicker, not a change), then too dark for 1.5 s.
    script = [_lost(Lost.LAMP)] * 12 + [_lost(Lost.DARK)] + [_lost(Lost.LAMP)] * 7 + [_lost(Lost.DARK)] * 15
    watcher = Watcher(Rules(), reader=_Reader(script), lost_seconds=1.0)
    events = []
    for i in range(len(script)):
        image = np.zeros((4, 4, 3), np.uint8)
        image[0, 0, 0] = i
        events += [to_json(e) for e in watcher.feed(Frame(i, i / fps, image))]
    assert [(e["event"], e["frame"], e["message"], e.get("cause")) for e in events] == [
        ("board-lost", 10, lost_message(Lost.LAMP), "lamp"),
        ("board-lost", 30, lost_message(Lost.DARK), "dark"),
    ]
    # A reader that says nothing of why keeps the loop's old words.
    watcher = Watcher(Rules(), reader=_Reader([BoardReading(False)] * 12), lost_seconds=1.0)
    told = [to_json(e) for i in range(12) for e in watcher.feed(Frame(i, i / fps, np.zeros((4, 4, 3), np.uint8)))]
    assert told == [{"frame": 10, "event": "board-lost", "message": LOST_MESSAGE}]


@pytest.mark.parametrize("lang, cause, words", [
    ("fr", Lost.LAMP, "plateau introuvable, une lumière vive dans le champ assombrit le reste de l'image\xa0: "
                      "détournez la lampe de la caméra"),
    ("de", Lost.BLURRED, "Spielplan nicht zu sehen, das Bild ist unscharf: halten Sie Kamera und Tisch ruhig und "
                         "prüfen Sie die Schärfe"),
    ("fr", Lost.MARKERS, "plateau introuvable, repères visibles\xa0: 3 sur 8\xa0; découvrez les autres ou cadrez tout "
                         "le plateau"),
    ("de", Lost.MARKERS, "Spielplan nicht zu sehen, sichtbare Marker: 3 von 8; decken Sie die übrigen auf oder richten "
                         "Sie die Kamera auf den ganzen Spielplan"),
])
def test_the_display_says_why_in_the_players_language(lang, cause, words):
    message = lost_message(cause, 3, 8)
    notice = Notice("board-lost", None, message, said_as(message))
    assert notice_text(Text(lang), notice, Camera("ok", "")) == words
    assert notice_text(Text("en"), notice, Camera("ok", "")) == message
    # The old words, with no cause, as before.
    plain = Notice("board-lost", None, LOST_MESSAGE, said_as(LOST_MESSAGE))
    assert notice_text(Text(lang), plain, Camera("ok", "")).startswith(
        "plateau introuvable\xa0: " if lang == "fr" else "Spielplan nicht zu sehen: ")


def test_the_companion_shows_why_the_board_is_lost_in_each_language():
    """The loop end to end: the watcher's words reach the display's flags, said in the viewer's language."""
    from doubles import FAST

    from thoughtwave.game import Companion, ScriptFrame, Store
    from thoughtwave.webui.view import render_state

    class Dark:
        """A camera whose picture is dark under a lamp in view."""

        def __init__(self):
            self.index = 0

        def read(self):
            self.index += 1
            return ScriptFrame(self.index, self.index / 10, np.zeros((48, 64, 3), np.uint8))

        def close(self):
            pass

    class Reader:
        pose_moved = False

        def read(self, image):
            return _lost(Lost.LAMP)

        def draw_overlay(self, image):
            return image

    companion = Companion(Store(":memory:"), Rules(), Dark, lambda table: Watcher(table=table, reader=Reader()), FAST)
    companion.start()
    try:
        deadline = time.monotonic() + 10
        while not any(n.kind == "board-lost" for n in companion.state().notices):
            assert time.monotonic() < deadline, "the board was never said lost"
            time.sleep(0.02)
        snapshot = companion.state()
    finally:
        companion.stop()
    said = {lang: next(f["message"] for f in render_state(snapshot, lang)["flags"] if f["kind"] == "board-lost")
            for lang in ("en", "fr", "de")}
    assert said == {
        "en": lost_message(Lost.LAMP),
        "fr": "plateau introuvable, une lumière vive dans le champ assombrit le reste de l'image\xa0: détournez la "
              "lampe de la caméra",
        "de": "Spielplan nicht zu sehen, ein helles Licht im Bild lässt den Rest dunkel: drehen Sie die Lampe von der "
              "Kamera weg"}


def test_recognize_says_why_in_its_one_line(board, tmp_path, capsys):
    from thoughtwave.cli import main

    photo = tmp_path / "photo.png"
    cv2.imwrite(str(photo), cv2.GaussianBlur(board, (0, 0), 8))
    assert main(["recognize", str(photo)]) == 1
    assert capsys.readouterr().err == (f"not found: no board in {photo}: the picture is blurred: hold the camera and "
                                       "the table still and check the focus\n")
    cv2.imwrite(str(photo), np.full((480, 640, 3), 120, np.uint8))      # nothing shows why: the words as before
    assert main(["recognize", str(photo)]) == 1
    assert capsys.readouterr().err == (f"not found: no board in {photo}: fewer than two of its corner and edge "
                                       "markers can be seen\n")


def test_calibration_advises_what_the_picture_shows(board):
    from thoughtwave.calibration.calibrate import calibrate_image
    from thoughtwave.i18n.calibration import words

    check = calibrate_image(_lamp((board.astype(np.float32) * 0.008).astype(np.uint8))).checks[0]
    assert (check.name, check.ok) == ("markers", False)
    assert check.advice == ("a bright light in view leaves the rest of the picture dark: turn the lamp away from the "
                            "camera")
    assert words(Text("de"), check.advice) == ("ein helles Licht im Bild lässt den Rest dunkel: drehen Sie die Lampe "
                                               "von der Kamera weg")
    # Nothing in the picture says why: the advice as before.
    plain = calibrate_image(np.full((480, 640, 3), 120, np.uint8)).checks[0]
    assert plain.advice.startswith("lay the printed board under the camera")


def test_every_cause_is_worded_for_the_flag_and_the_calibration_advice():
    from thoughtwave.i18n.calibration import known_codes as advice_codes
    from thoughtwave.i18n.phrases import known_codes

    assert {f"board-lost-{cause.value}" for cause in Lost} <= known_codes()
    assert {f"lost-{cause.value}-advice" for cause in Lost} <= advice_codes()
    for lang in ("fr", "de"):
        told = {notice_text(Text(lang), Notice("board-lost", None, m, said_as(m)), Camera("ok", ""))
                for m in (lost_message(cause, 2, 8) for cause in Lost)}
        assert len(told) == len(Lost) and not told & {lost_message(cause, 2, 8) for cause in Lost}
