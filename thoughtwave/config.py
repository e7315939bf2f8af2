"""The companion's configuration: one TOML file, every key optional, every mistake named.

>>> config = load_config(None, environ={"STATE_DIRECTORY": "/var/lib/thoughtwave"}, default=Path("/nowhere"))
>>> config.server.port, config.rules.first, str(config.state_dir), str(config.profile_path)
(8080, 'red', '/var/lib/thoughtwave', '/var/lib/thoughtwave/profile.json')

Sections ``[camera] [server] [rules] [vision] [display]`` and a top-level ``state_dir``; the table
of keys is ``KEYS`` (``describe_keys()`` prints it). The environment is read here and nowhere else:
``default_state_dir`` turns systemd's ``$STATE_DIRECTORY`` (or the XDG directory) into a path, and
``load_config`` hands the app a finished ``Config``. Command-line flags override it in ``serve``.

This module is the one place for what several commands share: the state directory's default, where
the calibration profile lives (``Config.profile_path``), the stable-seconds default and the camera
spec grammar (``CameraSpec``; ``open_camera`` opens one through ``thoughtwave.vision.sources``).
"""

from __future__ import annotations

import difflib
import enum
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from thoughtwave import configvalues as check
from thoughtwave.calibration.profile import FILE_NAME
from thoughtwave.engine import ALL_SIDES, Colour, NotationError, Penalty, Rules, Sides
from thoughtwave.i18n import LANGUAGES
from thoughtwave.synth.demo import DemoCamera
from thoughtwave.vision.camera_control import CameraSettings
from thoughtwave.vision.sources import (
    DEFAULT_RESOLUTION,
    FrameSource,
    ImageDirSource,
    PiSource,
    UsbSource,
    VideoSource,
)
from thoughtwave.vision.stabiliser import STABLE_SECONDS

__all__ = [
    "CAMERA_FORMS", "DEFAULT_CONFIG_PATH", "DEFAULT_STABLE_SECONDS", "KEYS", "CameraConfig", "CameraKind",
    "CameraSpec", "Config", "ConfigError", "DisplayConfig", "Key", "RulesConfig", "ServerConfig", "VisionConfig",
    "default_state_dir", "describe_keys", "load_config", "open_camera", "parse_document", "rules_of",
]

DEFAULT_CONFIG_PATH = Path("/etc/thoughtwave/config.toml")

#: Seconds the board must hold still before a change counts: the default of ``[vision] stable_seconds``
#: (defined beside the stabiliser that uses it, so a watcher made without a configuration agrees).
DEFAULT_STABLE_SECONDS = STABLE_SECONDS


class ConfigError(ValueError):
    """A configuration mistake; the message names the file and key and fits on one line."""


# --- the camera spec ----------------------------------------------------------------------------

class CameraKind(enum.StrEnum):
    """The kinds of frame source a camera spec names."""

    PI = "pi"
    USB = "usb"
    FILE = "file"
    DIR = "dir"
    DEMO = "demo"


#: The spec forms, as messages and help list them.
CAMERA_FORMS = "demo, pi, usb:N, file:PATH or dir:PATH"

# pi and usb:N may carry an @WIDTHxHEIGHT suffix; the kind is case-blind.
_SIZED = re.compile(r"(?:pi|usb:(\d{1,3}))(?:@(\d{1,5})x(\d{1,5}))?", re.IGNORECASE)


@dataclass(frozen=True)
class CameraSpec:
    """A camera spec, parsed: ``pi``, ``usb:N``, ``file:PATH`` (a video), ``dir:PATH`` (images) or ``demo``.

    >>> CameraSpec.parse("USB:1@640x480")
    CameraSpec(kind=<CameraKind.USB: 'usb'>, device=1, path=None, resolution=(640, 480))
    >>> str(CameraSpec.parse(" dir:frames "))
    'dir:frames'
    """

    kind: CameraKind
    device: int | None = None                   # usb:N
    path: Path | None = None                    # file:PATH, dir:PATH
    resolution: tuple[int, int] | None = None   # pi@WxH, usb:N@WxH

    @classmethod
    def parse(cls, text: object) -> CameraSpec:
        """The spec ``text`` names; ValueError ("must be demo, pi, ... got 'x'") when it names none."""
        if isinstance(text, str):
            spec = text.strip()
            if spec.lower() == "demo":
                return cls(CameraKind.DEMO)
            if sized := _SIZED.fullmatch(spec):
                size = (int(sized[2]), int(sized[3])) if sized[2] else None
                if size is None or min(size) > 0:
                    if sized[1] is None:
                        return cls(CameraKind.PI, resolution=size)
                    return cls(CameraKind.USB, device=int(sized[1]), resolution=size)
            kind, colon, rest = spec.partition(":")
            if colon and kind.lower() in (CameraKind.FILE, CameraKind.DIR) and rest.strip():
                return cls(CameraKind(kind.lower()), path=Path(rest))
        raise ValueError(f"must be {CAMERA_FORMS}, got {text!r}")

    def __str__(self) -> str:
        size = f"@{self.resolution[0]}x{self.resolution[1]}" if self.resolution else ""
        if self.kind is CameraKind.USB:
            return f"usb:{self.device}{size}"
        if self.kind in (CameraKind.FILE, CameraKind.DIR):
            return f"{self.kind}:{self.path}"
        return f"{self.kind}{size}"


def open_camera(spec: CameraSpec, fps: float | None = None, resolution: tuple[int, int] | None = None,
                settings: CameraSettings | None = None) -> FrameSource:
    """The frame source ``spec`` names, opened (``CameraError`` or ``OSError`` when it cannot be).

    The spec's own ``@WxH`` wins over ``resolution``. ``fps`` sets the rate of a folder, a video (default:
    the file's), the Pi camera and the demo camera; left out, each source's own default applies.
    ``settings`` (the calibration profile's locked exposure, white balance and focus) hold a Pi or USB
    camera where calibration measured it.
    """
    size = spec.resolution or resolution
    rate = {"fps": fps} if fps else {}             # what is not given, each source defaults itself
    shape = {"resolution": size} if size else {}
    if spec.kind is CameraKind.PI:
        return PiSource(**shape, **rate, settings=settings)
    if spec.kind is CameraKind.USB:
        return UsbSource(spec.device or 0, **shape, settings=settings)
    if spec.kind is CameraKind.FILE:
        return VideoSource(spec.path, fps or None)
    if spec.kind is CameraKind.DIR:
        return ImageDirSource(spec.path, **rate)
    return DemoCamera(**shape, **rate)


# --- the sections ------------------------------------------------------------------------------

@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from: ``source`` as written (``demo``, ``pi``, ``usb:N``, ``file:PATH`` or
    ``dir:PATH``), and ``spec``, the same parsed (ValueError when it names no camera)."""

    source: str = "demo"
    resolution: tuple[int, int] = DEFAULT_RESOLUTION
    fps: float = 10.0
    spec: CameraSpec = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "spec", CameraSpec.parse(self.source))


@dataclass(frozen=True)
class ServerConfig:
    """The display's web server; ``pin`` (6-12 digits) unlocks changes (``None``: serve picks one per start).
    ``connection_limit`` caps the open connections (streams are capped far below it, by ``threads`` and
    ``streams_per_client``); ``channel_timeout`` closes a connection idle that many seconds."""

    host: str = "127.0.0.1"
    port: int = 8080
    pin: str | None = None
    threads: int = 8
    connection_limit: int = 200
    channel_timeout: int = 30
    streams_per_client: int = 4


@dataclass(frozen=True)
class RulesConfig:
    """The rule options of DESIGN.md, as the CLI flags spell them."""

    illegal_penalty: str = Penalty.SKIP_TURN.value
    red_sides: Sides = Sides.WE
    first: str = Colour.RED.value


@dataclass(frozen=True)
class VisionConfig:
    """How long the board must hold still, when to warn about a hand, and the calibration profile."""

    stable_seconds: float = DEFAULT_STABLE_SECONDS
    hand_warning_seconds: float = 10.0
    profile: Path | None = None


@dataclass(frozen=True)
class DisplayConfig:
    """What the display does besides drawing the board."""

    speech: bool = True
    language: str = "auto"     # "auto": each browser's own (Accept-Language, the page's switch); else en, fr or de


def default_state_dir(environ: Mapping[str, str] | None = None) -> Path:
    """``$STATE_DIRECTORY`` (systemd's StateDirectory=), else ``$XDG_STATE_HOME/thoughtwave``,
    else ``~/.local/state/thoughtwave``. ``environ`` defaults to ``os.environ``."""
    env = os.environ if environ is None else environ
    # systemd joins several StateDirectory= entries with ':'; the unit declares one, take the first.
    state_directory = env.get("STATE_DIRECTORY", "").split(":")[0]
    if state_directory:
        return Path(state_directory)
    xdg = env.get("XDG_STATE_HOME", "")
    if xdg and os.path.isabs(xdg):  # the XDG spec says relative values are to be ignored
        return Path(xdg) / "thoughtwave"
    return _home(env) / ".local" / "state" / "thoughtwave"


@dataclass(frozen=True)
class Config:
    """Everything the companion is configured with; ``Config()`` is the all-defaults configuration."""

    camera: CameraConfig = field(default_factory=CameraConfig)
    server: ServerConfig = field(default_factory=ServerConfig)
    rules: RulesConfig = field(default_factory=RulesConfig)
    vision: VisionConfig = field(default_factory=VisionConfig)
    display: DisplayConfig = field(default_factory=DisplayConfig)
    state_dir: Path = field(default_factory=default_state_dir)

    @property
    def profile_path(self) -> Path:
        """Where the calibration profile is read and written: ``[vision] profile``, else profile.json in
        ``state_dir``. The one rule serve, calibrate, recognize, referee --frames and the calibration page use."""
        return self.vision.profile or self.state_dir / FILE_NAME

    def with_state_dir(self, state_dir: str | Path) -> Config:
        """This configuration with another state directory (``--state-dir``), ``~`` expanded, made absolute."""
        return replace(self, state_dir=Path(os.path.abspath(Path(state_dir).expanduser())))


def rules_of(config: Config) -> Rules:
    """The engine's ``Rules`` for the configured penalty, sides and first player (full inventories)."""
    return Rules(
        penalty=Penalty(config.rules.illegal_penalty),
        red_sides=config.rules.red_sides,
        first=Colour.parse(config.rules.first),
    )


# --- the keys -----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Key:
    """One configuration key: where it lives, what it means, and how its value is checked."""

    section: str          # "" for a top-level key
    name: str
    meaning: str
    check: Callable[[Any], Any]   # TOML value -> the Config value; raises configvalues.Invalid

    @property
    def dotted(self) -> str:
        """``server.port`` (or ``state_dir`` for a top-level key)."""
        return f"{self.section}.{self.name}" if self.section else self.name


def _source(value: Any) -> str:
    text = check.string(value).strip()
    try:
        CameraSpec.parse(text)
    except ValueError as err:
        raise check.Invalid(str(err)) from None
    return text


def _sides(value: Any) -> Sides:
    try:
        return Sides.parse(check.string(value))
    except NotationError:
        raise check.Invalid(f"must be one of {', '.join(ALL_SIDES)}, got {value!r}") from None


KEYS: tuple[Key, ...] = (
    Key("camera", "source", "where frames come from: demo (a simulated game), pi (the Pi camera), "
        "usb:N (/dev/videoN), file:PATH (a video), dir:PATH (a folder of images)", _source),
    Key("camera", "resolution", "capture size in pixels, [width, height]", check.resolution),
    Key("camera", "fps", "frames per second asked of the camera (more than 0, at most 120)",
        lambda v: check.number(v, 0, 120, low_open=True)),
    Key("server", "host", "address the display listens on; 0.0.0.0 lets other machines on the network "
        "watch", check.host),
    Key("server", "port", "TCP port of the display (1-65535)", lambda v: check.integer(v, 1, 65535)),
    Key("server", "pin", "6-12 digits, in quotes, that unlock changes (new game, undo, calibration); "
        "unset: serve makes a new one at every start and prints it to its log", check.pin),
    Key("server", "threads", "web server worker threads (2-32)", lambda v: check.integer(v, 2, 32)),
    Key("server", "connection_limit", "most connections open at once (50-1000): a Pi takes 200 easily; "
        "watchers' live streams are capped far below it", lambda v: check.integer(v, 50, 1000)),
    Key("server", "channel_timeout", "seconds before an idle connection is closed (5-600)",
        lambda v: check.integer(v, 5, 600)),
    Key("server", "streams_per_client", "live streams (updates, camera preview) one address may hold (1-32)",
        lambda v: check.integer(v, 1, 32)),
    Key("rules", "illegal_penalty", "what an illegal placement costs: skip-turn, forfeit or retry",
        lambda v: check.choice(v, tuple(p.value for p in Penalty), str.lower)),
    Key("rules", "red_sides", "the sides Red joins: " + " or ".join(f"{s} ({s.names})" for s in ALL_SIDES), _sides),
    Key("rules", "first", "who moves first: red or black",
        lambda v: check.choice(v, tuple(c.value for c in Colour), str.lower)),
    Key("vision", "stable_seconds", "how long the board must hold still before a change counts (0.05-10)",
        lambda v: check.number(v, 0.05, 10)),
    Key("vision", "hand_warning_seconds", "how long a hand or shadow may cover the board before the "
        "display asks to clear it (1-600)", lambda v: check.number(v, 1, 600)),
    Key("vision", "profile", "calibration profile; a relative path is inside state_dir "
        "(unset: the profile the calibration page writes there)", check.path),
    Key("display", "speech", "announce verdicts and the winner aloud in the browser", check.boolean),
    Key("display", "language", "the display's language: auto (each browser's own, with a switch on the page), "
        "or en, fr or de for every browser", lambda v: check.choice(v, ("auto", *LANGUAGES), str.lower)),
    Key("", "state_dir", "where games (SQLite) and the calibration profile live; a relative path is "
        "relative to the config file (unset: $STATE_DIRECTORY, else $XDG_STATE_HOME/thoughtwave, "
        "else ~/.local/state/thoughtwave)", check.path),
)

_SECTIONS: dict[str, type] = {
    "camera": CameraConfig, "server": ServerConfig, "rules": RulesConfig,
    "vision": VisionConfig, "display": DisplayConfig,
}


def _default_of(key: Key) -> Any:
    if not key.section:
        return None
    return {f.name: f.default for f in fields(_SECTIONS[key.section])}[key.name]


def describe_keys() -> list[tuple[str, str, str]]:
    """Every key as ``(dotted key, default as TOML, meaning)``, in file order: the README's table."""
    return [(key.dotted, check.toml_value(_default_of(key)), key.meaning) for key in KEYS]


# --- loading ------------------------------------------------------------------------------------

def _home(env: Mapping[str, str]) -> Path:
    home = env.get("HOME", "")
    return Path(home) if os.path.isabs(home) else Path.home()


def _expand(path: Path, env: Mapping[str, str]) -> Path:
    parts = path.parts
    if parts and parts[0] == "~":
        return _home(env).joinpath(*parts[1:])
    return path


def _suggest(name: str, known: list[str], section: str | None = None) -> str:
    """A hint for an unknown name: the key it is a typo of, or the section it belongs in."""
    close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if close:
        shown = f"[{close[0]}]" if close[0] in _SECTIONS and section is None else repr(close[0])
        return f" (did you mean {shown}?)"
    homes = [key.section for key in KEYS if key.name == name and key.section != section]
    if homes:
        where = f"in [{homes[0]}]" if homes[0] else "at the top, before any [section]"
        return f" ({name} belongs {where})"
    return ""


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a config file") from None
    except OSError as err:
        raise ConfigError(f"{path}: cannot read: {err.strerror or err}") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as err:
        line = raw[: err.start].count(b"\n") + 1
        raise ConfigError(f"{path}: not UTF-8 text (line {line})") from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        # tomllib's message already ends in "(at line L, column C)".
        raise ConfigError(f"{path}: invalid TOML: {err}") from None


def parse_document(document: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """The checked values of a TOML document, ``{section: {name: value}}`` (top-level keys under ``""``);
    ConfigError naming ``where`` and the key for an unknown name or a bad value."""
    by_section: dict[str, dict[str, Key]] = {}
    for key in KEYS:
        by_section.setdefault(key.section, {})[key.name] = key
    top_level = by_section[""]
    checked: dict[str, dict[str, Any]] = {}
    for name, value in document.items():
        if name in top_level:
            key, values, section = top_level[name], {name: value}, ""
        elif name in _SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{where}: [{name}] must be a section (a [{name}] header), "
                                  f"got {check.describe(value)}")
            key, values, section = None, value, name
        else:
            known = list(_SECTIONS) + list(top_level)
            shown = f"section [{name}]" if isinstance(value, dict) else f"key {name!r}"
            raise ConfigError(f"{where}: unknown {shown}{_suggest(name, known, None)}; "
                              f"known: {', '.join(f'[{s}]' for s in _SECTIONS)}, {', '.join(top_level)}")
        prefix = f"[{section}] " if section else ""
        keys = by_section[section]
        for item, item_value in values.items():
            key = keys.get(item)
            if key is None:
                raise ConfigError(f"{where}: {prefix}unknown key {item!r}{_suggest(item, list(keys), section)}; "
                                  f"known: {', '.join(keys)}")
            try:
                checked.setdefault(section, {})[item] = key.check(item_value)
            except check.Invalid as err:
                raise ConfigError(f"{where}: {prefix}{item}: {err}") from None
    return checked


def load_config(path: Path | None = None, *, environ: Mapping[str, str] | None = None,
                default: Path | None = None) -> Config:
    """The configuration in ``path`` over the defaults. ``None``: the file ``default`` (unless given,
    ``DEFAULT_CONFIG_PATH``) if it exists, else all defaults. A missing explicit file, malformed TOML, an
    unknown key or a bad value raise ``ConfigError`` naming the file and key. ``environ`` (default
    ``os.environ``) is the only environment consulted: for ``state_dir`` and ``~``."""
    env = os.environ if environ is None else environ
    if path is None:
        candidate = DEFAULT_CONFIG_PATH if default is None else default   # read at call time: tests move it
        path = candidate if candidate.is_file() else None
    document: dict[str, Any] = {}
    if path is not None:
        path = _expand(Path(path), env)
        document = _read_toml(path)
    checked = parse_document(document, str(path))

    sections = {name: replace(cls(), **checked.get(name, {})) for name, cls in _SECTIONS.items()}
    state_dir = checked.get("", {}).get("state_dir")
    if state_dir is None:
        state_dir = default_state_dir(env)
    else:
        state_dir = _expand(state_dir, env)
        if not state_dir.is_absolute() and path is not None:
            state_dir = path.parent / state_dir
    state_dir = Path(os.path.abspath(state_dir))
    profile = sections["vision"].profile
    if profile is not None:
        profile = _expand(profile, env)
        profile = Path(os.path.abspath(state_dir / profile))   # an absolute profile wins the join
        sections["vision"] = replace(sections["vision"], profile=profile)
    return Config(state_dir=state_dir, **sections)
