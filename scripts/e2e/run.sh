#!/usr/bin/env bash
# make e2e: builds the cluster's binaries (cached), starts the cluster,
# runs the e2e Go suite against it with Argo v3.7's controller, then the
# Argo tests again with Argo 4's (argo4.sh), and always stops what it
# started.
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
# suite NAME [go test flags...]: one pass of the e2e suite, its log in
# $E2E_ROOT/NAME.log; prints the tests' results.
suite() {
  local name=$1; shift
  go test -tags e2e -count=1 -timeout 20m -v ./cmd/mlcube-compile "$@" ${E2E_TESTFLAGS:-} 2>&1 |
    tee "$E2E_ROOT/$name.log" | grep -E '^(=== RUN|\s*--- |\s+\w+_test\.go:[0-9]+:|PASS|FAIL|ok )' | grep -v '^=== RUN'
  return "${PIPESTATUS[0]}"
}
# The tests of Argo's runs, which run again against Argo 4's controller.
ARGO_TESTS='^TestE2E(Argo|PodFailure|MPIJobRunsToArgo|MPIOnRealNode|RealNode|StopDeletesJobs|DryRunGoldens|KueueRunsArgo)'
set +e
printf '\n== the e2e suite, Argo %s\n' "$ARGO_VERSION"
suite test -run '^TestE2E'
rc=$?
tests=$SECONDS
printf '\n== the Argo tests again, Argo %s\n' "$ARGO4_VERSION"
"$here/argo4.sh" &&
  E2E_ARGO_VERSION=$ARGO4_VERSION E2E_ARGOEXEC=$E2E_BIN/argoexec4 suite test-argo4 -run "$ARGO_TESTS"
rc4=$?
set -e
printf '\ne2e: build %ds, cluster up %ds, tests %ds, Argo 4 tests %ds; logs in %s and %s\n' \
  $((built - start)) $((up - built)) $((tests - up)) $((SECONDS - tests)) "$E2E_ROOT/test.log" "$E2E_ROOT/test-argo4.log"
[ "$rc" -eq 0 ] && [ "$rc4" -eq 0 ]
