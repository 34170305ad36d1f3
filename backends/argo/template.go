package argo

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

const (
	containerName = "main"
	shmVolume     = "dshm"
)

// group is the steps that share one container template. Varying names the
// cube parameters whose paths differ between them; those become template
// inputs that each DAG task passes.
type group struct {
	name    string
	steps   []*ir.Step
	varying map[string]bool
}

// buildTemplates makes one template per distinct cube task, and the DAG
// tasks that run them. Steps of one cube task share a template when they
// differ only in parameter paths.
func buildTemplates(p *ir.Pipeline) ([]wfv1.Template, []wfv1.DAGTask) {
	groups, byStep := groupSteps(p)
	var templates []wfv1.Template
	for _, g := range groups {
		templates = append(templates, template(p, g.steps[0], g.name, g.varying))
	}
	var tasks []wfv1.DAGTask
	for _, s := range p.Steps {
		g := byStep[s]
		task := wfv1.DAGTask{Name: s.Name, Template: g.name, Dependencies: s.Dependencies}
		for _, a := range s.Args {
			if a.Param != "" && g.varying[a.Param] {
				task.Arguments.Parameters = append(task.Arguments.Parameters, wfv1.Parameter{Name: a.Param, Value: wfv1.AnyStringPtr(renderContainer(a.Value))})
			}
		}
		tasks = append(tasks, task)
	}
	return templates, tasks
}

// groupSteps groups steps by cube task and by everything but their paths.
func groupSteps(p *ir.Pipeline) ([]*group, map[*ir.Step]*group) {
	var groups []*group
	byShape := map[string]*group{}
	perTemplate := map[string]int{}
	for _, s := range p.Steps {
		raw, _ := json.Marshal(template(p, s, s.Template, paramsOf(s)))
		shape := s.Template + "\x00" + string(raw)
		g, ok := byShape[shape]
		if !ok {
			g = &group{varying: map[string]bool{}}
			byShape[shape] = g
			groups = append(groups, g)
			perTemplate[s.Template]++
		}
		g.steps = append(g.steps, s)
	}
	taken := map[string]bool{}
	byStep := map[*ir.Step]*group{}
	for _, g := range groups {
		first := g.steps[0]
		name := first.Template
		if perTemplate[first.Template] > 1 {
			name = first.Template + "-" + first.Name
		}
		for i := 2; taken[name]; i++ {
			name = fmt.Sprintf("%s-%d", first.Template, i)
		}
		taken[name] = true
		g.name = name
		for _, s := range g.steps {
			byStep[s] = g
		}
		for _, a := range first.Args {
			if a.Param == "" {
				continue
			}
			for _, s := range g.steps[1:] {
				if render(argOf(s, a.Param).Value) != render(a.Value) {
					g.varying[a.Param] = true
				}
			}
		}
	}
	return groups, byStep
}

func paramsOf(s *ir.Step) map[string]bool {
	out := map[string]bool{}
	for _, a := range s.Args {
		if a.Param != "" {
			out[a.Param] = true
		}
	}
	return out
}

func argOf(s *ir.Step, param string) ir.Arg {
	for _, a := range s.Args {
		if a.Param == param {
			return a
		}
	}
	return ir.Arg{}
}

// template builds the container template for s. Args bound to a varying
// parameter read the template's input of that name.
func template(p *ir.Pipeline, s *ir.Step, name string, varying map[string]bool) wfv1.Template {
	t := wfv1.Template{
		Name:         name,
		Metadata:     wfv1.Metadata{Labels: copyLabels(p.Labels)},
		NodeSelector: s.NodeSelector,
		Container:    container(s, varying),
	}
	for k, v := range s.Labels {
		t.Metadata.Labels[k] = v
	}
	for _, a := range s.Args {
		if a.Param != "" && varying[a.Param] {
			t.Inputs.Parameters = append(t.Inputs.Parameters, wfv1.Parameter{Name: a.Param})
		}
	}
	for _, tol := range s.Tolerations {
		t.Tolerations = append(t.Tolerations, apiv1.Toleration{
			Key: tol.Key, Operator: apiv1.TolerationOperator(tol.Operator), Value: tol.Value,
			Effect: apiv1.TaintEffect(tol.Effect), TolerationSeconds: tol.TolerationSeconds,
		})
	}
	if sc := s.SecurityContext; sc != nil {
		t.SecurityContext = &apiv1.PodSecurityContext{RunAsUser: sc.RunAsUser, RunAsGroup: sc.RunAsGroup, FSGroup: sc.FSGroup, RunAsNonRoot: sc.RunAsNonRoot}
	}
	if s.Retry != nil {
		limit := intstr.FromInt(s.Retry.Limit)
		t.RetryStrategy = &wfv1.RetryStrategy{Limit: &limit}
		if s.Retry.Backoff > 0 {
			t.RetryStrategy.Backoff = &wfv1.Backoff{Duration: s.Retry.Backoff.String()}
		}
	}
	if s.Timeout > 0 {
		secs := intstr.FromInt(int(s.Timeout.Seconds()))
		t.ActiveDeadlineSeconds = &secs
	}
	if s.ShmSize != "" {
		size := mustQuantity(s.ShmSize)
		t.Volumes = []apiv1.Volume{{Name: shmVolume, VolumeSource: apiv1.VolumeSource{EmptyDir: &apiv1.EmptyDirVolumeSource{Medium: apiv1.StorageMediumMemory, SizeLimit: &size}}}}
	}
	return t
}

// container is the step's container: the MLCube runner's contract.
func container(s *ir.Step, varying map[string]bool) *apiv1.Container {
	c := &apiv1.Container{
		Name:            containerName,
		Image:           s.Image,
		ImagePullPolicy: apiv1.PullPolicy(s.ImagePullPolicy),
	}
	for _, w := range s.Command {
		c.Command = append(c.Command, ir.KubeLiteral(w))
	}
	for _, a := range s.Args {
		value := renderContainer(a.Value)
		if a.Param != "" && varying[a.Param] {
			value = "{{inputs.parameters." + a.Param + "}}"
		}
		c.Args = append(c.Args, ir.KubeLiteral(a.Prefix)+value)
	}
	for _, e := range s.Env {
		c.Env = append(c.Env, envVar(e))
	}
	for _, m := range s.Mounts {
		c.VolumeMounts = append(c.VolumeMounts, apiv1.VolumeMount{Name: m.Volume, MountPath: m.MountPath})
	}
	if s.ShmSize != "" {
		c.VolumeMounts = append(c.VolumeMounts, apiv1.VolumeMount{Name: shmVolume, MountPath: "/dev/shm"})
	}
	c.Resources = resources(s.Resources)
	return c
}

// resources requests cpu and memory and limits GPUs, which Kubernetes
// requires for extended resources.
func resources(r ir.Resources) apiv1.ResourceRequirements {
	var out apiv1.ResourceRequirements
	req := apiv1.ResourceList{}
	if r.CPU != "" {
		req[apiv1.ResourceCPU] = mustQuantity(r.CPU)
	}
	if r.Memory != "" {
		req[apiv1.ResourceMemory] = mustQuantity(r.Memory)
	}
	if len(req) > 0 {
		out.Requests = req
	}
	if r.GPU > 0 {
		out.Limits = apiv1.ResourceList{apiv1.ResourceName(r.GPUResource): *resource.NewQuantity(int64(r.GPU), resource.DecimalSI)}
	}
	return out
}

// render writes t with Argo's references to workflow parameters.
func render(t ir.Text) string {
	return t.Render(parameterRef)
}

// renderContainer writes t for a container field, which Kubernetes expands.
func renderContainer(t ir.Text) string {
	return t.RenderContainer(parameterRef)
}

func parameterRef(param string) string {
	return "{{workflow.parameters." + param + "}}"
}

// envVar sets a variable from its value or from a key of a Secret.
func envVar(e ir.EnvVar) apiv1.EnvVar {
	if e.Secret == nil {
		return apiv1.EnvVar{Name: e.Name, Value: renderContainer(e.Value)}
	}
	return apiv1.EnvVar{Name: e.Name, ValueFrom: &apiv1.EnvVarSource{SecretKeyRef: &apiv1.SecretKeySelector{
		LocalObjectReference: apiv1.LocalObjectReference{Name: e.Secret.Secret}, Key: e.Secret.Key,
	}}}
}

// checkText refuses user text that Argo's template expander would read.
func checkText(p *ir.Pipeline) error {
	var bad []string
	check := func(step, what, s string) {
		if strings.Contains(s, "{{") {
			bad = append(bad, fmt.Sprintf("%s: %s %q contains Argo template syntax {{...}}, which Argo would expand at run time; remove it", step, what, s))
		}
	}
	for _, s := range p.Steps {
		where := "step " + s.Name
		check(where, "image", s.Image)
		for _, c := range s.Command {
			check(where, "command", c)
		}
		for _, a := range s.Args {
			check(where, "argument", a.Prefix+a.Value.Render(func(string) string { return "" }))
		}
		for _, e := range s.Env {
			check(where, "env "+e.Name, e.Value.Render(func(string) string { return "" }))
		}
		for k, v := range s.NodeSelector {
			check(where, "nodeSelector", k+": "+v)
		}
		for _, t := range s.Tolerations {
			check(where, "toleration", t.Key+"="+t.Value)
		}
	}
	for _, p := range p.Params {
		for _, v := range append([]string{p.Description}, p.Enum...) {
			check("params."+p.Name, "value", v)
		}
		if p.Default != nil {
			check("params."+p.Name, "default", *p.Default)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		return fmt.Errorf("%s", strings.Join(bad, "\n"))
	}
	return nil
}

// mustQuantity parses a quantity the compiler has already checked. A bad
// one here is a compiler bug; it becomes a zero quantity, which the
// validator and the tests catch, rather than a crash.
func mustQuantity(s string) resource.Quantity {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}
	}
	return q
}
