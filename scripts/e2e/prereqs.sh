#!/usr/bin/env bash
# Checks, before anything is built, what the e2e cluster needs of the
# host: root, cgroup v1, Linux network namespaces, Debian's packages
# (each found by the file it installs), Go, and room for the build cache.
# With --install it installs the missing packages with apt-get (as
# .ci/run does); without, it stops at once with the one apt-get line that
# fixes it. make e2e and make e2e-up run it first; docs/e2e.md lists the
# same.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
log() { printf 'e2e prereqs: %s\n' "$*" >&2; }

# PACKAGES: each Debian package the cluster uses, with a file that shows
# it is there, and what it is for.
PACKAGES=(
  "curl:/usr/bin/curl"                                # waiting for Kueue's webhook and probe
  "openssl:/usr/bin/openssl"                          # the cluster's certificates
  "util-linux:/usr/bin/nsenter"                       # the cluster's network namespace; argoexec's private /tmp
  "mount:/bin/mount"                                  # the same
  "iproute2:/sbin/ip"                                 # the network namespace, its addresses and routes
  "procps:/sbin/sysctl"                               # the node's sysctls
  "kmod:/sbin/modprobe"                               # br_netfilter
  "containerd:/usr/bin/ctr"                           # ctr, which imports the node's images (its containerd is built)
  "runc:/usr/sbin/runc"                               # its containers
  "containernetworking-plugins:/usr/lib/cni/bridge"   # its pods' network
  "iptables:/usr/sbin/iptables"                       # kube-proxy's Services
  "nftables:/usr/sbin/nft"                            # kubelet's canary chains
  "conntrack:/usr/sbin/conntrack"                     # kube-proxy
  "debootstrap:/usr/sbin/debootstrap"                 # the base image
  "gcc:/usr/bin/gcc"                                  # the static pause binary, cgo
  "libc6-dev:/usr/include/stdio.h"                    # the same
  "binutils:/usr/bin/strip"                           # stripping the image's binaries
  "perl-base:/usr/bin/perl"                           # build.sh's one-line patches of upstream copies
)

install=false
[ "${1:-}" = --install ] && install=true
fail() { log "$*"; exit 1; }
[ "$(id -u)" = 0 ] || fail "the real node needs root (containerd, kubelet, a network namespace): run make e2e as root"

missing=()
for p in "${PACKAGES[@]}"; do
  name=${p%%:*} file=${p#*:}
  [ -e "$file" ] || missing+=("$name")
done
if [ ${#missing[@]} -gt 0 ]; then
  if $install; then
    log "installing ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  else
    log "missing Debian packages: ${missing[*]}. Install them with:"
    printf '  apt-get install -y %s\n' "${missing[*]}" >&2
    log "(or run scripts/e2e/prereqs.sh --install, as .ci/run does)"
    exit 1
  fi
fi

[ "$(stat -fc %T /sys/fs/cgroup)" != cgroup2fs ] ||
  fail "cgroup v2: the real node's scripts know cgroup v1 only (its cgroup root, its teardown)"
[ -e /proc/self/ns/net ] || fail "this kernel has no network namespaces"
# br_netfilter's settings are a network namespace's own since Linux 5.3.
IFS=. read -r major minor _ < /proc/sys/kernel/osrelease
[ "$major" -gt 5 ] || { [ "$major" -eq 5 ] && [ "${minor%%[!0-9]*}" -ge 3 ]; } ||
  fail "Linux $(cat /proc/sys/kernel/osrelease): the cluster's network namespace needs 5.3 or later"
command -v go >/dev/null || fail "no go on PATH (go.mod says which version)"
# The cluster listens only inside its own network namespace: no host port
# is taken. One cluster at a time per checkout, and the namespace's name
# must not be another's.
# Ours is the namespace of that name whose inode this checkout recorded.
if [ -e "/run/netns/$E2E_NETNS" ] &&
  ! grep -qx "netns $E2E_NETNS $(netns_inode "$E2E_NETNS")" "$E2E_RUN/node.changes" 2>/dev/null; then
  fail "a network namespace $E2E_NETNS is there that this checkout did not make: another checkout's cluster is up (its make e2e-down removes it), or set E2E_NETNS"
fi
# A cold build needs room; a warm one only links what the cache holds.
mkdir -p "$E2E_CACHE"
if [ -z "$(ls -A "$E2E_CACHE/bin" 2>/dev/null)" ]; then
  free=$(df -Pk "$E2E_CACHE" | awk 'NR == 2 {print int($4 / 1048576)}')
  [ "$free" -ge 8 ] || fail "$free GiB free under $E2E_CACHE: a cold build needs about 8 (MLCUBE_E2E_CACHE moves the cache)"
fi
log "ok (cache: $E2E_CACHE)"
