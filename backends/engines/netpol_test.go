package engines_test

import (
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	networkingv1 "k8s.io/api/networking/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/compiler"
	"github.com/mlcube-compile/mlcube-compile/diag"
	"github.com/mlcube-compile/mlcube-compile/internal/enginetest"
	"github.com/mlcube-compile/mlcube-compile/internal/manifestcheck"
)

// medperfContainer is a MedPerf container (container_config.yaml), which
// MedPerf runs with the network off (docker_runner.py,
// disable_network=True, mlcommons/medperf).
const medperfContainer = `container_type: DockerImage
image: example/eval:1.0
tasks:
  evaluate:
    input_volumes:
      predictions: {mount_path: /mlcommons/volumes/predictions, type: directory}
    output_volumes:
      results: {mount_path: /mlcommons/volumes/results, type: directory}
`

// medperfRun compiles medperfContainer with platform for backend.
func medperfRun(t *testing.T, backend, platform string) enginetest.Emitted {
	t.Helper()
	dir := enginetest.WriteFiles(t,
		map[string]string{"container_config.yaml": medperfContainer, "platform.yaml": platform})
	return manifestcheck.BuildFor(t, backend, compiler.Options{MLCube: filepath.Join(dir, "container_config.yaml"),
		Platform: filepath.Join(dir, "platform.yaml")}, emit.Options{})
}

// networkPolicy is the one NetworkPolicy among out's objects, or nil.
func networkPolicy(t *testing.T, out enginetest.Emitted) *networkingv1.NetworkPolicy {
	t.Helper()
	var found []*networkingv1.NetworkPolicy
	for _, obj := range out.Objects() {
		if np, ok := obj.(*networkingv1.NetworkPolicy); ok {
			found = append(found, np)
		}
	}
	if len(found) > 1 {
		t.Fatalf("%d NetworkPolicies", len(found))
	}
	if len(found) == 0 {
		return nil
	}
	return found[0]
}

// selectedPods counts the label maps of out's run that the policy's pod
// selector selects: the metadata of the step's pods on each engine (an
// Argo template's, a Tekton task's, a Job's pod template's).
func selectedPods(t *testing.T, out enginetest.Emitted, np *networkingv1.NetworkPolicy) int {
	t.Helper()
	n := 0
	manifestcheck.WalkMaps(enginetest.Tree(t, out.Run), func(m map[string]any) {
		labels, ok := m["labels"].(map[string]any)
		if !ok {
			return
		}
		for k, v := range np.Spec.PodSelector.MatchLabels {
			if labels[k] != v {
				return
			}
		}
		n++
	})
	return n
}

// A MedPerf step's pods are shut off the network on every engine, as
// MedPerf shuts its containers off: a NetworkPolicy emitted with the run
// selects them by the labels each engine puts on them, and denies them
// ingress, and egress but for what Argo's executor in the same pod needs
// (the API server). The platform opts out with
// medperf: {network: allowed}.
func TestMedPerfStepsHaveNoNetwork(t *testing.T) {
	for _, backend := range []string{"argo", "tekton", "job"} {
		out := medperfRun(t, backend, "storage: {pvc: results}\n").Must(t)
		np := networkPolicy(t, out)
		if np == nil {
			t.Fatalf("%s: no NetworkPolicy", backend)
		}
		if got := np.Spec.PolicyTypes; len(got) != 2 || len(np.Spec.Ingress) != 0 {
			t.Errorf("%s: policyTypes %v, ingress %v: want both denied", backend, got, np.Spec.Ingress)
		}
		if np.Spec.PodSelector.MatchLabels["mlcube-compile/network"] != "none" {
			t.Errorf("%s: selector %v", backend, np.Spec.PodSelector)
		}
		// The Workflow's template, the task's metadata, the Job and its
		// pod template.
		if n := selectedPods(t, out, np); n == 0 {
			t.Errorf("%s: the policy selects none of the run's pods", backend)
		}
		stderr := out.Stderr()
		switch backend {
		case "argo":
			if len(np.Spec.Egress) != 1 || len(np.Spec.Egress[0].Ports) != 2 ||
				np.Spec.Egress[0].Ports[0].Port.IntValue() != 443 || np.Spec.Egress[0].Ports[1].Port.IntValue() != 6443 {
				t.Errorf("argo: egress %+v, want the API server's ports alone", np.Spec.Egress)
			}
			// The engine's own need is the policy's and the docs', not
			// a warning in every compile of a MedPerf cube.
			if strings.Contains(stderr, "MLC630") {
				t.Errorf("argo: MLC630 with the data on the claim:\n%s", stderr)
			}
		default:
			if len(np.Spec.Egress) != 0 || strings.Contains(stderr, "MLC630") {
				t.Errorf("%s: egress %+v, want none\n%s", backend, np.Spec.Egress, stderr)
			}
		}
		out = medperfRun(t, backend, "storage: {pvc: results}\nmedperf: {network: allowed}\n").Must(t)
		if np := networkPolicy(t, out); np != nil || strings.Contains(out.YAML(t), "mlcube-compile/network") {
			t.Errorf("%s: medperf.network allowed: a policy or label remains", backend)
		}
	}
}

// The movers in a MedPerf step's pod reach the object store: an
// in-cluster endpoint by its namespace, and DNS to find it; Argo's
// artifact repository, whose endpoint the compiler does not know, is
// refused.
func TestMedPerfMoversReachTheStore(t *testing.T) {
	store := "storage: {workspace: object, pvc: data}\nobjectStore:\n  s3: {endpoint: seaweedfs.storage:8333, bucket: " +
		"runs, insecure: true, accessKeySecret: {name: s3, key: a}, secretKeySecret: {name: s3, key: s}}\n"
	for _, backend := range []string{"argo", "tekton", "job"} {
		out := medperfRun(t, backend, store)
		if out.Failed() {
			t.Fatalf("%s:\n%s", backend, out.Stderr())
		}
		np := networkPolicy(t, out)
		if np == nil {
			t.Fatalf("%s: no NetworkPolicy", backend)
		}
		var toStore, dns bool
		for _, r := range np.Spec.Egress {
			for _, peer := range r.To {
				toStore = toStore || (peer.NamespaceSelector != nil &&
					maps.Equal(peer.NamespaceSelector.MatchLabels, map[string]string{"kubernetes.io/metadata.name": "storage"}))
			}
			for _, p := range r.Ports {
				dns = dns || p.Port.IntValue() == 53
			}
		}
		if !toStore || !dns {
			t.Errorf("%s: egress %+v: want namespace storage and DNS", backend, np.Spec.Egress)
		}
		if !slices.ContainsFunc(out.Diags, func(d diag.Diagnostic) bool {
			return d.Code == diag.IsolationEgress && strings.Contains(d.Detail, "moves its data through the object store at "+
				"seaweedfs.storage:8333 (namespace storage, any port)")
		}) {
			t.Errorf("%s: the warning does not name the store:\n%v", backend, out.Diags)
		}
	}
	out := medperfRun(t, "argo", "storage: {workspace: object, pvc: data}\nobjectStore: {artifactRepositoryRef: {}}\n")
	if stderr := out.Stderr(); !out.Failed() || !strings.Contains(stderr, "moves its data through Argo's artifact "+
		"repository, which it cannot reach") || !strings.Contains(stderr, "[MLC653]") {
		t.Errorf("argo's artifact repository: want MLC653, got:\n%s", stderr)
	}
}
