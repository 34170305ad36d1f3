#!/usr/bin/env bash
# Builds the images the real e2e node runs, as docker-archive tars that
# up.sh imports into the node's containerd; nothing is ever pulled.
#   mlcube-e2e/base:1   Debian bookworm (minbase) with python3 and bash; its
#                       entrypoint, and its `python`, is image/record, which
#                       stands in for every cube's program; it also holds
#                       kubectl, argoexec and Tekton's binaries (under
#                       /ko-app, where Tekton's controller runs them from),
#                       and what an MPI step's pods need, set up as
#                       mpi-operator's own images are (build/base/Dockerfile
#                       and openmpi.Dockerfile in its module): OpenMPI,
#                       mpi4py, and sshd run by user mpiuser (uid 1000) on
#                       port 2222 with the key mpi-operator mounts; and
#                       PyTorch (Debian's python3-torch 1.13, CPU, with
#                       the gloo backend) and its torchrun, through
#                       image/torchrun, whose ranks run the recorder as
#                       `python`, for the TrainJobs of Kubeflow Trainer.
#   mlcube-e2e/nop:1    the same files, with Tekton's nop as entrypoint, run
#                       as uid 65532, distroless' nonroot, as Tekton's own
#                       images are (ko's default base).
#   mlcube-e2e/tekton:1 the same files as uid 65532: the image of Tekton's
#                       controller and webhook, and of the containers it
#                       adds to a step's pod (prepare, place-scripts,
#                       working-dir-initializer), which its
#                       set-security-context flag runs with runAsNonRoot
#                       and no user of their own (tekton.sh).
#   mlcube-e2e/user:1   the same files, run as uid 1000 (the image's own
#                       USER, mpiuser), as an image that runs as a user of
#                       its own: the steps that read what was fetched as
#                       another uid than the one that fetched it.
#   mlcube-e2e/argo4:1  the same files, with Argo 4's argoexec first on its
#                       PATH: the executor image of the 4.x controller,
#                       whose init and wait containers run `argoexec`
#                       (workflow/controller/workflowpod.go).
#   mlcube-e2e/rclone:1 the same files, rclone (build.sh) among them at
#                       /usr/local/bin/rclone, with entrypoint `rclone`, as
#                       docker.io/rclone/rclone's (Dockerfile in rclone's
#                       module): the image that fetches and uploads a step's
#                       files to and from the object store, with `sh -c`
#                       scripts of rclone, sha256sum, find and sort. Its sh
#                       is Debian's dash, upstream's busybox's: the scripts
#                       must stay POSIX. A name of the base image's one
#                       layer, so that the node imports nothing more.
#   mlcube-e2e/pause:1  the pod sandbox: Kubernetes' own pause.c, static.
#   mlcube-e2e/workspace:1  a cube's image that keeps its program in
#                       /workspace, as MLCube's template does: image/
#                       workspace.c, static, at /workspace/train, its
#                       entrypoint; the one file of a layer of its own. On
#                       Tekton, which mounts an emptyDir at /workspace in
#                       every step, it runs only where the step mounts its
#                       image's /workspace.
# PyTorch is in the one root filesystem, not an image of its own: each
# image here is one layer of the same files, so a step of any image (a
# workflow's kubectl or executor step beside a TrainJob's ranks) finds
# what it needs, and the node imports one layer. Measured on 2 cores
# that other work kept busy (bookworm, 2026-11): debootstrap 84 and 112 s
# without python3-torch, 163 and 275 s with it (the second run 43 against
# 113 CPU-seconds; 460 packages against 157: libtorch pulls OpenCV, LLVM,
# GDAL, Qt and more, nearly all in the import's library closure); the root
# filesystem's tar 1,305 MB against 230 MB; `import torch,
# torch.distributed` about 4 s. The debootstrap runs beside the Go builds
# (build.sh), so a cold run waits for none of it; the larger layer costs
# the node's import at each start: 45 to 50 s against 20 (the base image
# 1,849 MB against 774; docs/development.md).
# The Debian root filesystem and the images are cached as tars in
# $E2E_CACHE/images, each named by a hash of what goes into it, so an image
# is rebuilt only when that changes; .e2e/images/ links to the ones this
# checkout's node imports.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
log() { printf 'e2e images: %s\n' "$*" >&2; }
export GOTOOLCHAIN=local GOFLAGS=-mod=mod GOWORK=off

images=$E2E_CACHE/images
mkdir -p "$images" "$E2E_CACHE/tmp" "$E2E_IMAGES"
work=$(mktemp -d "$E2E_CACHE/tmp/images.XXXXXX")
trap 'rm -rf "$work"' EXIT

# rootfs: debootstrap's minbase with these packages, without apt's caches.
packages=python3,openmpi-bin,python3-mpi4py,openssh-server,openssh-client,python3-torch
rootfs=$E2E_CACHE/rootfs-$DEBIAN_SUITE-$(echo "$packages" | sha256sum | cut -c1-8).tar
# make_rootfs: the root filesystem's tar, from the cache or debootstrapped.
make_rootfs() {
  [ ! -s "$rootfs" ] || { log "the $DEBIAN_SUITE root filesystem: from the cache ($(basename "$rootfs"))"; return; }
  log "debootstrap $DEBIAN_SUITE minbase with $packages (about three minutes)"
  tmp=$work/rootfs
  mkdir -p "$tmp"
  debootstrap --variant=minbase --include="$packages" "$DEBIAN_SUITE" "$tmp" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  # With python3-torch's packages, debootstrap once left the target's
  # /proc mounted (not again since): it must not go into the tar, nor
  # stop its removal.
  ! mountpoint -q "$tmp/proc" || umount "$tmp/proc"
  rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/lib/apt/lists/* "$tmp"/usr/share/doc "$tmp"/usr/share/man \
    "$tmp"/etc/ssh/ssh_host_*
  tar -C "$tmp" --numeric-owner -cf "$rootfs.part.$$" .
  mv "$rootfs.part.$$" "$rootfs"
  rm -rf "$tmp"
}
# images.sh rootfs: only the root filesystem, which needs none of the
# binaries (build.sh makes it while they build).
if [ "${1:-}" = rootfs ]; then make_rootfs; exit; fi
make_rootfs

std_path=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# archive DIR OUT NAME:TAG ENTRYPOINT-JSON PATH USER [NAME:TAG ENTRYPOINT-JSON PATH USER...]:
# a docker-archive of one-layer images of DIR, one per name, which share
# the layer and differ in their entrypoint, PATH and user ("" for root,
# the config then naming none).
archive() {
  local dir=$1 out=$2 work diffid config ref entrypoint path user manifest=""
  shift 2
  work=$(mktemp -d "$E2E_CACHE/tmp/image.XXXXXX")
  tar -C "$dir" --numeric-owner --sort=name --mtime=@0 -cf "$work/layer.tar" .
  diffid=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  mkdir "$work/$diffid"; mv "$work/layer.tar" "$work/$diffid/layer.tar"
  while [ $# -gt 0 ]; do
    ref=$1 entrypoint=$2 path=$3 user=$4
    shift 4
    printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":{%s"Entrypoint":%s,"Env":["PATH=%s"],"WorkingDir":"/"},"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
      "${user:+\"User\":\"$user\",}" "$entrypoint" "$path" "$diffid" >"$work/config.json"
    config=$(sha256sum "$work/config.json" | cut -d' ' -f1)
    mv "$work/config.json" "$work/$config.json"
    manifest+="${manifest:+,}$(printf '{"Config":"%s.json","RepoTags":["%s"],"Layers":["%s/layer.tar"]}' "$config" "$ref" "$diffid")"
  done
  printf '[%s]' "$manifest" >"$work/manifest.json"
  (cd "$work" && tar -cf "$out.part.$$" -- *)
  mv "$out.part.$$" "$out"
  rm -rf "$work"
}

# mpi_setup DIR: the user, sshd and OpenMPI settings of mpi-operator's
# base and openmpi images. sshd runs as mpiuser, so it listens on 2222 and
# takes its host key from the key mpi-operator mounts at
# /home/mpiuser/.ssh; StrictModes is off because that folder is a Secret
# volume owned by root. ssh asks nothing about host keys and writes no
# known_hosts (the folder is read-only). The ranks run under sshd, not in
# the pod's environment, so OpenMPI's settings go in its system file: the
# ob1 messaging layer over TCP (the pods have no fabric).
mpi_setup() {
  local dir=$1
  chroot "$dir" useradd -m -u 1000 -s /bin/bash mpiuser
  mkdir -p "$dir/run/sshd"
  printf 'PidFile /home/mpiuser/sshd.pid\nHostKey /home/mpiuser/.ssh/id_rsa\nStrictModes no\nPort 2222\n' \
    >"$dir/home/mpiuser/.sshd_config"
  chroot "$dir" chown mpiuser:mpiuser /home/mpiuser/.sshd_config
  printf 'Host *\n    StrictHostKeyChecking no\n    UserKnownHostsFile /dev/null\n    Port 2222\n' \
    >>"$dir/etc/ssh/ssh_config"
  printf 'pml = ob1\nbtl = self,tcp\nosc = ^ucx\n' >>"$dir/etc/openmpi/openmpi-mca-params.conf"
}

# torch_setup DIR: Debian's torchrun (PyTorch 1.13) fails at its start
# under Python 3.11 ("'NoneType' object has no attribute 'get'"): 3.11's
# IntFlag no longer iterates over a flag's zero and multi-bit members, so
# Std.from_str("0"), the default of its --redirects and --tee, finds none
# and gives None (torch/distributed/elastic/multiprocessing/api.py;
# PyTorch 2.0 no longer iterates). The copy names the four members.
torch_setup() {
  local f=$1/usr/lib/python3/dist-packages/torch/distributed/elastic/multiprocessing/api.py
  grep -qxF '            for s in Std:' "$f" || { log "$f changed: update torch_setup"; exit 1; }
  sed -i 's/^            for s in Std:$/            for s in (Std.NONE, Std.OUT, Std.ERR, Std.ALL):/' "$f"
}

# The inputs of the base image, by content alone (not by path, which
# differs from clone to clone): a change to any of them rebuilds it.
base_inputs() {
  local f
  for f in "$rootfs" "$here/image/record" "$here/image/torchrun" "$here/images.sh" \
    "$E2E_BIN/kubectl" "$E2E_BIN/argoexec" "$E2E_BIN/argoexec4" "$E2E_BIN/rclone" $(for n in $TEKTON_BINARIES; do echo "$E2E_BIN/tekton-$n"; done); do
    sha256sum <"$f"
  done
}
key=$(base_inputs | sha256sum | cut -c1-16)
if [ ! -s "$images/base-$key.tar" ]; then
  log "mlcube-e2e/base:1: building ($key)"
  dir=$work/base
  mkdir -p "$dir"
  tar -C "$dir" -xf "$rootfs"
  mpi_setup "$dir"
  torch_setup "$dir"
  install -m 0755 "$here/image/record" "$dir/usr/local/bin/mlcube-e2e-record"
  ln -s mlcube-e2e-record "$dir/usr/local/bin/python"
  install -m 0755 "$here/image/torchrun" "$dir/usr/local/bin/torchrun"
  strip -o "$dir/usr/local/bin/kubectl" "$E2E_BIN/kubectl"
  strip -o "$dir/usr/local/bin/argoexec" "$E2E_BIN/argoexec"
  install -m 0755 "$E2E_BIN/rclone" "$dir/usr/local/bin/rclone"
  mkdir -p "$dir/usr/local/argo4/bin"
  strip -o "$dir/usr/local/argo4/bin/argoexec" "$E2E_BIN/argoexec4"
  mkdir -p "$dir/ko-app"
  for n in $TEKTON_BINARIES; do strip -o "$dir/ko-app/$n" "$E2E_BIN/tekton-$n"; done
  # mlcube-e2e/nop:1 is Tekton's nop image (its affinity assistant runs
  # the image's entrypoint with an argument).
  archive "$dir" "$images/base-$key.tar" mlcube-e2e/base:1 '["/usr/local/bin/mlcube-e2e-record"]' "$std_path" "" \
    mlcube-e2e/nop:1 '["/ko-app/nop"]' "$std_path" 65532 \
    mlcube-e2e/tekton:1 '["/ko-app/controller"]' "$std_path" 65532 \
    mlcube-e2e/user:1 '["/usr/local/bin/mlcube-e2e-record"]' "$std_path" 1000 \
    mlcube-e2e/argo4:1 '["/usr/local/bin/mlcube-e2e-record"]' "/usr/local/argo4/bin:$std_path" "" \
    "$RCLONE_IMAGE" '["rclone"]' "$std_path" ""

  rm -rf "$dir"
else
  log "mlcube-e2e/base:1: from the cache ($key)"
fi
ln -sfn "$images/base-$key.tar" "$E2E_IMAGES/base.tar"

pause_src=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')/build/pause/linux/pause.c
pause_key=$({ sha256sum "$pause_src" | cut -d' ' -f1; gcc --version | head -1; echo "$KUBERNETES_VERSION"; declare -f archive; } | sha256sum | cut -c1-16)
if [ ! -s "$images/pause-$pause_key.tar" ]; then
  log "mlcube-e2e/pause:1: building from $pause_src ($pause_key)"
  dir=$work/pause
  mkdir -p "$dir"
  gcc -Os -static -DVERSION="$KUBERNETES_VERSION" -o "$dir/pause" "$pause_src"
  strip "$dir/pause"
  archive "$dir" "$images/pause-$pause_key.tar" mlcube-e2e/pause:1 '["/pause"]' "$std_path" ""
  rm -rf "$dir"
else
  log "mlcube-e2e/pause:1: from the cache ($pause_key)"
fi
ln -sfn "$images/pause-$pause_key.tar" "$E2E_IMAGES/pause.tar"

workspace_key=$({ sha256sum <"$here/image/workspace.c"; gcc --version | head -1; declare -f archive; } | sha256sum | cut -c1-16)
if [ ! -s "$images/workspace-$workspace_key.tar" ]; then
  log "mlcube-e2e/workspace:1: building ($workspace_key)"
  dir=$work/workspace
  mkdir -p "$dir/workspace"
  gcc -Os -static -o "$dir/workspace/train" "$here/image/workspace.c"
  strip "$dir/workspace/train"
  archive "$dir" "$images/workspace-$workspace_key.tar" mlcube-e2e/workspace:1 '["/workspace/train"]' "$std_path" ""
  rm -rf "$dir"
else
  log "mlcube-e2e/workspace:1: from the cache ($workspace_key)"
fi
ln -sfn "$images/workspace-$workspace_key.tar" "$E2E_IMAGES/workspace.tar"
log "ready in $E2E_IMAGES (the cache: $images)"
