//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// draImplicitResource is the extended resource Kubernetes gives the DRA
// example driver's class (ResourceDeviceClassPrefix, pkg/apis/resource
// of v1.36.3), which a queued pod that cannot carry claims asks for
// when the platform names no extendedResourceName.
const draImplicitResource = "deviceclass.resource.kubernetes.io/" + draDriver

// draQueuedPlatform is examples/shared-gpu-queue's platform with its GPUs
// by DRA, of the example driver's class, for image.
func draQueuedPlatform(t *testing.T, image string) string {
	t.Helper()
	file := realNodePlatform(t, filepath.Join(sharedGPUQueue(t), "platform.yaml"), image)
	plat := map[string]any{}
	data, err := os.ReadFile(file)
	if err == nil {
		err = yaml.Unmarshal(data, &plat)
	}
	if err != nil {
		t.Fatal(err)
	}
	plat["gpu"] = map[string]any{"deviceClass": draDriver}
	if data, err = yaml.Marshal(plat); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// pendingWhy is why Kueue holds the Workload of the owner kind/name in
// ns: the message of its QuotaReserved condition while that is False.
func (c *cluster) pendingWhy(t *testing.T, ns, owner string) string {
	t.Helper()
	var list struct {
		Items []struct {
			Metadata struct{ OwnerReferences []struct{ Kind, Name string } }
			Status   struct {
				Conditions []struct{ Type, Status, Message string }
			}
		}
	}
	if err := json.Unmarshal([]byte(c.must(t, "", "-n", ns, "get", "workloads.kueue.x-k8s.io", "-o", "json")),
		&list); err != nil {
		t.Fatal(err)
	}
	for _, w := range list.Items {
		for _, o := range w.Metadata.OwnerReferences {
			if o.Kind+"/"+o.Name != owner {
				continue
			}
			for _, cond := range w.Status.Conditions {
				if cond.Type == "QuotaReserved" && cond.Status == "False" {
					return cond.Message
				}
			}
		}
	}
	return ""
}

// TestE2EKueueAdmitsDRALimits shows what Kueue v0.19.2 does with the
// limit a queued pod that cannot carry claims asks for GPUs by DRA with:
// deviceclass.resource.kubernetes.io/<class>, which Kueue counts as a
// resource of that name (MLC319). A Tekton task of
// examples/shared-gpu-queue's finetune, and the TrainJob torch-ddp's
// train compiles to, each in a ClusterQueue that lists that name: Kueue
// admits them, and the task runs on the real node with a device of the
// DRA example driver. In a ClusterQueue that lists only nvidia.com/gpu,
// each stays pending, "resource ... unavailable in ClusterQueue".
func TestE2EKueueAdmitsDRALimits(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	t.Run("kueue-dra-job-claims", func(t *testing.T) {
		t.Parallel()
		c.queuedDRAJobClaims(t)
	})
	for _, listed := range []bool{true, false} {
		name := map[bool]string{true: "kueue-dra", false: "kueue-dra-unlisted"}[listed]
		gpu := map[bool]string{true: draImplicitResource, false: "nvidia.com/gpu"}[listed]
		t.Run(name+"-tekton", func(t *testing.T) {
			t.Parallel()
			c.queuedDRATekton(t, name, gpu, listed)
		})
		t.Run(name+"-trainjob", func(t *testing.T) {
			needTorchExample(t, "argo")
			t.Parallel()
			c.queuedDRATrainJob(t, name, gpu, listed)
		})
	}
}

// queuedDRATekton runs finetune's task with GPUs by DRA, queued in a
// ClusterQueue whose GPUs are gpu, listed when that is the task's limit.
func (c *cluster) queuedDRATekton(t *testing.T, name, gpu string, listed bool) {
	t.Helper()
	dir := t.TempDir()
	pipeline := filepath.Join(dir, "pipeline.yaml")
	if err := os.WriteFile(pipeline, []byte("name: kueue-dra\ncubes: {c: "+sharedGPUQueue(t)+
		"}\nsteps:\n  finetune: {task: finetune, env: {MLCUBE_E2E_SLEEP: \"5\"}}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "tekton", "--task", pipeline, "--platform",
		draQueuedPlatform(t, tektonImage))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "list "+draImplicitResource+" in the queue's ClusterQueue's coveredResources") {
		t.Errorf("no MLC319 in:\n%s", stderr)
	}
	r := c.newTektonRun(t, name, strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n"), nil)
	c.kueueQueuesOf(t, r.ns, gpu, 1, "team-a-gpu")
	limits := userStep(&r.pr.Spec.PipelineSpec.Tasks[0]).ComputeResources.Limits
	if q, ok := limits[draImplicitResource]; !ok || q.Value() != 1 {
		t.Fatalf("the task's limits %v, want 1 %s", limits, draImplicitResource)
	}
	r.create(t)
	if !listed {
		pod := waitForAny(t, 2*time.Minute, func() string {
			out, _ := c.run("", "-n", r.ns, "get", "pods", "-l", "tekton.dev/pipelineTask=finetune", "-o",
				"jsonpath={.items[*].metadata.name}")
			return out
		})
		why := waitForAny(t, 2*time.Minute, func() string { return c.pendingWhy(t, r.ns, "Pod/"+pod) })
		if !strings.Contains(why, "resource "+draImplicitResource+" unavailable in ClusterQueue") {
			t.Fatalf("pod %s's Workload is pending for %q", pod, why)
		}
		c.must(t, "", "-n", r.ns, "delete", "pipelinerun", r.pr.Name, "--wait=false")
		t.Logf("pod %s, with the limit %s, in a ClusterQueue that lists only %s: its Workload pending: %s", pod,
			draImplicitResource, gpu, why)
		return
	}
	done := r.waitDone(t, "pipelinerun.tekton.dev/"+r.pr.Name, 5*time.Minute)
	pod := r.tektonPods(t)["finetune"]
	w, ok := c.workloads(t, r.ns)["Pod/"+pod]
	if !done.Status.GetCondition("Succeeded").IsTrue() || !ok || w.at("Admitted").IsZero() {
		t.Fatalf("PipelineRun %s: %v; pod %s's Workload admitted: %v", done.Name, done.Status.GetCondition("Succeeded"), pod,
			ok && !w.at("Admitted").IsZero())
	}
	claim := c.must(t, "", "-n", r.ns, "get", "pod", pod, "-o",
		"jsonpath={.status.extendedResourceClaimStatus.resourceClaimName}")
	t.Logf("PipelineRun %s: Succeeded on %s; pod %s asked for 1 %s, Kueue admitted it (Workload %s) in a ClusterQueue "+
		"listing that name, and the scheduler allocated its device in claim %q", done.Name, realNode, pod,
		draImplicitResource, w.Metadata.Name, claim)
}

// queuedDRATrainJob creates the TrainJob of torch-ddp's train step with
// GPUs by DRA, queued in a ClusterQueue whose GPUs are gpu: Kueue must
// admit it (unsuspend it) when gpu is its limit, and hold it otherwise.
func (c *cluster) queuedDRATrainJob(t *testing.T, name, gpu string, listed bool) {
	t.Helper()
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "argo",
		"--task", filepath.Join(repoRoot, "examples", torchExample, "pipeline.yaml"), "--platform",
		draQueuedPlatform(t, realImage))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "list "+draImplicitResource+" in the queue's ClusterQueue's coveredResources") {
		t.Errorf("no MLC319 in:\n%s", stderr)
	}
	docs := strings.Split(out, "\n---\n")
	var job map[string]any
	if err := yaml.Unmarshal([]byte(asSubmitted(*argoCreated(t, decodeWorkflow(t, docs[len(docs)-1]), "TrainJob"))),
		&job); err != nil {
		t.Fatal(err)
	}
	delete(job["metadata"].(map[string]any), "ownerReferences")
	manifest, err := yaml.Marshal(job)
	if err != nil {
		t.Fatal(err)
	}
	ns := "e2e-trainjob-" + name
	c.kueueQueuesOf(t, ns, gpu, 4, "team-a-gpu")
	c.must(t, "", "-n", ns, "delete", "trainjobs.trainer.kubeflow.org", "train", "--ignore-not-found", "--wait")
	c.must(t, queued(t, string(manifest), ns, "train", false), "create", "-f", "-")
	defer c.must(t, "", "-n", ns, "delete", "trainjobs.trainer.kubeflow.org", "train", "--wait=false")
	if !listed {
		why := waitForAny(t, 2*time.Minute, func() string { return c.pendingWhy(t, ns, "TrainJob/train") })
		if !strings.Contains(why, "resource "+draImplicitResource+" unavailable in ClusterQueue") {
			t.Fatalf("TrainJob train's Workload is pending for %q", why)
		}
		if got := c.jsonPath(t, ns, "trainjobs.trainer.kubeflow.org/train", "{.spec.suspend}"); got != "true" {
			t.Fatalf("TrainJob train has suspend %q, want true", got)
		}
		t.Logf("TrainJob train, whose nodes ask for 2 %s each, in a ClusterQueue that lists only %s: suspended, its "+
			"Workload pending: %s", draImplicitResource, gpu, why)
		return
	}
	waitFor(t, 2*time.Minute,
		func() string { return c.jsonPath(t, ns, "trainjobs.trainer.kubeflow.org/train", "{.spec.suspend}") }, "false")
	w := c.workloads(t, ns)["TrainJob/train"]
	t.Logf("TrainJob train, whose 2 nodes ask for 2 %s each, admitted by Kueue (Workload %s, at %s) in a ClusterQueue "+
		"of 4 of them, and unsuspended", draImplicitResource, w.Metadata.Name, w.at("Admitted").Format(time.TimeOnly))
}

// queuedDRAJobClaims creates the Job of examples/shared-gpu-queue's
// finetune (--backend job) with GPUs by DRA, whose pod claims them from
// a ResourceClaimTemplate, in a queue of a Kueue with no
// deviceClassMappings (scripts/e2e/kueue.sh): Kueue holds it, "DeviceClass
// gpu.example.com is not mapped in DRA configuration" (pkg/dra/claims.go),
// as MLC309 says.
func (c *cluster) queuedDRAJobClaims(t *testing.T) {
	t.Helper()
	out, stderr, code := compileArgs(t, "mlcube-compile", "--backend", "job", "--mlcube", sharedGPUQueue(t), "--task",
		"finetune", "--platform", draQueuedPlatform(t, realImage))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "[MLC309]") {
		t.Errorf("no MLC309 in:\n%s", stderr)
	}
	ns := "e2e-kueue-dra-claims"
	c.kueueQueuesOf(t, ns, draDriver, 1, "team-a-gpu")
	c.ensure(t, "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: team-a-runner, namespace: "+ns+"}\n")
	docs := strings.Split(strings.TrimSuffix(out, "\n"), "\n---\n")
	for _, doc := range docs[:len(docs)-1] {
		c.ensure(t, inNamespace(t, doc, ns))
	}
	c.must(t, "", "-n", ns, "delete", "jobs.batch", "finetune", "--ignore-not-found", "--wait")
	c.must(t, queued(t, docs[len(docs)-1], ns, "finetune", false), "create", "-f", "-")
	defer c.must(t, "", "-n", ns, "delete", "jobs.batch", "finetune", "--wait=false")
	why := waitForAny(t, 2*time.Minute, func() string { return c.pendingWhy(t, ns, "Job/finetune") })
	if !strings.Contains(why, "DeviceClass "+draDriver+" is not mapped in DRA configuration") {
		t.Fatalf("Job finetune's Workload is pending for %q", why)
	}
	t.Logf("Job finetune, whose pod claims its GPU from a ResourceClaimTemplate, with no deviceClassMappings in Kueue's "+
		"configuration: suspended, its Workload pending: %s", why)
}
