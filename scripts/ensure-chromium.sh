#!/usr/bin/env bash
# Makes sure a Chromium binary exists for the hosted-page browser tests (playwright-core drives it).
# Idempotent: does nothing when /usr/bin/chromium (or $CHROMIUM_PATH) is already there; otherwise installs
# Debian's package.
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"

locate_chromium() { echo "${CHROMIUM_PATH:-/usr/bin/chromium}"; }
ensure_debian_package chromium chromium locate_chromium 'install Chromium and set CHROMIUM_PATH'
