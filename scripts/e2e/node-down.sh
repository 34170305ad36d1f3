#!/usr/bin/env bash
# Sourced by down.sh: undoes what node.sh changed on the host, from
# $E2E_RUN/node.changes, after the processes are stopped. Each step is
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

# node_undo: undoes each recorded change, last first.
node_undo() {
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
      kube-proxy) "$E2E_BIN/kube-proxy" --config="$a" --cleanup >/dev/null 2>&1 ;;
      cni)
        # The bridge plugin's masquerade chains, left by a pod whose
        # network was not torn down: rules commented with our network's name.
        iptables -t nat -S POSTROUTING 2>/dev/null | grep -F "name: \\\"$a\\\"" | while read -r _ _ rule; do
          chain=$(sed -n 's/.* -j \(CNI-[0-9a-f]*\).*/\1/p' <<<"$rule")
          eval "iptables -t nat -D POSTROUTING $rule"
          [ -n "$chain" ] && iptables -t nat -F "$chain" && iptables -t nat -X "$chain"
        done ;;
      nft-table) nft delete table "$a" "$b" 2>/dev/null ;;
      kubelet-chain)
        fam=${a%/*} t=${a#*/}
        for hook in INPUT OUTPUT; do
          nft -a list chain "$fam" "$t" "$hook" 2>/dev/null | sed -n "s/.*jump $b # handle \([0-9]*\)$/\1/p" |
            while read -r h; do nft delete rule "$fam" "$t" "$hook" handle "$h"; done
        done
        nft flush chain "$fam" "$t" "$b" 2>/dev/null && nft delete chain "$fam" "$t" "$b" ;;
      bridge) ip link show "$a" >/dev/null 2>&1 && ip link del "$a" ;;
      cgroup)
        # A container left running (containerd gone before it was
        # drained) is ours by its cgroup.
        cat /sys/fs/cgroup/*/"$a"/cgroup.procs /sys/fs/cgroup/*/"$a"/*/cgroup.procs /sys/fs/cgroup/*/"$a"/*/*/cgroup.procs \
          /sys/fs/cgroup/*/"$a"/*/*/*/cgroup.procs 2>/dev/null | sort -u | xargs -r kill -KILL 2>/dev/null
        sleep 0.5
        find /sys/fs/cgroup/*/"$a" -depth -type d 2>/dev/null | while read -r d; do rmdir "$d" 2>/dev/null; done ;;
      dir)
        rm -rf "$a/s" 2>/dev/null
        rmdir "$a" 2>/dev/null ;;
      module) modprobe -r "$a" 2>/dev/null ;;
      sysctl) sysctl -qw "$a=$b" ;;
      addr) ip addr del "$a" dev lo 2>/dev/null ;;
    esac
  done
  rm -f "$changes"
}
