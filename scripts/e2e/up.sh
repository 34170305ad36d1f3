#!/usr/bin/env bash
# Starts a throwaway cluster in a network namespace of its own ($E2E_NETNS,
# made by node.sh and deleted by down.sh) from the binaries build.sh made:
# etcd, kube-apiserver, kube-controller-manager, kube-scheduler, KWOK (the
# kubelet of the fake nodes the suite registers), Argo's workflow-controller
# and mpi-operator's controller, the real node (node.sh) and its DNS
# (dns.sh), Tekton's controller (tekton.sh), Kueue's (kueue.sh), Kubeflow
# Trainer's and JobSet's (trainer.sh), the object store that is Argo's
# artifact repository (objectstore.sh), and installs the CRDs of Argo,
# Tekton, mpi-operator, Dask, Kueue, JobSet and Trainer. Every PID goes into .e2e/run/pids so that down.sh
# stops exactly these processes. On failure it stops them too.
set -Eeuo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off
repo=$(cd "$here/../.." && pwd)
SHARED=${SHARED:-$(cd "$here/../../.." && pwd)/shared}
ETCD_PORT=${E2E_ETCD_PORT:-23790}
API_PORT=${E2E_API_PORT:-16443}

LOG_PREFIX="e2e up"
source "$here/lib.sh"

if [ -s "$E2E_RUN/pids" ]; then
  log "a cluster is already up (see $E2E_RUN/pids); run scripts/e2e/down.sh first"; exit 1
fi
# Host changes a failed earlier start left are undone first, or this start
# would take them for the host's own and never undo them.
if [ -f "$E2E_RUN/node.changes" ]; then "$here/down.sh"; fi
rm -rf "$E2E_RUN"; mkdir -p "$E2E_RUN/logs" "$E2E_RUN/pki"
trap 'log "failed; stopping what was started (logs in $E2E_RUN/logs)"; "$here/down.sh"' ERR

pki() {
  cd "$E2E_RUN/pki"
  openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 2 -subj /CN=e2e-ca 2>/dev/null
  # cert NAME SUBJECT EXTENSIONS
  cert() {
    openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "$2" 2>/dev/null
    printf '%s\n' "$3" >"$1.ext"
    openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -days 2 -out "$1.crt" -extfile "$1.ext" 2>/dev/null
  }
  cert apiserver /CN=kube-apiserver \
    "subjectAltName=IP:127.0.0.1,IP:$NODE_IP,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc
extendedKeyUsage=serverAuth"
  cert admin "/O=system:masters/CN=e2e-admin" "extendedKeyUsage=clientAuth"
  cert kubelet "/CN=$NODE_NAME" "subjectAltName=IP:$NODE_IP,DNS:$NODE_NAME
extendedKeyUsage=serverAuth"
  openssl genrsa -out sa.key 2048 2>/dev/null
  openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
  cd - >/dev/null
}

kubeconfig() {
  local p=$E2E_RUN/pki
  cat >"$E2E_RUN/kubeconfig" <<KC
apiVersion: v1
kind: Config
clusters:
- name: e2e
  cluster: {server: "https://$NODE_IP:$API_PORT", certificate-authority: "$p/ca.crt"}
users:
- name: admin
  user: {client-certificate: "$p/admin.crt", client-key: "$p/admin.key"}
contexts:
- name: e2e
  context: {cluster: e2e, user: admin}
current-context: e2e
KC
}

source "$here/node.sh"
log "the network namespace $E2E_NETNS, the node's address $NODE_IP on its lo, and its sysctls"
node_host_setup

log "certificates and kubeconfig"
pki
kubeconfig
export KUBECONFIG=$E2E_RUN/kubeconfig
kubectl=kubectl_e2e

log "etcd on 127.0.0.1:$ETCD_PORT"
start etcd "$E2E_BIN/etcd" --name e2e --data-dir "$E2E_RUN/etcd" --unsafe-no-fsync \
  --listen-client-urls "http://127.0.0.1:$ETCD_PORT" --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
  --listen-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" --initial-advertise-peer-urls "http://127.0.0.1:$((ETCD_PORT + 10))" \
  --initial-cluster "e2e=http://127.0.0.1:$((ETCD_PORT + 10))"

# The API server binds the node's address, which pods reach and which it
# advertises as the endpoint of the kubernetes Service.
log "kube-apiserver on $NODE_IP:$API_PORT"
p=$E2E_RUN/pki
start kube-apiserver "$E2E_BIN/kube-apiserver" \
  --bind-address="$NODE_IP" --advertise-address="$NODE_IP" --secure-port="$API_PORT" \
  --etcd-servers="http://127.0.0.1:$ETCD_PORT" \
  --client-ca-file="$p/ca.crt" --tls-cert-file="$p/apiserver.crt" --tls-private-key-file="$p/apiserver.key" \
  --service-account-issuer=https://kubernetes.default.svc --service-account-key-file="$p/sa.pub" \
  --service-account-signing-key-file="$p/sa.key" --service-cluster-ip-range="$SERVICE_CIDR" \
  --kubelet-preferred-address-types=InternalIP,Hostname \
  --kubelet-client-certificate="$p/admin.crt" --kubelet-client-key="$p/admin.key" \
  --authorization-mode=AlwaysAllow --profiling=false
wait_for "the API server" 90 "$kubectl" get --raw /readyz

log "kube-controller-manager and kube-scheduler"
start kube-controller-manager "$E2E_BIN/kube-controller-manager" \
  --kubeconfig="$KUBECONFIG" --bind-address=127.0.0.1 --secure-port=0 --leader-elect=false \
  --service-account-private-key-file="$p/sa.key" --root-ca-file="$p/ca.crt" \
  --use-service-account-credentials=false --controllers='*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-route'
# KWOK's node mounts no volumes, so the scheduler's volume plugins are off:
# the claims a platform names (nfs-mlops, ...) need not exist in this cluster.
cat >"$E2E_RUN/scheduler.yaml" <<SC
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$KUBECONFIG"}
leaderElection: {leaderElect: false}
profiles:
- schedulerName: default-scheduler
  plugins:
    multiPoint:
      disabled:
      - name: VolumeBinding
      - name: VolumeRestrictions
      - name: VolumeZone
      - name: NodeVolumeLimits
SC
start kube-scheduler "$E2E_BIN/kube-scheduler" --config="$E2E_RUN/scheduler.yaml" \
  --bind-address=127.0.0.1 --secure-port=0

# Started here, waited for before Argo's controller: it starts while the
# rest does.
source "$here/objectstore.sh"
log "the object store: SeaweedFS's S3 gateway on $NODE_IP:$S3_PORT"
objectstore_start

log "KWOK with its fast stages and ours"
kwok_dir=$(module_dir sigs.k8s.io/kwok "$KWOK_VERSION")
stages=$E2E_RUN/stages.yaml
for f in node/fast/node-initialize.yaml node/heartbeat-with-lease/node-heartbeat-with-lease.yaml \
  pod/fast/pod-ready.yaml pod/fast/pod-complete.yaml pod/fast/pod-delete.yaml; do
  if [ "$f" = pod/fast/pod-complete.yaml ]; then
    # A pod annotated e2e.mlcube-compile.io/hold keeps running (a launcher
    # the suite needs busy).
    grep -q '^    matchExpressions:$' "$kwok_dir/kustomize/stage/$f" || { log "$f changed: update the hold patch"; exit 1; }
    sed '/^    matchExpressions:$/a\    - key: '"'"'.metadata.annotations["e2e.mlcube-compile.io/hold"]'"'"'\n      operator: '"'"'DoesNotExist'"'"'' \
      "$kwok_dir/kustomize/stage/$f"
  else
    cat "$kwok_dir/kustomize/stage/$f"
  fi
  echo '---'
done >"$stages"
cat "$here/stages.yaml" >>"$stages"
start kwok "$E2E_BIN/kwok" --kubeconfig="$KUBECONFIG" --config="$stages" \
  --manage-all-nodes=false --manage-nodes-with-annotation-selector=kwok.x-k8s.io/node=fake \
  --server-address=127.0.0.1:0 --node-ip=127.0.0.1 --cidr=10.244.0.0/16 --enable-crds=

log "CRDs: Argo, Tekton, mpi-operator (and the training operator's v1 MPIJob), Dask"
tekton_dir=$(module_dir github.com/tektoncd/pipeline "$TEKTON_VERSION")
mpi_dir=$(module_dir github.com/kubeflow/mpi-operator "$MPI_OPERATOR_VERSION")
# kubectl create, not apply: the workflows CRD is larger than the
# last-applied annotation allows.
for f in "$(module_dir github.com/argoproj/argo-workflows/v3 "$ARGO_VERSION")"/manifests/base/crds/full/argoproj.io_*.yaml \
  "$SHARED"/crds/dask/*.yaml; do
  "$kubectl" create -f "$f" >/dev/null
done
# mpijobs.kubeflow.org: mpi-operator's CRD (v2beta1, stored), serving the
# training operator's kubeflow.org/v1 schema too, so that both kinds of
# MPIJob the compiler emits are checked against their own operator's CRD.
training_dir=$(module_dir github.com/kubeflow/training-operator "$TRAINING_OPERATOR_VERSION")
v1=$("$kubectl" create --dry-run=client -o 'jsonpath={.spec.versions[?(@.name=="v1")]}' \
  -f "$training_dir/manifests/base/crds/kubeflow.org_mpijobs.yaml")
printf '[{"op":"add","path":"/spec/versions/-","value":%s},{"op":"replace","path":"/spec/versions/1/storage","value":false}]' "$v1" \
  >"$E2E_RUN/mpijobs-v1.patch"
"$kubectl" patch --local -f "$mpi_dir/manifests/base/kubeflow.org_mpijobs.yaml" --type json \
  --patch-file "$E2E_RUN/mpijobs-v1.patch" -o yaml | "$kubectl" create -f - >/dev/null
# No conversion webhook runs here, so Tekton's CRDs convert by apiVersion only.
for f in "$tekton_dir"/config/300-crds/*.yaml; do
  "$kubectl" patch --local -f "$f" --type merge -o yaml \
    -p '{"spec":{"conversion":{"strategy":"None","webhook":null}}}' | "$kubectl" create -f - >/dev/null
done
"$kubectl" wait --for condition=established --timeout=60s crd --all >/dev/null

log "the real node $NODE_NAME: containerd, kubelet, kube-proxy"
node_up

source "$here/dra.sh"
log "DRA on $NODE_NAME: the DeviceClass $DRA_DRIVER, and the example driver's kubelet plugin with $DRA_DEVICES GPUs"
dra_up

source "$here/dns.sh"
log "the cluster's DNS: CoreDNS on $NODE_IP:$COREDNS_PORT, Service kube-dns at $CLUSTER_DNS_IP"
dns_up

source "$here/tekton.sh"
log "Tekton's controller and webhook on the real node, and the registry it reads images from"
tekton_up

source "$here/argo.sh"
log "Argo's workflow-controller $ARGO_VERSION"
"$kubectl" create namespace argo >/dev/null
log "the object store's bucket $S3_BUCKET, created by a signed request; the Secret $S3_SECRET"
objectstore_ready
argo_config
argo_controller workflow-controller mlcube-e2e/base:1

log "mpi-operator's controller"
"$kubectl" create namespace mpi-operator >/dev/null
start mpi-operator "$E2E_BIN/mpi-operator" --kubeConfig="$KUBECONFIG" --lock-namespace=mpi-operator --monitoring-port=0

source "$here/trainer.sh"
log "JobSet's and Kubeflow Trainer's CRDs, and their controllers ($JOBSET_VERSION, $TRAINER_VERSION) starting"
trainer_crds
trainer_start

source "$here/kueue.sh"
log "Kueue's controller $KUEUE_VERSION, for the namespaces labelled $KUEUE_NAMESPACE_LABEL=true"
kueue_up

log "JobSet's and Trainer's webhooks, and Trainer's torch-distributed runtime"
trainer_ready

wait_for "the default service account" 60 "$kubectl" -n default get serviceaccount default
# Every process started must still run (kube-proxy, say, exits on a bad
# configuration while the node looks Ready).
while read -r pid name; do
  kill -0 "$pid" 2>/dev/null || { log "$name exited: $(tail -3 "$E2E_RUN/logs/$name.log")"; false; }
done <"$E2E_RUN/pids"
log "up: KUBECONFIG=$KUBECONFIG"
