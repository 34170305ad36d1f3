#!/usr/bin/env bash
# make e2e: builds the cluster's binaries (cached), starts the cluster,
# runs the e2e Go suite against it, and always stops what it started.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
cd "$here/../.."
export GOTOOLCHAIN=local

start=$SECONDS
"$here/build.sh"
built=$SECONDS
trap '"$here/down.sh"' EXIT
"$here/up.sh"
up=$SECONDS
set +e
go test -tags e2e -count=1 -timeout 20m -run '^TestE2E' -v ./cmd/mlcube-compile ${E2E_TESTFLAGS:-} 2>&1 |
  tee "$E2E_ROOT/test.log" | grep -E '^(=== RUN|\s*--- |\s+\w+_test\.go:[0-9]+:|PASS|FAIL|ok )' | grep -v '^=== RUN'
rc=${PIPESTATUS[0]}
set -e
printf '\ne2e: build %ds, cluster up %ds, tests %ds; full log in %s\n' \
  $((built - start)) $((up - built)) $((SECONDS - up)) "$E2E_ROOT/test.log"
exit "$rc"
