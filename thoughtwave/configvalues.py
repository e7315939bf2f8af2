"""How each configuration value is checked: TOML value in, the value ``Config`` holds out, or ``Invalid``
with a message worded to follow "[section] key: " (``thoughtwave.config`` adds the file and the key).

>>> integer(8080, 1, 65535)
8080
>>> try:
...     integer(True, 1, 65535)
... except Invalid as err:
...     print(err)
must be a whole number 1-65535, got boolean true
"""

from __future__ import annotations

import ipaddress
import math
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any


class Invalid(Exception):
    """A value's problem, worded to follow "[section] key: "."""


def describe(value: Any) -> str:
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


def string(value: Any) -> str:
    if not isinstance(value, str):
        raise Invalid(f"must be a string in quotes, got {describe(value)}")
    return value


def integer(value: Any, low: int, high: int) -> int:
    # bool is an int in Python; `port = true` is a mistake, not port 1.
    if isinstance(value, bool) or not isinstance(value, int):
        raise Invalid(f"must be a whole number {low}-{high}, got {describe(value)}")
    if not low <= value <= high:
        raise Invalid(f"must be {low}-{high}, got {value}")
    return value


def number(value: Any, low: float, high: float, *, low_open: bool = False) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise Invalid(f"must be a number, got {describe(value)}")
    value = float(value)
    too_low = value <= low if low_open else value < low
    if math.isnan(value) or too_low or value > high:
        wanted = f"more than {low:g} and at most {high:g}" if low_open else f"{low:g}-{high:g}"
        raise Invalid(f"must be {wanted}, got {value:g}")
    return value


def choice(value: Any, choices: tuple[str, ...], normalise: Callable[[str], str]) -> str:
    text = normalise(string(value).strip())
    if text not in choices:
        raise Invalid(f"must be one of {', '.join(choices)}, got {value!r}")
    return text


def resolution(value: Any) -> tuple[int, int]:
    # An array [1280, 960] is the TOML way; "1280x960" is what people type, so take that too.
    if isinstance(value, str) and re.fullmatch(r"\s*\d+\s*[xX×]\s*\d+\s*", value):
        value = [int(n) for n in re.split(r"[xX×]", value)]
    ok = (isinstance(value, list) and len(value) == 2
          and all(isinstance(n, int) and not isinstance(n, bool) and 16 <= n <= 8192 for n in value))
    if not ok:
        raise Invalid(f"must be two whole numbers 16-8192, width and height, like [1280, 960], "
                       f"got {describe(value)}")
    return (value[0], value[1])


_HOSTNAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?")


def host(value: Any) -> str:
    text = string(value).strip()
    try:
        ipaddress.ip_address(text)
        return text
    except ValueError:
        pass
    if len(text) <= 253 and _HOSTNAME.fullmatch(text):
        return text
    raise Invalid(f"must be an IP address (0.0.0.0 for every interface) or a host name, got {value!r}")


#: The fewest and most digits a PIN may have: six give a million PINs, against five guesses a minute.
PIN_DIGITS = (6, 12)


def pin(value: Any) -> str:
    # An unquoted PIN is a TOML integer and would lose its leading zeros: insist on quotes.
    if isinstance(value, int) and not isinstance(value, bool):
        raise Invalid('must be in quotes, like pin = "123456", so leading zeros survive')
    text = string(value).strip()
    low, high = PIN_DIGITS
    if not re.fullmatch(rf"\d{{{low},{high}}}", text):
        # The PIN itself is never echoed: the message ends up in the journal.
        raise Invalid(f"must be {low}-{high} digits in quotes (or leave the key out), "
                       f"got {len(text)} characters" + ("" if text.isdigit() else " that are not all digits"))
    return text


def boolean(value: Any) -> bool:
    if not isinstance(value, bool):
        raise Invalid(f"must be true or false, got {describe(value)}")
    return value


def path(value: Any) -> Path:
    text = string(value).strip()
    if not text or "\0" in text:
        raise Invalid("must be a path, got an empty string" if not text else "must not contain NUL")
    return Path(text)


def toml_value(value: Any) -> str:
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, float):
        return f"{value:g}" if value != int(value) else f"{value:.1f}"
    return str(value)
