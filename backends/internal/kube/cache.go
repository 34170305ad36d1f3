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
  if stat=$(rclone lsjson --stat ":s3:$1" 2>&1); then
    case $stat in *'"IsDir": false'* | *'"IsDir":false'*) return 0 ;; esac
    return 1
  fi
  case $stat in *"not found"*) return 1 ;; esac
  echo "$stat" >&2
  echo "mlcube-compile: cannot tell whether $1 is in the bucket" >&2
  exit 1
}
`

// manifestFn holds shell functions reading a cached step's manifest:
// recorded prints the sha256 the manifest file $1 records for output $2,
// entry the entry it names, each failing when it records none; and
// readManifest copies the manifest of the key at bucket/key $1 and sets
// d, the sha256 it records for output $2, and e, its entry, failing when
// the cache has no such manifest. An output's name is a DNS label
// (ir.Upload.Name), which the pattern takes as written.
const manifestFn = `recorded() {
  d=$(sed -n "s/^output $2 \([0-9a-f]\{64\}\)\$/\1/p" "$1")
  [ -n "$d" ] || { echo "mlcube-compile: the cache's manifest $1 records no output $2" >&2; exit 1; }
  echo "$d"
}
entry() {
  e=$(sed -n 's/^entry \([A-Za-z0-9._-]\{1,\}\)$/\1/p' "$1")
  [ -n "$e" ] || { echo "mlcube-compile: the cache's manifest $1 names no entry" >&2; exit 1; }
  echo "$e"
}
readManifest() {
  m=$(mktemp)
  rclone copyto ":s3:$1/manifest" "$m"
  [ -s "$m" ] || { echo "mlcube-compile: the cache has no manifest at $1" >&2; exit 1; }
  d=$(recorded "$m" "$2")
  e=$(entry "$m")
}
`

// KeyScript makes a cached step's key and looks it up. Its first four
// words are the cache (bucket/prefix), the step's recipe, the folder its
// answers go to, and the scratch folder; then items of four words:
// "param NAME VALUE -", "digest NAME SHA256 -", "cached NAME KEY OUTPUT"
// for an output of a cached step, read from its key's manifest,
// "fetch NAME KIND SRC" for a URL written without a digest, fetched into
// the scratch folder to make one (FetchScript's kinds), and "claim NAME
// PATH -" for a claim the step reads, mounted at PATH, digested where it
// is. Params come first, sorted, then inputs by name, then claims: the
// order of ir.KeyText's lines. Its answers, each a file of the folder:
// key; hit, "true" when the key is in the cache, else "false"; and, for
// the step's own pod to use (the data its key holds, whatever another
// run writes meanwhile), NAME-sha256 of each input it read or fetched
// and of each claim, and NAME-entry of each cached step's output, the
// entry of that step's manifest it read.
const KeyScript = `set -eu
` + digestFn + presentFn + manifestFn + `cache=$1 recipe=$2 out=$3 scratch=$4; shift 4
text=$(mktemp)
printf '%s\n' "` + ir.KeyText + `" "recipe $recipe" >"$text"
while [ $# -ge 4 ]; do
  kind=$1 name=$2 a=$3 b=$4; shift 4
  case $kind in
  param)
    d=$(printf '%s' "$a" | sha256sum | cut -d' ' -f1)
    printf 'param %s %s\n' "$name" "$d" >>"$text"
    continue ;;
  digest) d=$a ;;
  cached)
    readManifest "$cache/$a" "$b"
    printf '%s' "$e" >"$out/$name-entry" ;;
  fetch)
    sh -c "$FETCH" fetch "$a" "$b" "$scratch/$name"
    [ -e "$scratch/$name" ] || { echo "mlcube-compile: $name: nothing was fetched from $b" >&2; exit 1; }
    d=$(digest "$scratch/$name") ;;
  claim)
    d=$(digest "$a" -L)
    printf 'claim %s %s\n' "$a" "$d" >>"$text"
    printf '%s' "$d" >"$out/$name-sha256"
    continue ;;
  esac
  printf 'input %s %s\n' "$name" "$d" >>"$text"
  printf '%s' "$d" >"$out/$name-sha256"
done
key=$(sha256sum <"$text" | cut -d' ' -f1)
cat "$text"
printf '%s' "$key" >"$out/key"
if present "$cache/$key/manifest"; then
  echo "mlcube-compile: key $key: in the cache, the step is skipped"
  printf true >"$out/hit"
else
  echo "mlcube-compile: key $key: not in the cache, the step runs"
  printf false >"$out/hit"
fi
`

// UnchangedScript checks, once a cached step ran, that each claim it
// read still holds what its key task digested: else its outputs may be
// of other data than the key says, and the step fails before it keeps
// them. Its items are two words each: the mount's path and the sha256
// the key task made of it.
const UnchangedScript = `set -eu
` + digestFn + `while [ $# -ge 2 ]; do
  path=$1 want=$2; shift 2
  got=$(digest "$path" -L)
  if [ "$got" != "$want" ]; then
    echo "mlcube-compile: what the claim holds at $path changed while the step ran: sha256 $got, its key holds $want;" \
      "the outputs are not kept, run it again" >&2
    exit 1
  fi
  echo "mlcube-compile: the claim at $path is unchanged: sha256 $got"
done
`

// RecordScript writes a cached step's manifest once its uploads are in
// the entry: its words are the manifest's bucket/key, the entry (the
// run's id, the step and the attempt: EntryOf), then two words for each
// upload: its name and the file its sha256 was written to
// (DigestScript). One object, written whole: a reader finds the manifest
// of one attempt or none.
const RecordScript = `set -eu
manifest=$1 entry=$2; shift 2
m=$(mktemp)
printf '%s\nentry %s\n' "` + ir.CacheManifest + `" "$entry" >"$m"
while [ $# -ge 2 ]; do
  d=$(cat "$2")
  case $d in
  '' | *[!0-9a-f]*) echo "mlcube-compile: output $1 has no sha256: '$d'" >&2; exit 1 ;;
  esac
  printf 'output %s %s\n' "$1" "$d" >>"$m"
  shift 2
done
rclone copyto "$m" ":s3:$manifest"
echo "mlcube-compile: recorded s3://$manifest"
`

// KeyOutputs are the answers of step s's key task besides key and hit,
// which the step's pod reads (KeyScript): NAME-sha256 of each input
// the key task read or fetched, NAME-entry of each cached step's
// output, and the sha256 of each claim it reads (ir.ClaimAnswer).
func KeyOutputs(p *ir.Pipeline, s *ir.Step) []string {
	var out []string
	for _, f := range s.Fetches {
		switch {
		case f.URL != nil && f.URL.SHA256 != "":
		case f.URL != nil:
			out = append(out, f.Name+"-sha256")
		case Cached(p, *f.From):
			out = append(out, f.Name+"-entry", f.Name+"-sha256")
		}
	}
	for i := range s.Key.Claims {
		out = append(out, ir.ClaimAnswer(i)+"-sha256")
	}
	return out
}

// CacheOf is the bucket/prefix of p's cache.
func CacheOf(p *ir.Pipeline) string {
	return p.ObjectStore.S3.Bucket + "/" + p.ObjectStore.Cache.Prefix
}

// EntryOf is the entry of the cache that an attempt of step s writes:
// the run's id, the step and the attempt's number, each as the engine
// refers to it. Each attempt writes one of its own, so that no two
// writers meet in one: two steps of a run with one key, or a retry and
// the attempt before it, whose manifest the retry may replace.
func EntryOf(runID, step, attempt string) string { return runID + "." + step + "." + attempt }

// EntryKey is where upload u is in the bucket: in entry, below the key
// that key refers to; with a trailing / for a folder's files.
func EntryKey(p *ir.Pipeline, key, entry string, u ir.Upload) string {
	out := CacheOf(p) + "/" + key + "/" + entry + "/" + u.Name
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
// its answers to the folder out. It reads each param the
// key holds as the step's container would, and each input's digest: a
// URL's written one, or the fetched data's, or what a step before s
// recorded (m.Want), or a cached step's manifest (m.Key); and digests
// each claim s reads, which m.Mounts mount read-only where s does
// (none on an engine that mounts them itself).
func (m Mover) KeyContainer(p *ir.Pipeline, s *ir.Step, name, out string) corev1.Container {
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
	for i, mt := range s.Key.Claims {
		items = append(items, "claim", ir.ClaimAnswer(i), mt.MountPath, "-")
	}
	args := append([]string{CacheOf(p), s.Key.Recipe, out, ScratchPath}, items...)
	c := m.container(p, name)
	c.Command = []string{"sh", "-c", ir.KubeLiteral(KeyScript), "mlcube-compile"}
	c.Args = args
	c.Env = append(c.Env, corev1.EnvVar{Name: "FETCH", Value: ir.KubeLiteral(FetchScript)})
	if scratch {
		c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: ScratchVolume, MountPath: ScratchPath})
	}
	c.SecurityContext = HelperSecurity(p, s.SecurityContext)
	if len(s.Key.Claims) > 0 {
		// It reads the claim as the step does: a step that may run as
		// root may read files only root reads (WriterSecurity).
		c.SecurityContext = WriterSecurity(p, s.SecurityContext)
	}
	return c
}
