#!/usr/bin/env bash
# Starts PostgreSQL with DocumentDB and FerretDB 2.5 in front of it, both on loopback, for a run of the suite
# against a supported engine other than the emulator (docs/engines.md, "FerretDB 2.5 on DocumentDB").
# Usage: start.sh [data-dir] ; then MONGODB_URL=mongodb://127.0.0.1:${FERRETDB_PORT:-27017}/ ; stop.sh [data-dir]
set -euo pipefail
data=${1:-/tmp/checkout-ferretdb25}
pg_port=${PG_PORT:-54329}
port=${FERRETDB_PORT:-27017}
pgbin=$(pg_config --bindir)
ferretdb=${FERRETDB_BIN:-$HOME/.cache/checkout-engines/ferretdb-2.5.0/bin/ferretdb}
as_postgres() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

mkdir -p "$data"
if [ ! -f "$data/pg/PG_VERSION" ]; then
  [ "$(id -u)" = 0 ] && chown postgres "$data"
  as_postgres "$pgbin/initdb" -D "$data/pg" -U postgres --auth=trust --no-sync > "$data/initdb.log"
  # FerretDB's own PostgreSQL image's settings (its installation guide for Debian packages).
  cat >> "$data/pg/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = '$data'
shared_preload_libraries = 'pg_cron,pg_documentdb_core,pg_documentdb'
cron.database_name = 'postgres'
documentdb.enableCompact = true
documentdb.enableLetAndCollationForQueryMatch = true
documentdb.enableNowSystemVariable = true
documentdb.enableSortbyIdPushDownToPrimaryKey = true
documentdb.enableSchemaValidation = true
documentdb.enableBypassDocumentValidation = true
documentdb.enableUserCrud = true
documentdb.maxUserLimit = 100
max_connections = 300
CONF
fi
as_postgres "$pgbin/pg_ctl" -D "$data/pg" -l "$data/postgresql.log" -w start > /dev/null
as_postgres "$pgbin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres -q \
  -c 'CREATE EXTENSION IF NOT EXISTS documentdb CASCADE' > /dev/null
nohup "$ferretdb" --no-auth --telemetry=disable --state-dir="$data" --debug-addr=- --listen-addr="127.0.0.1:$port" \
  --postgresql-url="postgres://postgres@127.0.0.1:$pg_port/postgres" > "$data/ferretdb.log" 2>&1 &
echo $! > "$data/ferretdb.pid"
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then echo "MONGODB_URL=mongodb://127.0.0.1:$port/"; exit 0; fi
  sleep 0.1
done
echo "FerretDB did not listen on $port; see $data/ferretdb.log" >&2
exit 1
