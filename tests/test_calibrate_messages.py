"""The calibration page's messages: the summary reflects the worst check (never a plain pass above
warnings), and a locked page says how to unlock instead of asking for a button it does not show."""

import pytest

from thoughtwave.webui.app import create_app, load_secret_key
from thoughtwave.webui.calibration_desk import check_summary


def check(name: str, status: str) -> dict:
    return {"name": name, "status": status, "ok": status != "FAIL", "warning": status == "warn"}


def results(*checks: dict, board_found: bool = True) -> dict:
    return {"checks": list(checks), "ok": all(c["ok"] for c in checks), "board_found": board_found,
            "failed": [c["name"] for c in checks if not c["ok"]], "frames": 3, "resolution": [960, 720],
            "when": "2026-01-15T10:30:05+00:00"}


def test_warnings_are_not_summed_up_as_a_pass():
    summary = check_summary(results(check("focus", "ok"), check("exposure", "warn"), check("glare", "warn")))
    assert summary["level"] == "warn" and summary["warned"] == ["exposure", "glare"]
    assert summary["summary"].startswith("Passed with warnings: exposure, glare.")
    assert "Every check passed" not in summary["summary"]


def test_a_failure_outranks_warnings_and_a_clean_check_passes():
    failed = check_summary(results(check("focus", "FAIL"), check("exposure", "warn")))
    assert failed["level"] == "fail" and failed["summary"].startswith("Failed: focus. Put that right")
    assert check_summary(results(check("focus", "ok"), board_found=False))["summary"].startswith("No board found")
    clean = check_summary(results(check("focus", "ok")))
    assert clean["level"] == "ok" and clean["summary"].startswith("Every check passed. Checked at ")
    assert clean["summary"].endswith(" on 3 pictures of 960x720.")


@pytest.mark.parametrize("pin, says", [
    (None, "this companion was started without a PIN"),
    ("2468", "No check yet: enter the PIN above, then press Check."),
])
def test_a_locked_page_says_how_to_unlock_not_press_check(companion, tmp_path, pin, says):
    client = create_app(companion, pin=pin, secret_key=load_secret_key(tmp_path)).test_client()
    html = client.get("/calibrate").get_data(as_text=True)
    assert says in html
    assert 'id="check"' not in html and "No check yet: press Check." not in html
    assert "then press <strong>Check</strong>." not in html
