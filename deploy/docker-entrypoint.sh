#!/bin/sh
# Runs one of the bundles in /app/dist: the first argument when it names one (a service or a job), else $SERVICE.
# exec: node becomes PID 1 and receives SIGTERM itself (each service stops gracefully on it).
set -eu
NAME="${SERVICE:-}"
if [ "$#" -gt 0 ] && [ -f "/app/dist/$1.mjs" ]; then
  NAME="$1"
  shift
fi
if [ -z "$NAME" ] || [ ! -f "/app/dist/$NAME.mjs" ]; then
  echo "checkout-entrypoint: set SERVICE (or pass a first argument) to one of:" $(cd /app/dist && ls *.mjs | sed 's/\.mjs$//') >&2
  exit 64
fi
exec node --enable-source-maps "/app/dist/$NAME.mjs" "$@"
