# Sourced by scripts/ensure-*.sh: makes sure a binary a command needs exists, installing its Debian package with
# apt-get when it does not (nothing installed by hand survives to the next machine). Needs root or sudo.
#   ensure_debian_package <label> <package> <locate> <hint> [<test>]
# <locate> is a function that prints where the binary is (or would be); it runs again after the install. <test> is
# how that path counts as there: `-x` (an executable, the default) or `-f` (a file, such as a font).
# Prints "<label>: present at <path>" or "<label>: installed at <path>" last (scripts/lib/haproxy.ts reads it).

# Another install (Chromium's and HAProxy's can run at once) may hold the dpkg lock for minutes: wait for it (up
# to 15 minutes) rather than fail. DPkg::Lock::Timeout makes apt-get itself wait; the loop covers
# `apt-get update`'s lists lock too.
apt_retry() {
  local label="$1" attempt
  shift
  for attempt in $(seq 1 30); do
    if $SUDO env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=30 "$@"; then return 0; fi
    echo "$label: apt-get $1 failed (attempt $attempt of 30; the package database may be locked by another install); retrying in 30 s" >&2
    sleep 30
  done
  return 1
}

ensure_debian_package() {
  local label="$1" package="$2" locate="$3" hint="$4" test="${5:--x}" path
  path="$("$locate")"
  if [ "$test" "$path" ]; then
    echo "$label: present at $path"
    return 0
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "$label: missing at $path and apt-get is not available; $hint" >&2
    return 1
  fi
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "$label: installing with apt-get"
  apt_retry "$label" update
  apt_retry "$label" install -y --no-install-recommends "$package"
  path="$("$locate")"
  if [ ! "$test" "$path" ]; then
    echo "$label: installed, but $path does not exist" >&2
    return 1
  fi
  echo "$label: installed at $path"
}
