package distributed_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

func TestDaskBenchmark(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		t.Run(backend, func(t *testing.T) {
			out := manifestcheck.Example(t, backend, "dask-benchmark")
			kinds := map[string]int{}
			for _, m := range enginetest.Jobs(t, out.Run) {
				kinds[m["kind"].(string)]++
				if m["kind"] == "DaskJob" {
					enginetest.CheckCRD(t, m)
				}
			}
			want := map[string]int{"DaskJob": 2}
			if backend == "argo" {
				want["DaskAutoscaler"] = 1 // Tekton's script makes it once the job's name is known
			}
			if fmt.Sprint(kinds) != fmt.Sprint(want) {
				t.Errorf("objects created: got %v, want %v", kinds, want)
			}
			yaml := out.YAML(t)
			for _, needle := range []string{`MLCUBE_DASK_ARGS`, `deepecho.benchmark.run_benchmark`,
				`s3://deepecho-results/results/fixed.csv`, `s3-credentials`, `EXTRA_PIP_PACKAGES`} {
				if !strings.Contains(yaml, needle) {
					t.Errorf("output lacks %s", needle)
				}
			}
			if backend == "tekton" && !strings.Contains(yaml, "AUTOSCALER_MAX") {
				t.Errorf("the adaptive step's kubectl step makes no autoscaler")
			}
		})
	}
}

// Dask workers are sized from worker: (threads, memory limit, limits
// equal to requests); the scheduler survives its setup install; setup
// packages under a non-root user are warned about.
func TestDaskWorkersSizedAndSchedulerStarts(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		for _, m := range enginetest.Jobs(t, manifestcheck.Example(t, backend, "dask-benchmark").Run) {
			if m["kind"] != "DaskJob" {
				continue
			}
			cluster := m["spec"].(map[string]any)["cluster"].(map[string]any)["spec"].(map[string]any)
			worker := cluster["worker"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			args := strings.Join(asStrings(worker["args"]), " ")
			if !strings.Contains(args, "--nthreads 4 --memory-limit 4000000000") {
				t.Errorf("%s: worker args %q, want --nthreads 4 --memory-limit 4000000000 (seed 004's cpu 4, "+
					"memory 4G)", backend, args)
			}
			limits, _ := worker["resources"].(map[string]any)["limits"].(map[string]any)
			if limits["cpu"] != "4" || limits["memory"] != "4G" {
				t.Errorf("%s: worker limits %v, want the requests", backend, limits)
			}
			sched := cluster["scheduler"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			probe, _ := sched["startupProbe"].(map[string]any)
			if probe == nil || probe["failureThreshold"].(float64)*probe["periodSeconds"].(float64) < 600 {
				t.Errorf("%s: scheduler startupProbe %v, want at least 10 minutes for setup", backend, probe)
			}
		}
	}
	dir := enginetest.DaskPipeline(t, "    securityContext: {runAsUser: 1000}\n", "      setup: {aptPackages: [git]}\n")
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(dir), emit.Options{})
	if stderr := out.Stderr(); out.Failed() ||
		!strings.Contains(stderr, "pipeline.yaml:9:7: warning: steps.run.dask.setup: the Dask pods run as user 1000") {
		t.Errorf("failed %v, %q; want a warning at setup", out.Failed(), stderr)
	}
}

// Dask workers without a size in dask.worker take the step's resources,
// and are warned about when that has none either: dask-worker would size
// itself from the node.
func TestDaskWorkersTakeTheStepsSize(t *testing.T) {
	workerArgs := func(out enginetest.Emitted) string {
		for _, m := range enginetest.Jobs(t, out.Run) {
			return strings.Join(asStrings(daskPods(t, m)["worker"]["containers"].([]any)[0].(map[string]any)["args"]), " ")
		}
		t.Fatal("no Dask job")
		return ""
	}
	out := manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(enginetest.DaskPipeline(t,
		"    resources: {cpu: \"2\", memory: 8Gi}\n", "")), emit.Options{}).Must(t)
	if stderr := out.Stderr(); stderr != "" ||
		!strings.Contains(workerArgs(out), "--nthreads 2 --memory-limit 8589934592") {
		t.Errorf("%q; worker args %q, want the step's cpu and memory", stderr, workerArgs(out))
	}
	out = manifestcheck.BuildFor(t, "argo", manifestcheck.Specs(enginetest.DaskPipeline(t, "", "")),
		emit.Options{}).Must(t)
	if stderr := out.Stderr(); !strings.Contains(stderr, "pipeline.yaml:4:5: warning: steps.run.dask.worker: the Dask "+
		"workers get no cpu and memory") || strings.Contains(workerArgs(out), "--nthreads") {
		t.Errorf("%q; want a warning at dask", stderr)
	}
}

func asStrings(v any) []string {
	var out []string
	list, _ := v.([]any)
	for _, x := range list {
		s, _ := x.(string)
		out = append(out, s)
	}
	return out
}

// daskPods are the pod specs of a DaskJob (job, scheduler, worker) or of
// a Dask step's JobSet (scheduler, worker, client), by role.
func daskPods(t *testing.T, m map[string]any) map[string]map[string]any {
	t.Helper()
	spec := m["spec"].(map[string]any)
	out := map[string]map[string]any{}
	switch m["kind"] {
	case "DaskJob":
		out["job"] = spec["job"].(map[string]any)["spec"].(map[string]any)
		cluster := spec["cluster"].(map[string]any)["spec"].(map[string]any)
		for _, role := range []string{"scheduler", "worker"} {
			out[role] = cluster[role].(map[string]any)["spec"].(map[string]any)
		}
	case "JobSet":
		for _, r := range spec["replicatedJobs"].([]any) {
			r := r.(map[string]any)
			job := r["template"].(map[string]any)["spec"].(map[string]any)
			out[r["name"].(string)] = job["template"].(map[string]any)["spec"].(map[string]any)
		}
	default:
		t.Fatalf("%v is not a Dask job", m["kind"])
	}
	return out
}
