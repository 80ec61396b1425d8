#!/usr/bin/env bash
# Watchdog for an engine process: runs <command> and makes sure it does not outlive <parentPid>.
# Node cannot clean up its children when it is SIGKILLed (or crashes hard), so without this a killed test
# run would leave a JVM and a FerretDB holding ports and memory until someone notices.
#
# usage: guard.sh <parentPid> -- <command> [args...]
# - parent gone       -> TERM the command, KILL it if it is still alive ~10 s later
# - TERM/INT/HUP here -> forwarded to the command as TERM (same escalation)
# - exits with the command's exit status
set -u

if [ $# -lt 3 ] || [ "$2" != "--" ]; then
  echo "usage: guard.sh <parentPid> -- <command> [args...]" >&2
  exit 64
fi
parent=$1
shift 2

# Our own parent pid from /proc (Linux), empty elsewhere.
current_ppid() {
  local stat fields
  read -r stat 2>/dev/null < /proc/$$/stat || return 0
  read -r -a fields <<< "${stat##*) }" # after "pid (comm) ": state ppid ...
  echo "${fields[1]}"
}
# When <parentPid> is our direct parent, being re-parented (to init or a subreaper) also means it died: that
# catches a dead parent lingering as an unreaped zombie, which still answers `kill -0`.
direct_parent=""
[ "$(current_ppid)" = "$parent" ] && direct_parent=1
parent_alive() {
  kill -0 "$parent" 2>/dev/null || return 1
  if [ -n "$direct_parent" ] && [ "$(current_ppid)" != "$parent" ]; then return 1; fi
  return 0
}

child=""
stop_requested_at=""
request_stop() {
  if [ -z "$stop_requested_at" ]; then
    stop_requested_at=$SECONDS
    if [ -n "$child" ]; then kill -TERM "$child" 2>/dev/null; fi
  fi
}
# Trap before starting the command: a TERM arriving in between would otherwise kill only this script and
# orphan the command.
trap request_stop TERM INT HUP

"$@" &
child=$!
if [ -n "$stop_requested_at" ]; then kill -TERM "$child" 2>/dev/null; fi

# bash reaps the background child as soon as it exits, so `kill -0` stops succeeding then (no zombie).
while kill -0 "$child" 2>/dev/null; do
  if [ -z "$stop_requested_at" ] && ! parent_alive; then
    request_stop
  fi
  if [ -n "$stop_requested_at" ] && [ $((SECONDS - stop_requested_at)) -ge 10 ]; then
    kill -KILL "$child" 2>/dev/null
  fi
  # A foreground `sleep` would hold off the trap until it finishes; `wait` returns as soon as a signal arrives.
  sleep 0.5 &
  wait $! 2>/dev/null
done

wait "$child"
exit $?
