"""The companion's configuration: one TOML file, every key optional, every mistake named.

>>> config = load_config(None, environ={"STATE_DIRECTORY": "/var/lib/thoughtwave"})
>>> config.server.port, config.rules.first, str(config.state_dir)
(8080, 'red', '/var/lib/thoughtwave')

Sections ``[camera] [server] [rules] [vision] [display]`` and a top-level ``state_dir``; the table
of keys is ``KEYS`` (``describe_keys()`` prints it). The environment is read here and nowhere else:
``default_state_dir`` turns systemd's ``$STATE_DIRECTORY`` (or the XDG directory) into a path, and
``load_config`` hands the app a finished ``Config``. Command-line flags override it in ``serve``.
"""

from __future__ import annotations

import difflib
import ipaddress
import math
import os
import re
import tomllib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from thoughtwave.engine.pieces import Colour
from thoughtwave.engine.referee import Penalty, Rules

DEFAULT_CONFIG_PATH = Path("/etc/thoughtwave/config.toml")


class ConfigError(ValueError):
    """A configuration mistake; the message names the file and key and fits on one line."""


@dataclass(frozen=True)
class CameraConfig:
    """Where frames come from: ``demo``, ``pi``, ``usb:N``, ``file:PATH`` (a video) or ``dir:PATH``."""

    source: str = "demo"
    resolution: tuple[int, int] = (1280, 960)
    fps: float = 10.0


@dataclass(frozen=True)
class ServerConfig:
    """The display's web server; ``pin`` (4-12 digits) unlocks changes (``None``: serve picks one per start)."""

    host: str = "127.0.0.1"
    port: int = 8080
    pin: str | None = None
    threads: int = 8


@dataclass(frozen=True)
class RulesConfig:
    """The rule options of DESIGN.md, as the CLI flags spell them."""

    illegal_penalty: str = "skip-turn"
    red_sides: str = "WE"
    first: str = "red"


@dataclass(frozen=True)
class VisionConfig:
    """How long the board must hold still, when to warn about a hand, and the calibration profile."""

    stable_seconds: float = 0.4
    hand_warning_seconds: float = 10.0
    profile: Path | None = None


@dataclass(frozen=True)
class DisplayConfig:
    """What the display does besides drawing the board."""

    speech: bool = True


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


def rules_of(config: Config) -> Rules:
    """The engine's ``Rules`` for the configured penalty, sides and first player (full inventories)."""
    return Rules(
        penalty=Penalty(config.rules.illegal_penalty),
        red_sides=config.rules.red_sides,
        first=Colour.parse(config.rules.first),
    )


# --- the keys -----------------------------------------------------------------------------------

class _Invalid(Exception):
    """A value's problem, worded to follow "[section] key: "."""


@dataclass(frozen=True)
class Key:
    """One configuration key: where it lives, what it means, and how its value is checked."""

    section: str          # "" for a top-level key
    name: str
    meaning: str
    check: Callable[[Any], Any]   # TOML value -> the Config value; raises _Invalid

    @property
    def dotted(self) -> str:
        """``server.port`` (or ``state_dir`` for a top-level key)."""
        return f"{self.section}.{self.name}" if self.section else self.name


def _describe(value: Any) -> str:
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, int | float):
        return f"number {value}"
    if isinstance(value, str):
        return f"string {value!r}"
    if isinstance(value, list):
        return f"array {value!r}"
    if isinstance(value, dict):
        return "a table"
    return f"{type(value).__name__} {value!r}"


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise _Invalid(f"must be a string in quotes, got {_describe(value)}")
    return value


def _integer(value: Any, low: int, high: int) -> int:
    # bool is an int in Python; `port = true` is a mistake, not port 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise _Invalid(f"must be a whole number {low}-{high}, got {_describe(value)}")
    if not low <= value <= high:
        raise _Invalid(f"must be {low}-{high}, got {value}")
    return value


def _number(value: Any, low: float, high: float, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Invalid(f"must be a number, got {_describe(value)}")
    value = float(value)
    too_low = value <= low if low_open else value < low
    if math.isnan(value) or too_low or value > high:
        wanted = f"more than {low:g} and at most {high:g}" if low_open else f"{low:g}-{high:g}"
        raise _Invalid(f"must be {wanted}, got {value:g}")
    return value


def _choice(value: Any, choices: tuple[str, ...], normalise: Callable[[str], str]) -> str:
    text = normalise(_string(value).strip())
    if text not in choices:
        raise _Invalid(f"must be one of {', '.join(choices)}, got {value!r}")
    return text


# The spec forms vision.sources.open_source accepts: pi and usb:N may carry an @WIDTHxHEIGHT suffix.
_CAMERA = re.compile(r"(pi|usb:\d{1,3})(@\d{1,5}x\d{1,5})?|demo", re.IGNORECASE)


def _source(value: Any) -> str:
    text = _string(value).strip()
    if _CAMERA.fullmatch(text):
        return text
    kind, colon, rest = text.partition(":")
    if colon and kind.lower() in ("file", "dir") and rest.strip():
        return text
    raise _Invalid(f"must be demo, pi, usb:N, file:PATH or dir:PATH, got {value!r}")


def _resolution(value: Any) -> tuple[int, int]:
    # An array [1280, 960] is the TOML way; "1280x960" is what people type, so take that too.
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*[xX×]\s*\d+\s*", value):
        value = [int(n) for n in re.split(r"[xX×]", value)]
    ok = (isinstance(value, list) and len(value) == 2
          and all(isinstance(n, int) and not isinstance(n, bool) and 16 <= n <= 8192 for n in value))
    if not ok:
        raise _Invalid(f"must be two whole numbers 16-8192, width and height, like [1280, 960], "
                       f"got {_describe(value)}")
    return (value[0], value[1])


_HOSTNAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


def _host(value: Any) -> str:
    text = _string(value).strip()
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    if len(text) <= 253 and _HOSTNAME.fullmatch(text):
        return text
    raise _Invalid(f"must be an IP address (0.0.0.0 for every interface) or a host name, got {value!r}")


def _pin(value: Any) -> str:
    # An unquoted PIN is a TOML integer and would lose its leading zeros: insist on quotes.
    if isinstance(value, int) and not isinstance(value, bool):
        raise _Invalid('must be in quotes, like pin = "123456", so leading zeros survive')
    text = _string(value).strip()
    if not re.fullmatch(r"\d{4,12}", text):
        # The PIN itself is never echoed: the message ends up in the journal.
        raise _Invalid("must be 4-12 digits in quotes (or leave the key out), "
                       f"got {len(text)} characters" + ("" if text.isdigit() else " that are not all digits"))
    return text


def _boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise _Invalid(f"must be true or false, got {_describe(value)}")
    return value


def _path(value: Any) -> Path:
    text = _string(value).strip()
    if not text or "\0" in text:
        raise _Invalid("must be a path, got an empty string" if not text else "must not contain NUL")
    return Path(text)


KEYS: tuple[Key, ...] = (
    Key("camera", "source", "where frames come from: demo (a simulated game), pi (the Pi camera), "
        "usb:N (/dev/videoN), file:PATH (a video), dir:PATH (a folder of images)", _source),
    Key("camera", "resolution", "capture size in pixels, [width, height]", _resolution),
    Key("camera", "fps", "frames per second asked of the camera (more than 0, at most 120)",
        lambda v: _number(v, 0, 120, low_open=True)),
    Key("server", "host", "address the display listens on; 0.0.0.0 lets other machines on the network "
        "watch", _host),
    Key("server", "port", "TCP port of the display (1-65535)", lambda v: _integer(v, 1, 65535)),
    Key("server", "pin", "4-12 digits, in quotes, that unlock changes (new game, undo, calibration); "
        "unset: serve makes a new one at every start and prints it to its log", _pin),
    Key("server", "threads", "web server worker threads (2-32)", lambda v: _integer(v, 2, 32)),
    Key("rules", "illegal_penalty", "what an illegal placement costs: skip-turn, forfeit or retry",
        lambda v: _choice(v, tuple(p.value for p in Penalty), str.lower)),
    Key("rules", "red_sides", "the sides Red joins: WE (west and east) or NS (north and south)",
        lambda v: _choice(v, ("WE", "NS"), str.upper)),
    Key("rules", "first", "who moves first: red or black", lambda v: _choice(v, ("red", "black"), str.lower)),
    Key("vision", "stable_seconds", "how long the board must hold still before a change counts (0.05-10)",
        lambda v: _number(v, 0.05, 10)),
    Key("vision", "hand_warning_seconds", "how long a hand or shadow may cover the board before the "
        "display asks to clear it (1-600)", lambda v: _number(v, 1, 600)),
    Key("vision", "profile", "calibration profile; a relative path is inside state_dir "
        "(unset: the profile the calibration page writes there)", _path),
    Key("display", "speech", "announce verdicts and the winner aloud in the browser", _boolean),
    Key("", "state_dir", "where games (SQLite) and the calibration profile live; a relative path is "
        "relative to the config file (unset: $STATE_DIRECTORY, else $XDG_STATE_HOME/thoughtwave, "
        "else ~/.local/state/thoughtwave)", _path),
)

_SECTIONS: dict[str, type] = {
    "camera": CameraConfig, "server": ServerConfig, "rules": RulesConfig,
    "vision": VisionConfig, "display": DisplayConfig,
}


def _default_of(key: Key) -> Any:
    if not key.section:
        return None
    return {f.name: f.default for f in fields(_SECTIONS[key.section])}[key.name]


def _toml_value(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) else f"{value:.1f}"
    return str(value)


def describe_keys() -> list[tuple[str, str, str]]:
    """Every key as ``(dotted key, default as TOML, meaning)``, in file order: the README's table."""
    return [(key.dotted, _toml_value(_default_of(key)), key.meaning) for key in KEYS]


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


def _parse(document: dict[str, Any], where: str) -> dict[str, dict[str, Any]]:
    """The checked values, ``{section: {name: value}}`` (top-level keys under ``""``)."""
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
                                  f"got {_describe(value)}")
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
            except _Invalid as err:
                raise ConfigError(f"{where}: {prefix}{item}: {err}") from None
    return checked


def load_config(path: Path | None = None, *, environ: Mapping[str, str] | None = None) -> Config:
    """The configuration in ``path`` over the defaults. ``None``: ``DEFAULT_CONFIG_PATH`` if it exists,
    else all defaults. A missing explicit file, malformed TOML, an unknown key or a bad value raise
    ``ConfigError`` naming the file and key. ``environ`` (default ``os.environ``) is the only
    environment consulted: for ``state_dir`` and ``~``."""
    env = os.environ if environ is None else environ
    if path is None:
        candidate = DEFAULT_CONFIG_PATH   # read at call time, so tests can point it elsewhere
        path = candidate if candidate.is_file() else None
    document: dict[str, Any] = {}
    if path is not None:
        path = _expand(Path(path), env)
        document = _read_toml(path)
    checked = _parse(document, str(path))

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
