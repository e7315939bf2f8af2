"""The Pi appliance: unit files that systemd accepts and that keep the sandbox and the camera; a kiosk
that comes back and hides what should not show; an installer whose pre-flight refuses (a non-Pi, a
32-bit userland, an old Python or release, a full disk) before changing anything, that writes the camera
it finds, repairs the numpy ABI break, and in a dry run prints its steps and touches nothing."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest
from installer import INSTALL, ROOT, SYSTEMD, commands, run_installer, run_staged, snapshot, staged_root

SERVICE = SYSTEMD / "thoughtwave.service"
KIOSK = SYSTEMD / "thoughtwave-kiosk.service"
DESKTOP = SYSTEMD / "thoughtwave-kiosk.desktop"
BROWSER = SYSTEMD / "kiosk-browser.sh"



def parse_unit(path: Path) -> dict[str, dict[str, list[str]]]:
    """A systemd unit (or .desktop) file as {section: {key: [values in order]}}; continuations joined."""
    sections: dict[str, dict[str, list[str]]] = {}
    current: dict[str, list[str]] | None = None
    pending = ""
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = pending + raw.strip() if pending else raw.strip()
        pending = ""
        if not line or line[0] in "#;":
            continue
        if line.endswith("\\"):
            pending = line[:-1] + " "
            continue
        if line.startswith("["):
            assert line.endswith("]"), f"{path.name}:{number}: broken section header"
            current = sections.setdefault(line[1:-1], {})
            continue
        assert current is not None, f"{path.name}:{number}: key before any section"
        key, equals, value = line.partition("=")
        assert equals and re.fullmatch(r"[A-Za-z][A-Za-z0-9-]*", key.strip()), f"{path.name}:{number}: {raw!r}"
        current.setdefault(key.strip(), []).append(value.strip())
    assert not pending, f"{path.name}: ends in a continuation"
    return sections


def one(section: dict[str, list[str]], key: str) -> str:
    values = section.get(key)
    assert values, f"{key}= missing"
    return values[-1]


# --- thoughtwave.service ----------------------------------------------------------------------

def test_the_service_runs_serve_as_an_unprivileged_user_with_the_camera_group():
    unit = parse_unit(SERVICE)
    service = unit["Service"]
    assert one(service, "ExecStart") == (
        "/opt/thoughtwave/venv/bin/thoughtwave serve --config /etc/thoughtwave/config.toml")
    assert one(service, "User") == "thoughtwave"
    assert "video" in one(service, "SupplementaryGroups").split()
    assert one(service, "StateDirectory") == "thoughtwave"
    assert one(service, "ConfigurationDirectory") == "thoughtwave"
    assert one(unit["Install"], "WantedBy") == "multi-user.target"


def test_the_service_comes_back_after_a_crash_but_not_after_a_config_mistake():
    unit = parse_unit(SERVICE)
    service = unit["Service"]
    assert one(service, "Restart") == "on-failure"
    assert re.fullmatch(r"\d+(\.\d+)?s?", one(service, "RestartSec"))
    assert "2" in one(service, "RestartPreventExitStatus").split()   # exit 2: bad config, say so and stop
    assert one(unit["Unit"], "StartLimitIntervalSec") == "0"           # never give up on a crash


@pytest.mark.parametrize(("key", "value"), [
    ("NoNewPrivileges", "yes"), ("ProtectSystem", "strict"), ("ProtectHome", "yes"), ("PrivateTmp", "yes"),
    ("ProtectKernelTunables", "yes"), ("ProtectKernelModules", "yes"), ("ProtectKernelLogs", "yes"),
    ("ProtectControlGroups", "yes"), ("ProtectClock", "yes"), ("ProtectHostname", "yes"),
    ("RestrictNamespaces", "yes"), ("RestrictRealtime", "yes"), ("LockPersonality", "yes"),
    ("CapabilityBoundingSet", ""), ("UMask", "0077"), ("SystemCallArchitectures", "native"),
])
def test_the_service_is_hardened(key, value):
    assert one(parse_unit(SERVICE)["Service"], key) == value


def test_system_calls_address_families_and_memory_are_limited():
    service = parse_unit(SERVICE)["Service"]
    assert "@system-service" in service["SystemCallFilter"]
    families = set(one(service, "RestrictAddressFamilies").split())
    assert {"AF_UNIX", "AF_INET", "AF_INET6"} <= families <= {"AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"}
    assert re.fullmatch(r"\d+[KMG]", one(service, "MemoryMax"))


def test_the_sandbox_leaves_the_camera_reachable():
    # ProtectClock= implies a device allow-list, and an allow-list closes every device not on it:
    # the camera's device classes must be listed, and nothing may hide /dev or the video group.
    service = parse_unit(SERVICE)["Service"]
    allowed = {entry.split()[0]: entry.split()[1] for entry in service["DeviceAllow"]}
    for device in ("char-video4linux", "char-media", "char-dma_heap"):
        assert allowed.get(device) == "rw", device
    assert service.get("PrivateDevices", ["no"])[-1] == "no"
    assert service.get("PrivateUsers", ["no"])[-1] == "no"          # would map the video group to nobody
    assert service.get("MemoryDenyWriteExecute", ["no"])[-1] == "no"  # left out on purpose: see the unit


def unit_copy_with_existing_binary(tmp_path: Path) -> Path:
    # systemd-analyze verify insists that ExecStart's binary exists; the real one is only on a Pi.
    copy = tmp_path / SERVICE.name
    copy.write_text(SERVICE.read_text(encoding="utf-8").replace(
        "ExecStart=/opt/thoughtwave/venv/bin/thoughtwave", "ExecStart=/bin/true"), encoding="utf-8")
    return copy


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_service_without_a_warning(tmp_path):
    result = subprocess.run(["systemd-analyze", "verify", str(unit_copy_with_existing_binary(tmp_path))],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""   # an unknown or misspelt directive is only a warning


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_rates_the_sandbox_ok(tmp_path):
    result = subprocess.run(["systemd-analyze", "security", "--offline=yes", "--no-pager",
                             str(unit_copy_with_existing_binary(tmp_path))],
                            capture_output=True, text=True, timeout=60)
    found = re.search(r"Overall exposure level for thoughtwave.service: (\d+\.\d+)", result.stdout)
    if found is None:
        pytest.skip(f"this systemd-analyze cannot rate unit files offline: {result.stderr.strip()[:200]}")
    assert float(found.group(1)) <= 2.5   # systemd's scale: 0 safe .. 10 exposed; "OK" is below 3


# --- the kiosk --------------------------------------------------------------------------------

def test_the_kiosk_waits_for_the_server_and_opens_it_full_screen_again_and_again():
    unit = parse_unit(KIOSK)
    service = unit["Service"]
    assert one(service, "Environment") == "THOUGHTWAVE_URL=http://127.0.0.1:8080/"
    assert one(service, "EnvironmentFile") == "-/etc/thoughtwave/kiosk.env"   # what install.sh writes
    assert "curl" in one(service, "ExecStartPre") and "until" in one(service, "ExecStartPre")
    assert "$${THOUGHTWAVE_URL}" in one(service, "ExecStartPre")   # $$: the shell, not systemd, reads it
    assert one(service, "ExecStart") == "/opt/thoughtwave/kiosk-browser"   # what install.sh writes there
    assert one(service, "Restart") == "always"     # Chromium comes back whenever it dies...
    assert one(unit["Unit"], "StartLimitIntervalSec") == "0"   # ...however often
    assert "Install" not in unit                   # started by the desktop autostart, never enabled


def run_browser(tmp_path: Path, **env: str) -> tuple[subprocess.CompletedProcess, Path]:
    """kiosk-browser.sh with a fake chromium, xset and unclutter that log their arguments."""
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    bin_dir.mkdir()
    for name in ("chromium", "xset", "unclutter"):
        (bin_dir / name).write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n')
        (bin_dir / name).chmod(0o755)
    log.touch()
    environ = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path / "home"), **env}
    result = subprocess.run(["sh", str(BROWSER)], capture_output=True, text=True, env=environ, timeout=30)
    return result, log


def test_the_kiosk_browser_opens_the_display_full_screen_without_a_restore_offer(tmp_path):
    prefs = tmp_path / "home/.local/share/thoughtwave-kiosk/Default/Preferences"
    prefs.parent.mkdir(parents=True)
    prefs.write_text('{"profile":{"exit_type":"Crashed","exited_cleanly":false,"name":"Person 1"}}')
    result, log = run_browser(tmp_path, THOUGHTWAVE_URL="http://127.0.0.1:9090/", WAYLAND_DISPLAY="wayland-0")
    assert result.returncode == 0, result.stderr
    calls = log.read_text().splitlines()
    assert len(calls) == 1 and calls[0].startswith("chromium --kiosk ")      # Wayland: no X11 tools
    assert calls[0].endswith(f"--user-data-dir={prefs.parent.parent} http://127.0.0.1:9090/")
    # After a crash the last exit is marked clean, so no "Restore pages?" bubble covers the board.
    assert prefs.read_text() == '{"profile":{"exit_type":"Normal","exited_cleanly":true,"name":"Person 1"}}'


def test_on_x11_the_kiosk_browser_turns_blanking_off_and_hides_the_idle_pointer(tmp_path):
    result, log = run_browser(tmp_path, DISPLAY=":0")
    assert result.returncode == 0, result.stderr
    calls = sorted(log.read_text().splitlines())
    assert calls[0].startswith("chromium --kiosk") and calls[0].endswith(" http://127.0.0.1:8080/")
    assert calls[1:] == ["unclutter -idle 1 -root", "xset s off -dpms s noblank"]


def test_the_autostart_entry_hands_the_display_over_and_starts_the_kiosk():
    entry = parse_unit(DESKTOP)["Desktop Entry"]
    assert one(entry, "Type") == "Application"
    command = one(entry, "Exec")
    assert "import-environment WAYLAND_DISPLAY DISPLAY" in command
    assert "systemctl --user restart thoughtwave-kiosk.service" in command


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_analyze_verify_accepts_the_kiosk_user_unit(tmp_path):
    (tmp_path / "run").mkdir()
    # As for the service: verify insists ExecStart's binary exists, and kiosk-browser is only on a Pi.
    (tmp_path / KIOSK.name).write_text(KIOSK.read_text(encoding="utf-8").replace(
        "ExecStart=/opt/thoughtwave/kiosk-browser", "ExecStart=/bin/true"), encoding="utf-8")
    result = subprocess.run(["systemd-analyze", "--user", "verify", str(tmp_path / KIOSK.name)],
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "XDG_RUNTIME_DIR": str(tmp_path / "run")})
    if result.returncode != 0 and "manager" in result.stderr.lower():
        pytest.skip(f"no user manager can be simulated here: {result.stderr.strip()[:200]}")
    assert result.returncode == 0, result.stderr
    assert result.stderr.strip() == ""


# --- install.sh -------------------------------------------------------------------------------

SCRIPTS = [INSTALL, BROWSER, ROOT / "bench" / "pi-emulated.sh"]


def test_the_scripts_are_valid_shell():
    for script in SCRIPTS:
        subprocess.run(["bash", "-n", str(script)], check=True, timeout=30)


@pytest.mark.skipif(shutil.which("shellcheck") is None, reason="shellcheck is not installed (optional)")
def test_shellcheck_finds_nothing():
    result = subprocess.run(["shellcheck", *map(str, SCRIPTS)], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stdout


def test_a_machine_that_is_not_a_pi_is_refused_without_force(tmp_path):
    before = snapshot()
    result, calls = run_installer(tmp_path, "--dry-run", model="Generic x86 box")
    assert result.returncode == 1
    assert "not a Raspberry Pi" in result.stderr and "--force" in result.stderr
    assert commands(result.stdout) == [] and calls == []
    assert snapshot() == before


def test_this_machine_is_refused_without_force(tmp_path):
    result, _ = run_installer(tmp_path, "--dry-run", model=None)
    model = Path("/proc/device-tree/model")
    if model.exists() and b"Raspberry Pi" in model.read_bytes():
        pytest.skip("this machine is a Raspberry Pi")
    assert result.returncode == 1
    assert "not a Raspberry Pi" in result.stderr


def test_a_forced_dry_run_prints_every_step_and_touches_nothing(tmp_path):
    before = snapshot()
    result, calls = run_installer(tmp_path, "--dry-run", "--force", "--no-kiosk", model=None)
    assert result.returncode == 0, result.stderr
    steps = commands(result.stdout)
    text = "\n".join(steps)
    assert re.search(r"^python3 -m venv --system-site-packages .*/opt/thoughtwave/venv$", text, re.MULTILINE)
    # pip builds a clean copy, so no root-owned build/ or *.egg-info is left in the checkout.
    copy = re.search(rf"^copy_source {re.escape(str(ROOT))} (\S+)$", text, re.MULTILINE)
    assert copy and copy.group(1).startswith(str(tmp_path))
    assert f"/opt/thoughtwave/venv/bin/pip install --disable-pip-version-check --quiet {copy.group(1)}" in text
    assert not Path(copy.group(1)).exists()            # the copy is tidied away on exit
    assert "/etc/thoughtwave/config.toml" in text and "-m 0640 -o root -g thoughtwave" in text
    assert "install -D -m 0644 -o root -g root" in text and "/etc/systemd/system/thoughtwave.service" in text
    if before["user"] != 0:
        assert any(s.startswith("useradd --system") and "--groups video" in s and s.endswith("thoughtwave")
                   for s in steps)
    assert steps[-3:] == ["systemctl daemon-reload", "systemctl enable thoughtwave.service",
                          "systemctl restart thoughtwave.service"]
    assert "kiosk" not in text
    assert "the PIN that unlocks changes" in result.stdout
    assert "dry run done: nothing was changed" in result.stdout
    # Nothing that changes the system ran; rm only tidied the installer's own temporary files.
    assert [c for c in calls if not (c.startswith("rm ") and str(tmp_path) in c)] == []
    assert snapshot() == before


PI_APT = {
    # A fresh Raspberry Pi OS: nothing of ours installed yet, everything available from apt.
    "dpkg-query": "exit 1",
    "apt-cache": 'echo "$2:"; echo "  Installed: (none)"; echo "  Candidate: 1.0-1"',
}


def test_on_a_pi_the_dry_run_adds_picamera2_chromium_and_the_kiosk(tmp_path):
    before = snapshot()
    result, calls = run_installer(tmp_path, "--dry-run", "--kiosk", model="Raspberry Pi 5 Model B Rev 1.0",
                                  extra=PI_APT)
    assert result.returncode == 0, result.stderr
    assert "found Raspberry Pi 5 Model B Rev 1.0" in result.stdout
    steps = commands(result.stdout)
    apt = [s for s in steps if "apt-get install" in s]
    assert len(apt) == 1 and "apt-get update" in steps
    for package in ("python3-venv", "python3-picamera2", "chromium-browser", "curl", "sqlite3"):
        assert package in apt[0].split()
    assert "python3-opencv" not in apt[0]          # OpenCV comes as a pip wheel
    text = "\n".join(steps)
    # After installing, the camera stack is imported in the venv, and the known ABI break repaired.
    assert f"/opt/thoughtwave/venv/bin/python {SYSTEMD}/detect-camera.py --stack" in text
    assert "pip install simplejpeg==1.8.2" in text
    assert "unclutter" in apt[0].split()
    for path in ("/etc/systemd/user/thoughtwave-kiosk.service", "/etc/xdg/autostart/thoughtwave-kiosk.desktop",
                 "/etc/thoughtwave/kiosk.env"):
        assert path in text
    assert [c for c in calls if not (c.startswith("rm ") and str(tmp_path) in c)] == []
    assert snapshot() == before


def test_uninstall_keeps_the_games_unless_purged(tmp_path):
    before = snapshot()
    kept, _ = run_installer(tmp_path / "a", "--dry-run", "--uninstall")   # removing needs no Pi, no --force
    assert kept.returncode == 0, kept.stderr
    text = "\n".join(commands(kept.stdout))
    assert "rm -rf /opt/thoughtwave" in text and "/etc/systemd/system/thoughtwave.service" in text
    assert "/var/lib/thoughtwave" not in text
    assert "games kept in /var/lib/thoughtwave" in kept.stdout

    purged, _ = run_installer(tmp_path / "b", "--dry-run", "--force", "--uninstall", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert "rm -rf /var/lib/thoughtwave /etc/thoughtwave" in "\n".join(commands(purged.stdout))
    assert snapshot() == before


@pytest.mark.parametrize(("args", "message"), [
    (["--dry-run", "--force", "--frobnicate"], "unknown option --frobnicate"),
    (["--dry-run", "--force", "--purge"], "--purge only goes with --uninstall"),
    (["--dry-run", "--force", "--source", "/nonexistent/checkout"], "no such directory"),
    (["--dry-run", "--force", "--source", "/"], "has no pyproject.toml"),
])
def test_bad_options_are_refused_with_exit_2(tmp_path, args, message):
    result, calls = run_installer(tmp_path, *args)
    assert result.returncode == 2
    assert message in result.stderr
    assert commands(result.stdout) == [] and calls == []


def test_help_describes_the_options(tmp_path):
    result, _ = run_installer(tmp_path, "--help")
    assert result.returncode == 0
    for option in ("--dry-run", "--force", "--uninstall", "--purge", "--no-kiosk"):
        assert option in result.stdout


def test_install_writes_a_valid_config_with_a_fresh_pin_and_a_second_run_changes_nothing(tmp_path):
    root, pip_log = staged_root(tmp_path)
    first, system_calls = run_staged(tmp_path, root, "--kiosk", "--camera", "usb:2")
    assert first.returncode == 0, first.stderr
    config_path = root / "etc" / "thoughtwave" / "config.toml"
    assert config_path.stat().st_mode & 0o777 == 0o640
    # The installer itself loaded it through the project's config reader (the kiosk address) without error.
    config = tomllib.loads(config_path.read_text())
    assert config["camera"]["source"] == "usb:2"
    assert "No camera was found" not in config_path.read_text()
    pin = config["server"]["pin"]
    assert re.fullmatch(r"\d{6}", pin)
    assert f"the PIN that unlocks changes on the display is: {pin}" in first.stdout
    unit = root / "etc" / "systemd" / "system" / "thoughtwave.service"
    assert unit.read_text() == SERVICE.read_text() and unit.stat().st_mode & 0o777 == 0o644
    assert (root / "etc/systemd/user/thoughtwave-kiosk.service").read_text() == KIOSK.read_text()
    assert (root / "etc/xdg/autostart/thoughtwave-kiosk.desktop").read_text() == DESKTOP.read_text()
    assert (root / "etc/thoughtwave/kiosk.env").read_text() == "THOUGHTWAVE_URL=http://127.0.0.1:8080/\n"
    installs = pip_log.read_text().splitlines()
    copy = installs[0].split()[-2]
    assert copy.startswith(str(tmp_path))             # a copy of the checkout, never the checkout itself
    assert installs == [f"pip install --disable-pip-version-check --quiet {copy} (clean)",
                        f"pip install --disable-pip-version-check --quiet --no-deps --force-reinstall {copy} (clean)"]
    assert system_calls == []                      # --root: no apt, no users, no systemctl
    assert "(--root: skipped) systemctl enable thoughtwave.service" in first.stdout
    # The venv's python never runs in the checkout, where `-c` would import its bare thoughtwave/ folder.
    assert set((tmp_path / "python-cwd.log").read_text().split()) == {"/"}

    # The owner edits the config; running the installer again (an update) keeps it, PIN and all.
    edited = config_path.read_text().replace("# port = 8080", "port = 9090").replace(
        '# host = "127.0.0.1"', 'host = "0.0.0.0"')
    config_path.write_text(edited)
    second, system_calls = run_staged(tmp_path, root, "--kiosk")
    assert second.returncode == 0, second.stderr
    assert config_path.read_text() == edited
    assert "PIN" not in second.stdout
    assert f"{config_path} exists: kept as it is" in second.stdout
    assert f"{unit} unchanged" in second.stdout
    # The kiosk follows the port; a server on every interface is reached through loopback.
    assert (root / "etc/thoughtwave/kiosk.env").read_text() == "THOUGHTWAVE_URL=http://127.0.0.1:9090/\n"
    assert system_calls == []


def test_a_broken_config_stops_an_update_and_names_the_key(tmp_path):
    root, _ = staged_root(tmp_path)
    config_path = root / "etc" / "thoughtwave" / "config.toml"
    config_path.parent.mkdir(parents=True)
    config_path.write_text("[server]\nport = 99999\n")
    result, _ = run_staged(tmp_path, root, "--no-kiosk")
    assert result.returncode == 1
    assert "[server] port: must be 1-65535, got 99999" in result.stderr
    assert not (root / "etc" / "systemd" / "system" / "thoughtwave.service").exists()


def test_uninstall_removes_the_program_and_keeps_the_games_until_purged(tmp_path):
    root, _ = staged_root(tmp_path)
    assert run_staged(tmp_path, root, "--kiosk")[0].returncode == 0
    games = root / "var" / "lib" / "thoughtwave" / "games.sqlite3"
    games.parent.mkdir(parents=True)
    games.write_bytes(b"SQLite format 3\0")

    kept, _ = run_staged(tmp_path, root, "--uninstall")
    assert kept.returncode == 0, kept.stderr
    assert not (root / "opt" / "thoughtwave").exists()
    for gone in ("etc/systemd/system/thoughtwave.service", "etc/systemd/user/thoughtwave-kiosk.service",
                 "etc/xdg/autostart/thoughtwave-kiosk.desktop", "etc/thoughtwave/kiosk.env"):
        assert not (root / gone).exists(), gone
    assert games.exists() and (root / "etc" / "thoughtwave" / "config.toml").exists()

    purged, _ = run_staged(tmp_path, root, "--uninstall", "--purge")
    assert purged.returncode == 0, purged.stderr
    assert not games.parent.exists() and not (root / "etc" / "thoughtwave").exists()
