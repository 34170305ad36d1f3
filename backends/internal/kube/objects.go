package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// The containers that move a step's data run POSIX sh scripts, in the
// platform's tool image (rclone's image is Alpine's busybox; the e2e
// image is Debian's coreutils): each takes its items as arguments, a
// fixed number of words each, after $0.
const (
	// ScratchVolume is an emptyDir each pod has, where fetched data
	// lands before its digest is checked and it is copied into place.
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

// VerifyScript checks fetched data and puts it in place. Its items are
// four words each: the fetch's name, where it was fetched to, the sha256
// it must have (empty for none), and where it goes (with the part of it
// that goes there, after a / when only a part does: Fetch.Sub). A
// mismatch fails the container, and so the step.
const VerifyScript = `set -eu
` + digestFn + `while [ $# -ge 4 ]; do
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

// ScratchVolumeSpec is the scratch emptyDir of a pod that fetches.
func ScratchVolumeSpec() corev1.Volume {
	return corev1.Volume{Name: ScratchVolume, VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}
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

// UploadScript uploads with rclone. Its items are two words each: the
// output's path (a file, or a folder whose files go below the key) and
// the bucket/key it goes to.
const UploadScript = `set -eu
while [ $# -ge 2 ]; do
  src=$1 dest=$2; shift 2
  if [ -d "$src" ]; then rclone copy "$src" ":s3:$dest"; else rclone copyto "$src" ":s3:$dest"; fi
  echo "mlcube-compile: uploaded s3://$dest"
done
`

// FetchSource is the first two words of a FetchScript item for a URL.
func FetchSource(u *ir.URL) (kind, src string) {
	if u.Scheme == "s3" {
		return "s3", u.Bucket + "/" + u.Key
	}
	return "http", u.Raw
}
