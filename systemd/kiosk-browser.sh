#!/bin/sh
# The display full screen: thoughtwave-kiosk.service's ExecStart, run in the desktop user's session
# (installed as /opt/thoughtwave/kiosk-browser). systemd restarts it whenever Chromium exits or crashes.
#
# Wayland (labwc on Trixie and on Bookworm since late 2024): install.sh turned screen blanking off
# (raspi-config) and added a labwc window rule that hides the pointer when Chromium opens.
# X11 (the older Bookworm desktop): this script turns blanking off and hides an idle pointer itself.
set -u

url="${THOUGHTWAVE_URL:-http://127.0.0.1:8080/}"
profile="${HOME}/.local/share/thoughtwave-kiosk"

if [ -z "${WAYLAND_DISPLAY:-}" ] && [ -n "${DISPLAY:-}" ]; then
    command -v xset >/dev/null && xset s off -dpms s noblank
    # A child of this service: it goes when the service stops.
    command -v unclutter >/dev/null && unclutter -idle 1 -root &
fi

# After a crash Chromium would offer to restore the last session over the board: mark its last exit
# clean. (The "Restore pages?" bubble reads these two entries of the profile's Preferences.)
prefs="$profile/Default/Preferences"
if [ -f "$prefs" ]; then
    sed -i -e 's/"exited_cleanly":false/"exited_cleanly":true/' \
        -e 's/"exit_type":"[A-Za-z]*"/"exit_type":"Normal"/' "$prefs"
fi

# chromium-browser on Raspberry Pi OS Bookworm, chromium on Trixie and Debian.
browser="$(command -v chromium-browser || command -v chromium)" || {
    echo "kiosk-browser: neither chromium-browser nor chromium is installed" >&2
    exit 1
}
# --password-store=basic: no keyring prompt over the board; --autoplay-policy: speech without a tap.
exec "$browser" --kiosk --noerrdialogs --disable-infobars --no-first-run --disable-session-crashed-bubble \
    --password-store=basic --disable-features=Translate --check-for-update-interval=31536000 \
    --autoplay-policy=no-user-gesture-required --ozone-platform-hint=auto \
    --user-data-dir="$profile" "$url"
