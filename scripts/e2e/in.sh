#!/usr/bin/env bash
# scripts/e2e/in.sh CMD...: runs CMD in the e2e cluster's network
# namespace, where its addresses are (make e2e-up made it), with
# KUBECONFIG set and .e2e/bin first on PATH:
#   scripts/e2e/in.sh kubectl get nodes
#   scripts/e2e/in.sh bash            # a shell there
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
[ -e "/run/netns/$E2E_NETNS" ] || { echo "e2e in: no cluster is up (no network namespace $E2E_NETNS): make e2e-up first" >&2; exit 1; }
[ $# -gt 0 ] || set -- bash
export KUBECONFIG=$E2E_RUN/kubeconfig PATH=$E2E_BIN:$PATH
exec nsenter --net="/run/netns/$E2E_NETNS" "$@"
