#!/usr/bin/env bash
# Sourced by up.sh: Kueue's controller manager as a process of the cluster (in its network namespace), with its CRDs
# and its admission webhooks, for the Kueue tests (e2e/kueue_test.go).
#
# Kueue manages only the namespaces labelled $KUEUE_NAMESPACE_LABEL: its
# managedJobsNamespaceSelector and every webhook's namespaceSelector
# select them, so the rest of the suite runs as on a cluster without
# Kueue. Its webhooks (config/components/webhook/manifests.yaml of the
# module) call it at https://$NODE_IP:$KUEUE_WEBHOOK_PORT with the e2e
# CA's certificate in place of the Service and the certificate Kueue's
# internal cert manager would make (the same certificate is its metrics
# server's, which is off); its health probes listen on loopback. The visibility API server (feature gate
# VisibilityOnDemand) is off: it needs an APIService and delegated
# authentication, and no test reads it.
#
# Its integrations: Jobs, MPIJobs, pods, Kubeflow Trainer's TrainJobs
# (trainer.sh), and JobSets (a Dask step's scheduler, workers and client:
# one Workload, admitted whole). The TrainJob integration (pkg/controller/
# jobs/trainjob of the module) needs no other one, JobSet's included: it
# works out the TrainJob's pod sets from the JobSet Trainer would make,
# with Trainer's own packages, and its webhook gives each TrainJob Kueue's
# runtime patch (manager kueue.x-k8s.io/manager), through which admission
# hands the pods their flavor's node selector and tolerations. Trainer's
# JobSet is not queued twice: its controller owner is the TrainJob, and
# its labels are the runtime's and the patches' (no queue name), so
# jobframework's WorkloadShouldBeSuspended (utils.go, from the JobSet
# webhook's Default) and the reconciler (reconciler.go) find the queued
# TrainJob by FindAncestorJobManagedByKueue and neither suspend the
# JobSet nor give it a Workload of its own; an unqueued TrainJob's JobSet
# has no queue name, and is left alone. Kueue watches TrainJobs and
# JobSets, so their CRDs are installed before it starts (up.sh).
KUEUE_NAMESPACE_LABEL=e2e.mlcube-compile.io/kueue
KUEUE_WEBHOOK_PORT=19443

# kueue_webhooks CA-BUNDLE: Kueue's webhook configurations, calling the
# host's Kueue by URL, for the labelled namespaces only.
kueue_webhooks() {
  awk -v url="https://$NODE_IP:$KUEUE_WEBHOOK_PORT" -v ca="$1" -v label="$KUEUE_NAMESPACE_LABEL" '
    /^    service:$/ || /^      name: webhook-service$/ || /^      namespace: system$/ { next }
    /^      path: / {
      print "    url: " url $2
      print "    caBundle: " ca
      print "  namespaceSelector:"
      print "    matchLabels: {\"" label "\": \"true\"}"
      next
    }
    { print }' "$kueue_dir/config/components/webhook/manifests.yaml"
}

kueue_up() {
  kueue_dir=$(module_dir sigs.k8s.io/kueue "$KUEUE_VERSION")
  local dir=$E2E_RUN/kueue f
  mkdir -p "$dir/certs"
  for f in "$kueue_dir"/config/components/crd/bases/*.yaml; do
    "$kubectl" create -f "$f" >/dev/null
  done
  "$kubectl" wait --for condition=established --timeout=60s crd --all >/dev/null
  "$kubectl" create namespace kueue-system >/dev/null
  (cd "$E2E_RUN/pki" && cert kueue /CN=kueue-webhook "subjectAltName=IP:$NODE_IP
extendedKeyUsage=serverAuth")
  cp "$E2E_RUN/pki/kueue.crt" "$dir/certs/tls.crt"
  cp "$E2E_RUN/pki/kueue.key" "$dir/certs/tls.key"
  cat >"$dir/config.yaml" <<CFG
apiVersion: config.kueue.x-k8s.io/v1beta2
kind: Configuration
namespace: kueue-system
health: {healthProbeBindAddress: "127.0.0.1:18081"}
metrics: {bindAddress: "0"}
webhook: {host: "$NODE_IP", port: $KUEUE_WEBHOOK_PORT, certDir: "$dir/certs"}
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
manageJobsWithoutQueueName: false
managedJobsNamespaceSelector:
  matchLabels: {"$KUEUE_NAMESPACE_LABEL": "true"}
integrations:
  frameworks: [batch/job, kubeflow.org/mpijob, pod, trainer.kubeflow.org/trainjob, jobset.x-k8s.io/jobset]
CFG
  KUEUE_METRICS_CERT_DIR=$dir/certs start kueue "$E2E_BIN/kueue" --config="$dir/config.yaml" --feature-gates=VisibilityOnDemand=false
  wait_for "Kueue's webhook server" 120 in_netns curl -sk "https://$NODE_IP:$KUEUE_WEBHOOK_PORT/"
  wait_for "Kueue's readiness" 120 in_netns curl -sf "http://127.0.0.1:18081/readyz"
  kueue_webhooks "$(base64 -w0 <"$E2E_RUN/pki/ca.crt")" | "$kubectl" create -f - >/dev/null
}
