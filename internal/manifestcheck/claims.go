package manifestcheck

import (
	"regexp"
	"strings"
	"testing"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/util/validation"
	"sigs.k8s.io/yaml"
)

// claimTemplate decodes a ResourceClaimTemplate strictly, checks what the
// API server checks of the ones the compiler makes (its name; one
// request, a DNS label, for ExactCount 1 to 32 devices of a class named
// as a DNS subdomain: pkg/apis/resource/validation/validation.go of
// Kubernetes v1.36.3; the e2e suite's server-side dry-run checks the
// rest, its CEL selector compiled), and adds its name to names.
func claimTemplate(t testing.TB, name, doc string, names map[string]bool) {
	t.Helper()
	var tmpl resourcev1.ResourceClaimTemplate
	if err := yaml.UnmarshalStrict([]byte(doc), &tmpl); err != nil {
		t.Fatalf("%s: not a ResourceClaimTemplate: %v", name, err)
	}
	bad := validation.IsDNS1123Subdomain(tmpl.Name)
	reqs := tmpl.Spec.Spec.Devices.Requests
	if len(reqs) != 1 || reqs[0].Exactly == nil {
		t.Fatalf("%s: ResourceClaimTemplate %s: want one exactly request, got %+v", name, tmpl.Name, reqs)
	}
	ex := reqs[0].Exactly
	bad = append(bad, validation.IsDNS1123Label(reqs[0].Name)...)
	bad = append(bad, validation.IsDNS1123Subdomain(ex.DeviceClassName)...)
	if ex.AllocationMode != resourcev1.DeviceAllocationModeExactCount || ex.Count < 1 ||
		ex.Count > resourcev1.AllocationResultsMaxSize {
		bad = append(bad, "want allocationMode ExactCount and a count of 1 to 32")
	}
	if len(bad) > 0 {
		t.Errorf("%s: ResourceClaimTemplate %s: %v", name, tmpl.Name, bad)
	}
	names[tmpl.Name] = true
}

// claimTemplateName finds each template a pod names, however the run
// carries the pod: as YAML, in an embedded manifest, as JSON, or in an
// Argo podSpecPatch.
var claimTemplateName = regexp.MustCompile(`resourceClaimTemplateName\\?"?:\s*\\?"?([a-z0-9.-]+)`)

// checkClaimRefs checks that every template a pod of the run claims
// from is among templates, emitted with the run or applied by it (an
// Argo resource template's manifest).
func checkClaimRefs(t testing.TB, name, run string, templates map[string]bool) {
	t.Helper()
	for _, doc := range AppliedClaimTemplates(t, name, run) {
		claimTemplate(t, name, doc, templates)
	}
	for _, ref := range claimTemplateName.FindAllStringSubmatch(run, -1) {
		if !templates[ref[1]] {
			t.Errorf("%s: a pod claims from the ResourceClaimTemplate %s, which is neither emitted nor applied "+
				"with the run", name, ref[1])
		}
	}
}

// runTree is the run document as plain maps and lists.
func runTree(t testing.TB, name, run string) any {
	t.Helper()
	var tree any
	if err := yaml.Unmarshal([]byte(run), &tree); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return tree
}

// AppliedClaimTemplates are the ResourceClaimTemplates a run applies
// itself (an Argo Workflow's first tasks), as their manifests.
func AppliedClaimTemplates(t testing.TB, name, run string) []string {
	t.Helper()
	var out []string
	WalkMaps(runTree(t, name, run), func(m map[string]any) {
		if doc, ok := m["manifest"].(string); ok && strings.Contains(doc, "kind: ResourceClaimTemplate") {
			out = append(out, doc)
		}
	})
	return out
}
