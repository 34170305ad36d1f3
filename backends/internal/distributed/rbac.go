package distributed

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Rule grants verbs on resources of one API group.
type Rule struct {
	Group     string
	Resources []string
	Verbs     []string
}

// DefaultServiceAccount names the service account --emit-rbac makes when
// the platform names none.
func DefaultServiceAccount(p *ir.Pipeline) string { return "mlcube-" + p.Name + "-runner" }

// RBAC is the ServiceAccount, Role and RoleBinding that let sa follow
// rules in the run's namespace. The ServiceAccount is left out when it is
// the namespace's default one, which always exists.
func RBAC(p *ir.Pipeline, sa string, rules []Rule) []any {
	meta := func(kind string) (metav1.TypeMeta, metav1.ObjectMeta) {
		api := "rbac.authorization.k8s.io/v1"
		if kind == "ServiceAccount" {
			api = "v1"
		}
		return metav1.TypeMeta{APIVersion: api, Kind: kind},
			metav1.ObjectMeta{Name: sa, Namespace: p.Namespace, Labels: p.Labels}
	}
	var out []any
	if sa != "default" {
		tm, om := meta("ServiceAccount")
		out = append(out, &corev1.ServiceAccount{TypeMeta: tm, ObjectMeta: om})
	}
	tm, om := meta("Role")
	role := &rbacv1.Role{TypeMeta: tm, ObjectMeta: om}
	for _, r := range mergeRules(rules) {
		role.Rules = append(role.Rules,
			rbacv1.PolicyRule{APIGroups: []string{r.Group}, Resources: r.Resources, Verbs: r.Verbs})
	}
	tm, om = meta("RoleBinding")
	binding := &rbacv1.RoleBinding{
		TypeMeta: tm, ObjectMeta: om,
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: sa},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: sa, Namespace: p.Namespace}},
	}
	return append(out, role, binding)
}

// mergeRules joins rules that grant the same verbs in one group, sorted.
func mergeRules(rules []Rule) []Rule {
	byKey := map[string]*Rule{}
	var keys []string
	for _, r := range rules {
		verbs := append([]string{}, r.Verbs...)
		sort.Strings(verbs)
		key := r.Group + "\x00" + strings.Join(verbs, ",")
		m, ok := byKey[key]
		if !ok {
			m = &Rule{Group: r.Group, Verbs: verbs}
			byKey[key] = m
			keys = append(keys, key)
		}
		for _, res := range r.Resources {
			if !slices.Contains(m.Resources, res) {
				m.Resources = append(m.Resources, res)
			}
		}
	}
	sort.Strings(keys)
	out := make([]Rule, 0, len(keys))
	for _, k := range keys {
		r := *byKey[k]
		sort.Strings(r.Resources)
		out = append(out, r)
	}
	return out
}

// Rules are what creating and waiting for each job of p needs, with the
// verbs an engine asks for.
func Rules(p *ir.Pipeline, verbs []string) []Rule {
	var out []Rule
	for _, s := range p.Steps {
		switch s.Kind {
		case ir.MPI:
			out = append(out, Rule{Group: mpiGroup, Resources: []string{"mpijobs"}, Verbs: verbs})
		case ir.Torch:
			out = append(out, Rule{Group: trainGroup, Resources: []string{"trainjobs"}, Verbs: verbs})
		case ir.Dask:
			if s.Dask.Form == ir.DaskJobSet {
				out = append(out, Rule{Group: jobSetGroup, Resources: []string{"jobsets"}, Verbs: verbs})
				continue
			}
			out = append(out, Rule{Group: daskGroup, Resources: []string{"daskjobs"}, Verbs: verbs})
			if s.Dask.Autoscale != nil {
				out = append(out, Rule{Group: daskGroup, Resources: []string{"daskautoscalers"}, Verbs: []string{"create"}})
			}
		}
	}
	return out
}

// RunnerRBAC is what --emit-rbac adds when want is set: the service
// account the run uses, and the objects that grant it what the engine's
// run needs, as objects(p, sa) makes them. Nothing when want is unset.
func RunnerRBAC(p *ir.Pipeline, want bool,
	objects func(p *ir.Pipeline, sa string) []any) (sa string, objs []any, err error) {
	if !want {
		return "", nil, nil
	}
	if sa, err = runnerAccount(p); err != nil {
		return "", nil, err
	}
	return sa, objects(p, sa), nil
}

// runnerAccount is the service account --emit-rbac makes the run's RBAC
// for: the platform's, or one named after the pipeline. It refuses a run
// without a namespace, which a RoleBinding must name.
func runnerAccount(p *ir.Pipeline) (string, error) {
	if p.Namespace == "" {
		return "", diag.Diagnostics{diag.Errorf(diag.BadFlag, diag.At(diag.Pos{File: p.Source}).Field("namespace"),
			"--emit-rbac needs the run's namespace, which a RoleBinding must name").
			WithFix("give --namespace NS, or namespace: in the platform file")}
	}
	if p.ServiceAccountName != "" {
		return p.ServiceAccountName, nil
	}
	return DefaultServiceAccount(p), nil
}
