package distributed_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// A Dask step's JobSet: the scheduler, then the workers once it is
// ready, then the client once they are; the client's success ends it,
// any failure fails it; each Job runs its pods once; scheduler and
// workers fail when they end; the workers find the scheduler by the
// JobSet's name and are sized as a DaskJob's are; only the client mounts
// the workspace.
func TestDaskJobSetShape(t *testing.T) {
	for _, backend := range []string{"argo", "tekton"} {
		jobs := enginetest.Jobs(t, manifestcheck.Example(t, backend, "dask-map").Run)
		if len(jobs) != 1 || jobs[0]["kind"] != "JobSet" {
			t.Fatalf("%s: want one JobSet, got %d jobs", backend, len(jobs))
		}
		js := jobs[0]
		spec := js["spec"].(map[string]any)
		var order []string
		for _, r := range spec["replicatedJobs"].([]any) {
			r := r.(map[string]any)
			after := ""
			if deps, ok := r["dependsOn"].([]any); ok {
				dep := deps[0].(map[string]any)
				after = dep["name"].(string) + " " + dep["status"].(string)
			}
			job := r["template"].(map[string]any)["spec"].(map[string]any)
			order = append(order, r["name"].(string)+"<"+after)
			if job["backoffLimit"] != 0.0 || job["completionMode"] != "Indexed" || job["activeDeadlineSeconds"] != 1800.0 {
				t.Errorf("%s: job %s %v: want Indexed, no retry, the step's timeout", backend, r["name"], job)
			}
		}
		if want := []string{"scheduler<", "worker<scheduler Ready", "client<worker Ready"}; !slices.Equal(order, want) {
			t.Errorf("%s: replicated jobs %v, want %v", backend, order, want)
		}
		if sp := spec["successPolicy"].(map[string]any); sp["operator"] != "Any" ||
			!slices.Equal(asStrings(sp["targetReplicatedJobs"]), []string{"client"}) || spec["failurePolicy"] != nil {
			t.Errorf("%s: success policy %v, failure policy %v", backend, sp, spec["failurePolicy"])
		}
		pods := daskPods(t, js)
		for role, pod := range pods {
			c := pod["containers"].([]any)[0].(map[string]any)
			args := strings.Join(asStrings(c["args"]), " ")
			ends := strings.HasPrefix(args, "sh -c ") && strings.Contains(args, "exit 1 sh dask "+role)
			if ends != (role != "client") {
				t.Errorf("%s: %s runs %q; want the scheduler and workers to fail whenever they end", backend, role, args)
			}
			if _, mounts := c["volumeMounts"]; mounts != (role == "client") {
				t.Errorf("%s: %s mounts %v; want the client alone to mount the workspace", backend, role, c["volumeMounts"])
			}
		}
		worker := pods["worker"]["containers"].([]any)[0].(map[string]any)
		if args := strings.Join(asStrings(worker["args"]), " "); !strings.Contains(args,
			"dask worker $(DASK_SCHEDULER_ADDRESS) --name $(DASK_WORKER_NAME) --nthreads 1 --memory-limit 1073741824 "+
				"--death-timeout 60 --no-nanny") {
			t.Errorf("%s: worker args %q", backend, args)
		}
		env := map[string]any{}
		for _, e := range worker["env"].([]any) {
			e := e.(map[string]any)
			env[e["name"].(string)] = e["value"]
			if from, ok := e["valueFrom"]; ok {
				env[e["name"].(string)] = from
			}
		}
		if env["DASK_SCHEDULER_ADDRESS"] != "tcp://$(JOBSET_NAME)-scheduler-0-0.$(JOBSET_NAME):8786" ||
			!strings.Contains(jsonOf(env["JOBSET_NAME"]), "jobset.sigs.k8s.io/jobset-name") {
			t.Errorf("%s: worker env %v", backend, env)
		}
	}
}

// A queued Dask step's JobSet is created suspended, with the queue's
// labels, for Kueue to admit whole; its pods carry none.
func TestDaskJobSetQueued(t *testing.T) {
	dir := twoWorkers(t, "queue: team-a\nworkloadPriorityClass: nightly\nmultiKueue: true\n", "")
	for _, backend := range []string{"argo", "tekton"} {
		out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(dir), emit.Options{}).Must(t)
		if strings.Contains(out.Stderr(), "multiKueue") {
			t.Errorf("%s: %s", backend, out.Stderr())
		}
		jobs := enginetest.Jobs(t, out.Run)
		if len(jobs) != 1 {
			t.Fatalf("%s: %d jobs", backend, len(jobs))
		}
		js := jobs[0]
		labels := js["metadata"].(map[string]any)["labels"].(map[string]any)
		spec := js["spec"].(map[string]any)
		if labels["kueue.x-k8s.io/queue-name"] != "team-a" || labels["kueue.x-k8s.io/priority-class"] != "nightly" ||
			spec["suspend"] != true || spec["managedBy"] != "kueue.x-k8s.io/multikueue" {
			t.Errorf("%s: labels %v, suspend %v, managedBy %v", backend, labels, spec["suspend"], spec["managedBy"])
		}
		if strings.Contains(jsonOf(spec["replicatedJobs"]), "kueue.x-k8s.io") {
			t.Errorf("%s: the JobSet's pods carry Kueue's labels", backend)
		}
	}
}

// jsonOf is v as JSON, for a substring check.
func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// The workers of a Dask step's JobSet claim their GPUs by DRA, as a Job's
// pods can, from a ResourceClaimTemplate the run makes first.
func TestDaskJobSetClaimsWorkersGPUs(t *testing.T) {
	dir := twoWorkers(t, "gpu: {deviceClass: gpu.example.com}\n", ", gpu: 1")
	for _, backend := range []string{"argo", "tekton"} {
		out := manifestcheck.BuildFor(t, backend, manifestcheck.Specs(dir), emit.Options{}).Must(t)
		pods := daskPods(t, enginetest.Jobs(t, out.Run)[0])
		claims := jsonOf(pods["worker"]["resourceClaims"])
		if !strings.Contains(claims, `"resourceClaimTemplateName":"bench-gpu-`) ||
			pods["scheduler"]["resourceClaims"] != nil {
			t.Errorf("%s: the workers claim %s, the scheduler %v", backend, claims, pods["scheduler"]["resourceClaims"])
		}
		if yaml := out.YAML(t); !strings.Contains(yaml, "kind: ResourceClaimTemplate\n") {
			t.Errorf("%s: the run makes no ResourceClaimTemplate", backend)
		}
	}
}

// twoWorkers is a folder with a pipeline of one Dask step of two workers,
// each of 1 CPU, 1Gi and more, and a platform.yaml of platform.
func twoWorkers(t *testing.T, platform, more string) string {
	return enginetest.WriteFiles(t, map[string]string{
		"platform.yaml": platform,
		"pipeline.yaml": `name: bench
steps:
  run:
    dask:
      function: bench.run
      workers: 2
      worker: {cpu: "1", memory: 1Gi` + more + `}
      image: example/dask:1
      output: {path: out.csv}
`,
	})
}
