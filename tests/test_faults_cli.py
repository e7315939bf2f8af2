"""Faults and abuse at the command line: image bombs, endless lines, bad addresses, files that cannot be
read. Each answer is one line on standard error and an exit code, never a traceback, in bounded memory
(peak memory measured with getrusage around a child process). The bombs are made here, at test time."""

from __future__ import annotations

import errno
import io
import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import cv2
import numpy as np
import pytest

from thoughtwave.cli import main
from thoughtwave.cli.main import os_error_text
from thoughtwave.cli.rulesargs import MAX_LINE_BYTES, MAX_MOVES
from thoughtwave.vision.imageio import MAX_PIXELS, ImageError, image_size, read_image
from thoughtwave.vision.sources import ImageDirSource

CLI = [sys.executable, "-m", "thoughtwave.cli"]

#: Runs the command in argv[1:] as its child and prints the child's exit code and peak memory (KB), with
#: the address space capped so a command that reads without bound fails fast instead of filling the machine.
MEASURE = """
import resource, subprocess, sys
cap = int(sys.argv[1])
def limit():
    if cap:
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
done = subprocess.run(sys.argv[2:], preexec_fn=limit, capture_output=True, text=True)
peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
sys.stderr.write(done.stderr)
print(done.returncode, peak)
"""


def measured(*argv: str, cap_bytes: int = 0) -> tuple[int, int, str]:
    """(exit code, peak resident memory in MB, standard error) of ``thoughtwave argv``."""
    done = subprocess.run([sys.executable, "-c", MEASURE, str(cap_bytes), *CLI, *argv], capture_output=True,
                          text=True, timeout=300)
    code, peak_kb = done.stdout.split()
    return int(code), int(peak_kb) // 1024, done.stderr


def one_line(err: str) -> str:
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    return err


# ---- images ----------------------------------------------------------------------------------------------

def png_bomb(path: Path, width: int, height: int, rows: int = 64) -> Path:
    """A PNG whose header claims ``width`` x ``height`` pixels, with the first ``rows`` rows of data (black,
    so they compress to almost nothing): kilobytes on disk, gigabytes once decoded."""
    compressor = zlib.compressobj(9)
    row = bytes(1 + 3 * width)            # filter byte 0, then black RGB
    data = b"".join(compressor.compress(row) for _ in range(rows)) + compressor.flush()

    def chunk(kind: bytes, body: bytes) -> bytes:
        return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))

    path.write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
                     + chunk(b"IDAT", data) + chunk(b"IEND", b""))
    return path


@pytest.mark.parametrize("side", [20_000, 60_000])
def test_recognize_refuses_an_image_bomb_from_its_header_in_bounded_memory(tmp_path, side):
    bomb = png_bomb(tmp_path / "bomb.png", side, side)
    code, peak_mb, err = measured("recognize", str(bomb))
    assert code == 2 and f"{side}x{side} pixels is more than the limit" in one_line(err)
    assert peak_mb < 300, f"peak {peak_mb} MB"     # 20000x20000 decoded is 1.2 GB (2.4 GB peak before)


@pytest.mark.parametrize("argv", [
    ["calibrate", "--image", "{bomb}", "--out", "{tmp}/p.json"],
    ["calibrate", "--image", "{good}", "--lens-images", "{bomb}", "{bomb}", "--out", "{tmp}/p.json"],
    ["recognize", "{bomb}"],
])
def test_every_command_that_reads_an_image_file_checks_its_size_first(tmp_path, capsys, argv):
    bomb = png_bomb(tmp_path / "bomb.png", 9000, 9000)       # 81 MP
    good = tmp_path / "good.png"
    cv2.imwrite(str(good), np.full((48, 64, 3), 200, np.uint8))
    args = [a.format(bomb=bomb, good=good, tmp=tmp_path) for a in argv]
    assert main(args) == 2
    err = one_line(capsys.readouterr().err)
    assert err == f"error: cannot read {bomb}: 9000x9000 pixels is more than the limit of 40 megapixels\n"
    assert not (tmp_path / "p.json").exists()


def test_a_frames_directory_skips_a_bomb_with_a_warning_and_reads_the_rest(tmp_path):
    png_bomb(tmp_path / "a.png", 20_000, 20_000)
    cv2.imwrite(str(tmp_path / "b.png"), np.full((48, 64, 3), 200, np.uint8))
    source = ImageDirSource(tmp_path)
    frame = source.read()
    assert frame is not None and frame.index == 1 and frame.image.shape == (48, 64, 3)
    [(index, warning)] = source.take_warnings()
    assert index == 0 and "20000x20000 pixels is more than the limit" in warning


@pytest.mark.parametrize("suffix", [".png", ".jpg", ".bmp", ".tiff", ".webp", ".ppm", ".pgm"])
def test_the_header_gives_the_size_of_each_format_a_frames_directory_may_hold(tmp_path, suffix):
    picture = np.random.default_rng(1).integers(0, 255, (37, 53, 3), np.uint8)
    if suffix == ".pgm":
        picture = picture[:, :, 0]
    ok, encoded = cv2.imencode(suffix, picture)
    assert ok
    assert image_size(encoded.tobytes()) == (53, 37)
    path = tmp_path / f"x{suffix}"
    path.write_bytes(encoded.tobytes())
    assert read_image(path).shape == (37, 53, 3)
    with pytest.raises(ImageError, match="53x37 pixels is more than the limit of 0.001 megapixels"):
        read_image(path, max_pixels=1000)


def test_a_jpeg_claiming_a_huge_size_is_refused_before_decoding(tmp_path):
    ok, encoded = cv2.imencode(".jpg", np.zeros((8, 8, 3), np.uint8))
    data = bytearray(encoded.tobytes())
    sof = data.index(b"\xff\xc0")
    data[sof + 5:sof + 9] = struct.pack(">HH", 65000, 65000)
    path = tmp_path / "big.jpg"
    path.write_bytes(bytes(data))
    with pytest.raises(ImageError, match="65000x65000 pixels"):
        read_image(path)


@pytest.mark.parametrize("content, words", [
    (b"", "not a PNG, JPEG"),
    (b"GIF89a" + bytes(100), "not a PNG, JPEG"),
    (b"\x89PNG\r\n\x1a\n\x00\x00", "not a PNG, JPEG"),          # cut short in its header
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x10\x00\x00\x00\x10\x08\x02\x00\x00\x00", "damaged"),
])
def test_a_file_that_is_not_a_whole_picture_is_one_line(tmp_path, capsys, content, words):
    path = tmp_path / "x.png"
    path.write_bytes(content)
    assert main(["recognize", str(path)]) == 2
    assert words in one_line(capsys.readouterr().err)


def test_opencv_own_limit_is_the_same_number():
    assert os.environ["OPENCV_IO_MAX_IMAGE_PIXELS"] == str(MAX_PIXELS)


# ---- referee --moves: line by line, bounded ------------------------------------------------------------

@pytest.mark.parametrize("source", ["long-line", "/dev/zero"])
def test_referee_moves_refuses_an_endless_line_in_constant_memory(tmp_path, source):
    if source == "long-line":
        path = tmp_path / "line.txt"
        with path.open("wb") as file:
            for _ in range(50):
                file.write(b"ew@E5 " * 174_763)      # 50 MB, no newline
        source = str(path)
    code, peak_mb, err = measured("referee", "--moves", source, cap_bytes=1 << 30)
    assert code == 2, err
    assert one_line(err) == f"error: cannot read {source}: line 1 is longer than {MAX_LINE_BYTES} bytes\n"
    assert peak_mb < 100, f"peak {peak_mb} MB"      # 0.3-5 GB, or MemoryError, before


def test_the_long_line_is_named_by_its_number_and_the_lines_before_it_are_refereed(tmp_path, capsys):
    path = tmp_path / "game.txt"
    path.write_text("# Penalty: retry\new@E5\n\n" + "x" * (MAX_LINE_BYTES + 1) + "\n", encoding="utf-8")
    assert main(["referee", "--moves", str(path)]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out.splitlines()[0])["move"] == "ew@E5"
    assert one_line(err) == f"error: cannot read {path}: line 4 is longer than {MAX_LINE_BYTES} bytes\n"


def test_a_line_of_exactly_the_limit_is_read(tmp_path, capsys):
    path = tmp_path / "game.txt"
    path.write_text("ew@E5" + " " * (MAX_LINE_BYTES - 5) + "\n", encoding="utf-8")
    assert main(["referee", "--moves", str(path)]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[0])["verdict"] == "legal"


def test_standard_input_is_read_line_by_line_too(monkeypatch, capsys):
    stdin = io.TextIOWrapper(io.BytesIO(b"ew@E5\n" + b"y" * 10_000_000), encoding="utf-8")
    monkeypatch.setattr(sys, "stdin", stdin)
    assert main(["referee", "--moves", "-"]) == 2
    assert one_line(capsys.readouterr().err) == (
        f"error: cannot read standard input: line 2 is longer than {MAX_LINE_BYTES} bytes\n")


def test_millions_of_short_lines_stop_at_the_move_limit_in_bounded_memory(tmp_path):
    path = tmp_path / "many.txt"
    path.write_bytes(b"x\n" * 5_000_000)
    code, peak_mb, err = measured("referee", "--moves", str(path), cap_bytes=1 << 30)
    assert code == 2 and f"line {MAX_MOVES + 1} is move {MAX_MOVES + 1}" in one_line(err)
    assert peak_mb < 100, f"peak {peak_mb} MB"


def test_a_file_that_is_not_utf8_names_its_line(tmp_path, capsys):
    path = tmp_path / "game.txt"
    path.write_bytes(b"ew@E5\n\xff\xfe\n")
    assert main(["legal", "--moves", str(path), "--at", "E6"]) == 2
    assert one_line(capsys.readouterr().err) == f"error: cannot read {path}: line 2 is not UTF-8 text\n"


def test_serve_moves_reads_through_the_same_limit(tmp_path, capsys):
    path = tmp_path / "script.txt"
    path.write_bytes(b"red ew@E5\n" + b"z" * 100_000)
    assert main(["serve", "--state-dir", str(tmp_path / "state"), "--moves", str(path), "--port", "0"]) == 2
    assert "line 2 is longer than" in one_line(capsys.readouterr().err)


# ---- serve's address and port ------------------------------------------------------------------------

@pytest.mark.parametrize("argv, words", [
    (["--host", "no.such.host.invalid"], "--host no.such.host.invalid: not an address"),
    (["--host", "999.1.1.1"], "--host 999.1.1.1: not an address"),
    (["--host", "a" * 300], "not an address"),
    (["--port", "-1"], "--port must be 0-65535"),
    (["--port", "70000"], "--port must be 0-65535"),
    (["--port", "x"], "invalid int value: 'x'"),
])
def test_serve_with_a_bad_address_or_port_is_one_line_and_exit_2(tmp_path, argv, words):
    done = subprocess.run([*CLI, "serve", "--state-dir", str(tmp_path), "--moves", "/dev/null", *argv],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and words in one_line(done.stderr)


# ---- files that cannot be read, and any OSError left ---------------------------------------------------

@pytest.mark.parametrize("argv", [
    ["recognize", "{tmp}"],
    ["recognize", "{tmp}/missing.png"],
    ["recognize", "/dev/zero"],
    ["calibrate", "--image", "{tmp}", "--out", "{tmp}/p.json"],
    ["calibrate", "--image", "{tmp}/missing.jpg", "--out", "{tmp}/p.json"],
    ["referee", "--moves", "{tmp}"],
    ["referee", "--moves", "{tmp}/missing.txt"],
    ["legal", "--moves", "{tmp}", "--at", "E5"],
    ["hint", "--moves", "{tmp}/missing.txt"],
])
def test_a_file_that_cannot_be_read_is_one_line_and_exit_2(tmp_path, capsys, argv):
    assert main([a.format(tmp=tmp_path) for a in argv]) == 2
    assert one_line(capsys.readouterr().err).startswith("error: cannot read ")


def test_an_oserror_no_command_expected_is_one_line_naming_a_full_disk():
    full = OSError(errno.ENOSPC, "No space left on device", "/var/lib/thoughtwave/profile.json")
    assert os_error_text(full) == "the disk is full: free space on the disk holding /var/lib/thoughtwave/profile.json"
    assert os_error_text(PermissionError(errno.EACCES, "Permission denied", "/x")) == "cannot use /x: Permission denied"
