# Pinned versions for the e2e cluster; sourced by build.sh, up.sh and down.sh.
# Each binary is cached under $E2E_CACHE/bin/<name>-<version>-<recipe>/,
# where <recipe> hashes the build steps and patches that make it
# (build.sh): changing a version or a patch here rebuilds only that binary.
KUBERNETES_VERSION=v1.36.3
KUBE_STAGING_VERSION=v0.36.3
ETCD_VERSION=v3.6.8
KWOK_VERSION=v0.8.0
# Argo: the suite runs against the v3.7 controller and again against the
# 4.x one (run.sh), each with its own executor.
ARGO_VERSION=v3.7.18
ARGO4_VERSION=v4.0.7
TEKTON_VERSION=v1.15.1
MPI_OPERATOR_VERSION=v0.8.2
# Kueue's controller: queues, quotas and admission of GPU steps.
KUEUE_VERSION=v0.19.2
# Only its kubeflow.org/v1 MPIJob CRD, served beside mpi-operator's v2beta1.
TRAINING_OPERATOR_VERSION=v1.9.2
# Kubeflow Trainer's controller manager (TrainJobs and their runtimes) and
# JobSet's, which runs the JobSet each TrainJob becomes (trainer.sh).
TRAINER_VERSION=v2.3.0
JOBSET_VERSION=v0.12.0
# The cluster's object store (scripts/e2e/objectstore.sh): SeaweedFS's
# `weed mini`, whose S3 gateway listens on the node's address at S3_PORT
# and holds S3_BUCKET, Argo's artifact repository. No release tag of the
# module is a Go module version, so it is pinned by commit.
SEAWEEDFS_VERSION=v0.0.0-20261109003541-7506e5f91cd6
S3_PORT=8333
S3_BUCKET=mlcube-e2e
S3_REGION=us-east-1
# The Secret of the store's keys (keys accessKey and secretKey) that Argo's
# artifact repository names, in each namespace that uses it.
S3_SECRET=s3-credentials
# The Service S3_SERVICE in namespace S3_SERVICE_NAMESPACE is the gateway
# too, for pods (the examples' platforms name seaweedfs.storage:8333).
S3_SERVICE=seaweedfs
S3_SERVICE_NAMESPACE=storage
# rclone, trimmed (build.sh), in the image mlcube-e2e/rclone:1 that
# fetches and uploads a step's files to and from the object store.
RCLONE_VERSION=v1.71.1
RCLONE_IMAGE=mlcube-e2e/rclone:1

E2E_ROOT=${E2E_ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.e2e}
# The build cache lives outside the checkout, so that every clone on this
# machine (CI's included) shares what one of them built; MLCUBE_E2E_CACHE
# moves it, make e2e-clean-cache empties it.
E2E_CACHE=${MLCUBE_E2E_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/mlcube-compile/e2e}
# build.sh marks the folder as the cache, so that clean-cache.sh removes
# only a folder that is one.
E2E_CACHE_MARK=.mlcube-compile-e2e-cache
E2E_BIN=$E2E_ROOT/bin
E2E_RUN=$E2E_ROOT/run
# The images this checkout's node imports: links into the cache.
E2E_IMAGES=$E2E_ROOT/images
# The real node's images start from this Debian suite (scripts/e2e/images.sh).
DEBIAN_SUITE=bookworm
DEBIAN_MIRROR=http://deb.debian.org/debian
TEKTON_BINARIES="controller webhook entrypoint nop workingdirinit sidecarlogresults"
# go-containerregistry: the version Tekton pins; its registry serves the
# real node's image to Tekton's controller.
GGCR_VERSION=v0.21.6
REGISTRY_PORT=15000
# The real node (scripts/e2e/node.sh): its address on lo, which the API
# server binds too, its pods' bridge and addresses, its cgroup, the taint
# that keeps the suite's KWOK pods off it, and the GPUs it advertises.
NODE_NAME=mlcube-e2e-node
NODE_IP=10.213.0.1
NODE_BRIDGE=mlcube-e2e0
NODE_POD_CIDR=10.213.64.0/24
NODE_CGROUP=${E2E_NETNS:-mlcube-e2e}
NODE_TAINT=e2e.mlcube-compile.io/real-node
# 16: the suite's runs share them at once (-parallel in run.sh), up to
# four MPI steps of 4 GPUs among them.
NODE_GPUS=16
# The real node's runtime: containerd and its runc shim, built from the
# module (build.sh), whose CRI plugin hands a container the CDI devices
# kubelet names (Debian's containerd 1.6 has no CDI).
CONTAINERD_VERSION=v2.4.2
# Dynamic Resource Allocation on the real node (scripts/e2e/dra.sh): the
# DRA example driver's kubelet plugin, a process of the cluster, publishes
# DRA_DEVICES simulated GPUs (as many as NODE_GPUS, for the same parallel
# runs) of driver DRA_DRIVER, which the DeviceClass of that name selects;
# a container's limit of DRA_EXTENDED_RESOURCE gets one of them too. The
# driver's checksum is not in the Go checksum database: build.sh fetches
# it with GONOSUMDB and checks its hash against DRA_DRIVER_SUM instead.
DRA_DRIVER_VERSION=v0.2.0
DRA_DRIVER_SUM=h1:wIVDmIza7969HfPl0EFuB2B45Axd2U3Mt9nXex53iYs=
DRA_DRIVER=gpu.example.com
DRA_DEVICES=16
DRA_EXTENDED_RESOURCE=example.com/gpu
# The cluster's DNS (scripts/e2e/dns.sh): CoreDNS with only the plugins
# its Corefile uses, on the node's address, behind the kube-dns Service.
CLUSTER_DNS_IP=10.0.0.10
# The Services' addresses (up.sh gives it to the API server).
SERVICE_CIDR=10.0.0.0/24
COREDNS_VERSION=v1.13.1
COREDNS_PLUGINS="bind errors kubernetes"
COREDNS_PORT=10053
# The cluster's own network namespace (node.sh's node_netns): every
# address above exists only there. Its name also names the node's cgroup.
E2E_NETNS=${E2E_NETNS:-mlcube-e2e}
# netns_inode NAME: the inode of a network namespace, which names that
# namespace while it lives (empty if there is none): how the scripts know
# the one of that name as this checkout's (node.sh records it).
netns_inode() { stat -L -c %i "/run/netns/$1" 2>/dev/null; }
