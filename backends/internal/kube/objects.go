package kube

import (
	"strconv"

	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
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

// digestFn is a shell function printing the sha256 of a file, or of a
// folder as ir.FolderDigest defines it.
const digestFn = `digest() {
  if [ -d "$1" ]; then
    (cd "$1" && find . -type f | LC_ALL=C sort | while IFS= read -r f; do sha256sum "$f"; done) | sha256sum | cut -d' ' -f1
  else
    sha256sum <"$1" | cut -d' ' -f1
  fi
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
// none), and where it goes (with the part of it that goes there, after
// a / when only a part does: Fetch.Sub). A mismatch fails the
// container, and so the step.
const VerifyScript = `set -eu
umask 0
` + digestFn + shareFn + `while [ $# -ge 4 ]; do
  name=$1 src=$2 want=$3 dest=$4; shift 4
  [ -e "$src" ] || { echo "mlcube-compile: $name: nothing was fetched to $src" >&2; exit 1; }
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
  digest "$path" | tr -d '\n' >"$out"
  echo "mlcube-compile: output $name: sha256 $(cat "$out")"
done
`

// VerifyDest is the fourth word of a VerifyScript item: the fetch's
// path, with its Sub after a // when it has one.
func VerifyDest(f ir.Fetch, ref func(param string) string) string {
	dest := f.Path.RenderContainer(ref)
	if f.Sub != "" {
		dest += "//" + f.Sub
	}
	return dest
}

// ScratchOf is where fetch f lands before it is checked.
func ScratchOf(f ir.Fetch) string { return ScratchPath + "/" + f.Name }

// ScratchVolumeSpec is the scratch volume of a pod of p that fetches:
// an emptyDir, or a generic ephemeral volume of the size and storage
// class the platform asks for (ir.ObjectStore.Scratch), which the
// ephemeral volume controller creates for the pod and deletes with it
// (pkg/controller/volume/ephemeral of kubernetes v1.36.3).
func ScratchVolumeSpec(p *ir.Pipeline) corev1.Volume {
	v := ir.Volume{Name: ScratchVolume, PerPod: true}
	if p.ObjectStore != nil {
		v.Ephemeral = p.ObjectStore.Scratch
	}
	return PerPodVolume(v)
}

// PerPodVolume is the pod volume of an ir.Volume with PerPod: an
// emptyDir, or a generic ephemeral volume of its template.
func PerPodVolume(v ir.Volume) corev1.Volume {
	if v.Ephemeral == nil {
		return corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
	}
	return corev1.Volume{Name: v.Name, VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{
		VolumeClaimTemplate: &corev1.PersistentVolumeClaimTemplate{Spec: ClaimSpec(v.Ephemeral)},
	}}}
}

// RcloneEnv configures rclone's on-the-fly :s3: remote for bucket b:
// the endpoint and region, and the keys from their Secret.
func RcloneEnv(b *ir.S3Bucket) []corev1.EnvVar {
	scheme := "https://"
	if b.Insecure {
		scheme = "http://"
	}
	key := func(k ir.SecretKey) *corev1.EnvVarSource {
		return &corev1.EnvVarSource{SecretKeyRef: &corev1.SecretKeySelector{
			LocalObjectReference: corev1.LocalObjectReference{Name: k.Secret}, Key: k.Key,
		}}
	}
	return []corev1.EnvVar{
		{Name: "RCLONE_S3_PROVIDER", Value: "Other"},
		{Name: "RCLONE_S3_ENDPOINT", Value: scheme + b.Endpoint},
		{Name: "RCLONE_S3_REGION", Value: b.Region},
		{Name: "RCLONE_S3_FORCE_PATH_STYLE", Value: "true"},
		{Name: "RCLONE_S3_NO_CHECK_BUCKET", Value: "true"},
		{Name: "RCLONE_S3_ACCESS_KEY_ID", ValueFrom: key(b.AccessKey)},
		{Name: "RCLONE_S3_SECRET_ACCESS_KEY", ValueFrom: key(b.SecretKey)},
	}
}

// FetchScript fetches with rclone into the scratch folder. Its items are
// three words each: s3 (a bucket/key, an object or a folder, which
// rclone's lsjson --stat tells apart) or http (a URL of one file), the
// source, and where it lands.
const FetchScript = `set -eu
while [ $# -ge 3 ]; do
  kind=$1 src=$2 dest=$3; shift 3
  mkdir -p "$(dirname "$dest")"
  case $kind in
  http) rclone copyurl "$src" "$dest" ;;
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
// is there (empty for none).
const UploadScript = `set -eu
while [ $# -ge 3 ]; do
  src=$1 dest=$2 uri=$3; shift 3
  if [ -d "$src" ]; then rclone copy "$src" ":s3:$dest"; else rclone copyto "$src" ":s3:$dest"; fi
  echo "mlcube-compile: uploaded s3://$dest"
  [ -z "$uri" ] || printf '%s' "s3://$dest" >"$uri"
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

// Mover is what the containers that move a step's data on an engine
// without artifacts of its own (Tekton, a Job) need of the engine: how
// their args refer to what it knows at run time, and how they mount the
// step's volumes.
type Mover struct {
	// RunID refers to the run's id, which every key the run uploads to
	// starts with.
	RunID string
	// Ref refers to a pipeline parameter.
	Ref func(param string) string
	// Want refers to the sha256 that the producer of a From fetch
	// recorded; nil where no step fetches From another.
	Want func(f ir.Fetch) string
	// DigestFile is the file an upload's sha256 is written to; URIFile,
	// when not nil, the file its s3:// URI is written to.
	DigestFile, URIFile func(u ir.Upload) string
	// Mounts are the step's mounts as the mover's containers mount
	// them; Writable makes them writable.
	Mounts []corev1.VolumeMount
	// Env comes before the bucket's own variables.
	Env []corev1.EnvVar
}

// FetchContainer fetches s's Fetches into the scratch folder, one after
// another, then checks each one's sha256 and copies it into place
// (VerifyScript).
func (m Mover) FetchContainer(p *ir.Pipeline, s *ir.Step, name string) corev1.Container {
	var fetch, verify []string
	for _, f := range s.Fetches {
		kind, src, want := "s3", "", ""
		if f.URL != nil {
			kind, src = FetchSource(f.URL)
			want = f.URL.SHA256
		} else {
			src = UploadKey(p, m.RunID, *f.From)
			want = m.Want(f)
		}
		fetch = append(fetch, kind, src, ScratchOf(f))
		verify = append(verify, f.Name, ScratchOf(f), want, VerifyDest(f, m.Ref))
	}
	c := m.container(p, name, Phase{"fetch", FetchScript, fetch}, Phase{"verify", VerifyScript, verify})
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: ScratchVolume, MountPath: ScratchPath})
	return c
}

// UploadContainer records the sha256 of each of s's Uploads
// (DigestScript), then uploads it to its key (UploadKey).
func (m Mover) UploadContainer(p *ir.Pipeline, s *ir.Step, name string) corev1.Container {
	var digest, upload []string
	for _, u := range s.Uploads {
		path := u.Path.RenderContainer(m.Ref)
		uri := ""
		if m.URIFile != nil {
			uri = m.URIFile(u)
		}
		digest = append(digest, u.Name, path, m.DigestFile(u))
		upload = append(upload, path, UploadKey(p, m.RunID, ir.Output{Step: s.Name, Name: u.Name}), uri)
	}
	return m.container(p, name, Phase{"digest", DigestScript, digest}, Phase{"upload", UploadScript, upload})
}

// container runs phases in the platform's tool image, with the bucket's
// variables and the step's mounts.
func (m Mover) container(p *ir.Pipeline, name string, phases ...Phase) corev1.Container {
	c := corev1.Container{
		Name:         name,
		Image:        p.ObjectStore.ToolImage,
		Env:          append([]corev1.EnvVar(nil), m.Env...),
		VolumeMounts: append([]corev1.VolumeMount(nil), m.Mounts...),
		Resources:    MoverResources(p),
	}
	c.Command, c.Args = Sequence(phases...)
	if p.ObjectStore.S3 != nil {
		c.Env = append(c.Env, RcloneEnv(p.ObjectStore.S3)...)
	}
	return c
}

// MoverResources are what a container that moves data asks for, on
// every engine (Argo's verify and main too): a small request, limited
// only where the platform limits every container to its requests. A CPU
// limit would slow the hashing and copying of large data while the pod
// holds the step's GPUs.
func MoverResources(p *ir.Pipeline) corev1.ResourceRequirements {
	return Resources(ir.Resources{CPU: "100m", Memory: "256Mi", LimitsEqualRequests: p.LimitsEqualRequests})
}

// Writable is mounts, none read-only.
func Writable(mounts []corev1.VolumeMount) []corev1.VolumeMount {
	out := append([]corev1.VolumeMount(nil), mounts...)
	for i := range out {
		out[i].ReadOnly = false
	}
	return out
}

// UploadKey is where output o of the run whose id runID refers to is in
// the bucket: bucket/<run id>/<step>/<name>, with a trailing / for a
// folder's files.
func UploadKey(p *ir.Pipeline, runID string, o ir.Output) string {
	key := p.ObjectStore.S3.Bucket + "/" + runID + "/" + o.Step + "/" + o.Name
	if Uploaded(p, o).Folder {
		key += "/"
	}
	return key
}

// Uploaded is the upload that o names; the zero Upload when no step of
// p makes it.
func Uploaded(p *ir.Pipeline, o ir.Output) ir.Upload {
	for _, s := range p.Steps {
		for _, u := range s.Uploads {
			if s.Name == o.Step && u.Name == o.Name {
				return u
			}
		}
	}
	return ir.Upload{}
}

// RefuseStore refuses p on engine (its --backend name), which moves data
// with the Mover's containers, when a step moves data and the platform
// does not say how: with no object store (an http input needs none on
// Argo), there is no tool image; with only Argo's artifact repository,
// rclone has no bucket, a platform for Argo alone, so that refusal is of
// p's shape (emit.RefuseShape). who names the engine in its message, as
// "Tekton".
func RefuseStore(p *ir.Pipeline, engine, who string) error {
	for _, s := range p.Steps {
		if len(s.Fetches) == 0 && len(s.Uploads) == 0 {
			continue
		}
		if p.ObjectStore == nil || p.ObjectStore.ToolImage == "" {
			return emit.Refuse(diag.NoObjectStore, p.Platform, "%s: step %s moves data, which %s does in a tool image that the platform's objectStore names; add objectStore (its toolImage alone, or s3 with the bucket's endpoint and Secret keys), or use --backend argo", engine, s.Name, who)
		}
		if why := NeedsBucket(s); why != "" && p.ObjectStore.S3 == nil {
			return emit.RefuseShape(p.Platform.Field("objectStore"), "%s: step %s %s, and %s has no artifact repository of its own: it fetches and uploads with rclone, which needs the bucket itself; name it in objectStore.s3 (its endpoint, bucket and Secret keys) in place of Argo's artifact repository, or use --backend argo", engine, s.Name, why, who)
		}
	}
	return nil
}

// NeedsBucket says why step s needs the bucket itself (rclone's remote)
// on an engine without artifacts: it uploads, fetches another step's
// upload, or fetches an s3:// URL. Empty when it needs none.
func NeedsBucket(s *ir.Step) string {
	if len(s.Uploads) > 0 {
		return "uploads its outputs"
	}
	for _, f := range s.Fetches {
		if f.From != nil {
			return "fetches what step " + f.From.Step + " uploaded"
		}
		if f.URL.Scheme == "s3" {
			return "fetches " + f.URL.Raw
		}
	}
	return ""
}
