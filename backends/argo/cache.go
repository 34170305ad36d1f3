package argo

import (
	"slices"
	"strings"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"
	apiv1 "k8s.io/api/core/v1"

	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// A run with a cache (ir.ObjectStore.Cache) moves its data as Tekton
// does, with the Mover's containers in the platform's tool image, not
// with Argo's artifacts: a cached step uploads into its entry of the
// cache, and a step after it fetches from the entry its key's manifest
// names, which no artifact location written in the Workflow can say.
// Each cached step's DAG task waits for a task of its own, the key task
// (kube.KeyScript), and runs when its hit parameter is 'false'. Argo
// skips it otherwise, and the tasks that wait for it still run: a
// dependency written in dependencies is met when the task Succeeded,
// was Skipped or Daemoned (expandDependency, workflow/common/
// ancestry.go; a task whose when is false is Skipped, executeDAGTask,
// workflow/controller/dag.go; v3.7.18 and v4.0.7). when is evaluated by
// govaluate once the references in it are replaced (shouldExecute,
// workflow/controller/steps.go): quoted, the key task's answer is a
// string compared as one.

const (
	// keyOutput and hitOutput name the key task's output parameters.
	keyOutput = "key"
	hitOutput = "hit"
)

// cached says whether p keeps a cache.
func cached(p *ir.Pipeline) bool { return p.ObjectStore != nil && p.ObjectStore.Cache != nil }

// keyParam names the input parameter that carries the key of the cached
// step named step.
func keyParam(step string) string { return "mlcube-key-" + step }

// moverOf is the Mover of the containers of step s's template in a run
// with a cache: it refers to the digests and keys the DAG task gives
// the template (moverArguments).
func moverOf(p *ir.Pipeline, s *ir.Step, m mounts, t *wfv1.Template) kube.Mover {
	// The movers write where the step's user only reads, what they
	// fetch: a mount of the pod's own is writable; a claim's stays as
	// the step mounts it.
	var own []apiv1.VolumeMount
	for _, mt := range s.Mounts {
		if !m.isShared(mt) {
			own = append(own, apiv1.VolumeMount{Name: mt.Volume, MountPath: mt.MountPath,
				SubPath: mt.SubPath.Render(parameterRef), ReadOnly: mt.ReadOnly && !m.perPod[mt.Volume]})
		}
	}
	mv := kube.Mover{
		RunID:      "{{workflow.uid}}",
		Ref:        parameterRef,
		Want:       func(f ir.Fetch) string { return "{{inputs.parameters." + digestParam(f.Name) + "}}" },
		Key:        func(step string) string { return "{{inputs.parameters." + keyParam(step) + "}}" },
		DigestFile: func(u ir.Upload) string { return digestsPath + "/" + u.Name },
		Mounts:     own,
		// {{retries}} is set in a template Argo retries alone
		// (processNodeRetries, workflow/controller/operator.go).
		Attempt: "0",
	}
	if t.RetryStrategy != nil {
		mv.Attempt = "{{retries}}"
	}
	if s.Key != nil {
		mv.KeyOut = func(name string) string { return "{{inputs.parameters." + keyOutParam(name) + "}}" }
	}
	return mv
}

// keyOutParam names the input parameter of a cached step's template that
// carries the answer name of its key task (kube.KeyOutputs).
func keyOutParam(name string) string { return "mlcube-keyout-" + name }

// moverTemplate is objectTemplate in a run with a cache: the user's
// container in a containerSet, after a container that fetches and
// checks its inputs, before main, which records the sha256 of each
// upload and uploads it (and, for a cached step, writes its key's
// manifest). Each container mounts the shared mounts from the set
// (podMounts) and its others itself.
func moverTemplate(p *ir.Pipeline, s *ir.Step, name string) wfv1.Template {
	t := template(p, s, name, nil)
	m := podMounts(p, s)
	mv := moverOf(p, s, m, &t)
	user := wfv1.ContainerNode{Container: *t.Container}
	user.VolumeMounts = m.own(user.VolumeMounts)
	t.Container = nil
	set := &wfv1.ContainerSetTemplate{}
	if len(s.Fetches) > 0 {
		t.Volumes = append(t.Volumes, kube.ScratchVolumeSpec(p))
		m.shared = append(m.shared, apiv1.VolumeMount{Name: kube.ScratchVolume, MountPath: kube.ScratchPath})
		fetch := mv.FetchContainer(p, s, verifyName)
		fetch.VolumeMounts = m.own(fetch.VolumeMounts)
		fetch.ImagePullPolicy = apiv1.PullPolicy(s.ImagePullPolicy)
		set.Containers = append(set.Containers, wfv1.ContainerNode{Container: fetch})
		user.Dependencies = []string{verifyName}
	}
	if len(s.Uploads) > 0 {
		user.Name = runName
		t.Volumes = append(t.Volumes,
			apiv1.Volume{Name: digestsVolume, VolumeSource: apiv1.VolumeSource{EmptyDir: &apiv1.EmptyDirVolumeSource{}}})
		m.shared = append(m.shared, apiv1.VolumeMount{Name: digestsVolume, MountPath: digestsPath})
		upload := mv.UploadContainer(p, s, containerName)
		upload.VolumeMounts = m.own(upload.VolumeMounts)
		upload.ImagePullPolicy = apiv1.PullPolicy(s.ImagePullPolicy)
		set.Containers = append(set.Containers, user, wfv1.ContainerNode{Container: upload, Dependencies: []string{runName}})
		for _, u := range s.Uploads {
			t.Outputs.Parameters = append(t.Outputs.Parameters,
				wfv1.Parameter{Name: digestParam(u.Name), ValueFrom: &wfv1.ValueFrom{Path: digestsPath + "/" + u.Name}})
		}
	} else {
		set.Containers = append(set.Containers, user)
	}
	set.VolumeMounts = m.shared
	t.ContainerSet = set
	t.Inputs.Parameters = moverInputs(p, s)
	return t
}

// moverInputs are the input parameters of step s's template in a run
// with a cache: the sha256 of each upload of a step the cache does not
// keep that s fetches, then the key of s and of each cached step whose
// upload s fetches.
func moverInputs(p *ir.Pipeline, s *ir.Step) []wfv1.Parameter {
	var out []wfv1.Parameter
	args := moverArguments(p, s)
	for _, a := range args.Parameters {
		out = append(out, wfv1.Parameter{Name: a.Name})
	}
	return out
}

// moverArguments are what the DAG task of step s gives its template in
// a run with a cache (moverInputs).
func moverArguments(p *ir.Pipeline, s *ir.Step) wfv1.Arguments {
	var args wfv1.Arguments
	keys := []string{}
	if s.Key != nil {
		keys = append(keys, s.Name)
	}
	for _, f := range s.Fetches {
		switch {
		case f.From == nil:
		case kube.Cached(p, *f.From):
			keys = appendOnce(keys, f.From.Step)
		default:
			args.Parameters = append(args.Parameters, wfv1.Parameter{Name: digestParam(f.Name),
				Value: wfv1.AnyStringPtr("{{tasks." + f.From.Step + ".outputs.parameters." + digestParam(f.From.Name) + "}}")})
		}
	}
	for _, step := range keys {
		args.Parameters = append(args.Parameters, wfv1.Parameter{Name: keyParam(step),
			Value: wfv1.AnyStringPtr("{{tasks." + step + ir.KeyTaskSuffix + ".outputs.parameters." + keyOutput + "}}")})
	}
	if s.Key != nil {
		for _, name := range kube.KeyOutputs(p, s) {
			args.Parameters = append(args.Parameters, wfv1.Parameter{Name: keyOutParam(name),
				Value: wfv1.AnyStringPtr("{{tasks." + s.Name + ir.KeyTaskSuffix + ".outputs.parameters." + name + "}}")})
		}
	}
	return args
}

// appendOnce appends s to list unless it holds it.
func appendOnce(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// keyTemplate makes the key of step s and looks it up (kube.KeyScript),
// in a pod that asks for none of the step's GPUs and mounts none of its
// volumes but the claims it reads, read-only where the step mounts them
// (the workflow's volumes: workflow.go); its outputs are the key and
// the answer. The key pod waits for what the step waits for, so it
// mounts a claim in the order the step does (ir.MountUse).
func keyTemplate(p *ir.Pipeline, s *ir.Step, name string) wfv1.Template {
	mv := kube.Mover{
		RunID: "{{workflow.uid}}",
		Ref:   parameterRef,
		Want:  func(f ir.Fetch) string { return "{{inputs.parameters." + digestParam(f.Name) + "}}" },
		Key:   func(step string) string { return "{{inputs.parameters." + keyParam(step) + "}}" },
	}
	for _, mt := range s.Key.Claims {
		mv.Mounts = append(mv.Mounts, apiv1.VolumeMount{Name: mt.Volume, MountPath: mt.MountPath,
			SubPath: mt.SubPath.Render(parameterRef), ReadOnly: true})
	}
	c := mv.KeyContainer(p, s, containerName, digestsPath)
	c.ImagePullPolicy = apiv1.PullPolicy(s.ImagePullPolicy)
	c.VolumeMounts = append(c.VolumeMounts, apiv1.VolumeMount{Name: digestsVolume, MountPath: digestsPath})
	t := wfv1.Template{
		Name:            name,
		Metadata:        wfv1.Metadata{Labels: kube.Labels(p.Labels, s.Labels)},
		Container:       &c,
		SecurityContext: kube.PodSecurityContext(p, s.SecurityContext),
		Volumes: []apiv1.Volume{{Name: digestsVolume,
			VolumeSource: apiv1.VolumeSource{EmptyDir: &apiv1.EmptyDirVolumeSource{}}}},
		PodSpecPatch: podSpecPatch(executorPatch(p, s.SecurityContext)),
	}
	for _, name := range append([]string{keyOutput, hitOutput}, kube.KeyOutputs(p, s)...) {
		t.Outputs.Parameters = append(t.Outputs.Parameters,
			wfv1.Parameter{Name: name, ValueFrom: &wfv1.ValueFrom{Path: digestsPath + "/" + name}})
	}
	if slices.ContainsFunc(c.VolumeMounts, func(vm apiv1.VolumeMount) bool { return vm.Name == kube.ScratchVolume }) {
		t.Volumes = append(t.Volumes, kube.ScratchVolumeSpec(p))
	}
	for _, a := range keyArguments(p, s).Parameters {
		t.Inputs.Parameters = append(t.Inputs.Parameters, wfv1.Parameter{Name: a.Name})
	}
	return t
}

// keyArguments are what the key task of step s gives its template: the
// sha256 of each upload of a step the cache does not keep that s
// fetches, and the key of each cached step whose upload it fetches.
func keyArguments(p *ir.Pipeline, s *ir.Step) wfv1.Arguments {
	args := moverArguments(p, s)
	var out wfv1.Arguments
	for _, a := range args.Parameters {
		if a.Name != keyParam(s.Name) && !strings.HasPrefix(a.Name, keyOutParam("")) {
			out.Parameters = append(out.Parameters, a)
		}
	}
	return out
}

// keyTask is the DAG task of step s's key task, which runs template
// name; cachedTask makes task, the step's own, wait for it and run only
// on a miss.
func keyTask(s *ir.Step, name string) wfv1.DAGTask {
	return wfv1.DAGTask{Name: s.Name + ir.KeyTaskSuffix, Template: name, Dependencies: s.Dependencies}
}

func cachedTask(task *wfv1.DAGTask, s *ir.Step) {
	key := s.Name + ir.KeyTaskSuffix
	task.Dependencies = append(append([]string(nil), task.Dependencies...), key)
	task.When = "'{{tasks." + key + ".outputs.parameters." + hitOutput + "}}' == 'false'"
}

// provenanceTemplate writes the run's provenance (kube.ProvenanceScript)
// once every step that makes a result has ended, or was skipped; its
// inputs are the sha256 each of those steps recorded, or its key.
func provenanceTemplate(p *ir.Pipeline, name string) (wfv1.Template, wfv1.DAGTask) {
	mv := kube.Mover{
		RunID: "{{workflow.uid}}",
		Ref:   parameterRef,
		Want:  func(f ir.Fetch) string { return "{{inputs.parameters." + digestParam(f.Name) + "}}" },
		Key:   func(step string) string { return "{{inputs.parameters." + keyParam(step) + "}}" },
	}
	c := mv.ProvenanceContainer(p, "argo", containerName)
	t := wfv1.Template{
		Name:            name,
		Metadata:        wfv1.Metadata{Labels: kube.Labels(p.Labels)},
		Container:       &c,
		SecurityContext: kube.PodSecurityContext(p, nil),
		PodSpecPatch:    podSpecPatch(executorPatch(p, nil)),
	}
	task := wfv1.DAGTask{Name: ir.ProvenanceTask, Template: name}
	_, subjects := kube.ProvenanceOf(p, "argo")
	for i, sub := range subjects {
		task.Dependencies = appendOnce(task.Dependencies, sub.Step.Name)
		param := wfv1.Parameter{Name: digestParam(kube.SubjectFetch(i, sub).Name),
			Value: wfv1.AnyStringPtr("{{tasks." + sub.Step.Name + ".outputs.parameters." + digestParam(sub.Upload.Name) + "}}")}
		if sub.Step.Key != nil {
			param = wfv1.Parameter{Name: keyParam(sub.Step.Name), Value: wfv1.AnyStringPtr("{{tasks." + sub.Step.Name +
				ir.KeyTaskSuffix + ".outputs.parameters." + keyOutput + "}}")}
		}
		if !slices.ContainsFunc(task.Arguments.Parameters, func(q wfv1.Parameter) bool { return q.Name == param.Name }) {
			task.Arguments.Parameters = append(task.Arguments.Parameters, param)
			t.Inputs.Parameters = append(t.Inputs.Parameters, wfv1.Parameter{Name: param.Name})
		}
	}
	return t, task
}
