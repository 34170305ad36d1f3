package distributed

// WaitScript creates the job in $MANIFEST and waits until its status,
// read with the JSONPath $STATUS, holds the word $SUCCEEDED or $FAILED.
// It exits non-zero when the job fails, when $TIMEOUT seconds pass (0 for
// no limit), or when the job cannot be read five times in a row. The job
// is owned by the step's pod, so Kubernetes deletes it with the pod, and
// it is deleted at once when the step is stopped. $AUTOSCALER_MIN and
// $AUTOSCALER_MAX, when set, add a DaskAutoscaler for the job's cluster.
// Every value reaches kubectl as data: the manifest on stdin, the rest as
// printf arguments, never as shell source.
const WaitScript = `#!/bin/sh
set -eu
name=$(printf '%s\n' "$MANIFEST" | kubectl create -f - -o name)
echo "created $name"
trap 'kubectl delete "$name" --wait=false >/dev/null 2>&1 || true; exit 143' TERM INT
owner=$(printf '{"metadata":{"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"%s","uid":"%s"}]}}' "$POD_NAME" "$POD_UID")
kubectl patch "$name" --type=merge -p "$owner" >/dev/null
if [ -n "${AUTOSCALER_MAX:-}" ]; then
  printf '{"apiVersion":"kubernetes.dask.org/v1","kind":"DaskAutoscaler","metadata":{"name":"%s","ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"%s","uid":"%s"}]},"spec":{"cluster":"%s","minimum":%d,"maximum":%d}}\n' \
    "${name#*/}" "$POD_NAME" "$POD_UID" "${name#*/}" "$AUTOSCALER_MIN" "$AUTOSCALER_MAX" | kubectl create -f -
fi
start=$(date +%s)
misses=0
while :; do
  if state=$(kubectl get "$name" -o "jsonpath=$STATUS"); then
    misses=0
    case " $state " in
      *" $SUCCEEDED "*) echo "$name: $SUCCEEDED"; exit 0 ;;
      *" $FAILED "*) echo "$name: $FAILED" >&2; exit 1 ;;
    esac
  else
    misses=$((misses + 1))
    if [ "$misses" -ge 5 ]; then echo "$name: cannot read its status" >&2; exit 1; fi
  fi
  if [ "$TIMEOUT" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$TIMEOUT" ]; then
    echo "$name: not done after $TIMEOUT seconds" >&2
    kubectl delete "$name" --wait=false >/dev/null 2>&1 || true
    exit 1
  fi
  sleep 10
done
`
