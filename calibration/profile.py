"""The calibration profile: what calibration learnt about one camera, board and light.

A JSON file (``profile.json`` in the state directory) with the board pose, cell size in pixels, the
colour model learnt from the actual print and light, the camera's resolution, optionally a lens model
and the camera's locked exposure, white balance and focus (``camera``), and the check results. A
profile written before ``camera`` existed loads as one without it. Written atomically (never a
half-written file); read with validation, so a corrupt or foreign file gives a clear error and the
caller falls back to the defaults.

The checks' words are stored in English (``checks``) and, beside them, as phrase codes with their values
(``check_phrases``), so a page in another language can say a stored check in its own words after a
restart; a profile without them (or with damaged ones) shows its checks in English.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from thoughtwave.engine.phrases import Phrase, Words, said_as
from thoughtwave.vision.camera_control import CameraSettings

KIND = "thoughtwave-calibration"
VERSION = 1
FILE_NAME = "profile.json"
#: Largest profile file read (a real one is a few kilobytes).
MAX_BYTES = 256 * 1024


class ProfileError(ValueError):
    """A profile file that cannot be used; the message says which file and why."""


@dataclass(frozen=True)
class CheckResult:
    """One calibration check: passed or not, the measured value in words, and what to change."""

    name: str
    ok: bool
    measured: str
    advice: str | None = None
    warning: bool = False     # passed, but close to the limit

    def line(self) -> str:
        """``"ok    focus: edges 1.4 px wide"`` / ``"FAIL  focus: ... -> focus the lens ..."``."""
        mark = "FAIL" if not self.ok else ("warn" if self.warning else "ok")
        text = f"{mark:<5} {self.name}: {self.measured}"
        return f"{text} -> {self.advice}" if self.advice else text


@dataclass(frozen=True)
class Profile:
    """A calibration profile. ``reader_profile()`` is the dict the Recognizer takes."""

    resolution: tuple[int, int]
    homography: tuple[tuple[float, ...], ...]     # board mm -> image px, 3x3
    cell_px: float
    colour_model: dict[str, float] = field(default_factory=dict)
    lens: dict | None = None                      # {"camera_matrix": 3x3, "dist_coeffs": [...]}
    checks: tuple[CheckResult, ...] = ()
    created: str = ""
    camera: dict | None = None                    # CameraSettings.to_json(): exposure, white balance, focus

    def camera_settings(self) -> CameraSettings | None:
        """The locked camera settings to open the camera with, or None (automatic, as before)."""
        return CameraSettings.from_json(self.camera) if self.camera else None

    def reader_profile(self) -> dict:
        """What ``vision.recognizer.Recognizer(profile=...)`` reads."""
        out: dict = {"colour_model": dict(self.colour_model)}
        if self.lens:
            out["lens"] = self.lens
        return out

    def to_json(self) -> dict:
        data = asdict(self)
        data["checks"] = [asdict(c) for c in self.checks]
        phrases = [_phrases_json(c) for c in self.checks]
        if any(phrases):
            data["check_phrases"] = phrases
        return {"kind": KIND, "version": VERSION, **data}

    @classmethod
    def from_json(cls, data: object, source: str = "profile") -> Profile:
        """Validate a decoded profile; ProfileError names what is wrong."""
        if not isinstance(data, dict) or data.get("kind") != KIND:
            raise ProfileError(f"{source} is not a Thoughtwave calibration profile")
        if data.get("version") != VERSION:
            raise ProfileError(f"{source} is a profile of version {data.get('version')!r}; this program reads "
                               f"version {VERSION}: calibrate again")
        try:
            w, h = (int(v) for v in data["resolution"])
            homography = tuple(tuple(float(v) for v in row) for row in data["homography"])
            cell_px = float(data["cell_px"])
            model = {str(k): float(v) for k, v in (data.get("colour_model") or {}).items()}
            lens = data.get("lens")
            checks = _with_phrases(tuple(CheckResult(**c) for c in data.get("checks") or ()),
                                   data.get("check_phrases"))
            camera = data.get("camera")
            if camera is not None:
                camera = CameraSettings.from_json(camera).to_json()
        except (KeyError, TypeError, ValueError) as err:
            raise ProfileError(f"{source} is damaged ({type(err).__name__}: {err}): calibrate again") from None
        if w <= 0 or h <= 0 or len(homography) != 3 or any(len(r) != 3 for r in homography):
            raise ProfileError(f"{source} is damaged (resolution or pose malformed): calibrate again")
        values = [cell_px, *model.values(), *(v for r in homography for v in r)]
        if not all(math.isfinite(v) for v in values) or cell_px <= 0:
            raise ProfileError(f"{source} is damaged (numbers out of range): calibrate again")
        if lens is not None and not _valid_lens(lens):
            raise ProfileError(f"{source} has a malformed lens model: calibrate again")
        return cls((w, h), homography, cell_px, model, lens, checks, str(data.get("created", "")), camera)


_WORDED = ("measured", "advice")


def _encoded(value: object) -> object:
    """``value`` as JSON, a phrase inside it (a ``Words``, as in a list of advice) kept with its code."""
    phrase = said_as(value)
    if phrase is not None:
        return {"phrase": phrase.code, "english": phrase.english, "values": _encoded(phrase.values)}
    if isinstance(value, dict):
        return {str(k): _encoded(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encoded(v) for v in value]
    return value


def _decoded(value: object) -> object:
    if isinstance(value, dict) and isinstance(value.get("phrase"), str) and isinstance(value.get("english"), str):
        values = _decoded(value.get("values"))
        return Words(Phrase.of(value["phrase"], value["english"], **(values if isinstance(values, dict) else {})))
    if isinstance(value, dict):
        return {k: _decoded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_decoded(v) for v in value]
    return value


def _phrases_json(check: CheckResult) -> dict:
    """The phrases of ``check``'s words, by field ({} when they are plain text)."""
    return {name: _encoded(getattr(check, name)) for name in _WORDED if said_as(getattr(check, name))}


def _with_phrases(checks: tuple[CheckResult, ...], stored: object) -> tuple[CheckResult, ...]:
    """``checks`` with their words carrying the stored phrases again; as they are when there are none or
    they do not match the English words (a hand-edited or older file: its checks read in English)."""
    if not isinstance(stored, list) or len(stored) != len(checks):
        return checks
    out = []
    for check, phrases in zip(checks, stored, strict=True):
        changes = {}
        for name in _WORDED:
            given = _decoded(phrases.get(name)) if isinstance(phrases, dict) else None
            if isinstance(given, Words) and given == getattr(check, name):
                changes[name] = given
        out.append(replace(check, **changes) if changes else check)
    return tuple(out)


def _valid_lens(lens: object) -> bool:
    try:
        k = [[float(v) for v in row] for row in lens["camera_matrix"]]
        d = [float(v) for v in lens["dist_coeffs"]]
    except (KeyError, TypeError, ValueError):
        return False
    return len(k) == 3 and all(len(r) == 3 for r in k) and 4 <= len(d) <= 14 and all(
        math.isfinite(v) for v in [*d, *(v for r in k for v in r)])


def save_profile(profile: Profile, path: Path) -> None:
    """Write ``profile`` to ``path`` atomically: a temporary file in the same folder, flushed to disk,
    then renamed over the old one, so a crash or power cut leaves the old profile or the new, never half."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(profile.to_json(), indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    try:
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # some filesystems cannot fsync a folder; the rename is still atomic


def load_profile(path: Path) -> Profile:
    """Read and validate a profile; ProfileError (with the file name and reason) when it cannot be used."""
    path = Path(path)
    try:
        if path.stat().st_size > MAX_BYTES:
            raise ProfileError(f"{path} is too large to be a calibration profile")
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise ProfileError(f"cannot read {path}: {err.strerror}") from None
    except UnicodeDecodeError:
        raise ProfileError(f"{path} is not a calibration profile (not text)") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise ProfileError(f"{path} is damaged (line {err.lineno}: {err.msg}): calibrate again") from None
    return Profile.from_json(data, str(path))


def load_profile_if_sound(path: Path | None) -> tuple[Profile | None, str | None]:
    """The profile at ``path`` if it exists and is sound: ``(profile, None)``; ``(None, warning)`` when it
    is damaged (the defaults are used); ``(None, None)`` when absent."""
    if path is None or not Path(path).exists():
        return None, None
    try:
        return load_profile(path), None
    except ProfileError as err:
        return None, f"{err}; reading with the default colour model"


def load_reader_profile(path: Path | None) -> tuple[dict | None, str | None]:
    """The reader's profile dict from ``path``, as ``load_profile_if_sound`` finds it."""
    profile, warning = load_profile_if_sound(path)
    return (profile.reader_profile() if profile is not None else None), warning
