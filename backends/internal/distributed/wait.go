package distributed

// FailedWorkers is the word of a job's status, in $STATUS, before the
// number of its workers that failed.
const FailedWorkers = "failed-workers="

// WaitScript deletes what an earlier attempt of the step left ($RESOURCE
// objects matching $SELECTOR), waiting until their pods are gone so that
// two attempts never run at once; creates the job in $MANIFEST; and waits
// until its status, read with the JSONPath $STATUS, holds the word
// $SUCCEEDED or $FAILED, or FailedWorkers followed by a count above 0
// (a job whose workers fail before it can). It exits non-zero when the job fails, when
// $TIMEOUT seconds pass (0 for no limit), or when the job cannot be read
// five times in a row; on any exit but success, and when the step is
// stopped, it deletes the job. The manifest names the step's pod as the
// job's owner from the start, so Kubernetes also deletes the job with the
// pod even if the script is killed. $AUTOSCALER_MIN and $AUTOSCALER_MAX,
// when set, add a DaskAutoscaler for the job's cluster. Every value
// reaches kubectl as data: the manifest on stdin, the rest as arguments,
// never as shell source.
const WaitScript = `#!/bin/sh
set -eu
kubectl delete "$RESOURCE" -l "$SELECTOR" --ignore-not-found --cascade=foreground --wait=true --timeout=10m
name=$(printf '%s\n' "$MANIFEST" | kubectl create -f - -o name)
echo "created $name"
result=stopped
cleanup() {
  if [ "$result" != succeeded ]; then kubectl delete "$name" --ignore-not-found --wait=false >/dev/null 2>&1 || true; fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT
if [ -n "${AUTOSCALER_MAX:-}" ]; then
  printf '{"apiVersion":"kubernetes.dask.org/v1","kind":"DaskAutoscaler","metadata":{"name":"%s",` +
	`"ownerReferences":[{"apiVersion":"v1","kind":"Pod","name":"%s","uid":"%s"}]},` +
	`"spec":{"cluster":"%s","minimum":%d,"maximum":%d}}\n' \
    "${name#*/}" "$POD_NAME" "$POD_UID" "${name#*/}" "$AUTOSCALER_MIN" "$AUTOSCALER_MAX" | kubectl create -f -
fi
start=$(date +%s)
misses=0
while :; do
  if state=$(kubectl get "$name" -o "jsonpath=$STATUS"); then
    misses=0
    case " $state " in
      *" $SUCCEEDED "*) result=succeeded; echo "$name: $SUCCEEDED"; exit 0 ;;
      *" $FAILED "*) echo "$name: $FAILED" >&2; exit 1 ;;
      *" failed-workers="[1-9]*) echo "$name: ${state##*failed-workers=} of its workers failed" >&2; exit 1 ;;
    esac
  else
    misses=$((misses + 1))
    if [ "$misses" -ge 5 ]; then echo "$name: cannot read its status" >&2; exit 1; fi
  fi
  if [ "$TIMEOUT" -gt 0 ] && [ $(( $(date +%s) - start )) -ge "$TIMEOUT" ]; then
    echo "$name: not done after $TIMEOUT seconds" >&2
    exit 1
  fi
  sleep 10
done
`
