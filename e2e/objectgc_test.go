//go:build e2e

package e2e

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
)

// pinArtifactGC puts the pods of a workflow's artifact GC on the real
// node, where a real executor deletes the artifacts, not on a KWOK node
// that only pretends to run them; and runs argoexec in them, as the
// suite's executor image has the recorder for its entrypoint. Argo makes
// the GC pod's container "main" with only args (artifact delete), from
// the executor image (createArtifactGCPod, workflow/controller/
// artifact_gc.go, v3.7.18 and v4.0.7), and lays podSpecPatch over it.
func pinArtifactGC(wf *wfv1.Workflow) {
	gc := wf.Spec.ArtifactGC
	if gc == nil {
		return
	}
	patch, _ := json.Marshal(map[string]any{
		"containers":   []any{map[string]any{"name": "main", "command": []string{"argoexec"}}},
		"nodeSelector": map[string]string{"kubernetes.io/hostname": realNode},
		"tolerations":  []any{map[string]string{"key": realNodeTaint, "operator": "Exists"}},
	})
	gc.PodSpecPatch = string(patch)
}

// forgetArtifactGC drops the artifact GC's finalizer from a workflow an
// earlier run of the suite left (make e2e-up), whose GC may never end,
// so that the new run can delete it.
func forgetArtifactGC(c *cluster, ns, name string) {
	_, _ = c.run("", "-n", ns, "patch", "workflow", name, "--type=merge", "-p", `{"metadata":{"finalizers":null}}`)
}

// checkArtifactGC deletes the workflow and waits for Argo's artifact GC
// to delete its artifacts: every upload but the run's final results
// (artifactGC strategy Never on them) goes from the bucket.
func checkArtifactGC(t *testing.T, r *realRun, s *objectStore, run string, ups []uploaded, wf *wfv1.Workflow) {
	t.Helper()
	final := map[string]bool{}
	for _, tmpl := range wf.Spec.Templates {
		for _, a := range tmpl.Outputs.Artifacts {
			if a.ArtifactGC != nil && a.ArtifactGC.Strategy == wfv1.ArtifactGCNever {
				final[tmpl.Name+"/"+a.Name] = true
			}
		}
	}
	if len(final) == 0 {
		t.Fatal("no upload is kept from the artifact GC")
	}
	r.c.must(t, "", "-n", r.ns, "delete", "workflow", r.wf.Name, "--wait", "--timeout=180s")
	var left []string
	deadline := time.Now().Add(2 * time.Minute)
	for {
		left = left[:0]
		objects := s.objects(t, run+"/")
		for _, u := range ups {
			base := run + "/" + u.step + "/" + u.name
			if slices.ContainsFunc(keysOf(objects), func(k string) bool { return k == base || strings.HasPrefix(k, base+"/") }) {
				left = append(left, u.step+"/"+u.name)
			}
		}
		if len(left) == len(final) || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Second)
	}
	for _, u := range left {
		if !final[u] {
			t.Errorf("after the workflow was deleted, %s is still in the bucket (the artifact GC deletes every upload but the "+
				"final results)", u)
		}
	}
	for u := range final {
		if !slices.Contains(left, u) {
			t.Errorf("the final result %s was deleted with the workflow", u)
		}
	}
	t.Logf("artifact GC: the workflow's deletion left %v of %d uploads", left, len(ups))
}

// keysOf is a map's keys.
func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
