#!/usr/bin/env bash
# Sourced by up.sh and argo4.sh: Argo's workflow-controller, in namespace
# argo, with the configuration the suite needs.

# argo_config: the controller's ConfigMap. Argo's emissary executor runs a
# container that has args but no command through the image's entrypoint,
# which the controller looks up in the registry. This cluster reaches no
# registry, so, as on an air-gapped cluster, the controller's image index
# (config.Image in Argo's config/image.go, in v3.7 and v4 alike:
# entrypoint and cmd as in an image's config) gives the entrypoint of the
# real node's image and of every image the Argo golden files name: on the
# real node they all run that image (the legacy cube's image is that
# image under another name), whose entrypoint is the recorder; on KWOK
# nothing runs. It also gives the real cubes' images' own (images.sh).
#
# Its default artifact repository (artifactRepository, config.Config in
# config/config.go of v3.7 and v4 alike) is the bucket of the cluster's
# object store (objectstore.sh), over plain HTTP, with the keys of the
# Secret $S3_SECRET of the workflow's namespace: a workflow whose
# namespace has no artifact-repositories ConfigMap of its own uses it
# (workflow/artifactrepositories/artifactrepositories.go, Resolve).
argo_config() {
  local images image
  images=$(sed -n 's/^ *image: *//p' "$repo"/testdata/golden/argo/*.yaml | tr -d "\"'" | sort -u)
  {
    cat <<CM
apiVersion: v1
kind: ConfigMap
metadata: {name: workflow-controller-configmap, namespace: argo}
data:
  metricsConfig: |
    enabled: false
  telemetryConfig: |
    enabled: false
  artifactRepository: |
    s3:
      endpoint: "$NODE_IP:$S3_PORT"
      bucket: $S3_BUCKET
      region: $S3_REGION
      insecure: true
      accessKeySecret: {name: $S3_SECRET, key: accessKey}
      secretKeySecret: {name: $S3_SECRET, key: secretKey}
  images: |
CM
    for image in $images mlcube-e2e/base:1 docker.io/mlcube-e2e/base:1 mlcube-e2e/user:1 docker.io/mlcube-e2e/user:1; do
      printf '    "%s": {entrypoint: [/usr/local/bin/mlcube-e2e-record]}\n' "$image"
    done
    # The real cubes' images (images.sh), by their own entrypoint and
    # cmd: a step that names one without the registry (tekton.sh) runs.
    [ ! -s "$E2E_IMAGES/cubes" ] || while IFS=$'\t' read -r image entry; do
      printf '    "%s": %s\n    "docker.io/%s": %s\n' "$image" "$entry" "$image" "$entry"
    done <"$E2E_IMAGES/cubes"
  } | "$kubectl" apply -f - >/dev/null
}

# argo_controller BINARY EXECUTOR-IMAGE: starts the controller, recorded
# (and logged) under the binary's name.
argo_controller() {
  LEADER_ELECTION_DISABLE=true DEFAULT_REQUEUE_TIME=1s \
    start "$1" "$E2E_BIN/$1" --kubeconfig="$KUBECONFIG" --namespace=argo \
    --executor-image="$2" --executor-image-pull-policy=Never
}
