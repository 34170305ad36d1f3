#!/usr/bin/env bash
# Sourced by up.sh and argo4.sh: how the e2e scripts start a process of
# the cluster in its network namespace, wait for it, and find a module's
# source. LOG_PREFIX names
# the script in what log prints.

# The cluster's servers (and containerd, and so the pods) run with Go's
# own collector settings, whatever a build before them set (build.sh and
# .ci/run turn the collector off for the Go tools).
unset GOGC GOMEMLIMIT

log() { printf '%s: %s\n' "${LOG_PREFIX:-e2e}" "$*" >&2; }

# in_netns CMD...: runs CMD in the cluster's network namespace
# (node.sh's node_netns), where every address of the cluster lives. Only the network
# is the namespace's: the mounts stay the host's, which kubelet,
# containerd and runc must share.
in_netns() { nsenter --net="/run/netns/$E2E_NETNS" "$@"; }

# kubectl_e2e ARGS...: the cluster's kubectl, in its namespace.
kubectl_e2e() { in_netns "$E2E_BIN/kubectl" --kubeconfig="$E2E_RUN/kubeconfig" "$@"; }

# start NAME CMD...: runs CMD in the background, in the cluster's network
# namespace, with its log under logs/, and records its PID, which down.sh
# (and stop) signal. nsenter execs CMD, so the PID is CMD's own.
start() {
  local name=$1; shift
  nsenter --net="/run/netns/$E2E_NETNS" "$@" >"$E2E_RUN/logs/$name.log" 2>&1 &
  echo "$! $name" >>"$E2E_RUN/pids"
}

# stop NAME: stops the process start recorded as NAME, by its PID, and
# forgets it; only while its command line still names the e2e folder.
stop() {
  local pid name
  while read -r pid name; do
    [ "$name" = "$1" ] || continue
    if tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF "$E2E_ROOT"; then
      kill -TERM "$pid"
      wait_for "$1 to stop" 30 bash -c "! kill -0 $pid"
    fi
    sed -i "/^$pid $1\$/d" "$E2E_RUN/pids"
  done <"$E2E_RUN/pids"
}

# wait_for WHAT SECONDS CMD...: retries CMD every half second.
wait_for() {
  local what=$1 secs=$2; shift 2
  local deadline=$((SECONDS + secs))
  until "$@" >/dev/null 2>&1; do
    if [ $SECONDS -ge $deadline ]; then log "timed out waiting for $what"; return 1; fi
    sleep 0.5
  done
}

module_dir() { go mod download -json "$1@$2" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p'; }
