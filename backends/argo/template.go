package argo

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

const (
	containerName = "main"
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
func buildTemplates(p *ir.Pipeline) ([]wfv1.Template, []wfv1.DAGTask, error) {
	groups, byStep := groupSteps(p)
	var templates []wfv1.Template
	for _, g := range groups {
		if movesData(g.steps[0]) && cached(p) {
			templates = append(templates, moverTemplate(p, g.steps[0], g.name))
			continue
		}
		if movesData(g.steps[0]) {
			templates = append(templates, objectTemplate(p, g.steps[0], g.name))
			continue
		}
		templates = append(templates, template(p, g.steps[0], g.name, g.varying))
	}
	var tasks []wfv1.DAGTask
	configs, err := configsTemplate(p, templates)
	if err != nil {
		return nil, nil, err
	}
	if configs != nil {
		templates = append(templates, *configs)
	}
	claims, err := claimTemplatesTemplates(p, templates)
	if err != nil {
		return nil, nil, err
	}
	templates = append(templates, claims...)
	for _, s := range p.Steps {
		if s.Kind != ir.Container {
			name := uniqueName(s.Name, templates)
			ts, err := distributedTemplates(p, s, name, templates)
			if err != nil {
				return nil, nil, err
			}
			templates = append(templates, ts...)
			tasks = append(tasks, wfv1.DAGTask{Name: s.Name, Template: name, Dependencies: s.Dependencies})
			continue
		}
		g := byStep[s]
		task := wfv1.DAGTask{Name: s.Name, Template: g.name, Dependencies: s.Dependencies, Arguments: fetchArguments(p, s)}
		if cached(p) {
			task.Arguments = moverArguments(p, s)
		}
		if s.Key != nil {
			key := keyTemplate(p, s, uniqueName(s.Name+ir.KeyTaskSuffix, templates))
			templates = append(templates, key)
			k := keyTask(s, key.Name)
			k.Arguments = keyArguments(p, s)
			tasks = append(tasks, k)
			cachedTask(&task, s)
		}
		for _, a := range s.Args {
			if a.Param != "" && g.varying[a.Param] {
				task.Arguments.Parameters = append(task.Arguments.Parameters,
					wfv1.Parameter{Name: a.Param, Value: wfv1.AnyStringPtr(renderContainer(a.Value))})
			}
		}
		tasks = append(tasks, task)
	}
	if p.Provenance != nil {
		t, task := provenanceTemplate(p, uniqueName(ir.ProvenanceTask, templates))
		templates, tasks = append(templates, t), append(tasks, task)
	}
	return templates, afterClaimTemplates(afterConfigs(tasks, configs), claims), nil
}

// groupSteps groups steps by cube task and by everything but their paths.
// A step that fetches or uploads is a group of its own.
func groupSteps(p *ir.Pipeline) ([]*group, map[*ir.Step]*group) {
	var groups []*group
	byShape := map[string]*group{}
	perTemplate := map[string]int{}
	for _, s := range p.Steps {
		if s.Kind != ir.Container {
			continue
		}
		shape := s.Template + "\x00\x00" + s.Name
		if !movesData(s) {
			raw, _ := json.Marshal(template(p, s, s.Template, paramsOf(s)))
			shape = s.Template + "\x00" + string(raw)
		}
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
// parameter read the template's input of that name. Argo copies the
// template's labels and priorityClassName to the step's pod
// (workflow/controller/workflowpod.go, createWorkflowPod, v3.7.15 and
// v4.0.2), so a queued step's pod carries Kueue's queue label, and
// Kueue's pod integration gates it until its workload is admitted.
func template(p *ir.Pipeline, s *ir.Step, name string, varying map[string]bool) wfv1.Template {
	t := wfv1.Template{
		Name:              name,
		Metadata:          wfv1.Metadata{Labels: kube.Labels(p.Labels, s.Labels, kube.QueueLabels(s))},
		PriorityClassName: s.PriorityClassName,
		NodeSelector:      s.NodeSelector,
		Container:         container(p, s, varying),
		Tolerations:       kube.Tolerations(s.Tolerations),
		SecurityContext:   kube.PodSecurityContext(p, s.SecurityContext),
		Volumes:           kube.ShmVolumes(s),
		PodSpecPatch:      podSpecPatch(claimsPatch(s.Resources), executorPatch(p, s.SecurityContext)),
	}
	for _, a := range s.Args {
		if a.Param != "" && varying[a.Param] {
			t.Inputs.Parameters = append(t.Inputs.Parameters, wfv1.Parameter{Name: a.Param})
		}
	}
	if c := kube.CreateFiles(p, s, parameterRef); c != nil {
		// Argo runs a template's init containers after its own init
		// container and before the main one (createWorkflowPod and
		// addInitContainers, workflow/controller/workflowpod.go, v3.7.18).
		t.InitContainers = []wfv1.UserContainer{{Container: *c}}
	}
	if c := foldersInit(p, s, varying); c != nil {
		t.InitContainers = append(t.InitContainers, wfv1.UserContainer{Container: *c})
	}
	retryAndTimeout(&t, s)
	return t
}

// preempted is the retry expression of a queued step without retries of
// its own: true when its last try's pod was deleted or killed under it,
// as Kueue's preemption deletes it (kube.PreemptionRetries), and false
// when its program failed. Argo marks a node Error, "pod deleted", when
// its pod is gone before it saw the pod end (podReconciliation), and
// Failed with the message "<container>: Error (exit code N)" of the
// first main container that failed when it saw the pod fail
// (inferFailedReason): 143 for the SIGTERM of a deletion, 137 for the
// SIGKILL after the grace period. The message, not lastRetry.exitCode,
// which is only a container named main's (getExitCode), also covers a
// containerSet's containers. An OOM kill ("OOMKilled (exit code 137)")
// is not tried again, nor a step's deadline, whose message is the
// pod's own ("Pod was active on the node longer than the specified
// deadline"). Argo evaluates it over lastRetry.status and
// lastRetry.message (buildRetryStrategyLocalScope, processNodeRetries;
// workflow/controller/operator.go, v3.7.18 and v4.0.7).
const preempted = `lastRetry.status == "Error" || lastRetry.message matches "\\(exit code 1(37|43)\\)" && ` +
	`!(lastRetry.message contains "OOMKilled")`

// retryAndTimeout sets the step's retry strategy and timeout on t: a
// queued container step without retries of its own is tried again when
// Kueue preempts it (preempted).
//
// The policy is Always: Argo's default, OnFailure, retries a node that
// Failed (its container exited non-zero, or its deadline passed) but not
// one in Error, which is what a pod deleted under it gives (node loss, a
// drain, a spot reclaim, Kueue's preemption): the switch on
// RetryPolicyActual in processNodeRetries, workflow/controller/operator.go
// (v3.7.18 and v4.0.7). Tekton retries a TaskRun whatever failed it, so
// with Always a step's retries cover the same failures on both engines.
func retryAndTimeout(t *wfv1.Template, s *ir.Step) {
	if kube.RetriedOnPreemption(s) {
		limit := intstr.FromInt(kube.PreemptionRetries)
		t.RetryStrategy = &wfv1.RetryStrategy{Limit: &limit, RetryPolicy: wfv1.RetryPolicyAlways, Expression: preempted}
	}
	if s.Retry != nil {
		limit := intstr.FromInt(s.Retry.Limit)
		t.RetryStrategy = &wfv1.RetryStrategy{Limit: &limit, RetryPolicy: wfv1.RetryPolicyAlways}
		if s.Retry.Backoff > 0 {
			t.RetryStrategy.Backoff = &wfv1.Backoff{Duration: s.Retry.Backoff.String()}
		}
	}
	if s.Timeout > 0 {
		secs := intstr.FromInt(int(s.Timeout.Seconds()))
		t.ActiveDeadlineSeconds = &secs
	}
}

// container is the step's container: the MLCube runner's contract.
func container(p *ir.Pipeline, s *ir.Step, varying map[string]bool) *apiv1.Container {
	c := &apiv1.Container{
		Name:            containerName,
		Image:           s.Image,
		ImagePullPolicy: apiv1.PullPolicy(s.ImagePullPolicy),
		Command:         kube.Command(s.Command),
		Env:             kube.Env(s.Env, parameterRef),
		VolumeMounts:    kube.VolumeMounts(s, parameterRef),
		Resources:       kube.Resources(s.Resources),
		SecurityContext: kube.StepSecurity(p),
	}
	for _, a := range s.Args {
		if a.Param != "" && varying[a.Param] {
			c.Args = append(c.Args, ir.KubeLiteral(a.Prefix)+"{{inputs.parameters."+a.Param+"}}")
			continue
		}
		c.Args = append(c.Args, kube.Arg(a, parameterRef))
	}
	return c
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

// checkText refuses user text that Argo's template expander would read.
func checkText(p *ir.Pipeline) error {
	var bad []string
	check := func(step, what, s string) {
		if strings.Contains(s, "{{") {
			bad = append(bad, fmt.Sprintf("%s: %s %q contains Argo template syntax {{...}}, which Argo would expand at run "+
				"time; remove it", step, what, s))
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
		for _, f := range s.Fetches {
			if f.URL != nil {
				check(where, "input URL", f.URL.Raw)
			}
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
