#!/usr/bin/env bash
# Makes sure a Chromium binary exists for the hosted-page browser tests (playwright-core drives it), with a font
# for the page's Japanese and Chinese.
# Idempotent: does nothing when /usr/bin/chromium (or $CHROMIUM_PATH) is already there; otherwise installs
# Debian's package.
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"

locate_chromium() { echo "${CHROMIUM_PATH:-/usr/bin/chromium}"; }
ensure_debian_package chromium chromium locate_chromium 'install Chromium and set CHROMIUM_PATH'

# Chromium draws Japanese and Chinese only with a font that has their characters; without one the hosted page's
# ja and zh-Hans pages (and their screenshots in docs/hosted-page-screenshots/) show boxes. Debian's small
# fallback font covers both.
locate_cjk_font() { echo /usr/share/fonts/truetype/droid/DroidSansFallbackFull.ttf; }
ensure_debian_package 'CJK font' fonts-droid-fallback locate_cjk_font 'install fonts-droid-fallback' -f
