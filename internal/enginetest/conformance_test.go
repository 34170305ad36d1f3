package enginetest_test

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/engines"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/examples"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// pod is a throwaway engine, written by docs/ARCHITECTURE.md's recipe
// "Add a backend" and nothing else: it runs a pipeline of one container
// step as a bare Pod, refuses any other shape as the job engine does, and
// checks the Pod's name as the API server would. It passes the same
// conformance suite as the real engines, its goldens in this package, and
// once registered it takes the command's path through the driver.
type pod struct{}

func (pod) Name() string { return "pod" }
func (pod) Kinds() []emit.Kind {
	return []emit.Kind{{Name: "pod", Needs: emit.Needs{Values: "a Pod has no run-time parameters"}}}
}

func (pod) Accepts(p *ir.Pipeline, _ string) diag.Diagnostics {
	if len(p.Steps) != 1 || p.Steps[0].Kind != ir.Container {
		return emit.RefuseShape(p.Spec.Field("steps"),
			"a Pod runs one container step, and %d steps would run here; use --backend argo or tekton", len(p.Steps))
	}
	return nil
}

func (e pod) Emit(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	if refused := e.Accepts(p, opts.Kind); len(refused) > 0 {
		return emit.Result{Refused: refused}, nil
	}
	return emit.Settle(emitPod(p, opts))
}

func emitPod(p *ir.Pipeline, opts emit.Options) (emit.Result, error) {
	s := p.Steps[0]
	run := &corev1.Pod{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Pod"},
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: p.Labels},
		Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever,
			Containers: []corev1.Container{{Name: "main", Image: s.Image}}},
	}
	if errs := validation.IsDNS1123Subdomain(run.Name); len(errs) > 0 {
		return emit.Result{}, fmt.Errorf("the Pod's name %q: %v", run.Name, errs)
	}
	res := emit.Result{Run: run}
	if opts.RBAC {
		res.Warnings = append(res.Warnings, diag.Warnf(diag.JobNoRBAC, diag.Flag("--emit-rbac").At(p.Spec.Pos()),
			"a bare Pod calls no Kubernetes API, so --emit-rbac adds nothing"))
	}
	return res, nil
}

// The throwaway engine passes the conformance suite, with no change
// outside its own code.
func TestThrowawayEngineConforms(t *testing.T) {
	enginetest.Conformance(t, pod{}, enginetest.Suite{Golden: "testdata/golden/pod", Update: *update})
}

// register adds e to the registry for the test, as the one line a new
// engine adds to backends/engines does: first, so that --backend all
// compiles for it before an engine that refuses more fails the run.
func register(t *testing.T, e emit.Engine) {
	saved := engines.All
	engines.All = append([]emit.Engine{e}, engines.All...)
	t.Cleanup(func() { engines.All = saved })
}

// The throwaway engine, once registered, takes the command's path with no
// other change: the driver compiles each example it accepts to the bytes
// of its golden file, and refuses the others; --backend all and lint
// leave it out of those, and only of those.
func TestThrowawayEngineThroughTheDriver(t *testing.T) {
	register(t, pod{})
	list, err := examples.List(enginetest.Root(t))
	if err != nil || len(list) == 0 {
		t.Fatalf("no examples: %v", err)
	}
	for _, ex := range list {
		t.Run(ex.Name, func(t *testing.T) {
			opts := compiler.Pair(compiler.Options{MLCube: ex.MLCube, Task: ex.Task, Platform: ex.Platform,
				Values: ex.Values}).Options
			shape := manifestcheck.Accepts(t, "pod", opts, "")
			golden, goldenErr := os.ReadFile(filepath.Join("testdata", "golden", "pod", ex.Name+".yaml"))
			out, err := driver.Compile(driver.Request{Compiler: opts, Backend: "pod"})
			var refused diag.Diagnostics
			switch {
			case shape == nil && (err != nil || goldenErr != nil || !bytes.Equal(out.Bytes, golden)):
				t.Errorf("accepted, yet not the golden file's bytes: %v, %v", err, goldenErr)
			case shape != nil && (!errors.As(err, &refused) || goldenErr == nil):
				t.Errorf("not accepted (%v), yet compiled (%v), or a golden file (%v)", shape, err, goldenErr)
			}
			checkEach(t, opts, shape != nil)
			diags, _ := driver.Lint(opts, []string{"pod"})
			if slices.ContainsFunc(diags, func(d diag.Diagnostic) bool { return isPod(d) && d.Severity == diag.Error }) {
				t.Errorf("lint --backend pod reports the engine's refusals: %v", diags)
			}
		})
	}
}

// checkEach: --backend all emits the Pod, or leaves it out with a
// warning when the engine does not accept the pipeline.
func checkEach(t *testing.T, opts compiler.Options, shaped bool) {
	each, warnings, err := driver.Each(driver.Request{Compiler: opts})
	var refused diag.Diagnostics
	if err != nil && errors.As(err, &refused) && !slices.ContainsFunc(refused, isPod) {
		t.Errorf("--backend all: another engine refused: %v", err)
		return
	}
	emitted := slices.ContainsFunc(each, func(n driver.Named) bool { return n.Backend == "pod" })
	leftOut := slices.ContainsFunc(warnings, func(d diag.Diagnostic) bool {
		return isPod(d) && d.Code == diag.BackendLeftOut
	})
	if emitted == shaped || leftOut != shaped {
		t.Errorf("--backend all: emitted %v, left out %v (%v); not accepted: %v", emitted, leftOut, err, shaped)
	}
}

// isPod reports whether the throwaway engine says d.
func isPod(d diag.Diagnostic) bool { return d.Engine == "pod" }
