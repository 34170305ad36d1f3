package lower

import (
	"strings"
	"testing"
)

// Selectors written as Kubernetes' DRA documentation and drivers write
// them parse; each mistake is found where it is, as the API server would
// refuse it. (Each case was also created with --dry-run=server on
// kube-apiserver v1.36.3, which took the first list and refused the
// second at the same line and column.)
func TestSelectorProblem(t *testing.T) {
	for _, expr := range []string{
		`device.attributes["gpu.example.com"].model == "LATEST-GPU-MODEL"`,
		`device.driver == "gpu.nvidia.com" && device.attributes["gpu.nvidia.com"].productName.startsWith("NVIDIA A100")`,
		`device.capacity["gpu.example.com"].memory.compareTo(quantity("80Gi")) >= 0`,
		`has(device.attributes["gpu.example.com"].index) && device.attributes["gpu.example.com"].index < 4`,
		`device.attributes["gpu.example.com"].exists(k, k == "model")`,
		`device.attributes["gpu.example.com"].all(k, v, k != "" && v != "")`,
		`device.attributes[?"gpu.example.com"].orValue({}).size() > 0`,
		`sets.contains(["a", "b"], ["a"]) && !device.allowMultipleAllocations`,
		`device.attributes["gpu.example.com"].driverVersion.compareTo(semver("1.0.0")) >= 0 && isSemver("1.0.0")`,
		"device.driver == \"gpu.example.com\" &&\n  device.attributes[\"gpu.example.com\"].model == \"A100\"",
	} {
		if got, _ := selectorProblem(expr); got != "" {
			t.Errorf("%s: %s", expr, got)
		}
	}
	for _, c := range []struct{ expr, want string }{
		{`device.driver = "gpu.example.com"`, "column 15: not a CEL expression: Syntax error: token " +
			"recognition error at: '= '"},
		{`gpu.model == "A100"`, `column 1: "gpu" is no name the selector knows: its one variable is device`},
		{`device.atributes["gpu.example.com"].model == "A100"`,
			`column 7: device has no field "atributes"; did you mean "attributes"?`},
		{`[1, 2].exists(x, x == y)`, `column 23: "y" is no name the selector knows`},
		{"device.driver == \"x\" &&\n  model == \"A100\"", `line 2, column 3: "model" is no name the selector knows`},
		{`"gpu.example.com"`, "the selector is a string, and it must be a bool"},
		{`{"model": "A100"}`, "the selector is a list or a map, and it must be a bool"},
		{strings.Repeat(" ", 10*1024) + "true", "the selector is 10244 bytes long, and the API server takes at most 10240"},
	} {
		if got, _ := selectorProblem(c.expr); !strings.HasPrefix(got, c.want) {
			t.Errorf("%s:\n got %q\nwant %q…", c.expr, got, c.want)
		}
	}
	want := "A device has the fields driver, attributes, capacity, allowMultipleAllocations."
	if _, got := selectorProblem(`device.atributes["gpu.example.com"].model == "A100"`); got != want {
		t.Errorf("detail of a field device does not have:\n got %q\nwant %q", got, want)
	}
}
