"""Reading image files safely: the picture's size is taken from the file's own header and checked against a
pixel limit before anything is decoded, so a small file that claims a huge picture (a "decompression bomb":
a 1 MB PNG of 20000x20000 pixels decodes to 1.2 GB) costs nothing but the read of the file.

Every command and source that reads a picture from a file goes through ``read_image``; its errors are one
line naming the file (``ImageError``). The formats are those a frames directory may hold: PNG, JPEG, BMP,
TIFF, WebP and PNM (PPM/PGM/PBM); anything else is refused before OpenCV sees it.

>>> image_size(b"\\x89PNG\\r\\n\\x1a\\n\\x00\\x00\\x00\\rIHDR\\x00\\x00\\x4e\\x20\\x00\\x00\\x4e\\x20\\x08\\x02")
(20000, 20000)
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path

#: The largest picture decoded, in pixels: 40 MP is three times a 12 MP camera's (a Pi HQ camera), and its
#: decoded BGR array (120 MB) still fits a 1 GB Pi beside the companion.
MAX_PIXELS = 40_000_000
#: The largest image file read at all (a 12 MP JPEG is ~10 MB, a 12 MP PNG of a photo ~25 MB).
MAX_FILE_BYTES = 64 * 2**20

# OpenCV's own limit (read on its first decode) as a second line of defence: the same number, so a path
# that reaches cv2 without this module still cannot decode a bomb.
os.environ.setdefault("OPENCV_IO_MAX_IMAGE_PIXELS", str(MAX_PIXELS))

import cv2  # noqa: E402  (after the environment variable, which OpenCV reads once)
import numpy as np  # noqa: E402

FORMATS = "PNG, JPEG, BMP, TIFF, WebP or PNM"


class ImageError(ValueError):
    """A file that is not a picture this program will decode; the message is one line naming the file
    (``cannot read PATH: REASON``), ``reason`` the part after the name."""

    def __init__(self, path: str | Path, reason: str) -> None:
        super().__init__(f"cannot read {path}: {reason}")
        self.path = path
        self.reason = reason


def image_size(data: bytes) -> tuple[int, int] | None:
    """(width, height) as the header at the start of ``data`` states it, or None when ``data`` is not one
    of the known formats or its header is cut short. Nothing is decoded."""
    try:
        if data.startswith(b"\x89PNG\r\n\x1a\n"):
            return _png(data)
        if data.startswith(b"\xff\xd8"):
            return _jpeg(data)
        if data.startswith(b"BM"):
            return _bmp(data)
        if data[:4] in (b"II*\x00", b"MM\x00*"):
            return _tiff(data)
        if data.startswith(b"RIFF") and data[8:12] == b"WEBP":
            return _webp(data)
        if data[:1] == b"P" and data[1:2] in b"123456" and len(data) > 2:
            return _pnm(data)
    except (struct.error, IndexError, ValueError):
        return None
    return None


def check_size(name: str | Path, data: bytes, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """The picture's (width, height) from its header; an ImageError when the header cannot be read or the
    picture is larger than ``max_pixels``."""
    size = image_size(data)
    if size is None:
        raise ImageError(name, f"not a {FORMATS} image (or its header is damaged)")
    width, height = size
    if width * height > max_pixels:
        raise ImageError(name, f"{width}x{height} pixels is more than the limit of "
                         f"{max_pixels / 1e6:g} megapixels")
    if width <= 0 or height <= 0:
        raise ImageError(name, f"its header gives an empty picture ({width}x{height})")
    return size


def read_image(path: str | Path, max_pixels: int = MAX_PIXELS, max_bytes: int = MAX_FILE_BYTES) -> np.ndarray:
    """The picture in ``path`` as a BGR array, decoded only after its header's size passes ``max_pixels``
    (and the file's size ``max_bytes``); an ImageError (one line) when it cannot be read, is too large or is
    not a picture. Memory used: the file's bytes plus the decoded picture, both bounded."""
    try:
        with open(path, "rb") as file:
            info = os.fstat(file.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise ImageError(path, "not a file")
            if info.st_size > max_bytes:
                raise ImageError(path, f"larger than {max_bytes // 2**20} MB")
            data = file.read(max_bytes + 1)
    except IsADirectoryError:
        raise ImageError(path, "not a file") from None
    except OSError as err:
        raise ImageError(path, str(err.strerror or err)) from None
    if len(data) > max_bytes:   # grew while being read
        raise ImageError(path, f"larger than {max_bytes // 2**20} MB")
    check_size(path, data, max_pixels)
    try:
        image = cv2.imdecode(np.frombuffer(data, dtype=np.uint8), cv2.IMREAD_COLOR)
    except cv2.error:
        image = None
    if image is None or image.size == 0:
        raise ImageError(path, "the picture is damaged or in a form OpenCV cannot decode")
    return image


def _png(data: bytes) -> tuple[int, int] | None:
    if data[12:16] != b"IHDR":
        return None
    width, height = struct.unpack(">II", data[16:24])
    return width, height


#: Start-of-frame markers (every JPEG coding but DHT C4, JPG C8 and DAC CC, which share the range).
_SOF = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}


def _jpeg(data: bytes) -> tuple[int, int] | None:
    i = 2
    while i + 4 <= len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:              # fill byte
            i += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:   # markers without a length
            i += 2
            continue
        if marker in (0xD9, 0xDA):      # end of image, or the scan before any frame header
            return None
        (length,) = struct.unpack(">H", data[i + 2:i + 4])
        if marker in _SOF:
            height, width = struct.unpack(">HH", data[i + 5:i + 9])
            return width, height
        i += 2 + length
    return None


def _bmp(data: bytes) -> tuple[int, int] | None:
    (header,) = struct.unpack("<I", data[14:18])
    if header == 12:                    # OS/2 BITMAPCOREHEADER
        width, height = struct.unpack("<HH", data[18:22])
    else:
        width, height = struct.unpack("<ii", data[18:26])
    return abs(width), abs(height)


def _tiff(data: bytes) -> tuple[int, int] | None:
    order = "<" if data[:2] == b"II" else ">"
    (ifd,) = struct.unpack(order + "I", data[4:8])
    (count,) = struct.unpack(order + "H", data[ifd:ifd + 2])
    found: dict[int, int] = {}
    for n in range(count):
        at = ifd + 2 + 12 * n
        tag, kind = struct.unpack(order + "HH", data[at:at + 4])
        if tag in (256, 257):           # ImageWidth, ImageLength: SHORT or LONG, stored in the entry
            fmt = order + ("H" if kind == 3 else "I")
            found[tag] = struct.unpack(fmt, data[at + 8:at + 8 + struct.calcsize(fmt)])[0]
    if 256 not in found or 257 not in found:
        return None
    return found[256], found[257]


def _webp(data: bytes) -> tuple[int, int] | None:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        width, height = struct.unpack("<HH", data[26:30])
        return width & 0x3FFF, height & 0x3FFF
    if chunk == b"VP8L" and data[20] == 0x2F:
        (bits,) = struct.unpack("<I", data[21:25])
        return (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1
    if chunk == b"VP8X":
        width = int.from_bytes(data[24:27], "little") + 1
        height = int.from_bytes(data[27:30], "little") + 1
        return width, height
    return None


def _pnm(data: bytes) -> tuple[int, int] | None:
    """Width and height: the first two numbers after the magic, past whitespace and ``#`` comments."""
    numbers: list[int] = []
    head = data[2:1024]
    i = 0
    while len(numbers) < 2 and i < len(head):
        c = head[i:i + 1]
        if c == b"#":
            end = head.find(b"\n", i)
            i = len(head) if end < 0 else end + 1
        elif c.isspace():
            i += 1
        elif c.isdigit():
            j = i
            while j < len(head) and head[j:j + 1].isdigit():
                j += 1
            if j == len(head):          # the number may go on past what we read
                return None
            numbers.append(int(head[i:j]))
            i = j
        else:
            return None
    return (numbers[0], numbers[1]) if len(numbers) == 2 else None
