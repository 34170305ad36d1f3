package tekton

import (
	"strings"
	"testing"

	v1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// workspacePipeline is a pipeline of one step that runs command in image
// template:1, as MLCube's template does (python3 /workspace/...).
func workspacePipeline(command ...string) *ir.Pipeline {
	return &ir.Pipeline{
		Spec:     diag.At(diag.Pos{File: "pipeline.yaml"}),
		Platform: diag.At(diag.Pos{File: "platform.yaml"}),
		Volumes:  []ir.Volume{{Name: "workspace", ClaimName: "data"}},
		Steps: []*ir.Step{{
			Name: "train", Loc: diag.At(diag.Pos{File: "pipeline.yaml", Line: 3, Col: 3}), Kind: ir.Container,
			Image: "template:1", ImagePullPolicy: "IfNotPresent", Command: command,
			Mounts: []ir.Mount{{Volume: "workspace", MountPath: "/mnt/mlcube"}},
		}},
	}
}

// mainStep is the user's step of the run's only task, and the task.
func mainStep(t *testing.T, pr *v1.PipelineRun) (v1.Step, *v1.TaskSpec) {
	t.Helper()
	spec := &pr.Spec.PipelineSpec.Tasks[0].TaskSpec.TaskSpec
	for _, st := range spec.Steps {
		if st.Name == stepName {
			return st, spec
		}
	}
	t.Fatal("no main step")
	return v1.Step{}, nil
}

// Tekton mounts an emptyDir at /workspace in every step, over the image's
// own (implicitVolumeMounts, pkg/pod/pod.go, v1.15.0); a step whose
// command names a program there mounts its own image's /workspace over
// it, read-only, as an image volume, which Tekton lets a step do (a step's
// mount at the path replaces the implicit one).
func TestStepMountsItsImageWorkspace(t *testing.T) {
	for _, command := range [][]string{
		{"python3", "/workspace/mnist.py"},
		{"sh", "-c", "cd /workspace && python3 mnist.py"},
		{"python3", "--script=/workspace/mnist.py"},
	} {
		pr, err := compile(workspacePipeline(command...), Options{})
		if err != nil {
			t.Fatal(err)
		}
		st, spec := mainStep(t, pr)
		want := corev1.VolumeMount{Name: imageWorkspaceVolume, MountPath: "/workspace", SubPath: "workspace", ReadOnly: true}
		if len(st.VolumeMounts) != 1 || st.VolumeMounts[0] != want {
			t.Errorf("%q: mounts %+v, want %+v", command, st.VolumeMounts, want)
		}
		if len(spec.Volumes) != 1 || spec.Volumes[0].Image == nil ||
			*spec.Volumes[0].Image != (corev1.ImageVolumeSource{Reference: "template:1", PullPolicy: corev1.PullIfNotPresent}) {
			t.Errorf("%q: volumes %+v, want the step's own image", command, spec.Volumes)
		}
		if w := workspaceWarnings(workspacePipeline(command...)); len(w) != 0 {
			t.Errorf("%q: warnings %v", command, w)
		}
	}
	pr, err := compile(workspacePipeline("python3", "/opt/app/main.py"), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st, spec := mainStep(t, pr); len(st.VolumeMounts) != 0 || len(spec.Volumes) != 0 {
		t.Errorf("a program outside /workspace: mounts %+v, volumes %+v", st.VolumeMounts, spec.Volumes)
	}
}

// A cluster that serves no image volumes (tekton.imageWorkspace: none)
// refuses a step whose program Tekton would hide, before anything runs;
// so does a step mount inside the read-only image /workspace.
func TestHiddenProgramRefused(t *testing.T) {
	p := workspacePipeline("python3", "/workspace/mnist.py")
	setTekton(t, p, func(s *settings) { s.ImageWorkspace = imageWorkspaceNone })
	_, err := compile(p, Options{})
	if err == nil || !strings.Contains(err.Error(), `pipeline.yaml:3:3: step train runs "/workspace/mnist.py", in `+
		`/workspace, which Tekton hides`) || !strings.Contains(err.Error(), "[MLC652]") {
		t.Errorf("want the hidden program refused, got %v", err)
	}
	p = workspacePipeline("python3", "/workspace/mnist.py")
	p.Steps[0].Mounts[0].MountPath = "/workspace/data"
	if _, err := compile(p, Options{}); err == nil ||
		!strings.Contains(err.Error(), "mounts workspace at /workspace/data, inside its image's /workspace") {
		t.Errorf("want the mount inside /workspace refused, got %v", err)
	}
}

// An image the compiler knows keeps its program in /workspace (MLCube's
// hello_world example's: ENTRYPOINT python3 /workspace/hello_world.py),
// or has it for its working directory (pytorch/pytorch's, for a script
// named relative to it), mounts it as a step that names it does.
func TestKnownImagesMountTheirWorkspace(t *testing.T) {
	for _, tc := range []struct {
		image   string
		command []string
		mounts  bool
	}{
		{"docker.io/mlcommons/hello_world:0.0.1", nil, true},
		{"mlcommons/hello_world@sha256:00", nil, true},
		{"mlperf/mlbox_hello_world:0.0.1", nil, true},
		{"pytorch/pytorch:2.9.1-cuda12.8-cudnn9-runtime", []string{"python", "train.py"}, true},
		{"pytorch/pytorch:2.9.1-cuda12.8-cudnn9-runtime", nil, false},
		{"example/cube:1.0", nil, false},
		{"registry.local/mlcommons/hello_world:0.0.1", nil, false},
	} {
		p := workspacePipeline(tc.command...)
		p.Steps[0].Image = tc.image
		if got := mountsImageWorkspace(p, p.Steps[0]); got != tc.mounts {
			t.Errorf("%s %q: mounts %v, want %v", tc.image, tc.command, got, tc.mounts)
		}
		if w := workspaceWarnings(p); len(w) != 0 {
			t.Errorf("%s %q: warnings %v", tc.image, tc.command, w)
		}
	}
	p := workspacePipeline()
	p.Steps[0].Image = "mlcommons/hello_world:0.0.1"
	setTekton(t, p, func(s *settings) { s.ImageWorkspace = imageWorkspaceNone })
	if _, err := compile(p, Options{}); err == nil ||
		!strings.Contains(err.Error(), "step train runs the entrypoint of image mlcommons/hello_world:0.0.1, in /workspace") {
		t.Errorf("none: want the known image's step refused, got %v", err)
	}
}

// Where the spec does not say where the program lives (a script relative
// to the working directory of an image the compiler does not know), the
// compile warns, once an image; imageWorkspace: always mounts the
// image's /workspace on every container step instead, and none silences
// it. A step that runs its image's own entrypoint is not warned about.
func TestUnseenProgramWarned(t *testing.T) {
	if w := workspaceWarnings(workspacePipeline()); len(w) != 0 {
		t.Errorf("the image's entrypoint: warnings %v", w)
	}
	p := workspacePipeline("python", "train.py")
	second := *p.Steps[0]
	second.Name = "evaluate"
	p.Steps = append(p.Steps, &second)
	w := workspaceWarnings(p)
	if len(w) != 1 || w[0].Code != diag.TektonWorkspaceUnseen ||
		!strings.Contains(w[0].String(), "pipeline.yaml:3:3: warning: steps train, evaluate run a script relative to the "+
			"working directory of image template:1, which Tekton's /workspace may hide") ||
		!strings.Contains(w[0].Detail, "Tekton mounts an emptyDir at /workspace") {
		t.Errorf("warnings %v", w)
	}
	setTekton(t, p, func(s *settings) { s.ImageWorkspace = imageWorkspaceAlways })
	if w := workspaceWarnings(p); len(w) != 0 {
		t.Errorf("always: warnings %v", w)
	}
	pr, err := compile(p, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := mainStep(t, pr); len(st.VolumeMounts) != 1 || st.VolumeMounts[0].Name != imageWorkspaceVolume {
		t.Errorf("always: mounts %+v", st.VolumeMounts)
	}
	setTekton(t, p, func(s *settings) { s.ImageWorkspace = imageWorkspaceNone })
	if w := workspaceWarnings(p); len(w) != 0 {
		t.Errorf("none: warnings %v", w)
	}
}
