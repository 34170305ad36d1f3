package kube

import (
	"fmt"
	"net"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
	"github.com/mlcube-compile/mlcube-compile/diag"
)

// Egress is a place the pod of a step without network must still reach,
// for a container the engine or the compiler adds beside the user's (a
// policy is the pod's, not a container's): why, and the rule.
type Egress struct {
	Why  string
	Rule networkingv1.NetworkPolicyEgressRule
}

// NoNetworkPolicy isolates the pods of p's NoNetwork steps (MedPerf's
// containers, which MedPerf runs with docker's --network none): no
// ingress, and no egress but what engine (what the engine's own
// containers in every pod need) and each step's movers need. It selects
// the pods by the run's labels and ir.NetworkLabel, which every engine
// puts on a step's pods. It is nil when no step is isolated; the
// warning says what egress the data needs (with the engine's, when it
// warns), and the refusals what cannot be
// said. A NetworkPolicy is enforced only where the cluster's network
// plugin does (docs/backends.md).
func NoNetworkPolicy(p *ir.Pipeline, engine []Egress) (*networkingv1.NetworkPolicy, diag.Diagnostics) {
	var isolated []*ir.Step
	for _, s := range p.Steps {
		if s.NoNetwork {
			isolated = append(isolated, s)
		}
	}
	if len(isolated) == 0 {
		return nil, nil
	}
	needs := slices.Clone(engine)
	var out diag.Diagnostics
	movers := false
	for _, s := range isolated {
		more, err := moverEgress(p, s)
		out = append(out, err...)
		needs = append(needs, more...)
		movers = movers || len(more) > 0
	}
	policy := &networkingv1.NetworkPolicy{
		TypeMeta: metav1.TypeMeta{APIVersion: "networking.k8s.io/v1", Kind: "NetworkPolicy"},
		ObjectMeta: metav1.ObjectMeta{Name: "mlcube-" + p.Name + "-no-network", Namespace: p.Namespace,
			Labels: Labels(p.Labels)},
		Spec: networkingv1.NetworkPolicySpec{
			PodSelector: metav1.LabelSelector{MatchLabels: Labels(p.Labels, map[string]string{ir.NetworkLabel: "none"})},
			PolicyTypes: []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress},
		},
	}
	var whys []string
	for _, n := range needs {
		if !slices.Contains(whys, n.Why) {
			whys = append(whys, n.Why)
		}
		if !slices.ContainsFunc(policy.Spec.Egress,
			func(r networkingv1.NetworkPolicyEgressRule) bool { return equalRules(r, n.Rule) }) {
			policy.Spec.Egress = append(policy.Spec.Egress, n.Rule)
		}
	}
	// What the engine's own containers need is in the policy and the
	// docs; what the spec's data needs, which the user can change, is
	// warned about.
	if movers {
		out = append(out, diag.Warnf(diag.IsolationEgress, isolated[0].Loc,
			"the NetworkPolicy %s shuts MedPerf's %s %s off the network, but for the egress that moving data needs",
			policy.Name, word(len(isolated), "step", "steps"), stepNames(isolated)).
			WithFix("keep the data on the claim (storage.pvc) and use --backend tekton or job, and nothing is left open; "+
				"medperf: {network: allowed} on the platform opts out").
			WithDetail("The policy shuts the pods off the network, as MedPerf does, but for egress the containers beside "+
				"the user's need in the same pod, which the user's container shares: %s.", strings.Join(whys, "; ")))
	}
	return policy, out
}

// moverEgress is what the containers that fetch and upload step s's data
// must reach: the platform's S3 endpoint, each HTTP(S) input's host.
func moverEgress(p *ir.Pipeline, s *ir.Step) ([]Egress, diag.Diagnostics) {
	var out []Egress
	store := len(s.Uploads) > 0
	for _, f := range s.Fetches {
		if f.URL != nil && f.URL.Scheme != "s3" {
			u, err := url.Parse(f.URL.Raw)
			if err != nil {
				continue
			}
			port := u.Port()
			if port == "" {
				port = map[string]string{"http": "80", "https": "443"}[f.URL.Scheme]
			}
			out = append(out, hostEgress(u.Hostname(), port, "step "+s.Name+" fetches "+f.URL.Raw)...)
			continue
		}
		store = true
	}
	if !store {
		return out, nil
	}
	if p.ObjectStore == nil || p.ObjectStore.S3 == nil {
		return out, diag.Diagnostics{diag.Errorf(diag.IsolationUnsaid, s.Loc,
			"step %s runs with the network off and moves its data through Argo's artifact repository, which it cannot reach",
			s.Name).
			WithFix("name the bucket with objectStore.s3 (endpoint, bucket and Secret keys), keep the data on the claim " +
				"(storage.pvc), or opt out with medperf: {network: allowed}").
			WithDetail("The step is MedPerf's, which runs with the network off; the repository's endpoint is unknown to " +
				"the compiler, so the NetworkPolicy that shuts the step's pod off the network cannot let the executor " +
				"reach it.")}
	}
	b := p.ObjectStore.S3
	host, port, err := net.SplitHostPort(b.Endpoint)
	if err != nil {
		host, port = b.Endpoint, "443"
		if b.Insecure {
			port = "80"
		}
	}
	return append(out, hostEgress(host, port,
		"step "+s.Name+" moves its data through the object store at "+b.Endpoint)...), nil
}

// hostEgress lets a pod reach host:port, and resolve its name. A
// Service's name (name.namespace, or under .svc) is reached in its
// namespace, on any port: policies see the pod's port after the
// Service's, which may differ. Any other host is reached on its port,
// anywhere: a NetworkPolicy cannot name a host by its DNS name.
func hostEgress(host, port, why string) []Egress {
	dns := Egress{Why: "DNS, to find " + host,
		Rule: networkingv1.NetworkPolicyEgressRule{Ports: []networkingv1.NetworkPolicyPort{
			{Protocol: ptrTo(corev1.ProtocolUDP), Port: ptrTo(intstr.FromInt32(53))},
			{Protocol: ptrTo(corev1.ProtocolTCP), Port: ptrTo(intstr.FromInt32(53))},
		}}}
	if net.ParseIP(host) != nil {
		dns = Egress{}
	}
	var rule networkingv1.NetworkPolicyEgressRule
	if ns, ok := serviceNamespace(host); ok {
		rule.To = []networkingv1.NetworkPolicyPeer{
			{NamespaceSelector: &metav1.LabelSelector{MatchLabels: map[string]string{corev1.LabelMetadataName: ns}}},
		}
		why += fmt.Sprintf(" (namespace %s, any port)", ns)
	} else {
		n, _ := strconv.Atoi(port)
		rule.Ports = []networkingv1.NetworkPolicyPort{{Protocol: ptrTo(corev1.ProtocolTCP),
			Port: ptrTo(intstr.FromInt32(int32(n)))}}
		why += fmt.Sprintf(" (any host on TCP port %s)", port)
	}
	out := []Egress{{Why: why, Rule: rule}}
	if dns.Why != "" {
		out = append(out, dns)
	}
	return out
}

// serviceNamespace is the namespace of a Service's DNS name: name.ns,
// name.ns.svc, or name.ns.svc.<cluster domain>.
func serviceNamespace(host string) (string, bool) {
	labels := strings.Split(host, ".")
	if i := slices.Index(labels, "svc"); i == 2 || (len(labels) == 2 && net.ParseIP(host) == nil) {
		return labels[1], true
	}
	return "", false
}

// APIServerEgress is what a pod whose containers call the Kubernetes API
// (Argo's executor) needs: the API server's Service port (443) and the
// port its endpoints usually serve (6443), on any host, since the
// compiler knows no address of the API server.
func APIServerEgress(why string) Egress {
	var ports []networkingv1.NetworkPolicyPort
	for _, p := range []int32{443, 6443} {
		ports = append(ports, networkingv1.NetworkPolicyPort{Protocol: ptrTo(corev1.ProtocolTCP),
			Port: ptrTo(intstr.FromInt32(p))})
	}
	return Egress{Why: why + " (any host on TCP ports 443 and 6443)",
		Rule: networkingv1.NetworkPolicyEgressRule{Ports: ports}}
}

func equalRules(a, b networkingv1.NetworkPolicyEgressRule) bool { return reflect.DeepEqual(a, b) }

func ptrTo[T any](v T) *T { return &v }

// word is one or many, by n.
func word(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// stepNames lists the steps' names.
func stepNames(steps []*ir.Step) string {
	var names []string
	for _, s := range steps {
		names = append(names, s.Name)
	}
	return strings.Join(names, ", ")
}

// Isolation is NoNetworkPolicy as an engine's result takes it: the
// policy (none, or one), its warning, and its refusals as an error.
func Isolation(p *ir.Pipeline, engine []Egress) ([]any, diag.Diagnostics, error) {
	policy, diags := NoNetworkPolicy(p, engine)
	var refused, warned diag.Diagnostics
	for _, d := range diags {
		if d.Severity == diag.Error {
			refused = append(refused, d)
		} else {
			warned = append(warned, d)
		}
	}
	if len(refused) > 0 {
		return nil, nil, refused
	}
	if policy == nil {
		return nil, nil, nil
	}
	return []any{policy}, warned, nil
}
