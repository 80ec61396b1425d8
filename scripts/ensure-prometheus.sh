#!/usr/bin/env bash
# Makes sure Prometheus and promtool exist: the local stack's metrics store (`npm start -- --observability`) and
# the alert-rule tests (`promtool test rules`, deploy/observability/rules.test.ts). Idempotent: does nothing when
# promtool (or $PROMTOOL_PATH) is already there; otherwise installs Debian's package, which brings both.
set -euo pipefail
source "$(dirname "$0")/lib/ensure-debian-package.sh"

locate_promtool() { echo "${PROMTOOL_PATH:-$(command -v promtool || echo /usr/bin/promtool)}"; }
ensure_debian_package promtool prometheus locate_promtool 'install Prometheus 2.x (it brings promtool) and set PROMTOOL_PATH'
