#!/usr/bin/env bash
# make e2e-clean-cache: empties the e2e build cache that every checkout on
# this machine shares (versions.sh: $MLCUBE_E2E_CACHE, or
# ${XDG_CACHE_HOME:-~/.cache}/mlcube-compile/e2e), and this checkout's
# links into it, and the in-checkout cache of older versions (.e2e/cache).
# It removes only a folder that build.sh marked as its cache, and not
# while this checkout's cluster is up. The Go caches are left alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
log() { printf 'e2e clean-cache: %s\n' "$*" >&2; }
if [ -s "$E2E_RUN/pids" ]; then log "a cluster is up (see $E2E_RUN/pids): make e2e-down first"; exit 1; fi
if [ -d "$E2E_CACHE" ] && [ -n "$(ls -A "$E2E_CACHE")" ] && [ ! -f "$E2E_CACHE/$E2E_CACHE_MARK" ]; then
  log "$E2E_CACHE is not an e2e build cache (no $E2E_CACHE_MARK in it): not removed"; exit 1
fi
size=$(du -sh "$E2E_CACHE" 2>/dev/null | cut -f1)
rm -rf "$E2E_CACHE" "$E2E_BIN" "$E2E_IMAGES" "$E2E_ROOT/cache"
log "removed $E2E_CACHE (${size:-empty})"
