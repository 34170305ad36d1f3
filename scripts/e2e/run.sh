#!/usr/bin/env bash
# make e2e: checks the host (prereqs.sh), builds the cluster's binaries
# (cached outside the checkout), starts the cluster in a network namespace
# of its own and checks that the host's holds none of its addresses or
# routes, runs the e2e Go suite against it with Argo v3.7's controller,
# then the Argo tests again with Argo 4's (argo4.sh), and always stops
# what it started, the namespace included.
#
# E2E_CLUSTER=up: the cluster this checkout's up.sh started is already up
# (.ci/run starts it while the unit tests run): the suite runs on it, and
# make e2e still stops it at the end.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
cd "$here/../.."
export GOTOOLCHAIN=local

start=$SECONDS
"$here/prereqs.sh"
"$here/build.sh"
built=$SECONDS
# host_clean: the host's namespace has none of the cluster's addresses
# (the node's), none of its routes (to its pods and Services), and not its
# bridge, each looked up exactly.
host_clean() {
  local seen
  seen=$(ip -4 -o addr show to "$NODE_IP/32"; ip -4 route show "$NODE_POD_CIDR"; ip -4 route show "$SERVICE_CIDR"
    ip link show "$NODE_BRIDGE" 2>/dev/null || true)
  [ -z "$seen" ] || { printf 'e2e: the host namespace holds the cluster'"'"'s address, routes or bridge:\n%s\n' "$seen" >&2; return 1; }
  echo "e2e: the host namespace holds no address, route or bridge of the cluster (its namespace: $E2E_NETNS)"
}
netns_gone() {
  if ip netns list | grep -qw "$E2E_NETNS"; then echo "e2e: the network namespace $E2E_NETNS is still there" >&2; exit 1; fi
}
trap '"$here/down.sh"; netns_gone' EXIT
if [ "${E2E_CLUSTER:-}" = up ]; then
  [ -s "$E2E_RUN/pids" ] || { echo "e2e: E2E_CLUSTER=up, but no cluster of this checkout is up ($E2E_RUN/pids)" >&2; exit 1; }
  echo "e2e: the cluster is up already (E2E_CLUSTER=up)"
else
  "$here/up.sh"
fi
up=$SECONDS
host_clean
# suite NAME [go test flags...]: one pass of the e2e suite, its log in
# $E2E_ROOT/NAME.log; prints the tests' results. go builds the test binary
# of ./e2e here and runs it in the cluster's network namespace (-exec),
# where the cluster's addresses are: the suite's traffic never leaves it.
# Its TestMain builds the command there (go build ./cmd/mlcube-compile,
# from Go's caches), and the tests run that binary. Most of
# the suite waits (for backoffs, timeouts, a cancel to take effect), so
# four of its parallel tests run at once, not GOMAXPROCS' two. A cold
# CI run, its fuzzing compiling beside it, took the suite past 20 minutes
# once the Dask tests joined it (2026-11-29): it may take 30.
suite() {
  local name=$1; shift
  go test -tags e2e -count=1 -timeout 30m -parallel 4 -v -exec "nsenter --net=/run/netns/$E2E_NETNS" ./e2e "$@" ${E2E_TESTFLAGS:-} 2>&1 |
    tee "$E2E_ROOT/$name.log" | grep -E '^(=== RUN|\s*--- |\s+\w+_test\.go:[0-9]+:|PASS|FAIL|ok )' | grep -v '^=== RUN'
  return "${PIPESTATUS[0]}"
}
# The tests of Argo's runs, which run again against Argo 4's controller,
# but for ARGO4_SKIP: cached-pipeline's four cached runs
# (TestE2EArgoCache, the pass's longest test at 164 s of a cold CI run)
# and cached-mixed-storage's three (TestE2EArgoCacheClaim) use the key
# and mover templates of mnist-bucket's three (TestE2EArgoCacheMnist,
# about 100 s), which run again; the claim is mounted as mixed-storage's
# prepare mounts it (TestE2EArgoObjectStorage).
ARGO_TESTS='^TestE2E(Argo|DRAArgo|PodFailure|MPIJobRunsToArgo|MPIOnRealNode|RealNode|StopDeletesJobs|DryRunGoldens|KueueRunsArgo|KueuePreemptedArgo)'
ARGO4_SKIP='^TestE2EArgoCache(Claim)?$'
set +e
printf '\n== the e2e suite, Argo %s\n' "$ARGO_VERSION"
suite test -run '^TestE2E'
rc=$?
tests=$SECONDS
printf '\n== the Argo tests again, Argo %s\n' "$ARGO4_VERSION"
"$here/argo4.sh" &&
  E2E_ARGO_VERSION=$ARGO4_VERSION E2E_ARGOEXEC=$E2E_BIN/argoexec4 suite test-argo4 -run "$ARGO_TESTS" -skip "$ARGO4_SKIP"
rc4=$?
set -e
printf '\ne2e: build %ds, cluster up %ds, tests %ds, Argo 4 tests %ds; logs in %s and %s\n' \
  $((built - start)) $((up - built)) $((tests - up)) $((SECONDS - tests)) "$E2E_ROOT/test.log" "$E2E_ROOT/test-argo4.log"
[ "$rc" -eq 0 ] && [ "$rc4" -eq 0 ]
