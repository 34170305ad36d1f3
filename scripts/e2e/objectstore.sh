#!/usr/bin/env bash
# Sourced by up.sh: the cluster's object store, SeaweedFS's `weed mini`
# (build.sh builds it): a master, a volume server, a filer and the S3
# gateway in one host process, in the cluster's network namespace, every
# server bound to the node's address. Its S3 gateway at
# $NODE_IP:$S3_PORT is what pods on the real node reach as they reach the
# API server (the node's address on the namespace's lo, through their
# bridge's gateway: node.sh), and what Argo's controller, the host
# executor and the suite reach directly. Pods also reach it by the name
# $S3_SERVICE.$S3_SERVICE_NAMESPACE, a Service with the node's address as
# its endpoint (as dns.sh's kube-dns), which the examples' platforms name.
# It holds the bucket $S3_BUCKET, Argo's artifact repository (argo.sh's
# argo_config).
#
# Its one identity's keys are made at each start, into s3.json (the
# gateway's -s3.config: identities with their keys and actions, as
# docker/compose/s3.json of the SeaweedFS module); a request without them
# is refused. The suite reads the store's facts from $E2E_RUN/objectstore.json
# (e2e/objectstore_test.go); the Secret $S3_SECRET (keys accessKey and
# secretKey) is made in the namespaces argo and default, and the suite
# makes it in its own.
objectstore_dir=$E2E_RUN/objectstore

# objectstore_rclone ARGS...: the host's rclone (build.sh), in the
# cluster's namespace, with the store's endpoint and keys, as the image's
# steps set them (RCLONE_S3_* for the :s3: remote), no config file, and
# only errors printed; it fails at once, without rclone's retries, so that
# wait_for is what retries.
objectstore_rclone() {
  in_netns env RCLONE_CONFIG="$objectstore_dir/rclone.conf" RCLONE_S3_PROVIDER=Other \
    RCLONE_S3_ENDPOINT="http://$NODE_IP:$S3_PORT" RCLONE_S3_REGION="$S3_REGION" \
    RCLONE_S3_ACCESS_KEY_ID="$(cat "$objectstore_dir/keys/accessKey")" \
    RCLONE_S3_SECRET_ACCESS_KEY="$(cat "$objectstore_dir/keys/secretKey")" \
    "$E2E_BIN/rclone" -q --retries 1 --low-level-retries 1 --contimeout 2s --timeout 10s "$@"
}

# objectstore_start: the keys, s3.json, and the server, which up.sh waits
# for later (objectstore_ready), while the node starts.
objectstore_start() {
  local d=$objectstore_dir
  mkdir -p "$d/data" "$d/tmp" "$d/keys"
  # mini's unix sockets live in its TMPDIR (build.sh's patch), and a
  # socket's path may not be longer than 107 bytes.
  local sock=$d/tmp/seaweedfs-master-grpc-19333.sock
  [ ${#sock} -le 107 ] || { log "$d is too deep for SeaweedFS's unix sockets ($sock: ${#sock} bytes, 107 at most)"; return 1; }
  (
    umask 077
    openssl rand -hex 10 | tr a-f A-F | tr -d '\n' >"$d/keys/accessKey"
    openssl rand -hex 20 | tr -d '\n' >"$d/keys/secretKey"
    cat >"$d/s3.json" <<JSON
{"identities": [{"name": "mlcube-e2e",
  "credentials": [{"accessKey": "$(cat "$d/keys/accessKey")", "secretKey": "$(cat "$d/keys/secretKey")"}],
  "actions": ["Admin", "Read", "List", "Tagging", "Write"]}]}
JSON
  )
  # The flags are weed/command/mini.go's: no WebDAV, admin UI, Iceberg or
  # Lance servers, no admin port kept for old clients, no telemetry. Its
  # other servers bind the node's address too (the master on 9333, the
  # volume server 9340, the filer 8888, each with its gRPC 10000 above, and
  # the S3 gateway's gRPC 18333), but the admin server, which has no
  # password, binds 127.0.0.1 (12535, gRPC 22535): all in the cluster's
  # namespace. Its log files go to its TMPDIR (glog's default folder,
  # os.TempDir(): weed/glog/glog_file.go), where its sockets are.
  TMPDIR=$d/tmp start seaweedfs "$E2E_BIN/weed" mini -dir="$d/data" -ip="$NODE_IP" -ip.bind="$NODE_IP" \
    -s3.port="$S3_PORT" -s3.config="$d/s3.json" -webdav=false -admin.ui=false -admin.port.legacy=0 \
    -s3.port.iceberg=0 -s3.port.lance=0 -master.telemetry=false
}

# objectstore_ready: waits until the gateway creates the bucket for a
# signed request (rclone's mkdir: S3's CreateBucket) and lists it (a
# signed ListObjectsV2), then writes the facts the suite reads, makes the
# Secret and the Service.
objectstore_ready() {
  local d=$objectstore_dir
  if ! wait_for "SeaweedFS's S3 gateway on $NODE_IP:$S3_PORT to create bucket $S3_BUCKET" 120 \
    objectstore_rclone mkdir ":s3:$S3_BUCKET"; then
    objectstore_rclone mkdir ":s3:$S3_BUCKET" >&2 || true
    tail -20 "$E2E_RUN/logs/seaweedfs.log" >&2
    return 1
  fi
  objectstore_rclone lsf ":s3:$S3_BUCKET" >/dev/null
  (
    umask 077
    printf '{"endpoint": "%s:%s", "service": "%s.%s:%s", "bucket": "%s", "region": "%s", "accessKey": "%s", "secretKey": "%s", "secret": "%s", "image": "%s"}\n' \
      "$NODE_IP" "$S3_PORT" "$S3_SERVICE" "$S3_SERVICE_NAMESPACE" "$S3_PORT" "$S3_BUCKET" "$S3_REGION" \
      "$(cat "$d/keys/accessKey")" "$(cat "$d/keys/secretKey")" "$S3_SECRET" "$RCLONE_IMAGE" >"$E2E_RUN/objectstore.json"
  )
  local ns
  for ns in argo default; do
    "$kubectl" -n "$ns" create secret generic "$S3_SECRET" --from-file="$d/keys" >/dev/null
  done
  "$kubectl" create namespace "$S3_SERVICE_NAMESPACE" >/dev/null
  "$kubectl" create -f - >/dev/null <<SVC
apiVersion: v1
kind: Service
metadata: {name: $S3_SERVICE, namespace: $S3_SERVICE_NAMESPACE}
spec:
  ports:
  - {name: s3, protocol: TCP, port: $S3_PORT, targetPort: $S3_PORT}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata:
  name: $S3_SERVICE-host
  namespace: $S3_SERVICE_NAMESPACE
  labels:
    kubernetes.io/service-name: $S3_SERVICE
    endpointslice.kubernetes.io/managed-by: e2e.mlcube-compile.io
addressType: IPv4
ports:
- {name: s3, protocol: TCP, port: $S3_PORT}
endpoints:
- addresses: [$NODE_IP]
  conditions: {ready: true}
SVC
}
