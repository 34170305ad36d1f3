#!/usr/bin/env bash
# Sourced by down.sh: undoes what node.sh changed on the host, from
# $E2E_RUN/node.changes, after the processes are stopped. What the node
# changed in the network (its address, bridge, routes, iptables and
# nftables rules) is all in the cluster's network namespace, which goes
# whole. Each step is
# safe to repeat, so a second down.sh after a failed one finishes the job.

node_dir=$E2E_RUN/node
changes=$E2E_RUN/node.changes
ctr_node() { ctr --address "$node_dir/containerd/containerd.sock" -n k8s.io "$@"; }

# node_drain: while containerd still runs, stops every container it runs,
# so that no shim outlives it. kubelet has been stopped already.
node_drain() {
  [ -S "$node_dir/containerd/containerd.sock" ] || return 0
  local task
  for task in $(ctr_node tasks ls -q 2>/dev/null); do
    ctr_node tasks kill -a -s KILL "$task" >/dev/null 2>&1
  done
  for _ in $(seq 1 40); do
    [ -z "$(ctr_node tasks ls -q 2>/dev/null | head -1)" ] && break
    for task in $(ctr_node tasks ls -q 2>/dev/null); do ctr_node tasks delete -f "$task" >/dev/null 2>&1; done
    sleep 0.25
  done
}

# node_kill_shims: kills each container shim of this node's containerd:
# a shim leaves containerd's cgroup and outlives it, so when containerd
# was killed before it could drain (an interrupted start, a failed CI
# run), its shims and their containers would run on. A shim is ours by
# the address containerd started it with, the socket in this checkout's
# node folder (containerd 1.6 records no shim PID in the bundle).
node_kill_shims() {
  local sock=$node_dir/containerd/containerd.sock p
  for p in /proc/[0-9]*; do
    tr '\0' '\n' <"$p/cmdline" 2>/dev/null | grep -qxF -- "$sock" && kill -KILL "${p#/proc/}" 2>/dev/null
  done
  return 0
}

# node_undo: undoes each recorded change, last first.
node_undo() {
  node_kill_shims
  # Mounts first, whatever the record says: pod volumes under kubelet's
  # folder, containerd's snapshots and network namespaces under its own.
  grep -F " $E2E_ROOT/" /proc/self/mounts | cut -d' ' -f2 | sort -r | while read -r m; do
    umount "$m" 2>/dev/null || umount -l "$m"
  done
  # kubelet's log links, into our folder, wherever they are.
  [ -d /var/log/containers ] && find /var/log/containers -maxdepth 1 -type l -lname "$node_dir/*" -delete 2>/dev/null
  [ -f "$changes" ] || return 0
  tac "$changes" | while read -r kind a b; do
    case $kind in
      cgroup)
        # A container left running (containerd gone before it was
        # drained) is ours by its cgroup, at any depth (a pod's
        # container is four below it: kubepods/QOS/pod/container).
        find /sys/fs/cgroup/*/"$a" -name cgroup.procs -exec cat {} + 2>/dev/null | sort -u | xargs -r kill -KILL 2>/dev/null
        sleep 0.5
        find /sys/fs/cgroup/*/"$a" -depth -type d 2>/dev/null | while read -r d; do rmdir "$d" 2>/dev/null; done ;;
      dir)
        rm -rf "$a/s" 2>/dev/null
        rmdir "$a" 2>/dev/null ;;
      module) modprobe -r "$a" 2>/dev/null ;;
      sysctl) sysctl -qw "$a=$b" ;;
      # The namespace goes whole, with every address, route, bridge and
      # netfilter rule of the cluster in it; only the one this checkout made.
      netns) [ "$(netns_inode "$a")" != "$b" ] || ip netns delete "$a" 2>/dev/null ;;
    esac
  done
  rm -f "$changes"
}
