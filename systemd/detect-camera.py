"""Which camera the companion should use, and whether the camera stack imports: run by install.sh.

    python3 detect-camera.py [--sysfs DIR] [--preflight]
        line 1: the [camera] source to write: "pi", "usb:N" or "demo"; line 2: why, for a person
        (for demo: what was looked at, e.g. "picamera2 lists no camera; no USB camera").
        "pi" when picamera2 imports and lists a camera, else the first USB camera, else "demo".
        --preflight (run with the system's python3, before anything is installed): a Pi camera the
        kernel found (a unicam / rp1-cfe capture node) counts as "pi" even when picamera2 is not installed.
    python3 detect-camera.py --stack
        one line per module of the camera stack, "ok NAME VERSION", "absent NAME" or
        "broken NAME numpy-abi|other: MESSAGE"; exit 1 when any is broken.

Standalone on purpose (no import of the project): it runs with the system's python3 before the venv
exists, and with the venv's python after. picamera2 and OpenCV are imported only when asked for.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import sys
from pathlib import Path

# The Pi's CSI receivers: their capture nodes appear only when a camera module was found at boot.
# (The Pi's codec and ISP nodes, present with no camera at all, are not among them.)
CSI_RECEIVERS = ("unicam", "rp1-cfe")
STACK = ("numpy", "cv2", "simplejpeg", "picamera2")


def last_line(error: BaseException) -> str:
    """The part of an exception a person needs: its last non-empty line."""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return f"{type(error).__name__}: {lines[-1] if lines else ''}".strip()


def pi_cameras() -> tuple[list[str] | None, str]:
    """The models picamera2 lists, or None and why picamera2 could not be asked."""
    if importlib.util.find_spec("picamera2") is None:
        return None, "picamera2 is not installed"
    try:
        from picamera2 import Picamera2
        cameras = Picamera2.global_camera_info()
    except Exception as error:  # noqa: BLE001 - any failure means "not usable", and the reason is shown
        return None, f"picamera2 does not work here ({last_line(error)})"
    return [str(camera.get("Model", "camera")) for camera in cameras], ""


def video_nodes(sysfs: Path) -> list[tuple[int, Path]]:
    """The /dev/videoN nodes the kernel lists, by number."""
    base = sysfs / "class" / "video4linux"
    if not base.is_dir():
        return []
    nodes = []
    for entry in base.iterdir():
        if entry.name.startswith("video") and entry.name[5:].isdigit():
            nodes.append((int(entry.name[5:]), entry))
    return sorted(nodes)


def read(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def usb_cameras(sysfs: Path) -> list[tuple[int, str]]:
    """USB video capture devices as (N of /dev/videoN, name): one per camera, its first node (a UVC
    camera also has a metadata node, index 1, that gives no pictures)."""
    found = []
    for number, entry in video_nodes(sysfs):
        device = os.path.realpath(entry / "device")
        if "/usb" in device and read(entry / "index") in ("", "0"):
            found.append((number, read(entry / "name") or f"video{number}"))
    return found


def csi_receivers(sysfs: Path) -> list[str]:
    """Names of the Pi camera receiver nodes present (only there when a camera module was found)."""
    return [name for _, entry in video_nodes(sysfs) if (name := read(entry / "name")).startswith(CSI_RECEIVERS)]


def detect(sysfs: Path, preflight: bool = False) -> tuple[str, str]:
    """The [camera] source and the reason for it: pi, else the first USB camera, else demo."""
    models, why_not = pi_cameras()
    if models:
        return "pi", f"picamera2 lists {len(models)} camera(s): {', '.join(models)}"
    csi = csi_receivers(sysfs)
    if preflight and csi and models is None:
        return "pi", f"a Pi camera is connected ({csi[0]}); {why_not}"
    usb = usb_cameras(sysfs)
    if usb:
        number, name = usb[0]
        return f"usb:{number}", f"/dev/video{number}: {name} (USB)"
    reasons = ["picamera2 lists no camera" if models is not None else why_not]
    if csi:
        reasons.append(f"the kernel found a Pi camera ({csi[0]})")
    reasons.append("no USB camera")
    return "demo", "; ".join(reasons)


def stack() -> int:
    """Import each module of the camera stack; say which works, which is missing, which is broken."""
    broken = 0
    for name in STACK:
        if importlib.util.find_spec(name) is None:
            print(f"absent {name}")
            continue
        try:
            module = importlib.import_module(name)
        except Exception as error:  # noqa: BLE001 - reported, and the installer decides
            text = last_line(error)
            kind = "numpy-abi" if "numpy" in str(error).lower() else "other"
            print(f"broken {name} {kind}: {text}")
            broken += 1
            continue
        print(f"ok {name} {getattr(module, '__version__', '?')} {Path(module.__file__ or '?').parent}")
    return 1 if broken else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sysfs", type=Path, default=Path(os.environ.get("THOUGHTWAVE_SYSFS", "/sys")))
    parser.add_argument("--preflight", action="store_true")
    parser.add_argument("--stack", action="store_true")
    args = parser.parse_args(argv)
    if args.stack:
        return stack()
    source, reason = detect(args.sysfs, preflight=args.preflight)
    print(source)
    print(reason)
    return 0


if __name__ == "__main__":
    sys.exit(main())
