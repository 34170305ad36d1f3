#!/usr/bin/env bash
# make bench: mlcube-compile against the tools users run today, on the
# same work, in one run, and at scale. Prints a table of medians with each
# peer's version and each ratio against its target. These machines are
# noisy, so every target is a ratio of two times taken in this run.
#
# It installs what it compares against, at pinned versions: hyperfine,
# python3-jinja2 and time from Debian; kustomize and cue from the Go
# module proxy, into .bench/bin (git-ignored). Everything it makes goes
# to .bench/: inputs/, results/ (hyperfine's JSON, the table).
#
#   RUNS=15 bash scripts/bench.sh    # runs per command (the largest pipelines take fewer)
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local GOFLAGS=${GOFLAGS:-}
export PATH="$PATH:/usr/local/go/bin"

KUSTOMIZE_VERSION=v5.7.1
CUE_VERSION=v0.17.1
RUNS=${RUNS:-15}
ROOT=$PWD
OUT=$ROOT/.bench
BIN=$OUT/bin
IN=$OUT/inputs
RES=$OUT/results
PYTHON=/usr/bin/python3 # Debian's, which has python3-jinja2; not a pyenv one on PATH
SIZES=(100 500 1000 5000 20000)
# The shapes of the scale table: each steps' own paths (chain, fan,
# diamond), then steps that share paths (a sweep of one task with default
# paths; a fan of writers of one path; a fan of readers of one path).
SHAPES=(chain fan diamond shared-chain shared-writers shared-readers)
# The generated pipelines whose compile is compared with the floor.
FLOOR_SHAPES=(chain fan diamond)

log() { printf '== %s\n' "$*" >&2; }

# debian_packages installs the packages that are missing, as root or
# through sudo, refreshing the package lists only when the first try fails.
debian_packages() {
  local missing=() p sudo=()
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  [ ${#missing[@]} -eq 0 ] && return
  [ "$(id -u)" -eq 0 ] || sudo=(sudo)
  log "installing ${missing[*]} from Debian"
  "${sudo[@]}" apt-get install -y "${missing[@]}" ||
    { "${sudo[@]}" apt-get update && "${sudo[@]}" apt-get install -y "${missing[@]}"; }
}

# go_tool NAME MODULE/PATH VERSION: installs a Go command into .bench/bin
# unless the one there already reports VERSION.
go_tool() {
  local name=$1 pkg=$2 version=$3
  # grep reads all the output: with -q it would stop early, and the tool's
  # broken pipe would fail the test under pipefail.
  if [ -x "$BIN/$name" ] && "$BIN/$name" version 2>/dev/null | grep -- "$version" >/dev/null; then return; fi
  log "installing $name $version from the Go module proxy"
  GOBIN=$BIN go install "$pkg@$version"
}

# measure NAME RUNS [hyperfine options] COMMAND...: hyperfine's medians,
# one command per argument, into results/NAME.json.
measure() {
  local name=$1 runs=$2
  shift 2
  hyperfine -N --style none --warmup 2 --runs "$runs" --export-json "$RES/$name.json" "$@" >/dev/null 2>>"$RES/hyperfine.log"
}

# peak_rss NAME COMMAND...: the peak resident memory, in KB, of three
# runs, into results/NAME.rss, one per line.
peak_rss() {
  local name=$1 i
  shift
  : >"$RES/$name.rss"
  for i in 1 2 3; do
    /usr/bin/time -f %M -o "$RES/$name.rss.one" "$@" >/dev/null 2>&1 || true
    tail -n 1 "$RES/$name.rss.one" >>"$RES/$name.rss" # after "Command exited with …"
  done
  rm -f "$RES/$name.rss.one"
}

log "tools"
debian_packages hyperfine python3-jinja2 time
rm -rf "$RES" && mkdir -p "$BIN" "$IN" "$RES"
go_tool kustomize sigs.k8s.io/kustomize/kustomize/v5 "$KUSTOMIZE_VERSION"
go_tool cue cuelang.org/go/cmd/cue "$CUE_VERSION"
go build -o "$BIN/mlcube-compile" ./cmd/mlcube-compile
(cd bench && go build -o "$BIN/floor" ./floor && go build -o "$BIN/gen" ./gen)
MC=$BIN/mlcube-compile

log "inputs"
rm -rf "$IN" && mkdir -p "$IN"
"$BIN/gen" cubes -n 1000 "$IN/cubes"
for shape in "${SHAPES[@]}"; do
  for n in "${SIZES[@]}"; do "$BIN/gen" pipeline -shape "$shape" -steps "$n" "$IN/$shape-$n"; done
done
"$MC" schema >"$IN/schema.cue"

log "seed 002: compile vs kustomize build"
resnet=(--mlcube examples/resnet50-multinode --platform examples/resnet50-multinode/platform.yaml --task examples/resnet50-multinode/pipeline.yaml)
kustomize_cmds=("$MC ${resnet[*]}" "$BIN/kustomize build bench/peers/kustomize/multi-node")
if command -v kubectl >/dev/null; then
  kustomize_cmds+=("$(command -v kubectl) kustomize bench/peers/kustomize/multi-node")
fi
measure seed002 "$RUNS" "${kustomize_cmds[@]}"

log "seed 003: compile vs Jinja2"
gpu=(--backend job --mlcube examples/single-gpu-task --platform examples/single-gpu-task/platform.yaml --task examples/single-gpu-task/pipeline.yaml -f examples/single-gpu-task/values.yaml)
measure seed003 "$RUNS" "$MC ${gpu[*]}" \
  "$PYTHON bench/peers/jinja/render.py bench/peers/jinja/single-gpu-task.yaml.j2 bench/peers/jinja/values.json"

log "lint 1,000 cubes vs cue vet"
cubes=$(cd "$IN" && ls cubes/*/mlcube.yaml | sed "s#^#$IN/#" | tr '\n' ' ')
# Then lint --cache: its second run on the unchanged cubes (the cache
# filled first), and its first run, which fills an empty cache.
rm -rf "$OUT/lint-cache" && "$MC" lint --cache "$OUT/lint-cache" "$IN/cubes" >/dev/null
measure lint "$(((RUNS + 1) / 2))" "$MC lint $IN/cubes" "$BIN/cue vet -d '#MLCubeFile' $IN/schema.cue $cubes" \
  "$MC lint --cache $OUT/lint-cache $IN/cubes"
measure lint-fill "$(((RUNS + 3) / 4))" --prepare "rm -rf $OUT/lint-cache-fill" "$MC lint --cache $OUT/lint-cache-fill $IN/cubes"

log "scale: ${SHAPES[*]} at ${SIZES[*]} steps"
for shape in "${SHAPES[@]}"; do
  for n in "${SIZES[@]}"; do
    runs=$RUNS
    [ "$n" -ge 5000 ] && runs=5
    [ "$n" -ge 20000 ] && runs=3
    args=(--mlcube "$IN/$shape-$n" --task "$IN/$shape-$n/pipeline.yaml")
    # 20,000 steps are over Argo's 1 MiB: the whole front end and the
    # Workflow are built, then refused for their size, with exit 1.
    measure "scale-$shape-$n" "$runs" -i "$MC ${args[*]}"
    peak_rss "scale-$shape-$n" "$MC" "${args[@]}"
  done
done

log "floor: decode the inputs, encode the output, and nothing else"
# The floor and the same compiles in-process, as the floor is timed (no
# process start), taken in turns, five rounds: the medians of each.
floor_cases=(resnet50-multinode single-gpu-task)
"$MC" "${resnet[@]}" >"$IN/resnet50-multinode.yaml" 2>/dev/null
"$MC" "${gpu[@]}" >"$IN/single-gpu-task.yaml" 2>/dev/null
floor_inputs() { # NAME: the input files of a floor case
  case $1 in
  resnet50-multinode) echo examples/resnet50-multinode/{mlcube,platform,pipeline}.yaml ;;
  single-gpu-task) echo examples/single-gpu-task/{mlcube,platform,pipeline,values}.yaml ;;
  *) echo "$IN/$1/mlcube.yaml $IN/$1/pipeline.yaml" ;;
  esac
}
for shape in "${FLOOR_SHAPES[@]}"; do
  floor_cases+=("$shape-1000")
  "$MC" --mlcube "$IN/$shape-1000" --task "$IN/$shape-1000/pipeline.yaml" >"$IN/$shape-1000.yaml"
done
go test -c -o "$BIN/cmd.test" ./cmd/mlcube-compile
pattern="^BenchmarkCompile\$/^($(IFS='|'; echo "${floor_cases[*]}"))\$"
for round in 1 2 3 4 5; do
  for name in "${floor_cases[@]}"; do
    # shellcheck disable=SC2046 # the inputs are words
    "$BIN/floor" -n 10 -out "$IN/$name.yaml" $(floor_inputs "$name") >>"$RES/floor-$name.ns"
  done
  (cd cmd/mlcube-compile && "$BIN/cmd.test" -test.run '^$' -test.bench "$pattern" -test.benchtime 5x) >>"$RES/compile-in-process.txt"
done

log "stages: go test -bench, -benchmem (lint is measured above)"
go test ./schema ./compiler/... ./cmd/mlcube-compile -run '^$' -bench . -skip BenchmarkLint -benchmem \
  -count 3 -benchtime "${BENCHTIME:-100ms}" >"$RES/stages.txt"

versions() {
  echo "mlcube-compile $("$MC" --version | sed 's/^mlcube-compile version //')" # version (commit, Go)
  echo "kustomize $("$BIN/kustomize" version)"
  if command -v kubectl >/dev/null; then echo "kubectl $(kubectl version --client 2>/dev/null | awk '/Client Version/ {print $3}')"; fi
  echo "jinja2 $($PYTHON -c 'import jinja2; print(jinja2.__version__)') (Debian python3-jinja2 $(dpkg-query -W -f '${Version}' python3-jinja2), Python $($PYTHON -c 'import platform; print(platform.python_version())'))"
  echo "cue $("$BIN/cue" version | awk 'NR==1 {print $3}')"
  echo "hyperfine $(hyperfine --version | awk '{print $2}'), GNU time $(dpkg-query -W -f '${Version}' time)"
  echo "cpus $(nproc), load average $(cut -d' ' -f1-3 /proc/loadavg)"
}
versions >"$RES/versions.txt"
$PYTHON bench/table.py "$RES" | tee "$RES/table.md"
