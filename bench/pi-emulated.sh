#!/usr/bin/env bash
# The Pi install, tried on emulated Raspberry Pi OS systems: arm64 Debian Bookworm and Trixie roots run
# under qemu-user as a Pi 4's CPU (QEMU_CPU=cortex-a72: qemu's default CPU has SVE, which no Pi has).
#
#   sudo bash bench/pi-emulated.sh                 both releases, then the refusals (~12 min; +15 the first time)
#   sudo bash bench/pi-emulated.sh bookworm        one release (bookworm, trixie) or: refuse
#
# For each release, as a new user would, following the README's "Run it on a Raspberry Pi":
#   1. a minimal root (debootstrap --variant=minbase plus python3, sudo, curl, like Pi OS Lite: no git),
#      cached in $PI_ROOTS (default /work/pi-roots) and copied afresh for every run;
#   2. `apt install -y git`, `git clone` of this checkout (a bundle of HEAD), the installer's dry run,
#      then the installer itself, with systemctl stubbed (the stub starts the service's ExecStart in the
#      background, so "is it running" is a real answer) and the device-tree model of a Pi 4;
#      on Bookworm, Pi OS's apt simplejpeg (built for numpy 1) is stood in by simplejpeg 1.7.2's wheel
#      in dist-packages, so the installer meets the numpy ABI break Pi users hit;
#   3. `thoughtwave print-kit`, `recognize` on a photo composed from the kit's PNGs (two tiles laid on
#      the board), `referee --moves`, and the display's page from the running service.
# Then `refuse`: a fresh Bookworm root faking 32-bit Pi OS (dpkg says armhf, uname says armv7l), then an
# old Python (3.9.2), each time checking that the installer refused and not one file in the root changed.
#
# Not part of `make test`: it needs root, network (Debian, PyPI) and time. Needs debootstrap and
# qemu-user-static (apt-get install debootstrap qemu-user-static binfmt-support).
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SOURCE="$(dirname "$HERE")"
ROOTS="${PI_ROOTS:-/work/pi-roots}"
MIRROR="${PI_MIRROR:-http://deb.debian.org/debian}"
MODEL="Raspberry Pi 4 Model B Rev 1.5"
LOGIN=alice                    # the user Raspberry Pi Imager asks for (there is no "pi" by default)
export QEMU_CPU=cortex-a72

say() { printf '\n### %s: %s\n' "$(date +%H:%M:%S)" "$*"; }
die() { printf 'pi-emulated.sh: %s\n' "$*" >&2; exit 1; }

[[ "$(id -u)" == 0 ]] || die "run it as root (debootstrap and chroot): sudo bash $0 $*"
for tool in debootstrap qemu-aarch64-static; do
    command -v "$tool" >/dev/null || die "$tool is missing: apt-get install debootstrap qemu-user-static binfmt-support"
done

# chroot runs the root's aarch64 binaries through binfmt_misc; the F flag lets it find qemu from inside.
ensure_binfmt() {
    [[ -e /proc/sys/fs/binfmt_misc/register ]] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
        command -v update-binfmts >/dev/null || die "no qemu-aarch64 binfmt handler: apt-get install binfmt-support"
        update-binfmts --enable qemu-aarch64
    fi
    grep -q '^flags: .*F' /proc/sys/fs/binfmt_misc/qemu-aarch64 || die "the qemu-aarch64 binfmt handler lacks the F flag"
}

# base RELEASE: the cached minimal root, made once.
base() {
    local release=$1 dir="$ROOTS/base-$1"
    [[ -e "$dir/.complete" ]] && return
    say "$release: debootstrap arm64 into $dir"
    rm -rf "$dir"
    mkdir -p "$ROOTS"
    debootstrap --arch=arm64 --variant=minbase --include=python3,ca-certificates,sudo,curl,procps,locales \
        "$release" "$dir" "$MIRROR"
    # Pi OS's sources: main plus updates and security, as on a real card.
    local security="http://deb.debian.org/debian-security"
    printf 'deb %s %s main\ndeb %s %s-updates main\ndeb %s %s-security main\n' \
        "$MIRROR" "$release" "$MIRROR" "$release" "$security" "$release" >"$dir/etc/apt/sources.list"
    touch "$dir/.complete"
}

MOUNTED=()
enter() {   # enter ROOT: mount what a running system has (not /sys: this root has no camera)
    local root=$1 ca
    mount -t proc proc "$root/proc"
    mount --bind /dev "$root/dev"
    mount -t devpts devpts "$root/dev/pts" 2>/dev/null || true
    MOUNTED+=("$root/dev/pts" "$root/dev" "$root/proc")
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    # A host behind a TLS-inspecting proxy trusts a local CA: the root must too, apt and pip alike
    # (pip keeps its own CA list unless told to use the system's).
    if compgen -G "/usr/local/share/ca-certificates/*.crt" >/dev/null; then
        for ca in /usr/local/share/ca-certificates/*.crt; do cp "$ca" "$root/usr/local/share/ca-certificates/"; done
        in_root "$root" update-ca-certificates >/dev/null 2>&1
        printf '[global]\ncert = /etc/ssl/certs/ca-certificates.crt\n' >"$root/etc/pip.conf"
        echo "(the host's local CAs are trusted in the root:" /usr/local/share/ca-certificates/*.crt ")"
    fi
}
leave() {
    local m
    for m in "${MOUNTED[@]}"; do umount -l "$m" 2>/dev/null || true; done
    MOUNTED=()
}
# shellcheck disable=SC2317  # run by the EXIT trap
cleanup() {
    local pidfile
    for pidfile in "$ROOTS"/run-*/run/thoughtwave-bench.pid; do
        if [[ -f "$pidfile" ]]; then kill "$(cat "$pidfile")" 2>/dev/null || true; fi
    done
    leave
}
trap cleanup EXIT

# fresh RELEASE NAME: a working copy of the base root.
fresh() {
    local root="$ROOTS/run-$2"
    rm -rf "$root"
    cp -a "$ROOTS/base-$1" "$root"
    rm -f "$root/.complete"
    echo "$root"
}

in_root() {   # in_root ROOT COMMAND...: as root inside, with a login-like environment
    local root=$1
    shift
    chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root LANG=C.UTF-8 QEMU_CPU="$QEMU_CPU" THOUGHTWAVE_MODEL_FILE=/etc/bench-model "$@"
}

# A systemctl for a root without systemd: logs each call; restart runs the unit's ExecStart as its user
# with the environment systemd would give it, so is-active answers whether the service really stays up.
write_systemctl_stub() {
    cat >"$1/usr/local/bin/systemctl" <<'EOF'
#!/bin/sh
echo "systemctl $*" >> /var/log/systemctl-stub.log
pidfile=/run/thoughtwave-bench.pid
case "$1 $2" in
    "restart thoughtwave.service"|"start thoughtwave.service")
        [ -f $pidfile ] && kill "$(cat $pidfile)" 2>/dev/null
        install -d -o thoughtwave -g thoughtwave -m 0750 /var/lib/thoughtwave
        exec_start=$(sed -n 's/^ExecStart=//p' /etc/systemd/system/thoughtwave.service)
        cd /var/lib/thoughtwave
        setsid runuser -u thoughtwave -- env STATE_DIRECTORY=/var/lib/thoughtwave PYTHONUNBUFFERED=1 \
            $exec_start > /var/log/thoughtwave.log 2>&1 &
        echo $! > $pidfile ;;
    "is-active --quiet"|"is-active thoughtwave.service")
        [ -f $pidfile ] && kill -0 "$(cat $pidfile)" 2>/dev/null; exit $? ;;
esac
exit 0
EOF
    chmod 0755 "$1/usr/local/bin/systemctl"
}

# The kit's PNGs laid out as a photo: two tiles on the board at the cells board.json's geometry gives.
COMPOSE='import json, sys
from pathlib import Path
import cv2
kit = Path(sys.argv[1])
meta = json.loads((kit / "board.json").read_text())
board = cv2.imread(str(kit / "board.png"))
cell, (ox, oy) = meta["cell_px"], meta["grid_origin_px"]
for spec in sys.argv[3:]:
    name, at = spec.split("@")
    col, row = ord(at[0]) - ord("A"), int(at[1:]) - 1
    tile = cv2.imread(str(kit / f"tile-{name}.png"))
    h, w = tile.shape[:2]
    x, y = round(ox + (col + 0.5) * cell - w / 2), round(oy + (row + 0.5) * cell - h / 2)
    board[y:y + h, x:x + w] = tile
cv2.imwrite(sys.argv[2], board)'

bundle_of_checkout() {   # the checkout as `git clone` would get it: HEAD, committed work only
    local out=$1
    git -C "$SOURCE" diff --quiet HEAD -- systemd pyproject.toml ||
        echo "note: uncommitted changes in systemd/ or pyproject.toml are not in the clone" >&2
    git -C "$SOURCE" bundle create "$out" HEAD 2>/dev/null
}

install_release() {
    local release=$1 root started
    started=$(date +%s)
    base "$release" 2>/dev/null
    root="$(fresh "$release" "$release")"
    enter "$root"
    printf '%s\0' "$MODEL" >"$root/etc/bench-model"
    write_systemctl_stub "$root"
    in_root "$root" useradd --create-home --shell /bin/bash --groups sudo "$LOGIN"
    bundle_of_checkout "$root/tmp/thoughtwave.bundle"
    # shellcheck disable=SC2016  # $PRETTY_NAME is the root's, read inside it
    say "$release: $(in_root "$root" sh -c '. /etc/os-release; echo "$PRETTY_NAME"'), \
$(in_root "$root" dpkg --print-architecture), $(in_root "$root" uname -m), $(in_root "$root" python3 --version)"

    if [[ "$release" == bookworm ]]; then
        # Pi OS Bookworm ships numpy 1.24 and a simplejpeg built against it (python3-simplejpeg, from the
        # Raspberry Pi archive, which is not reachable from here): simplejpeg 1.7.2's wheel was built
        # against numpy 1 too, so it stands in for it in dist-packages.
        say "$release: standing in for Pi OS's apt simplejpeg (numpy 1 ABI)"
        in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q python3-numpy >/dev/null
        local wheels
        wheels="$(mktemp -d)"
        "$SOURCE/.venv/bin/pip" download --quiet --no-deps --only-binary=:all: --platform manylinux2014_aarch64 \
            --python-version 311 --implementation cp simplejpeg==1.7.2 -d "$wheels" 2>/dev/null
        (cd "$root/usr/lib/python3/dist-packages" && python3 -m zipfile -e "$wheels"/simplejpeg-*.whl .)
        rm -rf "$wheels"
        in_root "$root" python3 -c 'import simplejpeg, numpy; print("system python: simplejpeg", simplejpeg.__version__, "numpy", numpy.__version__)'
    fi

    say "$release: the README's steps, as $LOGIN"
    in_root "$root" sh -c 'apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q git >/dev/null'
    in_root "$root" runuser -u "$LOGIN" -- sh -c "cd ~ && git -c advice.detachedHead=false -c init.defaultBranch=main clone -q /tmp/thoughtwave.bundle thoughtwave \
        && git -C thoughtwave log --oneline -1"
    say "$release: bash systemd/install.sh --dry-run (as $LOGIN, no sudo)"
    in_root "$root" runuser -u "$LOGIN" -- sh -c "cd ~/thoughtwave && bash systemd/install.sh --dry-run" \
        | grep -E '^(==>|install.sh|warning)' || true
    say "$release: sudo bash systemd/install.sh"
    local log="$root/var/log/install.log" status=0
    in_root "$root" sh -c "cd /home/$LOGIN/thoughtwave && bash systemd/install.sh" >"$log" 2>&1 || status=$?
    cat "$log"
    (( status == 0 )) || die "$release: the installer failed (exit $status)"
    if grep -qiE 'unsupported|made for|not a release' "$log"; then
        die "$release: the installer calls this release unsupported"
    fi
    say "$release: installed in $(( $(date +%s) - started )) s; venv $(du -sm "$root/opt/thoughtwave/venv" | cut -f1) MB"
    grep -E '^(source|pin) = |^# No camera' "$root/etc/thoughtwave/config.toml" | sed 's/^pin = .*/pin = (6 digits)/'
    # What the emulated CPU offers numpy: a Pi 4's Cortex-A72 has NEON/ASIMD, no SVE.
    in_root "$root" /opt/thoughtwave/venv/bin/python -c 'import numpy
from numpy._core._multiarray_umath import __cpu_features__ as f
print("numpy", numpy.__version__, "CPU features:", " ".join(k for k in sorted(f) if f[k]))'
    printf 'systemctl calls: '; paste -sd';' "$root/var/log/systemctl-stub.log"

    say "$release: print-kit, recognize, referee (as $LOGIN, the installed thoughtwave)"
    local tw=/opt/thoughtwave/venv/bin/thoughtwave py=/opt/thoughtwave/venv/bin/python
    in_root "$root" runuser -u "$LOGIN" -- sh -c "cd ~ && $tw print-kit --png kit --dpi 100 && \
        $tw print-kit --out kit.pdf --paper a4 && ls -s kit.pdf && $py -c '$COMPOSE' kit photo.png red-ew@E5 black-ns@F6 && \
        $tw recognize photo.png && printf 'ew@E5\nns@F5\nns@E6\n' > moves.txt && $tw referee --moves moves.txt"
    say "$release: the service the stub started"
    local page=""
    for _ in $(seq 60); do
        page="$(in_root "$root" curl -s --max-time 5 http://127.0.0.1:8080/ || true)"
        [[ -n "$page" ]] && break
        sleep 2
    done
    [[ -n "$page" ]] || { tail -20 "$root/var/log/thoughtwave.log"; die "$release: the display never answered"; }
    printf 'GET / -> %s bytes, title: %s\n' "${#page}" "$(grep -o '<title>[^<]*' <<<"$page" | head -1 | cut -c8-)"
    head -5 "$root/var/log/thoughtwave.log"
    kill "$(cat "$root/run/thoughtwave-bench.pid")" 2>/dev/null || true
    rm -f "$root/run/thoughtwave-bench.pid"
    leave
    say "$release: done in $(( $(date +%s) - started )) s"
}

# snapshot ROOT: every path with its type, mode, size and times; /proc, /dev and /tmp aside.
snapshot() {
    (cd "$1" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp \) -prune -o \
        -printf '%p %y %m %s %T@ %C@\n' | sort)
}

refuse() {
    local root case status
    base bookworm 2>/dev/null
    root="$(fresh bookworm refuse)"
    printf '%s\0' "$MODEL" >"$root/etc/bench-model"
    bundle_of_checkout "$root/tmp/thoughtwave.bundle"
    enter "$root"
    in_root "$root" sh -c 'git --version >/dev/null 2>&1 || { apt-get update -q >/dev/null &&
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q git >/dev/null; }'
    in_root "$root" git -c advice.detachedHead=false -c init.defaultBranch=main clone -q /tmp/thoughtwave.bundle /root/thoughtwave
    mkdir -p "$root/tmp/armhf" "$root/tmp/oldpython"
    # 32-bit Pi OS on a Pi 4: the kernel is 64-bit (uname -m says aarch64) but dpkg's userland is armhf;
    # on a Pi 2/3 uname says armv7l. Both are faked here, dpkg being what the installer goes by.
    cat >"$root/tmp/armhf/dpkg" <<'EOF'
#!/bin/sh
[ "$1" = --print-architecture ] && { echo armhf; exit 0; }
exec /usr/bin/dpkg "$@"
EOF
    cat >"$root/tmp/armhf/uname" <<'EOF'
#!/bin/sh
[ "$1" = -m ] && { echo armv7l; exit 0; }
exec /usr/bin/uname "$@"
EOF
    # Raspberry Pi OS Bullseye's Python.
    cat >"$root/tmp/oldpython/python3" <<'EOF'
#!/bin/sh
case "$*" in
    *version_info*) echo 3.9.2 ;;
    --version) echo "Python 3.9.2" ;;
    *) exec /usr/bin/python3 "$@" ;;
esac
EOF
    chmod 0755 "$root"/tmp/armhf/* "$root"/tmp/oldpython/*
    for case in armhf oldpython; do
        say "refuse: $case: sudo bash systemd/install.sh"
        snapshot "$root" >"$ROOTS/refuse-before.txt"
        status=0
        chroot "$root" /usr/bin/env -i PATH="/tmp/$case:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
            HOME=/root LANG=C.UTF-8 QEMU_CPU="$QEMU_CPU" THOUGHTWAVE_MODEL_FILE=/etc/bench-model \
            bash -c 'cd /root/thoughtwave && bash systemd/install.sh' || status=$?
        snapshot "$root" >"$ROOTS/refuse-after.txt"
        echo "exit status: $status"
        (( status != 0 )) || die "refuse: $case: the installer did not refuse"
        if ! diff "$ROOTS/refuse-before.txt" "$ROOTS/refuse-after.txt"; then
            die "refuse: $case: the installer changed the root before refusing"
        fi
        echo "files changed in the root: none ($(wc -l <"$ROOTS/refuse-after.txt") paths compared)"
        in_root "$root" sh -c 'getent passwd thoughtwave || echo "user thoughtwave: absent"; ls -d /opt/thoughtwave 2>/dev/null || echo "/opt/thoughtwave: absent"'
    done
    leave
}

main() {
    ensure_binfmt
    say "host: $(uname -m), $(qemu-aarch64-static --version | head -1), QEMU_CPU=$QEMU_CPU; checkout $(git -C "$SOURCE" log --oneline -1)"
    targets=("$@")
    (( ${#targets[@]} )) || targets=(bookworm trixie refuse)
    for target in "${targets[@]}"; do
        case "$target" in
            bookworm|trixie) install_release "$target" ;;
            refuse) refuse ;;
            roots) base bookworm; base trixie ;;
            *) die "unknown target $target (bookworm, trixie, refuse, roots)" ;;
        esac
    done
    say "all done"
}

# In a function, so bash has read the whole script before running any of it (an edit made while it
# runs cannot derail it).
main "$@"
exit
