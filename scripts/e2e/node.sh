#!/usr/bin/env bash
# Sourced by up.sh once the API server runs: starts the real node beside
# the KWOK ones. containerd (built from its module) with Debian's runc and
# CNI bridge, kubelet and kube-proxy (built from Kubernetes), the e2e
# images imported (by Debian's ctr, which containerd v2 still serves).
# It runs in the cluster's network namespace (node_netns below), which
# holds its address, bridge, routes and netfilter rules. Every change it
# makes outside .e2e/ (the namespace, a kernel module, kubelet's global
# sysctls, /run/containerd, /var/log/containers, a cgroup) is written to
# $E2E_RUN/node.changes, which down.sh undoes.
#
# Facts this rests on, learnt on a machine of this kind (2 cores, root,
# cgroup v1, no CAP_SYS_RESOURCE):
# - runc cannot set the pause container's oom_score_adj here, so the CRI
#   plugin restricts it (restrict_oom_score_adj).
# - kubelet 1.35 refuses cgroup v1 unless failCgroupV1 is false.
# - The node's address lives on the namespace's lo: pods reach it through
#   the bridge's gateway, and the API server, which binds it, advertises
#   it as the endpoint of the kubernetes Service that kube-proxy routes.

node_dir=$E2E_RUN/node
changes=$E2E_RUN/node.changes
mkdir -p "$node_dir"/{containerd,cni/net.d,cni/ipam,kubelet,pod-logs,pki}

# change KIND ARGS...: records a change for down.sh to undo.
change() { echo "$*" >>"$changes"; }

node_host_setup() {
  if [ "$(stat -fc %T /sys/fs/cgroup)" = cgroup2fs ]; then
    log "cgroup v2: the real node's scripts know cgroup v1 only (its cgroup root, its teardown)"; return 1
  fi
  if [ ! -e /proc/sys/net/bridge/bridge-nf-call-iptables ]; then
    modprobe br_netfilter
    change module br_netfilter
  fi
  node_netns
  # Both are the namespace's own (since Linux 5.3 for br_netfilter's):
  # the host's stay as they are.
  in_netns sysctl -qw net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1
  local d
  for d in /run/containerd /var/log/containers; do
    [ -d "$d" ] || change dir "$d"
  done
}

# node_netns: the cluster's network namespace, where the node's address,
# the bridge, the pods' and Services' routes, and the netfilter rules of
# kubelet, kube-proxy and the CNI plugins all live, so that the host's
# namespace holds none of them; deleting it (down.sh) removes them all.
# The default route goes to one end of a veth pair whose other end is in
# the namespace too (the kernel here has no dummy device): nothing leaves
# the namespace, but a process in it (the API server calling Tekton's
# webhook Service) has a route to a Service's address, which kube-proxy's
# OUTPUT rules then rewrite to the pod's.
node_netns() {
  ip netns add "$E2E_NETNS"
  # Recorded with its inode: down.sh and prereqs.sh know it as ours by
  # that, not by a name another checkout could have taken since.
  change netns "$E2E_NETNS" "$(netns_inode "$E2E_NETNS")"
  in_netns ip link set lo up
  in_netns ip addr add "$NODE_IP/32" dev lo
  in_netns ip link add e2e-default type veth peer name e2e-default1
  in_netns ip link set e2e-default up
  in_netns ip link set e2e-default1 up
  in_netns ip route add default dev e2e-default
}

# node_containerd: containerd v2 (build.sh), configured in its version 4
# format, where each server plugin has its own address: both sockets are
# named, or the ttrpc one would be /run/containerd's. Its CRI plugin reads
# CDI specs from the node's cdi folder, where the DRA driver writes them
# (dra.sh), and adds each device that kubelet names in a container's
# CDIDevices (internal/cri/opts/spec_linux.go, WithCDI). NRI is off: it
# would listen on /var/run/nri. The shims' sockets stay in
# /run/containerd/s (core/runtime/v2/shim_unix.go, defaultSocketDir), as
# containerd 1.6's did.
node_containerd() {
  mkdir -p "$node_dir/cdi"
  cat >"$node_dir/containerd/config.toml" <<TOML
version = 4
root = "$node_dir/containerd/root"
state = "$node_dir/containerd/state"
disabled_plugins = ["io.containerd.nri.v1.nri"]
[plugins."io.containerd.server.v1.grpc"]
  address = "$node_dir/containerd/containerd.sock"
[plugins."io.containerd.server.v1.ttrpc"]
  address = "$node_dir/containerd/containerd.sock.ttrpc"
[plugins."io.containerd.internal.v1.opt"]
  path = "$node_dir/containerd/opt"
[plugins."io.containerd.cri.v1.images"]
  snapshotter = "overlayfs"
  [plugins."io.containerd.cri.v1.images".pinned_images]
    sandbox = "docker.io/mlcube-e2e/pause:1"
[plugins."io.containerd.cri.v1.runtime"]
  restrict_oom_score_adj = true
  netns_mounts_under_state_dir = true
  cdi_spec_dirs = ["$node_dir/cdi"]
  [plugins."io.containerd.cri.v1.runtime".containerd]
    default_runtime_name = "runc"
    [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc]
      runtime_type = "io.containerd.runc.v2"
      runtime_path = "$E2E_BIN/containerd-shim-runc-v2"
      [plugins."io.containerd.cri.v1.runtime".containerd.runtimes.runc.options]
        Root = "$node_dir/runc"
  [plugins."io.containerd.cri.v1.runtime".cni]
    bin_dirs = ["/usr/lib/cni"]
    conf_dir = "$node_dir/cni/net.d"
[plugins."io.containerd.grpc.v1.cri"]
  stream_server_address = "127.0.0.1"
TOML
  cat >"$node_dir/cni/net.d/10-mlcube-e2e.conflist" <<CNI
{"cniVersion": "0.4.0", "name": "mlcube-e2e", "plugins": [
  {"type": "bridge", "bridge": "$NODE_BRIDGE", "isGateway": true, "ipMasq": true, "hairpinMode": true,
   "ipam": {"type": "host-local", "ranges": [[{"subnet": "$NODE_POD_CIDR"}]], "routes": [{"dst": "0.0.0.0/0"}],
            "dataDir": "$node_dir/cni/ipam"}}]}
CNI
  start containerd "$E2E_BIN/containerd" --config "$node_dir/containerd/config.toml"
  wait_for containerd 30 ctr --address "$node_dir/containerd/containerd.sock" version
  local image
  for image in base pause workspace; do
    ctr --address "$node_dir/containerd/containerd.sock" -n k8s.io images import --no-unpack=false \
      "$E2E_IMAGES/$image.tar" >/dev/null
  done
}

node_kubelet() {
  local p=$E2E_RUN/pki
  sed "s#https://127.0.0.1:$API_PORT#https://$NODE_IP:$API_PORT#" "$KUBECONFIG" >"$node_dir/kubeconfig"
  # No name server on the host reaches anything: pods get none but the
  # cluster's.
  : >"$node_dir/resolv.conf"
  cat >"$node_dir/kubelet.yaml" <<KC
apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
address: $NODE_IP
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 0
tlsCertFile: $p/kubelet.crt
tlsPrivateKeyFile: $p/kubelet.key
authentication:
  anonymous: {enabled: false}
  webhook: {enabled: false}
  x509: {clientCAFile: $p/ca.crt}
authorization: {mode: AlwaysAllow}
containerRuntimeEndpoint: unix://$node_dir/containerd/containerd.sock
cgroupDriver: cgroupfs
cgroupRoot: /$NODE_CGROUP
failCgroupV1: false
failSwapOn: false
clusterDomain: cluster.local
clusterDNS: [$CLUSTER_DNS_IP]
resolvConf: $node_dir/resolv.conf
podLogsDir: $node_dir/pod-logs
volumePluginDir: $node_dir/kubelet/volume-plugins
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
evictionHard: {memory.available: 100Mi, nodefs.available: 1%, imagefs.available: 1%}
registerWithTaints:
- {key: $NODE_TAINT, value: "true", effect: NoSchedule}
serializeImagePulls: false
KC
  # kubelet wants its cgroup root to exist, in every hierarchy.
  change cgroup "$NODE_CGROUP"
  # kubelet sets these (setupKernelTunables in pkg/kubelet/cm, since
  # protectKernelDefaults is false): down.sh puts them back.
  local s
  for s in vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops \
    kernel.keys.root_maxkeys kernel.keys.root_maxbytes; do
    change sysctl "$s" "$(sysctl -n "$s")"
  done
  local h
  for h in /sys/fs/cgroup/*/; do [ -L "${h%/}" ] || mkdir -p "$h$NODE_CGROUP"; done
  start kubelet "$E2E_BIN/kubelet" --config="$node_dir/kubelet.yaml" --kubeconfig="$node_dir/kubeconfig" \
    --root-dir="$node_dir/kubelet" --hostname-override="$NODE_NAME" --node-ip="$NODE_IP" \
    --node-labels="e2e.mlcube-compile.io/real-node=true"
}

node_kube_proxy() {
  cat >"$node_dir/kube-proxy.yaml" <<KP
apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection: {kubeconfig: $node_dir/kubeconfig}
hostnameOverride: $NODE_NAME
mode: iptables
bindAddress: $NODE_IP
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
clusterCIDR: $NODE_POD_CIDR
nodePortAddresses: [$NODE_IP/32]
iptables: {localhostNodePorts: false}
conntrack: {maxPerCore: 0, tcpEstablishedTimeout: 0s, tcpCloseWaitTimeout: 0s}
KP
  start kube-proxy "$E2E_BIN/kube-proxy" --config="$node_dir/kube-proxy.yaml"
}

node_ready() { [ "$("$kubectl" get node "$NODE_NAME" -o 'jsonpath={.status.conditions[?(@.type=="Ready")].status}')" = True ]; }

# node_up: node_host_setup has run before the API server started.
node_up() {
  node_containerd
  node_kubelet
  node_kube_proxy
  wait_for "node $NODE_NAME to be Ready" 120 node_ready
  # The node advertises GPUs, as a device plugin would, so that GPU steps
  # schedule; no container gets a device.
  "$kubectl" patch node "$NODE_NAME" --subresource=status --type=merge \
    -p "{\"status\":{\"capacity\":{\"nvidia.com/gpu\":\"$NODE_GPUS\"}}}" >/dev/null
}
