#!/usr/bin/env bash
# Builds the one image (deploy/Dockerfile) and smoke-tests it: every bundle loads with the production
# node_modules and stops on its configuration check, the process is not root, and no dev tooling shipped.
# Needs a Docker engine (`docker info` must succeed); `npm test` does not run this (no engine in CI).
#   deploy/scripts/build-image.sh [tag]          default tag: checkout:dev
set -euo pipefail
cd "$(dirname "$0")/../.."
TAG="${1:-checkout:dev}"

if ! docker info >/dev/null 2>&1; then
  echo "build-image: no Docker engine reachable (docker info failed); nothing built." >&2
  exit 2
fi

# The bundles report this commit and its version from releases.json (libs/config build-info.ts); a tree with
# uncommitted changes still reports the commit's version, so build release images from a clean checkout.
COMMIT="$(git rev-parse HEAD 2>/dev/null || true)"
DOCKER_BUILDKIT=1 docker build -f deploy/Dockerfile --build-arg "BUILD_COMMIT=$COMMIT" -t "$TAG" .

fail() { echo "build-image: FAILED: $*" >&2; exit 1; }

for name in gateway orders sessions webhook-dispatcher create-topics replay-dead-letter; do
  set +e
  out="$(docker run --rm --network none "$TAG" "$name" 2>&1)"
  code=$?
  set -e
  [[ $code -eq 1 ]] || fail "$name exited $code (expected 1: invalid configuration)\n$out"
  grep -q "invalid configuration" <<<"$out" || fail "$name did not report its configuration problem:\n$out"
  echo "ok  $name loads and validates its configuration"
done
# create-indexes has no schema of its own; with no MONGODB_URL it says so and exits 1.
out="$(docker run --rm --network none "$TAG" create-indexes 2>&1 || true)"
grep -q "set MONGODB_URL" <<<"$out" || fail "create-indexes:\n$out"
echo "ok  create-indexes"

uid="$(docker run --rm --entrypoint id "$TAG" -u)"
[[ "$uid" == "1000" ]] || fail "runs as uid $uid, expected 1000"
echo "ok  runs as uid 1000"

docker run --rm --entrypoint sh "$TAG" -c 'for p in tsx vitest typescript esbuild testcontainers @checkout; do test ! -e "node_modules/$p" || { echo "$p is in the image"; exit 1; }; done' \
  || fail "dev tooling in the runtime image"
echo "ok  production dependencies only"
docker image ls "$TAG"
