package kube

import (
	"strconv"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The containers that move a step's data run POSIX sh scripts, in the
// platform's tool image (rclone's image is Alpine's busybox; the e2e
// image is Debian's coreutils): each takes its items as arguments, a
// fixed number of words each, after $0.
const (
	// ScratchVolume is a volume each pod that fetches has of its own
	// (ScratchVolumeSpec), where fetched data lands before its digest is
	// checked and it is copied into place.
	ScratchVolume = "mlcube-scratch"
	// ScratchPath is where it is mounted in the containers that move
	// data.
	ScratchPath = "/mlcube-scratch"
)

// listingFn is a shell function printing the lines whose sha256 is the
// folder $1's (ir.FolderDigest): each file's sha256sum line, by path;
// with -L as $2, following symbolic links, as find -L does.
const listingFn = `listing() {
  (cd "$1" && find ${2:-} . -type f | LC_ALL=C sort | while IFS= read -r f; do sha256sum "$f"; done)
}
`

// digestFn holds listingFn, and a shell function printing the sha256 of
// a file, or of a folder (with -L as $2, following symbolic links). It
// fails the script when it cannot read all of it: nothing is there, or
// find or sha256sum said anything on stderr (a folder it may not
// enter, a file it may not read), whose statuses a pipe would hide; or,
// with -L, links prints a link of the folder it will not follow: one to
// a place outside it (another mount of the pod, or the image, which
// another pod sees apart), or to a folder that holds it (a loop, which
// BusyBox's find -L walks until the kernel refuses the path, reading the
// data again each time). A digest of part of the data is none.
const digestFn = listingFn + `links() {
  root=$(cd "$1" && pwd -P)
  (cd "$1" && find . -type l) | while IFS= read -r l; do
    t=$(readlink -f "$1/$l") || continue
    case $t/ in "$root"/*) ;; *) echo "mlcube-compile: $1/$l links to $t, outside $1"; continue ;; esac
    here=$(cd "$(dirname "$1/$l")" && pwd -P)
    if [ -d "$t" ]; then
      case $here/ in "${t%/}"/*) echo "mlcube-compile: $1/$l links to $t, which holds it: a loop" ;; esac
    fi
  done
}
digest() {
  dl=$(mktemp) de=$(mktemp)
  if [ -d "$1" ] && [ "${2:-}" = -L ]; then links "$1" >"$de" 2>&1; fi
  if [ -s "$de" ]; then
    :
  elif [ -d "$1" ]; then
    listing "$1" ${2:-} >"$dl" 2>"$de" || echo "mlcube-compile: cannot list $1" >>"$de"
  elif [ -e "$1" ]; then
    sha256sum <"$1" >"$dl" 2>"$de" || echo "mlcube-compile: cannot read $1" >>"$de"
  else
    echo "mlcube-compile: nothing is at $1" >"$de"
  fi
  if [ -s "$de" ]; then
    cat "$de" >&2
    echo "mlcube-compile: cannot digest all of $1" >&2
    exit 1
  fi
  if [ -d "$1" ]; then sha256sum <"$dl" | cut -d' ' -f1; else cut -d' ' -f1 <"$dl"; fi
  rm -f "$dl" "$de"
}
`

// shareFn is a shell function that lets every user read and write what
// the mover placed at $1: the folders it made 0777 and the files 0666,
// as the pod's own emptyDir is. The step's container may run as any uid
// (the image's own USER, the platform's runAsUser), none of them the
// mover's, and what was fetched may come with no access for them: Argo
// loads an S3 folder with minio-go, which makes folders 0700 and files
// 0600 (FGetObject, api-get-object-file.go of minio-go v7.0.100, which
// Argo v3.7.18 takes), and cp keeps those modes. Only what the mover
// owns is changed: a folder it did not make, such as the volume's root,
// is left as it is. The data is on a volume of the pod's own (the
// workspace, or the fetched folder), which no other pod mounts.
const shareFn = `share() {
  find "$1" -user "$(id -u)" -type d -exec chmod 0777 {} +
  find "$1" -user "$(id -u)" -type f -exec chmod 0666 {} +
}
`

// VerifyScript checks fetched data and puts it in place, where the
// step's user reads and writes it (shareFn; the folders it makes are
// 0777 too, by umask 0). Its items are four words each: the fetch's
// name, where it was fetched to, the sha256 it must have (empty for
// none; @FILE for the one FILE holds, which a cached fetch wrote), and
// where it goes (with the part of it that goes there, after a / when
// only a part does: Fetch.Sub). A mismatch fails the container, and so
// the step.
const VerifyScript = `set -eu
umask 0
` + digestFn + shareFn + `while [ $# -ge 4 ]; do
  name=$1 src=$2 want=$3 dest=$4; shift 4
  [ -e "$src" ] || { echo "mlcube-compile: $name: nothing was fetched to $src" >&2; exit 1; }
  case $want in @*)
    want=$(cat "${want#@}")
    [ -n "$want" ] || { echo "mlcube-compile: $name: no sha256 was recorded for it" >&2; exit 1; } ;;
  esac
  got=$(digest "$src")
  if [ -n "$want" ] && [ "$got" != "$want" ]; then
    echo "mlcube-compile: $name: sha256 $got, want $want" >&2; exit 1
  fi
  echo "mlcube-compile: $name: sha256 $got"
  part=${dest#*//}; [ "$part" != "$dest" ] || part=
  dest=${dest%%//*}
  from=$src${part:+/$part}
  mkdir -p "$(dirname "$dest")"
  if [ -d "$from" ]; then mkdir -p "$dest" && cp -R "$from/." "$dest/"; else cp "$from" "$dest"; fi
  share "$dest"
done
`

// DigestScript writes the sha256 of each output into a file. Its items
// are three words each: the upload's name, its path, and the file the
// digest goes to. A missing output fails the container.
const DigestScript = `set -eu
` + digestFn + `while [ $# -ge 3 ]; do
  name=$1 path=$2 out=$3; shift 3
  [ -e "$path" ] || { echo "mlcube-compile: output $name: $path was not written" >&2; exit 1; }
  mkdir -p "$(dirname "$out")"
  d=$(digest "$path")
  printf '%s' "$d" >"$out"
  echo "mlcube-compile: output $name: sha256 $(cat "$out")"
done
`

// FetchScript fetches with rclone into the scratch folder. Its items are
// three words each: s3 (a bucket/key, an object or a folder, which
// rclone's lsjson --stat tells apart), folder (the key of a folder a step
// of the run uploaded), http (a URL of one file), or cached or
// cachedfolder (an output of a cached step: its key's bucket/key and
// the output's name, from the entry its manifest names, whose sha256 it
// writes beside what lands, as <where>.sha256), the source, and where
// it lands. S3 has no folders: an empty one uploads no object, and
// rclone copies nothing from a prefix with none below it, without error
// (an empty listing is no error to rclone's S3 backend unless it uses
// directory markers: list, backend/s3/s3.go; sync.CopyDir makes no
// folder when --create-empty-src-dirs is off: fs/sync/sync.go, v1.71.1),
// so a folder that nothing was fetched to is made empty; its digest
// tells it from a lost upload (VerifyScript).
const FetchScript = `set -eu
` + manifestFn + `while [ $# -ge 3 ]; do
  kind=$1 src=$2 dest=$3; shift 3
  mkdir -p "$(dirname "$dest")"
  case $kind in
  cached | cachedfolder)
    key=${src%/*} out=${src##*/}
    readManifest "$key" "$out"
    printf '%s' "$d" >"$dest.sha256"
    if [ "$kind" = cachedfolder ]; then
      rclone copy ":s3:$key/$e/$out/" "$dest" && mkdir -p "$dest"
    else
      rclone copyto ":s3:$key/$e/$out" "$dest"
    fi ;;
  http) rclone copyurl "$src" "$dest" ;;
  folder) rclone copy ":s3:$src" "$dest" && mkdir -p "$dest" ;;
  s3)
    if rclone lsjson --stat ":s3:$src" | grep -q '"IsDir": *true'; then
      rclone copy ":s3:$src" "$dest"
    else
      rclone copyto ":s3:$src" "$dest"
    fi ;;
  esac
done
`

// UploadScript uploads with rclone. Its items are three words each: the
// output's path (a file, or a folder whose files go below the key), the
// bucket/key it goes to, and a file its s3:// URI is written to once it
// is there (empty for none). A folder is synced, not copied: rclone's
// sync deletes what is below the key and not in the folder (Sync, with
// the delete mode that copy's CopyDir turns off, fs/sync/sync.go,
// v1.71.1), so an earlier attempt's upload of a retried step, cut short,
// leaves nothing beside the files of the attempt that succeeded. Only
// an attempt whose step succeeded uploads: Tekton skips a task's later
// steps once one failed (ErrSkipPreviousStepFailed,
// pkg/entrypoint/entrypointer.go, v1.15.0), and a Job's upload
// container starts once every init container succeeded.
const UploadScript = `set -eu
while [ $# -ge 3 ]; do
  src=$1 dest=$2 uri=$3; shift 3
  if [ -d "$src" ]; then rclone sync "$src" ":s3:$dest"; else rclone copyto "$src" ":s3:$dest"; fi
  echo "mlcube-compile: uploaded s3://$dest"
  [ -z "$uri" ] || printf '%s' "s3://$dest" >"$uri"
done
`

// ArtifactScript writes each upload's result for Tekton Chains: an
// object of a URI, the digest of what is there as sha256:<hex>, and
// isBuildArtifact "true", the shape of a *_ARTIFACT_OUTPUTS result that
// Chains makes a subject of its provenance in every format it writes
// (IsBuildArtifact, ExtractStructuredTargetFromResults and ParseDigest,
// pkg/artifacts/signable.go, tektoncd/chains v0.26.2). A file's URI is
// its own. A folder has no one object whose sha256 its digest is, so its
// listing (the lines ir.FolderDigest takes the sha256 of, each file's
// sha256 and path) is uploaded beside it, at its key with .sha256sum in
// place of the last /, and is the URI: its sha256 is the folder's
// digest, and it names each file's. Its items are six words each: file
// or folder, the file holding the upload's sha256 (DigestScript), the
// file holding its URI (UploadScript), the file the object goes to, the
// upload's path and its bucket/key.
const ArtifactScript = `set -eu
` + listingFn + `while [ $# -ge 6 ]; do
  kind=$1 digest=$2 uri=$3 out=$4 path=$5 key=$6; shift 6
  d=$(cat "$digest") u=$(cat "$uri")
  if [ "$kind" = folder ]; then
    list=$(mktemp)
    listing "$path" >"$list"
    got=$(sha256sum <"$list" | cut -d' ' -f1)
    if [ "$got" != "$d" ]; then
      echo "mlcube-compile: $path changed after its upload: sha256 $got, uploaded $d" >&2
      exit 1
    fi
    rclone copyto "$list" ":s3:${key%/}.sha256sum"
    u="s3://${key%/}.sha256sum"
  fi
  printf '{"uri":"%s","digest":"sha256:%s","isBuildArtifact":"true"}' "$u" "$d" >"$out"
done
`

// FetchSource is the first two words of a FetchScript item for a URL.
func FetchSource(u *ir.URL) (kind, src string) {
	if u.Scheme == "s3" {
		return "s3", u.Bucket + "/" + u.Key
	}
	return "http", u.Raw
}

// SequenceScript runs scripts one after another in one container, each
// on its own items, and fails at the first that fails. Its arguments
// are groups of: a name (the script's $0, which its messages print),
// the script, the number of words after it that are its items, and
// those words. Sequence writes them.
const SequenceScript = `set -eu
while [ $# -ge 3 ]; do
  name=$1 script=$2 n=$3; shift 3
  [ "$#" -ge "$n" ] || { echo "mlcube-compile: $name: $n items wanted, $# left" >&2; exit 1; }
  (
    all=$# i=0
    for w do
      if [ "$i" -lt "$n" ]; then set -- "$@" "$w"; fi
      i=$((i + 1))
    done
    shift "$all"
    sh -c "$script" "$name" "$@"
  )
  shift "$n"
done
`

// Phase is one script a SequenceScript runs, and its items, written for
// a container's args (Kubernetes reads $(VAR) and $$ in them).
type Phase struct {
	Name, Script string
	Items        []string
}

// Sequence is the command and args of a container that runs phases in
// order. The scripts are escaped for the kubelet, which would read
// their $(...); the items are as given, so that an engine's own
// references in them ($(context.pipelineRun.uid), a Job's $(VAR)) are
// replaced.
func Sequence(phases ...Phase) (command, args []string) {
	command = []string{"sh", "-c", ir.KubeLiteral(SequenceScript), "mlcube-compile"}
	for _, ph := range phases {
		args = append(args, ph.Name, ir.KubeLiteral(ph.Script), strconv.Itoa(len(ph.Items)))
		args = append(args, ph.Items...)
	}
	return command, args
}
