#!/bin/sh
# Runs one of the bundles in /app/dist: the first argument when it names one (a service or a job), else $SERVICE.
# exec: node becomes PID 1 and receives SIGTERM itself (each service stops gracefully on it).
# CHECKOUT_ENV_FILE: settings read from a file before start (the laptop compose stack's generated secrets);
# variables already in the environment win.
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
if [ -n "${CHECKOUT_ENV_FILE:-}" ]; then
  if [ ! -r "$CHECKOUT_ENV_FILE" ]; then
    echo "checkout-entrypoint: CHECKOUT_ENV_FILE=$CHECKOUT_ENV_FILE is not readable" >&2
    exit 66
  fi
  while IFS= read -r line || [ -n "$line" ]; do
    case "$line" in ''|'#'*) continue ;; esac
    key="${line%%=*}"
    # Only names that are not set already: the container's own environment wins over the file.
    if [ -z "$(printenv "$key" 2>/dev/null || true)" ]; then export "$line"; fi
  done < "$CHECKOUT_ENV_FILE"
fi
exec node --enable-source-maps "/app/dist/$NAME.mjs" "$@"
