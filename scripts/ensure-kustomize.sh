#!/usr/bin/env bash
# Idempotent: makes sure kustomize is installed in the project's tool cache (outside the checkout) and prints
# the path of the binary on stdout (nothing else goes to stdout). Built from source with `go install` through
# the Go module proxy, the only place it is fetched from. Override the version with KUSTOMIZE_VERSION.
set -euo pipefail

# v5.8.2: the newest release whose go.mod accepts Go 1.26 (v5.8.3 needs Go >= 1.27 with GOTOOLCHAIN=local).
VERSION="${KUSTOMIZE_VERSION:-v5.8.2}"
CACHE_ROOT="${XDG_CACHE_HOME:-$HOME/.cache}/checkout-tools"
DIR="$CACHE_ROOT/kustomize-$VERSION"
BIN="$DIR/kustomize"

if [[ -x "$BIN" ]] && "$BIN" version >/dev/null 2>&1; then
  echo "$BIN"
  exit 0
fi

if ! command -v go >/dev/null 2>&1; then
  echo "ensure-kustomize: 'go' is not on PATH; install Go (1.22+) or put kustomize $VERSION at $BIN" >&2
  exit 1
fi

mkdir -p "$DIR"
# Several test workers may race here: build into a private directory, then move into place atomically.
TMP="$(mktemp -d "$DIR/.build.XXXXXX")"
trap 'rm -rf "$TMP"' EXIT
echo "ensure-kustomize: go install sigs.k8s.io/kustomize/kustomize/v5@$VERSION (first run only)" >&2
GOBIN="$TMP" GOFLAGS="${GOFLAGS:-} -buildvcs=false" go install "sigs.k8s.io/kustomize/kustomize/v5@$VERSION" >&2
mv -f "$TMP/kustomize" "$BIN"
"$BIN" version >/dev/null
echo "$BIN"
