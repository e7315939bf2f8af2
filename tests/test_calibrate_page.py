"""The calibration page: anyone may look; check, save and reset need the PIN and the CSRF token; a good board
checks ok, and its saved profile is loadable and read with at once, the game going on; a dark board fails the
exposure check with its advice and is not saved without force; bad input is a 4xx JSON answer."""

import dataclasses
import json
import re
import time
from contextlib import closing

import numpy as np
import pytest
from serving import serving

from thoughtwave.calibration.checks import BLACK_SAMPLE, RED_SAMPLE
from thoughtwave.calibration.profile import FILE_NAME, load_profile
from thoughtwave.config import Config
from thoughtwave.engine import Colour, Piece, Rules
from thoughtwave.game import Companion, ScriptedGame, Settings, Store, vision_watcher_factory
from thoughtwave.synth import Printing, Scene, TileLay, cast_gains, render
from thoughtwave.vision.sources import Frame
from thoughtwave.vision.tiles import ColourModel
from thoughtwave.vision.watch import Watcher
from thoughtwave.webui.app import create_app, load_secret_key
from thoughtwave.webui.calibration_desk import CalibrationDesk

PIN = "2468"
SAMPLES = {RED_SAMPLE: (Colour.RED, Piece.parse("ew")), BLACK_SAMPLE: (Colour.BLACK, Piece.parse("ns"))}
ACTIONS = ["/api/calibrate/check", "/api/calibrate/save", "/api/calibrate/reset"]


def lamp_scene(exposure: float | None = None) -> Scene:
    """The printed board with the sample tiles on E5 and F6 under a warm lamp (as tests/test_calibration.py)."""
    base = Scene.random(11, tiles={}, level="mild", hand=False, resolution=(960, 720))
    light = dataclasses.replace(base.light, cast_bgr=cast_gains(2700, False, 0.8), glare=())
    if exposure is not None:
        light = dataclasses.replace(light, exposure=exposure)
    return dataclasses.replace(base, light=light, printing=Printing(colour_shift=0.6, ink_lift=15, paper_texture=0.02),
                               tiles=SAMPLES, lays={c: TileLay() for c in SAMPLES})


@pytest.fixture(scope="module")
def good_image() -> np.ndarray:
    return render(lamp_scene())[0]


@pytest.fixture(scope="module")
def dark_image() -> np.ndarray:
    return render(lamp_scene(exposure=0.15))[0]


class StillCamera:
    """A camera that keeps seeing one picture, at ``fps`` (0: as fast as asked)."""

    def __init__(self, image: np.ndarray, fps: float = 0.0) -> None:
        self.image, self.fps, self.index, self.start = image, fps, 0, time.monotonic()

    def read(self) -> Frame:
        if self.fps:
            time.sleep(max(0.0, self.start + self.index / self.fps - time.monotonic()))
        self.index += 1
        return Frame(self.index, self.index * 0.1, self.image)

    def close(self) -> None:
        pass


@pytest.fixture
def companion():
    companion = Companion(Store(":memory:"), Rules(), lambda: StillCamera(np.zeros((8, 8, 3), np.uint8)),
                          vision_watcher_factory(0.4, None), Settings())
    companion.refresh()
    yield companion
    companion.stop()


class Clock:
    """Monotonic seconds that pass only when a test says so."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def app(companion, tmp_path, clock):
    return create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4,
                      config=Config(state_dir=tmp_path), desk=CalibrationDesk(tmp_path / FILE_NAME, 0.4, clock))


@pytest.fixture
def client(app):
    return app.test_client()


def show(companion: Companion, image: np.ndarray, frames: int = 2) -> None:
    """The camera sees ``image`` for a few frames (the companion's loop, driven by hand)."""
    camera = StillCamera(image)
    for _ in range(frames):
        companion.process(camera.read())


def token(client) -> str:
    return client.get("/api/session").get_json()["csrf"]


def login(client) -> dict:
    response = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 200
    return {"X-CSRF-Token": response.get_json()["csrf"]}


def by_name(checks: list[dict]) -> dict[str, dict]:
    return {c["name"]: c for c in checks}


# ---- looking -------------------------------------------------------------------------------------

def test_anyone_may_look_at_the_page_and_the_summary(client):
    response = client.get("/calibrate")
    assert response.status_code == 200
    html = response.get_data(as_text=True)
    assert "E5" in html and "F6" in html and "Check" in html
    assert 'id="preview"' in html and "/preview.mjpg" in html
    assert 'id="pin-form"' in html and 'id="check"' not in html, "the buttons wait for the PIN"
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html), "no inline script (the CSP forbids it)"
    assert 'href="/calibrate"' in client.get("/").get_data(as_text=True), "the nav links to the page"
    summary = client.get("/api/calibrate").get_json()
    assert summary == {"profile": {"exists": False, "file": FILE_NAME}, "last_check": None}


def test_after_the_pin_the_page_offers_check_save_and_reset(client):
    login(client)
    html = client.get("/calibrate").get_data(as_text=True)
    assert 'id="check"' in html and 'id="reset"' in html and 'id="pin-form"' not in html
    assert re.search(r'id="save"\s+disabled', html), "nothing to save before a check"


# ---- refusals ------------------------------------------------------------------------------------

@pytest.mark.parametrize("url", ACTIONS)
def test_changes_without_the_csrf_token_are_refused(client, companion, good_image, tmp_path, url):
    login(client)
    show(companion, good_image, 1)
    response = client.post(url, json={"force": True})
    assert response.status_code == 403 and "CSRF" in response.get_json()["error"]
    assert not (tmp_path / FILE_NAME).exists()


@pytest.mark.parametrize("url", ACTIONS)
def test_changes_without_the_pin_are_refused(client, companion, good_image, tmp_path, url):
    show(companion, good_image, 1)
    watcher = companion.watcher
    response = client.post(url, json={"force": True}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 401 and "PIN" in response.get_json()["error"]
    assert companion.watcher is watcher and not (tmp_path / FILE_NAME).exists()
    assert client.get("/api/calibrate").get_json()["last_check"] is None


@pytest.mark.parametrize("url", ACTIONS)
@pytest.mark.parametrize("body", [b"{not json", b"[1, 2]", b'"text"'])
def test_a_body_that_is_not_a_json_object_is_a_400(client, url, body):
    headers = login(client)
    response = client.post(url, data=body, headers={**headers, "Content-Type": "application/json"})
    assert response.status_code == 400 and "JSON object" in response.get_json()["error"]


def test_no_picture_from_the_camera_yet_is_a_409(client):
    response = client.post("/api/calibrate/check", headers=login(client))
    assert response.status_code == 409
    assert response.get_json()["error"] == "no picture from the camera yet"


def test_saving_before_any_check_is_refused(client, tmp_path):
    response = client.post("/api/calibrate/save", json={"force": True}, headers=login(client))
    assert response.status_code == 409 and "press Check first" in response.get_json()["error"]
    assert not (tmp_path / FILE_NAME).exists()


def test_force_must_be_true_or_false(client, companion, dark_image):
    headers = login(client)
    show(companion, dark_image, 1)
    client.post("/api/calibrate/check", headers=headers)
    response = client.post("/api/calibrate/save", json={"force": "yes"}, headers=headers)
    assert response.status_code == 400 and "force" in response.get_json()["error"]


def test_a_picture_calibration_cannot_use_is_a_409_not_a_crash(client, companion):
    headers = login(client)
    show(companion, np.zeros((240, 320), np.uint8), 1)      # a grey-only camera
    response = client.post("/api/calibrate/check", headers=headers)
    assert response.status_code == 409 and "colour pictures" in response.get_json()["error"]
    show(companion, np.zeros((240, 320, 3), np.uint8), 1)   # black: no board at all (the grey one is passed over)
    response = client.post("/api/calibrate/check", headers=headers)
    assert response.status_code == 200
    data = response.get_json()
    assert not data["ok"] and not data["board_found"]
    assert by_name(data["checks"])["markers"]["status"] == "FAIL"
    response = client.post("/api/calibrate/save", json={"force": True}, headers=headers)
    assert response.status_code == 409 and "no board" in response.get_json()["error"]


# ---- a good board --------------------------------------------------------------------------------

def test_a_good_board_checks_ok_and_its_profile_is_saved_and_read_with_at_once(client, companion, good_image,
                                                                               tmp_path):
    headers = login(client)
    show(companion, good_image, 3)
    response = client.post("/api/calibrate/check", headers=headers)
    assert response.status_code == 200
    data = response.get_json()
    assert data["ok"] and data["board_found"] and data["failed"] == []
    assert data["frames"] == 3 and data["resolution"] == [960, 720]
    assert {c["name"] for c in data["checks"]} == {"markers", "board in frame", "pixels per cell", "focus", "exposure",
                                                   "glare", "colour separation"}
    assert all(c["ok"] and c["status"] == "ok" for c in data["checks"]), data["checks"]
    assert data["colour_model"], "the sample tiles on E5 and F6 teach the colours"
    assert not (tmp_path / FILE_NAME).exists(), "a check alone writes nothing"

    game, referee, before = companion.game.id, companion.watcher.table.referee, companion.watcher
    response = client.post("/api/calibrate/save", headers=headers)
    assert response.status_code == 200, response.get_json()
    profile = load_profile(tmp_path / FILE_NAME)
    assert profile.colour_model == data["colour_model"] and profile.resolution == (960, 720)
    assert isinstance(companion.watcher, Watcher) and companion.watcher is not before
    assert companion.watcher.reader.reader.model == ColourModel.from_profile(profile.reader_profile())
    assert companion.watcher.reader.reader.model != ColourModel(), "the new watcher reads with the learnt colours"
    assert companion.game.id == game and companion.watcher.table.referee is referee, "the game goes on"

    summary = client.get("/api/calibrate").get_json()
    assert summary["profile"]["exists"] and summary["profile"]["colour_model"] == profile.colour_model
    assert summary["last_check"]["saved"] is True
    html = client.get("/calibrate").get_data(as_text=True)
    assert "Saved and in use" in html and html.count('class="check ok"') == 7


def test_after_a_restart_the_page_shows_how_the_profile_in_use_was_checked(client, companion, good_image, tmp_path):
    headers = login(client)
    show(companion, good_image, 1)
    client.post("/api/calibrate/check", headers=headers)
    client.post("/api/calibrate/save", headers=headers)
    restarted = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), config=Config(state_dir=tmp_path))
    html = restarted.test_client().get("/calibrate").get_data(as_text=True)
    assert "the profile in use was checked like this" in html and html.count('class="check ok"') == 7


def test_reset_removes_the_profile_and_reads_with_the_defaults(client, companion, good_image, tmp_path):
    headers = login(client)
    show(companion, good_image, 1)
    client.post("/api/calibrate/check", headers=headers)
    assert client.post("/api/calibrate/save", headers=headers).status_code == 200
    response = client.post("/api/calibrate/reset", headers=headers)
    assert response.status_code == 200 and response.get_json()["removed"] is True
    assert not (tmp_path / FILE_NAME).exists()
    assert companion.watcher.reader.reader.model == ColourModel()
    again = client.post("/api/calibrate/reset", headers=headers)
    assert again.status_code == 200 and again.get_json()["removed"] is False


def test_a_checked_profile_left_too_long_is_not_saved(client, clock, companion, good_image, tmp_path):
    headers = login(client)
    show(companion, good_image, 1)
    client.post("/api/calibrate/check", headers=headers)
    clock.now += 16 * 60
    response = client.post("/api/calibrate/save", headers=headers)
    assert response.status_code == 409 and "check again" in response.get_json()["error"]
    assert not (tmp_path / FILE_NAME).exists()


LENS_JUDGED = {"name": "lens model", "ok": True, "measured": "reprojection 0.30 px from 9 of 12 pictures",
               "advice": None, "warning": False}


def write_lens_profile(path, size: tuple[int, int]) -> dict:
    """A profile made by ``thoughtwave calibrate --lens-images`` at ``size``, with no distortion to speak of."""
    w, h = size
    lens = {"camera_matrix": [[900.0, 0, w / 2], [0, 900.0, h / 2], [0, 0, 1]], "dist_coeffs": [0.0, 0, 0, 0, 0],
            "rms_px": 0.3, "image_size": [w, h], "views_used": 9}
    path.write_text(json.dumps({
        "kind": "thoughtwave-calibration", "version": 1, "resolution": [w, h],
        "homography": [[1, 0, 0], [0, 1, 0], [0, 0, 1]], "cell_px": 40.0, "colour_model": {}, "lens": lens,
        "checks": [LENS_JUDGED], "created": "2026-01-01T00:00:00+00:00"}))
    return lens


def test_a_lens_model_made_with_the_cli_is_kept_by_a_check_on_the_page(client, companion, good_image, tmp_path):
    lens = write_lens_profile(tmp_path / FILE_NAME, (960, 720))
    judged = LENS_JUDGED
    headers = login(client)
    show(companion, good_image, 1)
    data = client.post("/api/calibrate/check", headers=headers).get_json()
    assert data["lens"] is True and data["checks"][0]["measured"] == judged["measured"], "judged as when it was made"
    assert client.post("/api/calibrate/save", headers=headers).status_code == 200
    saved = load_profile(tmp_path / FILE_NAME)
    assert saved.lens["camera_matrix"] == lens["camera_matrix"] and saved.colour_model


def test_a_lens_model_of_another_resolution_is_not_used_and_the_check_says_so(client, companion, good_image,
                                                                              tmp_path):
    write_lens_profile(tmp_path / FILE_NAME, (1280, 960))
    headers = login(client)
    show(companion, good_image, 1)
    data = client.post("/api/calibrate/check", headers=headers).get_json()
    lens = by_name(data["checks"])["lens model"]
    assert lens["status"] == "warn" and "1280x960" in lens["measured"] and "--lens-camera" in lens["advice"]
    assert data["ok"] and data["lens"] is False
    assert client.post("/api/calibrate/save", headers=headers).status_code == 200
    assert load_profile(tmp_path / FILE_NAME).lens is None


def test_a_damaged_profile_on_disk_is_reported_not_a_crash(client, tmp_path):
    (tmp_path / FILE_NAME).write_text("{ half a profi")
    summary = client.get("/api/calibrate").get_json()["profile"]
    assert summary["exists"] and "damaged" in summary["error"]
    assert client.get("/calibrate").status_code == 200


def test_a_companion_without_a_camera_has_no_profile_to_change(tmp_path):
    game = ScriptedGame([])
    companion = Companion(Store(":memory:"), Rules(), lambda: StillCamera(np.zeros((8, 8, 3), np.uint8)),
                          game.watcher, Settings())
    client = create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path),
                        config=Config(state_dir=tmp_path)).test_client()
    watcher = companion.watcher
    response = client.post("/api/calibrate/reset", headers=login(client))
    assert response.status_code == 409 and "not reading a camera" in response.get_json()["error"]
    assert companion.watcher is watcher, "the scripted game goes on as it was"


# ---- a dark board --------------------------------------------------------------------------------

def test_a_dark_board_fails_the_exposure_check_and_is_saved_only_with_force(client, companion, dark_image, tmp_path):
    headers = login(client)
    show(companion, dark_image, 2)
    response = client.post("/api/calibrate/check", headers=headers)
    assert response.status_code == 200
    data = response.get_json()
    exposure = by_name(data["checks"])["exposure"]
    assert not data["ok"] and "exposure" in data["failed"]
    assert exposure["status"] == "FAIL" and "add light" in exposure["advice"]
    watcher = companion.watcher
    refused = client.post("/api/calibrate/save", json={}, headers=headers)
    assert refused.status_code == 409 and "exposure" in refused.get_json()["error"]
    assert not (tmp_path / FILE_NAME).exists() and companion.watcher is watcher
    html = client.get("/calibrate").get_data(as_text=True)
    assert 'class="check fail" data-name="exposure"' in html and "add light" in html
    forced = client.post("/api/calibrate/save", json={"force": True}, headers=headers)
    assert forced.status_code == 200 and load_profile(tmp_path / FILE_NAME).checks
    assert companion.watcher is not watcher


def test_only_one_check_runs_at_a_time(client, app, companion, good_image):
    headers = login(client)
    show(companion, good_image, 1)
    desk = app.extensions["thoughtwave"].desk
    with desk.checking():    # a check under way in another request
        response = client.post("/api/calibrate/check", headers=headers)
    assert response.status_code == 409 and "already running" in response.get_json()["error"]


# ---- in a browser --------------------------------------------------------------------------------

@pytest.mark.browser
def test_in_the_browser_enter_the_pin_press_check_and_the_results_appear(page, good_image, tmp_path):
    expect = pytest.importorskip("playwright.sync_api").expect
    game = ScriptedGame([])     # no vision in the loop: the page checks the camera's raw pictures itself
    store = Store.in_dir(tmp_path)
    companion = Companion(store, Rules(), lambda: StillCamera(good_image, fps=5), game.watcher, Settings(speech=False))
    app = create_app(companion, pin="1357", secret_key=load_secret_key(tmp_path), threads=4,
                     config=Config(state_dir=tmp_path))
    with closing(store), serving(app, threads=4) as url:     # the store closes after the server
        companion.start()
        try:
            errors: list[str] = []
            page.on("pageerror", lambda err: errors.append(str(err)))
            page.goto(f"{url}/calibrate")
            expect(page.locator("#checks li")).to_have_count(0)
            page.fill('#pin-form input[name="pin"]', "1357")
            page.get_by_role("button", name="Enter").click()
            check = page.get_by_role("button", name="Check")
            expect(check).to_be_visible()
            expect(page.locator("#save")).to_be_disabled()
            check.click()
            expect(page.locator("#checks li")).to_have_count(7, timeout=20_000)
            expect(page.locator('#checks li[data-name="exposure"] .mark')).to_have_text("ok")
            expect(page.locator("#last-summary")).to_contain_text("Every check passed")
            expect(page.locator("#save")).to_be_enabled()
            expect(page.locator("#save-force")).to_be_hidden()
            expect(page.locator("#light-map")).to_be_visible()      # the glare and shadow map, drawn by the script
            expect(page.locator("#light-rows td")).to_have_count(100)
            expect(page.locator("#light-glare")).not_to_be_empty()
            assert errors == []
        finally:
            page.goto("about:blank")      # ends the preview stream before the server goes
            companion.stop()
