package lower

import (
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// platformAt is an empty platform file's platform.
func platformAt() *spec.Platform {
	return &spec.Platform{Loc: diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1})}
}

// gpu:'s settings are unused when no pod asks for GPUs, its placement
// when no GPU pod is placed by it; cpu:'s placement when every pod is
// placed by gpu:.
func TestUnusedGPU(t *testing.T) {
	p := platformAt()
	p.GPU.DeviceClass = "gpu.example.com"
	p.GPU.NodeSelector = map[string]string{"gpu": "a100"}
	p.CPU.Tolerations = []spec.Toleration{{Key: "cpu", Operator: "Exists"}}
	for _, c := range []struct {
		use  usage
		want string
	}{
		{usage{placed: [2]bool{true, false}}, "gpu.deviceClass gpu.nodeSelector"},
		{usage{askedGPU: true, placed: [2]bool{true, false}}, "gpu.nodeSelector"},
		{usage{askedGPU: true, placed: [2]bool{true, true}}, ""},
		{usage{askedGPU: true, placed: [2]bool{false, true}}, "cpu.tolerations"},
	} {
		if got := fields(unusedGPU(p, c.use)); got != c.want {
			t.Errorf("%+v: said at %q, want %q", c.use, got, c.want)
		}
	}
}

// The settings of distributed jobs are unused by a run that has none;
// kubectlImage also serves a step's folders, fetches and MedPerf output
// files; the platform's image, every step but a Dask step; multiKueue,
// queued MPI and torch steps.
func TestUnusedJobs(t *testing.T) {
	p := platformAt()
	p.MPI.APIVersion = "kubeflow.org/v2beta1"
	p.JobServiceAccount, p.KubectlImage, p.Image, p.MultiKueue = "jobs", "kubectl:1", "image:1", true
	container := &ir.Step{Kind: ir.Container, Queue: "q"}
	dask := &ir.Step{Kind: ir.Dask}
	mpi := &ir.Step{Kind: ir.MPI, Queue: "q"}
	folders := &ir.Step{Kind: ir.Container, Folders: []ir.Folder{{Param: "out"}}}
	for _, c := range []struct {
		name   string
		steps  []*ir.Step
		queued bool
		want   string
	}{
		{"container", []*ir.Step{container}, true, "mpi.apiVersion jobServiceAccountName kubectlImage multiKueue"},
		{"folders", []*ir.Step{folders}, false, "mpi.apiVersion jobServiceAccountName"},
		{"dask", []*ir.Step{dask}, false, "mpi.apiVersion image"},
		{"mpi", []*ir.Step{mpi, dask}, true, ""},
	} {
		if got := fields(unusedJobs(p, c.steps, c.queued)); got != c.want {
			t.Errorf("%s: said at %q, want %q", c.name, got, c.want)
		}
	}
}

// The platform's queue is unused when every step names its own, its
// priority classes when every step names its own.
func TestUnusedKueue(t *testing.T) {
	p := platformAt()
	p.Queue, p.WorkloadPriorityClass, p.PriorityClassName = "team", "high", "batch"
	own, other := "mine", "other"
	mine := spec.Priorities{PriorityClassName: "p", WorkloadPriorityClass: "w"}
	steps := []*spec.Step{{Queue: &own, Priorities: mine}, {Queue: &other, Priorities: mine}}
	if got := fields(unusedKueue(p, steps, true)); got != "queue workloadPriorityClass priorityClassName" {
		t.Errorf("every step its own: said at %q", got)
	}
	steps[1].Queue, steps[1].Priorities = nil, spec.Priorities{}
	if got := fields(unusedKueue(p, steps, true)); got != "" {
		t.Errorf("a step of the platform's: said at %q", got)
	}
}

// The object store is unused by a run that fetches no s3:// URL and has
// no object workspace: at objectStore when it fetches nothing, at s3 when
// it fetches only http(s):// URLs; artifactGC with no uploads;
// storage.pvc's claim when no step mounts it.
func TestUnusedObjects(t *testing.T) {
	p := platformAt()
	p.ObjectStore = &spec.ObjectStore{ArtifactGC: "OnWorkflowDeletion"}
	p.ObjectStore.S3 = &struct {
		Endpoint        string            `json:"endpoint"`
		Bucket          string            `json:"bucket"`
		Region          string            `json:"region"`
		Insecure        bool              `json:"insecure"`
		AccessKeySecret spec.SecretKeyRef `json:"accessKeySecret"`
		SecretKeySecret spec.SecretKeyRef `json:"secretKeySecret"`
	}{Bucket: "b"}
	fetch := func(scheme string) []*ir.Step {
		return []*ir.Step{{Fetches: []ir.Fetch{{URL: &ir.URL{Scheme: scheme}}}}}
	}
	for _, c := range []struct {
		name  string
		steps []*ir.Step
		want  string
	}{
		{"nothing", []*ir.Step{{}}, "objectStore"},
		{"https", fetch("https"), "objectStore.s3"},
		{"s3", fetch("s3"), "objectStore.artifactGC"},
	} {
		if got := fields(unusedObjects(p, c.steps, false)); got != c.want {
			t.Errorf("%s: said at %q, want %q", c.name, got, c.want)
		}
	}
	p.Storage = spec.Storage{Workspace: "object", PVC: "inputs"}
	if got := fields(unusedObjects(p, []*ir.Step{{}}, true)); got != "storage.pvc" {
		t.Errorf("an idle data claim: said at %q", got)
	}
	if got := fields(unusedObjects(p, []*ir.Step{{}}, false)); got != "" {
		t.Errorf("a mounted data claim: said at %q", got)
	}
}
