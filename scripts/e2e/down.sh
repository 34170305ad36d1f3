#!/usr/bin/env bash
# Stops the processes up.sh started, and only those: each PID in
# .e2e/run/pids is signalled only while its command line still names the
# e2e folder (etcd by its data folder, the rest by their binaries or
# config files). Then it undoes what the real node changed on the host.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
source "$here/versions.sh"
source "$here/node-down.sh"
pids=$E2E_RUN/pids
if [ ! -f "$pids" ]; then node_undo; exit 0; fi

ours() { [ -r "/proc/$1/cmdline" ] && tr '\0' ' ' <"/proc/$1/cmdline" | grep -qF "$E2E_ROOT"; }

# Stop in reverse order of starting, so etcd goes last.
stopped=()
while read -r pid name; do
  ours "$pid" || continue
  stopped+=("$name")
  # kubelet is stopped by now: stop the containers before containerd.
  [ "$name" = containerd ] && node_drain
  kill -TERM "$pid" 2>/dev/null
  for _ in $(seq 1 40); do ours "$pid" || break; sleep 0.25; done
  if ours "$pid"; then
    printf 'e2e down: %s (%s) ignored SIGTERM; killing it\n' "$name" "$pid" >&2
    kill -KILL "$pid" 2>/dev/null
  fi
done < <(tac "$pids")
rm -f "$pids"
node_undo
printf 'e2e down: stopped %d processes%s; the network namespace %s deleted and what the real node changed on the host undone\n' \
  "${#stopped[@]}" "$([ ${#stopped[@]} -gt 0 ] && printf ' (%s)' "$(IFS=,; echo "${stopped[*]}" | sed 's/,/, /g')")" "$E2E_NETNS"
