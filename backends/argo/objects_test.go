package argo_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// objectExamples are the examples whose data moves through an object
// store.
var objectExamples = []string{"bucket-pipeline", "mnist-bucket", "mixed-storage"}

// objectWorkflow is the Workflow of an example, which must compile and
// pass Argo v3.7's and v4's validators.
func objectWorkflow(t *testing.T, ex string) *wfv1.Workflow {
	t.Helper()
	return workflow(t, build(t, manifestcheck.Specs(enginetest.Example(t, ex)), emit.Options{}))
}

// containerNamed is the container of set named name, or nil.
func containerNamed(set *wfv1.ContainerSetTemplate, name string) *wfv1.ContainerNode {
	for i := range set.Containers {
		if set.Containers[i].Name == name {
			return &set.Containers[i]
		}
	}
	return nil
}

// Each fetch lands in the scratch folder as it is (no tar extracted),
// and the verify container checks its sha256 and puts it in place before
// the user's container starts: the user's container waits for it. A
// fetch of another step's upload checks the digest that step recorded.
func TestFetchesAreCheckedBeforeTheStep(t *testing.T) {
	for _, ex := range objectExamples {
		wf := objectWorkflow(t, ex)
		fetched := 0
		for _, task := range wf.Spec.Templates[0].DAG.Tasks {
			tmpl := wf.GetTemplateByName(task.Template)
			if len(tmpl.Inputs.Artifacts) == 0 {
				continue
			}
			fetched++
			set := tmpl.ContainerSet
			if set == nil || containerNamed(set, "verify") == nil {
				t.Fatalf("%s: step %s fetches, and has no verify container: %+v", ex, task.Name, tmpl)
			}
			verify := containerNamed(set, "verify")
			user := set.Containers[1]
			if !slices.Equal(user.Dependencies, []string{"verify"}) || len(verify.Dependencies) != 0 {
				t.Errorf("%s: step %s: its container %s waits for %v, want the verify container", ex, task.Name, user.Name,
					user.Dependencies)
			}
			for _, a := range tmpl.Inputs.Artifacts {
				if a.Path != kube.ScratchPath+"/"+a.Name || a.Archive == nil || a.Archive.None == nil {
					t.Errorf("%s: step %s: input %s lands at %s with archive %+v, want %s/%s as it is", ex, task.Name, a.Name, a.Path,
						a.Archive, kube.ScratchPath, a.Name)
				}
				i := slices.Index(verify.Args, a.Name)
				if i < 0 || i+3 >= len(verify.Args) || verify.Args[i+1] != a.Path {
					t.Errorf("%s: step %s: verify does not check input %s: %v", ex, task.Name, a.Name, verify.Args)
					continue
				}
				from := slices.IndexFunc(task.Arguments.Artifacts, func(x wfv1.Artifact) bool { return x.Name == a.Name })
				if from < 0 {
					continue
				}
				// By its key, never with a trailing / (which SeaweedFS answers
				// with one empty object): a folder is loaded from the objects
				// below it.
				arg := task.Arguments.Artifacts[from]
				key := ""
				if arg.S3 != nil {
					key = arg.S3.Key
				}
				parts := strings.Split(key, "/")
				producer := ""
				if len(parts) == 3 {
					producer = parts[1]
				}
				if len(parts) != 3 || parts[0] != "{{workflow.uid}}" || strings.HasSuffix(key, "/") || arg.Archive == nil ||
					arg.Archive.None == nil {
					t.Errorf("%s: step %s: input %s given as %+v, want the key {{workflow.uid}}/<step>/<upload>, unarchived", ex,
						task.Name, a.Name, arg)
				}
				want := "{{inputs.parameters." + a.Name + "-sha256}}"
				param := task.Arguments.GetParameterByName(a.Name + "-sha256")
				if verify.Args[i+2] != want || param == nil ||
					!strings.HasPrefix(param.Value.String(), "{{tasks."+producer+".outputs.parameters.") {
					t.Errorf("%s: step %s: input %s is checked against %q (given %+v), want the digest %s recorded", ex, task.Name,
						a.Name, verify.Args[i+2], param, producer)
				}
			}
		}
		if fetched == 0 {
			t.Errorf("%s: no step fetches", ex)
		}
	}
}

// Every upload records its sha256 as an output parameter, written by the
// main container after the user's, and goes to a key of the run, the
// step and the upload; a folder's key ends in /.
func TestUploadsRecordTheirDigest(t *testing.T) {
	for _, ex := range objectExamples {
		wf := objectWorkflow(t, ex)
		for _, task := range wf.Spec.Templates[0].DAG.Tasks {
			if task.Name == ir.ProvenanceTask {
				continue
			}
			tmpl := wf.GetTemplateByName(task.Template)
			if len(tmpl.Outputs.Artifacts) == 0 {
				t.Errorf("%s: step %s uploads nothing", ex, task.Name)
				continue
			}
			main := containerNamed(tmpl.ContainerSet, "main")
			if main == nil || !slices.Equal(main.Dependencies, []string{"run"}) ||
				containerNamed(tmpl.ContainerSet, "run") == nil {
				t.Fatalf("%s: step %s: no main container after the step's (run): %+v", ex, task.Name, tmpl.ContainerSet)
			}
			for _, a := range tmpl.Outputs.Artifacts {
				i := slices.IndexFunc(tmpl.Outputs.Parameters, func(p wfv1.Parameter) bool { return p.Name == a.Name+"-sha256" })
				if i < 0 || tmpl.Outputs.Parameters[i].ValueFrom == nil ||
					tmpl.Outputs.Parameters[i].ValueFrom.Path != "/mlcube-digests/"+a.Name {
					t.Errorf("%s: step %s: upload %s records no sha256: %+v", ex, task.Name, a.Name, tmpl.Outputs.Parameters)
				}
				if !slices.Contains(main.Args, a.Name) || !slices.Contains(main.Args, a.Path) {
					t.Errorf("%s: step %s: main does not digest %s at %s: %v", ex, task.Name, a.Name, a.Path, main.Args)
				}
				key := "{{workflow.uid}}/" + task.Name + "/" + a.Name
				if a.S3 == nil || strings.TrimSuffix(a.S3.Key, "/") != key || a.Archive == nil || a.Archive.None == nil {
					t.Errorf("%s: step %s: upload %s at %+v, want the key %s[/], not archived", ex, task.Name, a.Name, a.S3, key)
				}
			}
		}
	}
}

// A run whose volumes are all the pods' own has no claim anywhere.
func TestPerPodVolumesMakeNoClaim(t *testing.T) {
	for _, ex := range []string{"bucket-pipeline", "mnist-bucket"} {
		out := build(t, manifestcheck.Specs(enginetest.Example(t, ex)), emit.Options{})
		wf := workflow(t, out)
		if len(wf.Spec.Volumes) == 0 {
			t.Fatalf("%s: no volumes", ex)
		}
		for _, v := range wf.Spec.Volumes {
			if v.EmptyDir == nil {
				t.Errorf("%s: volume %s is not an emptyDir: %+v", ex, v.Name, v.VolumeSource)
			}
		}
		for _, word := range []string{"persistentVolumeClaim", "PersistentVolumeClaim", "volumeClaimTemplate"} {
			if strings.Contains(out.YAML(t), word) {
				t.Errorf("%s: the output has a %s", ex, word)
			}
		}
	}
}

// mixed-storage reads its dataset from the claim datasets, which every
// container mounts read-only, and sends the rest to Argo's artifact
// repository by key alone.
func TestMixedStorageReadsTheClaimReadOnly(t *testing.T) {
	wf := objectWorkflow(t, "mixed-storage")
	i := slices.IndexFunc(wf.Spec.Volumes, func(v corev1.Volume) bool { return v.PersistentVolumeClaim != nil })
	if i < 0 || wf.Spec.Volumes[i].PersistentVolumeClaim.ClaimName != "datasets" {
		t.Fatalf("no volume of the claim datasets: %+v", wf.Spec.Volumes)
	}
	if r := wf.Spec.ArtifactRepositoryRef; r == nil || r.ConfigMap != "artifact-repositories" || r.Key != "default" {
		t.Errorf("artifactRepositoryRef %+v", r)
	}
	mounted := 0
	for _, tmpl := range wf.Spec.Templates {
		if tmpl.ContainerSet == nil {
			continue
		}
		for _, vm := range tmpl.ContainerSet.VolumeMounts {
			// Named there only so that Argo puts it in the pod: read-only,
			// away from the workspace.
			if vm.Name == "data" && (!vm.ReadOnly || !strings.HasPrefix(vm.MountPath, "/mlcube-volumes/")) {
				t.Errorf("template %s: every container mounts the claim at %s", tmpl.Name, vm.MountPath)
			}
		}
		for _, c := range tmpl.ContainerSet.Containers {
			for _, vm := range c.VolumeMounts {
				if vm.Name == "data" {
					mounted++
					if !vm.ReadOnly {
						t.Errorf("template %s: container %s mounts the claim datasets writable", tmpl.Name, c.Name)
					}
				}
			}
		}
		for _, a := range append(tmpl.Inputs.Artifacts, tmpl.Outputs.Artifacts...) {
			if a.S3 != nil && (a.S3.Bucket != "" || a.S3.Endpoint != "") {
				t.Errorf("template %s: artifact %s names its bucket, not the repository's: %+v", tmpl.Name, a.Name, a.S3)
			}
		}
	}
	if mounted == 0 {
		t.Error("no container mounts the claim datasets")
	}
}

// A distributed step's pods are its job's, which fetch nothing; and an
// s3:// URL cannot be read through Argo's artifact repository, whose
// bucket Argo reads every key from: both refused at the step.
func TestObjectRefusals(t *testing.T) {
	mpi := enginetest.ResNetPipeline(t,
		"    mpi: {workers: 2}\n    inputs: {data_location: \"https://example.com/data.tgz\"}\n", "")
	repo := enginetest.WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: repo\ncubes: {c: " + enginetest.Example(t, "bucket-pipeline") +
			"}\nsteps:\n  prepare: {cube: c, task: prepare, inputs: {raw_dir: \"s3://other/raw/\"}}\n",
		"platform.yaml": "objectStore:\n  artifactRepositoryRef: {configMap: artifact-repositories, key: default}\n",
	})
	for dir, want := range map[string]string{
		mpi: `pipeline.yaml:4:3: steps.train: argo: step "train" runs as a distributed job`,
		repo: `pipeline.yaml:4:3: steps.prepare: argo: step "prepare" reads s3://other/raw/, and the platform's object ` +
			`store is Argo's artifact repository`,
	} {
		out := build(t, manifestcheck.Specs(dir), emit.Options{})
		if !out.Failed() || !strings.Contains(out.Stderr(), want) {
			t.Errorf("failed %v, stderr:\n%s\nwant %q", out.Failed(), out.Stderr(), want)
		}
	}
}

// A DAG of more than 32 steps that fetch each other's uploads is checked
// a window at a time: a step reading the upload of a step in an earlier
// window is checked against a stand-in of its outputs.
func TestLargeObjectDAG(t *testing.T) {
	steps := "  prepare: {cube: c, task: prepare, inputs: {raw_dir: \"s3://mlcube-e2e/raw/\"}}\n"
	for i := 0; i < 40; i++ {
		steps += fmt.Sprintf("  t%02d: {cube: c, task: train, outputs: {model_dir: m%02d/}}\n", i, i)
	}
	platform, err := os.ReadFile(filepath.Join(enginetest.Example(t, "bucket-pipeline"), "platform.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	dir := enginetest.WriteFiles(t, map[string]string{
		"pipeline.yaml": "name: large\ncubes: {c: " + enginetest.Example(t, "bucket-pipeline") + "}\nsteps:\n" + steps,
		"platform.yaml": string(platform),
	})
	wf := workflow(t, build(t, manifestcheck.Specs(dir), emit.Options{}))
	tasks := wf.Spec.Templates[0].DAG.Tasks
	if len(tasks) != 42 || tasks[41].Name != ir.ProvenanceTask {
		t.Fatalf("%d tasks", len(tasks))
	}
	// The last task, in the second window, reads prepare's data from the
	// first.
	if a := tasks[40].Arguments.Artifacts; len(a) != 1 || a[0].S3 == nil ||
		a[0].S3.Key != "{{workflow.uid}}/prepare/data-dir" {
		t.Errorf("%s's artifacts %+v, want prepare's data-dir", tasks[40].Name, a)
	}
}

// Argo gives a containerSet's pod only the volumes its volumeMounts name
// (addVolumeReferences, workflow/controller/workflowpod.go, v3.7.18): a
// volume one container mounts alone would be missing from the pod, and
// the API server would refuse it. Every volume a container of a set
// mounts is named there, and is the Workflow's or the template's.
func TestContainerSetsNameEveryVolume(t *testing.T) {
	for _, ex := range objectExamples {
		wf := objectWorkflow(t, ex)
		for _, tmpl := range wf.Spec.Templates {
			set := tmpl.ContainerSet
			if set == nil {
				continue
			}
			named := map[string]bool{}
			for _, vm := range set.VolumeMounts {
				named[vm.Name] = slices.ContainsFunc(append(wf.Spec.Volumes, tmpl.Volumes...),
					func(v corev1.Volume) bool { return v.Name == vm.Name })
				if !named[vm.Name] {
					t.Errorf("%s: template %s: volume %s is in no volumes", ex, tmpl.Name, vm.Name)
				}
			}
			for _, c := range set.Containers {
				for _, vm := range c.VolumeMounts {
					if _, ok := named[vm.Name]; !ok {
						t.Errorf("%s: template %s: container %s mounts %s, which containerSet.volumeMounts does not name", ex, tmpl.Name,
							c.Name, vm.Name)
					}
				}
			}
		}
	}
}

// The containers that move data hash and copy all of it while the pod
// holds the step's GPUs: Argo's verify and main ask for what Tekton's
// and a Job's movers ask for, with no CPU limit; and each fetch is
// loaded with a mode every uid reads, as minio-go would leave it 0700
// and 0600, for the verify container to put in place for the step's
// user.
func TestMoversAsTektonAndJob(t *testing.T) {
	for _, ex := range objectExamples {
		wf := objectWorkflow(t, ex)
		for _, tmpl := range wf.Spec.Templates {
			if tmpl.ContainerSet == nil {
				continue
			}
			for _, name := range []string{"verify", "main"} {
				c := containerNamed(tmpl.ContainerSet, name)
				if c == nil || (name == "main" && containerNamed(tmpl.ContainerSet, "run") == nil) {
					continue
				}
				if _, ok := c.Resources.Limits[corev1.ResourceCPU]; ok || c.Resources.Requests.Cpu().String() != "100m" {
					t.Errorf("%s: template %s: %s asks for %v, want a 100m request and no CPU limit", ex, tmpl.Name, name, c.Resources)
				}
			}
			for _, a := range tmpl.Inputs.Artifacts {
				if a.Mode == nil || *a.Mode != 0o755 || !a.RecurseMode {
					t.Errorf("%s: template %s: input %s is loaded with mode %v (recursive %v), want 0755 throughout", ex, tmpl.Name,
						a.Name, a.Mode, a.RecurseMode)
				}
			}
		}
	}
}
