#!/usr/bin/env bash
# Stops what start.sh started; the data directory stays for the next start.
set -uo pipefail
data=${1:-/tmp/checkout-ferretdb25}
[ -f "$data/ferretdb.pid" ] && kill "$(cat "$data/ferretdb.pid")" 2>/dev/null
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
as_postgres "$(pg_config --bindir)/pg_ctl" -D "$data/pg" -m fast -w stop > /dev/null
