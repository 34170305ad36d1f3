#!/usr/bin/env bash
# make e2e-clean-cache: empties the e2e build cache that every checkout on
# this machine shares (versions.sh: $MLCUBE_E2E_CACHE, or
# ${XDG_CACHE_HOME:-~/.cache}/mlcube-compile/e2e), and this checkout's
# links into it. The Go caches are left alone.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
size=$(du -sh "$E2E_CACHE" 2>/dev/null | cut -f1)
rm -rf "$E2E_CACHE" "$E2E_BIN" "$E2E_IMAGES"
printf 'e2e clean-cache: removed %s (%s)\n' "$E2E_CACHE" "${size:-empty}"
