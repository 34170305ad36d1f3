package tekton

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

// stepNames are the names of a task's steps.
func stepNames(t v1.PipelineTask) []string {
	var out []string
	for _, s := range t.TaskSpec.Steps {
		out = append(out, s.Name)
	}
	return out
}

// claims are the keys in obj's tree that name a claim or a workspace.
func claims(t *testing.T, obj any) []string {
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, x := range v {
				if k == "persistentVolumeClaim" || k == "volumeClaimTemplate" || k == "ephemeral" || k == "workspaces" ||
					x == "PersistentVolumeClaim" {
					out = append(out, k)
				}
				walk(x)
			}
		case []any:
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(enginetest.Tree(t, obj))
	return out
}

// bucket-pipeline moves its data through the bucket: each task fetches
// before the user's step, checking each digest against what the
// producer's task recorded, and uploads after it, at keys of the run and
// the step, each upload's sha256 a result. No claim, no workspace, so no
// affinity assistant: no step is placed by the run. Both kinds pass
// Tekton's validation, and so does the run tkn pipeline start makes.
func TestBucketPipeline(t *testing.T) {
	p := enginetest.Pipelines(t)["bucket-pipeline"]
	pr, pl, _ := started(t, p)
	if c := append(claims(t, pr), claims(t, pl)...); len(c) > 0 {
		t.Errorf("the run names claims or workspaces: %q", c)
	}
	if placed := coLocated(p); len(placed) > 0 {
		t.Errorf("the affinity assistant places %d steps", len(placed))
	}
	want := map[string][]string{"prepare": {"fetch", "main", "upload"}, "train": {"fetch", "main", "upload"},
		"evaluate": {"fetch", "main", "upload"}, ir.ProvenanceTask: {"provenance"}}
	for _, task := range pr.Spec.PipelineSpec.Tasks {
		if got := stepNames(task); !slices.Equal(got, want[task.Name]) {
			t.Errorf("task %s: steps %q, want %q", task.Name, got, want[task.Name])
		}
		if task.Name == ir.ProvenanceTask {
			continue
		}
		args := strings.Join(task.TaskSpec.Steps[len(task.TaskSpec.Steps)-1].Args, "\n")
		if !strings.Contains(args, "mlcube-e2e/$(context.pipelineRun.uid)/"+task.Name+"/") {
			t.Errorf("task %s: the upload's keys are not the run's and the step's:\n%s", task.Name, args)
		}
		var results []string
		for _, r := range task.TaskSpec.Results {
			results = append(results, r.Name)
		}
		for _, u := range stepOf(p, task.Name).Uploads {
			if !slices.Contains(results, u.Name+"-sha256") || !strings.Contains(args, "$(results."+u.Name+"-sha256.path)") {
				t.Errorf("task %s: upload %s records no sha256 result (results %q)", task.Name, u.Name, results)
			}
		}
	}
	fetch := strings.Join(pr.Spec.PipelineSpec.Tasks[2].TaskSpec.Steps[0].Args, "\n")
	for _, want := range []string{
		"prepare-data-dir\n/mlcube-scratch/prepare-data-dir\n$(tasks.prepare.results.data-dir-sha256)\n/mnt/mlcube/data",
		"train-model-dir\n/mlcube-scratch/train-model-dir\n$(tasks.train.results.model-dir-sha256)\n/mnt/mlcube/model",
		"folder\nmlcube-e2e/$(context.pipelineRun.uid)/train/model-dir/\n/mlcube-scratch/train-model-dir",
	} {
		if !strings.Contains(fetch, want) {
			t.Errorf("evaluate's fetch lacks %q:\n%s", want, fetch)
		}
	}
}

func stepOf(p *ir.Pipeline, name string) *ir.Step {
	for _, s := range p.Steps {
		if s.Name == name {
			return s
		}
	}
	return &ir.Step{}
}

// A claim and the bucket mix: the claim is a workspace, placed by the
// affinity assistant for the steps that mount it alone; the volumes of
// each pod are the tasks' own.
func TestClaimAndBucket(t *testing.T) {
	p := enginetest.Pipelines(t)["mixed-storage"]
	bucket := enginetest.Pipelines(t)["bucket-pipeline"].ObjectStore
	p.ObjectStore = bucket
	pr, _, _ := started(t, p)
	if got := pr.Spec.Workspaces; len(got) != 1 || got[0].PersistentVolumeClaim == nil ||
		got[0].PersistentVolumeClaim.ClaimName != "datasets" {
		t.Errorf("workspaces %+v, want the claim datasets alone", got)
	}
	var placed []string
	for _, s := range coLocated(p) {
		placed = append(placed, s.Name)
	}
	if !slices.Equal(placed, []string{"prepare"}) {
		t.Errorf("the assistant places %q, want prepare, which mounts the claim", placed)
	}
	for _, task := range pr.Spec.PipelineSpec.Tasks {
		var volumes []string
		for _, v := range task.TaskSpec.Volumes {
			if v.EmptyDir == nil {
				t.Errorf("task %s: volume %s is no emptyDir", task.Name, v.Name)
			}
			volumes = append(volumes, v.Name)
		}
		if !slices.Contains(volumes, "workspace") {
			t.Errorf("task %s: volumes %q lack its own workspace", task.Name, volumes)
		}
	}
}

// Argo's artifact repository gives rclone no bucket: Tekton refuses the
// pipeline as one it does not run, saying what to name.
func TestArtifactRepositoryRefused(t *testing.T) {
	p := enginetest.Pipelines(t)["mixed-storage"]
	res, err := Engine{}.Emit(p, emit.Options{Kind: KindPipeline})
	if err != nil {
		t.Fatal(err)
	}
	if shape := (Engine{}).Accepts(p, KindPipeline); len(shape) != 1 || len(res.Refused) != 1 ||
		shape[0].Message != res.Refused[0].Message {
		t.Fatalf("not refused as a shape Tekton does not run: Accepts says %v, Emit %v", shape, res.Refused)
	}
	if d := res.Refused[0]; d.Code != diag.EngineCannotRun || d.Field != "objectStore" ||
		!strings.Contains(d.Message, "name it in objectStore.s3") {
		t.Errorf("refused with %v", d)
	}
}

// The results of a task's uploads go in its last step's termination
// message, of which the kubelet keeps 12 KiB a pod shared by its
// containers: a step that fetches and uploads has four (Tekton's
// prepare, fetch, the step's, upload), 3 KiB each. With some outputs
// the results for Tekton Chains are left out, with more their URIs too,
// each time with a warning, and with more still the step is refused.
func TestResultsBudget(t *testing.T) {
	p := enginetest.Pipelines(t)["bucket-pipeline"]
	s := p.Steps[0]
	if len(s.Fetches) == 0 {
		t.Fatalf("step %s fetches nothing", s.Name)
	}
	for n, want := range map[int]string{1: "artifacts", 8: "uri", 20: "sha256", 24: "refused"} {
		s.Uploads = nil
		for i := range n {
			s.Uploads = append(s.Uploads, ir.Upload{Name: "output-" + strings.Repeat("x", 10) + string(rune('a'+i%26)) +
				string(rune('a'+i/26)), Path: ir.Lit("/mnt/mlcube/out")})
		}
		main := step(p, s)
		if got := podContainers(s, main); got != 4 {
			t.Errorf("%d uploads: %d containers, want 4", n, got)
		}
		_, results, err := dataSteps(p, s, main)
		got := "refused"
		if err == nil {
			got = map[int]string{n: "sha256", 2 * n: "uri", 3 * n: "artifacts"}[len(results)]
		} else if ds, ok := err.(diag.Diagnostics); !ok || len(ds) != 1 || ds[0].Code != diag.ResultsTooLarge ||
			!strings.Contains(ds[0].Detail, "shared by its 4 containers") {
			t.Errorf("%d uploads: refused with %v", n, err)
		}
		if got != want {
			t.Errorf("%d uploads: %s (%v), want %s", n, got, err, want)
		}
		warned := slices.ContainsFunc(uriWarnings(p),
			func(d diag.Diagnostic) bool { return d.Code == diag.TektonURIsLeftOut })
		if warned != (got == "sha256" || got == "uri") {
			t.Errorf("%d uploads: warned %v that results are left out", n, warned)
		}
	}
}

// Tekton's init containers count: a script adds place-scripts, and a
// working folder below /workspace the working-dir-initializer.
func TestPodContainers(t *testing.T) {
	s := &ir.Step{Uploads: []ir.Upload{{Name: "out"}}}
	for _, c := range []struct {
		main v1.Step
		want int
	}{
		{v1.Step{}, 3},
		{v1.Step{Script: "echo"}, 4},
		{v1.Step{WorkingDir: "/workspace/src"}, 4},
		{v1.Step{WorkingDir: "/opt/src"}, 3},
		{v1.Step{WorkingDir: "src", Script: "echo"}, 5},
	} {
		if got := podContainers(s, c.main); got != c.want {
			t.Errorf("%+v: %d containers, want %d", c.main, got, c.want)
		}
	}
	// A step that fetches nothing makes its folders in a step of their
	// own (dataSteps), which counts as fetch does.
	made := &ir.Step{Uploads: s.Uploads, Folders: []ir.Folder{{Path: ir.Lit("/mnt/out")}}}
	if got, steps := podContainers(made, v1.Step{}), len(taskSteps(t, made)); got != 4 || steps != 3 {
		t.Errorf("a step with folders to make: %d containers, want 4 (its task has %d steps, want 3)", got, steps)
	}
}

// taskSteps are the steps dataSteps gives s, alone in a pipeline with a
// bucket.
func taskSteps(t *testing.T, s *ir.Step) []v1.Step {
	t.Helper()
	s.Name = "s"
	p := &ir.Pipeline{Steps: []*ir.Step{s},
		ObjectStore: &ir.ObjectStore{ToolImage: "rclone", S3: &ir.S3Bucket{Bucket: "b"}}}
	steps, _, err := dataSteps(p, s, v1.Step{Name: "main"})
	if err != nil {
		t.Fatal(err)
	}
	return steps
}

// A file of a pod's own volume mounted by itself would be a folder
// before a step of the task could put it there: refused.
func TestPodFileRefused(t *testing.T) {
	p := enginetest.Pipelines(t)["bucket-pipeline"]
	p.Steps[1].Mounts = append(p.Steps[1].Mounts,
		ir.Mount{Volume: "workspace", MountPath: "/in/data.csv", SubPath: ir.Lit("data.csv")})
	p.Steps[1].Fetches[0].Path = ir.Lit("/in/data.csv")
	p.Steps[0].Uploads[0].Folder = false
	if _, err := compile(p, Options{}); err == nil ||
		!strings.Contains(err.Error(), "mounts the file /in/data.csv itself") {
		t.Errorf("compiled, or refused otherwise: %v", err)
	}
}

// A cached step's key task hands its step a sha256 and an entry for each
// output of a cached step it reads, as results of its one step: more
// than the kubelet keeps of its termination message is refused at the
// step, not left to fail the run.
func TestKeyResultsFit(t *testing.T) {
	run := func(n int) error {
		prod := &ir.Step{Name: "prepare", Key: &ir.StepKey{Recipe: "r"}}
		cons := &ir.Step{Name: "train", Key: &ir.StepKey{Recipe: "r"}}
		for i := range n {
			name := fmt.Sprintf("output-%02d", i)
			prod.Uploads = append(prod.Uploads, ir.Upload{Name: name})
			cons.Fetches = append(cons.Fetches, ir.Fetch{Name: "prepare-" + name,
				From: &ir.Output{Step: "prepare", Name: name}})
		}
		p := &ir.Pipeline{Steps: []*ir.Step{prod, cons},
			ObjectStore: &ir.ObjectStore{S3: &ir.S3Bucket{Bucket: "b"}, Cache: &ir.Cache{Prefix: "c"}}}
		return keyResultsFit(p, cons)
	}
	if err := run(10); err != nil {
		t.Errorf("10 inputs: %v", err)
	}
	err := run(21)
	var ds diag.Diagnostics
	if !errors.As(err, &ds) || len(ds) != 1 || ds[0].Code != diag.ResultsTooLarge {
		t.Errorf("21 inputs: %v, want MLC265", err)
	}
}
