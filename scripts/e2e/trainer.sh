#!/usr/bin/env bash
# Sourced by up.sh: Kubeflow Trainer's controller manager and JobSet's as
# processes of the cluster (in its network namespace), with their CRDs,
# their admission webhooks and Trainer's torch-distributed
# ClusterTrainingRuntime, for the TrainJob tests (e2e/trainjob_test.go).
#
# A TrainJob names a runtime; Trainer's controller makes of the two a
# JobSet, and JobSet's controller makes of that one indexed Job per
# replicated job and a headless Service through which the pods find each
# other by name. The webhooks of both (the configurations their modules'
# kustomizations make: manifests/base/webhook of Trainer's,
# config/components/webhook of JobSet's, which keeps JobSet's pod webhooks
# to JobSet's own pods) call them by URL at https://$NODE_IP:PORT with the
# e2e CA's certificate, in place of the Service and the certificate their
# internal cert managers would make (off). Their health probes listen on
# loopback; their metrics servers are off.
#
# Trainer's webhook server takes no certificate folder in its
# configuration (pkg/config/config.go of the module): it reads
# controller-runtime's default, $TMPDIR/k8s-webhook-server/serving-certs,
# so the process gets a TMPDIR of the run.
#
# The runtime is manifests/base/runtimes/torch_distributed.yaml as
# upstream ships it: the image it names (pytorch/pytorch) is never pulled,
# since each TrainJob names its own (spec.trainer.image).
TRAINER_WEBHOOK_PORT=19451
TRAINER_HEALTH_PORT=18091
JOBSET_WEBHOOK_PORT=19452
JOBSET_HEALTH_PORT=18092

# webhooks_by_url URL CA-BUNDLE PREFIX: the webhook configurations that
# `kubectl kustomize` prints on stdin, without the Service beside them,
# calling URL in place of the Service, each configuration's name
# prefixed with PREFIX (JobSet's and Kueue's are both named
# mutating-webhook-configuration).
webhooks_by_url() {
  awk -v url="$1" -v ca="$2" -v prefix="$3" '
    function flush() { if (doc != "" && doc !~ /\nkind: Service\n/) printf "---\n%s", doc; doc = "" }
    /^---$/ { flush(); next }
    /^    service:$/ || /^      name: / || /^      namespace: / { next }
    /^      path: / { doc = doc "    url: " url $2 "\n    caBundle: " ca "\n"; next }
    /^  name: / && !named { doc = doc "  name: " prefix $2 "\n"; named = 1; next }
    /^kind: / { named = 0 }
    { doc = doc $0 "\n" }
    END { flush() }'
}

# trainer_crds: JobSet's and Trainer's CRDs, before Kueue starts (its
# TrainJob integration watches TrainJobs and the JobSets they own).
trainer_crds() {
  trainer_dir=$(module_dir github.com/kubeflow/trainer/v2 "$TRAINER_VERSION")
  jobset_dir=$(module_dir sigs.k8s.io/jobset "$JOBSET_VERSION")
  local f
  for f in "$jobset_dir"/config/components/crd/bases/*.yaml "$trainer_dir"/manifests/base/crds/trainer.kubeflow.org_*.yaml; do
    "$kubectl" create -f "$f" >/dev/null
  done
  "$kubectl" wait --for condition=established --timeout=60s crd --all >/dev/null
}

# trainer_start: starts both controllers; trainer_ready waits for them.
trainer_start() {
  local dir=$E2E_RUN/trainer
  mkdir -p "$dir/tmp/k8s-webhook-server/serving-certs" "$dir/jobset-certs"
  (cd "$E2E_RUN/pki" && cert trainer /CN=trainer-webhook "subjectAltName=IP:$NODE_IP
extendedKeyUsage=serverAuth")
  local d
  for d in "$dir/tmp/k8s-webhook-server/serving-certs" "$dir/jobset-certs"; do
    cp "$E2E_RUN/pki/trainer.crt" "$d/tls.crt"
    cp "$E2E_RUN/pki/trainer.key" "$d/tls.key"
  done
  cat >"$dir/jobset.yaml" <<CFG
apiVersion: config.jobset.x-k8s.io/v1alpha1
kind: Configuration
webhook: {host: "$NODE_IP", port: $JOBSET_WEBHOOK_PORT, certDir: "$dir/jobset-certs"}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$JOBSET_HEALTH_PORT"}
leaderElection: {leaderElect: false}
internalCertManagement: {enable: false}
CFG
  cat >"$dir/trainer.yaml" <<CFG
apiVersion: config.trainer.kubeflow.org/v1alpha1
kind: Configuration
webhook: {host: "$NODE_IP", port: $TRAINER_WEBHOOK_PORT}
metrics: {bindAddress: "0"}
health: {healthProbeBindAddress: "127.0.0.1:$TRAINER_HEALTH_PORT"}
certManagement: {enable: false}
CFG
  start jobset "$E2E_BIN/jobset" --config="$dir/jobset.yaml"
  TMPDIR=$dir/tmp start trainer "$E2E_BIN/trainer-controller-manager" --config="$dir/trainer.yaml"
}

trainer_ready() {
  local ca
  ca=$(base64 -w0 <"$E2E_RUN/pki/ca.crt")
  wait_for "JobSet's readiness" 120 in_netns curl -sf "http://127.0.0.1:$JOBSET_HEALTH_PORT/readyz"
  wait_for "Trainer's readiness" 120 in_netns curl -sf "http://127.0.0.1:$TRAINER_HEALTH_PORT/readyz"
  "$kubectl" kustomize "$jobset_dir/config/components/webhook" |
    webhooks_by_url "https://$NODE_IP:$JOBSET_WEBHOOK_PORT" "$ca" jobset- | "$kubectl" create -f - >/dev/null
  "$kubectl" kustomize "$trainer_dir/manifests/base/webhook" |
    webhooks_by_url "https://$NODE_IP:$TRAINER_WEBHOOK_PORT" "$ca" "" | "$kubectl" create -f - >/dev/null
  # The runtime's own validating webhook is Trainer's: it is up now.
  "$kubectl" create -f "$trainer_dir/manifests/base/runtimes/torch_distributed.yaml" >/dev/null
}
