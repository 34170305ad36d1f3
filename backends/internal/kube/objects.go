package kube

import (
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

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
	// Key refers to the key of a step the run caches, which its key pod
	// made; nil when the run caches none.
	Key func(step string) string
	// KeyOut refers to an answer of the step's own key task (KeyOutputs);
	// nil when the step has none.
	KeyOut func(name string) string
	// Attempt refers to the number of the step's attempt, which a cached
	// step's entry holds (EntryOf).
	Attempt string
	// DigestFile is the file an upload's sha256 is written to; URIFile,
	// when not nil, the file its s3:// URI is written to; ArtifactFile,
	// when it and URIFile are not nil, the file an upload's result for
	// Tekton Chains is written to (ArtifactScript).
	DigestFile, URIFile, ArtifactFile func(u ir.Upload) string
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
		folder := f.From != nil && Uploaded(p, *f.From).Folder
		if f.URL != nil {
			kind, src = FetchSource(f.URL)
			want = f.URL.SHA256
			if want == "" && m.KeyOut != nil {
				want = m.KeyOut(f.Name + "-sha256")
			}
		} else if Cached(p, *f.From) && m.KeyOut != nil {
			// What the step's key holds: the entry and the sha256 its key
			// task read, whatever another run wrote there since.
			kind, want = "s3", m.KeyOut(f.Name+"-sha256")
			src = CacheOf(p) + "/" + m.Key(f.From.Step) + "/" + m.KeyOut(f.Name+"-entry") + "/" + f.From.Name
			if folder {
				kind, src = "folder", src+"/"
			}
		} else if Cached(p, *f.From) {
			kind, src, want = "cached", CacheOf(p)+"/"+m.Key(f.From.Step)+"/"+f.From.Name, "@"+ScratchOf(f)+".sha256"
			if folder {
				kind = "cachedfolder"
			}
		} else {
			src = UploadKey(p, m.RunID, *f.From)
			want = m.Want(f)
			if Uploaded(p, *f.From).Folder {
				kind = "folder"
			}
		}
		fetch = append(fetch, kind, src, ScratchOf(f))
		verify = append(verify, f.Name, ScratchOf(f), want, VerifyDest(f, m.Ref))
	}
	phases := []Phase{{"fetch", FetchScript, fetch}, {"verify", VerifyScript, verify}}
	if items := FolderItems(s, m.folderRef); len(items) > 0 {
		phases = append(phases, Phase{"folders", FoldersScript, items})
	}
	c := m.container(p, name, phases...)
	c.VolumeMounts = append(c.VolumeMounts, corev1.VolumeMount{Name: ScratchVolume, MountPath: ScratchPath})
	c.SecurityContext = WriterSecurity(p, s.SecurityContext)
	return c
}

// folderRef renders a Folder's path in the Mover's containers.
func (m Mover) folderRef(f ir.Folder) string { return f.Path.RenderContainer(m.Ref) }

// UploadContainer records the sha256 of each of s's Uploads
// (DigestScript), then uploads it to its key (UploadKey); a cached
// step's, to its entry in the cache, once each claim it read is checked
// unchanged since its key task (UnchangedScript), and then writes its
// key's manifest (RecordScript); then it runs the phases more.
func (m Mover) UploadContainer(p *ir.Pipeline, s *ir.Step, name string, more ...Phase) corev1.Container {
	var unchanged, digest, upload, record, artifacts []string
	entry := EntryOf(m.RunID, s.Name, m.Attempt)
	if s.Key != nil {
		record = []string{CacheOf(p) + "/" + m.Key(s.Name) + "/manifest", entry}
		for i, mt := range s.Key.Claims {
			unchanged = append(unchanged, mt.MountPath, m.KeyOut(ir.ClaimAnswer(i)+"-sha256"))
		}
	}
	for _, u := range s.Uploads {
		path := u.Path.RenderContainer(m.Ref)
		uri := ""
		if m.URIFile != nil {
			uri = m.URIFile(u)
		}
		digest = append(digest, u.Name, path, m.DigestFile(u))
		key := UploadKey(p, m.RunID, ir.Output{Step: s.Name, Name: u.Name})
		if s.Key != nil {
			key = EntryKey(p, m.Key(s.Name), entry, u)
			record = append(record, u.Name, m.DigestFile(u))
		}
		upload = append(upload, path, key, uri)
		if uri != "" && m.ArtifactFile != nil {
			kind := "file"
			if u.Folder {
				kind = "folder"
			}
			artifacts = append(artifacts, kind, m.DigestFile(u), uri, m.ArtifactFile(u), path, key)
		}
	}
	var phases []Phase
	if len(unchanged) > 0 {
		phases = append(phases, Phase{"unchanged", UnchangedScript, unchanged})
	}
	phases = append(phases, Phase{"digest", DigestScript, digest}, Phase{"upload", UploadScript, upload})
	if len(artifacts) > 0 {
		phases = append(phases, Phase{"artifacts", ArtifactScript, artifacts})
	}
	if s.Key != nil {
		phases = append(phases, Phase{"record", RecordScript, record})
	}
	c := m.container(p, name, append(phases, more...)...)
	c.SecurityContext = HelperSecurity(p, s.SecurityContext)
	if len(unchanged) > 0 {
		// It reads the claims as the step does (KeyContainer).
		c.SecurityContext = WriterSecurity(p, s.SecurityContext)
	}
	return c
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
// rclone has no bucket, which StoreShape says. who names the engine in
// its message, as "Tekton".
func RefuseStore(p *ir.Pipeline, who string) error {
	for _, s := range p.Steps {
		if len(s.Fetches) == 0 && len(s.Uploads) == 0 {
			continue
		}
		if p.ObjectStore == nil || p.ObjectStore.ToolImage == "" {
			return diag.Diagnostics{diag.Errorf(diag.NoObjectStore, p.Platform,
				"step %s moves data, which %s does in a tool image that the platform's objectStore names", s.Name, who).
				WithFix("add objectStore (its toolImage alone, or s3 with the bucket's endpoint and Secret keys), or use " +
					"--backend argo")}
		}
	}
	if refused := StoreShape(p, who); len(refused) > 0 {
		return refused
	}
	return nil
}

// StoreShape refuses p, on an engine that moves data with the Mover's
// containers, when a step needs the bucket itself and the platform's
// object store, which names a tool image, is only Argo's artifact
// repository: a platform for Argo alone, so a pipeline of a shape the
// engine does not run (emit.RefuseShape). With no tool image the refusal
// is RefuseStore's, a mistake in the platform.
func StoreShape(p *ir.Pipeline, who string) diag.Diagnostics {
	if p.ObjectStore == nil || p.ObjectStore.ToolImage == "" || p.ObjectStore.S3 != nil {
		return nil
	}
	for _, s := range p.Steps {
		if why := NeedsBucket(s); why != "" {
			return emit.RefuseShape(p.Platform.Field("objectStore"),
				"step %s %s, and %s has no artifact repository of its own: it fetches and uploads with rclone, which needs the "+
					"bucket itself; name it in objectStore.s3 (its endpoint, bucket and Secret keys) in place of Argo's artifact "+
					"repository, or use --backend argo", s.Name, why, who)
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
