package argo

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	wfv1 "github.com/argoproj/argo-workflows/v3/pkg/apis/workflow/v1alpha1"

	"github.com/mlcube-compile/mlcube-compile/backends/emit"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/distributed"
	"github.com/mlcube-compile/mlcube-compile/backends/internal/kube"
	"github.com/mlcube-compile/mlcube-compile/compiler/ir"
)

// workflowName is Argo's reference to the running Workflow's name.
const workflowName = "{{workflow.name}}"

// jobParam carries the created job's name between the templates of an
// adaptive Dask step.
const jobParam = "job"

// claimName is the name a volume's claim has while the Workflow runs:
// Argo names the claims it creates after the Workflow.
func claimName(v ir.Volume) string {
	if v.Create != nil {
		return workflowName + "-" + v.Name
	}
	return v.ClaimName
}

// distributedTemplates makes the templates that run a distributed step,
// and returns them with the one the DAG task runs first. That one is a
// steps template, retried as the step says: each attempt first deletes
// what an earlier attempt of the step left, waiting until its pods are
// gone (a timed-out or lost attempt's job may still run), then creates
// the job and waits for it. taken holds the names already used.
func distributedTemplates(p *ir.Pipeline, s *ir.Step, name string, taken []wfv1.Template) ([]wfv1.Template, error) {
	job, err := distributed.Build(p, s, claimName, workflowName)
	if err != nil {
		return nil, err
	}
	doc, err := job.YAML()
	if err != nil {
		return nil, err
	}
	names := func(suffixes ...string) []string {
		var out []string
		for _, suffix := range suffixes {
			n := uniqueName(name+"-"+suffix, taken)
			taken = append(taken, wfv1.Template{Name: n})
			out = append(out, n)
		}
		return out
	}
	meta := wfv1.Metadata{Labels: kube.Labels(p.Labels, s.Labels)}
	// A pod stuck terminating on a lost node would hold the delete for a
	// week (kubectl's default); after ten minutes the attempt fails and
	// the step's retries decide.
	clean := deleteJobs(names("clean")[0], meta, job.Kind(), distributed.Selector(s, workflowName), "--cascade=foreground",
		"--wait=true", "--timeout=10m")
	cleanDeadline := intstr.FromInt(11 * 60)
	clean.ActiveDeadlineSeconds = &cleanDeadline
	create := wfv1.Template{
		Metadata: meta,
		Resource: &wfv1.ResourceTemplate{
			Action: "create", SetOwnerReference: true, Manifest: doc,
			SuccessCondition: job.SuccessCondition, FailureCondition: job.FailureCondition,
		},
	}
	if job.SuccessCondition == "" {
		if create, err = waitTemplate(p, s, job, meta); err != nil {
			return nil, err
		}
	}
	outer := wfv1.Template{Name: name,
		Steps: []wfv1.ParallelSteps{{Steps: []wfv1.WorkflowStep{{Name: "clean", Template: clean.Name}}}}}
	retryAndTimeout(&outer, &ir.Step{Retry: s.Retry})
	if job.Autoscaler == nil {
		create.Name = names("run")[0]
		retryAndTimeout(&create, &ir.Step{Timeout: s.Timeout})
		outer.Steps = append(outer.Steps,
			wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{{Name: "run", Template: create.Name}}})
		return []wfv1.Template{outer, clean, create}, nil
	}
	return adaptiveDaskTemplates(p, s, job, meta, [3]wfv1.Template{outer, clean, create},
		names("create", "autoscale", "wait"))
}

// waitTemplate runs the wait script in the platform's kubectl image, for
// a job whose end Argo's resource conditions cannot see (a TrainJob's is
// in status.conditions, a list, which the label-selector syntax of
// successCondition cannot index: matchConditions,
// workflow/executor/resource.go, v3.7.18). The job is owned by the
// template's pod, and deleted when the script is stopped or fails.
//
// The template mounts its account's token: kubectl, its only program,
// deletes, creates and reads the job with it. Under --emit-rbac the
// Workflow mounts no token (tokenForExecutorOnly), and Argo gives its
// executor's token only to its own containers, never to a container
// template's main (setupServiceAccount, workflow/controller/workflowpod.go,
// v3.7.18 and v4.0.7: a template's automountServiceAccountToken wins over
// the Workflow's). It runs no user code.
func waitTemplate(p *ir.Pipeline, s *ir.Step, job *distributed.Job, meta wfv1.Metadata) (wfv1.Template, error) {
	manifest, err := distributed.OwnedManifest(job, s, []string{workflowName},
		"shrink what the job carries (its env and args)")
	if err != nil {
		return wfv1.Template{}, err
	}
	return wfv1.Template{
		Metadata:                     meta,
		AutomountServiceAccountToken: ptr.To(true),
		Container: &corev1.Container{
			Name:  containerName,
			Image: p.KubectlImage, ImagePullPolicy: corev1.PullPolicy(s.ImagePullPolicy),
			Command:         []string{"sh", "-c", distributed.WaitScript},
			Env:             distributed.WaitEnv(job, s, manifest, workflowName),
			Resources:       kube.Resources(kube.HelperResources()),
			SecurityContext: kube.HelperSecurity(p, s.SecurityContext),
		},
		PodSpecPatch: executorPatch(p, nil),
	}, nil
}

// adaptiveDaskTemplates completes the templates of an adaptive Dask step,
// given its outer, clean and create templates and the names of the ones
// it adds: create the job, then its autoscaler, and wait for the job,
// each knowing the name the API server gave it.
func adaptiveDaskTemplates(p *ir.Pipeline, s *ir.Step, job *distributed.Job, meta wfv1.Metadata, made [3]wfv1.Template,
	n []string) ([]wfv1.Template, error) {
	outer, clean, create := made[0], made[1], made[2]
	create.Name = n[0]
	create.Resource.SuccessCondition, create.Resource.FailureCondition = "", ""
	create.Outputs.Parameters = []wfv1.Parameter{{Name: jobParam,
		ValueFrom: &wfv1.ValueFrom{JSONPath: "{.metadata.name}"}}}
	input := "{{inputs.parameters." + jobParam + "}}"
	scaler, err := emit.YAML(job.Autoscaler.Object(input))
	if err != nil {
		return nil, err
	}
	wanted, err := emit.YAML(map[string]any{
		"apiVersion": "kubernetes.dask.org/v1", "kind": "DaskJob",
		"metadata": namespaced(input, p.Namespace),
	})
	if err != nil {
		return nil, err
	}
	inputs := wfv1.Inputs{Parameters: []wfv1.Parameter{{Name: jobParam}}}
	autoscale := wfv1.Template{
		Name: n[1], Metadata: meta, Inputs: inputs,
		Resource: &wfv1.ResourceTemplate{Action: "create", SetOwnerReference: true, Manifest: scaler},
	}
	wait := wfv1.Template{
		Name: n[2], Metadata: meta, Inputs: inputs,
		Resource: &wfv1.ResourceTemplate{
			Action: "get", Manifest: wanted,
			SuccessCondition: job.SuccessCondition, FailureCondition: job.FailureCondition,
		},
	}
	retryAndTimeout(&wait, &ir.Step{Timeout: s.Timeout})
	created := wfv1.Arguments{Parameters: []wfv1.Parameter{{Name: jobParam,
		Value: wfv1.AnyStringPtr("{{steps.create.outputs.parameters." + jobParam + "}}")}}}
	outer.Steps = append(outer.Steps,
		wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{{Name: "create", Template: create.Name}}},
		wfv1.ParallelSteps{Steps: []wfv1.WorkflowStep{
			{Name: "autoscale", Template: autoscale.Name, Arguments: created},
			{Name: "wait", Template: wait.Name, Arguments: created},
		}},
	)
	return []wfv1.Template{outer, clean, create, autoscale, wait}, nil
}

// deleteJobs is a resource template that deletes the objects (jobs, or
// pods) of kinds that selector selects. With no manifest, Argo's executor runs
// "kubectl delete --ignore-not-found <flags> -o name" in-process
// (workflow/executor/resource.go, getKubectlArguments, v3.7.15), which its
// validator allows for delete (workflow/validate/validate.go).
func deleteJobs(name string, meta wfv1.Metadata, kinds, selector string, flags ...string) wfv1.Template {
	return wfv1.Template{
		Name: name, Metadata: meta,
		Resource: &wfv1.ResourceTemplate{Action: "delete",
			Flags: append([]string{kinds, "--selector=" + selector}, flags...)},
	}
}

// exitHandler deletes, when the run did not succeed (it failed, timed out
// or was stopped), what may still hold the run's GPUs: its pods still
// Pending or Running, and the jobs of its distributed steps (resource
// steps end with their pods, not with their jobs). Its steps are skipped
// when the run succeeds, so that run starts no pod for them.
//
// A stop fails each running step's node and signals its containers once,
// by exec, ignoring a failed exec (applyExecutionControl,
// workflow/controller/exec_control.go; signalContainers,
// workflow/controller/pod/queue.go, v3.7.18 and v4.0.7); the SIGKILL it
// queues a grace period later finds no pod, since the ended step's pod
// is labelled completed and the pod informer watches only incomplete ones
// (incompleteReq, workflow/controller/pod/controller.go). So a program
// that outlives that signal ran on, holding its GPUs. Deleting its pod
// hands its end to the kubelet: SIGTERM, and SIGKILL after the pod's
// terminationGracePeriodSeconds. (The run ends, and the handler runs,
// once the step's wait container has reported its outputs, which it does
// on the same signal, or 10 minutes after the stop:
// TASK_RESULT_TIMEOUT_DURATION, workflow/controller/taskresult.go.) The
// handler's own pods are left out by the label Argo gives every pod of an
// onExit node (workflows.argoproj.io/on-exit, createWorkflowPod,
// workflow/controller/workflowpod.go).
//
// Argo runs onExit when a Workflow is stopped (spec.shutdown: Stop), but
// not when it is terminated (pkg/apis/workflow/v1alpha1/workflow_types.go,
// ShutdownStrategy.ShouldExecute); the jobs are owned by the Workflow, so
// deleting the Workflow deletes them in every case.
func exitHandler(p *ir.Pipeline, taken []wfv1.Template) (string, []wfv1.Template) {
	name := uniqueName("cleanup", taken)
	taken = append(taken, wfv1.Template{Name: name})
	meta := wfv1.Metadata{Labels: p.Labels}
	pods := deleteJobs(uniqueName(name+"-pods", taken), meta, "pods", runPods,
		"--field-selector="+unfinished, "--wait=false")
	out := []wfv1.Template{{}, pods}
	steps := []wfv1.WorkflowStep{{Name: "delete-pods", Template: pods.Name, When: unsucceeded}}
	if kinds := distributed.Kinds(p); kinds != "" {
		taken = append(taken, pods)
		jobs := deleteJobs(uniqueName(name+"-jobs", taken), meta, kinds,
			distributed.RunLabel+"="+workflowName, "--wait=false")
		out = append(out, jobs)
		steps = append(steps, wfv1.WorkflowStep{Name: "delete-jobs", Template: jobs.Name, When: unsucceeded})
	}
	out[0] = wfv1.Template{Name: name, Steps: []wfv1.ParallelSteps{{Steps: steps}}}
	return name, out
}

// The exit handler's selectors: the run's pods but the handler's own
// (Argo labels each pod with its Workflow's name, createWorkflowPod), and
// the pods not yet ended (a field selector takes only = and !=).
const (
	runPods     = "workflows.argoproj.io/workflow=" + workflowName + ",!workflows.argoproj.io/on-exit"
	unfinished  = "status.phase!=Succeeded,status.phase!=Failed"
	unsucceeded = "{{workflow.status}} != Succeeded"
)

func namespaced(name, namespace string) map[string]any {
	meta := map[string]any{"name": name}
	if namespace != "" {
		meta["namespace"] = namespace
	}
	return meta
}

// RBAC is what the Workflow's service account sa needs: to create, read
// and delete (by label, waiting until they are gone) the jobs of
// distributed steps, what every Argo executor needs since v3.4
// (workflowtaskresults), to delete the run's unfinished pods, and what
// the pod that deletes the run's artifacts needs. Owner references to the
// Workflow also need update on workflows/finalizers where the API server
// enforces owner reference permissions.
func RBAC(p *ir.Pipeline, sa string) []any {
	rules := append(distributed.Rules(p, []string{"create", "delete", "get", "list", "watch"}),
		distributed.Rule{Group: "argoproj.io", Resources: []string{"workflowtaskresults"},
			Verbs: []string{"create", "patch"}},
		// The exit handler deletes the run's unfinished pods by selector:
		// kubectl lists them, then deletes each, and with --wait=false
		// neither gets nor watches them (pkg/cmd/delete/delete.go,
		// k8s.io/kubectl v0.33.1, which Argo v3.7.18's executor links).
		distributed.Rule{Group: "", Resources: []string{"pods"}, Verbs: []string{"delete", "list"}})
	owns := p.Config != nil || len(p.ResourceClaimTemplates) > 0
	for _, s := range p.Steps {
		owns = owns || s.Kind != ir.Container
	}
	if owns {
		rules = append(rules, distributed.Rule{Group: "argoproj.io", Resources: []string{"workflows/finalizers"},
			Verbs: []string{"update"}})
	}
	if p.Config != nil {
		// The first task applies the run's ConfigMap.
		rules = append(rules, distributed.Rule{Group: "", Resources: []string{"configmaps"},
			Verbs: []string{"create", "get", "patch"}})
	}
	if len(p.ResourceClaimTemplates) > 0 {
		// The first tasks apply the run's ResourceClaimTemplates; the
		// claims made from them are the resource-claim controller's.
		rules = append(rules, distributed.Rule{Group: "resource.k8s.io", Resources: []string{"resourceclaimtemplates"},
			Verbs: []string{"create", "get", "patch"}})
	}
	if collectsArtifacts(p) {
		// The pod that deletes the run's artifacts runs as sa
		// (objectStoreSpec); what it needs is Argo's artifactgc Role
		// (manifests/quick-start/base/artifactgc-role.yaml, v3.7.18).
		rules = append(rules,
			distributed.Rule{Group: "argoproj.io", Resources: []string{"workflowartifactgctasks"},
				Verbs: []string{"list", "watch"}},
			distributed.Rule{Group: "argoproj.io", Resources: []string{"workflowartifactgctasks/status"},
				Verbs: []string{"patch"}})
	}
	return append(distributed.RBAC(p, sa, rules), executorToken(p, sa))
}

// executorToken is the Secret that holds sa's token for Argo's executor:
// with automountServiceAccountToken false, the controller mounts the
// Secret named by the account's secrets, its
// workflows.argoproj.io/service-account-token.name annotation, or
// <sa>.service-account-token (util/secrets/secret_name.go), which
// Kubernetes no longer makes by itself. Its token controller fills a
// Secret of this type that names the account; it comes after the account.
func executorToken(p *ir.Pipeline, sa string) *corev1.Secret {
	return &corev1.Secret{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Secret"},
		ObjectMeta: metav1.ObjectMeta{
			Name: sa + ".service-account-token", Namespace: p.Namespace, Labels: p.Labels,
			Annotations: map[string]string{corev1.ServiceAccountNameKey: sa},
		},
		Type: corev1.SecretTypeServiceAccountToken,
	}
}
