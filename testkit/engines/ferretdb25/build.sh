#!/usr/bin/env bash
# Builds FerretDB 2.5 on PostgreSQL 15 with DocumentDB 0.106 on Debian 12 (docs/engines.md, "Building it here").
# No registry serves DocumentDB's sources, so they are given: SRC holds checkouts of
#   documentdb       github.com/microsoft/documentdb   tag v0.106-0
#   mongo-c-driver   github.com/mongodb/mongo-c-driver  tag 1.28.0   (libbson, the version DocumentDB names)
#   pgvector         github.com/pgvector/pgvector       tag v0.8.0
#   pg_cron          github.com/citusdata/pg_cron       tag v1.6.3   (Debian's 1.4 cannot schedule in seconds)
#   FerretDB         github.com/FerretDB/FerretDB       tag v2.5.0
# Installs the extensions into the machine's PostgreSQL 15 (root), FerretDB into the engines' cache.
set -euo pipefail
src=${1:?usage: build.sh SRC}
out=${FERRETDB_BIN:-$HOME/.cache/checkout-engines/ferretdb-2.5.0/bin/ferretdb}
jobs=$(nproc)

DEBIAN_FRONTEND=noninteractive apt-get install -y -q postgresql-15 postgresql-server-dev-15 postgresql-15-rum \
  postgresql-15-postgis-3 libpcre2-dev libintelrdfpmath-dev libkrb5-dev cmake pkg-config > /dev/null

# libbson alone; the snapshot's test data is not all there, so no tests.
cmake -S "$src/mongo-c-driver" -B "$src/mongo-c-driver/cmake-build" -DENABLE_MONGOC=OFF -DENABLE_TESTS=OFF \
  -DENABLE_EXAMPLES=OFF -DENABLE_ICU=OFF -DCMAKE_C_FLAGS="-fPIC -g" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_INSTALL_PREFIX=/usr/local > /dev/null
make -s -j"$jobs" -C "$src/mongo-c-driver/cmake-build" install > /dev/null

# DocumentDB looks the Intel decimal library up as `intelmathlib`; Debian ships it as libbidgcc000 (by value,
# global rounding and flags off: the build DocumentDB's own script makes).
mkdir -p /usr/local/lib/pkgconfig
cat > /usr/local/lib/pkgconfig/intelmathlib.pc <<PC
prefix=/usr
libdir=\${prefix}/lib/x86_64-linux-gnu
includedir=\${prefix}/include

Name: intelmathlib
Description: Intel Decimal Floating-Point Math Library (Debian's libintelrdfpmath-dev)
Version: 2.0 Update 2
Cflags: -I\${includedir}
Libs: -L\${libdir} -lbidgcc000
PC

for extension in pgvector pg_cron; do make -s -j"$jobs" -C "$src/$extension" > /dev/null; make -s -C "$src/$extension" install > /dev/null; done
for part in pg_documentdb_core pg_documentdb; do
  make -s -j"$jobs" -C "$src/documentdb/$part" > /dev/null
  make -s -C "$src/documentdb/$part" install > /dev/null
done

# FerretDB 2.5 sets GOMAXPROCS with automaxprocs only below Go 1.25 (a build tag) and names no function for
# newer Go; the binary goes to its own path, as `-o ferretdb` at the root would collide with the ferretdb/ folder.
cd "$src/FerretDB"
if [ ! -f cmd/ferretdb/gomaxprocs_go125.go ]; then
  printf '%s\n' '//go:build go1.25' '' 'package main' '' 'import "log/slog"' '' \
    '// Go 1.25 and later set GOMAXPROCS from the CPU limit themselves.' 'func setGOMAXPROCS(*slog.Logger) {}' \
    > cmd/ferretdb/gomaxprocs_go125.go
fi
echo v2.5.0 > build/version/version.txt
mkdir -p "$(dirname "$out")"
CGO_ENABLED=0 go build -o "$out" ./cmd/ferretdb
echo "built $out; start it with $(dirname "$0")/start.sh"
