//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"sigs.k8s.io/yaml"
)

// TestE2EMPIJobRunsToArgoSuccess takes the MPIJob out of resnet50's Argo
// resource step, creates it as Argo's executor would, and lets
// mpi-operator's controller (out of cluster) run it: KWOK runs the
// launcher's Job to completion and keeps the workers running. The step's
// own successCondition, read the way Argo's executor reads it, must come
// true, and its failureCondition must not.
func TestE2EMPIJobRunsToArgoSuccess(t *testing.T) {
	c := e2eCluster(t)
	t.Parallel()
	docs := goldenDocuments(t, filepath.Join(repoRoot, "testdata", "golden", "argo", "resnet50-multinode.yaml"))
	wf := decodeWorkflow(t, docs[len(docs)-1])
	var ran int
	for _, tmpl := range wf.Spec.Templates {
		res := tmpl.Resource
		if res == nil || !strings.Contains(res.Manifest, "kind: MPIJob") {
			continue
		}
		ran++
		success, err := labels.Parse(res.SuccessCondition)
		if err != nil {
			t.Fatalf("%s: successCondition: %v", tmpl.Name, err)
		}
		failure, err := labels.Parse(res.FailureCondition)
		if err != nil {
			t.Fatalf("%s: failureCondition: %v", tmpl.Name, err)
		}
		manifest := asSubmitted(res.Manifest)
		var job struct {
			Metadata struct{ Namespace string }
			Spec     struct {
				MPIReplicaSpecs map[string]struct {
					Template struct {
						Spec struct {
							ServiceAccountName string
							NodeSelector       map[string]string
						}
					}
				}
			}
		}
		if err := yaml.Unmarshal([]byte(manifest), &job); err != nil {
			t.Fatal(err)
		}
		ns := job.Metadata.Namespace
		c.namespace(t, ns)
		nodeLabels := map[string]string{}
		for _, r := range job.Spec.MPIReplicaSpecs {
			if sa := r.Template.Spec.ServiceAccountName; sa != "" {
				c.ensure(t, fmt.Sprintf("apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: %s, namespace: %s}\n", sa, ns))
			}
			for k, v := range r.Template.Spec.NodeSelector {
				nodeLabels[k] = v
			}
		}
		c.fakeNode(t, "kwok-mpi-"+tmpl.Name, nodeLabels)

		created := strings.TrimSpace(c.must(t, manifest, "create", "-o", "name", "-f", "-"))
		deadline := time.Now().Add(3 * time.Minute)
		for {
			status := c.must(t, "", "-n", ns, "get", created, "-o", "json")
			obj := jsonLabels{}
			if err := json.Unmarshal([]byte(status), &obj.doc); err != nil {
				t.Fatal(err)
			}
			if failure.Matches(obj) {
				t.Fatalf("%s: failureCondition %q holds:\n%s", created, res.FailureCondition, status)
			}
			if success.Matches(obj) {
				t.Logf("%s: successCondition %q holds", created, res.SuccessCondition)
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: successCondition %q still false after 3m:\n%s", created, res.SuccessCondition, status)
			}
			time.Sleep(time.Second)
		}
	}
	if ran == 0 {
		t.Fatal("resnet50-multinode has no MPIJob step")
	}
}

// jsonLabels lets a label selector read fields of a JSON object by dotted
// path, as Argo's executor does for a resource step's conditions.
type jsonLabels struct{ doc map[string]any }

func (j jsonLabels) lookup(path string) (any, bool) {
	var v any = j.doc
	for _, key := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[key]; !ok {
			return nil, false
		}
	}
	return v, true
}

func (j jsonLabels) Has(path string) bool {
	_, ok := j.lookup(path)
	return ok
}

func (j jsonLabels) Get(path string) string {
	v, _ := j.lookup(path)
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	default:
		out, _ := json.Marshal(v)
		return string(out)
	}
}

func (j jsonLabels) Lookup(path string) (string, bool) {
	if !j.Has(path) {
		return "", false
	}
	return j.Get(path), true
}
