package argo

import (
	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	"strings"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// none keeps data as it is: Argo's executor extracts a tarball it
// fetches, and tars an output it uploads, unless told not to
// (LoadArtifacts and stageArchiveFile, workflow/executor/executor.go,
// v3.7.18).
func none() *wfv1.ArchiveStrategy { return &wfv1.ArchiveStrategy{None: &wfv1.NoneStrategy{}} }

// fetchInputs are step s's input artifacts, each loaded into the
// scratch folder (kube.ScratchOf), and the input parameters that carry
// the sha256 of each upload of another step it fetches. A URL is read
// from its own bucket through the platform's endpoint and keys, or over
// HTTP; another step's upload is given by the DAG task (fetchArguments).
// S3 loads an object, or, when there is none at the key, every object
// below it (loadS3Artifact, workflow/artifacts/s3/s3.go, v3.7.18).
// minio-go makes the folders of what it loads 0700 and the files 0600,
// readable only by the uid of Argo's init container; each artifact's
// mode makes every folder and file of it 0755 (chmod in LoadArtifacts,
// workflow/executor/executor.go; the template's mode is kept when a
// task gives the artifact, ProcessArgs in workflow/common/util.go;
// v3.7.18 and v4.0.7), so that the verify container reads it whatever
// its uid, and puts it in place for the step's (kube.VerifyScript).
func fetchInputs(p *ir.Pipeline, s *ir.Step) wfv1.Inputs {
	var in wfv1.Inputs
	for _, f := range s.Fetches {
		a := wfv1.Artifact{Name: f.Name, Path: kube.ScratchOf(f), Archive: none(), Mode: ptr.To[int32](0o755),
			RecurseMode: true}
		switch {
		case f.From != nil:
			in.Parameters = append(in.Parameters, wfv1.Parameter{Name: digestParam(f.Name)})
		case f.URL.Scheme == "s3":
			a.S3 = s3Location(p.ObjectStore, f.URL.Bucket, strings.TrimSuffix(f.URL.Key, "/"))
		default:
			a.HTTP = &wfv1.HTTPArtifact{URL: f.URL.Raw}
		}
		in.Artifacts = append(in.Artifacts, a)
	}
	return in
}

// fetchArguments are what the DAG task of step s gives its template:
// each upload of another step it fetches, by its key, and that upload's
// sha256. The key has no trailing /, even for a folder: S3 then has no
// object at it, and Argo lists and loads the objects below it
// (loadS3Artifact and IsDirectory, workflow/artifacts/s3/s3.go,
// v3.7.18), where a server that answers a GET of a folder's key with an
// empty object (SeaweedFS does) would load one empty file. The other
// step is one s waits for (its outputs.parameters give the digest), as
// Argo requires (validateDAGTaskArgumentDependency,
// workflow/validate/validate.go).
func fetchArguments(p *ir.Pipeline, s *ir.Step) wfv1.Arguments {
	var args wfv1.Arguments
	for _, f := range s.Fetches {
		if f.From == nil {
			continue
		}
		outputs := "{{tasks." + f.From.Step + ".outputs."
		attempt := ""
		if producer(p, f.From.Step).Retry != nil {
			attempt = outputs + "parameters." + attemptParam + "}}"
		}
		key := uploadKey(f.From.Step, attempt, f.From.Name)
		// An empty folder uploads no object, and Argo's S3 driver finds
		// nothing at its key (loadS3Artifact, workflow/artifacts/s3/
		// s3.go): optional, it is skipped, not refused (LoadArtifacts,
		// workflow/executor/executor.go; v3.7.18 and v4.0.7), and the
		// step's folders container makes it an empty folder, whose
		// digest the verify container checks against the producer's.
		optional := kube.Uploaded(p, *f.From).Folder
		args.Artifacts = append(args.Artifacts, wfv1.Artifact{Name: f.Name, Archive: none(), Optional: optional,
			ArtifactLocation: wfv1.ArtifactLocation{S3: s3Location(p.ObjectStore, "", key)}})
		args.Parameters = append(args.Parameters, wfv1.Parameter{Name: digestParam(f.Name),
			Value: wfv1.AnyStringPtr(outputs + "parameters." + digestParam(f.From.Name) + "}}")})
	}
	return args
}

// uploadOutputs are step s's uploads, each at a key of the run, the step
// and the upload ({{workflow.uid}} is the run's), a folder's files below
// it: the key of a folder ends in / so that Argo's artifact GC deletes
// the objects below it (Delete, workflow/artifacts/s3/s3.go, v3.7.18,
// deletes a prefix only then). A final result is never collected. Each
// upload's sha256 is an output parameter.
func uploadOutputs(p *ir.Pipeline, s *ir.Step) wfv1.Outputs {
	var out wfv1.Outputs
	attempt := ""
	if s.Retry != nil {
		attempt = "{{retries}}"
		out.Parameters = append(out.Parameters,
			wfv1.Parameter{Name: attemptParam, ValueFrom: &wfv1.ValueFrom{Path: attemptPath}})
	}
	for _, u := range s.Uploads {
		key := uploadKey(s.Name, attempt, u.Name)
		if u.Folder {
			key += "/"
		}
		a := wfv1.Artifact{Name: u.Name, Path: render(u.Path), Archive: none(),
			ArtifactLocation: wfv1.ArtifactLocation{S3: s3Location(p.ObjectStore, "", key)}}
		if u.Final && settingsOf(p).ArtifactGC != "" {
			a.ArtifactGC = &wfv1.ArtifactGC{Strategy: wfv1.ArtifactGCNever}
		}
		out.Artifacts = append(out.Artifacts, a)
		out.Parameters = append(out.Parameters,
			wfv1.Parameter{Name: digestParam(u.Name), ValueFrom: &wfv1.ValueFrom{Path: digestsPath + "/" + u.Name}})
	}
	return out
}

// uploadKey is the key of a step's upload in a run; of an attempt of
// the step, when it is retried: <step>.<attempt>, a name no step has.
// Argo's wait container uploads a step's outputs even when it failed
// (cmd/argoexec/commands/wait.go), and its S3 driver deletes nothing at
// the key, so each attempt has keys of its own, and a step that fetches
// them is handed the attempt that succeeded: its output parameter
// attemptParam, which the retry node takes from its last child
// (processNodeRetries, workflow/controller/operator.go; {{retries}} is
// the attempt's number there; v3.7.18 and v4.0.7).
func uploadKey(step, attempt, name string) string {
	if attempt != "" {
		step += "." + attempt
	}
	return "{{workflow.uid}}/" + step + "/" + name
}

// attemptParam names the output parameter of a retried step that
// uploads: the number of the attempt whose uploads it gives; the digest
// container writes it at attemptPath, a file no upload's digest is.
const (
	attemptParam = "mlcube-attempt"
	attemptPath  = digestsPath + "/.attempt"
)

// producer is the step of p named name.
func producer(p *ir.Pipeline, name string) *ir.Step {
	for _, s := range p.Steps {
		if s.Name == name {
			return s
		}
	}
	return &ir.Step{}
}

// s3Location is key in bucket (the platform's when "") of the
// platform's S3 endpoint, with its keys; only the key when the platform
// names Argo's artifact repository, which completes the rest (Relocate,
// ArtifactLocation in pkg/apis/workflow/v1alpha1/workflow_types.go,
// v3.7.18).
func s3Location(store *ir.ObjectStore, bucket, key string) *wfv1.S3Artifact {
	if store == nil || store.S3 == nil {
		return &wfv1.S3Artifact{Key: key}
	}
	b := store.S3
	if bucket == "" {
		bucket = b.Bucket
	}
	secret := func(k ir.SecretKey) *apiv1.SecretKeySelector {
		return &apiv1.SecretKeySelector{LocalObjectReference: apiv1.LocalObjectReference{Name: k.Secret}, Key: k.Key}
	}
	loc := &wfv1.S3Artifact{Key: key, S3Bucket: wfv1.S3Bucket{
		Endpoint: b.Endpoint, Bucket: bucket, Region: b.Region,
		AccessKeySecret: secret(b.AccessKey), SecretKeySecret: secret(b.SecretKey),
	}}
	if b.Insecure {
		loc.Insecure = ptr.To(true)
	}
	return loc
}

// collectsArtifacts says whether Argo deletes some of the run's
// artifacts: the platform asks for it and a step uploads.
func collectsArtifacts(p *ir.Pipeline) bool {
	if p.ObjectStore == nil || settingsOf(p).ArtifactGC == "" {
		return false
	}
	for _, s := range p.Steps {
		if len(s.Uploads) > 0 {
			return true
		}
	}
	return false
}

// objectStoreSpec names the artifact repository the platform names, and
// how the run's artifacts are deleted. The pod that deletes them runs as
// the run's account sa (the namespace's default when ""): Argo gives it
// none of its own unless told (getArtifactGCPodInfo,
// workflow/controller/artifact_gc.go, v3.7.18), and it needs the rights
// RBAC grants. A run whose artifacts could not be deleted can still be
// deleted (forceFinalizerRemoval): a failed collection would otherwise
// keep the Workflow, and its namespace, from going.
func objectStoreSpec(spec *wfv1.WorkflowSpec, p *ir.Pipeline, sa string) {
	if p.ObjectStore == nil {
		return
	}
	settings := settingsOf(p)
	if r := settings.ArtifactRepositoryRef; r != nil {
		spec.ArtifactRepositoryRef = &wfv1.ArtifactRepositoryRef{ConfigMap: r.ConfigMap, Key: r.Key}
	}
	if collectsArtifacts(p) {
		spec.ArtifactGC = &wfv1.WorkflowLevelArtifactGC{
			ArtifactGC: wfv1.ArtifactGC{Strategy: wfv1.ArtifactGCStrategy(settings.ArtifactGC),
				ServiceAccountName: sa},
			ForceFinalizerRemoval: true,
		}
	}
}

// refuseObjects refuses what the Workflow cannot move: data for a
// distributed step, whose pods are the MPIJob's or DaskJob's, not
// Argo's; and an s3:// URL when the run's bucket is Argo's artifact
// repository, whose endpoint and keys the compiler does not know, and
// which reads every key from the repository's own bucket.
func refuseObjects(p *ir.Pipeline) error {
	var out diag.Diagnostics
	for _, s := range p.Steps {
		if s.Kind != ir.Container && movesData(s) {
			out = append(out, diag.Errorf(diag.EngineCannotRun, s.Loc,
				"step %q runs as a distributed job, and Argo fetches no input given as a URL for it", s.Written).
				WithFix("put the data on the claim the step mounts (storage.pvc) and give its path").
				WithDetail("A distributed job's launcher or runner pod is the job's, not Argo's, so Argo cannot fetch "+
					"into it."))
			continue
		}
		for _, f := range s.Fetches {
			if f.URL != nil && f.URL.Scheme == "s3" && (p.ObjectStore == nil || p.ObjectStore.S3 == nil) {
				out = append(out, diag.Errorf(diag.EngineCannotRun, s.Loc,
					"step %q reads %s, and the platform's object store is Argo's artifact repository, whose bucket Argo reads "+
						"every key from", s.Written, f.URL.Raw).
					WithFix("name the bucket with objectStore.s3 (endpoint, bucket and Secret keys) in place of "+
						"artifactRepositoryRef").
					WithDetail("The compiler does not know the artifact repository's endpoint and keys, so it cannot name "+
						"the URL's bucket for Argo to read."))
			}
		}
	}
	if len(out) > 0 {
		return out
	}
	return nil
}
