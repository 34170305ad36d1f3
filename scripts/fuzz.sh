#!/usr/bin/env bash
# make fuzz: runs each fuzz target (package:name) for FUZZTIME. A target
# fails when go test writes a failing input under testdata/fuzz, or fails
# in any way but one: Go 1.26's fuzz coordinator can end a run at the
# -fuzztime deadline with a bare "context deadline exceeded" and no
# failing input, a race in internal/fuzz (golang/go#75804, fixed in Go
# 1.27) that a loaded 2-core machine hits; that run counts as passed, and
# says so.
#
# FUZZ_BUILD_ONLY=1 only compiles each target's test binary as go test
# -fuzz compiles it (every package instrumented, a build of the whole
# closure again, cold) and runs nothing: .ci/run does that during the e2e
# suite, which mostly waits, so that make fuzz finds it in the build cache.
set -uo pipefail
: "${FUZZ_TARGETS:?}"
GO=${GO:-go}
if [ "${FUZZ_BUILD_ONLY:-}" = 1 ]; then
  for t in $FUZZ_TARGETS; do
    echo "== building $t for fuzzing"
    $GO test -c -o /dev/null -fuzz "^${t##*:}\$" "${t%%:*}" || exit 1
  done
  exit 0
fi
: "${FUZZTIME:?}"
for t in $FUZZ_TARGETS; do
  pkg=${t%%:*} name=${t##*:}
  corpus=$pkg/testdata/fuzz/$name
  echo "== $name ($pkg, $FUZZTIME)"
  before=$(ls "$corpus" 2>/dev/null)
  out=$(mktemp)
  # shellcheck disable=SC2086 # FUZZFLAGS is a list of flags.
  $GO test "$pkg" -run '^$' -fuzz "^$name\$" -fuzztime "$FUZZTIME" -fuzzminimizetime 5s -timeout 0 ${FUZZFLAGS:-} 2>&1 | tee "$out"
  rc=${PIPESTATUS[0]}
  after=$(ls "$corpus" 2>/dev/null)
  if [ "$rc" -ne 0 ]; then
    if [ "$before" = "$after" ] && grep -qx '    context deadline exceeded' "$out" && ! grep -q 'Failing input written' "$out"; then
      echo "== $name: ended by Go's fuzz coordinator at the deadline with no failing input (golang/go#75804): not a failure"
    else
      rm -f "$out"; exit 1
    fi
  fi
  rm -f "$out"
done
