#!/usr/bin/env bash
# Moves the running e2e cluster from Argo v3.7 to Argo 4 (run.sh runs the
# Argo tests again after it): stops the v3.7 workflow-controller by its
# recorded PID, updates the Argo CRDs to those of $ARGO4_VERSION (server
# side: the workflows CRD is larger than the last-applied annotation
# allows), and starts the 4.x controller with the 4.x executor
# (mlcube-e2e/argo4:1, scripts/e2e/images.sh). Workflows already finished
# stay; the suite's tests delete their own before each run.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off
repo=$(cd "$here/../.." && pwd)
LOG_PREFIX="e2e argo4"
source "$here/lib.sh"
source "$here/argo.sh"
export KUBECONFIG=$E2E_RUN/kubeconfig
kubectl=kubectl_e2e
[ -s "$E2E_RUN/pids" ] || { log "no cluster is up: run scripts/e2e/up.sh first"; exit 1; }

log "stopping the $ARGO_VERSION workflow-controller"
stop workflow-controller
log "Argo $ARGO4_VERSION's CRDs"
for f in "$(module_dir github.com/argoproj/argo-workflows/v4 "$ARGO4_VERSION")"/manifests/base/crds/full/argoproj.io_*.yaml; do
  "$kubectl" apply --server-side --force-conflicts -f "$f" >/dev/null
done
"$kubectl" wait --for condition=established --timeout=60s crd --all >/dev/null
argo_config
log "Argo $ARGO4_VERSION's workflow-controller"
argo_controller workflow-controller4 mlcube-e2e/argo4:1
sleep 2
pid=$(awk '$2 == "workflow-controller4" {print $1}' "$E2E_RUN/pids")
kill -0 "$pid" 2>/dev/null || { log "the controller exited: $(tail -3 "$E2E_RUN/logs/workflow-controller4.log")"; exit 1; }
log "up: Argo $ARGO4_VERSION"
