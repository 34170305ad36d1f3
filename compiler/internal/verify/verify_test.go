package verify

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// at is a position in the pipeline file, for the steps below.
func at(line int) diag.Loc { return diag.At(diag.Pos{File: "pipeline.yaml", Line: line, Col: 3}) }

// step is a container step named as written, mounting volumes.
func step(written string, line int, deps []string, volumes ...string) *ir.Step {
	s := &ir.Step{Name: ir.DNSName(written, ir.MaxNameLen), Written: written, Loc: at(line), Dependencies: deps}
	if s.Name == "" {
		s.Name = "step"
	}
	for _, v := range volumes {
		s.Mounts = append(s.Mounts, ir.Mount{Volume: v, MountPath: "/mnt/mlcube"})
	}
	return s
}

// pipeline is a pipeline named prep with steps, and a claim created for
// each run with modes (chosen by lowering when chosen is set).
func pipeline(steps []*ir.Step, chosen bool, modes ...string) *ir.Pipeline {
	p := &ir.Pipeline{Name: "prep", Written: "prep", Source: "pipeline.yaml", Steps: steps,
		Platform: diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1})}
	if modes != nil {
		p.Volumes = []ir.Volume{{Name: "workspace",
			Create: &ir.ClaimTemplate{Size: "1Gi", AccessModes: modes, Chosen: chosen}}}
	}
	return p
}

func TestVerify(t *testing.T) {
	mpi := step("train", 9, []string{"prepare"}, "workspace")
	mpi.Kind, mpi.MPI = ir.MPI, &ir.MPIJob{GenerateName: "prep-train-", Workers: 2}
	long := step("train", 9, nil)
	long.Kind, long.MPI = ir.MPI, &ir.MPIJob{GenerateName: strings.Repeat("a", 50) + "-", Workers: 2}
	writtenMPI := step("Train_Model", 9, []string{"prepare"}, "workspace")
	writtenMPI.Kind, writtenMPI.MPI = ir.MPI, &ir.MPIJob{GenerateName: "prep-train-model-", Workers: 2}
	after := step("b", 5, nil)
	after.After = []string{"a", "bb", "b"}
	for _, c := range []struct {
		name string
		p    *ir.Pipeline
		want []string // each diagnostic's text, in order
	}{
		{"clean", pipeline([]*ir.Step{step("prepare", 3, nil, "workspace"),
			step("train", 5, []string{"prepare"}, "workspace")}, true, "ReadWriteOnce"), nil},
		{"step name", pipeline([]*ir.Step{step("--", 3, nil)}, false),
			[]string{`pipeline.yaml:3:3: error: step name "--" has no letters or digits to make an engine name from`}},
		{"pipeline name", &ir.Pipeline{Written: "__", Source: "pipeline.yaml"},
			[]string{`pipeline.yaml:1:1: error: name: "__" has no letters or digits to make a Kubernetes name from`}},
		{"after", pipeline([]*ir.Step{step("a", 3, nil), after}, false),
			[]string{`pipeline.yaml:5:3: error: after[1]: no step "bb" (steps: a, b)`,
				`pipeline.yaml:5:3: error: after[2]: a step cannot run after itself`}},
		{"cycle", pipeline([]*ir.Step{step("A", 3, []string{"b"}), step("b", 5, []string{"a"})}, false),
			[]string{`pipeline.yaml:3:3: error: dependency cycle: A -> b -> A`}},
		{"chosen many", pipeline([]*ir.Step{step("prepare", 3, nil, "workspace"), mpi}, true, "ReadWriteMany"),
			[]string{`platform.yaml:1:1: warning: storage.accessModes: the claim made for each run is ReadWriteMany, since ` +
				`step "train" runs pods on several nodes`}},
		{"read only", pipeline([]*ir.Step{step("prepare", 3, nil, "workspace")}, false, "ReadOnlyMany"),
			[]string{`platform.yaml:1:1: error: storage.accessModes: ReadOnlyMany: the claim made for each run starts empty`}},
		{"one node", pipeline([]*ir.Step{step("prepare", 3, nil, "workspace"), mpi}, false, "ReadWriteOnce"),
			[]string{`platform.yaml:1:1: error: storage.accessModes: ReadWriteOnce: step "train" runs pods on several nodes`}},
		{"a cycle hides which steps run at once", pipeline([]*ir.Step{step("a", 3, []string{"b"}, "workspace"),
			step("b", 5, []string{"a"}, "workspace"), step("c", 7, nil, "workspace")}, true, "ReadWriteMany"),
			[]string{`pipeline.yaml:3:3: error: dependency cycle: a -> b -> a`}},
		{"written names", pipeline([]*ir.Step{step("prepare", 3, nil, "workspace"), writtenMPI}, false, "ReadWriteOnce"),
			[]string{`platform.yaml:1:1: error: storage.accessModes: ReadWriteOnce: step "Train_Model" runs pods ` +
				`on several nodes`}},
		{"hostname", pipeline([]*ir.Step{long}, false),
			[]string{`pipeline.yaml:9:3: error: mpi: the operator would name a worker pod with 65 characters, and a DNS ` +
				`label has at most 63; shorten or rename the pipeline "prep" or the step "train"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := Verify(c.p).Sorted()
			if len(got) != len(c.want) {
				t.Fatalf("got %d diagnostics, want %d:\n%s", len(got), len(c.want), got.Error())
			}
			for i, d := range got {
				// want writes the severity after the position.
				pos, rest, _ := strings.Cut(c.want[i], " ")
				sev, text, _ := strings.Cut(rest, ": ")
				if d.Severity.String() != sev || !strings.HasPrefix(d.String(), pos+" ") || !strings.Contains(d.String(), text) {
					t.Errorf("diagnostic %d:\n got %s %s\nwant %s…", i, d.Severity, d.String(), c.want[i])
				}
			}
		})
	}
}

// TestHostnameDetail: the name the operator would give is in the
// detail, with what a DNS label is.
func TestHostnameDetail(t *testing.T) {
	long := step("train", 9, nil)
	long.Kind, long.MPI = ir.MPI, &ir.MPIJob{GenerateName: strings.Repeat("a", 50) + "-", Workers: 2}
	got := Verify(pipeline([]*ir.Step{long}, false))
	if len(got) != 1 {
		t.Fatalf("got %d diagnostics, want 1:\n%s", len(got), got.Error())
	}
	want := `The operator would name the worker pod "` + strings.Repeat("a", 50) + `-xxxxx-worker-1" (65 characters), ` +
		`which must be a DNS label: at most 63 lower case letters, digits and '-', starting with a letter.`
	if got[0].Detail != want {
		t.Errorf("detail:\n got %s\nwant %s", got[0].Detail, want)
	}
}

// A Dask step's JobSet names its longest pod after the scheduler, or
// after the last worker once there are enough of them; the DaskJob names
// its scheduler's Service.
func TestDaskHostnames(t *testing.T) {
	for _, c := range []struct {
		form    ir.DaskForm
		workers int
		name    string
	}{
		{ir.DaskJobSet, 2, "-xxxxx-scheduler-0-0-xxxxx"},
		{ir.DaskJobSet, 100000, "-xxxxx-worker-0-99999-xxxxx"},
		{ir.DaskOperator, 100000, "-xxxxx-scheduler"},
	} {
		s := step("bench", 9, nil)
		s.Kind, s.Dask = ir.Dask, &ir.DaskJob{Form: c.form, GenerateName: strings.Repeat("a", 60) + "-",
			Workers: c.workers}
		got := Verify(pipeline([]*ir.Step{s}, false))
		if len(got) != 1 || !strings.Contains(got[0].Detail, `"`+strings.Repeat("a", 60)+c.name+`"`) {
			t.Errorf("%s of %d workers: %v", c.form, c.workers, got.Error())
		}
	}
}
