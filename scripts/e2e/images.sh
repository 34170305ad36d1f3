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
#   mlcube-e2e/dask:1   the same files, with no entrypoint and user 1000,
#                       as a Dask image built FROM debian:bookworm-slim
#                       with USER 1000 (examples/dask-map's Containerfile):
#                       a Dask step's JobSet runs its args, `sh -c` around
#                       dask scheduler and dask worker, and python3 -c for
#                       the client (e2e/daskreal_test.go).
#   mlcube-e2e/pause:1  the pod sandbox: Kubernetes' own pause.c, static.
#   mlcube-e2e/workspace:1  a cube's image that keeps its program in
#                       /workspace, as MLCube's template does: image/
#                       workspace.c, static, at /workspace/train, its
#                       entrypoint; the one file of a layer of its own. On
#                       Tekton, which mounts an emptyDir at /workspace in
#                       every step, it runs only where the step mounts its
#                       image's /workspace.
#   mlcube-e2e/cube-ID:1  a real cube's image, laid out as its own
#                       Dockerfile lays it out (cubeimage, beside this
#                       script): the base's layer and one of the cube's
#                       files, copied unchanged from ../shared at build time
#                       (never committed), with its Dockerfile's
#                       destinations, WORKDIR, ENV, ENTRYPOINT, CMD and
#                       USER; the recorder (and its python and torchrun)
#                       hidden, and the base's mpiuser dropped, so that a
#                       Dockerfile's `useradd NAME` gets uid 1000 as on a
#                       python:*-slim base. Its Python requirements are the
#                       root filesystem's Debian packages. IDs (cubes,
#                       below; the spec each is built from, in ../shared):
#                         hello-world          cubes-src/mlcube_examples/hello_world
#                         hello-world-10       cubes-1.0/mlcube_examples/hello_world (build/)
#                         chestxray-prep       medperf chestxray_tutorial/data_preparator
#                         chestxray-cnn        medperf chestxray_tutorial/model_custom_cnn
#                         chestxray-metrics    medperf chestxray_tutorial/metrics
#                         medperf-prep-sep     medperf tests/prep-sep
#                         medperf-model-cpu    medperf tests/model-cpu
#                         medperf-metrics      medperf tests/metrics
#                         medperf-model-bug    medperf tests/model-bug
#                         brats-prep           medperf BraTS2024/data_prep (USER nonrootuser)
#                         brats-dummy-model    medperf BraTS2024/dummy_model (USER nonrootuser)
#                       and the images of the repository's examples that
#                       have a Containerfile (examples, below):
#                         dask-map             examples/dask-map: Debian's
#                                              Dask, pandas and sklearn,
#                                              benchmark_map.py, USER 1000
#                       They are in the base image's archive, so the node
#                       imports the shared layer once; without
#                       ../shared/cubes-src (or cubes-1.0) there are no
#                       cubes' (the examples' are always there), and the
#                       tests that run them skip. tekton.sh pushes them to
#                       the node's registry, by whose name the tests run
#                       them.
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
# 1,849 MB against 774; docs/development.md). The cubes' Python packages
# (2026-11-28, the same 2 cores, busy): 547 packages against 460 before
# drop_pythran (below) purges the 55 that python3-scipy's python3-pythran
# brings; the root filesystem's tar 1,608 MB against 1,305 (2,112 with
# them); debootstrap and drop_pythran 250 s (107 CPU-seconds; drop_pythran
# about 6 s of it), debootstrap alone 196 s (93); the base image's
# archive, with the cubes' 11 layers (0.3 MB), 2,152 MB against 1,849,
# its import into a containerd of its own 36 and 44 s against 22 and 26.
# Dask's python3-distributed (2026-11-29, the same 2 cores at a load of
# 8): 507 packages against 492 (dask, cloudpickle, tornado, msgpack,
# zict and 10 more); the root filesystem's tar 1,641 MB against 1,608;
# debootstrap and drop_pythran 245 s (111 CPU-seconds) against 178 (94)
# just before it; the base image's archive 2,185 MB against 2,152.
# examples/dask-map's image (2026-11-29, the same 2 cores at a load of
# 2): the base image's build (its rootfs cached) 20.2 and 20.5 s against
# 23.0 and 20.8 s without it, the archive 20 KB larger; tekton.sh's push
# of it 0.1 s (its registry has the shared layer already).
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

# rootfs: debootstrap's minbase with these packages, without apt's caches:
# the system's, and the Debian packages of the Python requirements of the
# cubes the suite runs in images built as their Dockerfiles build them
# (cubeimage's table, beside this script).
packages=python3,openmpi-bin,python3-mpi4py,openssh-server,openssh-client,python3-torch
packages+=,python3-torchvision,python3-typer,python3-yaml,python3-numpy,python3-pil,python3-tqdm
packages+=,python3-sklearn,python3-pandas,python3-typing-extensions
# Dask (python3-distributed 2022.12.1: dask scheduler, dask worker and its
# Client), for a Dask step's JobSet on the real node (e2e/daskreal_test.go).
packages+=,python3-distributed

# drop_pythran DIR: python3-sklearn needs python3-scipy, which Depends on
# python3-pythran, a Python-to-C++ compiler for building extensions,
# which Depends on g++, Boost's headers, OpenBLAS's and Python's
# development files: 55 packages, 504 MB of the 2,112 MB tar, that no
# cube runs (bookworm, 2026-11; scikit-learn's roc_auc_score, SciPy,
# pandas and torch import without them). An empty python3-pythran stands
# in for it, every package not asked for (nor required, important or
# essential) is marked automatic, and apt's autoremove purges what is
# then needed by nothing asked for: debootstrap installs no Recommends,
# so none count.
drop_pythran() {
  local dir=$1
  mkdir -p "$dir/tmp/pythran/DEBIAN"
  printf 'Package: python3-pythran\nVersion: %s+e2e\nArchitecture: all\nMaintainer: mlcube-compile e2e <e2e@localhost>\nDescription: empty stand-in (scripts/e2e/images.sh)\n' \
    "$(chroot "$dir" dpkg-query -W -f '${Version}' python3-pythran)" >"$dir/tmp/pythran/DEBIAN/control"
  chroot "$dir" dpkg-deb --build /tmp/pythran /tmp/pythran.deb >/dev/null
  chroot "$dir" dpkg -i /tmp/pythran.deb >/dev/null
  rm -rf "$dir/tmp/pythran" "$dir/tmp/pythran.deb"
  chroot "$dir" dpkg-query -W -f '${Package} ${Priority} ${Essential}\n' |
    awk '$2 != "required" && $2 != "important" && $3 != "yes" {print $1}' | xargs chroot "$dir" apt-mark auto >/dev/null
  chroot "$dir" apt-mark manual ${packages//,/ } >/dev/null
  chroot "$dir" apt-get -y -o APT::AutoRemove::RecommendsImportant=false -o APT::AutoRemove::SuggestsImportant=false \
    autoremove --purge
}
# The cache's name hashes the packages and how the tar is made.
rootfs=$E2E_CACHE/rootfs-$DEBIAN_SUITE-$({ echo "$packages"; declare -f drop_pythran; } | sha256sum | cut -c1-8).tar
# make_rootfs: the root filesystem's tar, from the cache or debootstrapped.
make_rootfs() {
  [ ! -s "$rootfs" ] || { log "the $DEBIAN_SUITE root filesystem: from the cache ($(basename "$rootfs"))"; return; }
  log "debootstrap $DEBIAN_SUITE minbase with $packages (about three minutes)"
  tmp=$work/rootfs
  mkdir -p "$tmp"
  debootstrap --variant=minbase --include="$packages" "$DEBIAN_SUITE" "$tmp" "$DEBIAN_MIRROR" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  drop_pythran "$tmp" >>"$work/debootstrap.log" 2>&1 || { tail -20 "$work/debootstrap.log" >&2; exit 1; }
  log "purged what only python3-pythran needed: $(grep '^Removing ' "$work/debootstrap.log" | cut -d' ' -f2 | tr '\n' ' ')"
  # With python3-torch's packages, debootstrap once left the target's
  # /proc mounted (not again since): it must not go into the tar, nor
  # stop its removal.
  ! mountpoint -q "$tmp/proc" || umount "$tmp/proc"
  rm -rf "$tmp"/var/cache/apt/archives/*.deb "$tmp"/var/cache/apt/*.bin "$tmp"/var/lib/apt/lists/* "$tmp"/usr/share/doc "$tmp"/usr/share/man \
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

# config ENTRYPOINT-JSON PATH USER: an image's "config" with that
# entrypoint, PATH and user ("" for root, the config then naming none).
config() {
  printf '{%s"Entrypoint":%s,"Env":["PATH=%s"],"WorkingDir":"/"}' "${3:+\"User\":\"$3\",}" "$1" "$2"
}

# archive DIR OUT NAME:TAG CONFIG LAYER [NAME:TAG CONFIG LAYER...]: a
# docker-archive of images of DIR's files, one per name, which share that
# layer and differ in their config (config's, or cubeimage's); an image
# whose LAYER is a folder ("" for none) has a second layer of its files.
archive() {
  local dir=$1 out=$2 work diffid ids config ref manifest="" layers
  shift 2
  work=$(mktemp -d "$E2E_CACHE/tmp/image.XXXXXX")
  # layer FOLDER: the layer of FOLDER's files (their owners by number) in the
  # archive; its diff ID in $diffid.
  layer() {
    tar -C "$1" --numeric-owner --sort=name --mtime=@0 -cf "$work/layer.tar" .
    diffid=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
    mkdir -p "$work/$diffid"; mv "$work/layer.tar" "$work/$diffid/layer.tar"
  }
  layer "$dir"
  local base=$diffid
  while [ $# -gt 0 ]; do
    ref=$1 config=$2 ids="\"sha256:$base\"" layers="\"$base/layer.tar\""
    [ -z "$3" ] || { layer "$3"; ids+=",\"sha256:$diffid\"" layers+=",\"$diffid/layer.tar\""; }
    shift 3
    printf '{"architecture":"amd64","os":"linux","created":"1970-01-01T00:00:00Z","config":%s,"rootfs":{"type":"layers","diff_ids":[%s]}}' \
      "$config" "$ids" >"$work/config.json"
    config=$(sha256sum "$work/config.json" | cut -d' ' -f1)
    mv "$work/config.json" "$work/$config.json"
    manifest+="${manifest:+,}$(printf '{"Config":"%s.json","RepoTags":["%s"],"Layers":[%s]}' "$config" "$ref" "$layers")"
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

# The cubes the suite runs in images laid out as their own Dockerfiles
# lay them out (issue 50): an id, and the spec cubeimage builds from, in
# $shared. mlcube-e2e/cube-ID:1 is that image.
shared=$(cd "$here/../../.." && pwd)/shared
cubes=(
  hello-world cubes-src/mlcube_examples/hello_world/mlcube.yaml
  hello-world-10 cubes-1.0/mlcube_examples/hello_world/build/Dockerfile
  chestxray-prep cubes-src/medperf/examples/chestxray_tutorial/data_preparator/Dockerfile
  chestxray-cnn cubes-src/medperf/examples/chestxray_tutorial/model_custom_cnn/Dockerfile
  chestxray-metrics cubes-src/medperf/examples/chestxray_tutorial/metrics/Dockerfile
  medperf-prep-sep cubes-src/medperf/examples/tests/prep-sep/project/Dockerfile
  medperf-model-cpu cubes-src/medperf/examples/tests/model-cpu/project/Dockerfile
  medperf-metrics cubes-src/medperf/examples/tests/metrics/project/Dockerfile
  medperf-model-bug cubes-src/medperf/examples/tests/model-bug/Dockerfile
  brats-prep cubes-src/medperf/examples/BraTS2024/data_prep/mlcube/mlcube.yaml
  brats-dummy-model cubes-src/medperf/examples/BraTS2024/dummy_model/mlcube/mlcube.yaml
)
# The examples whose Containerfile cubeimage lays out as it does a
# cube's Dockerfile (their base is debian:*, the root filesystem's
# suite): an id, and the Containerfile, in the repository.
# mlcube-e2e/cube-ID:1 is that image (e2e/daskreal_test.go runs
# dask-map's under the name its pipeline gives).
repo=$(cd "$here/../.." && pwd)
examples=(
  dask-map examples/dask-map/Containerfile
)
have_cubes=yes
for d in cubes-src cubes-1.0; do
  [ -d "$shared/$d" ] || { have_cubes=""; log "no cube images: $shared/$d is absent (the real-cube tests skip)"; }
done

# The inputs of the base image, by content alone (not by path, which
# differs from clone to clone): a change to any of them rebuilds it.
# cubeimage's sources and the examples' build contexts are among them
# (but their YAML, the pipeline and platform, which no image holds), and
# the cubes' sources when the cubes are there.
base_inputs() {
  local f i
  for f in "$rootfs" "$here/image/record" "$here/image/torchrun" "$here/images.sh" \
    "$E2E_BIN/kubectl" "$E2E_BIN/argoexec" "$E2E_BIN/argoexec4" "$E2E_BIN/rclone" $(for n in $TEKTON_BINARIES; do echo "$E2E_BIN/tekton-$n"; done); do
    sha256sum <"$f"
  done
  find "$here/cubeimage" -name '*.go' ! -name '*_test.go' | LC_ALL=C sort | xargs cat | sha256sum
  for ((i = 0; i < ${#examples[@]}; i += 2)); do
    (cd "$repo" && find "$(dirname "${examples[i + 1]}")" -type f ! -name '*.yaml' -print0 | LC_ALL=C sort -z |
      xargs -0 sha256sum)
  done
  [ -z "$have_cubes" ] || {
    (cd "$shared" && find cubes-src cubes-1.0 -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
    (cd "$shared" && find cubes-src cubes-1.0 -type f -perm /111 | LC_ALL=C sort)
  }
}

# cube_images DIR: lays out each cube's layer, and each example's,
# beside DIR (the base's files) with cubeimage, and puts in $cube_args
# the archive's arguments of its image, and in $cube_refs its name, a
# tab, and its entry of Argo's image index (cubeimage's index.json). Each
# image hides the recorder (and the torchrun that runs it) and the base's
# mpiuser, whose uid 1000 is then free for a Dockerfile's `useradd NAME`,
# which gives it on a python:*-slim base (cubeimage's users.go), and has
# no account on debian:bookworm-slim.
cube_images() {
  local base=$1 i specs=()
  cube_args=() cube_refs=()
  (cd "$here" && go build -o "$work/cubeimage" ./cubeimage)
  [ -z "$have_cubes" ] || for ((i = 0; i < ${#cubes[@]}; i += 2)); do
    specs+=("${cubes[i]}" "$shared/${cubes[i + 1]}")
  done
  for ((i = 0; i < ${#examples[@]}; i += 2)); do
    specs+=("${examples[i]}" "$repo/${examples[i + 1]}")
  done
  for ((i = 0; i < ${#specs[@]}; i += 2)); do
    cube_image "$base" "${specs[@]:i:2}"
  done
}
# cube_image DIR ID SPEC: one image of cube_images.
cube_image() {
  local base=$1 id=$2 out=$work/cube-$2
  "$work/cubeimage" -base "$base" -drop-user mpiuser -env "PATH=$std_path" \
    -whiteout /usr/local/bin/mlcube-e2e-record -whiteout /usr/local/bin/python -whiteout /usr/local/bin/torchrun \
    "$3" "$out"
  cube_args+=("mlcube-e2e/cube-$id:1" "$(cat "$out/config.json")" "$out/layer")
  cube_refs+=("mlcube-e2e/cube-$id:1	$(cat "$out/index.json")")
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
  cube_images "$dir"
  # mlcube-e2e/nop:1 is Tekton's nop image (its affinity assistant runs
  # the image's entrypoint with an argument).
  archive "$dir" "$images/base-$key.tar" mlcube-e2e/base:1 "$(config '["/usr/local/bin/mlcube-e2e-record"]' "$std_path" "")" "" \
    mlcube-e2e/nop:1 "$(config '["/ko-app/nop"]' "$std_path" 65532)" "" \
    mlcube-e2e/tekton:1 "$(config '["/ko-app/controller"]' "$std_path" 65532)" "" \
    mlcube-e2e/user:1 "$(config '["/usr/local/bin/mlcube-e2e-record"]' "$std_path" 1000)" "" \
    mlcube-e2e/argo4:1 "$(config '["/usr/local/bin/mlcube-e2e-record"]' "/usr/local/argo4/bin:$std_path" "")" "" \
    "$RCLONE_IMAGE" "$(config '["rclone"]' "$std_path" "")" "" \
    mlcube-e2e/dask:1 "$(config null "$std_path" 1000)" "" \
    "${cube_args[@]}"
  # The cubes' images in the archive, one a line, for up.sh to push to
  # the registry Tekton and Argo read entrypoints from (tekton.sh), with
  # their entries of Argo's image index (argo.sh).
  printf '%s\n' "${cube_refs[@]}" | sed '/^$/d' >"$images/base-$key.cubes"
  rm -rf "$dir" "$work"/cube-*
else
  log "mlcube-e2e/base:1: from the cache ($key)"
fi
ln -sfn "$images/base-$key.tar" "$E2E_IMAGES/base.tar"
ln -sfn "$images/base-$key.cubes" "$E2E_IMAGES/cubes"

pause_src=$(go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')/build/pause/linux/pause.c
pause_key=$({ sha256sum "$pause_src" | cut -d' ' -f1; gcc --version | head -1; echo "$KUBERNETES_VERSION"; declare -f archive config; } | sha256sum | cut -c1-16)
if [ ! -s "$images/pause-$pause_key.tar" ]; then
  log "mlcube-e2e/pause:1: building from $pause_src ($pause_key)"
  dir=$work/pause
  mkdir -p "$dir"
  gcc -Os -static -DVERSION="$KUBERNETES_VERSION" -o "$dir/pause" "$pause_src"
  strip "$dir/pause"
  archive "$dir" "$images/pause-$pause_key.tar" mlcube-e2e/pause:1 "$(config '["/pause"]' "$std_path" "")" ""
  rm -rf "$dir"
else
  log "mlcube-e2e/pause:1: from the cache ($pause_key)"
fi
ln -sfn "$images/pause-$pause_key.tar" "$E2E_IMAGES/pause.tar"

workspace_key=$({ sha256sum <"$here/image/workspace.c"; gcc --version | head -1; declare -f archive config; } | sha256sum | cut -c1-16)
if [ ! -s "$images/workspace-$workspace_key.tar" ]; then
  log "mlcube-e2e/workspace:1: building ($workspace_key)"
  dir=$work/workspace
  mkdir -p "$dir/workspace"
  gcc -Os -static -o "$dir/workspace/train" "$here/image/workspace.c"
  strip "$dir/workspace/train"
  archive "$dir" "$images/workspace-$workspace_key.tar" mlcube-e2e/workspace:1 "$(config '["/workspace/train"]' "$std_path" "")" ""
  rm -rf "$dir"
else
  log "mlcube-e2e/workspace:1: from the cache ($workspace_key)"
fi
ln -sfn "$images/workspace-$workspace_key.tar" "$E2E_IMAGES/workspace.tar"
log "ready in $E2E_IMAGES (the cache: $images)"
