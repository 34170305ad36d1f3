#!/usr/bin/env bash
# Builds (or finds in the cache) every binary the e2e cluster needs:
# kube-apiserver, kube-controller-manager, kube-scheduler and kubectl from the
# k8s.io/kubernetes module, KWOK, Argo's workflow-controller and executor
# (argoexec), mpi-operator's controller, Kubeflow Trainer's and JobSet's
# controller managers, CoreDNS, and etcd from the etcd server
# module that Kubernetes pins (Debian's etcd 3.4.23 is too old for the watch-list
# requests that client-go v0.35+ sends: its clients then see changes only
# when they relist, and a 1-second pod takes a minute), SeaweedFS's weed
# (the object store) and rclone (for the image that fetches and uploads),
# and the real node's containerd with its runc shim and its DRA driver.
# The two controllers serve health checks on every interface; their copies
# are patched to listen on 127.0.0.1 only (no flag or env sets the address).
#
# The cache: each binary is kept under $E2E_CACHE/bin/NAME-VERSION-RECIPE/
# (versions.sh says where $E2E_CACHE is, outside the checkout), and linked
# into .e2e/bin/. RECIPE hashes what makes the binary: the text of the
# function that builds it (declare -f), the arguments it is given (the
# patches among them), and the Go toolchain. So a clean clone on a machine
# that built once finds everything, and a changed version, patch or build
# step rebuilds exactly the binaries it makes; the log says which binary
# came from the cache and which was built.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off
# The Go tools run with their collector off up to a 4 GiB heap: compiling
# is mostly collecting garbage that the process's end frees anyway.
# Measured on client-go's clientset and Tekton's v1 API from an empty
# build cache: 163 CPU-seconds against 203 to 227 with Go's default
# (GOGC=100). The heap limit keeps the largest links and generated
# packages from growing without end; the cluster's servers run with Go's
# defaults (lib.sh).
export GOGC=off GOMEMLIMIT=4GiB

mkdir -p "$E2E_CACHE/bin" "$E2E_CACHE/tmp" "$E2E_BIN"
touch "$E2E_CACHE/$E2E_CACHE_MARK"
# built_from: when the binary being built was started, for the log.
built_from=$SECONDS
log() { printf 'e2e build: %s\n' "$*" >&2; }
work=$(mktemp -d "$E2E_CACHE/tmp/build.XXXXXX")
trap 'rm -rf "$work"' EXIT

# Every link is stripped (-s -w) and path-free (-trimpath): smaller
# binaries, a shorter link, and the same bytes from any checkout. No
# package is compiled with debug information either (GCFLAGS), which the
# stripped link would drop: a cold build compiles about 7% faster.
LDFLAGS="-s -w"
GCFLAGS="all=-dwarf=false"
# What of the Go toolchain changes the code it makes.
toolchain=$(go env GOVERSION GOOS GOARCH GOAMD64 CGO_ENABLED GOEXPERIMENT | tr '\n' ' ')

# recipe TEXT...: the short hash of what makes a binary (its build
# function's text and arguments) and of the Go toolchain that builds it.
recipe() { printf '%s\n' "$toolchain" "$@" | sha256sum | cut -c1-12; }

# entry NAME VERSION RECIPE: the cache folder of one binary.
entry() { echo "$E2E_CACHE/bin/$1-$2-$3"; }

# from_cache NAME VERSION RECIPE: links .e2e/bin/NAME to the cached binary
# and says so, or fails if the cache has not got it.
from_cache() {
  local d
  d=$(entry "$@")
  [ -x "$d/$1" ] || return 1
  ln -sfn "$d/$1" "$E2E_BIN/$1"
  log "$1 $2: from the cache ($3)"
  built_from=$SECONDS
}

# store NAME VERSION RECIPE FILE [SECONDS]: moves a binary just built into
# the cache (whole, or not at all: another build may be reading it) and
# links it; SECONDS is how long its build took (one go build may make
# several), by default the time since the last binary.
store() {
  local d
  d=$(entry "$1" "$2" "$3")
  mkdir -p "$d.part.$$"
  mv "$4" "$d.part.$$/$1"
  mv -T "$d.part.$$" "$d" 2>/dev/null || rm -rf "$d.part.$$"
  [ -x "$d/$1" ] || { log "$1 $2: could not be stored in $d"; exit 1; }
  ln -sfn "$d/$1" "$E2E_BIN/$1"
  log "$1 $2: built in ${5:-$((SECONDS - built_from))}s ($3)"
  built_from=$SECONDS
}

# module_copy MODULE VERSION DEST: a writable copy of a module's source.
module_copy() {
  local dir
  dir=$(go mod download -json "$1@$2" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
  [ -n "$dir" ] || { log "cannot download $1@$2"; exit 1; }
  rm -rf "$3"; mkdir -p "$(dirname "$3")"
  cp -r "$dir" "$3"; chmod -R u+w "$3"
}

# go_build SRC OUT PKG [go build flags...]: builds PKG of the copy SRC.
go_build() {
  local src=$1 out=$2 pkg=$3
  shift 3
  (cd "$src" && go build -trimpath -gcflags="$GCFLAGS" "$@" -o "$out" "$pkg")
}

# go_build_into SRC DIR [go build flags...] PKG...: builds the packages of
# the module SRC into DIR with one go build, which keeps both cores busy
# (each link beside other packages' compiles) and compiles every package
# they share once.
go_build_into() {
  local src=$1 dir=$2
  shift 2
  mkdir -p "$dir"
  (cd "$src" && go build -trimpath -gcflags="$GCFLAGS" -o "$dir/" "$@")
}

# exe_name PKG: the name go build gives the binary of PKG (the last
# element of its path, or the one before a major version: .../server/v3
# makes server).
exe_name() {
  local b=${1##*/}
  if [[ $b =~ ^v[0-9]+$ ]]; then b=${1%/*}; b=${b##*/}; fi
  echo "$b"
}

# kube_ldflags: what kubectl version and the API server's /version report,
# set at link time as Kubernetes' own build does.
kube_ldflags() {
  local v=$KUBERNETES_VERSION p minor flags=""
  minor=$(echo "$v" | cut -d. -f2)
  for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $p.gitVersion=$v -X $p.gitMajor=1 -X $p.gitMinor=$minor"
    flags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
  done
  echo "$flags"
}

# patch_line FILE FROM TO: replaces the line of FILE that holds FROM
# (between its indent and a comment) with TO, failing if no line does.
patch_line() {
  grep -qF -- "$2" "$1" || { log "$1 no longer has $2: update the patch"; exit 1; }
  FROM=$2 TO=$3 perl -i -pe 's/^([ \t]*)\Q$ENV{FROM}\E[ \t]*(\/\/.*)?$/$1$ENV{TO}/' "$1"
}

# trim DIR IMPORT...: drops the imports from a module copy, and the if
# statements that use them (gotrim, beside this script, in the module of
# the e2e tools).
trim() { (cd "$here" && go run ./gotrim "$@"); }

# build_patched NAME MODULE VERSION PKG FILE FROM TO: builds PKG of a module
# copy after replacing FROM with TO in FILE, failing if FROM is not there.
build_patched() {
  local n=$1 mod=$2 v=$3 pkg=$4 file=$5 from=$6 to=$7 r
  r=$(recipe "$(declare -f build_patched module_copy go_build)" "$@" "$LDFLAGS" "$GCFLAGS")
  from_cache "$n" "$v" "$r" && return
  log "building $n $v"
  local src=$work/$n-$v
  module_copy "$mod" "$v" "$src"
  grep -qF "$from" "$src/$file" || { log "$file no longer has $from: update the patch"; exit 1; }
  sed -i "s#$from#$to#" "$src/$file"
  go_build "$src" "$work/$n" "$pkg" -ldflags "$LDFLAGS"
  store "$n" "$v" "$r" "$work/$n"
  rm -rf "$src"
}
# build_argoexec NAME MODULE VERSION: Argo's executor, which the e2e
# suite runs on the host for the resource steps of a workflow (KWOK runs
# no containers) and the real node's image holds. Module zips drop
# symlinks, and upstream's signal_linux.go is a symlink to
# signal_darwin.go (which has no build tag), so the copy gets the file back.
# The copy keeps only the artifact drivers the e2e cluster can serve (S3,
# HTTP, raw, and v4's plugins): gotrim drops the others from
# workflow/artifacts/artifacts.go and workflow/validate/validate.go, and
# with them a quarter of the packages (Azure's, Google Cloud's, gRPC's
# xDS, go-git, Kerberos), which took longer to compile than the rest.
# An artifact of a dropped kind fails with Argo's own "unsupported
# artifact driver".
ARGOEXEC_DROPPED_DRIVERS="azure gcs git hdfs oss"
build_argoexec() {
  local n=$1 mod=$2 v=$3 r d
  r=$(recipe "$(declare -f build_argoexec module_copy go_build trim)" "$(cat "$here/gotrim/main.go")" "$@" "$ARGOEXEC_DROPPED_DRIVERS" "$LDFLAGS" "$GCFLAGS")
  from_cache "$n" "$v" "$r" && return
  log "building $n $v (about 5 minutes cold on 2 cores)"
  local src=$work/$n-$v
  module_copy "$mod" "$v" "$src"
  local sig=$src/workflow/executor/osspecific
  [ -e "$sig/signal_linux.go" ] || cp "$sig/signal_darwin.go" "$sig/signal_linux.go"
  trim "$src" $(for d in $ARGOEXEC_DROPPED_DRIVERS; do echo "$mod/workflow/artifacts/$d"; done)
  go_build "$src" "$work/$n" ./cmd/argoexec -ldflags "$LDFLAGS"
  store "$n" "$v" "$r" "$work/$n"
  rm -rf "$src"
}
# build_registry: go-containerregistry's in-memory registry, from which
# Tekton's controller reads the entrypoint of a step's image (Tekton has
# no image index like Argo's). Upstream listens on localhost only; the
# copy takes -host, so that pods reach it on the node's address.
build_registry() {
  local v=$GGCR_VERSION r
  r=$(recipe "$(declare -f build_registry module_copy go_build)" "$v" "$LDFLAGS" "$GCFLAGS")
  from_cache registry "$v" "$r" && return
  log "building registry $v"
  local src=$work/registry-$v f
  module_copy github.com/google/go-containerregistry "$v" "$src"
  f=$src/cmd/registry/main.go
  grep -qF 'fmt.Sprintf("localhost:%d", *port)' "$f" || { log "$f changed: update the patch"; exit 1; }
  sed -i 's#fmt.Sprintf("localhost:%d", \*port)#fmt.Sprintf("%s:%d", *host, *port)#; s#^var port = #var host = flag.String("host", "localhost", "address to listen on")\nvar port = #' "$f"
  go_build "$src" "$work/registry" ./cmd/registry -ldflags "$LDFLAGS"
  store registry "$v" "$r" "$work/registry"
  rm -rf "$src"
}
# replace_text FILE FROM TO: replaces the text FROM, wherever a line of
# FILE holds it, with TO, failing if no line does.
replace_text() {
  grep -qF -- "$2" "$1" || { log "$1 no longer has $2: update the patch"; exit 1; }
  FROM=$2 TO=$3 perl -i -pe 's/\Q$ENV{FROM}\E/$ENV{TO}/g' "$1"
}

# build_seaweedfs: SeaweedFS's `weed`, whose `weed mini` (a master, a
# volume server, a filer and the S3 gateway in one process) is the
# cluster's object store (objectstore.sh). mini has its servers reach each
# other's gRPC through unix sockets at fixed paths,
# /tmp/seaweedfs-{master,volume,filer,s3,admin}-grpc-PORT.sock
# (weed/command/mini.go, the RegisterLocalGrpcSocket calls of lines
# 1517-1523), and its filer and S3 gateway listen on
# /tmp/seaweedfs-filer-PORT.sock and /tmp/seaweedfs-s3-PORT.sock when no
# socket is named (weed/command/filer.go line 557, weed/command/s3.go line
# 470): two clusters on one host would share them. The copy makes each
# path's folder os.TempDir(), the TMPDIR objectstore.sh gives the server (a
# folder of the run). Static (CGO_ENABLED=0), as SeaweedFS releases it.
build_seaweedfs() {
  local v=$SEAWEEDFS_VERSION r f
  r=$(recipe "$(declare -f build_seaweedfs module_copy go_build)" "$v" "$LDFLAGS" "$GCFLAGS")
  from_cache weed "$v" "$r" && return
  log "building weed (SeaweedFS) $v (about 5 minutes cold on 2 cores)"
  local src=$work/seaweedfs-$v
  module_copy github.com/seaweedfs/seaweedfs "$v" "$src"
  for f in mini.go filer.go s3.go; do
    f=$src/weed/command/$f
    grep -qF 'fmt.Sprintf("/tmp/seaweedfs-' "$f" || { log "$f no longer has its /tmp sockets: update build_seaweedfs"; exit 1; }
    perl -i -pe 's{fmt\.Sprintf\("/tmp/(seaweedfs-[^"]*)", }{fmt.Sprintf("%s/$1", os.TempDir(), }g' "$f"
    ! grep -n '"/tmp/seaweedfs-' "$f" >&2 || { log "$f: a /tmp socket is left (above): update build_seaweedfs"; exit 1; }
  done
  [ "$(grep -c 'os.TempDir(), ' "$src/weed/command/mini.go")" -ge 5 ] || { log "mini.go: fewer than 5 sockets moved: update build_seaweedfs"; exit 1; }
  CGO_ENABLED=0 go_build "$src" "$work/weed" ./weed -ldflags "$LDFLAGS"
  store weed "$v" "$r" "$work/weed"
  rm -rf "$src"
}
# build_rclone: rclone for the image mlcube-e2e/rclone:1 (images.sh), the
# fetching and uploading of a step's files, and objectstore.sh's signed
# readiness check. The copy's main (rclone.go, which imports backend/all
# and cmd/all) imports only the backends and commands below: 339 packages
# besides the standard library against 1,222 (go list -deps), no cloud SDK
# but AWS's. Static, with the version set as rclone's Makefile sets it
# (fs.Version in its LDFLAGS), so that `rclone version` says v1.71.1, not
# v1.71.1-DEV.
RCLONE_BACKENDS="s3 http local"
RCLONE_COMMANDS="copy copyto copyurl sync lsf lsjson cat hashsum mkdir version"
build_rclone() {
  local v=$RCLONE_VERSION r b c
  r=$(recipe "$(declare -f build_rclone module_copy go_build)" "$v" "$RCLONE_BACKENDS" "$RCLONE_COMMANDS" "$LDFLAGS" "$GCFLAGS")
  from_cache rclone "$v" "$r" && return
  log "building rclone $v (backends $RCLONE_BACKENDS; commands $RCLONE_COMMANDS)"
  local src=$work/rclone-$v
  module_copy github.com/rclone/rclone "$v" "$src"
  grep -qF '"github.com/rclone/rclone/cmd/all"' "$src/rclone.go" || { log "$src/rclone.go changed: update build_rclone"; exit 1; }
  {
    printf '// The e2e cluster'"'"'s rclone (scripts/e2e/build.sh): some backends and commands.\npackage main\n\nimport (\n'
    printf '\t"github.com/rclone/rclone/cmd"\n'
    for b in $RCLONE_BACKENDS; do printf '\t_ "github.com/rclone/rclone/backend/%s"\n' "$b"; done
    for c in $RCLONE_COMMANDS; do printf '\t_ "github.com/rclone/rclone/cmd/%s"\n' "$c"; done
    printf ')\n\nfunc main() { cmd.Main() }\n'
  } >"$src/rclone.go"
  CGO_ENABLED=0 go_build "$src" "$work/rclone" . -ldflags "$LDFLAGS -X github.com/rclone/rclone/fs.Version=$v"
  store rclone "$v" "$r" "$work/rclone"
  rm -rf "$src"
}

# The cluster's servers and operators: Kubernetes' own binaries, etcd,
# Tekton's binaries, Kueue, mpi-operator, Kubeflow Trainer and JobSet,
# KWOK and CoreDNS, built together
# from one module (operators/go.mod beside this script, which requires each
# at its version of versions.sh), so that the libraries they share
# (Kubernetes' staging modules, client-go, controller-runtime, knative,
# gRPC, etcd's client, the cloud SDKs) compile once: the Kubernetes
# binaries alone compile 2,570 packages and the operators 2,760, together
# 4,060. Go's minimal version selection gives each the newest version of a
# library that any of them asks for (k8s.io v0.36, controller-runtime
# v0.24; the e2e suite is what says they still behave: docs/e2e.md), which
# is why the cluster runs the Kubernetes release whose staging modules the
# operators need. The binaries are static (CGO_ENABLED=0, as Kubernetes'
# own release builds them): Tekton's run in pods, and one setting keeps
# every package compiled once. Kubeflow Trainer v2.3.0 is one of them, and
# so Kueue's TrainJob integration compiles against Trainer's v2.3.0 API
# (Kueue v0.19.2's go.mod asks for v2.2.1; the Kueue TrainJob test is what
# says it still behaves), with logr v1.4.4 and scheduler-plugins
# v0.35.4-devel for everyone.
#
OPERATOR_BINARIES="
kube-apiserver k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes KUBERNETES_VERSION
kube-controller-manager k8s.io/kubernetes/cmd/kube-controller-manager k8s.io/kubernetes KUBERNETES_VERSION
kube-scheduler k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes KUBERNETES_VERSION
kubectl k8s.io/kubernetes/cmd/kubectl k8s.io/kubernetes KUBERNETES_VERSION
kubelet k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes KUBERNETES_VERSION
kube-proxy k8s.io/kubernetes/cmd/kube-proxy k8s.io/kubernetes KUBERNETES_VERSION
etcd go.etcd.io/etcd/server/v3 go.etcd.io/etcd/server/v3 ETCD_VERSION
tekton-controller github.com/tektoncd/pipeline/cmd/controller github.com/tektoncd/pipeline TEKTON_VERSION
tekton-webhook github.com/tektoncd/pipeline/cmd/webhook github.com/tektoncd/pipeline TEKTON_VERSION
tekton-entrypoint github.com/tektoncd/pipeline/cmd/entrypoint github.com/tektoncd/pipeline TEKTON_VERSION
tekton-nop github.com/tektoncd/pipeline/cmd/nop github.com/tektoncd/pipeline TEKTON_VERSION
tekton-workingdirinit github.com/tektoncd/pipeline/cmd/workingdirinit github.com/tektoncd/pipeline TEKTON_VERSION
tekton-sidecarlogresults github.com/tektoncd/pipeline/cmd/sidecarlogresults github.com/tektoncd/pipeline TEKTON_VERSION
kueue sigs.k8s.io/kueue/cmd/kueue sigs.k8s.io/kueue KUEUE_VERSION
mpi-operator github.com/kubeflow/mpi-operator/cmd/mpi-operator github.com/kubeflow/mpi-operator MPI_OPERATOR_VERSION
trainer-controller-manager github.com/kubeflow/trainer/v2/cmd/trainer-controller-manager github.com/kubeflow/trainer/v2 TRAINER_VERSION
jobset sigs.k8s.io/jobset sigs.k8s.io/jobset JOBSET_VERSION
kwok sigs.k8s.io/kwok/cmd/kwok sigs.k8s.io/kwok KWOK_VERSION
coredns github.com/coredns/coredns github.com/coredns/coredns COREDNS_VERSION
"
# OPERATOR_PATCHES: MODULE VERSION-VARIABLE PATCH-FUNCTION, one a line:
# the modules the operators' module takes from a patched copy (a replace
# directive); the others come from the module proxy as they are.
OPERATOR_PATCHES="
github.com/tektoncd/pipeline TEKTON_VERSION patch_tekton
sigs.k8s.io/kueue KUEUE_VERSION patch_kueue
github.com/kubeflow/mpi-operator MPI_OPERATOR_VERSION patch_mpi_operator
github.com/coredns/coredns COREDNS_VERSION patch_coredns
"

# patch_tekton DIR: the copy leaves out two sets of cloud SDKs the e2e
# cluster never calls, a sixth of Tekton's packages: the KMS providers of
# trusted resources (AWS, Azure, GCP, Vault; blank imports in
# pkg/trustedresources/verifier/verifier.go, for VerificationPolicies,
# which the suite has none of), and the cloud registries' credential
# helpers (ECR, ACR, GCR) of k8schain, which reads a step image's
# entrypoint: go-containerregistry's Kubernetes keychain alone (which
# k8schain wraps: the image pull secrets of the run's service account)
# reads it from the e2e registry, which asks for no credentials.
patch_tekton() {
  local kms=github.com/sigstore/sigstore/pkg/signature/kms n
  for n in aws azure gcp hashivault; do
    patch_line "$1/pkg/trustedresources/verifier/verifier.go" "_ \"$kms/$n\"" ""
  done
  patch_line "$1/pkg/pod/entrypoint_lookup_impl.go" '"github.com/google/go-containerregistry/pkg/authn/k8schain"' \
    'k8schain "github.com/google/go-containerregistry/pkg/authn/kubernetes"'
}
# patch_kueue DIR: Kueue's controller manager, which admits the queued
# steps of the Kueue tests (scripts/e2e/kueue.sh starts it). Without its
# internal cert manager it reads its metrics server's certificate from a
# fixed /etc/kueue/metrics/certs (cmd/kueue/main.go): the copy reads the
# folder from KUEUE_METRICS_CERT_DIR, so that nothing is written under /etc.
patch_kueue() {
  replace_text "$1/cmd/kueue/main.go" 'metricsCertPath := "/etc/kueue/metrics/certs"' 'metricsCertPath := os.Getenv("KUEUE_METRICS_CERT_DIR")'
}
# patch_mpi_operator DIR: its health checks listen on 127.0.0.1 only.
patch_mpi_operator() {
  replace_text "$1/cmd/mpi-operator/app/server.go" 'fmt.Sprintf(":%d", healthCheckPort)' 'fmt.Sprintf("127.0.0.1:%d", healthCheckPort)'
}
# patch_coredns DIR: the cluster's DNS, which the ranks of an MPI step need
# to find their workers by name (mpi-operator's hostfile names
# <pod>.<job>.<namespace>.svc). The copy links only the plugins dns.sh's
# Corefile uses (COREDNS_PLUGINS): core/plugin/zplugin.go is the generated
# list of every plugin, and most of them bring cloud SDKs.
patch_coredns() {
  local f=$1/core/plugin/zplugin.go p
  grep -qF '_ "github.com/coredns/coredns/plugin/kubernetes"' "$f" || { log "$f changed: update patch_coredns"; exit 1; }
  printf 'package plugin\n\nimport (\n%s)\n' "$(for p in $COREDNS_PLUGINS; do printf '\t_ "github.com/coredns/coredns/plugin/%s"\n' "$p"; done)" >"$f"
}

# operator_recipe MODULE: the recipe of the binaries of one module of the
# operators: the module's go.mod and go.sum (every version), how they are
# built, and that module's own patch, so that a changed patch rebuilds
# only its module's binaries.
operator_recipe() {
  local mod var fn patch=""
  while read -r mod var fn; do
    [ "$mod" = "$1" ] && patch=$(declare -f "$fn" patch_line replace_text)
  done <<<"$OPERATOR_PATCHES"
  [ "$1" != github.com/coredns/coredns ] || patch+=" $COREDNS_PLUGINS"
  [ "$1" != k8s.io/kubernetes ] || patch+=" $(declare -f kube_ldflags)"
  recipe "$(declare -f build_operators build_operator_group module_copy go_build_into exe_name)" "$(cat "$here/operators/go.mod" "$here/operators/go.sum")" "$1" "$patch" "$LDFLAGS" "$GCFLAGS"
}

# operators_pinned: fails unless operators/go.mod requires each module of
# OPERATOR_BINARIES at its version of versions.sh, the staging modules at
# Kubernetes' own, and etcd at the version Kubernetes pins.
operators_pinned() {
  local n pkg mod var mods=$here/operators/go.mod kube
  while read -r n pkg mod var; do
    [ -n "$n" ] || continue
    grep -qE "^\s$mod ${!var}( |\$)" "$mods" || { log "operators/go.mod does not require $mod ${!var} (versions.sh): update it (go mod tidy there)"; exit 1; }
  done <<<"$OPERATOR_BINARIES"
  grep -qE "^\sk8s.io/api $KUBE_STAGING_VERSION( |\$)" "$mods" || { log "operators/go.mod does not require k8s.io/api $KUBE_STAGING_VERSION (versions.sh)"; exit 1; }
  kube=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^\t"GoMod": "\(.*\)",$/\1/p')
  grep -q "go.etcd.io/etcd/server/v3 $ETCD_VERSION" "$kube" || { log "kubernetes $KUBERNETES_VERSION does not pin etcd $ETCD_VERSION"; exit 1; }
}

build_operators() {
  local n pkg mod var v r missing=() kube=() others=()
  operators_pinned
  while read -r n pkg mod var; do
    [ -n "$n" ] || continue
    v=${!var}
    r=$(operator_recipe "$mod")
    from_cache "$n" "$v" "$r" && continue
    if [ "$mod" = k8s.io/kubernetes ]; then kube+=("$n $pkg $v $r"); else others+=("$n $pkg $v $r"); fi
  done <<<"$OPERATOR_BINARIES"
  [ $((${#kube[@]} + ${#others[@]})) -gt 0 ] || return 0
  local src=$work/operators fn
  mkdir -p "$src"
  cp "$here/operators/go.mod" "$here/operators/go.sum" "$src/"
  while read -r mod var fn; do
    [ -n "$mod" ] || continue
    module_copy "$mod" "${!var}" "$src/patched/$mod"
    "$fn" "$src/patched/$mod"
    (cd "$src" && go mod edit -replace "$mod=./patched/$mod")
  done <<<"$OPERATOR_PATCHES"
  # Kubernetes' binaries first, with the link flags only they take; the
  # others then find the packages they share in Go's build cache.
  [ ${#kube[@]} -eq 0 ] || build_operator_group "$src" "$LDFLAGS $(kube_ldflags)" "${kube[@]}"
  [ ${#others[@]} -eq 0 ] || build_operator_group "$src" "$LDFLAGS" "${others[@]}"
  rm -rf "$src"
}

# build_operator_group SRC LDFLAGS "NAME PKG VERSION RECIPE"...: builds the
# binaries with one go build and stores each.
build_operator_group() {
  local src=$1 ldflags=$2 n pkg v r pkgs=() names=()
  shift 2
  for m in "$@"; do read -r n pkg v r <<<"$m"; pkgs+=("$pkg"); names+=("$n"); done
  log "building ${names[*]} with one go build (operators/go.mod)"
  CGO_ENABLED=0 go_build_into "$src" "$work/out" -ldflags "$ldflags" "${pkgs[@]}"
  local took=$((SECONDS - built_from))
  for m in "$@"; do
    read -r n pkg v r <<<"$m"
    store "$n" "$v" "$r" "$work/out/$(exe_name "$pkg")" "$took"
  done
}
# The lanes of builds: the operators' module (most of the work), and
# Argo's two releases, each from a copy of its own module (they pin
# k8s.io v0.33, which nothing else shares), with the registry, and the
# object store's (below). One go build leaves a core idle while it waits
# on one big package, so they run at once on a 2-core machine.
lane_operators() {
  build_operators
}
lane_argo() {
  build_registry
  # The v3.7 controller and executor keep their names; the 4.x ones end in 4.
  build_argoexec argoexec github.com/argoproj/argo-workflows/v3 "$ARGO_VERSION"
  build_patched workflow-controller github.com/argoproj/argo-workflows/v3 "$ARGO_VERSION" ./cmd/workflow-controller \
    cmd/workflow-controller/main.go 'http.ListenAndServe(":6060"' 'http.ListenAndServe("127.0.0.1:6060"'
  build_argoexec argoexec4 github.com/argoproj/argo-workflows/v4 "$ARGO4_VERSION"
  build_patched workflow-controller4 github.com/argoproj/argo-workflows/v4 "$ARGO4_VERSION" ./cmd/workflow-controller \
    cmd/workflow-controller/main.go 'http.ListenAndServe(":6060"' 'http.ListenAndServe("127.0.0.1:6060"'
}

# The third lane: rclone and the object store, each from a copy of its
# own module (measured cold on 2 cores beside other work: rclone 93
# CPU-seconds, weed 389, 164 MB). rclone first: the images need it.
lane_objectstore() {
  build_rclone
  build_seaweedfs
}

# The fourth lane: the real node's runtime and its DRA driver, each from a
# copy of its own module (measured cold, alone on 2 cores: containerd and
# its shim 133 CPU-seconds, the driver 148).
#
# build_containerd: containerd and its runc shim, with one go build, for
# the CDI devices that kubelet passes in CRI's ContainerConfig.CDIDevices
# (DRA's, scripts/e2e/dra.sh), which Debian's containerd 1.6 ignores. Static
# (CGO_ENABLED=0), without the snapshotters that need cgo or a kernel
# module the node does not use (btrfs, devmapper, ZFS) and without
# OpenTelemetry's exporters (cmd/containerd/builtins/*.go in the module say
# which tag drops which); urfave_cli_no_docs as its Makefile builds it.
CONTAINERD_TAGS="no_btrfs no_devmapper no_zfs no_tracing urfave_cli_no_docs osusergo netgo"
build_containerd() {
  local v=$CONTAINERD_VERSION r n missing=()
  r=$(recipe "$(declare -f build_containerd module_copy go_build_into)" "$v" "$CONTAINERD_TAGS" "$LDFLAGS" "$GCFLAGS")
  for n in containerd containerd-shim-runc-v2; do from_cache "$n" "$v" "$r" || missing+=("$n"); done
  [ ${#missing[@]} -gt 0 ] || return 0
  log "building containerd and containerd-shim-runc-v2 $v"
  local src=$work/containerd-$v
  module_copy github.com/containerd/containerd/v2 "$v" "$src"
  CGO_ENABLED=0 go_build_into "$src" "$work/containerd-out" -tags "$CONTAINERD_TAGS" \
    -ldflags "$LDFLAGS -X github.com/containerd/containerd/v2/version.Version=$v" ./cmd/containerd ./cmd/containerd-shim-runc-v2
  local took=$((SECONDS - built_from))
  for n in containerd containerd-shim-runc-v2; do store "$n" "$v" "$r" "$work/containerd-out/$n" "$took"; done
  rm -rf "$src"
}
# build_dra_driver: the DRA example driver's kubelet plugin, with the
# versions its own go.mod pins (k8s.io v0.34: in the operators' module,
# its CDI library's runtime-tools does not compile against the newer
# runtime-spec). Its module's checksum is missing from the checksum
# database, so the download skips it (GONOSUMDB, here only) and the hash
# is checked against versions.sh's instead.
build_dra_driver() {
  local v=$DRA_DRIVER_VERSION mod=sigs.k8s.io/dra-example-driver n=dra-example-kubeletplugin r sum
  r=$(recipe "$(declare -f build_dra_driver module_copy go_build)" "$v" "$DRA_DRIVER_SUM" "$LDFLAGS" "$GCFLAGS")
  from_cache "$n" "$v" "$r" && return
  log "building $n $v"
  local -x GONOSUMDB=$mod${GONOSUMDB:+,$GONOSUMDB}
  sum=$(go mod download -json "$mod@$v" | sed -n 's/^\t"Sum": "\(.*\)",$/\1/p')
  [ "$sum" = "$DRA_DRIVER_SUM" ] || { log "$mod@$v has hash '$sum', not $DRA_DRIVER_SUM (versions.sh)"; exit 1; }
  local src=$work/$n-$v
  module_copy "$mod" "$v" "$src"
  CGO_ENABLED=0 go_build "$src" "$work/$n" ./cmd/$n -ldflags "$LDFLAGS"
  store "$n" "$v" "$r" "$work/$n"
  rm -rf "$src"
}
lane_node() {
  build_containerd
  build_dra_driver
}

# The lanes, and the images' Debian root filesystem (mostly downloads),
# run as jobs of their own process groups (set -m), so that the first
# failure, an interrupt or the end of this script stops all of them,
# children included.
jobs_left=()
stop_jobs() { local p; for p in "${jobs_left[@]}"; do kill -- "-$p" 2>/dev/null || true; done; }
trap 'stop_jobs; rm -rf "$work"' EXIT
trap 'exit 130' INT TERM
set -m
lane_operators &
jobs_left+=($!)
lane_argo &
jobs_left+=($!)
lane_objectstore &
jobs_left+=($!)
lane_node &
jobs_left+=($!)
bash "$here/images.sh" rootfs &
jobs_left+=($!)
set +m
while [ ${#jobs_left[@]} -gt 0 ]; do
  wait -n -p finished "${jobs_left[@]}" || { log "a build failed (above): the others are stopped"; exit 1; }
  left=()
  for p in "${jobs_left[@]}"; do [ "$p" = "$finished" ] || left+=("$p"); done
  jobs_left=(${left[@]+"${left[@]}"})
done
log "ready in $E2E_BIN (the cache: $E2E_CACHE)"
bash "$here/images.sh"
