package enginetest_test

import (
	"flag"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// pod is a throwaway engine, written by docs/ARCHITECTURE.md's recipe
// "Add a backend" and nothing else: it runs a pipeline of one container
// step as a bare Pod, refuses any other shape as the job engine does, and
// checks the Pod's name as the API server would. It passes the same
// conformance suite as the real engines, its goldens in this package.
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
