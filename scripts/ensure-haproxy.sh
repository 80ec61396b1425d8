#!/usr/bin/env bash
# Makes sure an HAProxy binary exists for the local cluster (`npm start -- --replicas N`, the rollout soak):
# the load balancer in front of each service's replicas, as a Kubernetes Service is in production (issue 21).
# Idempotent: does nothing when haproxy (or $HAPROXY_PATH) is already there; otherwise installs Debian's
# package with apt-get, like scripts/ensure-chromium.sh. Needs root (CI images run as root).
set -euo pipefail

HAPROXY_PATH="${HAPROXY_PATH:-$(command -v haproxy || echo /usr/sbin/haproxy)}"

if [ -x "$HAPROXY_PATH" ]; then
  echo "haproxy: present at $HAPROXY_PATH"
  exit 0
fi

if ! command -v apt-get >/dev/null 2>&1; then
  echo "haproxy: missing and apt-get is not available; install HAProxy 2.x and set HAPROXY_PATH" >&2
  exit 1
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# Another install (Chromium's, say) may hold the dpkg lock for minutes: wait for it (up to 15 minutes) rather
# than fail. DPkg::Lock::Timeout makes apt-get itself wait; the loop covers `apt-get update`'s lists lock too.
apt_retry() {
  local attempt
  for attempt in $(seq 1 30); do
    if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=30 "$@"; then return 0; fi
    echo "haproxy: apt-get $1 failed (attempt $attempt of 30; the package database may be locked by another install); retrying in 30 s" >&2
    sleep 30
  done
  return 1
}

echo "haproxy: installing with apt-get"
apt_retry update
apt_retry install -y --no-install-recommends haproxy

HAPROXY_PATH="$(command -v haproxy || echo /usr/sbin/haproxy)"
if [ ! -x "$HAPROXY_PATH" ]; then
  echo "haproxy: installed, but no haproxy binary is on PATH" >&2
  exit 1
fi
echo "haproxy: installed at $HAPROXY_PATH ($("$HAPROXY_PATH" -v | head -1))"
