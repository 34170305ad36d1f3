#!/usr/bin/env bash
# Sourced by up.sh once the real node runs: Tekton Pipelines' controller
# and webhook, from config/ of the tektoncd/pipeline module at our
# version, as pods on the real node in the base image (which holds their
# binaries under /ko-app, where Tekton's pods run them from).
#
# Tekton resolves the entrypoint of a step that has no command from the
# registry, and rewrites the step's image to that digest
# (pkg/pod/entrypoint_lookup.go): so the base image is also pushed to a
# registry on the node's address, by containerd itself, so that the
# digest Tekton reads is the one containerd holds. So are the real
# cubes' images (images.sh's cubes, listed in $E2E_IMAGES/cubes), which
# the tests name by this registry: Argo's controller, too, reads the
# entrypoint of an image that is not in its index from its registry
# (workflow/controller/entrypoint/container_registry_index.go).
#
# Tekton's own containers run as uid 65532, as its released images do: its
# controller and webhook, and the containers it adds to each step's pod
# (prepare, place-scripts, working-dir-initializer), whose
# set-security-context flag is on, as a cluster that enforces Pod
# Security's restricted profile needs: the flag gives them runAsNonRoot,
# no user (pkg/pod/security_context_config.go), so their image must not
# run as root. The steps' image, base:1, runs as root unless a platform
# gives it a user.
TEKTON_IMAGE=$NODE_IP:$REGISTRY_PORT/mlcube-e2e/tekton:1
TEKTON_STEP_IMAGE=$NODE_IP:$REGISTRY_PORT/mlcube-e2e/base:1
TEKTON_NOP_IMAGE=$NODE_IP:$REGISTRY_PORT/mlcube-e2e/nop:1

tekton_registry() {
  start registry "$E2E_BIN/registry" -host "$NODE_IP" -port "$REGISTRY_PORT"
  wait_for registry 30 in_netns bash -c "exec 3<>/dev/tcp/$NODE_IP/$REGISTRY_PORT"
  local ctr_node=(ctr --address "$node_dir/containerd/containerd.sock" -n k8s.io) image digest cubes=()
  [ ! -s "$E2E_IMAGES/cubes" ] || mapfile -t cubes < <(cut -f1 "$E2E_IMAGES/cubes" | sed "s#^#$NODE_IP:$REGISTRY_PORT/#")
  for image in "$TEKTON_IMAGE" "$TEKTON_STEP_IMAGE" "$TEKTON_NOP_IMAGE" "${cubes[@]}"; do
    "${ctr_node[@]}" images tag "docker.io/${image#*/}" "$image" >/dev/null
    in_netns "${ctr_node[@]}" images push --plain-http "$image" >/dev/null
    # Tekton runs the image by digest: the kubelet finds it under the
    # name containerd's CRI gives a pulled image (repository@digest).
    digest=$("${ctr_node[@]}" images ls "name==$image" | awk 'NR == 2 {print $3}')
    "${ctr_node[@]}" images tag "$image" "${image%:*}@$digest" >/dev/null
  done
}

# tekton_manifest FILE: one of Tekton's config files, with our image in
# place of each ko:// one and the binary it runs.
tekton_manifest() {
  local f=$1 bin
  for bin in controller webhook; do
    if grep -q "image: ko://github.com/tektoncd/pipeline/cmd/$bin\$" "$f"; then
      sed "s#^\( *\)image: ko://github.com/tektoncd/pipeline/cmd/$bin\$#\1image: $TEKTON_IMAGE\n\1command: [/ko-app/$bin]\n\1imagePullPolicy: Never#" "$f"
      return
    fi
  done
  cat "$f"
}

tekton_up() {
  tekton_registry
  local dir f
  dir=$(module_dir github.com/tektoncd/pipeline "$TEKTON_VERSION")/config
  for f in "$dir"/100-namespace/*.yaml "$dir"/200-*.yaml "$dir"/201-*.yaml "$dir"/config-*.yaml \
    "$dir"/controller.yaml "$dir"/webhook.yaml "$dir"/500-webhooks.yaml; do
    tekton_manifest "$f" | sed -e "s#ko://github.com/tektoncd/pipeline/cmd/nop#$TEKTON_NOP_IMAGE#g" \
      -e "s#ko://github.com/tektoncd/pipeline/cmd/[a-z]*#$TEKTON_IMAGE#g" \
      -e "s#\"-shell-image\", \"[^\"]*\"#\"-shell-image\", \"$TEKTON_IMAGE\"#" \
      -e 's#^\( *set-security-context: \)"false"$#\1"true"#'
    echo '---'
  done >"$E2E_RUN/tekton.yaml"
  grep -q "command: \[/ko-app/controller\]" "$E2E_RUN/tekton.yaml" || { log "Tekton's controller.yaml changed: update tekton.sh"; return 1; }
  grep -q '^ *set-security-context: "true"$' "$E2E_RUN/tekton.yaml" || { log "Tekton's config-feature-flags.yaml changed: update tekton.sh"; return 1; }
  "$kubectl" apply --server-side -f "$E2E_RUN/tekton.yaml" >/dev/null
  local d pin
  pin="{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"$NODE_NAME\"},\"tolerations\":[{\"key\":\"$NODE_TAINT\",\"operator\":\"Exists\"}]}}}}"
  for d in tekton-pipelines-controller tekton-pipelines-webhook; do
    "$kubectl" -n tekton-pipelines patch deployment "$d" -p "$pin" >/dev/null
  done
  "$kubectl" -n tekton-pipelines rollout status deployment tekton-pipelines-controller tekton-pipelines-webhook --timeout=180s >/dev/null
}
