#!/usr/bin/env bash
# Install (or update, or remove) the Thoughtwave companion on a Raspberry Pi.
#
#   sudo bash systemd/install.sh              install or update from this checkout; safe to run again
#   sudo bash systemd/install.sh --uninstall  remove service, venv and user; keep games and config
#   sudo bash systemd/install.sh --uninstall --purge   ... and delete games and config too
#   bash systemd/install.sh --dry-run         print every command it would run, change nothing
#   bash systemd/install.sh --force --root DIR    write the files under DIR; no apt, users or systemctl
#
# Target: Raspberry Pi OS (64-bit) Bookworm or Trixie, desktop or Lite, on a Pi 4 or 5 (3B+ works,
# slower). Before changing anything it checks, and refuses with one line each saying what to do:
#   a Raspberry Pi (--force skips this), a 64-bit userland (dpkg says arm64; amd64 is accepted for
#   testing), Python >= 3.11, the release (Bookworm or Trixie; older ones are refused), free disk
#   space. It also looks for a camera: none is no refusal (the demo game is installed), but it says so.
# What it sets up:
#   apt packages   python3-venv, python3-picamera2 (libcamera comes with it), curl, sqlite3 (backups),
#                  and with a desktop chromium (and unclutter, for an X11 desktop)
#   /opt/thoughtwave/venv    a venv with --system-site-packages, so apt's picamera2 is importable;
#                            the project is pip-installed into it (numpy/OpenCV wheels from PyPI), then
#                            the camera stack is imported there and the known numpy ABI break repaired
#   user thoughtwave         system user in group video (the camera devices)
#   /etc/systemd/system/thoughtwave.service          enabled and (re)started
#   /etc/thoughtwave/config.toml                     only if absent: the camera found (pi, usb:N or
#                                                    demo) and a new 6-digit PIN
#   /etc/systemd/user/thoughtwave-kiosk.service,     Chromium full screen at desktop login, restarted
#   /etc/xdg/autostart/thoughtwave-kiosk.desktop,    whenever it dies; for the desktop user, screen
#   /opt/thoughtwave/kiosk-browser                   blanking off (raspi-config) and on labwc a window
#                                                    rule in ~/.config/labwc/rc.xml that hides the pointer
#   /var/lib/thoughtwave                             games and calibration (made by systemd)
#
# Tests point THOUGHTWAVE_MODEL_FILE at a fake device-tree model, THOUGHTWAVE_OS_RELEASE at a fake
# os-release and THOUGHTWAVE_SYSFS at a fake /sys, and put fake dpkg, python3 or df first on PATH.
set -euo pipefail

SERVICE_USER=thoughtwave
HOME_DIR=/var/lib/thoughtwave      # the service user's home: systemd's StateDirectory=
MIN_FREE_MB=1024                   # the venv takes ~300 MB (numpy, OpenCV); pip and apt download first
# Raspberry Pi OS Bookworm's apt simplejpeg (picamera2 needs it) is built for Debian's numpy 1.24 and
# fails under the venv's numpy 2, which OpenCV 5 needs ("numpy.dtype size changed"). This wheel
# (aarch64 for Python 3.11 to 3.13, built against numpy 2), installed in the venv, shadows it.
SIMPLEJPEG_PIN="simplejpeg==1.8.2"
# The labwc window rule that hides the pointer sits between these two lines in the user's rc.xml.
LABWC_BEGIN="<!-- thoughtwave kiosk: begin (uninstalling the companion takes this out) -->"
LABWC_END="<!-- thoughtwave kiosk: end -->"

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(dirname "$HERE")"

ARGS=("$@")
DRY_RUN=0
FORCE=0
UNINSTALL=0
PURGE=0
KIOSK=auto
DEST=""
CAMERA=""

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
  --camera SPEC  the camera for a new config instead of the one found: pi, usb:N, demo,
                 file:PATH or dir:PATH
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

# without_labwc_block FILE: the file without our window rule block, on standard output.
without_labwc_block() {
    BEGIN="$LABWC_BEGIN" END="$LABWC_END" awk '
        index($0, ENVIRON["BEGIN"]) { skip = 1 }
        !skip { print }
        skip && index($0, ENVIRON["END"]) { skip = 0 }' "$1"
}

# with_labwc_block FILE: the file with our window rule block just before its closing root tag.
with_labwc_block() {
    local block
    block="$(printf '%s\n' "  $LABWC_BEGIN" \
        '  <!-- Hide the pointer (until the mouse moves) when the Thoughtwave display opens. -->' \
        '  <windowRules>' \
        '    <windowRule identifier="chromium*">' \
        '      <action name="WarpCursor" x="-1" y="-1" />' \
        '      <action name="HideCursor" />' \
        '    </windowRule>' \
        '  </windowRules>' \
        "  $LABWC_END")"
    without_labwc_block "$1" | BLOCK="$block" awk '
        { line[NR] = $0 }
        /<\/(labwc|openbox)_config>/ { last = NR }
        END {
            if (!last) exit 1
            for (i = 1; i <= NR; i++) { if (i == last) print ENVIRON["BLOCK"]; print line[i] }
        }'
}

while (( $# )); do
    case "$1" in
        --dry-run) DRY_RUN=1 ;;
        --force) FORCE=1 ;;
        --uninstall) UNINSTALL=1 ;;
        --purge) PURGE=1 ;;
        --no-kiosk) KIOSK=no ;;
        --kiosk) KIOSK=yes ;;
        --camera)
            (( $# >= 2 )) || die "--camera needs a source: pi, usb:N, demo, file:PATH or dir:PATH" 2
            [[ "$2" =~ ^(pi|demo|usb:[0-9]+|file:.+|dir:.+)$ ]] ||
                die "--camera $2: give pi, usb:N, demo, file:PATH or dir:PATH" 2
            CAMERA="$2"
            shift ;;
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
# Every path is absolute by now. Leave the checkout: `python -c` puts the current directory first on
# sys.path, and run from the checkout the venv's python would import its bare thoughtwave/ folder (the
# package root, without the engine/, vision/, webui/ it maps in) instead of the installed package.
cd /

PREFIX="$DEST/opt/thoughtwave"
VENV="$PREFIX/venv"
CONFIG_DIR="$DEST/etc/thoughtwave"
CONFIG="$CONFIG_DIR/config.toml"
KIOSK_ENV="$CONFIG_DIR/kiosk.env"
STATE_DIR="$DEST$HOME_DIR"
UNIT_DIR="$DEST/etc/systemd/system"
USER_UNIT_DIR="$DEST/etc/systemd/user"
AUTOSTART_DIR="$DEST/etc/xdg/autostart"

need_root() {
    if (( ! DRY_RUN )) && [[ -z "$DEST" && "$(id -u)" != 0 ]]; then
        die "run it as root: sudo bash $0 ${ARGS[*]}   (or --dry-run to see what it would do)" 2
    fi
    (( DRY_RUN )) && say "dry run: nothing will be changed"
    [[ -n "$DEST" ]] && say "installing the files under $DEST"
    return 0
}

# --- uninstall --------------------------------------------------------------------------------
if (( UNINSTALL )); then
    need_root
    if [[ -n "$DEST" || -e "$UNIT_DIR/thoughtwave.service" ]] || systemctl cat thoughtwave.service >/dev/null 2>&1
    then
        system systemctl disable --now thoughtwave.service || warn "could not stop thoughtwave.service; removing it"
    fi
    run rm -f "$UNIT_DIR/thoughtwave.service" "$USER_UNIT_DIR/thoughtwave-kiosk.service" \
        "$AUTOSTART_DIR/thoughtwave-kiosk.desktop" "$KIOSK_ENV"
    for rc in "$DEST"/home/*/.config/labwc/rc.xml "$DEST"/root/.config/labwc/rc.xml; do
        if [[ -f "$rc" ]] && grep -qF "$LABWC_BEGIN" "$rc"; then
            without_labwc_block "$rc" | put_file 0644 "$(stat -c %U:%G "$rc")" "$rc"
        fi
    done
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
    say "screen blanking stays off: raspi-config, Display Options, Screen Blanking turns it on again"
    exit 0
fi

# --- pre-flight: everything is checked before anything is changed ------------------------------
# Each problem is one line saying what to do instead; any problem stops the install untouched.
[[ -f "$SOURCE/pyproject.toml" ]] || die "$SOURCE has no pyproject.toml: give the checkout with --source" 2
problems=()

# A Raspberry Pi? (only checked to install: removing works anywhere)
model=""
for f in "${THOUGHTWAVE_MODEL_FILE:-}" /proc/device-tree/model /sys/firmware/devicetree/base/model; do
    if [[ -n "$f" && -r "$f" ]]; then
        model="$(tr -d '\0' <"$f")"
        break
    fi
done
if [[ "$model" == *"Raspberry Pi"* ]]; then
    say "found $model"
elif (( FORCE )); then
    warn "not a Raspberry Pi (model: ${model:-none}); going on because of --force"
else
    problems+=("this is not a Raspberry Pi (device-tree model: ${model:-none}); the companion is made for a Pi \
with a camera. Use --force to install anyway.")
fi

# A 64-bit userland. dpkg, not uname: 32-bit Raspberry Pi OS on a Pi 4 or 5 boots a 64-bit kernel.
if ! arch="$(dpkg --print-architecture 2>/dev/null)"; then
    problems+=("no dpkg: this is not Raspberry Pi OS; flash Raspberry Pi OS (64-bit), Bookworm or Trixie")
else
    case "$arch" in
        arm64) say "userland: arm64 (64-bit)" ;;
        amd64) say "userland: amd64 (accepted for testing; a Pi is arm64)" ;;
        armhf|armel)
            problems+=("32-bit Raspberry Pi OS ($arch; the kernel says $(uname -m)): numpy and OpenCV have no \
32-bit wheels. Flash Raspberry Pi OS (64-bit) with Raspberry Pi Imager, then run this again") ;;
        *) problems+=("the $arch userland is not supported: flash Raspberry Pi OS (64-bit)") ;;
    esac
fi

# Python 3.11 or later (Bookworm has 3.11, Trixie 3.13).
python_ok=0
if ! pyver="$(python3 -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])' 2>/dev/null)"; then
    problems+=("no python3: flash Raspberry Pi OS (64-bit) Bookworm or Trixie, which come with it")
else
    IFS=. read -r major minor _ <<<"$pyver"
    if (( major > 3 || (major == 3 && minor >= 11) )); then
        python_ok=1
        say "python3: $pyver"
    else
        problems+=("Python $pyver is too old (3.11 or later needed): flash Raspberry Pi OS (64-bit) Bookworm \
or Trixie")
    fi
fi

# The release: Bookworm (Raspberry Pi OS 12) and Trixie (13) are both supported.
os_release="${THOUGHTWAVE_OS_RELEASE:-/etc/os-release}"
codename=""
if [[ -r "$os_release" ]]; then
    # shellcheck source=/dev/null
    codename="$(. "$os_release" && echo "${VERSION_CODENAME:-}")"
fi
case "$codename" in
    bookworm) say "release: Bookworm (Raspberry Pi OS 12), supported" ;;
    trixie) say "release: Trixie (Raspberry Pi OS 13), supported" ;;
    jessie|stretch|buster|bullseye)
        problems+=("Raspberry Pi OS ${codename^} is too old: flash Raspberry Pi OS (64-bit) Bookworm or Trixie") ;;
    *) warn "release ${codename:-unknown} has not been tried (Bookworm and Trixie have); going on" ;;
esac

# Disk space where the venv goes.
dir="$PREFIX"
while [[ ! -d "$dir" ]]; do dir="$(dirname "$dir")"; done
read -r free_mb mount_point < <(df -Pk "$dir" | awk 'NR == 2 { print int($4 / 1024), $6 }')
if (( ${free_mb:-0} < MIN_FREE_MB )); then
    problems+=("only ${free_mb:-0} MB free on ${mount_point:-$dir} ($MIN_FREE_MB MB needed): free some \
(sudo apt clean; sudo apt autoremove) or use a larger SD card")
else
    say "disk: $free_mb MB free on $mount_point"
fi

# A camera. None is no refusal (the demo game runs), but it is said before anything happens.
# (Not looked for when the install is refused anyway.)
camera="" why=""
if [[ -n "$CAMERA" ]]; then
    say "camera: $CAMERA (--camera)"
elif (( python_ok && ! ${#problems[@]} )); then
    { read -r camera; read -r why; } < <(timeout 60 python3 "$HERE/detect-camera.py" --preflight 2>/dev/null) || true
    if [[ -z "$camera" || "$camera" == demo ]]; then
        warn "no camera found (${why:-the camera check did not answer}): going on with the demo game. For a \
camera, connect it (a Pi camera with the power off) and run this again, or give --camera"
    else
        say "camera: $camera ($why)"
    fi
fi

if (( ${#problems[@]} )); then
    for problem in "${problems[@]}"; do printf 'install.sh: %s\n' "$problem" >&2; done
    printf 'install.sh: nothing was changed\n' >&2
    exit 1
fi
need_root

# --- apt packages -----------------------------------------------------------------------------
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
        # The X11 desktop's pointer hider (kiosk-browser starts it there); labwc has a window rule instead.
        if has_candidate unclutter; then packages+=(unclutter); fi
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
if [[ -x "$VENV/bin/python" ]] && grep -qi '^include-system-site-packages *= *true' "$VENV/pyvenv.cfg"; then
    say "venv $VENV exists"
else
    # --clear: a venv made without system site packages cannot see apt's picamera2; remake it.
    run python3 -m venv --system-site-packages --clear "$VENV"
fi
# picamera2 comes from apt (pip cannot build it: it needs the Pi's libcamera), seen through
# --system-site-packages. The second, --no-deps pass replaces the project even when its version
# number did not change (an update from git).
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

# --- the camera stack in the venv -------------------------------------------------------------
# numpy and OpenCV from pip, picamera2 and simplejpeg from apt: imported together, as the service will.
stack_check() { "$VENV/bin/python" "$HERE/detect-camera.py" --stack 2>/dev/null || true; }
if (( DRY_RUN )); then
    printf '+ %q %q --stack   # then, if simplejpeg or picamera2 trips on numpy: pip install %s\n' \
        "$VENV/bin/python" "$HERE/detect-camera.py" "$SIMPLEJPEG_PIN"
else
    stack="$(stack_check)"
    if abi="$(grep -m 1 -E '^broken (simplejpeg|picamera2) numpy-abi' <<<"$stack")"; then
        say "camera stack: $abi"
        say "apt's simplejpeg does not fit the venv's numpy: installing $SIMPLEJPEG_PIN into the venv"
        run "$VENV/bin/pip" install --disable-pip-version-check --quiet --only-binary=:all: --no-deps \
            "$SIMPLEJPEG_PIN"
        stack="$(stack_check)"
    fi
    while read -r line; do [[ -n "$line" ]] && say "camera stack: $line"; done <<<"$stack"
    if grep -qE '^broken (numpy|cv2) ' <<<"$stack"; then
        die "numpy or OpenCV does not import in $VENV (above); the service cannot run. Remove the venv \
(sudo rm -rf $VENV) and run this again"
    fi
    if broken="$(grep -E '^broken ' <<<"$stack")"; then
        warn "${broken#broken }: the Pi camera will not work (usb:N and demo do)"
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
    # The camera: --camera, else asked again now that the venv (and apt's picamera2) is in place.
    if [[ -n "$CAMERA" ]]; then
        camera="$CAMERA" why="given with --camera"
    elif (( ! DRY_RUN )); then
        { read -r camera; read -r why; } < <(timeout 120 "$VENV/bin/python" "$HERE/detect-camera.py" 2>/dev/null) ||
            true
    fi
    [[ -n "$camera" ]] || camera=demo why="${why:-the camera check did not answer}"
    if [[ "$camera" == demo && -z "$CAMERA" ]]; then
        source_lines="$(printf '%s\n' \
            "# No camera was found when this was installed ($why)." \
            '# Connect one, set pi (a Pi camera) or usb:N (/dev/videoN), then: sudo systemctl restart thoughtwave' \
            'source = "demo"')"
        say "camera: demo, as none was found ($why); set [camera] source in $CONFIG once one is connected"
    else
        source_lines="source = \"$camera\""
        say "camera: $camera ($why)"
    fi
    if (( DRY_RUN )); then
        pin="<6 random digits>"
    else
        pin="$(python3 -c 'import secrets; print(f"{secrets.randbelow(10**6):06d}")')"
    fi
    SOURCE_LINES="$source_lines" PIN="$pin" awk '
        $0 == "# source = \"demo\"" { print ENVIRON["SOURCE_LINES"]; next }
        $0 == "# pin = \"123456\"" { print "pin = \"" ENVIRON["PIN"] "\""; next }
        { print }' "$HERE/config.example.toml" | put_file 0640 "root:$SERVICE_USER" "$CONFIG"
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
    put_file 0755 root:root "$PREFIX/kiosk-browser" <"$HERE/kiosk-browser.sh"
    printf 'THOUGHTWAVE_URL=%s\n' "$url" | put_file 0644 root:root "$KIOSK_ENV"

    # The desktop user: the one the desktop logs in automatically, else the one who ran sudo.
    desktop_user=""
    if [[ -f "$DEST/etc/lightdm/lightdm.conf" ]]; then
        desktop_user="$(sed -n 's/^autologin-user=//p' "$DEST/etc/lightdm/lightdm.conf" | tail -n 1)"
    fi
    desktop_user="${desktop_user:-${SUDO_USER:-}}"
    [[ "$desktop_user" == root ]] && desktop_user=""
    # Under --root the user is looked up in that root's passwd.
    user_entry=""
    if [[ -n "$desktop_user" && -n "$DEST" ]]; then
        user_entry="$(grep -m 1 "^$desktop_user:" "$DEST/etc/passwd" 2>/dev/null || true)"
    elif [[ -n "$desktop_user" ]]; then
        user_entry="$(getent passwd "$desktop_user" || true)"
    fi
    if [[ -z "$user_entry" ]]; then
        say "no desktop user known (run this with sudo from the desktop user's account): turn screen blanking \
off in raspi-config, Display Options"
    else
        # Screen blanking off: raspi-config knows each Pi OS desktop (labwc, wayfire, X11).
        if [[ -z "$DEST" ]] && command -v raspi-config >/dev/null; then
            system env SUDO_USER="$desktop_user" raspi-config nonint do_blanking 1 ||
                warn "raspi-config could not turn screen blanking off: raspi-config, Display Options"
            say "screen blanking off for $desktop_user (after the next login)"
        else
            say "no raspi-config: turn screen blanking off in the desktop's settings"
        fi
        # The pointer: a labwc window rule hides it when Chromium opens (X11: kiosk-browser runs unclutter).
        user_home="$(cut -d: -f6 <<<"$user_entry")"
        if [[ -x "$DEST/usr/bin/labwc" && -n "$user_home" ]]; then
            rc="$DEST$user_home/.config/labwc/rc.xml"
            group="$(id -gn "$desktop_user" 2>/dev/null || echo "$desktop_user")"
            if [[ -f "$rc" ]]; then
                base="$rc"
            elif [[ -f "$DEST/etc/xdg/labwc/rc.xml" ]]; then
                base="$DEST/etc/xdg/labwc/rc.xml"    # a user rc.xml replaces the system's: start from it
            else
                base="$(mktemp)"
                printf '<?xml version="1.0"?>\n<labwc_config>\n</labwc_config>\n' >"$base"
            fi
            for d in "$DEST$user_home/.config" "$DEST$user_home/.config/labwc"; do
                if [[ ! -d "$d" ]]; then
                    if [[ -n "$DEST" ]]; then run install -d "$d"; else run install -d -o "$desktop_user" -g "$group" "$d"; fi
                fi
            done
            if updated="$(with_labwc_block "$base")"; then
                printf '%s\n' "$updated" | put_file 0644 "$desktop_user:$group" "$rc"
            else
                warn "$base has no </labwc_config>: the pointer stays visible (move it to a screen edge)"
            fi
        fi
    fi
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
