package lower

import (
	"strings"
	"testing"

	"github.com/mlcube-compile/mlcube-compile/compiler/internal/spec"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// fields are the fields of diags, joined by spaces.
func fields(diags diag.Diagnostics) string {
	var out []string
	for _, d := range diags {
		out = append(out, d.Field)
	}
	return strings.Join(out, " ")
}

// Each toleration is checked as the API server checks one, said at its
// field; a node selector key is a label key.
func TestTolerations(t *testing.T) {
	secs := int64(30)
	list := diag.At(diag.Pos{File: "platform.yaml", Line: 4, Col: 3}).Field("tolerations")
	for _, c := range []struct {
		tol  spec.Toleration
		want string
	}{
		{spec.Toleration{Key: "gpu", Operator: "Exists", Effect: "NoSchedule"}, ""},
		{spec.Toleration{Operator: "Exists"}, ""},
		{spec.Toleration{Key: "k", Value: "v", TolerationSeconds: &secs, Effect: "NoExecute"}, ""},
		{spec.Toleration{Key: "bad key!"}, "tolerations[0].key"},
		{spec.Toleration{Operator: "Equal"}, "tolerations[0].key"},
		{spec.Toleration{Key: "k", Operator: "Exists", Value: "v"}, "tolerations[0].value"},
		{spec.Toleration{Key: "k", Value: "not a value"}, "tolerations[0].value"},
		{spec.Toleration{Key: "k", TolerationSeconds: &secs, Effect: "NoSchedule"}, "tolerations[0].tolerationSeconds"},
	} {
		if got := fields(tolerations([]spec.Toleration{c.tol}, list)); got != c.want {
			t.Errorf("%+v: refused at %q, want %q", c.tol, got, c.want)
		}
	}
	at := list.Field("nodeSelector")
	for k, bad := range map[string]bool{"gpu": false, "example.com/gpu-type": false, "-gpu": true, "a/b/c": true} {
		if got := labelKey(k, at.Field(k)); (got != nil) != bad {
			t.Errorf("labelKey(%q) = %v", k, got)
		}
	}
}

// The step's security settings lie over the platform's, field by field;
// a step runs as non-root when its user is not 0 or, without a user,
// runAsNonRoot is true.
func TestSecurity(t *testing.T) {
	zero, user, yes, no := int64(0), int64(1000), true, false
	sc := mergeSecurity(&spec.SecurityContext{RunAsUser: &zero, FSGroup: &user},
		&spec.SecurityContext{RunAsUser: &user, RunAsNonRoot: &yes})
	if *sc.RunAsUser != 1000 || *sc.FSGroup != 1000 || !*sc.RunAsNonRoot || sc.RunAsGroup != nil {
		t.Errorf("merged %+v", sc)
	}
	if mergeSecurity(nil, nil) != nil {
		t.Error("no settings, yet a security context")
	}
	for _, c := range []struct {
		sc   *ir.SecurityContext
		want bool
	}{
		{nil, false},
		{&ir.SecurityContext{RunAsUser: &zero, RunAsNonRoot: &yes}, false},
		{&ir.SecurityContext{RunAsUser: &user}, true},
		{&ir.SecurityContext{RunAsNonRoot: &yes}, true},
		{&ir.SecurityContext{RunAsNonRoot: &no}, false},
	} {
		if got := runsAsNonRoot(c.sc); got != c.want {
			t.Errorf("runsAsNonRoot(%+v) = %v", c.sc, got)
		}
	}
}

// A quantity is a non-negative Kubernetes quantity, or refused and "".
func TestQuantity(t *testing.T) {
	at := diag.At(diag.Pos{File: "platform.yaml", Line: 1, Col: 1}).Field("cpu")
	for in, ok := range map[string]bool{"500m": true, "4": true, "10Gi": true, "-1": false, "lots": false} {
		got, diags := quantity(in, at)
		if (diags == nil) != ok || (got == in) != ok {
			t.Errorf("quantity(%q) = %q, %v", in, got, diags)
		}
	}
}
