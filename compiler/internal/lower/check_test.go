package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// at is a position in a pipeline file for the specs the tests build.
var at = diag.At(diag.Pos{File: "pipeline.yaml", Line: 1, Col: 1})

// messages runs Lower and returns every message, sorted, joined by
// newlines.
func messages(ps *spec.Pipeline, plat *spec.Platform, needValues string) string {
	var out []string
	_, diags := Lower(ps, plat, needValues)
	for _, d := range diags.Sorted() {
		out = append(out, d.Field+": "+d.Message)
	}
	return strings.Join(out, "\n")
}

// wants fails t unless got holds every one of want.
func wants(t *testing.T, got string, want ...string) {
	t.Helper()
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("no %q in:\n%s", w, got)
		}
	}
}

func TestParams(t *testing.T) {
	def, dollars := "b", "a$$b"
	ps := &spec.Pipeline{Loc: at, Params: []*spec.PipelineParam{
		{Name: "1bad", Loc: at.Field("params").Field("1bad")},
		{Name: "req", Required: true, Default: &def, Loc: at.Field("params").Field("req")},
		{Name: "none", Loc: at.Field("params").Field("none")},
		{Name: "pick", Default: &def, Enum: []string{"x", "y"}, Loc: at.Field("params").Field("pick")},
		{Name: "cost", Default: &dollars, Loc: at.Field("params").Field("cost")},
	}}
	got := messages(ps, &spec.Platform{Loc: at}, "a Job has no run-time parameters")
	wants(t, got,
		"params.1bad: a parameter name is letters",
		"params.req: a required parameter has no default",
		`"b" is not one of the enum values of params.pick (x, y)`,
		`holds "$$"`)
	// Which need values, and reach nothing, is the param-values pass's
	// to say, from what lowering marks.
	p, _ := Lower(ps, &spec.Platform{Loc: at}, "a Job has no run-time parameters")
	if p.NeedValues != "a Job has no run-time parameters" || len(p.Params) != len(ps.Params) {
		t.Fatalf("NeedValues %q, %d params; want the reason and %d", p.NeedValues, len(p.Params), len(ps.Params))
	}
	for i, pm := range p.Params {
		at := pm.Loc.String() == ps.Params[i].Loc.String()
		if !at || pm.Named != (pm.Name != "1bad") || pm.Used || pm.AtRunTime {
			t.Errorf("param %s: %+v", pm.Name, pm)
		}
	}
}

func TestStorageAndSchedule(t *testing.T) {
	plat := &spec.Platform{Loc: at, Storage: spec.Storage{PVC: "data", Size: "10Gi", MountPath: "/proc/x"}}
	ps := &spec.Pipeline{Loc: at, Schedule: &spec.Schedule{
		Cron:              []spec.ScheduleField{{Value: "61 * * * *", Loc: at.Field("schedule").Field("cron")}},
		Timezone:          spec.ScheduleField{Value: "Local", Loc: at.Field("schedule").Field("timezone")},
		ConcurrencyPolicy: "Sometimes",
	}}
	wants(t, messages(ps, plat, ""),
		"storage.mountPath: /proc/x is inside /proc",
		"storage.pvc: pvc names an existing claim",
		`schedule.cron: "61 * * * *" is not a cron schedule`,
		`schedule.timezone: "Local" is not a timezone`,
		`concurrencyPolicy: "Sometimes" is not Allow, Forbid or Replace`)
	plat.Storage = spec.Storage{Size: "lots"}
	wants(t, messages(&spec.Pipeline{Loc: at}, plat, ""), `storage.size: "lots" is not a non-negative Kubernetes quantity`)
}

func TestDaskStep(t *testing.T) {
	secs := int64(5)
	st := &spec.Step{Name: "bench", Loc: at.Field("steps").Index(0), Dask: &spec.Dask{},
		Env: []spec.EnvVar{{Name: "1X", Loc: at.Field("env").Field("1X")},
			{Name: "P", Value: "${params.p}", Loc: at.Field("env").Field("P")}},
		Tolerations: []spec.Toleration{{Operator: "Exists", Value: "v"}, {Key: "k", TolerationSeconds: &secs}},
		Timeout:     "1500ms", Retries: &spec.Retries{Limit: 101, Backoff: "soon"},
	}
	st.Dask.Setup.Pip = []string{"numpy pandas"}
	st.Dask.Output.Path = "../out.csv"
	nameless := &spec.Step{Name: "__", Loc: at.Field("steps").Index(1), Dask: &spec.Dask{}}
	ps := &spec.Pipeline{Loc: at, Params: []*spec.PipelineParam{{Name: "p", Loc: at}}, Steps: []*spec.Step{st, nameless}}
	got := messages(ps, &spec.Platform{Loc: at}, "")
	wants(t, got,
		`env.1X: "1X" is not a valid environment variable name`,
		"${params.p}: this step runs as a JobSet",
		"a toleration with operator: Exists has no value",
		"tolerationSeconds needs effect: NoExecute",
		`"1500ms": engines count in whole seconds`,
		"101 retries is more than the 100 allowed",
		`"soon" is not a positive duration`,
		`"numpy pandas" is not one package`,
		`"../out.csv": give a file path inside the workspace`)
}

func TestMPIStep(t *testing.T) {
	cube := &spec.Cube{Name: "c",
		CPUArgs: spec.DockerArgs{Text: "--shm-size=lots -e 2A=b", Loc: at.Field("docker").Field("cpu_args")}}
	task := &spec.Task{Name: "train", Loc: at.Field("tasks").Field("train")}
	st := &spec.Step{Name: "train", Loc: at.Field("steps").Index(0), Cube: cube, Task: task,
		Args:         []string{"--n=${params.n}", "$${params.n}"},
		MPI:          &spec.MPI{Implementation: "MPICH", SSHAuthMountPath: "/home/u/.ssh", Entrypoint: `"unclosed`},
		NodeSelector: map[string]string{"bad key!": "x"},
	}
	plat := &spec.Platform{Loc: at}
	plat.MPI.APIVersion = "kubeflow.org/v1"
	ps := &spec.Pipeline{Loc: at, Params: []*spec.PipelineParam{{Name: "n", Loc: at}}, Steps: []*spec.Step{st}}
	wants(t, messages(ps, plat, ""),
		"--shm-size=lots",
		`"2A" is not a valid environment variable name`,
		"${params.n}: this step runs as an MPIJob",
		"mpi.sshAuthMountPath: kubeflow.org/v1 MPIJobs",
		"mpi.implementation: kubeflow.org/v1 MPIJobs",
		"mpi.entrypoint: unclosed \" quote",
		"mpirun needs a program to start on every slot",
		`"bad key!" is not a valid label key`)
	st.MPI = nil
	wants(t, messages(ps, plat, ""), `"$" right before ${params.n}`)
}

// TestLegacyClaimNames checks the names of the claims legacy bindings
// name against #DNSSubdomain's pattern, without its length limit.
func TestLegacyClaimNames(t *testing.T) {
	long := strings.Repeat("a", 254)
	task := &spec.Task{Name: "train", Loc: at, Inputs: []*spec.Param{
		{Name: "a", Path: "x", Claim: "Bad_Claim", Loc: at},
		{Name: "b", Path: "y", Claim: long, Loc: at},
		{Name: "c", Path: "z", Claim: "data.team-1", Loc: at},
		{Name: "d", Path: "w", Claim: "-data", Loc: at},
	}}
	ps := &spec.Pipeline{Loc: at, Steps: []*spec.Step{{Name: "train", Loc: at.Field("steps").Field("train"),
		Cube: &spec.Cube{Image: "img"}, Task: task}}}
	got := messages(ps, &spec.Platform{Loc: at}, "")
	want := `k8s.pvc: "-data" is not a valid PersistentVolumeClaim name (lower case letters, digits, '-' and '.')` + "\n" +
		`k8s.pvc: "Bad_Claim" is not a valid PersistentVolumeClaim name (lower case letters, digits, '-' and '.')`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}
