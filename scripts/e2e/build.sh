#!/usr/bin/env bash
# Builds (or finds in the cache) every binary the e2e cluster needs:
# kube-apiserver, kube-controller-manager, kube-scheduler and kubectl from the
# k8s.io/kubernetes module, KWOK, Argo's workflow-controller and executor
# (argoexec), mpi-operator's controller, CoreDNS, and etcd from the etcd server
# module that Kubernetes pins (Debian's etcd 3.4.23 is too old for the watch-list
# requests that client-go v0.35+ sends: its clients then see changes only
# when they relist, and a 1-second pod takes a minute). The two controllers
# serve health checks on every interface; their copies are patched to
# listen on 127.0.0.1 only (no flag or env sets the address). Binaries are
# cached under .e2e/cache/<name>-<version>/ and linked into .e2e/bin/; a
# warm run only checks that they are there.
set -euo pipefail
source "$(dirname "$0")/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off

mkdir -p "$E2E_CACHE" "$E2E_BIN"
log() { printf 'e2e build: %s\n' "$*" >&2; }

# module_copy MODULE VERSION DEST: a writable copy of a module's source.
module_copy() {
  local dir
  dir=$(go mod download -json "$1@$2" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { log "cannot download $1@$2"; exit 1; }
  rm -rf "$3"; mkdir -p "$(dirname "$3")"
  cp -r "$dir" "$3"; chmod -R u+w "$3"
}

# link NAME VERSION: point .e2e/bin/NAME at the cached binary.
link() { ln -sf "$E2E_CACHE/$1-$2/$1" "$E2E_BIN/$1"; }

cached() { [ -x "$E2E_CACHE/$1-$2/$1" ]; }

# pkg NAME: the package build_kubernetes builds NAME from.
pkg() { if [ "$1" = etcd ]; then echo go.etcd.io/etcd/server/v3; else echo "./cmd/$1"; fi; }

# The real node runs kubelet and kube-proxy beside the control plane.
KUBE_BINARIES="kube-apiserver kube-controller-manager kube-scheduler kubectl kubelet kube-proxy"
build_kubernetes() {
  local v=$KUBERNETES_VERSION n missing=()
  for n in $KUBE_BINARIES; do cached "$n" "$v" || missing+=("$n"); done
  cached etcd "$ETCD_VERSION" || missing+=(etcd)
  if [ ${#missing[@]} -gt 0 ]; then
    log "building ${missing[*]} from kubernetes $v (about 7 minutes cold on 2 cores)"
    local src=$E2E_CACHE/src/kubernetes-$v
    module_copy k8s.io/kubernetes "$v" "$src"
    # The module zip has no staging/ tree: take each staging module from the proxy.
    sed -i -E "s#^(\s*k8s\.io/[a-z0-9-]+) => \./staging/src/k8s\.io/[a-z0-9-]+#\1 => \1 $KUBE_STAGING_VERSION#" "$src/go.mod"
    # etcd is built from the etcd server module that Kubernetes itself pins.
    grep -q "go.etcd.io/etcd/server/v3 $ETCD_VERSION" "$src/go.mod" || { log "kubernetes $v does not pin etcd $ETCD_VERSION"; exit 1; }
    # kubectl version and the API server's /version parse these.
    local ldflags="" p minor
    minor=$(echo "$v" | cut -d. -f2)
    for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
      ldflags+=" -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor"
      ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
    done
    local dir
    for n in "${missing[@]}"; do
      dir=$E2E_CACHE/$n-$v
      [ "$n" = etcd ] && dir=$E2E_CACHE/etcd-$ETCD_VERSION
      mkdir -p "$dir"
      (cd "$src" && go build -trimpath -ldflags "$ldflags" -o "$dir/$n" "$(pkg "$n")")
    done
    rm -rf "$src"
  fi
  for n in $KUBE_BINARIES; do link "$n" "$v"; done
  link etcd "$ETCD_VERSION"
}

build_kwok() {
  if ! cached kwok "$KWOK_VERSION"; then
    log "building kwok $KWOK_VERSION"
    mkdir -p "$E2E_CACHE/kwok-$KWOK_VERSION"
    GOBIN="$E2E_CACHE/kwok-$KWOK_VERSION" go install "sigs.k8s.io/kwok/cmd/kwok@$KWOK_VERSION"
  fi
  link kwok "$KWOK_VERSION"
}

# build_patched NAME MODULE VERSION PKG FILE FROM TO: builds PKG of a module
# copy after replacing FROM with TO in FILE, failing if FROM is not there.
build_patched() {
  local n=$1 mod=$2 v=$3 pkg=$4 file=$5 from=$6 to=$7
  if ! cached "$n" "$v"; then
    log "building $n $v"
    local src=$E2E_CACHE/src/$n-$v
    module_copy "$mod" "$v" "$src"
    grep -qF "$from" "$src/$file" || { log "$file no longer has $from: update the patch"; exit 1; }
    sed -i "s#$from#$to#" "$src/$file"
    mkdir -p "$E2E_CACHE/$n-$v"
    (cd "$src" && go build -trimpath -o "$E2E_CACHE/$n-$v/$n" "$pkg")
    rm -rf "$src"
  fi
  link "$n" "$v"
}
# build_argoexec NAME MODULE VERSION: Argo's executor, which the e2e
# suite runs on the host for the resource steps of a workflow (KWOK runs
# no containers) and the real node's image holds. Module zips drop
# symlinks, and upstream's signal_linux.go is a symlink to
# signal_darwin.go (which has no build tag), so the copy gets the file back.
build_argoexec() {
  local n=$1 mod=$2 v=$3
  if ! cached "$n" "$v"; then
    log "building $n $v (about 7 minutes cold on 2 cores)"
    local src=$E2E_CACHE/src/$n-$v
    module_copy "$mod" "$v" "$src"
    local sig=$src/workflow/executor/osspecific
    [ -e "$sig/signal_linux.go" ] || cp "$sig/signal_darwin.go" "$sig/signal_linux.go"
    mkdir -p "$E2E_CACHE/$n-$v"
    (cd "$src" && go build -trimpath -o "$E2E_CACHE/$n-$v/$n" ./cmd/argoexec)
    rm -rf "$src"
  fi
  link "$n" "$v"
}
# build_tekton: Tekton's controller and webhook, and the binaries its pods
# run (entrypoint, nop, workingdirinit, sidecarlogresults), each of which
# up.sh puts in an image of its own.
build_tekton() {
  local v=$TEKTON_VERSION n missing=() pkgs=()
  for n in $TEKTON_BINARIES; do cached "tekton-$n" "$v" || missing+=("$n"); done
  if [ ${#missing[@]} -gt 0 ]; then
    log "building tekton ${missing[*]} $v"
    local src=$E2E_CACHE/src/tekton-$v
    module_copy github.com/tektoncd/pipeline "$v" "$src"
    for n in "${missing[@]}"; do
      mkdir -p "$E2E_CACHE/tekton-$n-$v"
      (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$E2E_CACHE/tekton-$n-$v/tekton-$n" "./cmd/$n")
    done
    rm -rf "$src"
  fi
  for n in $TEKTON_BINARIES; do link "tekton-$n" "$v"; done
}
# build_registry: go-containerregistry's in-memory registry, from which
# Tekton's controller reads the entrypoint of a step's image (Tekton has
# no image index like Argo's). Upstream listens on localhost only; the
# copy takes -host, so that pods reach it on the node's address.
build_registry() {
  local v=$GGCR_VERSION
  if ! cached registry "$v"; then
    log "building registry $v"
    local src=$E2E_CACHE/src/registry-$v f
    module_copy github.com/google/go-containerregistry "$v" "$src"
    f=$src/cmd/registry/main.go
    grep -qF 'fmt.Sprintf("localhost:%d", *port)' "$f" || { log "$f changed: update the patch"; exit 1; }
    sed -i 's#fmt.Sprintf("localhost:%d", \*port)#fmt.Sprintf("%s:%d", *host, *port)#; s#^var port = #var host = flag.String("host", "localhost", "address to listen on")\nvar port = #' "$f"
    mkdir -p "$E2E_CACHE/registry-$v"
    (cd "$src" && go build -trimpath -o "$E2E_CACHE/registry-$v/registry" ./cmd/registry)
    rm -rf "$src"
  fi
  link registry "$v"
}
# build_coredns: the cluster's DNS, which the ranks of an MPI step need to
# find their workers by name (mpi-operator's hostfile names
# <pod>.<job>.<namespace>.svc). The copy links only the plugins dns.sh's
# Corefile uses: core/plugin/zplugin.go is the generated list of every
# plugin, and most of them bring cloud SDKs.
build_coredns() {
  local v=$COREDNS_VERSION
  if ! cached coredns "$v"; then
    log "building coredns $v"
    local src=$E2E_CACHE/src/coredns-$v f
    module_copy github.com/coredns/coredns "$v" "$src"
    f=$src/core/plugin/zplugin.go
    grep -qF '_ "github.com/coredns/coredns/plugin/kubernetes"' "$f" || { log "$f changed: update build_coredns"; exit 1; }
    printf 'package plugin\n\nimport (\n%s)\n' "$(for p in $COREDNS_PLUGINS; do printf '\t_ "github.com/coredns/coredns/plugin/%s"\n' "$p"; done)" >"$f"
    mkdir -p "$E2E_CACHE/coredns-$v"
    (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$E2E_CACHE/coredns-$v/coredns" .)
    rm -rf "$src"
  fi
  link coredns "$v"
}
build_kubernetes
build_coredns
build_tekton
build_registry
build_kwok
# The v3.7 controller and executor keep their names; the 4.x ones end in 4.
build_argoexec argoexec github.com/argoproj/argo-workflows/v3 "$ARGO_VERSION"
build_argoexec argoexec4 github.com/argoproj/argo-workflows/v4 "$ARGO4_VERSION"
build_patched workflow-controller github.com/argoproj/argo-workflows/v3 "$ARGO_VERSION" ./cmd/workflow-controller \
  cmd/workflow-controller/main.go 'http.ListenAndServe(":6060"' 'http.ListenAndServe("127.0.0.1:6060"'
build_patched workflow-controller4 github.com/argoproj/argo-workflows/v4 "$ARGO4_VERSION" ./cmd/workflow-controller \
  cmd/workflow-controller/main.go 'http.ListenAndServe(":6060"' 'http.ListenAndServe("127.0.0.1:6060"'
build_patched mpi-operator github.com/kubeflow/mpi-operator "$MPI_OPERATOR_VERSION" ./cmd/mpi-operator \
  cmd/mpi-operator/app/server.go 'fmt.Sprintf(":%d", healthCheckPort)' 'fmt.Sprintf("127.0.0.1:%d", healthCheckPort)'
# Kueue's controller manager, which admits the queued steps of the Kueue
# tests (scripts/e2e/kueue.sh starts it). Without its internal cert
# manager it reads its metrics server's certificate from a fixed
# /etc/kueue/metrics/certs (cmd/kueue/main.go): the copy reads the folder
# from KUEUE_METRICS_CERT_DIR, so that nothing is written under /etc.
build_patched kueue sigs.k8s.io/kueue "$KUEUE_VERSION" ./cmd/kueue \
  cmd/kueue/main.go 'metricsCertPath := "/etc/kueue/metrics/certs"' 'metricsCertPath := os.Getenv("KUEUE_METRICS_CERT_DIR")'
log "ready in $E2E_BIN"
bash "$(dirname "$0")/images.sh"
