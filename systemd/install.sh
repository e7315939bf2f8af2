#!/usr/bin/env bash
# Install (or update, or remove) the Thoughtwave companion on a Raspberry Pi.
#
#   sudo bash systemd/install.sh              install or update from this checkout; safe to run again
#   sudo bash systemd/install.sh --uninstall  remove service, venv and user; keep games and config
#   sudo bash systemd/install.sh --uninstall --purge   ... and delete games and config too
#   bash systemd/install.sh --dry-run         print every command it would run, change nothing
#   bash systemd/install.sh --force --root DIR    write the files under DIR; no apt, users or systemctl
#
# Target: Raspberry Pi OS Bookworm 64-bit on a Pi 4 or 5 (3B+ works, slower). What it sets up:
#   apt packages   python3-venv, python3-picamera2 (libcamera comes with it), curl, sqlite3 (backups),
#                  and chromium for the kiosk display when a desktop is installed
#   /opt/thoughtwave/venv    a venv with --system-site-packages, so apt's picamera2 is importable;
#                            the project is pip-installed into it (numpy/OpenCV wheels from PyPI)
#   user thoughtwave         system user in group video (the camera devices)
#   /etc/systemd/system/thoughtwave.service          enabled and (re)started
#   /etc/thoughtwave/config.toml                     only if absent: camera "pi" and a new 6-digit PIN
#   /etc/systemd/user/thoughtwave-kiosk.service,
#   /etc/xdg/autostart/thoughtwave-kiosk.desktop     Chromium full screen at desktop login
#   /var/lib/thoughtwave                             games and calibration (made by systemd)
#
# Tests point THOUGHTWAVE_MODEL_FILE at a fake device-tree model to exercise the Pi path.
set -euo pipefail

SERVICE_USER=thoughtwave
HOME_DIR=/var/lib/thoughtwave      # the service user's home: systemd's StateDirectory=

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(dirname "$HERE")"

ARGS=("$@")
DRY_RUN=0
FORCE=0
UNINSTALL=0
PURGE=0
KIOSK=auto
DEST=""

usage() {
    sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'
    cat <<'EOF'

options:
  --dry-run      print every command that would change the system, run none of them
  --force        install on a machine that is not a Raspberry Pi
  --uninstall    remove the service, kiosk, venv and user (games and config are kept)
  --purge        with --uninstall: also delete /var/lib/thoughtwave and /etc/thoughtwave
  --no-kiosk     do not install the full-screen browser
  --kiosk        install the full-screen browser even if no desktop is detected
  --source DIR   the checkout to install (default: the one holding this script)
  --root DIR     put every file under DIR instead of /, and run no apt, user or systemctl command
                 (for tests and for reading what would be written; a venv cannot be moved, so
                 this does not build an SD card image)
  -h, --help     this text
EOF
}

say() { printf '==> %s\n' "$*"; }
warn() { printf 'warning: %s\n' "$*" >&2; }
die() { printf 'install.sh: %s\n' "$*" >&2; exit "${2:-1}"; }

# Every command that changes the system goes through run (or put_file): in a dry run it is only
# printed, shell-quoted so it can be pasted. Read-only probes (getent, dpkg-query...) run anyway.
run() {
    if (( DRY_RUN )); then
        printf '+'
        printf ' %q' "$@"
        printf '\n'
    else
        "$@"
    fi
}

# Commands that act on the machine as a whole (packages, users, services, owners): not under --root.
system() {
    if [[ -n "$DEST" ]]; then
        printf '(--root: skipped)'
        printf ' %q' "$@"
        printf '\n'
    else
        run "$@"
    fi
}

# put_file MODE OWNER:GROUP DEST: write standard input to DEST atomically, only if it differs.
put_file() {
    local mode=$1 owner=$2 dest=$3 tmp
    local -a owner_args=(-o "${owner%%:*}" -g "${owner##*:}")
    [[ -n "$DEST" ]] && owner_args=()
    tmp="$(mktemp)"
    cat >"$tmp"
    if [[ -f "$dest" ]] && cmp -s "$tmp" "$dest"; then
        rm -f "$tmp"
        run chmod "$mode" "$dest"
        system chown "$owner" "$dest"
        say "$dest unchanged"
        return
    fi
    if (( DRY_RUN )); then
        local shown="" arg
        for arg in "${owner_args[@]}"; do shown+=" $arg"; done
        printf '+ install -D -m %s%s <%s> %q\n' "$mode" "$shown" "$(wc -l <"$tmp" | tr -d ' ') lines" "$dest"
        rm -f "$tmp"
        return
    fi
    install -D -m "$mode" "${owner_args[@]}" "$tmp" "$dest.new"
    mv -f "$dest.new" "$dest"
    rm -f "$tmp"
    say "wrote $dest"
}

# copy_source FROM TO: the checkout without git, venv, caches and build products.
# shellcheck disable=SC2317  # only ever called through run
copy_source() {
    tar -C "$1" --exclude-vcs --exclude=./.venv --exclude=./build --exclude='*.egg-info' \
        --exclude=__pycache__ --exclude=.pytest_cache --exclude=.ruff_cache --exclude=.hypothesis \
        --exclude=./state --exclude=./out --exclude=./kit --exclude=./bench/data -cf - . | tar -C "$2" -xf -
}

while (( $# )); do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --force) FORCE=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        --no-kiosk) KIOSK=no ;;
        --kiosk) KIOSK=yes ;;
        --source)
            (( $# >= 2 )) || die "--source needs a directory" 2
            SOURCE="$(cd "$2" 2>/dev/null && pwd)" || die "--source $2: no such directory" 2
            shift ;;
        --root)
            (( $# >= 2 )) || die "--root needs a directory" 2
            DEST="$(cd "$2" 2>/dev/null && pwd)" || die "--root $2: no such directory" 2
            [[ "$DEST" != / ]] || DEST=""
            shift ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (try --help)" 2 ;;
    esac
    shift
done
(( PURGE && ! UNINSTALL )) && die "--purge only goes with --uninstall" 2

PREFIX="$DEST/opt/thoughtwave"
VENV="$PREFIX/venv"
CONFIG_DIR="$DEST/etc/thoughtwave"
CONFIG="$CONFIG_DIR/config.toml"
KIOSK_ENV="$CONFIG_DIR/kiosk.env"
STATE_DIR="$DEST$HOME_DIR"
UNIT_DIR="$DEST/etc/systemd/system"
USER_UNIT_DIR="$DEST/etc/systemd/user"
AUTOSTART_DIR="$DEST/etc/xdg/autostart"

if (( ! DRY_RUN )) && [[ -z "$DEST" && "$(id -u)" != 0 ]]; then
    die "run it as root: sudo bash $0 ${ARGS[*]}   (or --dry-run to see what it would do)" 2
fi
(( DRY_RUN )) && say "dry run: nothing will be changed"
[[ -n "$DEST" ]] && say "installing the files under $DEST"

# --- uninstall --------------------------------------------------------------------------------
if (( UNINSTALL )); then
    if [[ -n "$DEST" || -e "$UNIT_DIR/thoughtwave.service" ]] || systemctl cat thoughtwave.service >/dev/null 2>&1
    then
        system systemctl disable --now thoughtwave.service || warn "could not stop thoughtwave.service; removing it"
    fi
    run rm -f "$UNIT_DIR/thoughtwave.service" "$USER_UNIT_DIR/thoughtwave-kiosk.service" \
        "$AUTOSTART_DIR/thoughtwave-kiosk.desktop" "$KIOSK_ENV"
    system systemctl daemon-reload
    run rm -rf "$PREFIX"
    if [[ -n "$DEST" ]] || getent passwd "$SERVICE_USER" >/dev/null; then
        system userdel "$SERVICE_USER" || warn "could not remove the user $SERVICE_USER (userdel said why)"
    fi
    if (( PURGE )); then
        run rm -rf "$STATE_DIR" "$CONFIG_DIR"
        say "removed everything, games and config included"
    else
        say "removed; games kept in $STATE_DIR, config in $CONFIG_DIR (--purge deletes them)"
    fi
    say "apt packages (python3-picamera2, chromium...) are left installed; other software may use them"
    exit 0
fi

# --- is this a Raspberry Pi? (only checked to install: removing works anywhere) -------------
model=""
for f in "${THOUGHTWAVE_MODEL_FILE:-}" /proc/device-tree/model /sys/firmware/devicetree/base/model; do
    if [[ -n "$f" && -r "$f" ]]; then
        model="$(tr -d '\0' <"$f")"
        break
    fi
done
if [[ "$model" != *"Raspberry Pi"* ]]; then
    if (( ! FORCE )); then
        die "this is not a Raspberry Pi (device-tree model: ${model:-none}); the companion is made for \
a Pi with a camera. Use --force to install anyway."
    fi
    warn "not a Raspberry Pi (model: ${model:-none}); going on because of --force"
else
    say "found $model"
fi

[[ -f "$SOURCE/pyproject.toml" ]] || die "$SOURCE has no pyproject.toml: give the checkout with --source" 2

# --- apt packages -----------------------------------------------------------------------------
if [[ -r /etc/os-release ]]; then
    # shellcheck source=/dev/null
    codename="$(. /etc/os-release && echo "${VERSION_CODENAME:-}")"
    [[ "$codename" == bookworm ]] || warn "made for Raspberry Pi OS Bookworm, this is ${codename:-unknown}"
fi
if [[ "$KIOSK" == auto ]]; then
    KIOSK=no
    for session in /usr/bin/labwc /usr/bin/wayfire /usr/bin/startlxde-pi /usr/bin/lxsession; do
        [[ -x "$session" ]] && KIOSK=yes
    done
    [[ "$KIOSK" == yes ]] || say "no desktop found: skipping the kiosk browser (--kiosk to add it)"
fi

has_candidate() { apt-cache policy "$1" 2>/dev/null | grep -q 'Candidate: [^(]'; }
packages=()
if [[ -n "$DEST" ]]; then
    say "--root: apt packages are left alone"
else
    packages=(python3-venv curl sqlite3 ca-certificates)
    if has_candidate python3-picamera2; then
        packages+=(python3-picamera2)
    else
        warn "python3-picamera2 is not in this machine's apt sources: no Pi camera (usb:N and files work)"
    fi
    if [[ "$KIOSK" == yes ]]; then
        # Raspberry Pi OS Bookworm calls it chromium-browser; Debian and newer Pi OS call it chromium.
        if has_candidate chromium-browser; then packages+=(chromium-browser); else packages+=(chromium); fi
    fi
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
    done
    if (( ${#missing[@]} )); then
        say "apt packages to install: ${missing[*]}"
        system apt-get update
        system env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends "${missing[@]}"
    else
        say "apt packages already installed"
    fi
fi

# --- the service user -------------------------------------------------------------------------
if getent passwd "$SERVICE_USER" >/dev/null; then
    if ! id -nG "$SERVICE_USER" | tr ' ' '\n' | grep -qx video; then
        system usermod -a -G video "$SERVICE_USER"
    fi
    say "user $SERVICE_USER exists"
else
    getent group video >/dev/null || system groupadd --system video
    system useradd --system --user-group --groups video --home-dir "$HOME_DIR" --no-create-home \
        --shell /usr/sbin/nologin --comment "Thoughtwave companion" "$SERVICE_USER"
fi

# --- the venv and the project -----------------------------------------------------------------
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null; then
    die "python3 is older than 3.11: the companion needs Raspberry Pi OS Bookworm or later"
fi
if [[ -x "$VENV/bin/python" ]] && grep -qi '^include-system-site-packages *= *true' "$VENV/pyvenv.cfg"; then
    say "venv $VENV exists"
else
    # --clear: a venv made without system site packages cannot see apt's picamera2; remake it.
    run python3 -m venv --system-site-packages --clear "$VENV"
fi
# picamera2 comes from apt, so the [pi] extra is not installed. The second, --no-deps pass
# replaces the project even when its version number did not change (an update from git).
# pip builds inside the tree it is given (build/, *.egg-info): as root in the user's checkout that
# leaves root-owned files behind that break their next `make`. So it builds a clean copy.
BUILD_DIR="$(mktemp -d)"
trap 'rm -rf "$BUILD_DIR"' EXIT
run copy_source "$SOURCE" "$BUILD_DIR"
run "$VENV/bin/pip" install --disable-pip-version-check --quiet "$BUILD_DIR"
run "$VENV/bin/pip" install --disable-pip-version-check --quiet --no-deps --force-reinstall "$BUILD_DIR"
if [[ -f "$SOURCE/README.md" ]]; then
    put_file 0644 root:root "$PREFIX/README.md" <"$SOURCE/README.md"
fi

if [[ " ${packages[*]} " != *" python3-picamera2 "* ]]; then
    :
elif (( DRY_RUN )); then
    printf '+ %q -c %q   # then, if numpy does not fit: pip install simplejpeg\n' "$VENV/bin/python" "import picamera2"
else
    if ! err="$("$VENV/bin/python" -c 'import picamera2' 2>&1)"; then
        if [[ "$err" == *numpy* ]]; then
            # apt's simplejpeg is built for Debian's numpy 1.x; the venv has numpy 2 for OpenCV 5.
            say "apt's simplejpeg does not fit the venv's numpy: installing simplejpeg's wheel"
            run "$VENV/bin/pip" install --disable-pip-version-check --quiet --force-reinstall --no-deps simplejpeg
            err="$("$VENV/bin/python" -c 'import picamera2' 2>&1)" || warn "picamera2 still does not import: ${err##*$'\n'}"
        else
            warn "picamera2 does not import in $VENV: ${err##*$'\n'}"
        fi
    else
        say "picamera2 imports in the venv"
    fi
fi

# --- configuration ----------------------------------------------------------------------------
if [[ -n "$DEST" ]]; then
    run install -d -m 0755 "$CONFIG_DIR"
else
    run install -d -m 0755 -o root -g root "$CONFIG_DIR"
fi
if [[ -e "$CONFIG" ]]; then
    say "$CONFIG exists: kept as it is"
    if (( ! DRY_RUN )); then
        "$VENV/bin/python" -c 'import sys; from pathlib import Path; from thoughtwave.config import load_config
load_config(Path(sys.argv[1]))' "$CONFIG" || die "fix $CONFIG (the line above names the key), then run this again"
    fi
    system chown "root:$SERVICE_USER" "$CONFIG"
    run chmod 0640 "$CONFIG"
else
    if (( DRY_RUN )); then
        pin="<6 random digits>"
    else
        pin="$(python3 -c 'import secrets; print(f"{secrets.randbelow(10**6):06d}")')"
    fi
    sed -e 's|^# source = "demo"$|source = "pi"|' -e "s|^# pin = \"123456\"\$|pin = \"$pin\"|" \
        "$HERE/config.example.toml" | put_file 0640 "root:$SERVICE_USER" "$CONFIG"
    say "the PIN that unlocks changes on the display is: $pin"
    say "(shown this once; it is kept in $CONFIG, readable only by root and the service)"
fi

# --- systemd ----------------------------------------------------------------------------------
# The display's address, for the kiosk and the last message. The browser runs as the desktop user,
# who may not read config.toml (it holds the PIN), so the address goes to a file of its own.
url="http://127.0.0.1:8080/"
if (( ! DRY_RUN )); then
    url="$("$VENV/bin/python" -c 'import ipaddress, sys; from pathlib import Path
from thoughtwave.config import load_config
server = load_config(Path(sys.argv[1])).server
host = server.host
try:
    address = ipaddress.ip_address(host)
    host = "127.0.0.1" if address.is_unspecified else (f"[{host}]" if address.version == 6 else host)
except ValueError:
    pass
print(f"http://{host}:{server.port}/")' "$CONFIG")"
fi
put_file 0644 root:root "$UNIT_DIR/thoughtwave.service" <"$HERE/thoughtwave.service"
if [[ "$KIOSK" == yes ]]; then
    put_file 0644 root:root "$USER_UNIT_DIR/thoughtwave-kiosk.service" <"$HERE/thoughtwave-kiosk.service"
    put_file 0644 root:root "$AUTOSTART_DIR/thoughtwave-kiosk.desktop" <"$HERE/thoughtwave-kiosk.desktop"
    printf 'THOUGHTWAVE_URL=%s\n' "$url" | put_file 0644 root:root "$KIOSK_ENV"
fi
# A copy of the games before the new code opens them: what the companion's start-up check
# (thoughtwave/game/dbcheck.py) tells the user to restore if it finds the database damaged. Only a sound
# database is copied, so a damaged one never replaces the last good backup.
db="$STATE_DIR/games.sqlite3"
if [[ -s "$db" ]] && command -v sqlite3 >/dev/null; then
    if [[ "$(sqlite3 -readonly "$db" 'PRAGMA quick_check' 2>&1)" == ok ]]; then
        run sqlite3 -readonly "$db" ".backup '$db.backup'"
        run chmod 0600 "$db.backup"
    else
        warn "$db fails its check: the backup $db.backup is kept as it was"
    fi
fi
system systemctl daemon-reload
system systemctl enable thoughtwave.service
# restart, not start: an update must replace the running code.
system systemctl restart thoughtwave.service || true   # the check below says what went wrong

if (( DRY_RUN )); then
    say "dry run done: nothing was changed"
    exit 0
fi
if [[ -n "$DEST" ]]; then
    say "files installed under $DEST; the display would be at $url"
    exit 0
fi
sleep 3
if systemctl is-active --quiet thoughtwave.service; then
    say "thoughtwave is running: $url"
else
    warn "thoughtwave did not stay up; see: journalctl -u thoughtwave -n 50"
fi
say "logs: journalctl -u thoughtwave -f    games: $STATE_DIR    config: $CONFIG"
[[ "$KIOSK" == yes ]] && say "the display opens full screen at the next desktop login (or reboot)"
exit 0
