package main

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"testing"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	"github.com/argoproj/argo-workflows/v3/workflow/validate"
	tektonv1 "github.com/tektoncd/pipeline/pkg/apis/pipeline/v1"
	"github.com/urfave/cli/v2"
	batchv1 "k8s.io/api/batch/v1"
	"knative.dev/pkg/apis"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/job"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/driver"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/specgen"
)

// The benchmarks of the whole compile and of each backend. The stages
// of the front end are benchmarked in package compiler, the schema's
// compilation in package schema; scripts/bench.sh runs them all.

// benchCase is one compilation: a name, the backend a user would pick,
// the command line's flags but --backend, and the backends it applies to.
type benchCase struct {
	name     string
	backend  string
	args     []string
	backends []string
}

// withBackend is the case's command line with --backend.
func (c benchCase) withBackend(backend string) []string {
	return append([]string{"mlcube-compile", "--backend", backend}, c.args...)
}

// exampleCases are the examples the peers in bench/peers render too, and
// the largest example.
func exampleCases() []benchCase {
	example := func(name, backend string, backends ...string) benchCase {
		return benchCase{name, backend, exampleArgs(filepath.Join(repoRoot, "examples", name)), backends}
	}
	return []benchCase{
		example("resnet50-multinode", "argo", "argo", "tekton"),
		example("single-gpu-task", "job", "argo", "tekton", "job"),
		example("medperf-style", "argo", "argo", "tekton"),
	}
}

// pipelineCase writes a generated pipeline to a folder and compiles it
// with the argo backend.
func pipelineCase(b *testing.B, shape specgen.Shape, n int) benchCase {
	dir := largePipeline(b, shape, n, "")
	args := []string{"--mlcube", dir, "--task", filepath.Join(dir, "p.yaml")}
	return benchCase{fmt.Sprintf("%s-%d", shape, n), "argo", args, []string{"argo", "tekton"}}
}

// benchCases are the examples, then pipelines of every shape at sizes.
func benchCases(b *testing.B, sizes ...int) []benchCase {
	cases := exampleCases()
	for _, shape := range specgen.Shapes {
		for _, n := range sizes {
			cases = append(cases, pipelineCase(b, shape, n))
		}
	}
	return cases
}

// BenchmarkCompile is the whole command, as a user runs it: read, check,
// lower, emit, validate and print.
func BenchmarkCompile(b *testing.B) {
	for _, c := range benchCases(b, 100, 500, 1000) {
		b.Run(c.name, func(b *testing.B) {
			args := c.withBackend(c.backend)
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if code := run(args, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}

// compileCase compiles a case's specs to the IR once, as for backend, for
// the benchmarks of what comes after.
func compileCase(b *testing.B, c benchCase, backend string) *ir.Pipeline {
	s := &session{stdout: io.Discard}
	app := newApp(s, io.Discard)
	var p *ir.Pipeline
	app.Action = func(ctx *cli.Context) error {
		req, err := request(ctx, s)
		if err != nil {
			return err
		}
		p, _, err = driver.IR(req)
		return err
	}
	if err := app.Run(c.withBackend(backend)); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkEmit is each backend building its objects and running its
// engine's validator on them, from the IR.
func BenchmarkEmit(b *testing.B) {
	forEachBackend(b, benchCases(b, 100, 1000), func(b *testing.B, c benchCase, backend string) {
		p := compileCase(b, c, backend)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if _, err := driver.Emit(p, driver.Request{Backend: backend}); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// forEachBackend runs fn as a sub-benchmark for every case and every
// backend it applies to.
func forEachBackend(b *testing.B, cases []benchCase, fn func(b *testing.B, c benchCase, backend string)) {
	for _, c := range cases {
		for _, backend := range c.backends {
			b.Run(backend+"/"+c.name, func(b *testing.B) { fn(b, c, backend) })
		}
	}
}

// BenchmarkValidate is the engine's own validator alone, on the object
// the backend emitted from an example: what BenchmarkEmit spends outside
// our code. (Argo's validator, given a large DAG whole, takes time that
// grows with the square of its tasks; the backend gives it windows.)
func BenchmarkValidate(b *testing.B) {
	forEachBackend(b, exampleCases(), func(b *testing.B, c benchCase, backend string) {
		res, err := driver.Emit(compileCase(b, c, backend), driver.Request{Backend: backend})
		if err != nil {
			b.Fatal(err)
		}
		check := upstreamValidator(b, res.Run)
		b.ReportAllocs()
		b.ResetTimer()
		for i := 0; i < b.N; i++ {
			if err := check(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// upstreamValidator runs the validator of the engine that runs obj, as
// the backend runs it.
func upstreamValidator(b *testing.B, obj any) func() error {
	switch o := obj.(type) {
	case *wfv1.Workflow:
		return func() error { return validate.ValidateWorkflow(nil, nil, o, nil, validate.ValidateOpts{Lint: true}) }
	case *tektonv1.PipelineRun:
		return func() error {
			ctx := apis.WithinCreate(context.Background())
			created := o.DeepCopy()
			created.Name = o.GenerateName + "abcde"
			created.SetDefaults(ctx)
			if ferr := created.Validate(ctx); ferr != nil {
				return ferr
			}
			return nil
		}
	case *batchv1.Job:
		return func() error { return job.Validate(o) }
	}
	b.Fatalf("no validator for %T", obj)
	return nil
}

// BenchmarkEncode writes the emitted objects as the YAML stream printed.
func BenchmarkEncode(b *testing.B) {
	for _, c := range benchCases(b, 1000) {
		b.Run(c.name, func(b *testing.B) {
			res, err := driver.Emit(compileCase(b, c, c.backend), driver.Request{Backend: c.backend})
			objs := res.Objects()
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := emit.Encode(objs...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkLint lints generated cubes, a worker per CPU, as CI does.
func BenchmarkLint(b *testing.B) {
	for _, n := range []int{100, 1000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			files := map[string]string{}
			for i := 0; i < n; i++ {
				files[fmt.Sprintf("c%04d/mlcube.yaml", i)] = specgen.LintCube(i)
			}
			dir := enginetest.WriteFiles(b, files)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if code := run([]string{"mlcube-compile", "lint", dir}, io.Discard, io.Discard); code != 0 {
					b.Fatalf("exit %d", code)
				}
			}
		})
	}
}
