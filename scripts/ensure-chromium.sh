#!/usr/bin/env bash
# Makes sure a Chromium binary exists for the hosted-page browser tests (playwright-core drives it).
# Idempotent: does nothing when /usr/bin/chromium (or $CHROMIUM_PATH) is already there; otherwise installs
# the distribution package with apt-get. Needs root (CI images run as root).
set -euo pipefail

CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"

if [ -x "$CHROMIUM_PATH" ]; then
  echo "chromium: present at $CHROMIUM_PATH"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "chromium: missing at $CHROMIUM_PATH and apt-get is not available; install Chromium and set CHROMIUM_PATH" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

echo "chromium: installing with apt-get"
$SUDO apt-get update
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y --no-install-recommends chromium

if [ ! -x "$CHROMIUM_PATH" ]; then
  echo "chromium: installed, but $CHROMIUM_PATH does not exist" >&2
  exit 1
fi
echo "chromium: installed at $CHROMIUM_PATH"
