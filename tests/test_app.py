"""The display's HTTP surface: anyone may watch; changes need the PIN and the CSRF token; bad input is a
4xx JSON answer, never a 500."""

import json
import re

import pytest
from doubles import Driver
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from thoughtwave.game import ScriptFrame
from thoughtwave.webui.app import create_app, load_secret_key
from thoughtwave.webui.auth import PinLimiter

PIN = "246813"


@pytest.fixture
def play(companion, game):
    """Lay pieces as if the camera saw them (the table rules on them): ``play("red ew@E5")``."""
    return Driver(companion, game).play


@pytest.fixture
def app(companion, tmp_path):
    return create_app(companion, pin=PIN, secret_key=load_secret_key(tmp_path), threads=4)


@pytest.fixture
def client(app):
    return app.test_client()


def token(client) -> str:
    return client.get("/api/session").get_json()["csrf"]


def login(client) -> str:
    response = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 200
    return response.get_json()["csrf"]


# ---- watching -----------------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["/", "/games", "/control", "/login", "/api/state", "/board.svg", "/api/games"])
def test_anyone_may_watch_and_every_answer_carries_the_security_headers(client, path):
    response = client.get(path)
    assert response.status_code == 200
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert response.headers["Referrer-Policy"] == "no-referrer"
    csp = response.headers["Content-Security-Policy"]
    assert "script-src 'self'" in csp and "unsafe-inline" not in csp


def test_pages_have_no_inline_script_and_carry_the_csrf_token(client):
    html = client.get("/").get_data(as_text=True)
    assert not re.search(r"<script(?![^>]*\bsrc=)[^>]*>", html)
    assert re.search(r'<meta name="csrf-token" content="[\w-]{20,}">', html)
    assert "<svg" in html


def test_the_session_cookie_is_http_only_and_same_site_strict(client):
    cookie = client.get("/").headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie


def test_state_speaks_the_referee_json_names(companion, client, play):
    play("red ew@E5")
    state = client.get("/api/state").get_json()
    for key in ("next", "winner", "draw", "left", "cells", "moves", "flags", "status", "camera"):
        assert key in state
    assert state["next"] == "black" and state["cells"] == {"E5": {"colour": "red", "piece": "ew"}}
    assert state["left"]["red"]["straight"] == 4
    assert state["moves"] == [{"n": 1, "colour": "red", "move": "ew@E5", "verdict": "legal", "reason": None}]


def test_events_stream_starts_with_the_full_state_and_a_retry_hint(companion, client, play):
    response = client.get("/api/events", buffered=False)
    assert response.status_code == 200 and response.mimetype == "text/event-stream"
    first = next(iter(response.response)).decode()
    assert first.startswith("retry: ")
    event_id = re.search(r"^id: (\d+)$", first, re.M).group(1)
    state = json.loads(re.search(r"^data: (.*)$", first, re.M).group(1))
    assert int(event_id) == state["version"] and "svg" in state
    play("red ew@E5")
    pushed = json.loads(next(iter(response.response)).decode().split("data: ", 1)[1])
    assert pushed["moves"][0]["move"] == "ew@E5"
    response.close()


def test_streams_are_capped_below_the_thread_count_and_slots_come_back(app, client):
    slots = app.extensions["thoughtwave"].slots
    assert slots.cap == 2  # 4 threads, 2 kept for pages and control
    open_streams = [client.get("/api/events", buffered=False) for _ in range(2)]
    refused = client.get("/api/events")
    assert refused.status_code == 503 and refused.headers["Retry-After"] and "error" in refused.get_json()
    for response in open_streams:
        response.close()
    assert slots.open == 0
    never_read = client.get("/api/events", buffered=False)
    never_read.close()          # closed before a byte was read: the slot still comes back
    assert slots.open == 0


def test_the_preview_is_a_jpeg_stream_once_there_is_a_picture(companion, client):
    assert client.get("/preview.mjpg").status_code == 503
    assert client.get("/preview.jpg").status_code == 503
    np = pytest.importorskip("numpy")
    companion.process(ScriptFrame(1, 0.02, np.full((480, 640, 3), 90, np.uint8)))   # the camera's first picture
    jpeg = client.get("/preview.jpg")
    assert jpeg.mimetype == "image/jpeg" and jpeg.data[:2] == b"\xff\xd8"
    stream = client.get("/preview.mjpg", buffered=False)
    assert stream.mimetype == "multipart/x-mixed-replace"
    part = next(iter(stream.response))
    assert part.startswith(b"--frame\r\nContent-Type: image/jpeg\r\n") and b"\xff\xd8" in part
    stream.close()


def test_finished_games_are_browsable_and_exported_as_records(companion, client, play):
    play("red ew@E5")
    game = companion.game.id
    page = client.get(f"/games/{game}")
    assert page.status_code == 200 and "ew@E5" in page.get_data(as_text=True)
    record = client.get(f"/games/{game}/record.txt")
    assert record.mimetype == "text/plain" and "attachment" in record.headers["Content-Disposition"]
    assert "red ew@E5  # legal" in record.get_data(as_text=True)
    assert client.get("/api/games").get_json()["games"][0]["id"] == game
    assert client.get(f"/api/games/{game}").get_json()["cells"] == {"E5": {"colour": "red", "piece": "ew"}}
    for path in ("/games/999", "/games/999/record.txt", "/api/games/999"):
        response = client.get(path)
        assert response.status_code == 404 and "error" in response.get_json()


# ---- the PIN and the CSRF token --------------------------------------------------------------------

def test_control_without_the_pin_is_refused(companion, client, play):
    play("red ew@E5")
    response = client.post("/api/undo", json={}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 401 and "PIN" in response.get_json()["error"]
    assert len(companion.state().verdicts) == 1


def test_a_wrong_pin_is_refused_and_the_right_one_unlocks_control(companion, client, play):
    csrf = token(client)
    wrong = client.post("/api/login", json={"pin": "1111"}, headers={"X-CSRF-Token": csrf})
    assert wrong.status_code == 403 and wrong.get_json() == {"error": "wrong PIN"}
    play("red ew@E5")
    csrf = login(client)
    response = client.post("/api/undo", json={}, headers={"X-CSRF-Token": csrf})
    assert response.status_code == 200 and response.get_json()["moves"] == []
    client.post("/api/logout", headers={"X-CSRF-Token": csrf})
    assert client.post("/api/game/end", headers={"X-CSRF-Token": token(client)}).status_code == 401


@pytest.mark.parametrize("sent", [None, "", "not-the-token"])
def test_a_missing_or_wrong_csrf_token_is_refused_even_when_logged_in(client, sent):
    login(client)
    headers = {} if sent is None else {"X-CSRF-Token": sent}
    response = client.post("/api/game/new", json={}, headers=headers)
    assert response.status_code == 403 and "CSRF" in response.get_json()["error"]


def test_the_login_itself_needs_the_csrf_token(client):
    assert client.post("/api/login", json={"pin": PIN}).status_code == 403


def test_pin_attempts_are_rate_limited(client):
    csrf = token(client)
    for _ in range(5):
        assert client.post("/api/login", json={"pin": "0000"}, headers={"X-CSRF-Token": csrf}).status_code == 403
    limited = client.post("/api/login", json={"pin": PIN}, headers={"X-CSRF-Token": csrf})
    assert limited.status_code == 429 and int(limited.headers["Retry-After"]) > 0


def test_the_limiter_forgets_old_failures_and_a_success_resets_it():
    now = [100.0]
    limiter = PinLimiter(attempts=2, window=60.0, clock=lambda: now[0])
    limiter.failed("a")
    limiter.failed("a")
    assert limiter.wait_seconds("a") == 61 and limiter.wait_seconds("b") == 0
    now[0] += 30
    assert limiter.wait_seconds("a") == 31
    now[0] += 30.5
    assert limiter.wait_seconds("a") == 0
    limiter.failed("a")
    limiter.succeeded("a")
    limiter.failed("a")
    assert limiter.wait_seconds("a") == 0


def test_the_login_form_works_with_its_hidden_field(client):
    page = client.get("/login").get_data(as_text=True)
    csrf = re.search(r'name="csrf" value="([^"]+)"', page).group(1)
    assert client.post("/login", data={"pin": "9999", "csrf": csrf}).status_code == 403
    response = client.post("/login", data={"pin": PIN, "csrf": csrf})
    assert response.status_code == 303 and response.headers["Location"].endswith("/control")
    assert "Take back the last move" in client.get("/control").get_data(as_text=True)


def test_without_a_pin_nothing_can_be_changed(companion, tmp_path):
    client = create_app(companion, pin=None, secret_key=load_secret_key(tmp_path)).test_client()
    response = client.post("/api/login", json={"pin": ""}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 403


def test_the_secret_key_is_kept_private_and_reused(tmp_path):
    key = load_secret_key(tmp_path)
    assert (tmp_path / "secret_key").stat().st_mode & 0o777 == 0o600
    assert load_secret_key(tmp_path) == key and len(key) >= 32


# ---- control ------------------------------------------------------------------------------------------

def test_new_game_with_sides_first_penalty_and_handicap(companion, client):
    csrf = login(client)
    response = client.post("/api/game/new", headers={"X-CSRF-Token": csrf}, json={
        "red": "Ann", "black": "Bob", "red_sides": "NS", "first": "black", "penalty": "retry",
        "red_pieces": "cross=1 bend=9", "inventory": {"black": {"cross": 1}}})
    state = response.get_json()
    assert response.status_code == 200
    assert state["game"]["red"] == "Ann" and state["next"] == "black"
    assert state["rules"]["red_sides"] == "NS" and state["rules"]["penalty"] == "retry"
    assert state["left"]["red"]["cross"] == 1 and state["left"]["red"]["bend"] == 9
    assert state["left"]["black"]["cross"] == 1 and state["sides"]["red"] == "north and south"
    assert state["done"]["status"] == "applied"
    assert state["done"]["message"].startswith(f"Game {state['game']['id']} has started: Ann (red) against Bob")


def test_correct_and_end_game(companion, client, play):
    csrf = login(client)
    play("red ew@E5", "black ns@E6")
    state = client.post("/api/correct", json={"cell": "e6", "colour": "black", "piece": "w"},
                        headers={"X-CSRF-Token": csrf}).get_json()
    assert [m["move"] for m in state["moves"]] == ["ew@E5", "w@E6"]
    old = state["game"]["id"]
    state = client.post("/api/game/end", headers={"X-CSRF-Token": csrf}).get_json()
    assert state["game"]["id"] == old and state["game"]["ended"] and len(state["moves"]) == 2
    assert client.get("/api/games").get_json()["games"][0]["ended"]


def test_undo_with_nothing_to_undo_is_a_conflict(client):
    csrf = login(client)
    response = client.post("/api/undo", headers={"X-CSRF-Token": csrf})
    assert response.status_code == 409 and "error" in response.get_json()


# ---- bad input ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("path, body, status", [
    ("/api/correct", b"{not json", 400),
    ("/api/correct", b"[1, 2]", 400),
    ("/api/correct", json.dumps({"cell": "Z11", "colour": "red", "piece": "n"}).encode(), 400),
    ("/api/correct", json.dumps({"cell": 5}).encode(), 400),
    ("/api/correct", json.dumps({"cell": "E5", "colour": ["red"], "piece": "n"}).encode(), 400),
    ("/api/correct", json.dumps({"cell": "E5", "colour": "red", "piece": "xyz"}).encode(), 400),
    ("/api/game/new", json.dumps({"penalty": "flogging"}).encode(), 400),
    ("/api/game/new", json.dumps({"red": 7}).encode(), 400),
    ("/api/game/new", json.dumps({"red": "x" * 500}).encode(), 400),
    ("/api/game/new", json.dumps({"red_pieces": "dragon=2"}).encode(), 400),
    ("/api/game/new", json.dumps({"inventory": {"red": {"bend": "ten"}}}).encode(), 400),
    ("/api/game/new", json.dumps({"inventory": "all"}).encode(), 400),
    ("/api/game/new", b"\xff\xfe\x00garbage", 400),
    ("/api/correct", b"x" * 20_000, 413),
])
def test_bad_input_is_a_4xx_json_answer(client, path, body, status):
    csrf = login(client)
    response = client.post(path, data=body, headers={"X-CSRF-Token": csrf, "Content-Type": "application/json"})
    assert response.status_code == status and isinstance(response.get_json()["error"], str)


@pytest.mark.parametrize("method, path, status", [("GET", "/nowhere", 404), ("DELETE", "/api/state", 405),
                                                  ("GET", "/api/undo", 405), ("GET", "/games/abc", 404)])
def test_unknown_paths_and_methods_are_json_errors(client, method, path, status):
    response = client.open(path, method=method)
    assert response.status_code == status and "error" in response.get_json()


scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=20)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4)
                           | st.dictionaries(st.text(max_size=10), inner, max_size=4), max_leaves=12)
fields = st.fixed_dictionaries({}, optional={
    "cell": st.sampled_from(["E5", "A1", "J10", "K1", "", "e5", None, 3]) | st.text(max_size=5),
    "colour": st.sampled_from(["red", "black", "blue", "", None, 1]),
    "piece": json_values | st.sampled_from(["n", "X"]),
    "red": json_values, "penalty": json_values, "red_sides": json_values, "first": json_values,
    "inventory": json_values, "black_pieces": json_values})


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(path=st.sampled_from(["/api/correct", "/api/game/new", "/api/undo", "/api/game/end"]),
       body=fields | json_values)
def test_no_json_body_ever_makes_a_500(client, path, body):
    csrf = login(client)
    response = client.post(path, json=body, headers={"X-CSRF-Token": csrf})
    assert response.status_code < 500, response.get_data(as_text=True)
    if response.status_code >= 400:
        assert "error" in response.get_json()


@pytest.mark.parametrize("pin", [None, "246813\x00", "٢٤٦٨١٣"])
def test_a_pin_of_the_wrong_form_is_refused_not_a_crash(client, pin):
    response = client.post("/api/login", json={"pin": pin}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 403 and response.get_json() == {"error": "wrong PIN"}


@pytest.mark.parametrize("pin", [246813, [], {"pin": PIN}, "1" * 65])
def test_a_pin_of_the_wrong_type_is_refused_naming_the_field(client, pin):
    response = client.post("/api/login", json={"pin": pin}, headers={"X-CSRF-Token": token(client)})
    assert response.status_code == 400 and response.get_json()["error"].startswith("pin: ")


def test_other_pages_guard_their_changes_with_requires_pin(app):
    from flask import Blueprint

    from thoughtwave.webui.auth import requires_pin

    calibration = Blueprint("calibration", __name__)

    @calibration.post("/api/calibrate")
    @requires_pin
    def calibrate():
        return {"ok": True}

    app.register_blueprint(calibration)
    client = app.test_client()
    assert client.post("/api/calibrate", headers={"X-CSRF-Token": token(client)}).status_code == 401
    csrf = login(client)
    assert client.post("/api/calibrate").status_code == 403
    assert client.post("/api/calibrate", headers={"X-CSRF-Token": csrf}).get_json() == {"ok": True}
