#!/usr/bin/env bash
# Sourced by up.sh once the real node is Ready: Dynamic Resource
# Allocation (resource.k8s.io/v1, on by default since Kubernetes 1.34) on
# that node, with the DRA example driver (sigs.k8s.io/dra-example-driver,
# built by build.sh) and no GPU.
#
# - The DeviceClass $DRA_DRIVER selects every device of the driver of that
#   name, and maps the extended resource $DRA_EXTENDED_RESOURCE to it: a
#   container's limit of it is met by one of its devices (DRAExtendedResource,
#   beta and on by default in 1.36: pkg/features/kube_features.go).
# - The driver's kubelet plugin runs as a process of the cluster (in its
#   network namespace, recorded in pids: down.sh stops it), not as
#   upstream's DaemonSet (deployments/helm/dra-example-driver/templates/
#   kubeletplugin.yaml), with what that DaemonSet gives it: the node's name,
#   kubelet's plugin and registration folders (under its --root-dir), a CDI
#   folder (the one the node's containerd reads: node.sh) and the number of
#   simulated GPUs. It registers with kubelet, publishes a ResourceSlice of
#   $DRA_DEVICES devices gpu-0... in the pool named after the node, and for
#   each claim kubelet prepares writes a CDI spec whose edits set, in the
#   container, GPU_DEVICE_<n>=gpu-<n> and its sharing settings, and
#   DRA_RESOURCE_DRIVER_NAME and KUBERNETES_NODE_NAME
#   (cmd/dra-example-kubeletplugin/{state,cdi}.go of the module). The
#   driver's NODE_NAME must be in its environment: it seeds the devices'
#   UUIDs and fills KUBERNETES_NODE_NAME. Its admission webhook (validation
#   of its opaque config) is left out.

# dra_published: the driver's ResourceSlice for the node is there, with
# all its devices.
dra_published() {
  local n
  n=$("$kubectl" get resourceslices --field-selector "spec.nodeName=$NODE_NAME,spec.driver=$DRA_DRIVER" \
    -o 'jsonpath={range .items[*]}{range .spec.devices[*]}{.name}{"\n"}{end}{end}' | grep -c .)
  [ "$n" -eq "$DRA_DEVICES" ]
}

dra_up() {
  "$kubectl" create -f - >/dev/null <<YAML
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: $DRA_DRIVER}
spec:
  selectors:
  - cel: {expression: "device.driver == '$DRA_DRIVER'"}
  extendedResourceName: $DRA_EXTENDED_RESOURCE
YAML
  local kubelet=$node_dir/kubelet
  NODE_NAME=$NODE_NAME start dra-example-kubeletplugin "$E2E_BIN/dra-example-kubeletplugin" \
    --kubeconfig="$node_dir/kubeconfig" --node-name="$NODE_NAME" --cdi-root="$node_dir/cdi" \
    --num-devices="$DRA_DEVICES" --kubelet-registrar-directory-path="$kubelet/plugins_registry" \
    --kubelet-plugins-directory-path="$kubelet/plugins"
  wait_for "the ResourceSlice of $DRA_DRIVER on $NODE_NAME" 60 dra_published
}
