package kube

import (
	"cmp"
	"slices"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// A cached step (ir.Step.Key) runs after a pod of its own, the key pod,
// which makes its key (KeyScript) and looks it up in the cache: on a hit
// the engine skips the step, whose pod never starts. The step, when it
// runs, uploads into an entry of the cache below its key and then
// writes the key's manifest (RecordScript); a step after it fetches from
// the entry the manifest names (FetchScript's cached kinds), checked
// against the sha256 the manifest records, whichever run wrote it.

// presentFn is a shell function whose status says whether the object
// at the bucket's key $1 is there: 0 when it is, 1 when it is not, and
// the script fails on any other answer of rclone's (a network or
// credentials error is never a miss).
const presentFn = `present() {
  if out=$(rclone lsjson --stat ":s3:$1" 2>&1); then
    case $out in *'"IsDir": false'* | *'"IsDir":false'*) return 0 ;; esac
    return 1
  fi
  case $out in *"not found"*) return 1 ;; esac
  echo "$out" >&2
  echo "mlcube-compile: cannot tell whether $1 is in the bucket" >&2
  exit 1
}
`

// manifestFn is a shell function printing the sha256 that the manifest
// file $1 records for output $2; it fails when it records none.
const manifestFn = `recorded() {
  d=$(sed -n "s/^output $2 \([0-9a-f]\{64\}\)\$/\1/p" "$1")
  [ -n "$d" ] || { echo "mlcube-compile: the cache's manifest $1 records no output $2" >&2; exit 1; }
  echo "$d"
}
`

// KeyScript makes a cached step's key and looks it up. Its first five
// words are the cache (bucket/prefix), the step's recipe, the files the
// key and the answer ("true" on a hit, else "false") go to, and the
// scratch folder; then
// items of four words: "param NAME VALUE -", "digest NAME SHA256 -",
// "cached NAME KEY OUTPUT" for an output of a cached step, read from its
// key's manifest, and "fetch NAME KIND SRC" for a URL written without a
// digest, fetched into the scratch folder to make one (FetchScript's
// kinds). Params come first, sorted, then inputs by name: the order of
// ir.KeyText's lines.
const KeyScript = `set -eu
` + digestFn + presentFn + manifestFn + `cache=$1 recipe=$2 keyfile=$3 hitfile=$4 scratch=$5; shift 5
text=$(mktemp)
printf '%s\n' "` + ir.KeyText + `" "recipe $recipe" >"$text"
while [ $# -ge 4 ]; do
  kind=$1 name=$2 a=$3 b=$4; shift 4
  case $kind in
  param) printf 'param %s %s\n' "$name" "$(printf '%s' "$a" | sha256sum | cut -d' ' -f1)" >>"$text" ;;
  digest) printf 'input %s %s\n' "$name" "$a" >>"$text" ;;
  cached)
    m=$(mktemp)
    rclone copyto ":s3:$cache/$a/manifest" "$m"
    printf 'input %s %s\n' "$name" "$(recorded "$m" "$b")" >>"$text" ;;
  fetch)
    sh -c "$FETCH" fetch "$a" "$b" "$scratch/$name"
    printf 'input %s %s\n' "$name" "$(digest "$scratch/$name")" >>"$text" ;;
  esac
done
key=$(sha256sum <"$text" | cut -d' ' -f1)
cat "$text"
printf '%s' "$key" >"$keyfile"
if present "$cache/$key/manifest"; then
  echo "mlcube-compile: key $key: in the cache, the step is skipped"
  printf true >"$hitfile"
else
  echo "mlcube-compile: key $key: not in the cache, the step runs"
  printf false >"$hitfile"
fi
`

// RecordScript writes a cached step's manifest once its uploads are in
// the entry: its words are the manifest's bucket/key, the entry (the
// run's id), then two words for each upload: its name and the file its
// sha256 was written to (DigestScript). One object, written whole: a
// reader finds the manifest of one run or none.
const RecordScript = `set -eu
manifest=$1 entry=$2; shift 2
m=$(mktemp)
printf '%s\nentry %s\n' "` + ir.CacheManifest + `" "$entry" >"$m"
while [ $# -ge 2 ]; do
  printf 'output %s %s\n' "$1" "$(cat "$2")" >>"$m"
  shift 2
done
rclone copyto "$m" ":s3:$manifest"
echo "mlcube-compile: recorded s3://$manifest"
`

// CacheOf is the bucket/prefix of p's cache.
func CacheOf(p *ir.Pipeline) string {
	return p.ObjectStore.S3.Bucket + "/" + p.ObjectStore.Cache.Prefix
}

// EntryKey is where upload u of a cached step is in the bucket: in the
// entry of the run whose id runID refers to, below the key that key
// refers to; with a trailing / for a folder's files.
func EntryKey(p *ir.Pipeline, key, runID string, u ir.Upload) string {
	out := CacheOf(p) + "/" + key + "/" + runID + "/" + u.Name
	if u.Folder {
		out += "/"
	}
	return out
}

// Cached says whether o is the upload of a step p caches.
func Cached(p *ir.Pipeline, o ir.Output) bool {
	for _, s := range p.Steps {
		if s.Name == o.Step {
			return s.Key != nil
		}
	}
	return false
}

// KeyContainer makes step s's key and looks it up (KeyScript), writing
// the key to keyFile and the answer to hitFile. It reads each param the
// key holds as the step's container would, and each input's digest: a
// URL's written one, or the fetched data's, or what a step before s
// recorded (m.Want), or a cached step's manifest (m.Key).
func (m Mover) KeyContainer(p *ir.Pipeline, s *ir.Step, name, keyFile, hitFile string) corev1.Container {
	items := []string{}
	for _, param := range s.Key.Params {
		items = append(items, "param", param, m.Ref(param), "-")
	}
	fetches := slices.Clone(s.Fetches)
	slices.SortFunc(fetches, func(a, b ir.Fetch) int { return cmp.Compare(a.Name, b.Name) })
	scratch := false
	for _, f := range fetches {
		switch {
		case f.URL != nil && f.URL.SHA256 != "":
			items = append(items, "digest", f.Name, f.URL.SHA256, "-")
		case f.URL != nil:
			kind, src := FetchSource(f.URL)
			items = append(items, "fetch", f.Name, kind, src)
			scratch = true
		case Cached(p, *f.From):
			items = append(items, "cached", f.Name, m.Key(f.From.Step), f.From.Name)
		default:
			items = append(items, "digest", f.Name, m.Want(f), "-")
		}
	}
	args := append([]string{CacheOf(p), s.Key.Recipe, keyFile, hitFile, ScratchPath}, items...)
	c := m.container(p, name)
	c.Command = []string{"sh", "-c", ir.KubeLiteral(KeyScript), "mlcube-compile"}
	c.Args = args
	c.Env = append(c.Env, corev1.EnvVar{Name: "FETCH", Value: ir.KubeLiteral(FetchScript)})
	c.VolumeMounts = nil
	if scratch {
		c.VolumeMounts = []corev1.VolumeMount{{Name: ScratchVolume, MountPath: ScratchPath}}
	}
	c.SecurityContext = HelperSecurity(p, s.SecurityContext)
	return c
}
