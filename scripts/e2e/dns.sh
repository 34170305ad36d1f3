#!/usr/bin/env bash
# Sourced by up.sh once the real node runs: the cluster's DNS, CoreDNS
# (built by build.sh with the plugins named in versions.sh) as a host
# process on the node's address, behind the kube-dns Service at the
# address the kubelet gives pods (clusterDNS in node.sh). kube-proxy
# forwards the Service to it through an EndpointSlice of ours, as for any
# Service without a selector. It answers for cluster.local from the API
# server, which is what mpi-operator's hostfile needs: each worker by
# <pod>.<job>.<namespace>.svc, through the job's headless Service. Names
# outside the cluster get no answer: this host reaches no name server.

dns_up() {
  cat >"$E2E_RUN/Corefile" <<CF
.:$COREDNS_PORT {
    bind $NODE_IP
    errors
    kubernetes cluster.local in-addr.arpa ip6.arpa {
        kubeconfig $KUBECONFIG e2e
        pods insecure
    }
}
CF
  start coredns "$E2E_BIN/coredns" -conf "$E2E_RUN/Corefile"
  wait_for "CoreDNS on $NODE_IP:$COREDNS_PORT" 60 in_netns bash -c "exec 3<>/dev/tcp/$NODE_IP/$COREDNS_PORT"
  "$kubectl" create -f - >/dev/null <<SVC
apiVersion: v1
kind: Service
metadata:
  name: kube-dns
  namespace: kube-system
  labels: {k8s-app: kube-dns}
spec:
  clusterIP: $CLUSTER_DNS_IP
  ports:
  - {name: dns, protocol: UDP, port: 53, targetPort: $COREDNS_PORT}
  - {name: dns-tcp, protocol: TCP, port: 53, targetPort: $COREDNS_PORT}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: kube-dns-host
  namespace: kube-system
  labels:
    kubernetes.io/service-name: kube-dns
    endpointslice.kubernetes.io/managed-by: e2e.mlcube-compile.io
addressType: IPv4
ports:
- {name: dns, protocol: UDP, port: $COREDNS_PORT}
- {name: dns-tcp, protocol: TCP, port: $COREDNS_PORT}
endpoints:
- addresses: [$NODE_IP]
  conditions: {ready: true}
SVC
}
