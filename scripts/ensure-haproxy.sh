#!/usr/bin/env bash
# Makes sure an HAProxy binary exists for the local cluster (`npm start -- --replicas N`, the rollout soak):
# the load balancer in front of each service's replicas, as a Kubernetes Service is in production.
# Idempotent: does nothing when haproxy (or $HAPROXY_PATH) is already there; otherwise installs Debian's package.
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"

locate_haproxy() { echo "${HAPROXY_PATH:-$(command -v haproxy || echo /usr/sbin/haproxy)}"; }
ensure_debian_package haproxy haproxy locate_haproxy 'install HAProxy 2.x and set HAPROXY_PATH'
